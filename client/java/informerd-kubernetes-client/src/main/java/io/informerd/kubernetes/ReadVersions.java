package io.informerd.kubernetes;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The highest resourceVersion handed to the event handlers of a
 * {@link NoCopyInformer}: every read of its {@link RemoteIndexer} asks
 * informerd for this version or later, so a read that follows an event is
 * answered at that event's version or later ("read your events"), from any
 * replica.
 *
 * <p>Versions are compared as integers: informerd accepts no other
 * resource_version in a request, and the apiserver's are etcd revisions. A
 * version that is not a non-negative decimal integer is ignored. Monotonic
 * and thread-safe.
 */
public final class ReadVersions {
  private final AtomicLong highest = new AtomicLong();

  /** Raises the version to {@code resourceVersion} if that is higher. */
  public void observe(String resourceVersion) {
    long value = parse(resourceVersion);
    if (value > 0) {
      highest.accumulateAndGet(value, Math::max);
    }
  }

  /** The highest version observed; "" before the first. */
  public String version() {
    long value = highest.get();
    return value == 0 ? "" : Long.toString(value);
  }

  /**
   * The higher of this tracker's version and {@code given} ("" or null:
   * none), as a read's minimum.
   *
   * @throws IllegalArgumentException naming {@code given} when it is not a
   *     decimal integer
   */
  String notOlderThan(String given) {
    long value = highest.get();
    if (given != null && !given.isEmpty()) {
      long parsed = parse(given);
      if (parsed < 0) {
        throw new IllegalArgumentException(
            "resourceVersion: \"" + given + "\" is not a decimal integer");
      }
      value = Math.max(value, parsed);
    }
    return value == 0 ? "" : Long.toString(value);
  }

  private static long parse(String version) {
    if (version == null || version.isEmpty() || version.length() > 19) {
      return -1;
    }
    for (int i = 0; i < version.length(); i++) {
      if (version.charAt(i) < '0' || version.charAt(i) > '9') {
        return -1;
      }
    }
    return Long.parseLong(version);
  }
}
