"""The no-copy mode: reads answered by informerd, events as metadata.

A ``RemoteInformer`` watches a resource with only the fields its handlers
need (by default the metadata projection: apiVersion, kind and metadata,
which carry the key, labels, owner references and generation), and its
``lister`` answers ``get`` and ``list`` with informerd's Get and List RPCs
instead of a local copy of the whole objects. Namespaces, label and field
selectors and indexes are evaluated by the server.

**Read your events.** The informer records the highest resourceVersion it
has handed to any of its handlers (versions.py), before the handler runs;
every read asks informerd for that version or later (GetRequest's
``min_resource_version``, ListRequest's not-older-than
``resource_version``), so a read made after a handler received an event is
answered at that event's version or later, never earlier, also from a
replica that lags behind the one the watch comes from. informerd bounds the
wait; past it the read fails with UNAVAILABLE (a ``ReadError``) rather than
answering older.

**The hot cache** (``cache_size`` objects, 0: off, the default) keeps whole
objects that ``get`` fetched, least recently used out first, and serves one
only while it is the version the informer holds for its key
(hot_cache.py).

**The mask.** ``mask=None`` (or ``("metadata",)``) is the metadata
projection; any other sequence of field paths (``("metadata",
"spec.nodeName")``) is informerd's field mask (informerd.proto, "Field
masks"): handlers get, and the informer keeps, only those fields, plus
apiVersion, kind and metadata's name, namespace, uid and resourceVersion.
``_watch_shape`` maps the mask onto the WatchRequest.

Thread safety: every method may be called from any thread; ``stop`` not
from a handler.
"""

from __future__ import annotations

from typing import List, Mapping, Optional, Sequence, Tuple, Union

import grpc

from informerd.backoff import Backoff
from informerd.connection import server_of
from informerd.handlers import ResourceEventHandler
from informerd.hot_cache import HotCache
from informerd.informer import Informer
from informerd.objects import CachedObject, object_key
from informerd.processor import DEFAULT_HANDLER_QUEUE_LIMIT, \
    HandlerRegistration
from informerd.proto import pb, pb_grpc
from informerd.resource import parse_resource
from informerd.selectors import LabelSelector, parse_label_selector
from informerd.store import Lister, NAMESPACE_INDEX
from informerd.versions import VersionTracker, not_older_than

METADATA_MASK = ("metadata",)


class ReadError(grpc.RpcError):
    """A read of the no-copy mode failed: the server, the operation and
    what it read, and gRPC's code and details (``code()``, ``details()``;
    the original grpc.RpcError is ``__cause__``). UNAVAILABLE after
    informerd's bounded wait means it had not reached the read's minimum
    version (``min_resource_version``)."""

    def __init__(self, server: str, operation: str, code: grpc.StatusCode,
                 details: str, min_resource_version: str = "") -> None:
        super().__init__("informerd at %s: %s: %s: %s"
                         % (server, operation, code.name, details))
        self.server, self.operation = server, operation
        self.min_resource_version = min_resource_version
        self._code, self._details = code, details

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details

    def __str__(self) -> str:
        return self.args[0]


class ObjectList(list):
    """A list of CachedObject (sorted by key) and ``resource_version``, the
    version of the snapshot informerd answered from."""

    def __init__(self, items=(), resource_version: str = "") -> None:
        super().__init__(items)
        self.resource_version = resource_version


def _watch_shape(mask: Optional[Sequence[str]]) -> Tuple[int, Tuple[str, ...]]:
    """The WatchRequest projection and field mask for the handlers' ``mask``.

    None or ("metadata",): the metadata projection, no mask. Any other
    paths: the whole-object projection narrowed by the mask, which informerd
    checks against the resource's schema (a path naming no field fails the
    watch with INVALID_ARGUMENT naming it)."""
    if mask is None:
        return pb.PROJECTION_METADATA, ()
    if isinstance(mask, str):
        raise ValueError("mask: must be a sequence of field paths, not a str")
    paths = tuple(mask)
    if paths == METADATA_MASK:
        return pb.PROJECTION_METADATA, ()
    if not paths:
        raise ValueError("mask: no paths; name at least one field "
                         "(\"metadata\" for metadata only)")
    for i, path in enumerate(paths):
        if not isinstance(path, str) or not path:
            raise ValueError("mask[%d]: %r is not a field path such as "
                             "\"spec.nodeName\"" % (i, path))
    return pb.PROJECTION_FULL, paths


