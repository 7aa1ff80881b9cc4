package io.informerd.client;

import com.google.protobuf.ByteString;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * One Kubernetes object as informerd serves it: the object's JSON plus the
 * metadata fields clients route on, so routing never needs a JSON parse.
 *
 * <p>Immutable and therefore safe to share between threads. Wraps the wire
 * message {@code informerd.v1.Object}, whose name clashes with
 * {@link java.lang.Object}.
 */
public final class KubeObject {
  private final String namespace;
  private final String name;
  private final String uid;
  private final String resourceVersion;
  private final Map<String, String> labels;
  private final ByteString json;

  public KubeObject(
      String namespace,
      String name,
      String uid,
      String resourceVersion,
      Map<String, String> labels,
      ByteString json) {
    this.namespace = namespace;
    this.name = name;
    this.uid = uid;
    this.resourceVersion = resourceVersion;
    this.labels = Collections.unmodifiableMap(new TreeMap<>(labels));
    this.json = json;
  }

  /** Copies the fields of a wire object. */
  public static KubeObject fromProto(io.informerd.v1.Object proto) {
    return new KubeObject(
        proto.getNamespace(),
        proto.getName(),
        proto.getUid(),
        proto.getResourceVersion(),
        proto.getLabelsMap(),
        proto.getJson());
  }

  /**
   * The cache key of an object: "namespace/name", or just "name" for a
   * cluster-scoped object (empty namespace), as client-go's
   * MetaNamespaceKeyFunc.
   */
  public static String keyOf(String namespace, String name) {
    return namespace.isEmpty() ? name : namespace + "/" + name;
  }

  public String key() {
    return keyOf(namespace, name);
  }

  /** Empty for cluster-scoped objects. */
  public String namespace() {
    return namespace;
  }

  public String name() {
    return name;
  }

  public String uid() {
    return uid;
  }

  public String resourceVersion() {
    return resourceVersion;
  }

  /** Unmodifiable, sorted by key. */
  public Map<String, String> labels() {
    return labels;
  }

  /** The object as compact JSON; see {@link Decoder} to map it to a type. */
  public ByteString json() {
    return json;
  }

  @Override
  public String toString() {
    return "KubeObject{" + key() + " rv=" + resourceVersion + "}";
  }
}
