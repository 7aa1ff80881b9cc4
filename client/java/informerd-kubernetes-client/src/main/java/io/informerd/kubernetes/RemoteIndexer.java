package io.informerd.kubernetes;

import io.grpc.CallCredentials;
import io.grpc.Channel;
import io.grpc.StatusRuntimeException;
import io.informerd.client.Connection;
import io.informerd.client.ResourceRef;
import io.informerd.v1.CacheGrpc;
import io.informerd.v1.GetRequest;
import io.informerd.v1.GetResponse;
import io.informerd.v1.ListRequest;
import io.informerd.v1.ListResponse;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.cache.Indexer;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.kubernetes.client.util.generic.dynamic.Dynamics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * client-java's {@link Indexer} answered by informerd's Get and List instead
 * of a local store: the reads of the no-copy mode. {@code new Lister<>(indexer)}
 * (or {@link RemoteLister}) reads through it unchanged; namespaces, label and
 * field selectors and indexes are evaluated by informerd.
 *
 * <p>Every read asks for at least {@link ReadVersions#version()} of its
 * tracker (GetRequest's min_resource_version; ListRequest's not-older-than
 * resource_version, on every page), so a read that follows an event handed
 * to a {@link NoCopyInformer}'s handler is answered at that event's version
 * or later. A failed read throws {@link InformerdReadException}; a missing
 * object is null.
 *
 * <p>Index names: "namespace" (built in) and the field indexes configured in
 * informerd (e.g. "spec.nodeName"); an unknown one fails with 400. Writes
 * ({@code add}, {@code update}, ...) and {@code addIndexers} throw: the store
 * is informerd's. Thread-safe.
 */
public final class RemoteIndexer<T extends KubernetesObject> implements Indexer<T> {
  private static final String NAMESPACE_INDEX = "namespace";

  private final Supplier<CacheGrpc.CacheBlockingStub> stubs;
  private final String server;
  private final Class<T> apiTypeClass;
  private final ResourceRef resource;
  private final ReadVersions versions;
  private final HotCache<T> cache;
  private final Duration timeout;
  private final TypeMeta typeMeta;

  private RemoteIndexer(Builder<T> builder) {
    this.stubs = builder.stubs;
    this.server = builder.server;
    this.apiTypeClass = builder.apiTypeClass;
    this.resource = builder.resource;
    this.versions = builder.versions;
    this.cache = builder.cache;
    this.timeout = builder.timeout;
    this.typeMeta = TypeMeta.of(apiTypeClass, resource.group(), resource.version(), builder.kind);
  }

  /** Reads of {@code resource} as {@code apiTypeClass} over {@code connection}. */
  public static <T extends KubernetesObject> Builder<T> builder(
      Connection connection, Class<T> apiTypeClass, ResourceRef resource) {
    Objects.requireNonNull(connection, "connection");
    return new Builder<>(connection::blockingStub, connection.server(), apiTypeClass, resource);
  }

  /** Over a gRPC channel the caller configured; {@code credentials} may be null. */
  public static <T extends KubernetesObject> Builder<T> builder(
      Channel channel, CallCredentials credentials, Class<T> apiTypeClass, ResourceRef resource) {
    Objects.requireNonNull(channel, "channel");
    Supplier<CacheGrpc.CacheBlockingStub> stubs =
        () -> {
          CacheGrpc.CacheBlockingStub stub = CacheGrpc.newBlockingStub(channel);
          return credentials == null ? stub : stub.withCallCredentials(credentials);
        };
    return new Builder<>(stubs, channel.authority(), apiTypeClass, resource);
  }

  /** The tracker whose version every read asks for at least. */
  public ReadVersions versions() {
    return versions;
  }

  /** The hot cache, or null when off. */
  public HotCache<T> cache() {
    return cache;
  }

  /**
   * The object, or null when informerd has none at the minimum version or
   * later. {@code minResourceVersion} ("" or null: none) raises the minimum,
   * e.g. to the version a write of the caller returned.
   */
  public T get(String namespace, String name, String minResourceVersion) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("name: must not be empty");
    }
    String key = namespace == null || namespace.isEmpty() ? name : namespace + "/" + name;
    String minimum = versions.notOlderThan(minResourceVersion);
    boolean plain = minResourceVersion == null || minResourceVersion.isEmpty();
    if (cache != null && plain) {
      T hit = cache.get(key);
      if (hit != null) {
        return hit;
      }
    }
    GetResponse response;
    try {
      response =
          stub().get(GetRequest.newBuilder()
              .setResource(resource.toProto())
              .setNamespace(namespace == null ? "" : namespace)
              .setName(name)
              .setMinResourceVersion(minimum)
              .build());
    } catch (StatusRuntimeException e) {
      String description = e.getStatus().getDescription();
      // The object's NOT_FOUND ("... \"name\" not found"), not the resource's.
      if (e.getStatus().getCode() == io.grpc.Status.Code.NOT_FOUND
          && description != null && description.endsWith("not found")) {
        return null;
      }
      throw new InformerdReadException(
          operation(e, "get " + resource.resource() + " " + key), e.getStatus(), minimum);
    }
    T object = decode(response.getObject());
    if (cache != null) {
      cache.put(key, object);
    }
    return object;
  }

  /**
   * Objects in {@code namespace} ("": all) matching {@code labelSelector} and
   * {@code fieldSelector} ("": everything), sorted by key.
   */
  public List<T> list(String namespace, String labelSelector, String fieldSelector) {
    return list(namespace, labelSelector, fieldSelector, "", "", "");
  }

  /** As {@link #list(String, String, String)}, at {@code minResourceVersion} or later. */
  public List<T> list(
      String namespace, String labelSelector, String fieldSelector, String minResourceVersion) {
    return list(namespace, labelSelector, fieldSelector, "", "", minResourceVersion);
  }

  private List<T> list(
      String namespace,
      String labelSelector,
      String fieldSelector,
      String indexName,
      String indexValue,
      String minResourceVersion) {
    String minimum = versions.notOlderThan(minResourceVersion);
    ListRequest.Builder request =
        ListRequest.newBuilder()
            .setResource(resource.toProto())
            .setNamespace(nullToEmpty(namespace))
            .setLabelSelector(nullToEmpty(labelSelector))
            .setFieldSelector(nullToEmpty(fieldSelector))
            .setIndexName(indexName)
            .setIndexValue(indexValue)
            .setResourceVersion(minimum);
    List<T> items = new ArrayList<>();
    try {
      do {
        ListResponse page = stub().list(request.build());
        for (io.informerd.v1.Object item : page.getItemsList()) {
          items.add(decode(item));
        }
        request.setContinueToken(page.getContinueToken());
      } while (!request.getContinueToken().isEmpty());
    } catch (StatusRuntimeException e) {
      throw new InformerdReadException(
          operation(e, "list " + resource.resource()
              + (request.getNamespace().isEmpty() ? "" : " in " + request.getNamespace())),
          e.getStatus(), minimum);
    }
    items.sort(Comparator.comparing(RemoteIndexer::keyOf));
    return items;
  }

  /** {@code what}, after the server's name unless a Connection's status already says it. */
  private String operation(StatusRuntimeException e, String what) {
    String description = e.getStatus().getDescription();
    return description != null && description.startsWith("informerd at ")
        ? what
        : "informerd at " + server + ": " + what;
  }

  private CacheGrpc.CacheBlockingStub stub() {
    return stubs.get().withDeadlineAfter(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  @SuppressWarnings("unchecked")
  private T decode(io.informerd.v1.Object object) {
    String json = object.getJson().toString(StandardCharsets.UTF_8);
    T decoded;
    try {
      decoded = apiTypeClass == DynamicKubernetesObject.class
          ? (T) Dynamics.newFromJson(json)
          : JSON.deserialize(json, apiTypeClass);
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "informerd at " + server + ": " + resource.resource() + " " + object.getNamespace() + "/"
              + object.getName() + ": cannot decode as " + apiTypeClass.getName() + ": "
              + e.getMessage(), e);
    }
    typeMeta.fillIn(decoded);
    return decoded;
  }

  static String keyOf(KubernetesObject object) {
    String namespace = object.getMetadata().getNamespace();
    String name = object.getMetadata().getName();
    return namespace == null || namespace.isEmpty() ? name : namespace + "/" + name;
  }

  private static String nullToEmpty(String text) {
    return text == null ? "" : text;
  }

  // --- client-java's Indexer ------------------------------------------

  @Override
  public T getByKey(String key) {
    int slash = key.indexOf('/');
    return slash < 0 ? get("", key, "") : get(key.substring(0, slash), key.substring(slash + 1), "");
  }

  @Override
  public Object get(T object) {
    return getByKey(keyOf(object));
  }

  @Override
  public List<T> list() {
    return list("", "", "");
  }

  @Override
  public List<String> listKeys() {
    List<String> keys = new ArrayList<>();
    for (T object : list()) {
      keys.add(keyOf(object));
    }
    return keys;
  }

  @Override
  public List<T> byIndex(String indexName, String indexValue) {
    if (indexName == null || indexName.isEmpty()) {
      throw new IllegalArgumentException("indexName: must not be empty");
    }
    if (NAMESPACE_INDEX.equals(indexName)) {
      return list(indexValue, "", "");
    }
    return list("", "", "", indexName, nullToEmpty(indexValue), "");
  }

  @Override
  public List<String> indexKeys(String indexName, String indexValue) {
    List<String> keys = new ArrayList<>();
    for (T object : byIndex(indexName, indexValue)) {
      keys.add(keyOf(object));
    }
    return keys;
  }

  @Override
  public List<T> index(String indexName, T object) {
    if (!NAMESPACE_INDEX.equals(indexName)) {
      throw new UnsupportedOperationException(
          "index(" + indexName + ", object): informerd's field indexes are read with byIndex");
    }
    return byIndex(NAMESPACE_INDEX, nullToEmpty(object.getMetadata().getNamespace()));
  }

  @Override
  public Map<String, Function<T, List<String>>> getIndexers() {
    return Map.of(NAMESPACE_INDEX, o -> List.of(nullToEmpty(o.getMetadata().getNamespace())));
  }

  @Override
  public void addIndexers(Map<String, Function<T, List<String>>> indexers) {
    throw new IllegalArgumentException(
        "addIndexers " + indexers.keySet() + ": the no-copy mode's indexes are informerd's "
            + "(configure field indexes there and read them with byIndex)");
  }

  @Override
  public void add(T object) {
    throw readOnly("add");
  }

  @Override
  public void update(T object) {
    throw readOnly("update");
  }

  @Override
  public void delete(T object) {
    throw readOnly("delete");
  }

  @Override
  public void replace(List<T> list, String resourceVersion) {
    throw readOnly("replace");
  }

  @Override
  public void resync() {
    throw readOnly("resync");
  }

  private static UnsupportedOperationException readOnly(String operation) {
    return new UnsupportedOperationException(
        operation + ": a RemoteIndexer only reads; informerd holds the objects");
  }

  /** Configures a {@link RemoteIndexer}. Not thread-safe. */
  public static final class Builder<T extends KubernetesObject> {
    private final Supplier<CacheGrpc.CacheBlockingStub> stubs;
    private final String server;
    private final Class<T> apiTypeClass;
    private final ResourceRef resource;
    private ReadVersions versions = new ReadVersions();
    private HotCache<T> cache;
    private Duration timeout = Duration.ofSeconds(30);
    private String kind;

    private Builder(
        Supplier<CacheGrpc.CacheBlockingStub> stubs,
        String server,
        Class<T> apiTypeClass,
        ResourceRef resource) {
      this.stubs = stubs;
      this.server = server;
      this.apiTypeClass = Objects.requireNonNull(apiTypeClass, "apiTypeClass");
      this.resource = Objects.requireNonNull(resource, "resource");
    }

    /** The tracker every read's minimum comes from; default a fresh one. */
    public Builder<T> versions(ReadVersions versions) {
      this.versions = Objects.requireNonNull(versions, "versions");
      return this;
    }

    /** A hot cache for {@code get}; default none. */
    public Builder<T> cache(HotCache<T> cache) {
      this.cache = cache;
      return this;
    }

    /** Deadline of each RPC (a List page); default 30 seconds. */
    public Builder<T> timeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("readTimeout: must be positive, got " + timeout);
      }
      this.timeout = timeout;
      return this;
    }

    /** As {@link InformerdListerWatcher.Builder#kind}. */
    public Builder<T> kind(String kind) {
      this.kind = Objects.requireNonNull(kind, "kind");
      return this;
    }

    public RemoteIndexer<T> build() {
      return new RemoteIndexer<>(this);
    }
  }
}
