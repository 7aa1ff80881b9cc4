package io.informerd.client;

import io.informerd.v1.WatchEvent;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Applies watch events and relist results to an {@link Indexer} and reports
 * each resulting change to the handlers, in order, after the cache holds it.
 *
 * <p>Encodes the informer's cache rules: an ADDED for a cached key is an
 * update, a DELETED for an unknown key is ignored (a resumed watch may replay
 * what a relist already removed), and a relist is reported as its
 * difference. Not thread-safe: only the informer's thread calls it.
 */
final class CacheUpdater {
  private static final Logger logger = Logger.getLogger(CacheUpdater.class.getName());

  private final Indexer indexer;
  private final List<EventHandler> handlers;

  CacheUpdater(Indexer indexer, List<EventHandler> handlers) {
    this.indexer = indexer;
    this.handlers = List.copyOf(handlers);
  }

  /** Applies one live ADDED, MODIFIED or DELETED event; ignores others. */
  void applyEvent(WatchEvent event) {
    KubeObject object = KubeObject.fromProto(event.getObject());
    switch (event.getType()) {
      case ADDED:
      case MODIFIED:
        indexer
            .put(object)
            .ifPresentOrElse(
                old -> dispatch(CacheChange.update(old, object)),
                () -> dispatch(CacheChange.add(object)));
        return;
      case DELETED:
        indexer
            .remove(object.key())
            .ifPresent(old -> dispatch(CacheChange.delete(object, event.getFinalStateUnknown())));
        return;
      default:
        return;
    }
  }

  /** Makes the cache equal to {@code listed}, reporting only what changed. */
  void applyRelist(Map<String, KubeObject> listed) {
    for (CacheChange change : RelistDiff.compute(indexer.snapshot(), listed)) {
      if (change.isDelete()) {
        indexer.remove(change.oldObject().get().key());
      } else {
        indexer.put(change.newObject().get());
      }
      dispatch(change);
    }
  }

  void reportSynced() {
    for (EventHandler handler : handlers) {
      try {
        handler.onSynced();
      } catch (RuntimeException e) {
        logger.log(Level.WARNING, "event handler failed in onSynced", e);
      }
    }
  }

  private void dispatch(CacheChange change) {
    for (EventHandler handler : handlers) {
      try {
        if (change.isDelete()) {
          handler.onDelete(change.oldObject().get(), change.finalStateUnknown());
        } else if (change.oldObject().isPresent()) {
          handler.onUpdate(change.oldObject().get(), change.newObject().get());
        } else {
          handler.onAdd(change.newObject().get());
        }
      } catch (RuntimeException e) {
        logger.log(Level.WARNING, "event handler failed on " + change, e);
      }
    }
  }
}
