package io.informerd.client;

import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.informerd.v1.WatchEvent;
import io.informerd.v1.WatchRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Keeps a local cache of one resource current from an informerd server and
 * reports every change to {@link EventHandler}s, like client-go's shared
 * informer but fed by informerd's Watch.
 *
 * <p>It watches with send_initial_events and allow_bookmarks, fills the cache
 * from the initial events, reports synced at initial_events_end, and then
 * applies live events. On a broken stream it resumes from the last
 * resourceVersion seen, after an exponential backoff with jitter; when the
 * server answers OUT_OF_RANGE (resume point too old) or RESOURCE_EXHAUSTED
 * (this watcher fell behind) it watches again with send_initial_events and
 * reports only the difference to its cache, deletes carrying
 * finalStateUnknown=true.
 *
 * <p>All handler calls and cache writes happen on one thread owned by the
 * informer; see {@link EventHandler} for what a slow handler causes.
 * {@link #lister}, {@link #hasSynced} and {@link #close} are thread-safe.
 */
public final class RemoteInformer implements AutoCloseable {
  private static final Logger logger = Logger.getLogger(RemoteInformer.class.getName());

  private final Connection connection;
  private final WatchRequest baseRequest;
  private final String description;
  private final Indexer indexer;
  private final CacheUpdater updater;
  private final Backoff backoff;
  private final CountDownLatch synced = new CountDownLatch(1);
  private final Thread thread;

  private final Object lock = new Object();
  // Guarded by lock.
  private boolean started;
  private boolean stopping;
  private Context.CancellableContext currentWatch;

  // Written only by the informer thread; read by lastResourceVersion().
  private volatile String resourceVersion = "";
  // Informer thread only. Cleared by initial_events_end; set again when the
  // server says resuming is impossible.
  private boolean relistNeeded = true;

  private RemoteInformer(Builder builder) {
    this.connection = builder.connection;
    this.baseRequest =
        WatchRequest.newBuilder()
            .setResource(builder.resource.toProto())
            .setNamespace(builder.namespace)
            .setLabelSelector(builder.labelSelector)
            .setFieldSelector(builder.fieldSelector)
            .setAllowBookmarks(true)
            .build();
    this.description =
        builder.resource + (builder.namespace.isEmpty() ? "" : " in " + builder.namespace);
    this.indexer = new Indexer(builder.indexFunctions);
    this.updater = new CacheUpdater(indexer, builder.handlers);
    this.backoff = new Backoff(builder.initialBackoff, builder.maxBackoff, new Random());
    this.thread = new Thread(this::run, "informer-" + builder.resource);
    this.thread.setDaemon(true);
  }

  /** Starts configuring an informer for {@code resource} over {@code connection}. */
  public static Builder builder(Connection connection, ResourceRef resource) {
    return new Builder(connection, resource);
  }

  /**
   * Starts the informer's thread.
   *
   * @throws IllegalStateException if already started or closed
   */
  public void start() {
    synchronized (lock) {
      if (started || stopping) {
        throw new IllegalStateException("informer for " + description + ": start called twice");
      }
      started = true;
    }
    thread.start();
  }

  /** True once the initial state has been delivered (and forever after). */
  public boolean hasSynced() {
    return synced.getCount() == 0;
  }

  /** Waits until {@link #hasSynced}; returns false on timeout. */
  public boolean awaitSynced(Duration timeout) throws InterruptedException {
    return synced.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** The local cache. Readable at any time; complete once synced. */
  public Lister lister() {
    return indexer;
  }

  /** The resourceVersion the cache is at; empty before the first sync. */
  public String lastResourceVersion() {
    return resourceVersion;
  }

  /**
   * Stops the watch and waits for the informer's thread to end, interrupting
   * it (and so a handler blocked in an interruptible call). No handler is
   * called after this returns. Idempotent. If the calling thread is
   * interrupted while waiting, the wait ends and the interrupt stays set.
   */
  @Override
  public void close() {
    synchronized (lock) {
      stopping = true;
      if (currentWatch != null) {
        currentWatch.cancel(Status.CANCELLED.withDescription("informer closed").asException());
      }
    }
    if (thread.isAlive() && thread != Thread.currentThread()) {
      thread.interrupt();
      try {
        thread.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private boolean isStopping() {
    synchronized (lock) {
      return stopping;
    }
  }

  private void run() {
    while (!isStopping()) {
      boolean relistAtOnce = false;
      try {
        watchOnce();
        logger.info("watch of " + description + " ended by the server; resuming");
      } catch (StatusRuntimeException e) {
        if (isStopping()) {
          return;
        }
        Status.Code code = e.getStatus().getCode();
        if (code == Status.Code.OUT_OF_RANGE || code == Status.Code.RESOURCE_EXHAUSTED) {
          // The server is up and answered: waiting would only let the cache
          // fall further behind. A relist that itself fails this way backs
          // off, so a server that keeps refusing is not hammered.
          relistAtOnce = !relistNeeded;
          relistNeeded = true;
        }
        logger.log(
            Level.WARNING,
            "watch of " + description + " failed: " + e.getStatus()
                + (relistNeeded ? "; relisting" : "; resuming from " + resourceVersion));
      }
      if (relistAtOnce) {
        continue;
      }
      try {
        Thread.sleep(backoff.nextDelay().toMillis());
      } catch (InterruptedException e) {
        return;
      }
      // The channel's own reconnect backoff would otherwise outlast ours
      // after a server restart, failing every retry fast until it expires.
      connection.resetConnectBackoff();
    }
  }

  /** One Watch call, until the stream ends or fails. */
  private void watchOnce() {
    Context.CancellableContext context = Context.current().withCancellation();
    synchronized (lock) {
      if (stopping) {
        return;
      }
      currentWatch = context;
    }
    try {
      context.run(this::consumeWatch);
    } finally {
      synchronized (lock) {
        currentWatch = null;
      }
      context.cancel(null);
    }
  }

  private void consumeWatch() {
    WatchRequest.Builder request = baseRequest.toBuilder();
    if (relistNeeded) {
      request.setSendInitialEvents(true);
    } else {
      request.setResourceVersion(resourceVersion);
    }
    Iterator<WatchEvent> events = connection.blockingStub().watch(request.build());
    // Objects of the initial events, applied as one diff at their end.
    Map<String, KubeObject> initial = relistNeeded ? new LinkedHashMap<>() : null;
    while (events.hasNext()) {
      WatchEvent event = events.next();
      backoff.reset();
      if (initial != null) {
        if (collectInitial(event, initial)) {
          initial = null;
        }
        continue;
      }
      // Before the handlers run, so they see the version they are called for.
      resourceVersion = event.getResourceVersion();
      updater.applyEvent(event);
    }
  }

  /** Returns true when {@code event} ends the initial events. */
  private boolean collectInitial(WatchEvent event, Map<String, KubeObject> initial) {
    switch (event.getType()) {
      case ADDED:
      case MODIFIED:
        KubeObject object = KubeObject.fromProto(event.getObject());
        initial.put(object.key(), object);
        return false;
      case DELETED:
        initial.remove(KubeObject.keyOf(event.getObject().getNamespace(), event.getObject().getName()));
        return false;
      case BOOKMARK:
        if (!event.getInitialEventsEnd()) {
          return false;
        }
        resourceVersion = event.getResourceVersion();
        updater.applyRelist(initial);
        relistNeeded = false;
        if (!hasSynced()) {
          synced.countDown();
          updater.reportSynced();
        }
        return true;
      default:
        return false;
    }
  }

  /** Configures a {@link RemoteInformer}. Not thread-safe. */
  public static final class Builder {
    private final Connection connection;
    private final ResourceRef resource;
    private String namespace = "";
    private String labelSelector = "";
    private String fieldSelector = "";
    private final List<EventHandler> handlers = new ArrayList<>();
    private final Map<String, IndexFunction> indexFunctions = new HashMap<>();
    private Duration initialBackoff = Duration.ofMillis(200);
    // Short, so a client is caught up within seconds of a restarted server
    // being ready; the jitter spreads many clients' reconnects.
    private Duration maxBackoff = Duration.ofSeconds(1);

    private Builder(Connection connection, ResourceRef resource) {
      this.connection = connection;
      this.resource = resource;
    }

    /** Only objects in this namespace; default all namespaces. */
    public Builder namespace(String namespace) {
      this.namespace = namespace;
      return this;
    }

    /**
     * Only objects matching this label selector, filtered by the server.
     *
     * @throws IllegalArgumentException if the selector does not parse
     */
    public Builder labelSelector(String selector) {
      this.labelSelector = LabelSelector.parse(selector).toString();
      return this;
    }

    /** Only objects matching this field selector, filtered by the server. */
    public Builder fieldSelector(String selector) {
      this.fieldSelector = selector;
      return this;
    }

    /** Handlers are called in the order they were added. */
    public Builder addEventHandler(EventHandler handler) {
      handlers.add(handler);
      return this;
    }

    /**
     * Adds an index for {@link Lister#byIndex}.
     *
     * @throws IllegalArgumentException if the name is taken (also by the
     *     built-in {@value Indexer#NAMESPACE_INDEX} index)
     */
    public Builder addIndex(String name, IndexFunction function) {
      if (name.equals(Indexer.NAMESPACE_INDEX) || indexFunctions.containsKey(name)) {
        throw new IllegalArgumentException("index name: \"" + name + "\" is already defined");
      }
      indexFunctions.put(name, function);
      return this;
    }

    /**
     * Reconnect delays grow from {@code initial} to {@code max}; defaults
     * 200ms and 1s.
     *
     * @throws IllegalArgumentException unless 0 < initial <= max
     */
    public Builder backoff(Duration initial, Duration max) {
      if (initial.isNegative() || initial.isZero() || initial.compareTo(max) > 0) {
        throw new IllegalArgumentException(
            "backoff: need 0 < initial <= max, got " + initial + " and " + max);
      }
      this.initialBackoff = initial;
      this.maxBackoff = max;
      return this;
    }

    /** Builds the informer; call {@link RemoteInformer#start} to run it. */
    public RemoteInformer build() {
      return new RemoteInformer(this);
    }
  }
}
