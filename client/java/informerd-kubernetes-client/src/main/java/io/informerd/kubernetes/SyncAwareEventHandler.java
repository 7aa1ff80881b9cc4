package io.informerd.kubernetes;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ResourceEventHandler;

/**
 * A client-java event handler that also hears when its own registration has
 * synced. {@link #onSynced} is called once, on the handler's thread, in
 * order: after its calls for every object that was cached when it joined (or
 * of the initial list) and before any later call. Handlers that only need
 * {@link HandlerRegistration#hasSynced} can be plain {@link ResourceEventHandler}s.
 */
public interface SyncAwareEventHandler<T extends KubernetesObject> extends ResourceEventHandler<T> {
  /** This handler's registration has synced; see {@link HandlerRegistration#hasSynced}. */
  default void onSynced() {}
}
