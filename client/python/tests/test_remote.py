"""The no-copy mode's client side against an in-process server: what the
reads ask informerd for (minimum versions, selectors, namespaces,
indexes), the metadata mask, typed errors and the hot cache. The same
behaviour against a real informerd: test_remote_live.py."""

import threading
from concurrent import futures

import grpc
import pytest

from informerd import (HandlerFuncs, HotCache, ReadError, RemoteInformer,
                       RemoteLister, VersionTracker, connect,
                       ConnectionOptions, pb, pb_grpc)
from informerd.objects import CachedObject
from fake_server import ScriptedCache


class ReadServer(ScriptedCache):
    """Scripted watches (ScriptedCache), and Get/List answered from
    ``objects`` (key -> pb.Object) at ``version``, recording each request."""

    def __init__(self, scripts=()):
        super().__init__(list(scripts))
        self.objects = {}
        self.version = "100"
        self.gets, self.lists = [], []
        self.fail_with = None  # (code, details) for every Get.

    def Get(self, request, context):
        self.gets.append(request)
        if self.fail_with is not None:
            context.abort(*self.fail_with)
        key = "%s/%s" % (request.namespace, request.name)
        if key not in self.objects:
            context.abort(grpc.StatusCode.NOT_FOUND,
                          'configmaps "%s" not found' % request.name)
        return pb.GetResponse(object=self.objects[key],
                              resource_version=self.version)

    def List(self, request, context):
        self.lists.append(request)
        items = sorted(self.objects.items())
        if not request.continue_token and len(items) > 1:
            # Two pages, so that paging is exercised.
            return pb.ListResponse(items=[items[0][1]],
                                   resource_version=self.version,
                                   continue_token="page2")
        rest = items[1:] if request.continue_token else items
        return pb.ListResponse(items=[o for _, o in rest],
                               resource_version=self.version)


def _object(namespace, name, version, json=b'{"data":{}}'):
    return pb.Object(namespace=namespace, name=name,
                     resource_version=version, json=json)


@pytest.fixture
def read_server():
    servers = []

    def start(scripts=()):
        servicer = ReadServer(scripts)
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
        pb_grpc.add_CacheServicer_to_server(servicer, server)
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        channel = connect(ConnectionOptions(["127.0.0.1:%d" % port]))
        servers.append((servicer, server, channel))
        return servicer, channel

    yield start
    for servicer, server, channel in servers:
        servicer.close()
        channel.close()
        server.stop(0)


def test_reads_ask_for_the_tracked_version_or_a_later_given_one(read_server):
    server, channel = read_server()
    server.objects["ns/a"] = _object("ns", "a", "7")
    versions = VersionTracker()
    lister = RemoteLister(channel, "configmaps", versions=versions)
    assert lister.get("ns", "a").resource_version == "7"
    assert server.gets[-1].min_resource_version == ""
    versions.observe("42")
    versions.observe("30")  # Never lowers it.
    lister.get("ns", "a")
    assert server.gets[-1].min_resource_version == "42"
    lister.get("ns", "a", resource_version="50")
    assert server.gets[-1].min_resource_version == "50"
    lister.get("ns", "a", resource_version="9")
    assert server.gets[-1].min_resource_version == "42"
    listed = lister.list(namespace="ns")
    assert [o.key for o in listed] == ["ns/a"]
    assert listed.resource_version == "100"
    assert server.lists[-1].resource_version == "42"


def test_every_page_of_a_list_keeps_its_minimum(read_server):
    server, channel = read_server()
    for name in ("a", "b", "c"):
        server.objects["ns/" + name] = _object("ns", name, "5")
    versions = VersionTracker()
    versions.observe("61")
    listed = RemoteLister(channel, "configmaps", versions=versions).list()
    assert [o.key for o in listed] == ["ns/a", "ns/b", "ns/c"]
    assert [(r.resource_version, r.continue_token) for r in server.lists] \
        == [("61", ""), ("61", "page2")]


def test_selectors_namespaces_and_indexes_go_to_the_server(read_server):
    server, channel = read_server()
    lister = RemoteLister(channel, "v1/pods")
    lister.list("app in (web,api),!canary", namespace="shop",
                field_selector="spec.nodeName=n1")
    request = server.lists[-1]
    assert (request.resource.version, request.resource.resource) == \
        ("v1", "pods")
    assert (request.namespace, request.label_selector,
            request.field_selector) == \
        ("shop", "app in (web,api),!canary", "spec.nodeName=n1")
    assert request.projection == pb.PROJECTION_FULL
    lister.by_index("spec.nodeName", "n2")
    assert (server.lists[-1].index_name, server.lists[-1].index_value,
            server.lists[-1].namespace) == ("spec.nodeName", "n2", "")
    lister.by_index("namespace", "shop")
    assert (server.lists[-1].index_name, server.lists[-1].namespace) == \
        ("", "shop")
    with pytest.raises(ValueError, match="selector"):
        lister.list("app in (web")
    assert len(server.lists) == 3


