"""SharedInformerFactory: one informer per key, shared by a whole process.

As client-go's SharedInformerFactory: every component of a program asks the
factory for the informer it needs; those asking for the same key get the
same Informer, hence one Watch stream and one cache however many handlers
are added. An informer is created on its first request and started by the
next ``start()``; ``wait_for_cache_sync`` reports each started informer's
state; ``shutdown`` stops them all and returns when no handler runs.

    factory = informerd.SharedInformerFactory(channel, default_resync_period=300)
    pods = factory.informer("pods", namespace="shop")
    pods.add_event_handler(handler)
    factory.start()
    if not all(factory.wait_for_cache_sync(30).values()): ...
    ...
    factory.shutdown()
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Callable, Dict, List, Mapping, Optional, Union

import grpc

from informerd.backoff import Backoff
from informerd.informer import Informer
from informerd.processor import DEFAULT_HANDLER_QUEUE_LIMIT
from informerd.proto import pb
from informerd.resource import parse_resource
from informerd.store import IndexFunc
from informerd.transforms import Transform


@dataclass(frozen=True)
class InformerKey:
    """What makes two informers the same. ``resource`` is
    "group/version/resource" as requested (parsed and lower-cased, so
    "Deployments.apps" and "deployments.apps" agree, but "v1/pods" and
    "pods" do not); ``transform`` compares by identity, so pass the same
    function object (e.g. a module-level function) to share an informer.
    ``projection`` is part of the key because it changes what is cached."""

    resource: str
    namespace: str = ""
    label_selector: str = ""
    field_selector: str = ""
    transform: Optional[Transform] = None
    projection: int = pb.PROJECTION_FULL


class SharedInformerFactory:
    """Creates, shares, starts and stops informers on one channel.

    Thread-safe: every method may be called from any thread, also while
    others run; ``shutdown`` not from a handler. The channel is the
    caller's, open until shutdown() has returned.
    """

    def __init__(self, channel: grpc.Channel, *,
                 default_resync_period: float = 0.0,
                 handler_queue_limit: Optional[int] =
                 DEFAULT_HANDLER_QUEUE_LIMIT,
                 backoff: Optional[Callable[[], Backoff]] = None) -> None:
        """``default_resync_period``: seconds, 0 for none; the resync period
        of informers requested without one (and so of their handlers added
        without one). ``handler_queue_limit``: see processor.py.
        ``backoff``: makes each informer's Backoff (tests shorten it)."""
        if default_resync_period < 0:
            raise ValueError("default_resync_period: must be 0 or positive")
        self._channel = channel
        self._default_resync_period = default_resync_period
        self._handler_queue_limit = handler_queue_limit
        self._backoff = backoff
        self._lock = threading.Lock()
        self._informers: Dict[InformerKey, Informer] = {}  # Guarded by _lock.
        self._started: List[InformerKey] = []              # Guarded by _lock.
        self._shut_down = False                             # Guarded by _lock.

    def informer(self, resource: Union[str, "pb.ResourceName"], *,
                 namespace: str = "", label_selector: str = "",
                 field_selector: str = "",
                 transform: Optional[Transform] = None,
                 projection: int = pb.PROJECTION_FULL,
                 resync_period: Optional[float] = None,
                 indexers: Optional[Mapping[str, IndexFunc]] = None
                 ) -> Informer:
        """The informer for this key, created on the first request.

        ``resync_period`` (seconds; None: the factory's default) applies
        when this call creates the informer, as in client-go, where the
        first InformerFor wins. ``indexers`` are added to the informer if
        missing; an index name the informer has with another function raises
        ValueError. Raises RuntimeError after shutdown(), and ValueError for
        arguments Informer refuses."""
        if isinstance(resource, str):
            resource = parse_resource(resource)
        key = InformerKey(
            "%s/%s/%s" % (resource.group, resource.version, resource.resource),
            namespace, label_selector, field_selector, transform, projection)
        with self._lock:
            if self._shut_down:
                raise RuntimeError("informer: factory is shut down")
            informer = self._informers.get(key)
            if informer is None:
                informer = Informer(
                    self._channel, resource, namespace=namespace,
                    label_selector=label_selector,
                    field_selector=field_selector, projection=projection,
                    transform=transform,
                    resync_period=(self._default_resync_period
                                   if resync_period is None
                                   else resync_period),
                    handler_queue_limit=self._handler_queue_limit,
                    backoff=self._backoff() if self._backoff else None)
                self._informers[key] = informer
            if indexers:
                present = informer.indexers()
                conflicting = [name for name, func in indexers.items()
                               if name in present and present[name] != func]
                if conflicting:
                    raise ValueError(
                        "indexers: %s already defined with another function"
                        % ", ".join(repr(n) for n in sorted(conflicting)))
                missing = {name: func for name, func in indexers.items()
                           if name not in present}
                if missing:
                    informer.add_indexers(missing)
            return informer

    def informers(self) -> Dict[InformerKey, Informer]:
        """Every informer requested so far, by key."""
        with self._lock:
            return dict(self._informers)

    def start(self) -> None:
        """Starts every informer not started yet; call again after
        requesting more. Raises RuntimeError after shutdown()."""
        with self._lock:
            if self._shut_down:
                raise RuntimeError("start: factory is shut down")
            for key, informer in self._informers.items():
                if key not in self._started:
                    informer.start()
                    self._started.append(key)

    def wait_for_cache_sync(self, timeout: Optional[float] = None
                            ) -> Dict[InformerKey, bool]:
        """Waits until every started informer has synced, or ``timeout``
        seconds in all; returns each started informer's has_synced()."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            started = {key: self._informers[key] for key in self._started}
        result = {}
        for key, informer in started.items():
            remaining = (None if deadline is None
                         else max(0.0, deadline - time.monotonic()))
            result[key] = informer.wait_for_sync(remaining)
        return result

    def shutdown(self, timeout: Optional[float] = None) -> None:
        """Stops every informer and waits (up to ``timeout`` in all) until
        their streams are closed and no handler runs; queued notifications
        are dropped. Later calls of informer() and start() raise; a second
        shutdown() does nothing more. REQUIRES: not called from a
        handler."""
        with self._lock:
            self._shut_down = True
            informers = list(self._informers.values())
        deadline = None if timeout is None else time.monotonic() + timeout
        for informer in informers:
            informer.stop(None if deadline is None
                          else max(0.0, deadline - time.monotonic()))

    def __enter__(self) -> "SharedInformerFactory":
        return self

    def __exit__(self, *exc_info) -> None:
        self.shutdown()
