package io.informerd.client;

import java.util.Optional;

/**
 * One change to apply to a cache and report to handlers: an add (no old
 * object), an update (both) or a delete (no new object). Immutable.
 */
final class CacheChange {
  private final KubeObject oldObject;
  private final KubeObject newObject;
  private final boolean finalStateUnknown;

  private CacheChange(KubeObject oldObject, KubeObject newObject, boolean finalStateUnknown) {
    this.oldObject = oldObject;
    this.newObject = newObject;
    this.finalStateUnknown = finalStateUnknown;
  }

  static CacheChange add(KubeObject object) {
    return new CacheChange(null, object, false);
  }

  static CacheChange update(KubeObject oldObject, KubeObject newObject) {
    return new CacheChange(oldObject, newObject, false);
  }

  static CacheChange delete(KubeObject object, boolean finalStateUnknown) {
    return new CacheChange(object, null, finalStateUnknown);
  }

  Optional<KubeObject> oldObject() {
    return Optional.ofNullable(oldObject);
  }

  Optional<KubeObject> newObject() {
    return Optional.ofNullable(newObject);
  }

  boolean isDelete() {
    return newObject == null;
  }

  boolean finalStateUnknown() {
    return finalStateUnknown;
  }

  @Override
  public String toString() {
    if (oldObject == null) {
      return "ADD " + newObject.key() + " " + newObject.resourceVersion();
    }
    if (newObject == null) {
      return "DELETE " + oldObject.key() + " " + oldObject.resourceVersion()
          + (finalStateUnknown ? " final-state-unknown" : "");
    }
    return "UPDATE " + newObject.key() + " " + oldObject.resourceVersion() + " "
        + newObject.resourceVersion();
  }
}
