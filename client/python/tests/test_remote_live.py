"""The no-copy mode (RemoteInformer) against real informerd processes and
the kube-apiserver: read your events under writes, from a replica that lags
behind the one the watch comes from; selectors and namespaces evaluated by
informerd; metadata-only events; the hot cache. Fails, rather than skips,
without the control plane's environment (live_env.py)."""

import contextlib
import json
import os
import sys
import threading
import urllib.parse

import grpc
import pytest

from informerd import (ConnectionOptions, HotCache, ReadError, RemoteInformer,
                       RemoteLister, ResourceEventHandler, connect, decode,
                       pb, pb_grpc)
from live_env import (_REPO, TIMEOUT, InformerdProcess, configmap,
                      live_cluster, required_env)

sys.path.insert(0, os.path.join(_REPO, "tests", "chaos"))
from fault_proxy import FaultProxy  # noqa: E402  pylint: disable=wrong-import-position


def _proxied_kubeconfig(directory, proxy):
    """$KUBECONFIG with its server behind ``proxy`` (same TLS names)."""
    url = urllib.parse.urlparse(required_env("INFORMERD_APISERVER_URL"))
    with open(required_env("KUBECONFIG")) as original:
        text = original.read()
    line = "server: %s://%s" % (url.scheme, url.netloc)
    assert line in text, "KUBECONFIG has no line %r" % line
    path = os.path.join(directory, "proxied.kubeconfig")
    with open(path, "w") as proxied:
        proxied.write(text.replace(
            line, "server: https://127.0.0.1:%d" % proxy.port))
    return path


@contextlib.contextmanager
def lagging_replica(log_dir):
    """A second informerd whose apiserver connection goes through a
    FaultProxy, and a channel to it: (proxy, process, channel)."""
    url = urllib.parse.urlparse(required_env("INFORMERD_APISERVER_URL"))
    proxy = FaultProxy(url.hostname, url.port)
    replica = InformerdProcess(log_dir, _proxied_kubeconfig(log_dir, proxy),
                               name="informerd-replica")
    replica.start()
    channel = connect(ConnectionOptions([replica.grpc_address]))
    try:
        yield proxy, replica, channel
    finally:
        proxy.set_stalled(False)
        channel.close()
        replica.stop()


def _rv(version):
    return int(version)


class ReadYourEvents(ResourceEventHandler):
    """For every event, reads through ``lister`` and records each answer
    older than the event (``violations``); ``control`` reads the same key
    without a minimum version, to show that the oracle would fail without
    one (``stale_without_minimum``)."""

    def __init__(self, lister, namespace, control):
        self.lister, self.namespace, self.control = lister, namespace, control
        self.violations, self.checked = [], 0
        self.stale_without_minimum = 0
        # key -> version of a read that found no object after an event at
        # that version: a delete of the key must follow in the events.
        self.awaiting_delete = {}
        self._events = 0
        self._seen = 0
        self._progress = threading.Condition()

    def wait_for_version(self, version, timeout=TIMEOUT):
        """Waits until an event at ``version`` or later has been checked."""
        with self._progress:
            return self._progress.wait_for(
                lambda: self._seen >= _rv(version), timeout)

    def _control_version(self, name):
        try:
            return _rv(self.control.Get(pb.GetRequest(
                resource=pb.ResourceName(resource="configmaps"),
                namespace=self.namespace, name=name)).object.resource_version)
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.NOT_FOUND, error
            return None

    def _check(self, obj, deleted):
        try:
            self._check_reads(obj, deleted)
        except ReadError as error:
            self.violations.append("read after event %s of %s failed: %s"
                                   % (obj.resource_version, obj.key, error))
        with self._progress:
            self._seen = max(self._seen, _rv(obj.resource_version))
            self._progress.notify_all()

    def _check_reads(self, obj, deleted):
        version = _rv(obj.resource_version)
        self._events += 1
        control = self._control_version(obj.name)
        got = self.lister.get(obj.namespace, obj.name)
        listed = None
        if self._events % 4 == 0:
            listed = self.lister.list(namespace=self.namespace)
            if _rv(listed.resource_version) < version:
                self.violations.append("list at %s after event %s of %s" % (
                    listed.resource_version, version, obj.key))
        answers = [("get", got)]
        if listed is not None:
            answers.append(("list", next(
                (o for o in listed if o.key == obj.key), None)))
        for read, answer in answers:
            if deleted:
                # Gone, or created again since: never the deleted state.
                if answer is not None and _rv(answer.resource_version) <= \
                        version:
                    self.violations.append("%s of %s at %s after its delete "
                                           "at %s" % (read, obj.key,
                                                      answer.resource_version,
                                                      version))
            elif answer is None:
                self.awaiting_delete.setdefault(obj.key, version)
            elif _rv(answer.resource_version) < version:
                self.violations.append("%s of %s at %s after event %s" % (
                    read, obj.key, answer.resource_version, version))
        if deleted:
            if control is not None and control <= version:
                self.stale_without_minimum += 1
        elif control is None or control < version:
            self.stale_without_minimum += 1
        self.checked += 1

    def on_add(self, obj):
        self._check(obj, False)

    def on_update(self, old, new):
        self._check(new, False)

    def on_delete(self, obj, final_state_unknown):
        self.awaiting_delete.pop(obj.key, None)
        self._check(obj, True)


