package io.informerd.kubernetes;

import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ListerWatcher;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.TransformFunc;
import io.kubernetes.client.informer.cache.Cache;
import io.kubernetes.client.informer.cache.Controller;
import io.kubernetes.client.informer.cache.DeltaFIFO;
import io.kubernetes.client.informer.cache.Indexer;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.commons.lang3.tuple.MutablePair;

/**
 * A client-java {@link SharedIndexInformer} with client-go's handler model,
 * built on client-java's own reflector, DeltaFIFO and Cache (so lists,
 * watches, relists and the Indexer behave exactly as client-java's), with
 * its own delivery to handlers. {@link InformerdSharedInformerFactory} hands
 * them out; any {@link ListerWatcher} works, {@link InformerdListerWatcher}
 * is the one that reads informerd.
 *
 * <p>Where it differs from client-java 27's {@code DefaultSharedIndexInformer},
 * and why:
 * <ul>
 *   <li><b>Late handlers.</b> A handler added to a running informer first
 *       gets every cached object as an add, then live events, in order. The
 *       cache snapshot and the handler's joining happen under the lock that
 *       also covers "store the change, hand it to the handlers", as
 *       client-go's {@code blockDeltas}. client-java's joins the handler,
 *       then lists the cache without that lock, so an event in between can
 *       come twice or before the add of its object.
 *   <li><b>Per-registration sync.</b> {@link #addEventHandlerWithRegistration}
 *       returns a {@link HandlerRegistration} with its own {@code hasSynced}
 *       (client-go's {@code ResourceEventHandlerRegistration}); client-java
 *       has none.
 *   <li><b>Per-handler resync.</b> Each handler resyncs at its own period
 *       (minimum one second, as client-java): updates with old and new the
 *       same cached object, to that handler only, from the local cache, never
 *       a List. client-java 27 gives every handler the informer's period,
 *       whatever it asked for.
 *   <li><b>Relists.</b> After a relist, objects whose resourceVersion did not
 *       change are stored but not reported; changed and new ones go to every
 *       handler. (client-java reports relisted objects as resync updates,
 *       which reach only handlers due for a resync once any resync ran.)
 *   <li><b>Stop.</b> {@link #stop} returns once no handler call runs; it
 *       does not interrupt handlers.
 * </ul>
 *
 * <p>Each handler has its own queue and thread ({@link HandlerListener}): the
 * queue is unbounded, as client-go's and client-java's; see there.
 *
 * <p>Thread-safe.
 */
