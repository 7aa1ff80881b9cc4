package io.informerd.client;

import java.util.Collection;

/**
 * Computes the values under which an object is indexed, e.g. the node name
 * of a pod. An object may have several values or none.
 *
 * <p>Runs on the informer's thread while the cache is locked, so it must be
 * fast, must not block and must not call back into the cache. An exception
 * thrown by it is treated as "no values" (and logged).
 */
@FunctionalInterface
public interface IndexFunction {
  Collection<String> valuesOf(KubeObject object);
}