class Writer(threading.Thread):
    """Updates its ConfigMaps round-robin; every fifth write deletes one and
    creates it again."""

    def __init__(self, apiserver, namespace, names, writes):
        super().__init__(daemon=True)
        self.apiserver, self.namespace = apiserver, namespace
        self.names, self.writes = names, writes
        self.last_version = ""
        self.error = None

    def run(self):
        base = "/api/v1/namespaces/%s/configmaps" % self.namespace
        try:
            for i in range(self.writes):
                name = self.names[i % len(self.names)]
                if i % 5 == 4:
                    self.apiserver.call("DELETE", base + "/" + name)
                    written = self.apiserver.call(
                        "POST", base, configmap(name, str(i)))
                else:
                    written = self.apiserver.call(
                        "PUT", base + "/" + name, configmap(name, str(i)))
                self.last_version = written["metadata"]["resourceVersion"]
        except Exception as error:  # pylint: disable=broad-except
            self.error = error


@pytest.mark.parametrize("cache_size", [0, 3])
def test_reads_follow_events_from_a_lagging_replica_under_writes(
        tmp_path, cache_size):
    with live_cluster(str(tmp_path)) as (apiserver, informerd, namespace), \
            lagging_replica(str(tmp_path)) as (proxy, _, replica_channel), \
            connect(ConnectionOptions([informerd.grpc_address])) as channel:
        names = ["cm-%d" % i for i in range(6)]
        for name in names:
            apiserver.call("POST", "/api/v1/namespaces/%s/configmaps"
                           % namespace, configmap(name, "initial"))
        # Every chunk from the apiserver to the replica waits 0..20 ms: its
        # cache trails the watch's by that much.
        proxy.set_delay(20)
        informer = RemoteInformer(channel, "configmaps", namespace=namespace,
                                  handler_queue_limit=None)
        cache = HotCache(cache_size, lambda key: getattr(
            informer.metadata.get_by_key(key), "resource_version", None)) \
            if cache_size else None
        reads = RemoteLister(replica_channel, "configmaps",
                             versions=informer.versions, cache=cache)
        oracle = ReadYourEvents(reads, namespace,
                                pb_grpc.CacheStub(replica_channel))
        informer.add_event_handler(oracle)
        with informer:
            assert informer.wait_for_sync(TIMEOUT)
            writers = [Writer(apiserver, namespace, names[i::2], 60)
                       for i in range(2)]
            for writer in writers:
                writer.start()
            for writer in writers:
                writer.join(TIMEOUT)
                assert writer.error is None, writer.error
            # A last write the oracle's handler must see before the end.
            last = apiserver.call(
                "PUT", "/api/v1/namespaces/%s/configmaps/%s"
                % (namespace, names[0]), configmap(names[0], "last")
            )["metadata"]["resourceVersion"]
            assert oracle.wait_for_version(last)
        print("read-your-events (cache %d): %d events checked, %d reads "
              "without a minimum were older than their event%s"
              % (cache_size, oracle.checked, oracle.stale_without_minimum,
                 "" if cache is None else "; cache hits %d, misses %d"
                 % (cache.hits, cache.misses)))
        assert oracle.violations == []
        assert oracle.awaiting_delete == {}
        assert oracle.checked >= 120
        # The replica did lag: without the minimum the reads were stale.
        assert oracle.stale_without_minimum > 0


