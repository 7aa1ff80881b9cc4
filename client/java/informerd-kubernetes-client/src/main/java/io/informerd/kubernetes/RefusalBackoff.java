package io.informerd.kubernetes;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How long one informer waits before it lists again after informerd refused
 * it (RESOURCE_EXHAUSTED on a List, or on a Watch before its first event:
 * the caller's rate, concurrency or initial-events budget).
 *
 * <p>client-java's reflector starts a new list-and-watch one second after
 * the last one failed, whatever the failure, so a refused informer would be
 * refused again every second for as long as the refusal lasts. client-go
 * backs off instead (its reflector's 0.8 s, doubled per failure up to 30 s,
 * plus up to as much again at random), and the Go adapter's 429 makes it do
 * so; this applies the same backoff to client-java's lists. The delay is
 * reset when a Watch delivers an event, not when a List succeeds: a List
 * that succeeds and a Watch refused after it is still a refused round.
 *
 * <p>Thread-safe.
 */
final class RefusalBackoff {
  static final Duration INITIAL = Duration.ofMillis(800);
  static final Duration MAX = Duration.ofSeconds(30);

  private final Object lock = new Object();
  // Guarded by lock. Zero: not refused since the last event.
  private Duration delay = Duration.ZERO;

  /** informerd refused a call: the next list waits longer. */
  void refused() {
    synchronized (lock) {
      delay = delay.isZero() ? INITIAL : min(delay.multipliedBy(2), MAX);
    }
  }

  /** A Watch delivered an event: the informer is served again. */
  void served() {
    synchronized (lock) {
      delay = Duration.ZERO;
    }
  }

  /** The wait before the next list: the delay plus up to as much again. */
  Duration nextWait() {
    Duration base;
    synchronized (lock) {
      base = delay;
    }
    if (base.isZero()) {
      return base;
    }
    return base.plusMillis(ThreadLocalRandom.current().nextLong(base.toMillis() + 1));
  }

  /** Sleeps {@link #nextWait}; the reflector's stop interrupts it. */
  void await() throws InterruptedException {
    Duration wait = nextWait();
    if (!wait.isZero()) {
      Thread.sleep(wait.toMillis()); // the backoff itself, not a synchronisation
    }
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
