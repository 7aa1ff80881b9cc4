"""Per-handler delivery: client-go's sharedProcessor and processorListener.

Every handler added to an informer gets a ``HandlerRegistration`` with its
own FIFO queue and its own thread. The informer's thread only appends to the
queues, so a slow handler delays neither the other handlers nor the reading
of the stream.

**The queue bound** (``handler_queue_limit``, default
``DEFAULT_HANDLER_QUEUE_LIMIT``). client-go's per-handler buffer is
unbounded. Here, a handler that has more than ``limit`` live notifications
waiting is *lagging*: its queue is dropped, nothing more is queued for it,
and when its thread has finished the call it is in, it catches up by diff
between what it was last given and the informer's cache: adds, updates
(old = the last version it was given) and deletes with
``final_state_unknown=True``, exactly what a relisting informer reports.
This is what the informerd server does to a watcher that falls behind
(RESOURCE_EXHAUSTED, then the client relists by diff), moved into the
client: once handlers no longer block the stream, the server's bound no
longer reaches them. A lagging handler skips intermediate versions, never
the latest state, and memory per handler stays bounded by ``limit``
notifications plus one reference per cached object. ``None`` means
unbounded, as in client-go.

Ordering guarantees per handler: calls happen one at a time, on the
handler's thread, in the order of the cache's changes; a handler added to a
running informer first gets every cached object as an add, then
``on_synced``, then live changes. Resync updates (``old is new``, both the
cached object) are queued, in order with the rest, only for the handler
whose ``resync_period`` fell due; a resync falling due while the previous
one is still queued for that handler is skipped, so a slow handler never
accumulates resyncs.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from typing import Deque, Dict, List, NamedTuple, Optional

from informerd.diff import ChangeType, diff_relist
from informerd.handlers import ResourceEventHandler
from informerd.objects import CachedObject
from informerd.store import Store

_log = logging.getLogger("informerd")

# client-go's processorListener starts its buffer at 1024 (and grows it
# without limit); the same number, as a bound, keeps a lagging handler's
# backlog small while a burst of that size (e.g. a relist diff) passes as is.
DEFAULT_HANDLER_QUEUE_LIMIT = 1024

# Notification kinds.
_ADD, _UPDATE, _DELETE, _SYNCED = "add", "update", "delete", "synced"
# Where a notification came from, for the bound's accounting: only live
# changes count against the limit; a snapshot (initial adds, catch-up) and a
# resync are bounded by the cache's size and queued at most once at a time.
_LIVE, _SNAPSHOT, _RESYNC = "live", "snapshot", "resync"



class _Notification(NamedTuple):
    kind: str
    origin: str
    # add: the object; update: the new one; delete: the last state known.
    obj: Optional[CachedObject] = None
    old: Optional[CachedObject] = None   # update only.
    final_state_unknown: bool = False    # delete only.


def _add(origin: str, obj: CachedObject) -> _Notification:
    return _Notification(_ADD, origin, obj)


def _update(origin: str, old: CachedObject,
            new: CachedObject) -> _Notification:
    return _Notification(_UPDATE, origin, new, old)


def _delete(origin: str, obj: CachedObject,
            final_state_unknown: bool) -> _Notification:
    return _Notification(_DELETE, origin, obj, None, final_state_unknown)


def _synced(origin: str) -> _Notification:
    return _Notification(_SYNCED, origin)


class HandlerRegistration:
    """One handler on one informer: its queue, its thread, its sync state.

    Returned by ``Informer.add_event_handler``; pass it to
    ``remove_event_handler``. Thread-safe: ``has_synced``,
    ``wait_for_sync`` and the properties may be used from any thread.
    """

    def __init__(self, processor: "SharedProcessor",
                 handler: ResourceEventHandler, resync_period: float,
                 limit: Optional[int]) -> None:
        self._processor = processor
        self._handler = handler
        self._resync_period = resync_period
        self._limit = limit
        self._cond = threading.Condition()
        self._queue: Deque[_Notification] = collections.deque()  # _cond
        self._live_pending = 0      # Guarded by _cond.
        self._resync_pending = 0    # Guarded by _cond.
        self._lagging = False       # Guarded by _cond.
        self._stopped = False       # Guarded by _cond.
        # key -> the object the handler was last given; only kept when the
        # queue is bounded, to compute a lagging handler's catch-up.
        # Guarded by _cond.
        self._given: Optional[Dict[str, CachedObject]] = \
            {} if limit is not None else None
        self._synced = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._resyncs = 0           # Guarded by _cond.
        self._catch_ups = 0         # Guarded by _cond.

    @property
    def handler(self) -> ResourceEventHandler:
        return self._handler

    @property
    def resync_period(self) -> float:
        """Seconds between this handler's resyncs; 0: none."""
        return self._resync_period

    @property
    def resyncs(self) -> int:
        """Resync rounds queued for this handler so far."""
        with self._cond:
            return self._resyncs

    @property
    def catch_ups(self) -> int:
        """Times this handler lagged (see the module docstring) and caught
        up from the cache."""
        with self._cond:
            return self._catch_ups

    def has_synced(self) -> bool:
        """True once the handler has been given every object of the
        informer's initial listing (or, if added later, of the cache when it
        was added), i.e. just before its ``on_synced`` runs; stays true."""
        return self._synced.is_set()

    def wait_for_sync(self, timeout: Optional[float] = None) -> bool:
        """Waits until has_synced() or timeout; returns has_synced()."""
        return self._synced.wait(timeout)

    # --- called by SharedProcessor, under its lock ----------------------

    def _queue_initial(self, items: List[_Notification]) -> None:
        with self._cond:
            self._queue.extend(items)
            self._cond.notify()

    def _push(self, item: _Notification) -> None:
        with self._cond:
            if self._stopped or self._lagging:
                return
            self._queue.append(item)
            if item.origin == _LIVE:
                self._live_pending += 1
                if self._limit is not None and \
                        self._live_pending > self._limit:
                    self._fall_behind()
            self._cond.notify()

    def _fall_behind(self) -> None:
        """REQUIRES: _cond held."""
        _log.warning("event handler %r fell %d notifications behind; it "
                     "catches up from the cache when it is done with the "
                     "current call", self._handler, self._live_pending)
        self._queue.clear()
        self._live_pending = self._resync_pending = 0
        self._lagging = True

    def _start(self) -> None:
        self._thread = threading.Thread(
            target=self._run, daemon=True,
            name="handler-%s" % type(self._handler).__name__)
        self._thread.start()

    def _stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._queue.clear()
            self._cond.notify()

    def _join(self, timeout: Optional[float]) -> None:
        if self._thread is not None and \
                self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def _is_current_thread(self) -> bool:
        return self._thread is threading.current_thread()

    # --- the handler's thread ---------------------------------------------

    def _run(self) -> None:
        next_resync = (time.monotonic() + self._resync_period
                       if self._resync_period > 0 else None)
        while True:
            item: Optional[_Notification] = None
            catch_up = resync = False
            with self._cond:
                while True:
                    if self._stopped:
                        return
                    if self._queue:
                        item = self._pop()
                        break
                    if self._lagging:
                        catch_up = True
                        break
                    if next_resync is not None:
                        wait = next_resync - time.monotonic()
                        if wait <= 0:
                            resync = True
                            break
                        self._cond.wait(wait)
                    else:
                        self._cond.wait()
            if catch_up:
                self._catch_up()
            elif resync:
                next_resync = time.monotonic() + self._resync_period
                self._resync()
            elif item is not None:
                self._deliver(item)
            if next_resync is not None and item is not None:
                # A handler whose queue never empties still gets its
                # resyncs on time, queued behind what already waits.
                if time.monotonic() >= next_resync:
                    next_resync = time.monotonic() + self._resync_period
                    self._resync()

    def _pop(self) -> _Notification:
        """REQUIRES: _cond held and the queue not empty."""
        item = self._queue.popleft()
        if item.origin == _LIVE:
            self._live_pending -= 1
        elif item.origin == _RESYNC:
            self._resync_pending -= 1
        if self._given is not None and item.obj is not None:
            if item.kind == _DELETE:
                self._given.pop(item.obj.key, None)
            else:
                self._given[item.obj.key] = item.obj
        return item

    def _deliver(self, item: _Notification) -> None:
        try:
            if item.kind == _SYNCED:
                self._synced.set()
                self._handler.on_synced()
                return
            assert item.obj is not None
            if item.kind == _ADD:
                self._handler.on_add(item.obj)
            elif item.kind == _UPDATE:
                assert item.old is not None
                self._handler.on_update(item.old, item.obj)
            else:
                self._handler.on_delete(item.obj, item.final_state_unknown)
        except Exception:  # pylint: disable=broad-except
            _log.exception("event handler %r raised in on_%s",
                           self._handler, item.kind)

    def _catch_up(self) -> None:
        with self._processor.lock:
            cached = self._processor.snapshot_locked()
            informer_synced = self._processor.synced_locked()
            with self._cond:
                if self._stopped:
                    return
                given = self._given if self._given is not None else {}
                for change in diff_relist(given, cached):
                    if change.type is ChangeType.ADD:
                        assert change.new is not None
                        self._queue.append(_add(_SNAPSHOT, change.new))
                    elif change.type is ChangeType.UPDATE:
                        assert change.old is not None and \
                            change.new is not None
                        self._queue.append(
                            _update(_SNAPSHOT, change.old, change.new))
                    else:
                        assert change.old is not None
                        self._queue.append(_delete(_SNAPSHOT, change.old,
                                                   True))
                # A synced notification dropped with the queue is owed still.
                if informer_synced and not self._synced.is_set():
                    self._queue.append(_synced(_SNAPSHOT))
                self._lagging = False
                self._catch_ups += 1

    def _resync(self) -> None:
        if not self._synced.is_set():
            return  # Its initial adds are still queued or not yet listed.
        with self._processor.lock:
            cached = self._processor.snapshot_locked()
            with self._cond:
                if self._stopped or self._lagging or self._resync_pending:
                    return
                for obj in cached:
                    self._queue.append(_update(_RESYNC, obj, obj))
                self._resync_pending = len(cached)
                self._resyncs += 1


