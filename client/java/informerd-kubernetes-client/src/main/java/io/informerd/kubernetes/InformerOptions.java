package io.informerd.kubernetes;

import io.informerd.client.ResourceRef;
import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.TransformFunc;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesListObject;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * What one informer of an {@link InformerdSharedInformerFactory} is: type,
 * resource, namespace, selectors and transform (which together are its key:
 * requests with the same key share one informer and one Watch), plus the
 * resync period and indexers wanted of it. Unset values take the factory's.
 *
 * <pre>
 * InformerOptions.of(V1Pod.class, V1PodList.class, new ResourceRef("", "v1", "pods"))
 *     .namespace("default").labelSelector("app=web").resync(Duration.ofMinutes(5))
 *     .indexers(Map.of("node", pod -&gt; List.of(pod.getSpec().getNodeName())))
 * </pre>
 *
 * Not thread-safe.
 */
public final class InformerOptions<T extends KubernetesObject, L extends KubernetesListObject> {
  final Class<T> apiTypeClass;
  final Class<L> apiListTypeClass;
  final ResourceRef resource;
  String namespace;
  String labelSelector;
  String fieldSelector;
  Duration resync;
  TransformFunc transform;
  boolean transformSet;
  final Map<String, Function<T, List<String>>> indexers = new LinkedHashMap<>();

  private InformerOptions(Class<T> apiTypeClass, Class<L> apiListTypeClass, ResourceRef resource) {
    this.apiTypeClass = Objects.requireNonNull(apiTypeClass, "apiTypeClass");
    this.apiListTypeClass = Objects.requireNonNull(apiListTypeClass, "apiListTypeClass");
    this.resource = Objects.requireNonNull(resource, "resource");
  }

  /** A typed informer, e.g. {@code of(V1ConfigMap.class, V1ConfigMapList.class, new ResourceRef("", "v1", "configmaps"))}. */
  public static <T extends KubernetesObject, L extends KubernetesListObject> InformerOptions<T, L> of(
      Class<T> apiTypeClass, Class<L> apiListTypeClass, ResourceRef resource) {
    return new InformerOptions<>(apiTypeClass, apiListTypeClass, resource);
  }

  /**
   * An informer of any resource informerd serves, as client-java's
   * {@link DynamicKubernetesObject}s (the object's JSON).
   */
  public static InformerOptions<DynamicKubernetesObject, DynamicKubernetesListObject> dynamic(
      ResourceRef resource) {
    return new InformerOptions<>(
        DynamicKubernetesObject.class, DynamicKubernetesListObject.class, resource);
  }

  /** "": all namespaces. */
  public InformerOptions<T, L> namespace(String namespace) {
    this.namespace = Objects.requireNonNull(namespace, "namespace");
    return this;
  }

  public InformerOptions<T, L> labelSelector(String selector) {
    this.labelSelector = Objects.requireNonNull(selector, "labelSelector");
    return this;
  }

  public InformerOptions<T, L> fieldSelector(String selector) {
    this.fieldSelector = Objects.requireNonNull(selector, "fieldSelector");
    return this;
  }

  /**
   * Default resync period of the informer's handlers (zero: none). Only the
   * request that creates the informer sets it; handlers can ask for their own.
   */
  public InformerOptions<T, L> resync(Duration period) {
    this.resync = Objects.requireNonNull(period, "resync");
    return this;
  }

  /**
   * Applied to each object before it is stored (null: none, overriding the
   * factory's). Part of the key: compared by identity, so share the instance.
   */
  public InformerOptions<T, L> transform(TransformFunc transform) {
    this.transform = transform;
    this.transformSet = true;
    return this;
  }

  /**
   * Index functions wanted on the informer, added if missing before it
   * starts. A name already there with another function is an error.
   */
  public InformerOptions<T, L> indexers(Map<String, Function<T, List<String>>> indexers) {
    this.indexers.putAll(indexers);
    return this;
  }
}
