package io.informerd.client;

import java.time.Duration;
import java.util.Random;

/**
 * Exponential backoff with jitter between reconnect attempts, so many clients
 * cut off together (e.g. by a server restart) do not reconnect in lockstep.
 *
 * <p>The n-th delay after a reset is drawn uniformly from [d/2, d] with
 * d = min(initial * 2^n, max). Not thread-safe; each informer owns one.
 */
final class Backoff {
  private final Duration initial;
  private final Duration max;
  private final Random random;
  private Duration next;

  /** REQUIRES: 0 < initial <= max. */
  Backoff(Duration initial, Duration max, Random random) {
    this.initial = initial;
    this.max = max;
    this.random = random;
    this.next = initial;
  }

  /** The delay to wait before the next attempt; grows the one after. */
  Duration nextDelay() {
    Duration ceiling = next;
    Duration doubled = next.multipliedBy(2);
    next = doubled.compareTo(max) > 0 ? max : doubled;
    long halfNanos = ceiling.toNanos() / 2;
    return Duration.ofNanos(halfNanos + (long) (random.nextDouble() * (ceiling.toNanos() - halfNanos)));
  }

  /** Called after progress: the next failure waits the initial delay again. */
  void reset() {
    next = initial;
  }
}
