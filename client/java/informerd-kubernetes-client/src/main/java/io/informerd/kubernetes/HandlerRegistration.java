package io.informerd.kubernetes;

import java.time.Duration;

/**
 * One event handler added to an {@link InformerdSharedIndexInformer}: what
 * client-go's {@code ResourceEventHandlerRegistration} is, which client-java
 * 27 has no equivalent of ({@code addEventHandler} returns nothing there).
 *
 * <p>Thread-safe.
 */
public interface HandlerRegistration {
  /**
   * True once the informer has synced and this handler has returned from
   * every call for the objects that were in the cache when it joined (or, for
   * a handler added before the sync, from every call of the initial list).
   * It never turns false.
   */
  boolean hasSynced();

  /**
   * Waits until {@link #hasSynced} or the timeout; returns hasSynced(). An
   * interrupt ends the wait and stays set on the calling thread.
   */
  boolean awaitSynced(Duration timeout);

  /** This handler's resync period; zero: none. */
  Duration resyncPeriod();

  /** Calls queued for this handler and not yet started (for monitoring). */
  int pending();

  /**
   * Removes the handler: it gets no further calls, queued ones are dropped.
   * Returns once a call in progress has returned, unless called from that
   * call. Idempotent.
   */
  void remove();
}
