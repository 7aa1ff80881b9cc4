package io.informerd.kubernetes;

import io.grpc.CallCredentials;
import io.grpc.Channel;
import io.informerd.client.Connection;
import io.informerd.client.ResourceRef;
import io.informerd.v1.Projection;
import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.TransformFunc;
import io.kubernetes.client.informer.cache.Indexer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The no-copy mode: a client-java {@link SharedIndexInformer} whose handlers
 * get objects with only their metadata (apiVersion, kind, metadata: the key,
 * labels, owner references, generation; every other field null), and whose
 * {@link #getIndexer()} and {@link #lister()} read whole objects from
 * informerd ({@link RemoteIndexer}) instead of a local copy. Code that reads
 * through {@code new Lister<>(informer.getIndexer())} works unchanged, each
 * read an RPC.
 *
 * <p><b>Read your events.</b> Before each handler call the object's
 * resourceVersion goes into {@link #versions()}; every read asks informerd
 * for that version or later, so a read made after a handler received an
 * event is answered at that event's version or later, never earlier, also
 * by a replica behind the one the watch comes from (informerd's bounded wait
 * ends in a 503 {@link InformerdReadException}, never in an older answer).
 *
 * <p><b>Hot cache.</b> {@code cacheSize(n)} keeps up to n whole objects that
 * {@code get} fetched ({@link HotCache}), served only while they are the
 * version the informer holds for their key; off by default.
 *
 * <p><b>Why the model type with only metadata</b>, not a metadata type:
 * client-java 27 has no {@code V1PartialObjectMetadata} model, and its
 * controllers, informer factories and handlers are typed by the model
 * ({@code ResourceEventHandler<V1Pod>}), so they run unchanged; a declared
 * field mask ({@link Builder#mask}) fills more fields of the same type. A
 * handler that reads a field outside the mask sees null: read the object
 * with the lister.
 *
 * <p>The mask: {@link #METADATA_MASK} is the metadata projection; any other
 * paths are informerd's field mask ({@link #watchFields}). Thread-safe;
 * {@link #close()} stops it.
 */
public final class NoCopyInformer<T extends KubernetesObject>
    implements SharedIndexInformer<T>, AutoCloseable {
  /** The default mask: apiVersion, kind and metadata. */
  public static final List<String> METADATA_MASK = List.of("metadata");

  private final InformerdSharedIndexInformer<T> informer;
  private final ReadVersions versions = new ReadVersions();
  private final HotCache<T> cache;
  private final RemoteIndexer<T> remote;

  private <L extends KubernetesListObject> NoCopyInformer(Builder<T, L> builder) {
    InformerdListerWatcher.Builder<T, L> listerWatcher =
        (builder.connection != null
                ? InformerdListerWatcher.builder(
                    builder.connection, builder.apiTypeClass, builder.apiListTypeClass,
                    builder.resource)
                : InformerdListerWatcher.builder(
                    builder.channel, builder.credentials, builder.apiTypeClass,
                    builder.apiListTypeClass, builder.resource))
            .namespace(builder.namespace)
            .labelSelector(builder.labelSelector)
            .fieldSelector(builder.fieldSelector)
            .projection(watchProjection(builder.mask))
            .fields(watchFields(builder.mask));
    if (builder.kind != null) {
      listerWatcher.kind(builder.kind);
    }
    this.informer =
        new InformerdSharedIndexInformer<>(
            builder.apiTypeClass, listerWatcher.build(), builder.defaultResync,
            builder.exceptionHandler);
    Indexer<T> metadata = informer.getIndexer();
    this.cache =
        builder.cacheSize == 0
            ? null
            : new HotCache<>(builder.cacheSize, key -> versionOf(metadata.getByKey(key)));
    RemoteIndexer.Builder<T> reads =
        (builder.connection != null
                ? RemoteIndexer.builder(builder.connection, builder.apiTypeClass, builder.resource)
                : RemoteIndexer.builder(
                    builder.channel, builder.credentials, builder.apiTypeClass, builder.resource))
            .versions(versions)
            .cache(cache)
            .timeout(builder.readTimeout);
    if (builder.kind != null) {
      reads.kind(builder.kind);
    }
    this.remote = reads.build();
  }

  /**
   * The WatchRequest projection for the handlers' {@code mask}: metadata for
   * {@link #METADATA_MASK} (or null), whole objects narrowed by
   * {@link #watchFields} otherwise.
   *
   * @throws IllegalArgumentException naming the mask when it has no paths or
   *     an empty one
   */
  static Projection watchProjection(List<String> mask) {
    if (mask == null || mask.equals(METADATA_MASK)) {
      return Projection.PROJECTION_METADATA;
    }
    if (mask.isEmpty()) {
      throw new IllegalArgumentException(
          "mask: no paths; name at least one field ([metadata] for metadata only)");
    }
    for (int i = 0; i < mask.size(); i++) {
      if (mask.get(i) == null || mask.get(i).isEmpty()) {
        throw new IllegalArgumentException(
            "mask[" + i + "]: empty in " + mask + "; a path names a field, e.g. spec.nodeName");
      }
    }
    return Projection.PROJECTION_FULL;
  }

  /** The WatchRequest field mask for the handlers' {@code mask}: none for metadata. */
  static List<String> watchFields(List<String> mask) {
    return watchProjection(mask) == Projection.PROJECTION_METADATA ? List.of() : mask;
  }

  private static String versionOf(KubernetesObject object) {
    return object == null || object.getMetadata() == null
        ? null
        : object.getMetadata().getResourceVersion();
  }

  /** An informer of {@code resource}, decoded as {@code apiTypeClass}. */
  public static <T extends KubernetesObject, L extends KubernetesListObject> Builder<T, L> builder(
      Connection connection, Class<T> apiTypeClass, Class<L> apiListTypeClass, ResourceRef resource) {
    return new Builder<>(
        Objects.requireNonNull(connection, "connection"), null, null, apiTypeClass,
        apiListTypeClass, resource);
  }

  /** Over a gRPC channel the caller configured; {@code credentials} may be null. */
  public static <T extends KubernetesObject, L extends KubernetesListObject> Builder<T, L> builder(
      Channel channel, CallCredentials credentials, Class<T> apiTypeClass,
      Class<L> apiListTypeClass, ResourceRef resource) {
    return new Builder<>(
        null, Objects.requireNonNull(channel, "channel"), credentials, apiTypeClass,
        apiListTypeClass, resource);
  }

  /** Reads answered by informerd (whole objects). */
  public RemoteLister<T> lister() {
    return new RemoteLister<>(remote);
  }

  /** Reads answered by informerd; what {@code new Lister<>(informer.getIndexer())} reads. */
  @Override
  public RemoteIndexer<T> getIndexer() {
    return remote;
  }

  /** The metadata-only objects the informer holds for its handlers. */
  public Indexer<T> metadataIndexer() {
    return informer.getIndexer();
  }

  /** The highest version handed to a handler: every read's minimum. */
  public ReadVersions versions() {
    return versions;
  }

  /** The hot cache, or null when off. */
  public HotCache<T> cache() {
    return cache;
  }

  @Override
  public void addEventHandler(ResourceEventHandler<T> handler) {
    informer.addEventHandler(deliver(handler));
  }

  @Override
  public void addEventHandlerWithResyncPeriod(ResourceEventHandler<T> handler, long resyncPeriod) {
    informer.addEventHandlerWithResyncPeriod(deliver(handler), resyncPeriod);
  }

  /** As {@link InformerdSharedIndexInformer#addEventHandlerWithRegistration}. */
  public HandlerRegistration addEventHandlerWithRegistration(
      ResourceEventHandler<T> handler, Duration resyncPeriod) {
    return informer.addEventHandlerWithRegistration(deliver(handler), resyncPeriod);
  }

  private ResourceEventHandler<T> deliver(ResourceEventHandler<T> handler) {
    return new Delivered<>(Objects.requireNonNull(handler, "handler"), versions, cache);
  }

  @Override
  public void run() {
    informer.run();
  }

  @Override
  public void stop() {
    informer.stop();
  }

  @Override
  public void close() {
    stop();
  }

  @Override
  public boolean hasSynced() {
    return informer.hasSynced();
  }

  public boolean awaitSynced(Duration timeout) {
    return informer.awaitSynced(timeout);
  }

  @Override
  public String lastSyncResourceVersion() {
    return informer.lastSyncResourceVersion();
  }

  /** Applied to the metadata-only objects before they are stored and handed on. */
  @Override
  public void setTransform(TransformFunc transformFunc) {
    informer.setTransform(transformFunc);
  }

  /** Refused: the no-copy mode's indexes are informerd's ({@link RemoteIndexer#byIndex}). */
  @Override
  public void addIndexers(Map<String, Function<T, List<String>>> indexers) {
    remote.addIndexers(indexers);
  }

  /**
   * Before each call: the object's version into the tracker, its key out of
   * the hot cache. Keeps a delegate's {@link SyncAwareEventHandler#onSynced}.
   */
  private static final class Delivered<T extends KubernetesObject>
      implements SyncAwareEventHandler<T> {
    private final ResourceEventHandler<T> handler;
    private final ReadVersions versions;
    private final HotCache<T> cache;

    Delivered(ResourceEventHandler<T> handler, ReadVersions versions, HotCache<T> cache) {
      this.handler = handler;
      this.versions = versions;
      this.cache = cache;
    }

    private void deliver(T object) {
      if (object == null || object.getMetadata() == null) {
        return;
      }
      versions.observe(object.getMetadata().getResourceVersion());
      if (cache != null) {
        cache.invalidate(RemoteIndexer.keyOf(object));
      }
    }

    @Override
    public void onAdd(T object) {
      deliver(object);
      handler.onAdd(object);
    }

    @Override
    public void onUpdate(T oldObject, T newObject) {
      deliver(newObject);
      handler.onUpdate(oldObject, newObject);
    }

    @Override
    public void onDelete(T object, boolean deletedFinalStateUnknown) {
      deliver(object);
      handler.onDelete(object, deletedFinalStateUnknown);
    }

    @Override
    public void onSynced() {
      if (handler instanceof SyncAwareEventHandler) {
        ((SyncAwareEventHandler<T>) handler).onSynced();
      }
    }
  }

  /** Configures a {@link NoCopyInformer}. Not thread-safe. */
  public static final class Builder<T extends KubernetesObject, L extends KubernetesListObject> {
    private final Connection connection;
    private final Channel channel;
    private final CallCredentials credentials;
    private final Class<T> apiTypeClass;
    private final Class<L> apiListTypeClass;
    private final ResourceRef resource;
    private String namespace = "";
    private String labelSelector = "";
    private String fieldSelector = "";
    private String kind;
    private List<String> mask = METADATA_MASK;
    private int cacheSize;
    private Duration readTimeout = Duration.ofSeconds(30);
    private Duration defaultResync = Duration.ZERO;
    private BiConsumer<Class<T>, Throwable> exceptionHandler;

    private Builder(
        Connection connection, Channel channel, CallCredentials credentials,
        Class<T> apiTypeClass, Class<L> apiListTypeClass, ResourceRef resource) {
      this.connection = connection;
      this.channel = channel;
      this.credentials = credentials;
      this.apiTypeClass = Objects.requireNonNull(apiTypeClass, "apiTypeClass");
      this.apiListTypeClass = Objects.requireNonNull(apiListTypeClass, "apiListTypeClass");
      this.resource = Objects.requireNonNull(resource, "resource");
    }

    /** What the watch delivers: this namespace only; default all. Reads are not limited. */
    public Builder<T, L> namespace(String namespace) {
      this.namespace = Objects.requireNonNull(namespace, "namespace");
      return this;
    }

    /** What the watch delivers, evaluated by informerd. */
    public Builder<T, L> labelSelector(String selector) {
      this.labelSelector = Objects.requireNonNull(selector, "labelSelector");
      return this;
    }

    /** What the watch delivers, evaluated by informerd. */
    public Builder<T, L> fieldSelector(String selector) {
      this.fieldSelector = Objects.requireNonNull(selector, "fieldSelector");
      return this;
    }

    /**
     * The fields handlers get: {@link #METADATA_MASK} (default), or field
     * paths such as {@code List.of("metadata.labels", "spec.nodeName")}
     * (informerd's field mask; reads still return whole objects).
     */
    public Builder<T, L> mask(List<String> mask) {
      watchProjection(mask);
      this.mask = List.copyOf(mask);
      return this;
    }

    /** Whole objects kept by the hot cache; 0 (default): none. */
    public Builder<T, L> cacheSize(int objects) {
      if (objects < 0) {
        throw new IllegalArgumentException("cacheSize: must be >= 0 objects, got " + objects);
      }
      this.cacheSize = objects;
      return this;
    }

    /** Deadline of each read RPC; default 30 seconds. */
    public Builder<T, L> readTimeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("readTimeout: must be positive, got " + timeout);
      }
      this.readTimeout = timeout;
      return this;
    }

    /** Resync of handlers added without a period; default none. */
    public Builder<T, L> defaultResync(Duration period) {
      this.defaultResync = Objects.requireNonNull(period, "defaultResync");
      return this;
    }

    /** As {@link InformerdListerWatcher.Builder#kind}. */
    public Builder<T, L> kind(String kind) {
      this.kind = Objects.requireNonNull(kind, "kind");
      return this;
    }

    /** Hears the reflector's list and watch errors, as in client-java. */
    public Builder<T, L> exceptionHandler(BiConsumer<Class<T>, Throwable> handler) {
      this.exceptionHandler = handler;
      return this;
    }

    public NoCopyInformer<T> build() {
      return new NoCopyInformer<>(this);
    }
  }
}
