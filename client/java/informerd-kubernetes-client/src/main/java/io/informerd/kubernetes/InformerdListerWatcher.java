package io.informerd.kubernetes;

import io.grpc.CallCredentials;
import io.grpc.Channel;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.informerd.client.Connection;
import io.informerd.client.ResourceRef;
import io.informerd.v1.CacheGrpc;
import io.informerd.v1.ListRequest;
import io.informerd.v1.ListResponse;
import io.informerd.v1.Projection;
import io.informerd.v1.WatchEvent;
import io.informerd.v1.WatchRequest;
import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ListerWatcher;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.util.CallGeneratorParams;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.util.Watchable;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesListObject;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.kubernetes.client.util.generic.dynamic.Dynamics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * client-java's {@link ListerWatcher} served by informerd instead of the
 * kube-apiserver: pass it to {@code SharedInformerFactory.sharedIndexInformerFor(lw,
 * V1Pod.class, 0)} and the informer, its indexer and its Listers work
 * unchanged, with objects decoded by client-java's own {@link JSON} into its
 * models. {@link InformerdInformers} does that in one call.
 *
 * <p>Mapping: a list at resourceVersion "0" (the reflector's first) or ""
 * reads informerd's latest state, any other version is "not older than", as
 * on the apiserver; pages are followed to the end. A watch resumes from the
 * given resourceVersion with bookmarks, ends at the reflector's timeout, and
 * turns informerd's OUT_OF_RANGE (and RESOURCE_EXHAUSTED after events: a
 * watcher that fell behind) into the apiserver's 410 Gone so the reflector
 * relists; UNAVAILABLE is retried inside a watch that has been receiving
 * (see {@link GrpcWatch}). Failed lists throw {@link ApiException} with the
 * HTTP code the apiserver would have answered (410, 400, 401, 403, 404, 429,
 * 503, 504).
 *
 * <p>Refusals: informerd's RESOURCE_EXHAUSTED on a List, or on a Watch
 * before its first event, is the caller being over its budgets (429).
 * client-java's reflector would list again a second later and be refused
 * again; instead the next list waits, as client-go's reflector waits: 0.8 s
 * after the first refusal, doubling to 30 s, plus up to as much again at
 * random, until a Watch delivers an event ({@link RefusalBackoff}).
 *
 * <p>Thread-safe; one instance serves one informer.
 */
