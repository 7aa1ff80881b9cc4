package io.informerd.kubernetes;

import io.grpc.CallCredentials;
import io.grpc.Channel;
import io.informerd.client.Connection;
import io.informerd.client.ResourceRef;
import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ListerWatcher;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.informer.TransformFunc;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.util.CallGenerator;
import io.kubernetes.client.util.CallGeneratorParams;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesListObject;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BiConsumer;
import java.util.function.Function;
import okhttp3.HttpUrl;

/**
 * client-java's {@link SharedInformerFactory} whose informers list and watch
 * through informerd: client-go's {@code SharedInformerFactory} for a Java
 * controller. Informers are created on first request, keyed by model class,
 * resource, namespace, selectors and transform ({@link InformerKey}), and
 * shared by every caller (one Watch per key);
 * {@link #startAllRegisteredInformers} starts those not started yet;
 * {@link #waitForCacheSync} reports each one's state;
 * {@link #stopAllRegisteredInformers} and {@link #close} return once no
 * handler runs.
 *
 * <pre>
 * try (InformerdSharedInformerFactory factory =
 *     InformerdSharedInformerFactory.builder(connection).defaultResync(Duration.ofMinutes(10)).build()) {
 *   SharedIndexInformer&lt;V1Pod&gt; pods =
 *       factory.sharedIndexInformerFor(V1Pod.class, V1PodList.class, new ResourceRef("", "v1", "pods"));
 *   factory.startAllRegisteredInformers();
 *   factory.waitForCacheSync(Duration.ofMinutes(1));
 * }
 * </pre>
 *
 * <p>client-java's own overloads work too: {@code sharedIndexInformerFor(callGenerator, V1Pod.class,
 * V1PodList.class)} reads the resource, namespace and selectors from the
 * URL the call generator builds and serves it from informerd;
 * {@code sharedIndexInformerFor(listerWatcher, ...)} takes an
 * {@link InformerdListerWatcher} (keyed like the rest) or any other
 * ListerWatcher (an informer of its own). The {@link GenericKubernetesApi}
 * overloads are refused: that class does not tell its resource; use
 * {@link #informerFor} with {@link InformerOptions#of} or
 * {@link InformerOptions#dynamic}. Informers are
 * {@link InformerdSharedIndexInformer}s: client-go's handler model (late
 * handlers, per-handler resync and delivery); {@link #getExistingSharedIndexInformer}
 * gives the first informer of a class, so client-java's
 * {@code ControllerBuilder.defaultBuilder(factory).watch(...)} finds it.
 *
 * <p>Thread-safe.
 */
public class InformerdSharedInformerFactory extends SharedInformerFactory implements AutoCloseable {
  /** Builds the lister-watcher of one informer over the factory's channel. */
  private interface ListerWatchers {
    <T extends KubernetesObject, L extends KubernetesListObject>
        InformerdListerWatcher.Builder<T, L> builder(Class<T> type, Class<L> listType, ResourceRef r);
  }

  private static final class Entry {
    final InformerdSharedIndexInformer<?> informer;
    boolean started;

    Entry(InformerdSharedIndexInformer<?> informer) {
      this.informer = informer;
    }
  }

  private final ListerWatchers listerWatchers;
  private final String namespace;
  private final String labelSelector;
  private final String fieldSelector;
  private final Duration defaultResync;
  private final TransformFunc transform;
  private final ExecutorService unusedPool;

  // Guarded by this object's monitor, which client-java's factory also
  // locks (its synchronized methods call the overrides here); in creation
  // order.
  private final Map<InformerKey, Entry> entries = new LinkedHashMap<>();
  private boolean closed;

