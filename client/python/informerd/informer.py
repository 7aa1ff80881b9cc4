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

Handlers may be added and removed at any time. Each runs on its own thread
with its own queue (processor.py): a handler added to a running informer
first gets every cached object as an add, then live changes; a slow handler
delays neither the others nor the reading of the stream; a handler's
resync period delivers synthetic updates from the cache to that handler
only. Thread safety: every method may be called from any thread; stop()
not from a handler.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Mapping, Optional, Tuple, Union

import grpc

from informerd.backoff import Backoff
from informerd.connection import server_of
from informerd.handlers import ResourceEventHandler
from informerd.processor import (DEFAULT_HANDLER_QUEUE_LIMIT,
                                 HandlerRegistration, SharedProcessor)
from informerd.proto import pb, pb_grpc
from informerd.resource import parse_resource
from informerd.selectors import parse_label_selector
from informerd.store import IndexFunc, Lister, Store
from informerd.sync import RELIST_CODES, CacheSync
from informerd.transforms import Transform

_log = logging.getLogger("informerd")


class InformerError(grpc.RpcError):
    """Why an informer's stream failed: the server's address, the resource,
    and gRPC's code and details (``code()`` and ``details()`` as on the
    grpc.RpcError it wraps, which is its ``__cause__``)."""

    def __init__(self, server: str, resource: str, code: grpc.StatusCode,
                 details: str) -> None:
        super().__init__("informerd at %s: watch %s: %s: %s"
                         % (server, resource, code.name, details))
        self.server, self.resource = server, resource
        self._code, self._details = code, details

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details

    def __str__(self) -> str:
        return self.args[0]