public final class InformerdListerWatcher<
        ApiType extends KubernetesObject, ApiListType extends KubernetesListObject>
    implements ListerWatcher<ApiType, ApiListType> {

  private final Supplier<CacheGrpc.CacheBlockingStub> stubs;
  private final Runnable resetConnectBackoff;
  private final Class<ApiType> apiTypeClass;
  private final Class<ApiListType> apiListTypeClass;
  private final ResourceRef resource;
  private final String namespace;
  private final String labelSelector;
  private final String fieldSelector;
  private final Duration listTimeout;
  private final Projection projection;
  private final List<String> fields;
  private final TypeMeta typeMeta;
  private final RefusalBackoff refusals = new RefusalBackoff();

  private InformerdListerWatcher(Builder<ApiType, ApiListType> builder) {
    this.stubs = builder.stubs;
    this.resetConnectBackoff = builder.resetConnectBackoff;
    this.apiTypeClass = builder.apiTypeClass;
    this.apiListTypeClass = builder.apiListTypeClass;
    this.resource = builder.resource;
    this.namespace = builder.namespace;
    this.labelSelector = builder.labelSelector;
    this.fieldSelector = builder.fieldSelector;
    this.listTimeout = builder.listTimeout;
    this.projection = builder.projection;
    this.fields = builder.fields;
    this.typeMeta =
        TypeMeta.of(apiTypeClass, resource.group(), resource.version(), builder.kind);
  }

  /**
   * Over an informerd {@link Connection} (its TLS, token and channel).
   * {@code resource} names the resource as informerd serves it, e.g.
   * {@code new ResourceRef("", "v1", "pods")} or {@code ResourceRef.parse("deployments.v1.apps")}.
   */
  public static <T extends KubernetesObject, L extends KubernetesListObject> Builder<T, L> builder(
      Connection connection, Class<T> apiTypeClass, Class<L> apiListTypeClass, ResourceRef resource) {
    Objects.requireNonNull(connection, "connection");
    return new Builder<>(
        connection::blockingStub, connection::resetConnectBackoff, apiTypeClass, apiListTypeClass,
        resource);
  }

  /**
   * Over a gRPC channel the caller configured; {@code credentials} may be
   * null. A {@link ManagedChannel}'s connect backoff is reset before each
   * retry.
   */
  public static <T extends KubernetesObject, L extends KubernetesListObject> Builder<T, L> builder(
      Channel channel,
      CallCredentials credentials,
      Class<T> apiTypeClass,
      Class<L> apiListTypeClass,
      ResourceRef resource) {
    Objects.requireNonNull(channel, "channel");
    Supplier<CacheGrpc.CacheBlockingStub> stubs =
        () -> {
          CacheGrpc.CacheBlockingStub stub = CacheGrpc.newBlockingStub(channel);
          return credentials == null ? stub : stub.withCallCredentials(credentials);
        };
    Runnable reset =
        channel instanceof ManagedChannel ? ((ManagedChannel) channel)::resetConnectBackoff : () -> {};
    return new Builder<>(stubs, reset, apiTypeClass, apiListTypeClass, resource);
  }

  @Override
  public ApiListType list(CallGeneratorParams params) throws ApiException {
    String resourceVersion = params == null ? null : params.resourceVersion;
    if (resourceVersion == null || resourceVersion.equals("0")) {
      // "0" is client-java's "any version is fine"; informerd's latest is.
      resourceVersion = "";
    }
    try {
      refusals.await();
    } catch (InterruptedException e) {
      // The informer is stopping.
      Thread.currentThread().interrupt();
      throw new ApiException("informerd list " + describe() + ": interrupted", e, 0, Map.of(), null);
    }
    ListRequest.Builder request =
        ListRequest.newBuilder()
            .setResource(resource.toProto())
            .setNamespace(namespace)
            .setLabelSelector(labelSelector)
            .setFieldSelector(fieldSelector)
            .setResourceVersion(resourceVersion)
            .setProjection(projection)
            .addAllFields(fields);
    StringBuilder json = new StringBuilder();
    String listResourceVersion = null;
    boolean first = true;
    try {
      do {
        ListResponse page =
            stubs.get()
                .withDeadlineAfter(listTimeout.toMillis(), TimeUnit.MILLISECONDS)
                .list(request.build());
        if (listResourceVersion == null) {
          listResourceVersion = page.getResourceVersion();
        }
        for (io.informerd.v1.Object item : page.getItemsList()) {
          json.append(first ? "" : ",").append(item.getJson().toString(StandardCharsets.UTF_8));
          first = false;
        }
        request.setContinueToken(page.getContinueToken());
      } while (!request.getContinueToken().isEmpty());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == io.grpc.Status.Code.UNAVAILABLE) {
        // The reflector lists again a second later: let that attempt connect.
        resetConnectBackoff.run();
      } else if (e.getStatus().getCode() == io.grpc.Status.Code.RESOURCE_EXHAUSTED) {
        refusals.refused();
      }
      throw StatusMapping.toApiException("informerd list " + describe(), e.getStatus());
    }
    String text =
        "{\"apiVersion\":" + JSON.serialize(typeMeta.apiVersion)
            // A kind client-java does not know (dynamic objects): the generic
            // "List", which readers of getKind() need.
            + ",\"kind\":" + JSON.serialize(typeMeta.kind == null ? "List" : typeMeta.kind + "List")
            + ",\"metadata\":{\"resourceVersion\":" + JSON.serialize(listResourceVersion) + "}"
            + ",\"items\":[" + json + "]}";
    ApiListType list;
    try {
      list = decodeList(text);
    } catch (RuntimeException e) {
      throw new ApiException(
          "informerd list " + describe() + ": cannot decode as " + apiListTypeClass.getName()
              + ": " + e.getMessage(), e, 500, Map.of(), null);
    }
    for (KubernetesObject item : list.getItems()) {
      typeMeta.fillIn(item);
    }
    return list;
  }

  @Override
  public Watchable<ApiType> watch(CallGeneratorParams params) throws ApiException {
    WatchRequest request =
        WatchRequest.newBuilder()
            .setResource(resource.toProto())
            .setNamespace(namespace)
            .setLabelSelector(labelSelector)
            .setFieldSelector(fieldSelector)
            .setResourceVersion(params == null || params.resourceVersion == null
                ? "" : params.resourceVersion)
            .setAllowBookmarks(true)
            .setProjection(projection)
            .addAllFields(fields)
            .build();
    Duration timeout =
        params == null || params.timeoutSeconds == null || params.timeoutSeconds <= 0
            ? null
            : Duration.ofSeconds(params.timeoutSeconds);
    GrpcWatch.Opener opener =
        (watchRequest, context, deadline) -> {
          CacheGrpc.CacheBlockingStub stub = stubs.get();
          CacheGrpc.CacheBlockingStub bounded = deadline == null ? stub : stub.withDeadline(deadline);
          // The call belongs to the context current when it starts, so
          // cancelling that context ends the stream.
          Context previous = context.attach();
          try {
            return bounded.watch(watchRequest);
          } finally {
            context.detach(previous);
          }
        };
    return new GrpcWatch<>(
        opener, resetConnectBackoff, refusals, request, timeout, this::toResponse);
  }

  private Watch.Response<ApiType> toResponse(WatchEvent event) {
    String type;
    switch (event.getType()) {
      case ADDED:
        type = "ADDED";
        break;
      case MODIFIED:
        type = "MODIFIED";
        break;
      case DELETED:
        type = "DELETED";
        break;
      case BOOKMARK:
        // The reflector reads only metadata.resourceVersion of a bookmark.
        return new Watch.Response<>("BOOKMARK", decode(
            "{\"metadata\":{\"resourceVersion\":"
                + JSON.serialize(event.getResourceVersion()) + "}}"));
      default:
        throw new IllegalStateException(
            "informerd watch " + describe() + ": unknown event type " + event.getTypeValue());
    }
    return new Watch.Response<>(type, decode(event.getObject().getJson().toString(StandardCharsets.UTF_8)));
  }

  private ApiType decode(String json) {
    ApiType object;
    try {
      object = decodeObject(json);
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "informerd watch " + describe() + ": cannot decode as " + apiTypeClass.getName() + ": "
              + e.getMessage(), e);
    }
    typeMeta.fillIn(object);
    return object;
  }

  /**
   * client-java's JSON knows its models, not the dynamic classes, which
   * carry their own Gson codec.
   */
  @SuppressWarnings("unchecked")
  private ApiListType decodeList(String json) {
    if (apiListTypeClass == DynamicKubernetesListObject.class) {
      return (ApiListType) Dynamics.newListFromJson(json);
    }
    return JSON.deserialize(json, apiListTypeClass);
  }

  @SuppressWarnings("unchecked")
  private ApiType decodeObject(String json) {
    if (apiTypeClass == DynamicKubernetesObject.class) {
      return (ApiType) Dynamics.newFromJson(json);
    }
    return JSON.deserialize(json, apiTypeClass);
  }

  /** The resource informerd serves this from. */
  public ResourceRef resource() {
    return resource;
  }

  /** "": all namespaces. */
  public String namespace() {
    return namespace;
  }

  public String labelSelector() {
    return labelSelector;
  }

  public String fieldSelector() {
    return fieldSelector;
  }

  /** What of each object informerd sends: whole objects (default) or metadata. */
  public Projection projection() {
    return projection;
  }

  /** The field mask informerd applies; empty (default): none. */
  public List<String> fields() {
    return fields;
  }

  private String describe() {
    return resource + (namespace.isEmpty() ? "" : " in " + namespace);
  }

  /** Configures an {@link InformerdListerWatcher}. Not thread-safe. */
  public static final class Builder<
      T extends KubernetesObject, L extends KubernetesListObject> {
    private final Supplier<CacheGrpc.CacheBlockingStub> stubs;
    private final Runnable resetConnectBackoff;
    private final Class<T> apiTypeClass;
    private final Class<L> apiListTypeClass;
    private final ResourceRef resource;
    private String namespace = "";
    private String labelSelector = "";
    private String fieldSelector = "";
    private String kind;
    private Duration listTimeout = Duration.ofSeconds(60);
    private Projection projection = Projection.PROJECTION_FULL;
    private List<String> fields = List.of();

    private Builder(
        Supplier<CacheGrpc.CacheBlockingStub> stubs,
        Runnable resetConnectBackoff,
        Class<T> apiTypeClass,
        Class<L> apiListTypeClass,
        ResourceRef resource) {
      this.stubs = stubs;
      this.resetConnectBackoff = resetConnectBackoff;
      this.apiTypeClass = Objects.requireNonNull(apiTypeClass, "apiTypeClass");
      this.apiListTypeClass = Objects.requireNonNull(apiListTypeClass, "apiListTypeClass");
      this.resource = Objects.requireNonNull(resource, "resource");
    }

    /** Only this namespace; default all namespaces. */
    public Builder<T, L> namespace(String namespace) {
      this.namespace = Objects.requireNonNull(namespace, "namespace");
      return this;
    }

    /** Kubernetes label selector, evaluated by informerd. */
    public Builder<T, L> labelSelector(String selector) {
      this.labelSelector = Objects.requireNonNull(selector, "labelSelector");
      return this;
    }

    /** Kubernetes field selector, evaluated by informerd (see its proto for the fields). */
    public Builder<T, L> fieldSelector(String selector) {
      this.fieldSelector = Objects.requireNonNull(selector, "fieldSelector");
      return this;
    }

    /**
     * The kind set on objects that arrive without one; default what
     * client-java's ModelMapper knows for the model class.
     */
    public Builder<T, L> kind(String kind) {
      this.kind = Objects.requireNonNull(kind, "kind");
      return this;
    }

    /** Deadline of each List page call; default 60 seconds. */
    public Builder<T, L> listTimeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("listTimeout: must be positive, got " + timeout);
      }
      this.listTimeout = timeout;
      return this;
    }

    /**
     * {@code PROJECTION_METADATA}: informerd sends only apiVersion, kind and
     * metadata, decoded into {@code T} with every other field null (the
     * no-copy mode's events, {@link NoCopyInformer}). Default whole objects.
     */
    public Builder<T, L> projection(Projection projection) {
      Objects.requireNonNull(projection, "projection");
      if (projection == Projection.UNRECOGNIZED) {
        throw new IllegalArgumentException("projection: unrecognized value");
      }
      this.projection = projection;
      return this;
    }

    /**
     * A field mask (informerd.proto, "Field masks"): every listed and watched
     * object holds only these fields, e.g. {@code List.of("spec.nodeName",
     * "status.phase")}, plus apiVersion, kind and metadata's name, namespace,
     * uid and resourceVersion, decoded into {@code T} with every other field
     * null (a masked copy). A path naming no field of the resource fails the
     * list with informerd's INVALID_ARGUMENT naming it.
     *
     * @throws IllegalArgumentException for an empty path, naming its index
     */
    public Builder<T, L> fields(List<String> paths) {
      Objects.requireNonNull(paths, "fields");
      for (int i = 0; i < paths.size(); i++) {
        if (paths.get(i) == null || paths.get(i).isEmpty()) {
          throw new IllegalArgumentException(
              "fields[" + i + "]: empty; a path names a field, e.g. spec.nodeName");
        }
      }
      this.fields = List.copyOf(paths);
      return this;
    }

    public InformerdListerWatcher<T, L> build() {
      return new InformerdListerWatcher<>(this);
    }
  }
}