  private InformerdSharedInformerFactory(Builder builder, ExecutorService pool) {
    // client-java's factory wants an ApiClient with no read timeout and a
    // pool for its own start; neither is used: informers come from informerd
    // and start themselves.
    super(noTimeoutApiClient(), pool, true);
    this.unusedPool = pool;
    this.listerWatchers = builder.listerWatchers;
    this.namespace = builder.namespace;
    this.labelSelector = builder.labelSelector;
    this.fieldSelector = builder.fieldSelector;
    this.defaultResync = builder.defaultResync;
    this.transform = builder.transform;
  }

  private static ApiClient noTimeoutApiClient() {
    ApiClient client = new ApiClient();
    client.setHttpClient(client.getHttpClient().newBuilder().readTimeout(Duration.ZERO).build());
    return client;
  }

  /** Over an informerd {@link Connection} (its TLS, token and channel). */
  public static Builder builder(Connection connection) {
    Objects.requireNonNull(connection, "connection");
    return new Builder(
        new ListerWatchers() {
          @Override
          public <T extends KubernetesObject, L extends KubernetesListObject>
              InformerdListerWatcher.Builder<T, L> builder(Class<T> t, Class<L> l, ResourceRef r) {
            return InformerdListerWatcher.builder(connection, t, l, r);
          }
        });
  }

  /** Over a gRPC channel the caller configured; {@code credentials} may be null. */
  public static Builder builder(Channel channel, CallCredentials credentials) {
    Objects.requireNonNull(channel, "channel");
    return new Builder(
        new ListerWatchers() {
          @Override
          public <T extends KubernetesObject, L extends KubernetesListObject>
              InformerdListerWatcher.Builder<T, L> builder(Class<T> t, Class<L> l, ResourceRef r) {
            return InformerdListerWatcher.builder(channel, credentials, t, l, r);
          }
        });
  }

  /**
   * The informer of {@code options}' key, created (not started) on first
   * request. Indexers in the options are added if missing.
   *
   * @throws IllegalStateException after {@link #close}, or when indexers are
   *     asked of an informer already started
   */
  @SuppressWarnings("unchecked")
  public <T extends KubernetesObject, L extends KubernetesListObject>
      InformerdSharedIndexInformer<T> informerFor(InformerOptions<T, L> options) {
    String ns = options.namespace != null ? options.namespace : namespace;
    String labels = options.labelSelector != null ? options.labelSelector : labelSelector;
    String fields = options.fieldSelector != null ? options.fieldSelector : fieldSelector;
    TransformFunc t = options.transformSet ? options.transform : transform;
    InformerKey key =
        new InformerKey(options.apiTypeClass, options.resource, ns, labels, fields, t, null);
    InformerdSharedIndexInformer<T> informer =
        (InformerdSharedIndexInformer<T>)
            getOrCreate(
                key,
                () ->
                    newInformer(
                        options.apiTypeClass,
                        listerWatchers
                            .builder(options.apiTypeClass, options.apiListTypeClass, options.resource)
                            .namespace(ns)
                            .labelSelector(labels)
                            .fieldSelector(fields)
                            .build(),
                        options.resync != null ? options.resync : defaultResync,
                        t,
                        null));
    addMissingIndexers(informer, options.indexers);
    return informer;
  }

  /** A typed informer with the factory's namespace, selectors, resync and transform. */
  public <T extends KubernetesObject, L extends KubernetesListObject>
      InformerdSharedIndexInformer<T> sharedIndexInformerFor(
          Class<T> apiTypeClass, Class<L> apiListTypeClass, ResourceRef resource) {
    return informerFor(InformerOptions.of(apiTypeClass, apiListTypeClass, resource));
  }

  /** A {@link DynamicKubernetesObject} informer of any resource, with the factory's defaults. */
  public InformerdSharedIndexInformer<DynamicKubernetesObject> dynamicInformerFor(
      ResourceRef resource) {
    return informerFor(InformerOptions.dynamic(resource));
  }