class Events(ResourceEventHandler):
    """Every object handed to the handler, and a condition to wait on."""

    def __init__(self):
        self.objects, self.deleted = [], []
        self._changed = threading.Condition()

    def _record(self, obj, deleted=False):
        with self._changed:
            self.objects.append(obj)
            if deleted:
                self.deleted.append(obj.key)
            self._changed.notify_all()

    def on_add(self, obj):
        self._record(obj)

    def on_update(self, old, new):
        self._record(new)

    def on_delete(self, obj, final_state_unknown):
        self._record(obj, deleted=True)

    def wait_for_keys(self, keys, timeout=TIMEOUT):
        with self._changed:
            return self._changed.wait_for(lambda: set(keys) <= {
                o.key for o in self.objects}, timeout)

    def wait_for_delete(self, key, timeout=TIMEOUT):
        with self._changed:
            return self._changed.wait_for(lambda: key in self.deleted,
                                          timeout)

    def wait_for(self, name, version, timeout=TIMEOUT):
        with self._changed:
            return self._changed.wait_for(lambda: any(
                o.name == name and _rv(o.resource_version) >= _rv(version)
                for o in self.objects), timeout)


def test_a_lagging_replica_answers_late_rather_than_older(tmp_path):
    """The oracle's other half: while the replica cannot reach the event's
    version, a read without a minimum is older than the event, and the
    lister's read fails with UNAVAILABLE instead of answering older."""
    with live_cluster(str(tmp_path)) as (apiserver, informerd, namespace), \
            lagging_replica(str(tmp_path)) as (proxy, _, replica_channel), \
            connect(ConnectionOptions([informerd.grpc_address])) as channel:
        path = "/api/v1/namespaces/%s/configmaps" % namespace
        before = apiserver.call("POST", path, configmap("probe", "0"))
        informer = RemoteInformer(channel, "configmaps", namespace=namespace)
        events = Events()
        informer.add_event_handler(events)
        reads = RemoteLister(replica_channel, "configmaps",
                             versions=informer.versions)
        with informer:
            assert events.wait_for("probe",
                                   before["metadata"]["resourceVersion"])
            assert reads.get(namespace, "probe").resource_version == \
                before["metadata"]["resourceVersion"]
            proxy.set_stalled(True)
            after = apiserver.call("PUT", path + "/probe",
                                   configmap("probe", "1"))
            version = after["metadata"]["resourceVersion"]
            assert events.wait_for("probe", version)
            assert informer.versions.version == version
            stale = pb_grpc.CacheStub(replica_channel).Get(pb.GetRequest(
                resource=pb.ResourceName(resource="configmaps"),
                namespace=namespace, name="probe"))
            assert stale.object.resource_version == \
                before["metadata"]["resourceVersion"]
            with pytest.raises(ReadError) as raised:
                reads.get(namespace, "probe")
            assert raised.value.code() == grpc.StatusCode.UNAVAILABLE
            assert raised.value.min_resource_version == version
            assert "get configmaps %s/probe" % namespace in str(raised.value)
            proxy.set_stalled(False)
            got = reads.get(namespace, "probe")
            assert _rv(got.resource_version) >= _rv(version)
            assert decode(got)["data"] == {"value": "1"}


