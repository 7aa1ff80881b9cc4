"""CacheSync: the informer's protocol logic, without threads or network.

It turns the events of successive Watch streams into Store changes and
handler calls, and decides where the next stream starts:

* relisting (at first, and after OUT_OF_RANGE or RESOURCE_EXHAUSTED): a
  stream with send_initial_events; its ADDED events are collected until the
  BOOKMARK with initial_events_end and then applied as a diff against the
  cache (deletes carry final_state_unknown=True);
* otherwise: resume from the last resource_version seen, without initial
  events. A stream broken during its initial events is relisted again.

Live events follow the server's contract: an ADDED for a cached key is an
update, an update that does not change the resource_version is not
reported, a DELETED for an unknown key is ignored.

Not thread-safe: owned by one informer thread.
"""

from __future__ import annotations

import logging
from typing import Dict, Optional, Sequence, Tuple

import grpc

from informerd.diff import ChangeType, diff_relist
from informerd.handlers import ResourceEventHandler
from informerd.objects import CachedObject
from informerd.proto import pb
from informerd.store import Store
from informerd.transforms import Transform, apply_transform

_log = logging.getLogger("informerd")

# Codes after which resuming cannot work: the server no longer has the
# events between the resume point and now.
RELIST_CODES = frozenset(
    (grpc.StatusCode.OUT_OF_RANGE, grpc.StatusCode.RESOURCE_EXHAUSTED))


class CacheSync:

    def __init__(self, store: Store,
                 handlers: Sequence[ResourceEventHandler],
                 transform: Optional[Transform] = None) -> None:
        """``transform``, if given, is applied to every object received
        (initial, live and deleted ones) before it is stored or handed on;
        see transforms.py."""
        self._store = store
        self._transform = transform
        self._handlers = tuple(handlers)
        self._relisting = True
        self._resume_version = ""
        # key -> object of the initial events of the current relist stream.
        self._listing: Optional[Dict[str, CachedObject]] = None
        self._synced = False

    @property
    def synced(self) -> bool:
        """True once the first listing is in the store; stays true."""
        return self._synced

    @property
    def resume_version(self) -> str:
        return self._resume_version

    def next_stream(self) -> Tuple[str, bool]:
        """(resource_version, send_initial_events) for the next Watch."""
        if self._relisting or not self._resume_version:
            self._relisting = True
            self._listing = {}
            return "", True
        return self._resume_version, False

    def stream_ended(self, code: Optional[grpc.StatusCode]) -> None:
        """The stream ended with ``code`` (None: without an error status)."""
        if code in RELIST_CODES:
            self._relisting = True

    def _object(self, proto: "pb.Object") -> CachedObject:
        obj = CachedObject.from_proto(proto)
        if self._transform is not None:
            obj = apply_transform(self._transform, obj)
        return obj

    def handle(self, event: "pb.WatchEvent") -> None:
        if self._relisting:
            self._handle_initial(event)
        else:
            self._handle_live(event)

    def _handle_initial(self, event: "pb.WatchEvent") -> None:
        if self._listing is None:
            self._listing = {}
        if event.type in (pb.WatchEvent.ADDED, pb.WatchEvent.MODIFIED):
            obj = self._object(event.object)
            self._listing.pop(obj.key, None)
            self._listing[obj.key] = obj
        elif event.type == pb.WatchEvent.DELETED:
            obj = self._object(event.object)
            self._listing.pop(obj.key, None)
        elif event.type == pb.WatchEvent.BOOKMARK and event.initial_events_end:
            self._finish_relist(_event_version(event))

    def _finish_relist(self, version: str) -> None:
        listed = self._listing.values() if self._listing else ()
        self._listing = None
        for change in diff_relist(self._store.snapshot(), listed):
            if change.type is ChangeType.ADD:
                self._store.upsert(change.new)
                self._dispatch("on_add", change.new)
            elif change.type is ChangeType.UPDATE:
                self._store.upsert(change.new)
                self._dispatch("on_update", change.old, change.new)
            else:
                self._store.remove(change.old.key)
                self._dispatch("on_delete", change.old, True)
        self._relisting = False
        self._resume_version = version
        if not version:
            _log.warning("initial events ended without a resource_version; "
                         "the next stream lists again")
        if not self._synced:
            self._synced = True
            self._dispatch("on_synced")

    def _handle_live(self, event: "pb.WatchEvent") -> None:
        if event.type in (pb.WatchEvent.ADDED, pb.WatchEvent.MODIFIED):
            obj = self._object(event.object)
            old = self._store.upsert(obj)
            if old is None:
                self._dispatch("on_add", obj)
            elif old.resource_version != obj.resource_version:
                self._dispatch("on_update", old, obj)
        elif event.type == pb.WatchEvent.DELETED:
            obj = self._object(event.object)
            if self._store.remove(obj.key) is not None:
                self._dispatch("on_delete", obj, event.final_state_unknown)
        version = _event_version(event)
        if version:
            self._resume_version = version

    def _dispatch(self, method: str, *args) -> None:
        for handler in self._handlers:
            try:
                getattr(handler, method)(*args)
            except Exception:  # pylint: disable=broad-except
                _log.exception("event handler %r raised in %s",
                               handler, method)


def _event_version(event: "pb.WatchEvent") -> str:
    return event.resource_version or event.object.resource_version