class SharedProcessor(ResourceEventHandler):
    """Fans the informer's changes out to every registration's queue.

    ``lock`` serializes changes to the cache with their fan-out, with
    registrations and with resync and catch-up snapshots: while it is held,
    the cache's content equals what has been queued so far, which is what
    lets a late handler start from a snapshot without missing or repeating
    a change. The informer holds it around applying one event; the
    on_* methods REQUIRE it held. Everything else may be called from any
    thread.
    """

    def __init__(self, store: Store, default_resync_period: float,
                 limit: Optional[int]) -> None:
        if limit is not None and limit < 1:
            raise ValueError("handler_queue_limit: must be positive or None")
        _check_period("resync_period", default_resync_period)
        self.lock = threading.Lock()
        self._store = store
        self._default_resync_period = default_resync_period
        self._limit = limit
        self._registrations: List[HandlerRegistration] = []  # Guarded by lock.
        self._synced = False   # Guarded by lock.
        self._started = False  # Guarded by lock.
        self._stopped = False  # Guarded by lock.

    def snapshot_locked(self) -> List[CachedObject]:
        """The cache's objects sorted by key. REQUIRES: lock held."""
        snapshot = self._store.snapshot()
        return [snapshot[key] for key in sorted(snapshot)]

    def synced_locked(self) -> bool:
        """REQUIRES: lock held."""
        return self._synced

    def add(self, handler: ResourceEventHandler,
            resync_period: Optional[float]) -> HandlerRegistration:
        if resync_period is None:
            resync_period = self._default_resync_period
        _check_period("resync_period", resync_period)
        registration = HandlerRegistration(self, handler, resync_period,
                                           self._limit)
        with self.lock:
            if self._stopped:
                raise RuntimeError("add_event_handler: informer stopped")
            if self._synced:
                initial = [_add(_SNAPSHOT, obj)
                           for obj in self.snapshot_locked()]
                initial.append(_synced(_SNAPSHOT))
                registration._queue_initial(initial)
            self._registrations.append(registration)
            if self._started:
                registration._start()
        return registration

    def remove(self, registration: HandlerRegistration,
               timeout: Optional[float]) -> None:
        with self.lock:
            if registration not in self._registrations:
                return
            self._registrations.remove(registration)
        registration._stop()
        registration._join(timeout)

    def start(self) -> None:
        with self.lock:
            self._started = True
            for registration in self._registrations:
                registration._start()

    def stop(self, timeout: Optional[float]) -> None:
        """Stops every handler thread, dropping what is queued, and waits
        until none is running (a handler's current call completes)."""
        with self.lock:
            self._stopped = True
            registrations = list(self._registrations)
        for registration in registrations:
            registration._stop()
        deadline = None if timeout is None else time.monotonic() + timeout
        for registration in registrations:
            registration._join(None if deadline is None
                               else max(0.0, deadline - time.monotonic()))

    def in_handler_thread(self) -> bool:
        with self.lock:
            return any(r._is_current_thread() for r in self._registrations)

    # --- ResourceEventHandler, called by CacheSync with lock held ---------

    def on_add(self, obj: CachedObject) -> None:
        for registration in self._registrations:
            registration._push(_add(_LIVE, obj))

    def on_update(self, old: CachedObject, new: CachedObject) -> None:
        for registration in self._registrations:
            registration._push(_update(_LIVE, old, new))

    def on_delete(self, obj: CachedObject, final_state_unknown: bool) -> None:
        for registration in self._registrations:
            registration._push(_delete(_LIVE, obj, final_state_unknown))

    def on_synced(self) -> None:
        self._synced = True
        for registration in self._registrations:
            registration._push(_synced(_SNAPSHOT))


def _check_period(name: str, seconds: float) -> None:
    if seconds < 0:
        raise ValueError("%s: must be 0 (no resync) or positive seconds"
                         % name)
