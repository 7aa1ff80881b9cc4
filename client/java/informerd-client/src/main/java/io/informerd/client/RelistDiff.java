package io.informerd.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Computes the changes that turn a cache into a freshly listed state, so a
 * relist is reported as the difference rather than as everything again.
 *
 * <p>Stateless.
 */
final class RelistDiff {
  private RelistDiff() {}

  /**
   * Returns adds for keys only in {@code listed}, updates for keys in both
   * whose resourceVersion or uid differs, and deletes with
   * finalStateUnknown=true for keys only in {@code cached}. An object whose
   * uid changed was deleted and recreated while the watch was down; it is
   * reported as a delete followed by an add, so handlers never see an update
   * between two different objects. Changes are ordered by key.
   */
  static List<CacheChange> compute(Map<String, KubeObject> cached, Map<String, KubeObject> listed) {
    List<CacheChange> changes = new ArrayList<>();
    for (Map.Entry<String, KubeObject> entry : new TreeMap<>(cached).entrySet()) {
      KubeObject fresh = listed.get(entry.getKey());
      KubeObject old = entry.getValue();
      if (fresh == null || !fresh.uid().equals(old.uid())) {
        changes.add(CacheChange.delete(old, true));
      }
    }
    for (Map.Entry<String, KubeObject> entry : new TreeMap<>(listed).entrySet()) {
      KubeObject old = cached.get(entry.getKey());
      KubeObject fresh = entry.getValue();
      if (old == null || !fresh.uid().equals(old.uid())) {
        changes.add(CacheChange.add(fresh));
      } else if (!fresh.resourceVersion().equals(old.resourceVersion())) {
        changes.add(CacheChange.update(old, fresh));
      }
    }
    return changes;
  }
}