def test_selectors_and_namespaces_run_in_informerd_and_events_are_metadata(
        tmp_path):
    with live_cluster(str(tmp_path)) as (apiserver, informerd, namespace), \
            connect(ConnectionOptions([informerd.grpc_address])) as channel:
        other = namespace + "-b"
        apiserver.call("POST", "/api/v1/namespaces", {
            "apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": other}})
        try:
            written = {}
            for ns in (namespace, other):
                for name, app in (("web-1", "web"), ("web-2", "web"),
                                  ("db-1", "db")):
                    written[(ns, name)] = apiserver.call(
                        "POST", "/api/v1/namespaces/%s/configmaps" % ns,
                        configmap(name, name, {"app": app}))
            informer = RemoteInformer(channel, "configmaps",
                                      label_selector="app=web")
            events = Events()
            informer.add_event_handler(events)
            with informer:
                assert events.wait_for_keys(
                    "%s/%s" % (ns, n) for ns in (namespace, other)
                    for n in ("web-1", "web-2"))
                # Only what the watch's selector matches, as metadata.
                seen = {(o.namespace, o.name) for o in events.objects
                        if o.namespace in (namespace, other)}
                assert seen == {(ns, n) for ns in (namespace, other)
                                for n in ("web-1", "web-2")}
                for obj in events.objects:
                    assert set(decode(obj)) <= {"apiVersion", "kind",
                                                "metadata"}, obj.key
                assert all(len(o.json) < 2048 for o in events.objects)
                reads = informer.lister

                def names(objects):
                    return [o.key for o in objects]
                assert names(reads.list("app=db", namespace=namespace)) == \
                    ["%s/db-1" % namespace]
                assert names(reads.list("app in (web,db)",
                                        namespace=other)) == \
                    ["%s/%s" % (other, n) for n in ("db-1", "web-1", "web-2")]
                assert names(reads.list(
                    "app=web", namespace=namespace,
                    field_selector="metadata.name=web-2")) == \
                    ["%s/web-2" % namespace]
                everywhere = reads.list("app=db")
                assert {"%s/db-1" % namespace, "%s/db-1" % other} <= \
                    set(names(everywhere))
                assert all(o.labels.get("app") == "db" for o in everywhere)
                assert names(reads.by_index("namespace", other)) == \
                    ["%s/%s" % (other, n) for n in ("db-1", "web-1", "web-2")]
                # Reads answer whole objects, also outside the watch's
                # selector; a missing one is None.
                db = reads.get(other, "db-1")
                assert decode(db)["data"] == {"value": "db-1"}
                assert db.resource_version == \
                    written[(other, "db-1")]["metadata"]["resourceVersion"]
                assert reads.get(other, "missing") is None
                with pytest.raises(ReadError) as raised:
                    reads.list(field_selector="data.value=x")
                assert raised.value.code() == \
                    grpc.StatusCode.INVALID_ARGUMENT
        finally:
            apiserver.call("DELETE", "/api/v1/namespaces/" + other)


def test_hot_cache_evicts_and_follows_the_watch(tmp_path):
    with live_cluster(str(tmp_path)) as (apiserver, informerd, namespace), \
            connect(ConnectionOptions([informerd.grpc_address])) as channel:
        path = "/api/v1/namespaces/%s/configmaps" % namespace
        versions = {}
        for name in ("a", "b", "c"):
            versions[name] = apiserver.call(
                "POST", path, configmap(name, "0"))["metadata"][
                    "resourceVersion"]
        informer = RemoteInformer(channel, "configmaps", namespace=namespace,
                                  cache_size=2)
        events = Events()
        informer.add_event_handler(events)
        cache = informer.cache
        with informer:
            for name, version in versions.items():
                assert events.wait_for(name, version)
            reads = informer.lister
            for name in ("a", "b", "c"):
                assert reads.get(namespace, name).resource_version == \
                    versions[name]
            # Two objects kept, the least recently used (a) evicted.
            assert cache.keys() == ["%s/b" % namespace, "%s/c" % namespace]
            assert (cache.misses, cache.evictions) == (3, 1)
            assert reads.get(namespace, "b").resource_version == versions["b"]
            assert cache.hits == 1
            # A change evicts b, also before the handler has run: the
            # informer's metadata moved on, so b's cached version is not
            # served.
            updated = apiserver.call("PUT", path + "/b", configmap("b", "1"))
            assert events.wait_for("b", updated["metadata"]["resourceVersion"])
            assert "%s/b" % namespace not in cache.keys()
            got = reads.get(namespace, "b")
            assert got.resource_version == \
                updated["metadata"]["resourceVersion"]
            assert decode(got)["data"] == {"value": "1"}
            assert cache.hits == 1
            # A deleted object is not served from the cache either.
            assert reads.get(namespace, "c") is not None
            apiserver.call("DELETE", path + "/c")
            assert events.wait_for_delete("%s/c" % namespace)
            assert reads.get(namespace, "c") is None
            assert "%s/c" % namespace not in cache.keys()
