package io.informerd.client;

/**
 * Receives an informer's changes, in resourceVersion order, one call at a
 * time.
 *
 * <p>All calls run on the informer's own thread, after the change is in the
 * cache (so a {@link Lister} read from a handler already sees it). A slow
 * handler therefore slows the informer's consumption of its watch: the server
 * bounds the events it buffers for a watcher and cuts one that falls behind
 * with RESOURCE_EXHAUSTED, after which the informer re-lists and delivers the
 * difference. The client never buffers without bound, but a handler that
 * blocks for long turns individual events into relist diffs. Hand slow work
 * to another thread (see {@code examples.KeyQueueController}).
 *
 * <p>An exception thrown by a handler is logged and does not stop the
 * informer or the other handlers.
 */
public interface EventHandler {
  /** An object entered the cache. */
  default void onAdd(KubeObject object) {}

  /** An object in the cache changed (possibly to an identical state). */
  default void onUpdate(KubeObject oldObject, KubeObject newObject) {}

  /**
   * An object left the cache.
   *
   * @param finalStateUnknown true when the delete was learnt from a relist
   *     rather than a watch event, so {@code object} is the last state seen,
   *     not necessarily the object's final state
   */
  default void onDelete(KubeObject object, boolean finalStateUnknown) {}

  /**
   * Called once, after the adds for the initial state have been delivered
   * and before any later change.
   */
  default void onSynced() {}
}
