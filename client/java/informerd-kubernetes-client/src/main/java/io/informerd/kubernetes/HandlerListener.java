package io.informerd.kubernetes;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ResourceEventHandler;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One handler's delivery: its own queue and thread, so a slow handler delays
 * neither the other handlers nor the informer's reading (client-go's
 * processorListener).
 *
 * <p>The queue is unbounded, as client-go's and client-java's are: a bound
 * would have to either block the informer (and so every other handler) or
 * drop calls (and break the handler's replay of the stream). An entry is a
 * reference to an object the informer decoded anyway; what a handler that
 * never catches up costs is those objects kept alive. informerd bounds what
 * a slow reader costs on the server; here {@link HandlerRegistration#pending}
 * tells how far a handler is behind.
 *
 * <p>Thread-safe. {@link #enqueue} is called under the informer's delivery
 * lock, which orders every handler's calls as the cache changed.
 */
final class HandlerListener<T extends KubernetesObject> implements HandlerRegistration {
  private static final Logger logger = Logger.getLogger(HandlerListener.class.getName());

  enum Kind {
    ADD,
    UPDATE,
    DELETE,
    /** The registration's initial calls are all delivered. */
    SYNCED,
    /** Ends the thread. */
    STOP
  }

  static final class Notification<T> {
    final Kind kind;
    final T oldObject;
    final T object;
    final boolean finalStateUnknown;

    Notification(Kind kind, T oldObject, T object, boolean finalStateUnknown) {
      this.kind = kind;
      this.oldObject = oldObject;
      this.object = object;
      this.finalStateUnknown = finalStateUnknown;
    }
  }

  private final ResourceEventHandler<T> handler;
  private final long resyncMillis;
  private final Consumer<HandlerListener<T>> onRemove;
  private final LinkedBlockingQueue<Notification<T>> queue = new LinkedBlockingQueue<>();
  private final CountDownLatch synced = new CountDownLatch(1);
  private final Thread thread;
  private volatile boolean stopped;
  // Set by the informer under its delivery lock.
  ScheduledFuture<?> resyncTask;
  boolean syncMarkerQueued;

  HandlerListener(
      ResourceEventHandler<T> handler,
      long resyncMillis,
      String name,
      Consumer<HandlerListener<T>> onRemove) {
    this.handler = handler;
    this.resyncMillis = resyncMillis;
    this.onRemove = onRemove;
    this.thread = new Thread(this::run, name);
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  long resyncMillis() {
    return resyncMillis;
  }

  void enqueue(Kind kind, T oldObject, T object, boolean finalStateUnknown) {
    if (!stopped) {
      queue.add(new Notification<>(kind, oldObject, object, finalStateUnknown));
    }
  }

  /** Queues the SYNCED marker once; under the informer's delivery lock. */
  void queueSyncMarker() {
    if (!syncMarkerQueued) {
      syncMarkerQueued = true;
      enqueue(Kind.SYNCED, null, null, false);
    }
  }

  private void run() {
    while (true) {
      Notification<T> n;
      try {
        n = queue.take();
      } catch (InterruptedException e) {
        // Only stop() interrupts, when a handler's call blocked past it.
        return;
      }
      if (stopped || n.kind == Kind.STOP) {
        return;
      }
      try {
        switch (n.kind) {
          case ADD:
            handler.onAdd(n.object);
            break;
          case UPDATE:
            handler.onUpdate(n.oldObject, n.object);
            break;
          case DELETE:
            handler.onDelete(n.object, n.finalStateUnknown);
            break;
          case SYNCED:
            synced.countDown();
            if (handler instanceof SyncAwareEventHandler) {
              ((SyncAwareEventHandler<T>) handler).onSynced();
            }
            break;
          default:
            throw new AssertionError(n.kind);
        }
      } catch (RuntimeException | Error e) {
        // As client-java's ProcessorListener: one failing call does not end
        // the handler's delivery.
        logger.log(Level.WARNING, "event handler " + thread.getName() + " threw on " + n.kind, e);
      }
    }
  }

  /**
   * Stops delivery, drops queued calls and waits until a call in progress
   * has returned (unless called from this handler's own thread). An
   * interrupt ends the wait and stays set.
   */
  void stop() {
    stopped = true;
    queue.clear();
    queue.add(new Notification<>(Kind.STOP, null, null, false));
    if (Thread.currentThread() == thread) {
      return;
    }
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public boolean hasSynced() {
    return synced.getCount() == 0;
  }

  @Override
  public boolean awaitSynced(Duration timeout) {
    try {
      return synced.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return hasSynced();
    }
  }

  @Override
  public Duration resyncPeriod() {
    return Duration.ofMillis(resyncMillis);
  }

  @Override
  public int pending() {
    return queue.size();
  }

  @Override
  public void remove() {
    onRemove.accept(this);
  }
}