class RemoteLister:
    """Lister reads answered by informerd's Get and List.

    The methods of ``store.Lister`` (``get``, ``get_by_key``, ``list``,
    ``by_index``, ``index_keys``), with whole objects by default
    (``projection``). Every read asks for at least ``versions.version``
    and the ``resource_version`` given to it (e.g. the version a write of
    the caller returned). A failed read raises ``ReadError``; bad
    arguments raise ValueError (``SelectorError`` for a label selector)."""

    def __init__(self, channel: grpc.Channel,
                 resource: Union[str, "pb.ResourceName"], *,
                 versions: Optional[VersionTracker] = None,
                 cache: Optional[HotCache] = None,
                 projection: int = pb.PROJECTION_FULL,
                 timeout: Optional[float] = None) -> None:
        """``channel`` from informerd.connect, open while reads are made.
        ``timeout``: seconds per RPC (None: the channel's default)."""
        if projection not in pb.Projection.values():
            raise ValueError("projection: unknown value %r" % (projection,))
        if isinstance(resource, str):
            resource = parse_resource(resource)
        self._stub = pb_grpc.CacheStub(channel)
        self._server = server_of(channel)
        self._resource = resource
        self._versions = versions or VersionTracker()
        self._cache = cache
        self._projection = projection
        self._timeout = timeout

    @property
    def versions(self) -> VersionTracker:
        return self._versions

    @property
    def cache(self) -> Optional[HotCache]:
        return self._cache

    def _failed(self, error: grpc.RpcError, operation: str,
                minimum: str) -> ReadError:
        failure = ReadError(self._server, operation, error.code(),
                            error.details(), minimum)
        failure.__cause__ = error
        return failure

    def get(self, namespace: str, name: str, *,
            resource_version: str = "") -> Optional[CachedObject]:
        """The object, or None when informerd has no such object at the
        minimum version or later. Namespace "" for cluster-scoped ones."""
        if not name:
            raise ValueError("name: must not be empty")
        key = object_key(namespace, name)
        minimum = not_older_than(self._versions.version, resource_version)
        if self._cache is not None and not resource_version:
            hit = self._cache.get(key)
            if hit is not None:
                return hit
        request = pb.GetRequest(resource=self._resource, namespace=namespace,
                                name=name, min_resource_version=minimum,
                                projection=self._projection)
        try:
            response = self._stub.Get(request, timeout=self._timeout)
        except grpc.RpcError as error:
            # The object's NOT_FOUND ("... \"name\" not found"), not the
            # resource's ("resource x is not served").
            if error.code() == grpc.StatusCode.NOT_FOUND and \
                    (error.details() or "").endswith("not found"):
                return None
            raise self._failed(error, "get %s %s" % (
                self._resource.resource, key), minimum) from error
        obj = CachedObject.from_proto(response.object)
        if self._cache is not None and \
                self._projection == pb.PROJECTION_FULL:
            self._cache.put(obj)
        return obj

    def get_by_key(self, key: str, *, resource_version: str = ""
                   ) -> Optional[CachedObject]:
        namespace, _, name = key.rpartition("/")
        return self.get(namespace, name, resource_version=resource_version)

    def list(self, selector: Union[str, LabelSelector] = "",
             namespace: Optional[str] = None, *, field_selector: str = "",
             resource_version: str = "") -> ObjectList:
        """Objects matching the label ``selector`` (text; parsed here so
        that a bad one raises SelectorError before any RPC) and
        ``field_selector``, in ``namespace`` if given, sorted by key."""
        if isinstance(selector, LabelSelector):
            raise ValueError("selector: pass the selector's text; it is "
                             "evaluated by informerd")
        parse_label_selector(selector)
        return self._list(namespace or "", selector, field_selector, "", "",
                          resource_version)

    def by_index(self, index_name: str, value: str, *,
                 resource_version: str = "") -> ObjectList:
        """Objects whose value for informerd's index ``index_name`` is
        ``value`` (the built-in "namespace" or a field index configured in
        informerd, e.g. "spec.nodeName"); an unknown index raises ReadError
        (INVALID_ARGUMENT)."""
        if not index_name:
            raise ValueError("index_name: must not be empty")
        if index_name == NAMESPACE_INDEX:
            return self._list(value, "", "", "", "", resource_version)
        return self._list("", "", "", index_name, value, resource_version)

    def index_keys(self, index_name: str, value: str) -> List[str]:
        return [o.key for o in self.by_index(index_name, value)]

    def _list(self, namespace: str, label_selector: str, field_selector: str,
              index_name: str, index_value: str,
              resource_version: str) -> ObjectList:
        minimum = not_older_than(self._versions.version, resource_version)
        request = pb.ListRequest(
            resource=self._resource, namespace=namespace,
            label_selector=label_selector, field_selector=field_selector,
            index_name=index_name, index_value=index_value,
            resource_version=minimum, projection=self._projection)
        items: List[CachedObject] = []
        version = ""
        while True:
            try:
                response = self._stub.List(request, timeout=self._timeout)
            except grpc.RpcError as error:
                raise self._failed(error, "list %s%s" % (
                    self._resource.resource,
                    " in " + namespace if namespace else ""),
                    minimum) from error
            version = version or response.resource_version
            items.extend(CachedObject.from_proto(o) for o in response.items)
            if not response.continue_token:
                break
            request.continue_token = response.continue_token
        items.sort(key=lambda o: o.key)
        return ObjectList(items, version)


