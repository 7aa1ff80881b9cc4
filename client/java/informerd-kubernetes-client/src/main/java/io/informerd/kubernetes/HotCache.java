package io.informerd.kubernetes;

import io.kubernetes.client.common.KubernetesObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * A bounded, least-recently-used cache of whole objects for the no-copy mode
 * ({@link RemoteIndexer}), off unless configured.
 *
 * <p>It serves an object only while its resourceVersion is the one the
 * informer holds for the key ({@code currentVersion}, from the informer's
 * metadata, which is updated before any handler hears of a change), and
 * stores one only if it still is when the read returns; the watch's events
 * also evict their keys. So a cached answer is never older than an event
 * handed to a handler, and keys the informer does not watch are never
 * cached. Thread-safe.
 */
public final class HotCache<T extends KubernetesObject> {
  private final int maxObjects;
  private final Function<String, String> currentVersion;
  // Guarded by this; access order: least recently used first.
  private final LinkedHashMap<String, T> objects;
  private long hits;
  private long misses;
  private long evictions;
  private long invalidations;

  /**
   * {@code currentVersion(key)}: the version the informer holds for the key,
   * null when it holds none.
   *
   * @throws IllegalArgumentException when {@code maxObjects} is not positive
   */
  public HotCache(int maxObjects, Function<String, String> currentVersion) {
    if (maxObjects <= 0) {
      throw new IllegalArgumentException(
          "cacheSize: must be a positive number of objects, got " + maxObjects);
    }
    this.maxObjects = maxObjects;
    this.currentVersion = Objects.requireNonNull(currentVersion, "currentVersion");
    this.objects = new LinkedHashMap<>(16, 0.75f, true);
  }

  /** The cached object if it is the informer's current version, else null. */
  public T get(String key) {
    String current = currentVersion.apply(key);
    synchronized (this) {
      T cached = objects.get(key);
      if (cached != null && current != null
          && current.equals(cached.getMetadata().getResourceVersion())) {
        hits++;
        return cached;
      }
      if (cached != null) {
        objects.remove(key);
        invalidations++;
      }
      misses++;
      return null;
    }
  }

  /** Caches {@code object} if it is the informer's current version of {@code key}. */
  public void put(String key, T object) {
    String version = object.getMetadata() == null ? null : object.getMetadata().getResourceVersion();
    if (version == null || !version.equals(currentVersion.apply(key))) {
      return;
    }
    synchronized (this) {
      objects.put(key, object);
      while (objects.size() > maxObjects) {
        Map.Entry<String, T> eldest = objects.entrySet().iterator().next();
        objects.remove(eldest.getKey());
        evictions++;
      }
    }
  }

  public synchronized void invalidate(String key) {
    if (objects.remove(key) != null) {
      invalidations++;
    }
  }

  /** Cached keys, least recently used first. */
  public synchronized List<String> keys() {
    return new ArrayList<>(objects.keySet());
  }

  public int maxObjects() {
    return maxObjects;
  }

  public synchronized long hits() {
    return hits;
  }

  public synchronized long misses() {
    return misses;
  }

  /** Objects dropped for the size bound. */
  public synchronized long evictions() {
    return evictions;
  }

  /** Objects dropped because the watch moved their key on. */
  public synchronized long invalidations() {
    return invalidations;
  }
}
