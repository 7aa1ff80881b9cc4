package io.informerd.client;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The local cache of one informer: objects by key plus secondary indexes
 * computed by {@link IndexFunction}s.
 *
 * <p>Thread-safe: any number of readers run concurrently with the informer's
 * single writer. Only the informer mutates it, so the mutators are
 * package-private.
 */
public final class Indexer implements Lister {
  /** The built-in index from namespace to the objects in it. */
  public static final String NAMESPACE_INDEX = "namespace";

  private static final Logger logger = Logger.getLogger(Indexer.class.getName());

  private final ReadWriteLock lock = new ReentrantReadWriteLock();
  private final Map<String, IndexFunction> indexFunctions;
  // Sorted so that listings come out in key order without a sort per call.
  private final TreeMap<String, KubeObject> objects = new TreeMap<>();
  // index name -> index value -> keys of the objects with that value.
  private final Map<String, Map<String, Set<String>>> indexes = new HashMap<>();

  /**
   * REQUIRES: {@code indexFunctions} does not use the name
   * {@value #NAMESPACE_INDEX}.
   */
  public Indexer(Map<String, IndexFunction> indexFunctions) {
    if (indexFunctions.containsKey(NAMESPACE_INDEX)) {
      throw new IllegalArgumentException(
          "index functions: name \"" + NAMESPACE_INDEX + "\" is built in");
    }
    Map<String, IndexFunction> all = new HashMap<>(indexFunctions);
    all.put(NAMESPACE_INDEX, object -> List.of(object.namespace()));
    this.indexFunctions = Collections.unmodifiableMap(all);
    for (String name : all.keySet()) {
      indexes.put(name, new HashMap<>());
    }
  }

  /** Inserts or replaces the object with the same key; returns the old one. */
  Optional<KubeObject> put(KubeObject object) {
    lock.writeLock().lock();
    try {
      KubeObject old = objects.put(object.key(), object);
      if (old != null) {
        unindex(old);
      }
      index(object);
      return Optional.ofNullable(old);
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Removes the object with this key; returns it if it was present. */
  Optional<KubeObject> remove(String key) {
    lock.writeLock().lock();
    try {
      KubeObject old = objects.remove(key);
      if (old != null) {
        unindex(old);
      }
      return Optional.ofNullable(old);
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** A copy of the whole cache by key, for diffing against a relist. */
  Map<String, KubeObject> snapshot() {
    lock.readLock().lock();
    try {
      return new HashMap<>(objects);
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public Optional<KubeObject> get(String namespace, String name) {
    return getByKey(KubeObject.keyOf(namespace, name));
  }

  @Override
  public Optional<KubeObject> getByKey(String key) {
    lock.readLock().lock();
    try {
      return Optional.ofNullable(objects.get(key));
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public List<KubeObject> list() {
    return list(LabelSelector.everything());
  }

  @Override
  public List<KubeObject> list(LabelSelector selector) {
    lock.readLock().lock();
    try {
      List<KubeObject> result = new ArrayList<>();
      for (KubeObject object : objects.values()) {
        if (selector.matches(object.labels())) {
          result.add(object);
        }
      }
      return Collections.unmodifiableList(result);
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public List<KubeObject> list(String namespace, LabelSelector selector) {
    List<KubeObject> result = new ArrayList<>();
    for (KubeObject object : byIndex(NAMESPACE_INDEX, namespace)) {
      if (selector.matches(object.labels())) {
        result.add(object);
      }
    }
    return Collections.unmodifiableList(result);
  }

  @Override
  public List<KubeObject> byIndex(String indexName, String value) {
    lock.readLock().lock();
    try {
      Map<String, Set<String>> index = indexes.get(indexName);
      if (index == null) {
        throw new IllegalArgumentException(
            "index name: no index \"" + indexName + "\"; known: " + new TreeSet<>(indexes.keySet()));
      }
      List<KubeObject> result = new ArrayList<>();
      for (String key : new TreeSet<>(index.getOrDefault(value, Set.of()))) {
        result.add(objects.get(key));
      }
      return Collections.unmodifiableList(result);
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public List<String> keys() {
    lock.readLock().lock();
    try {
      return List.copyOf(objects.keySet());
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public int size() {
    lock.readLock().lock();
    try {
      return objects.size();
    } finally {
      lock.readLock().unlock();
    }
  }

  // REQUIRES: the write lock is held.
  private void index(KubeObject object) {
    for (Map.Entry<String, IndexFunction> entry : indexFunctions.entrySet()) {
      Map<String, Set<String>> index = indexes.get(entry.getKey());
      for (String value : valuesOf(entry.getKey(), entry.getValue(), object)) {
        index.computeIfAbsent(value, v -> new HashSet<>()).add(object.key());
      }
    }
  }

  // REQUIRES: the write lock is held.
  private void unindex(KubeObject object) {
    for (Map.Entry<String, IndexFunction> entry : indexFunctions.entrySet()) {
      Map<String, Set<String>> index = indexes.get(entry.getKey());
      for (String value : valuesOf(entry.getKey(), entry.getValue(), object)) {
        Set<String> keys = index.get(value);
        if (keys != null) {
          keys.remove(object.key());
          if (keys.isEmpty()) {
            index.remove(value);
          }
        }
      }
    }
  }

  private static Collection<String> valuesOf(String name, IndexFunction function, KubeObject object) {
    try {
      Collection<String> values = function.valuesOf(object);
      return values == null ? List.of() : values;
    } catch (RuntimeException e) {
      logger.log(Level.WARNING, "index function " + name + " failed on " + object.key(), e);
      return List.of();
    }
  }
}