class Informer:
    """A cache of one resource kept current from an informerd server, with
    handlers called on every change. See the module docstring."""

    def __init__(self, channel: grpc.Channel,
                 resource: Union[str, "pb.ResourceName"], *,
                 namespace: str = "", label_selector: str = "",
                 field_selector: str = "",
                 projection: int = pb.PROJECTION_FULL,
                 fields: Sequence[str] = (),
                 indexers: Optional[Mapping[str, IndexFunc]] = None,
                 transform: Optional[Transform] = None,
                 resync_period: float = 0.0,
                 handler_queue_limit: Optional[int] =
                 DEFAULT_HANDLER_QUEUE_LIMIT,
                 backoff: Optional[Backoff] = None) -> None:
        """``channel`` from informerd.connect, owned by the caller and open
        while the informer runs. ``resource`` as parse_resource accepts.
        ``projection=pb.PROJECTION_METADATA`` keeps only apiVersion, kind and
        metadata of each object, as client-go's metadata informers do (the
        kubernetes package has no PartialObjectMetadata model: decode the
        ``metadata`` with ``V1ObjectMeta.from_dict``). ``fields``: a field
        mask (informerd.proto, "Field masks"), e.g. ``("spec.nodeName",
        "status.phase")``: every object holds only those fields, plus
        apiVersion, kind and metadata's name, namespace, uid and
        resourceVersion.
        ``transform`` is applied to every received object before it is
        stored (transforms.py). ``resync_period``: the default of handlers
        added without one, in seconds, 0 for none. ``handler_queue_limit``:
        live notifications a handler may have waiting before it catches up
        from the cache instead (processor.py); None for unbounded.
        Raises ValueError (SelectorError) for a label selector that does not
        parse, and for bad resource names, projections, indexers, periods
        or limits."""
        if projection not in pb.Projection.values():
            raise ValueError("projection: unknown value %r; use "
                             "pb.PROJECTION_FULL or pb.PROJECTION_METADATA"
                             % (projection,))
        if isinstance(fields, str):
            raise ValueError("fields: must be a sequence of field paths, "
                             "not a str")
        if isinstance(resource, str):
            resource = parse_resource(resource)
        parse_label_selector(label_selector)  # Fail here, not in a retry loop.
        self._stub = pb_grpc.CacheStub(channel)
        self._server = server_of(channel)
        self._request = pb.WatchRequest(
            resource=resource, namespace=namespace,
            label_selector=label_selector, field_selector=field_selector,
            allow_bookmarks=True, projection=projection, fields=list(fields))
        self._store = Store(indexers)
        self._lister = Lister(self._store)
        self._transform = transform
        self._processor = SharedProcessor(self._store, resync_period,
                                          handler_queue_limit)
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

    @property
    def request(self) -> "pb.WatchRequest":
        """A copy of the Watch request this informer makes."""
        request = pb.WatchRequest()
        request.CopyFrom(self._request)
        return request

    def add_event_handler(self, handler: ResourceEventHandler,
                          resync_period: Optional[float] = None
                          ) -> HandlerRegistration:
        """Adds ``handler``, before or after start(), with its own queue and
        thread. On a synced informer it first gets every cached object as
        an add (sorted by key) and ``on_synced``, then live changes, in
        order; otherwise the initial listing's adds and ``on_synced`` when
        the informer syncs. ``resync_period`` (seconds; None: the
        informer's, 0: none): how often it gets every cached object as an
        update with ``old is new``, as client-go's
        AddEventHandlerWithResyncPeriod. Raises RuntimeError after stop()."""
        return self._processor.add(handler, resync_period)

    def remove_event_handler(self, registration: HandlerRegistration,
                             timeout: Optional[float] = None) -> None:
        """No call of the handler starts after this returns; waits (up to
        ``timeout``) for the one running, unless called from that handler.
        Its queue is dropped. Removing it twice does nothing."""
        self._processor.remove(registration, timeout)

    def add_indexers(self, indexers: Mapping[str, IndexFunc]) -> None:
        """Adds index functions at any time, indexing what is cached.
        Raises ValueError naming an index that exists already."""
        self._store.add_indexers(indexers)

    def indexers(self) -> Mapping[str, IndexFunc]:
        """Index name -> function, with the built-in namespace index."""
        return self._store.indexers()

    @property
    def transform(self) -> Optional[Transform]:
        return self._transform

    def start(self) -> None:
        """Starts the informer's thread and its handlers' threads.
        REQUIRES: called at most once."""
        if self._thread is not None:
            raise RuntimeError("start: informer already started")
        if self._stopping.is_set():
            raise RuntimeError("start: informer stopped")
        self._thread = threading.Thread(
            target=self._run, daemon=True,
            name="informer-%s" % self._request.resource.resource)
        self._processor.start()
        self._thread.start()

    @property
    def started(self) -> bool:
        return self._thread is not None

    def stop(self, timeout: Optional[float] = None) -> None:
        """Cancels the stream, drops what is queued for handlers, and waits
        until the informer's thread and every handler's thread have
        finished (a handler's current call completes). Idempotent.
        REQUIRES: not called from a handler."""
        if self._processor.in_handler_thread():
            raise RuntimeError("stop: called from an event handler")
        self._stopping.set()
        with self._lock:
            if self._call is not None:
                self._call.cancel()
        deadline = None if timeout is None else time.monotonic() + timeout
        if self._thread is not None:
            self._thread.join(timeout)
        self._processor.stop(None if deadline is None
                             else max(0.0, deadline - time.monotonic()))

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
        """Why the last stream ended, if it ended with an error: for a gRPC
        failure an InformerError naming the server, the resource, the code
        and gRPC's details (e.g. "Connection refused", "Failed parsing
        HTTP/2", a TLS handshake failure, "resource secrets is not
        served"). Each is also logged as a warning on logger "informerd";
        the informer keeps retrying with its backoff."""
        with self._lock:
            return self._last_error

    def _run(self) -> None:
        sync = CacheSync(self._store, [self._processor], self._transform)
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
                with self._processor.lock:
                    sync.handle(event)
                if sync.synced and not self._synced.is_set():
                    self._synced.set()
            self._record_error(None)
            return None, received
        except grpc.RpcError as error:
            if not self._stopping.is_set():
                failure = InformerError(
                    self._server, request.resource.resource, error.code(),
                    error.details())
                failure.__cause__ = error
                self._record_error(failure)
                _log.warning("%s", failure)
            return error.code(), received
        except Exception as error:  # pylint: disable=broad-except
            # E.g. an unreadable token file: retried like a failed stream.
            self._record_error(error)
            _log.warning("informerd at %s: watch %s failed: %s",
                         self._server, request.resource.resource, error)
            return None, received
        finally:
            with self._lock:
                self._call = None

    def _record_error(self, error: Optional[Exception]) -> None:
        with self._lock:
            self._last_error = error
