package io.informerd.kubernetes;

import com.google.gson.JsonObject;
import io.kubernetes.client.apimachinery.GroupVersionKind;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.util.ModelMapper;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.lang.reflect.Method;
import java.util.Optional;

/**
 * The apiVersion and kind of one model class, and filling them into decoded
 * objects that lack them: informerd sends both on every object, but older
 * servers left them out of objects that came into the cache by a LIST, as
 * the apiserver does for list items.
 */
final class TypeMeta {
  final String apiVersion;
  final String kind; // null when neither given nor known to client-java
  private final Method setApiVersion;
  private final Method setKind;

  private TypeMeta(String apiVersion, String kind, Method setApiVersion, Method setKind) {
    this.apiVersion = apiVersion;
    this.kind = kind;
    this.setApiVersion = setApiVersion;
    this.setKind = setKind;
  }

  /**
   * {@code kind} may be null: then client-java's ModelMapper is asked (it
   * knows every built-in model and registered CRD class).
   */
  static TypeMeta of(Class<?> type, String group, String version, String kind) {
    if (kind == null || version.isEmpty()) {
      GroupVersionKind gvk = ModelMapper.getGroupVersionKindByClass(type);
      if (gvk == null) {
        Optional<GroupVersionKind> prebuilt = ModelMapper.preBuiltGetGroupVersionKindByClass(type);
        gvk = prebuilt.orElse(null);
      }
      if (gvk != null) {
        kind = kind == null ? gvk.getKind() : kind;
        version = version.isEmpty() ? gvk.getVersion() : version;
      }
    }
    String apiVersion = group.isEmpty() ? version : group + "/" + version;
    Method setApiVersion = null;
    Method setKind = null;
    try {
      setApiVersion = type.getMethod("setApiVersion", String.class);
      setKind = type.getMethod("setKind", String.class);
    } catch (NoSuchMethodException e) {
      // A model without setters keeps whatever the JSON carried.
    }
    return new TypeMeta(apiVersion, kind, setApiVersion, setKind);
  }

  void fillIn(KubernetesObject object) {
    if (setKind == null) {
      return;
    }
    if (object instanceof DynamicKubernetesObject) {
      // Its getters throw on a missing field.
      JsonObject raw = ((DynamicKubernetesObject) object).getRaw();
      if (!raw.has("apiVersion") && !apiVersion.isEmpty()) {
        raw.addProperty("apiVersion", apiVersion);
      }
      if (!raw.has("kind") && kind != null) {
        raw.addProperty("kind", kind);
      }
      return;
    }
    try {
      if (isEmpty(object.getApiVersion()) && !apiVersion.isEmpty()) {
        setApiVersion.invoke(object, apiVersion);
      }
      if (isEmpty(object.getKind()) && kind != null) {
        setKind.invoke(object, kind);
      }
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot set apiVersion/kind on " + object.getClass(), e);
    }
  }

  private static boolean isEmpty(String s) {
    return s == null || s.isEmpty();
  }
}
