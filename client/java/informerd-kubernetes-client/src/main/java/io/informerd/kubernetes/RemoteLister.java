package io.informerd.kubernetes;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.cache.Lister;
import java.util.List;
import java.util.Objects;

/**
 * client-java's {@link Lister} answered by informerd ({@link RemoteIndexer}):
 * {@code get(name)}, {@code namespace(ns).get(name)}, {@code list()}, and
 * label and field selector lists evaluated by informerd. Every read carries
 * the minimum version of the indexer's tracker (read your events) and
 * throws {@link InformerdReadException} when it fails. Thread-safe.
 */
public final class RemoteLister<T extends KubernetesObject> extends Lister<T> {
  private final RemoteIndexer<T> indexer;
  private final String namespace;

  /** All namespaces. */
  public RemoteLister(RemoteIndexer<T> indexer) {
    this(indexer, "");
  }

  private RemoteLister(RemoteIndexer<T> indexer, String namespace) {
    super(indexer, namespace);
    this.indexer = Objects.requireNonNull(indexer, "indexer");
    this.namespace = namespace;
  }

  /** This lister limited to {@code namespace}. */
  @Override
  public RemoteLister<T> namespace(String namespace) {
    return new RemoteLister<>(indexer, Objects.requireNonNull(namespace, "namespace"));
  }

  /** The object named {@code name} (in this lister's namespace), or null. */
  @Override
  public T get(String name) {
    return indexer.get(namespace, name, "");
  }

  /** Every object (in this lister's namespace), sorted by key. */
  @Override
  public List<T> list() {
    return indexer.list(namespace, "", "");
  }

  /** Objects matching a Kubernetes label selector, evaluated by informerd. */
  public List<T> list(String labelSelector) {
    return indexer.list(namespace, labelSelector, "");
  }

  /** Objects matching both selectors ("": any), evaluated by informerd. */
  public List<T> list(String labelSelector, String fieldSelector) {
    return indexer.list(namespace, labelSelector, fieldSelector);
  }

  public RemoteIndexer<T> indexer() {
    return indexer;
  }
}
