"""Informer: a client-go style informer fed by an informerd server.

It keeps a Store of one resource (optionally one namespace, label and field
selector, evaluated by the server) in sync on its own thread and calls the
event handlers for every change, as described in sync.py: Watch with
send_initial_events and allow_bookmarks, synced after initial_events_end,
resume by resource_version after a broken stream, relist by diff after
OUT_OF_RANGE or RESOURCE_EXHAUSTED. Failed streams are retried after a
jittered backoff (0.2s doubling to 1s, reset whenever an event arrives).
After OUT_OF_RANGE or RESOURCE_EXHAUSTED the relist starts at once: the
server is up and has said what to do. Only when relist codes follow each
other without a single event in between does the backoff apply, so a
server that keeps refusing is not hammered.

Handlers run on the informer's thread; see handlers.py for the slow-handler
policy. Thread safety: lister, has_synced, wait_for_sync and last_error may
be used from any thread; add_event_handler, start and stop are for the owner.
"""

from __future__ import annotations

import logging
import threading
from typing import List, Mapping, Optional, Tuple, Union

import grpc

from informerd.backoff import Backoff
from informerd.handlers import ResourceEventHandler
from informerd.proto import pb, pb_grpc
from informerd.resource import parse_resource
from informerd.selectors import parse_label_selector
from informerd.store import IndexFunc, Lister, Store
from informerd.sync import RELIST_CODES, CacheSync

_log = logging.getLogger("informerd")


class Informer:

    def __init__(self, channel: grpc.Channel,
                 resource: Union[str, "pb.ResourceName"], *,
                 namespace: str = "", label_selector: str = "",
                 field_selector: str = "",
                 projection: int = pb.PROJECTION_FULL,
                 indexers: Optional[Mapping[str, IndexFunc]] = None,
                 backoff: Optional[Backoff] = None) -> None:
        """``channel`` from informerd.connect, owned by the caller and open
        while the informer runs. ``resource`` as parse_resource accepts.
        ``projection=pb.PROJECTION_METADATA`` keeps only apiVersion, kind and
        metadata of each object, as client-go's metadata informers do (the
        kubernetes package has no PartialObjectMetadata model: decode the
        ``metadata`` with ``V1ObjectMeta.from_dict``).
        Raises ValueError (SelectorError) for a label selector that does not
        parse, and for bad resource names, projections or indexers."""
        if projection not in pb.Projection.values():
            raise ValueError("projection: unknown value %r; use "
                             "pb.PROJECTION_FULL or pb.PROJECTION_METADATA"
                             % (projection,))
        if isinstance(resource, str):
            resource = parse_resource(resource)
        parse_label_selector(label_selector)  # Fail here, not in a retry loop.
        self._stub = pb_grpc.CacheStub(channel)
        self._request = pb.WatchRequest(
            resource=resource, namespace=namespace,
            label_selector=label_selector, field_selector=field_selector,
            allow_bookmarks=True, projection=projection)
        self._store = Store(indexers)
        self._lister = Lister(self._store)
        self._handlers: List[ResourceEventHandler] = []
        self._backoff = backoff or Backoff()
        self._thread: Optional[threading.Thread] = None
        self._stopping = threading.Event()
        self._synced = threading.Event()
        self._lock = threading.Lock()
        self._call = None  # The active Watch call; guarded by _lock.
        self._last_error: Optional[Exception] = None  # Guarded by _lock.

    @property
    def lister(self) -> Lister:
        return self._lister

    def add_event_handler(self, handler: ResourceEventHandler) -> None:
        """REQUIRES: start() has not been called."""
        if self._thread is not None:
            raise RuntimeError("add_event_handler: informer already started")
        self._handlers.append(handler)

    def start(self) -> None:
        """Starts the informer's thread. REQUIRES: called at most once."""
        if self._thread is not None:
            raise RuntimeError("start: informer already started")
        self._thread = threading.Thread(
            target=self._run, daemon=True,
            name="informer-%s" % self._request.resource.resource)
        self._thread.start()

    def stop(self, timeout: Optional[float] = None) -> None:
        """Cancels the stream and waits until the thread, and any handler it
        is running, has finished. Idempotent. REQUIRES: not called from a
        handler."""
        if self._thread is threading.current_thread():
            raise RuntimeError("stop: called from an event handler")
        self._stopping.set()
        with self._lock:
            if self._call is not None:
                self._call.cancel()
        if self._thread is not None:
            self._thread.join(timeout)

    def __enter__(self) -> "Informer":
        self.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def has_synced(self) -> bool:
        """True once the first listing is in the cache; stays true."""
        return self._synced.is_set()

    def wait_for_sync(self, timeout: Optional[float] = None) -> bool:
        """Waits until has_synced() or timeout; returns has_synced()."""
        return self._synced.wait(timeout)

    @property
    def last_error(self) -> Optional[Exception]:
        """Why the last stream ended, if it ended with an error."""
        with self._lock:
            return self._last_error

    def _run(self) -> None:
        sync = CacheSync(self._store, self._handlers)
        # Set by a relist without waiting, cleared by any event: a second
        # relist code with no event in between waits for the backoff.
        relisted_at_once = False
        while not self._stopping.is_set():
            code, received = self._watch_once(sync)
            if self._stopping.is_set():
                break
            sync.stream_ended(code)
            if received:
                relisted_at_once = False
            if code in RELIST_CODES and not relisted_at_once:
                relisted_at_once = True
                continue
            self._stopping.wait(self._backoff.next_delay())

    def _watch_once(self, sync: CacheSync
                    ) -> Tuple[Optional[grpc.StatusCode], bool]:
        """Runs one stream; returns its error code (or None) and whether it
        delivered any event."""
        request = pb.WatchRequest()
        request.CopyFrom(self._request)
        request.resource_version, request.send_initial_events = \
            sync.next_stream()
        received = False
        try:
            call = self._stub.Watch(request)
            with self._lock:
                if self._stopping.is_set():
                    call.cancel()
                self._call = call
            for event in call:
                received = True
                self._backoff.reset()
                sync.handle(event)
                if sync.synced and not self._synced.is_set():
                    self._synced.set()
            self._record_error(None)
            return None, received
        except grpc.RpcError as error:
            if not self._stopping.is_set():
                self._record_error(error)
                _log.warning("watch %s ended: %s %s",
                             request.resource.resource, error.code(),
                             error.details())
            return error.code(), received
        except Exception as error:  # pylint: disable=broad-except
            # E.g. an unreadable token file: retried like a failed stream.
            self._record_error(error)
            _log.warning("watch %s failed: %s",
                         request.resource.resource, error)
            return None, received
        finally:
            with self._lock:
                self._call = None

    def _record_error(self, error: Optional[Exception]) -> None:
        with self._lock:
            self._last_error = error