class _Delivered(ResourceEventHandler):
    """Wraps a handler: before each call, the object's version goes into
    the tracker and its key out of the hot cache."""

    def __init__(self, handler: ResourceEventHandler,
                 versions: VersionTracker, cache: Optional[HotCache]) -> None:
        self.handler = handler
        self._versions = versions
        self._cache = cache

    def _deliver(self, obj: CachedObject) -> None:
        self._versions.observe(obj.resource_version)
        if self._cache is not None:
            self._cache.invalidate(obj.key)

    def on_add(self, obj: CachedObject) -> None:
        self._deliver(obj)
        self.handler.on_add(obj)

    def on_update(self, old: CachedObject, new: CachedObject) -> None:
        self._deliver(new)
        self.handler.on_update(old, new)

    def on_delete(self, obj: CachedObject, final_state_unknown: bool) -> None:
        self._deliver(obj)
        self.handler.on_delete(obj, final_state_unknown)

    def on_synced(self) -> None:
        self.handler.on_synced()


class RemoteInformer:
    """An informer of metadata-only events whose ``lister`` reads from
    informerd. See the module docstring; a context manager (start/stop)."""

    def __init__(self, channel: grpc.Channel,
                 resource: Union[str, "pb.ResourceName"], *,
                 namespace: str = "", label_selector: str = "",
                 field_selector: str = "",
                 mask: Optional[Sequence[str]] = None,
                 cache_size: int = 0,
                 resync_period: float = 0.0,
                 handler_queue_limit: Optional[int] =
                 DEFAULT_HANDLER_QUEUE_LIMIT,
                 read_timeout: Optional[float] = None,
                 backoff: Optional[Backoff] = None) -> None:
        """``namespace``, ``label_selector``, ``field_selector``: what the
        watch delivers (reads are not limited to it). ``mask``: the fields
        handlers get (see _watch_shape). ``cache_size``: objects kept
        by the hot cache, 0 for none. The rest as for Informer."""
        if isinstance(resource, str):
            resource = parse_resource(resource)
        projection, fields = _watch_shape(mask)
        self._informer = Informer(
            channel, resource, namespace=namespace,
            label_selector=label_selector, field_selector=field_selector,
            projection=projection, fields=fields, resync_period=resync_period,
            handler_queue_limit=handler_queue_limit, backoff=backoff)
        self._versions = VersionTracker()
        if isinstance(cache_size, bool) or not isinstance(cache_size, int) \
                or cache_size < 0:
            raise ValueError("cache_size: must be a number of objects >= 0, "
                             "got %r" % (cache_size,))
        metadata = self._informer.lister
        self._cache = HotCache(cache_size, lambda key: _version_of(
            metadata, key)) if cache_size else None
        self._lister = RemoteLister(channel, resource,
                                    versions=self._versions,
                                    cache=self._cache, timeout=read_timeout)

    @property
    def lister(self) -> RemoteLister:
        """Reads answered by informerd (whole objects)."""
        return self._lister

    @property
    def metadata(self) -> Lister:
        """The metadata-only objects the informer holds for its handlers
        (their old/new objects and relist diffs)."""
        return self._informer.lister

    @property
    def versions(self) -> VersionTracker:
        """The highest version handed to handlers; every read's minimum."""
        return self._versions

    @property
    def cache(self) -> Optional[HotCache]:
        return self._cache

    @property
    def request(self) -> "pb.WatchRequest":
        return self._informer.request

    def add_event_handler(self, handler: ResourceEventHandler,
                          resync_period: Optional[float] = None
                          ) -> HandlerRegistration:
        """As Informer.add_event_handler; the handler gets metadata-only
        objects (``informerd.decode(obj)["metadata"]``)."""
        return self._informer.add_event_handler(
            _Delivered(handler, self._versions, self._cache), resync_period)

    def remove_event_handler(self, registration: HandlerRegistration,
                             timeout: Optional[float] = None) -> None:
        self._informer.remove_event_handler(registration, timeout)

    def start(self) -> None:
        self._informer.start()

    def stop(self, timeout: Optional[float] = None) -> None:
        self._informer.stop(timeout)

    def __enter__(self) -> "RemoteInformer":
        self.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def has_synced(self) -> bool:
        return self._informer.has_synced()

    def wait_for_sync(self, timeout: Optional[float] = None) -> bool:
        return self._informer.wait_for_sync(timeout)

    @property
    def last_error(self) -> Optional[Exception]:
        return self._informer.last_error


def _version_of(metadata: Lister, key: str) -> Optional[str]:
    obj = metadata.get_by_key(key)
    return None if obj is None else obj.resource_version
