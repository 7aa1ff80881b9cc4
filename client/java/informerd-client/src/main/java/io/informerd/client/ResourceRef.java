package io.informerd.client;

import io.informerd.v1.ResourceName;

/**
 * Names a Kubernetes resource type as its API path does: plural resource,
 * API group ("" for the core group) and optional version.
 *
 * <p>Immutable.
 */
public final class ResourceRef {
  private final String group;
  private final String version;
  private final String resource;

  public ResourceRef(String group, String version, String resource) {
    this.group = group;
    this.version = version;
    this.resource = resource;
  }

  /**
   * Parses kubectl's short form "resource[.group]", e.g. "configmaps" or
   * "deployments.apps". The version is left empty: informerd serves each
   * resource at exactly one version.
   *
   * @throws IllegalArgumentException if {@code text} has an empty resource
   *     or group part
   */
  public static ResourceRef parse(String text) {
    int dot = text.indexOf('.');
    String resource = dot < 0 ? text : text.substring(0, dot);
    String group = dot < 0 ? "" : text.substring(dot + 1);
    if (resource.isEmpty()) {
      throw new IllegalArgumentException("resource: empty resource name in \"" + text + "\"");
    }
    if (dot >= 0 && group.isEmpty()) {
      throw new IllegalArgumentException("resource: empty group after '.' in \"" + text + "\"");
    }
    return new ResourceRef(group, "", resource);
  }

  public String group() {
    return group;
  }

  public String version() {
    return version;
  }

  public String resource() {
    return resource;
  }

  /** The wire form of this name, for callers of the gRPC API itself. */
  public ResourceName toProto() {
    return ResourceName.newBuilder()
        .setGroup(group)
        .setVersion(version)
        .setResource(resource)
        .build();
  }

  @Override
  public String toString() {
    return group.isEmpty() ? resource : resource + "." + group;
  }
}