  /**
   * client-java's overload: the call generator's URL names the resource,
   * namespace and selectors, which informerd then serves. The generator is
   * called once here, for the URL; its call is never executed.
   */
  @Override
  public <ApiType extends KubernetesObject, ApiListType extends KubernetesListObject>
      SharedIndexInformer<ApiType> sharedIndexInformerFor(
          CallGenerator callGenerator,
          Class<ApiType> apiTypeClass,
          Class<ApiListType> apiListTypeClass,
          long resyncPeriodInMillis,
          BiConsumer<Class<ApiType>, Throwable> exceptionHandler) {
    HttpUrl url;
    try {
      url = callGenerator.generate(new CallGeneratorParams(false, null, null)).request().url();
    } catch (ApiException e) {
      throw new IllegalArgumentException("call generator failed: " + e.getMessage(), e);
    }
    ListRequestUrl request = ListRequestUrl.parse(url);
    InformerOptions<ApiType, ApiListType> options =
        InformerOptions.of(apiTypeClass, apiListTypeClass, request.resource)
            .namespace(request.namespace)
            .labelSelector(request.labelSelector)
            .fieldSelector(request.fieldSelector)
            .resync(Duration.ofMillis(resyncPeriodInMillis));
    return informerFor(options);
  }

  /**
   * client-java's overload: an {@link InformerdListerWatcher} is keyed by
   * its resource, namespace and selectors (the first one of a key is used);
   * any other lister-watcher gets an informer of its own.
   */
  @Override
  public <ApiType extends KubernetesObject, ApiListType extends KubernetesListObject>
      SharedIndexInformer<ApiType> sharedIndexInformerFor(
          ListerWatcher<ApiType, ApiListType> listerWatcher,
          Class<ApiType> apiTypeClass,
          long resyncPeriodInMillis,
          BiConsumer<Class<ApiType>, Throwable> exceptionHandler) {
    InformerKey key;
    if (listerWatcher instanceof InformerdListerWatcher) {
      InformerdListerWatcher<?, ?> lw = (InformerdListerWatcher<?, ?>) listerWatcher;
      key =
          new InformerKey(
              apiTypeClass, lw.resource(), lw.namespace(), lw.labelSelector(), lw.fieldSelector(),
              transform, null);
    } else {
      key = new InformerKey(apiTypeClass, null, "", "", "", transform, listerWatcher);
    }
    @SuppressWarnings("unchecked")
    SharedIndexInformer<ApiType> informer =
        (SharedIndexInformer<ApiType>)
            getOrCreate(
                key,
                () ->
                    newInformer(
                        apiTypeClass, listerWatcher, Duration.ofMillis(resyncPeriodInMillis),
                        transform, exceptionHandler));
    return informer;
  }

  /**
   * Refused: a {@link GenericKubernetesApi} does not tell which resource it
   * reads. Use {@link #informerFor} or {@link #dynamicInformerFor}.
   */
  @Override
  public <ApiType extends KubernetesObject, ApiListType extends KubernetesListObject>
      SharedIndexInformer<ApiType> sharedIndexInformerFor(
          GenericKubernetesApi<ApiType, ApiListType> genericKubernetesApi,
          Class<ApiType> apiTypeClass,
          long resyncPeriodInMillis,
          String namespace,
          BiConsumer<Class<ApiType>, Throwable> exceptionHandler) {
    throw new UnsupportedOperationException(
        "GenericKubernetesApi does not expose its resource; use informerFor(InformerOptions.of("
            + apiTypeClass.getSimpleName() + ".class, ..., resource)) or dynamicInformerFor(resource)");
  }

  private interface InformerSupplier {
    InformerdSharedIndexInformer<?> create();
  }

