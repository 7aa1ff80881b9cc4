package io.informerd.client;

import java.util.List;
import java.util.Optional;

/**
 * Read-only view of an informer's local cache.
 *
 * <p>Implementations are thread-safe. Each call sees one consistent state of
 * the cache; two calls may see different states. Lists are fresh, unmodifiable
 * snapshots sorted by key.
 */
public interface Lister {
  /**
   * The object with this namespace and name (namespace empty for a
   * cluster-scoped object).
   */
  Optional<KubeObject> get(String namespace, String name);

  /** The object with this key ("namespace/name", or "name"). */
  Optional<KubeObject> getByKey(String key);

  List<KubeObject> list();

  List<KubeObject> list(LabelSelector selector);

  /** Objects in {@code namespace} matching {@code selector}. */
  List<KubeObject> list(String namespace, LabelSelector selector);

  /**
   * Objects whose index function {@code indexName} yields {@code value}. The
   * built-in index {@value Indexer#NAMESPACE_INDEX} maps an object to its
   * namespace.
   *
   * @throws IllegalArgumentException if no index has this name
   */
  List<KubeObject> byIndex(String indexName, String value);

  /** All keys, sorted. */
  List<String> keys();

  int size();
}
