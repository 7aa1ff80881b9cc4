package io.informerd.kubernetes;

import io.informerd.client.ResourceRef;
import io.kubernetes.client.informer.TransformFunc;
import java.util.Objects;

/**
 * What makes two informer requests of an {@link InformerdSharedInformerFactory}
 * share one informer: model class, resource, namespace, selectors and
 * transform (by identity). Immutable.
 */
public final class InformerKey {
  private final Class<?> apiTypeClass;
  private final String group;
  private final String version;
  private final String resource;
  private final String namespace;
  private final String labelSelector;
  private final String fieldSelector;
  private final TransformFunc transform;
  // Informers over another ListerWatcher cannot be compared: each is its own.
  private final Object listerWatcher;

  InformerKey(
      Class<?> apiTypeClass,
      ResourceRef resource,
      String namespace,
      String labelSelector,
      String fieldSelector,
      TransformFunc transform,
      Object listerWatcher) {
    this.apiTypeClass = apiTypeClass;
    this.group = resource == null ? "" : resource.group();
    this.version = resource == null ? "" : resource.version();
    this.resource = resource == null ? "" : resource.resource();
    this.namespace = namespace;
    this.labelSelector = labelSelector;
    this.fieldSelector = fieldSelector;
    this.transform = transform;
    this.listerWatcher = listerWatcher;
  }

  public Class<?> apiTypeClass() {
    return apiTypeClass;
  }

  public ResourceRef resource() {
    return new ResourceRef(group, version, resource);
  }

  public String namespace() {
    return namespace;
  }

  public String labelSelector() {
    return labelSelector;
  }

  public String fieldSelector() {
    return fieldSelector;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof InformerKey)) {
      return false;
    }
    InformerKey k = (InformerKey) o;
    return apiTypeClass == k.apiTypeClass
        && group.equals(k.group)
        && version.equals(k.version)
        && resource.equals(k.resource)
        && namespace.equals(k.namespace)
        && labelSelector.equals(k.labelSelector)
        && fieldSelector.equals(k.fieldSelector)
        && transform == k.transform
        && listerWatcher == k.listerWatcher;
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        apiTypeClass, group, version, resource, namespace, labelSelector, fieldSelector,
        System.identityHashCode(transform), System.identityHashCode(listerWatcher));
  }

  /** E.g. {@code V1ConfigMap configmaps.v1 ns=default labels=app=web}. */
  @Override
  public String toString() {
    StringBuilder s = new StringBuilder(apiTypeClass.getSimpleName());
    if (!resource.isEmpty()) {
      s.append(' ').append(resource());
      if (!version.isEmpty()) {
        s.append(group.isEmpty() ? "." : "/").append(version);
      }
    }
    if (!namespace.isEmpty()) {
      s.append(" ns=").append(namespace);
    }
    if (!labelSelector.isEmpty()) {
      s.append(" labels=").append(labelSelector);
    }
    if (!fieldSelector.isEmpty()) {
      s.append(" fields=").append(fieldSelector);
    }
    if (transform != null) {
      s.append(" transform=").append(transform.getClass().getSimpleName());
    }
    if (listerWatcher != null) {
      s.append(" listerWatcher=").append(listerWatcher.getClass().getSimpleName());
    }
    return s.toString();
  }
}