  private InformerdSharedIndexInformer<?> getOrCreate(InformerKey key, InformerSupplier create) {
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("factory is closed");
      }
      Entry entry = entries.get(key);
      if (entry == null) {
        entry = new Entry(create.create());
        entries.put(key, entry);
        // For getExistingSharedIndexInformer (and so client-java's
        // ControllerBuilder): the first informer of a class.
        informers.putIfAbsent(key.apiTypeClass(), entry.informer);
      }
      return entry.informer;
    }
  }

  private static <T extends KubernetesObject, L extends KubernetesListObject>
      InformerdSharedIndexInformer<T> newInformer(
          Class<T> type,
          ListerWatcher<T, L> listerWatcher,
          Duration resync,
          TransformFunc transform,
          BiConsumer<Class<T>, Throwable> exceptionHandler) {
    InformerdSharedIndexInformer<T> informer =
        new InformerdSharedIndexInformer<>(type, listerWatcher, resync, exceptionHandler);
    if (transform != null) {
      informer.setTransform(transform);
    }
    return informer;
  }

  private static <T extends KubernetesObject> void addMissingIndexers(
      InformerdSharedIndexInformer<T> informer, Map<String, Function<T, List<String>>> wanted) {
    if (wanted.isEmpty()) {
      return;
    }
    Map<String, Function<T, List<String>>> existing = informer.getIndexer().getIndexers();
    Map<String, Function<T, List<String>>> missing = new LinkedHashMap<>();
    for (Map.Entry<String, Function<T, List<String>>> e : wanted.entrySet()) {
      Function<T, List<String>> have = existing.get(e.getKey());
      if (have == null) {
        missing.put(e.getKey(), e.getValue());
      } else if (have != e.getValue()) {
        throw new IllegalArgumentException(
            "indexer " + e.getKey() + " already exists with another function");
      }
    }
    if (!missing.isEmpty()) {
      informer.addIndexers(missing);
    }
  }

  /** Starts the informers not started yet; a later call starts the ones requested since. */
  @Override
  public void startAllRegisteredInformers() {
    synchronized (this) {
      if (closed) {
        return;
      }
      for (Entry entry : entries.values()) {
        if (!entry.started) {
          entry.started = true;
          entry.informer.run();
        }
      }
    }
  }

  /**
   * Waits until every started informer has synced or the timeout passed;
   * returns each started informer's state, in creation order (client-go's
   * {@code WaitForCacheSync}). An interrupt ends the wait and stays set.
   */
  public Map<InformerKey, Boolean> waitForCacheSync(Duration timeout) {
    List<Map.Entry<InformerKey, InformerdSharedIndexInformer<?>>> started = new ArrayList<>();
    synchronized (this) {
      for (Map.Entry<InformerKey, Entry> e : entries.entrySet()) {
        if (e.getValue().started) {
          started.add(Map.entry(e.getKey(), e.getValue().informer));
        }
      }
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    Map<InformerKey, Boolean> result = new LinkedHashMap<>();
    for (Map.Entry<InformerKey, InformerdSharedIndexInformer<?>> e : started) {
      long left = Math.max(0, deadline - System.nanoTime());
      result.put(e.getKey(), e.getValue().awaitSynced(Duration.ofNanos(left)));
    }
    return result;
  }

  /**
   * Stops every started informer and returns once no handler runs. The
   * informers stay registered and cannot start again (client-java's cannot
   * either).
   */
  @Override
  public void stopAllRegisteredInformers() {
    stopAllRegisteredInformers(true);
  }

  /** {@code shutdownThreadPool} is moot: the informers own their threads. */
  @Override
  public void stopAllRegisteredInformers(boolean shutdownThreadPool) {
    List<InformerdSharedIndexInformer<?>> toStop = new ArrayList<>();
    synchronized (this) {
      for (Entry entry : entries.values()) {
        if (entry.started) {
          toStop.add(entry.informer);
        }
      }
    }
    // Outside the lock: a handler may call the factory while it is stopped.
    for (InformerdSharedIndexInformer<?> informer : toStop) {
      informer.stop();
    }
  }

  /** Stops every informer (see {@link #stopAllRegisteredInformers}); then requests fail. */
  @Override
  public void close() {
    List<InformerdSharedIndexInformer<?>> all = new ArrayList<>();
    synchronized (this) {
      closed = true;
      for (Entry entry : entries.values()) {
        all.add(entry.informer);
      }
    }
    for (InformerdSharedIndexInformer<?> informer : all) {
      informer.stop();
    }
    unusedPool.shutdown();
  }

  /** The resource, namespace and selectors of a Kubernetes list URL. */
  static final class ListRequestUrl {
    final ResourceRef resource;
    final String namespace;
    final String labelSelector;
    final String fieldSelector;

    private ListRequestUrl(ResourceRef resource, String namespace, String labels, String fields) {
      this.resource = resource;
      this.namespace = namespace;
      this.labelSelector = labels;
      this.fieldSelector = fields;
    }

    /**
     * {@code .../api/v1[/namespaces/NS]/RESOURCE} or
     * {@code .../apis/GROUP/VERSION[/namespaces/NS]/RESOURCE}, read from the
     * end (the server URL may have a path of its own).
     */
    static ListRequestUrl parse(HttpUrl url) {
      List<String> s = url.pathSegments();
      int n = s.size();
      if (n >= 1 && s.get(n - 1).isEmpty()) {
        n--; // trailing slash
      }
      if (n < 3) {
        throw new IllegalArgumentException("not a Kubernetes list URL: " + url);
      }
      String resource = s.get(n - 1);
      String namespace = "";
      int end = n - 1; // index after the group/version part
      if (n >= 5 && s.get(n - 3).equals("namespaces")
          && (s.get(n - 5).equals("api") || n >= 6 && s.get(n - 6).equals("apis"))) {
        namespace = s.get(n - 2);
        end = n - 3;
      }
      String version = s.get(end - 1);
      String group;
      if (end >= 2 && s.get(end - 2).equals("api")) {
        group = "";
      } else if (end >= 3 && s.get(end - 3).equals("apis")) {
        group = s.get(end - 2);
      } else {
        throw new IllegalArgumentException("not a Kubernetes list URL: " + url);
      }
      return new ListRequestUrl(
          new ResourceRef(group, version, resource),
          namespace,
          orEmpty(url.queryParameter("labelSelector")),
          orEmpty(url.queryParameter("fieldSelector")));
    }

    private static String orEmpty(String s) {
      return s == null ? "" : s;
    }
  }

  /** Configures an {@link InformerdSharedInformerFactory}. Not thread-safe. */
  public static final class Builder {
    private final ListerWatchers listerWatchers;
    private String namespace = "";
    private String labelSelector = "";
    private String fieldSelector = "";
    private Duration defaultResync = Duration.ZERO;
    private TransformFunc transform;

    private Builder(ListerWatchers listerWatchers) {
      this.listerWatchers = listerWatchers;
    }

    /** Default namespace of every informer ("" all, the default). */
    public Builder namespace(String namespace) {
      this.namespace = Objects.requireNonNull(namespace, "namespace");
      return this;
    }

    /** Default label selector of every informer. */
    public Builder labelSelector(String selector) {
      this.labelSelector = Objects.requireNonNull(selector, "labelSelector");
      return this;
    }

    /** Default field selector of every informer. */
    public Builder fieldSelector(String selector) {
      this.fieldSelector = Objects.requireNonNull(selector, "fieldSelector");
      return this;
    }

    /**
     * Default resync period of every informer's handlers (zero, the
     * default: none); {@link InformerOptions#resync} sets one informer's,
     * {@link InformerdSharedIndexInformer#addEventHandlerWithRegistration}
     * one handler's.
     */
    public Builder defaultResync(Duration period) {
      this.defaultResync = Objects.requireNonNull(period, "defaultResync");
      return this;
    }

    /** Default transform of every informer (client-go's {@code WithTransform}). */
    public Builder transform(TransformFunc transform) {
      this.transform = transform;
      return this;
    }

    public InformerdSharedInformerFactory build() {
      return new InformerdSharedInformerFactory(this, Executors.newSingleThreadExecutor());
    }
  }
}