def test_not_found_is_none_and_other_failures_are_read_errors(read_server):
    server, channel = read_server()
    lister = RemoteLister(channel, "configmaps")
    assert lister.get("ns", "missing") is None
    server.fail_with = (grpc.StatusCode.UNAVAILABLE,
                        "cache is 3 versions behind 42")
    with pytest.raises(ReadError) as raised:
        lister.get("ns", "a")
    assert raised.value.code() == grpc.StatusCode.UNAVAILABLE
    assert "get configmaps ns/a" in str(raised.value)
    assert "behind 42" in str(raised.value)
    server.fail_with = (grpc.StatusCode.NOT_FOUND,
                        "resource secrets is not served")
    with pytest.raises(ReadError) as raised:
        lister.get("ns", "a")
    assert raised.value.code() == grpc.StatusCode.NOT_FOUND
    with pytest.raises(ValueError, match="name"):
        lister.get("ns", "")


def test_handlers_get_metadata_and_the_version_is_tracked_before_they_run(
        read_server):
    initial = [pb.WatchEvent(type=pb.WatchEvent.ADDED,
                             object=_object("ns", "a", "11")),
               pb.WatchEvent(type=pb.WatchEvent.BOOKMARK,
                             resource_version="11", initial_events_end=True),
               pb.WatchEvent(type=pb.WatchEvent.MODIFIED,
                             object=_object("ns", "a", "15"),
                             resource_version="15")]
    server, channel = read_server([(initial, None)])
    seen, done = [], threading.Event()
    with RemoteInformer(channel, "configmaps", namespace="ns") as informer:
        def record(obj):
            seen.append((obj.resource_version, informer.versions.version))
            if obj.resource_version == "15":
                done.set()
        informer.add_event_handler(HandlerFuncs(
            on_add=record, on_update=lambda old, new: record(new)))
        assert done.wait(10)
        assert server.requests[0].projection == pb.PROJECTION_METADATA
        assert server.requests[0].namespace == "ns"
        assert seen == [("11", "11"), ("15", "15")]
        server.objects["ns/a"] = _object("ns", "a", "15")
        informer.lister.get("ns", "a")
        assert server.gets[-1].min_resource_version == "15"


def test_a_mask_becomes_the_watch_request(read_server):
    _, channel = read_server()
    for mask in (None, ["metadata"], ("metadata",)):
        request = RemoteInformer(channel, "configmaps", mask=mask).request
        assert request.projection == pb.PROJECTION_METADATA
        assert list(request.fields) == []
    request = RemoteInformer(channel, "pods",
                             mask=["metadata", "spec.nodeName"]).request
    assert request.projection == pb.PROJECTION_FULL
    assert list(request.fields) == ["metadata", "spec.nodeName"]
    with pytest.raises(ValueError, match="not a str"):
        RemoteInformer(channel, "pods", mask="spec.nodeName")
    with pytest.raises(ValueError, match=r"mask\[1\]: '' is not a field path"):
        RemoteInformer(channel, "pods", mask=["spec.nodeName", ""])
    with pytest.raises(ValueError, match="no paths"):
        RemoteInformer(channel, "pods", mask=[])
    with pytest.raises(ValueError, match="cache_size"):
        RemoteInformer(channel, "pods", cache_size=-1)


def _cached(key, version):
    namespace, name = key.split("/")
    return CachedObject(namespace=namespace, name=name,
                        resource_version=version)


def test_hot_cache_evicts_the_least_recently_used():
    current = {"n/a": "1", "n/b": "1", "n/c": "1"}
    cache = HotCache(2, current.get)
    cache.put(_cached("n/a", "1"))
    cache.put(_cached("n/b", "1"))
    assert cache.get("n/a").resource_version == "1"  # a is now the newest.
    cache.put(_cached("n/c", "1"))
    assert cache.keys() == ["n/a", "n/c"]
    assert (cache.evictions, cache.hits) == (1, 1)
    assert cache.get("n/b") is None


def test_hot_cache_serves_only_the_informers_current_version():
    current = {"n/a": "1"}
    cache = HotCache(4, current.get)
    cache.put(_cached("n/a", "1"))
    cache.put(_cached("n/x", "1"))  # Not watched: never cached.
    cache.put(_cached("n/a", "0"))  # Older than the informer's: not cached.
    assert cache.keys() == ["n/a"]
    current["n/a"] = "2"            # An event the handlers may not have yet.
    assert cache.get("n/a") is None
    assert cache.invalidations == 1 and len(cache) == 0
    cache.put(_cached("n/a", "2"))
    cache.invalidate("n/a")
    assert len(cache) == 0
    with pytest.raises(ValueError, match="cache_size"):
        HotCache(0, current.get)
