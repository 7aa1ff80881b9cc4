"""Event handlers: what an informer calls when its cache changes.

Each handler added to an informer runs on its own thread, one call at a
time, in the order of the changes (processor.py): a slow handler delays
neither the other handlers nor the informer's reading of the stream. What a
handler has not yet taken waits in its queue, up to the informer's
``handler_queue_limit`` live notifications; past that, the handler catches
up from the cache by diff when it is done with its current call (it then
skips intermediate versions; deletes it missed come with
``final_state_unknown=True``). Handlers should still be quick (record what
changed, e.g. enqueue the key, and leave the work to a worker) so that they
see every version. An exception escaping a handler is logged and does not
stop the informer or the other handlers.

A resync (per-handler ``resync_period``) calls ``on_update(obj, obj)`` with
the same cached object as old and new, for every cached object.
"""

from __future__ import annotations

from typing import Callable, Optional

from informerd.objects import CachedObject


class ResourceEventHandler:
    """Override what you need; the defaults do nothing."""

    def on_add(self, obj: CachedObject) -> None:
        """A key entered the cache."""

    def on_update(self, old: CachedObject, new: CachedObject) -> None:
        """A cached object got a new resource_version."""

    def on_delete(self, obj: CachedObject, final_state_unknown: bool) -> None:
        """A key left the cache. ``final_state_unknown``: the delete was
        learnt from a relist, so ``obj`` is the last state seen, not
        necessarily the final one."""

    def on_synced(self) -> None:
        """Once, after the adds of the first listing (or, for a handler
        added to a synced informer, of the cache's content) and before any
        live change. The handler's registration reports has_synced() from
        this call on."""


class HandlerFuncs(ResourceEventHandler):
    """A handler made of optional functions."""

    def __init__(
            self,
            on_add: Optional[Callable[[CachedObject], None]] = None,
            on_update: Optional[Callable[[CachedObject, CachedObject],
                                         None]] = None,
            on_delete: Optional[Callable[[CachedObject, bool], None]] = None,
            on_synced: Optional[Callable[[], None]] = None) -> None:
        self._on_add = on_add
        self._on_update = on_update
        self._on_delete = on_delete
        self._on_synced = on_synced

    def on_add(self, obj: CachedObject) -> None:
        if self._on_add is not None:
            self._on_add(obj)

    def on_update(self, old: CachedObject, new: CachedObject) -> None:
        if self._on_update is not None:
            self._on_update(old, new)

    def on_delete(self, obj: CachedObject, final_state_unknown: bool) -> None:
        if self._on_delete is not None:
            self._on_delete(obj, final_state_unknown)

    def on_synced(self) -> None:
        if self._on_synced is not None:
            self._on_synced()