public final class InformerdSharedIndexInformer<T extends KubernetesObject>
    implements SharedIndexInformer<T> {
  private static final Logger logger = Logger.getLogger(InformerdSharedIndexInformer.class.getName());

  /** As client-java's DefaultSharedIndexInformer: shorter periods are raised to it. */
  public static final Duration MINIMUM_RESYNC_PERIOD = Duration.ofSeconds(1);

  private final String name;
  private final Cache<T> indexer = new Cache<>();
  private final SyncNotifyingFifo fifo;
  private final Controller<T, ?> controller;
  private final Thread controllerThread;
  private final ScheduledThreadPoolExecutor resyncTimer;
  private final long defaultResyncMillis;

  // Orders "store a change, queue it for every handler" against handlers
  // joining, leaving and resyncing: each handler's queue is the cache's
  // history from the moment it joined.
  private final Object lock = new Object();
  // Guarded by lock.
  private final List<HandlerListener<T>> listeners = new ArrayList<>();
  private boolean started;
  private int handlerCount;
  // Written under lock; read without it.
  private volatile boolean stopped;
  private volatile boolean synced;
  // Set before run(), whose Thread.start publishes it to the controller thread.
  private volatile TransformFunc transform;

  /**
   * An informer of {@code apiTypeClass} over {@code listerWatcher}.
   * {@code defaultResync} (zero: none) applies to handlers added without a
   * period. {@code exceptionHandler} (may be null) hears the reflector's
   * list and watch errors, as in client-java.
   */
  public <L extends KubernetesListObject> InformerdSharedIndexInformer(
      Class<T> apiTypeClass,
      ListerWatcher<T, L> listerWatcher,
      Duration defaultResync,
      BiConsumer<Class<T>, Throwable> exceptionHandler) {
    Objects.requireNonNull(apiTypeClass, "apiTypeClass");
    Objects.requireNonNull(listerWatcher, "listerWatcher");
    this.name = apiTypeClass.getSimpleName();
    this.defaultResyncMillis = checkedResyncMillis(defaultResync);
    @SuppressWarnings("unchecked")
    Cache<KubernetesObject> known = (Cache<KubernetesObject>) (Cache<?>) indexer;
    this.fifo = new SyncNotifyingFifo(known);
    this.controller =
        new Controller<>(
            apiTypeClass, fifo, listerWatcher, this::handleDeltas, null, 0, exceptionHandler);
    this.controllerThread = new Thread(controller::run, "informerd-informer-" + name);
    this.controllerThread.setDaemon(true);
    this.resyncTimer =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "informerd-resync-" + name);
              t.setDaemon(true);
              return t;
            });
    this.resyncTimer.setRemoveOnCancelPolicy(true);
  }

  @Override
  public void addEventHandler(ResourceEventHandler<T> handler) {
    addEventHandlerWithRegistration(handler, Duration.ofMillis(defaultResyncMillis));
  }

  /** {@code resyncPeriod} in milliseconds; 0: none. */
  @Override
  public void addEventHandlerWithResyncPeriod(ResourceEventHandler<T> handler, long resyncPeriod) {
    addEventHandlerWithRegistration(handler, Duration.ofMillis(resyncPeriod));
  }

  /** With the informer's default resync period. */
  public HandlerRegistration addEventHandlerWithRegistration(ResourceEventHandler<T> handler) {
    return addEventHandlerWithRegistration(handler, Duration.ofMillis(defaultResyncMillis));
  }

  /**
   * Adds a handler, before or after {@link #run}. On a running informer it
   * first gets an add for every cached object, then live events.
   * {@code resyncPeriod} zero: no resync; below one second: one second.
   *
   * @throws IllegalStateException after {@link #stop}
   */
  public HandlerRegistration addEventHandlerWithRegistration(
      ResourceEventHandler<T> handler, Duration resyncPeriod) {
    Objects.requireNonNull(handler, "handler");
    long resyncMillis = checkedResyncMillis(resyncPeriod);
    synchronized (lock) {
      if (stopped) {
        throw new IllegalStateException("informer of " + name + " is stopped");
      }
      HandlerListener<T> listener =
          new HandlerListener<>(
              handler, resyncMillis, "informerd-handler-" + name + "-" + handlerCount++,
              this::removeListener);
      listeners.add(listener);
      if (started) {
        for (T object : indexer.list()) {
          listener.enqueue(HandlerListener.Kind.ADD, null, object, false);
        }
        if (synced) {
          listener.queueSyncMarker();
        }
        startLocked(listener);
      }
      return listener;
    }
  }

  private static long checkedResyncMillis(Duration period) {
    if (period == null || period.isZero()) {
      return 0;
    }
    if (period.isNegative()) {
      throw new IllegalArgumentException("resync period must not be negative, got " + period);
    }
    if (period.compareTo(MINIMUM_RESYNC_PERIOD) < 0) {
      logger.warning("resync period " + period + " raised to the minimum " + MINIMUM_RESYNC_PERIOD);
      return MINIMUM_RESYNC_PERIOD.toMillis();
    }
    return period.toMillis();
  }

  private void startLocked(HandlerListener<T> listener) {
    listener.start();
    long period = listener.resyncMillis();
    if (period > 0) {
      listener.resyncTask =
          resyncTimer.scheduleAtFixedRate(
              () -> resync(listener), period, period, TimeUnit.MILLISECONDS);
    }
  }

  /** Queues the whole cache as updates (old == new) for one handler. */
  private void resync(HandlerListener<T> listener) {
    synchronized (lock) {
      if (stopped || !synced || !listeners.contains(listener)) {
        return;
      }
      for (T object : indexer.list()) {
        listener.enqueue(HandlerListener.Kind.UPDATE, object, object, false);
      }
    }
  }

  private void removeListener(HandlerListener<T> listener) {
    synchronized (lock) {
      listeners.remove(listener);
      if (listener.resyncTask != null) {
        listener.resyncTask.cancel(false);
      }
    }
    listener.stop();
  }

  @Override
  public void run() {
    synchronized (lock) {
      if (started || stopped) {
        return;
      }
      started = true;
      for (HandlerListener<T> listener : listeners) {
        startLocked(listener);
      }
    }
    controllerThread.start();
  }

  /**
   * Stops the reflector and every handler; returns once no handler call
   * runs (a handler that stops its own informer waits for the others only).
   * Queued calls are dropped, as client-go does. An interrupt ends the wait
   * and stays set. Idempotent.
   */
  @Override
  public void stop() {
    List<HandlerListener<T>> toStop;
    synchronized (lock) {
      if (stopped) {
        return;
      }
      stopped = true;
      toStop = new ArrayList<>(listeners);
      listeners.clear();
    }
    controller.stop();
    resyncTimer.shutdownNow();
    controllerThread.interrupt();
    if (Thread.currentThread() != controllerThread) {
      try {
        controllerThread.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    for (HandlerListener<T> listener : toStop) {
      listener.stop();
    }
  }

  /**
   * True once the initial list is in the cache and has been queued for every
   * handler then registered.
   */
  @Override
  public boolean hasSynced() {
    if (synced) {
      return true;
    }
    // Outside the lock: the controller thread holds the FIFO's lock while it
    // takes ours. The FIFO says synced only once the last item of the initial
    // list was processed (pop holds its lock through the processing).
    if (!fifo.hasSynced()) {
      return false;
    }
    synchronized (lock) {
      markSyncedLocked();
    }
    return true;
  }

  private void markSyncedLocked() {
    if (synced || stopped) {
      return;
    }
    synced = true;
    for (HandlerListener<T> listener : listeners) {
      listener.queueSyncMarker();
    }
  }

  /**
   * Waits until {@link #hasSynced} or the timeout; returns hasSynced(). An
   * interrupt ends the wait and stays set.
   */
  public boolean awaitSynced(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!hasSynced()) {
      if (System.nanoTime() - deadline >= 0 || stopped) {
        return hasSynced();
      }
      try {
        // client-java's FIFO offers no sync signal; poll it.
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return hasSynced();
      }
    }
    return true;
  }

  @Override
  public String lastSyncResourceVersion() {
    return controller.lastSyncResourceVersion();
  }

  /**
   * Applied to each object before it is stored and handed to handlers (e.g.
   * to drop fields). Not applied to a deleted-final-state-unknown tombstone:
   * its object comes from the cache, already transformed. Before {@link #run}.
   */
  @Override
  public void setTransform(TransformFunc transformFunc) {
    synchronized (lock) {
      if (started) {
        throw new IllegalStateException("cannot set a transform on a running informer");
      }
      this.transform = transformFunc;
    }
  }

  /** Before {@link #run}, as client-java's. */
  @Override
  public void addIndexers(Map<String, Function<T, List<String>>> indexers) {
    synchronized (lock) {
      if (started) {
        throw new IllegalStateException("cannot add indexers to a running informer");
      }
      indexer.addIndexers(indexers);
    }
  }

  @Override
  public Indexer<T> getIndexer() {
    return indexer;
  }

  /** Called by the controller thread with one key's deltas, under the FIFO's lock. */
  private void handleDeltas(Deque<MutablePair<DeltaFIFO.DeltaType, KubernetesObject>> deltas) {
    synchronized (lock) {
      if (stopped) {
        return;
      }
      for (MutablePair<DeltaFIFO.DeltaType, KubernetesObject> delta : deltas) {
        apply(delta.getLeft(), delta.getRight());
      }
      // The FIFO's read lock is reentrant for this thread, which holds its write lock.
      if (!synced && fifo.hasSynced()) {
        markSyncedLocked();
      }
    }
  }

  @SuppressWarnings("unchecked")
  private void apply(DeltaFIFO.DeltaType type, KubernetesObject delta) {
    if (type == DeltaFIFO.DeltaType.Deleted && delta instanceof DeltaFIFO.DeletedFinalStateUnknown) {
      T last = ((DeltaFIFO.DeletedFinalStateUnknown<T>) delta).getObj();
      T cached = indexer.get((T) delta);
      indexer.delete((T) delta);
      T reported = cached != null ? cached : last;
      if (reported == null) {
        logger.warning("informer of " + name + ": tombstone without an object; not reported");
        return;
      }
      distribute(HandlerListener.Kind.DELETE, null, reported, true);
      return;
    }
    TransformFunc t = transform;
    T object = (T) (t == null ? delta : t.transform(delta));
    switch (type) {
      case Deleted:
        indexer.delete(object);
        distribute(HandlerListener.Kind.DELETE, null, object, false);
        break;
      case Sync: // an item of a (re)list
      case Added:
      case Updated:
        T old = indexer.get(object);
        if (old == null) {
          indexer.add(object);
          distribute(HandlerListener.Kind.ADD, null, object, false);
        } else {
          indexer.update(object);
          if (type == DeltaFIFO.DeltaType.Sync && sameVersion(old, object)) {
            return; // relisted unchanged
          }
          distribute(HandlerListener.Kind.UPDATE, old, object, false);
        }
        break;
      default:
        logger.log(Level.WARNING, "informer of " + name + ": unknown delta " + type);
    }
  }

  private static boolean sameVersion(KubernetesObject a, KubernetesObject b) {
    String rvA = resourceVersion(a);
    return rvA != null && rvA.equals(resourceVersion(b));
  }

  private static String resourceVersion(KubernetesObject object) {
    V1ObjectMeta meta = object.getMetadata();
    return meta == null ? null : meta.getResourceVersion();
  }

  private void distribute(HandlerListener.Kind kind, T oldObject, T object, boolean finalStateUnknown) {
    for (HandlerListener<T> listener : listeners) {
      listener.enqueue(kind, oldObject, object, finalStateUnknown);
    }
  }

  /** client-java's DeltaFIFO, telling the informer when an (empty) initial list made it synced. */
  private final class SyncNotifyingFifo extends DeltaFIFO {
    SyncNotifyingFifo(Cache<KubernetesObject> known) {
      super(io.kubernetes.client.informer.cache.Caches::deletionHandlingMetaNamespaceKeyFunc, known);
    }

    @Override
    public void replace(List<KubernetesObject> list, String resourceVersion) {
      super.replace(list, resourceVersion);
      // An empty first list has nothing to process: synced now.
      informerSynced();
    }

    boolean informerSynced() {
      return InformerdSharedIndexInformer.this.hasSynced();
    }
  }
}
