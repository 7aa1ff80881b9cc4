"""The informer against a real informerd and kube-apiserver.

Needs the variables of `hack/control-plane.sh env` (INFORMERD_APISERVER_URL,
INFORMERD_CA_FILE, INFORMERD_ADMIN_TOKEN_FILE, KUBECONFIG) and an informerd
binary (INFORMERD_BIN, default bazel-bin/server/informerd); see
live_env.py. Fails, rather than skips, without them. ConfigMaps are written in a fresh namespace through the apiserver;
the informer's handlers and cache must converge to the apiserver's LIST,
also across an informerd restart.
"""

import threading
import time

from informerd import (ConnectionOptions, HandlerFuncs, Informer,
                       ResourceEventHandler, connect)
from live_env import CATCH_UP_SECONDS, TIMEOUT, configmap, live_cluster


class StateFromHandlers(ResourceEventHandler):
    """Rebuilds key -> resource_version from the handler calls alone, and
    records every call that contradicts the contract."""

    def __init__(self):
        self.versions = {}
        self.violations = []
        self.unknown_state_deletes = []
        self.deletes = []
        self._changed = threading.Condition()

    def on_add(self, obj):
        with self._changed:
            if obj.key in self.versions:
                self.violations.append("ADD of known key " + obj.key)
            self.versions[obj.key] = obj.resource_version
            self._changed.notify_all()

    def on_update(self, old, new):
        with self._changed:
            if self.versions.get(old.key) != old.resource_version:
                self.violations.append("UPDATE with stale old " + old.key)
            if old.resource_version == new.resource_version:
                self.violations.append("UPDATE without change " + new.key)
            self.versions[new.key] = new.resource_version
            self._changed.notify_all()

    def on_delete(self, obj, final_state_unknown):
        with self._changed:
            if self.versions.pop(obj.key, None) is None:
                self.violations.append("DELETE of unknown key " + obj.key)
            self.deletes.append(obj.key)
            if final_state_unknown:
                self.unknown_state_deletes.append(obj.key)
            self._changed.notify_all()

    def wait_until(self, expected, timeout=TIMEOUT):
        with self._changed:
            converged = self._changed.wait_for(
                lambda: self.versions == expected, timeout)
            return converged, dict(self.versions)


def assert_converged(informer, state, expected, informerd, within=TIMEOUT):
    converged, seen = state.wait_until(expected, within)
    assert converged, "handlers saw %s, apiserver has %s; informerd log:\n%s" \
        % (seen, expected, informerd.log())
    assert {o.key: o.resource_version for o in informer.lister.list()} == \
        expected
    assert state.violations == []


def test_cache_follows_apiserver_across_informerd_restart(tmp_path):
    with live_cluster(str(tmp_path)) as (apiserver, informerd, ns):
        check_cache_follows_apiserver(apiserver, informerd, ns)


def check_cache_follows_apiserver(apiserver, informerd, ns):
    path = "/api/v1/namespaces/%s/configmaps" % ns
    for name in ("a", "b", "c"):
        apiserver.call("POST", path, configmap(name, "1", {"app": "web"}))

    channel = connect(ConnectionOptions([informerd.grpc_address]))
    everything = Informer(channel, "configmaps", namespace=ns)
    web = Informer(channel, "configmaps", namespace=ns,
                   label_selector="app=web")
    all_state, web_state = StateFromHandlers(), StateFromHandlers()
    everything.add_event_handler(all_state)
    web.add_event_handler(web_state)
    try:
        everything.start()
        web.start()
        assert everything.wait_for_sync(TIMEOUT), everything.last_error
        assert web.wait_for_sync(TIMEOUT), web.last_error
        assert_converged(everything, all_state,
                         apiserver.configmap_versions(ns), informerd)

        # Live changes, including one that leaves the label selector.
        apiserver.call("PUT", path + "/a", configmap("a", "2", {"app": "web"}))
        apiserver.call("PUT", path + "/b", configmap("b", "2", {"app": "db"}))
        apiserver.call("DELETE", path + "/c")
        apiserver.call("POST", path, configmap("d", "1", {"app": "web"}))
        assert_converged(everything, all_state,
                         apiserver.configmap_versions(ns), informerd)
        assert_converged(web, web_state,
                         apiserver.configmap_versions(ns, "app=web"),
                         informerd)

        # Changes while informerd is down reach the informer after restart.
        informerd.stop()
        apiserver.call("PUT", path + "/a", configmap("a", "3", {"app": "web"}))
        apiserver.call("DELETE", path + "/d")
        apiserver.call("POST", path, configmap("e", "1", {"app": "web"}))
        expected = apiserver.configmap_versions(ns)
        informerd.start()
        # Clients must be caught up within 3s of the server's readiness.
        caught_up_by = informerd.ready_at + CATCH_UP_SECONDS
        assert_converged(everything, all_state, expected, informerd,
                         within=caught_up_by - time.monotonic())
        assert_converged(web, web_state,
                         apiserver.configmap_versions(ns, "app=web"),
                         informerd)
        # The new informerd's history starts after the outage, but it
        # backfills it from the apiserver: the informer resumed instead of
        # relisting, and learnt of d's deletion as an ordinary delete.
        assert ns + "/d" in all_state.deletes
        assert all_state.unknown_state_deletes == []

        # And the informer keeps following after the restart.
        apiserver.call("DELETE", path + "/e")
        apiserver.call("POST", path, configmap("f", "1"))
        assert_converged(everything, all_state,
                         apiserver.configmap_versions(ns), informerd)
    finally:
        everything.stop(TIMEOUT)
        web.stop(TIMEOUT)
        channel.close()


def test_live_objects_decode_as_kubernetes_models(tmp_path):
    from kubernetes.client import V1ConfigMap, V1Pod

    with live_cluster(str(tmp_path)) as (apiserver, informerd, ns):
        # No controller-manager creates the namespace's default service
        # account, which pod admission wants.
        apiserver.call("POST", "/api/v1/namespaces/%s/serviceaccounts" % ns,
                       {"metadata": {"name": "default"}})
        created_pod = apiserver.call(
            "POST", "/api/v1/namespaces/%s/pods" % ns, {
                "apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "p", "labels": {"app": "web"}},
                "spec": {"automountServiceAccountToken": False,
                         "containers": [{
                             "name": "main", "image": "registry.invalid/x:1",
                             "ports": [{"containerPort": 8080}],
                             "resources": {"limits": {"memory": "64Mi"}}}]}})
        created_map = apiserver.call(
            "POST", "/api/v1/namespaces/%s/configmaps" % ns,
            configmap("m", "42", {"app": "web"}))

        channel = connect(ConnectionOptions([informerd.grpc_address]))
        pods = Informer(channel, "pods", namespace=ns)
        maps = Informer(channel, "configmaps", namespace=ns)
        try:
            pods.start()
            maps.start()
            assert pods.wait_for_sync(TIMEOUT), pods.last_error
            assert maps.wait_for_sync(TIMEOUT), maps.last_error

            pod = pods.lister.get(ns, "p").as_model(V1Pod)
            meta = created_pod["metadata"]
            assert isinstance(pod, V1Pod)
            assert (pod.metadata.namespace, pod.metadata.name,
                    pod.metadata.uid, pod.metadata.resource_version) == \
                (ns, "p", meta["uid"], meta["resourceVersion"])
            assert pod.metadata.labels == {"app": "web"}
            assert pod.metadata.creation_timestamp.strftime(
                "%Y-%m-%dT%H:%M:%SZ") == meta["creationTimestamp"]
            container = pod.spec.containers[0]
            assert (container.name, container.image,
                    container.ports[0].container_port,
                    container.resources.limits) == (
                "main", "registry.invalid/x:1", 8080, {"memory": "64Mi"})
            # Defaulted by the apiserver, so it came from the server's copy.
            assert pod.spec.restart_policy == "Always"
            assert pod.status.phase == "Pending"

            config_map = maps.lister.get(ns, "m").as_model(V1ConfigMap)
            assert config_map.data == {"value": "42"}
            assert config_map.metadata.uid == created_map["metadata"]["uid"]
            # informerd fills them in for objects ingested from a LIST too.
            assert (pod.api_version, pod.kind) == ("v1", "Pod")
            assert (config_map.api_version, config_map.kind) == \
                ("v1", "ConfigMap")
        finally:
            pods.stop(TIMEOUT)
            maps.stop(TIMEOUT)
            channel.close()


def test_metadata_projection_caches_only_metadata(tmp_path):
    from kubernetes.client import V1ObjectMeta

    from informerd import decode, pb

    with live_cluster(str(tmp_path)) as (apiserver, informerd, ns):
        path = "/api/v1/namespaces/%s/configmaps" % ns
        created = apiserver.call("POST", path,
                                 configmap("m", "secret-ish", {"app": "web"}))
        channel = connect(ConnectionOptions([informerd.grpc_address]))
        informer = Informer(channel, "configmaps", namespace=ns,
                            projection=pb.PROJECTION_METADATA)
        state = StateFromHandlers()
        informer.add_event_handler(state)
        try:
            informer.start()
            assert informer.wait_for_sync(TIMEOUT), informer.last_error
            apiserver.call("PUT", path + "/m",
                           configmap("m", "changed", {"app": "db"}))
            assert_converged(informer, state,
                             apiserver.configmap_versions(ns), informerd)
            obj = informer.lister.get(ns, "m")
            partial = decode(obj)
            assert sorted(partial) == ["apiVersion", "kind", "metadata"]
            assert (partial["apiVersion"], partial["kind"]) == \
                ("v1", "ConfigMap")
            meta = V1ObjectMeta.from_dict(partial["metadata"])
            assert meta.uid == created["metadata"]["uid"]
            assert meta.labels == {"app": "db"}
            assert obj.labels == {"app": "db"}
        finally:
            informer.stop(TIMEOUT)
            channel.close()


def _pruned(value, paths):
    """value with every object member off the dotted paths removed (a path
    through a list applies to each element): the apiserver's object as a
    field mask should leave it."""
    if isinstance(value, list):
        return [_pruned(v, paths) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for name, member in value.items():
        below = [p[1:] for p in paths if p[0] == name]
        if not below:
            continue
        out[name] = member if [] in below else _pruned(member, below)
    return out


MASK_IDENTITY = ("apiVersion", "kind", "metadata.name", "metadata.namespace",
                 "metadata.uid", "metadata.resourceVersion")


def test_field_mask_caches_only_the_mask(tmp_path):
    from informerd import decode

    mask = ("metadata.labels", "data.keep")
    paths = [p.split(".") for p in mask + MASK_IDENTITY]
    with live_cluster(str(tmp_path)) as (apiserver, informerd, ns):
        path = "/api/v1/namespaces/%s/configmaps" % ns
        body = configmap("m", "dropped", {"app": "web"})
        body["data"]["keep"] = "kept"
        apiserver.call("POST", path, body)
        channel = connect(ConnectionOptions([informerd.grpc_address]))
        informer = Informer(channel, "configmaps", namespace=ns, fields=mask)
        state = StateFromHandlers()
        informer.add_event_handler(state)
        try:
            informer.start()
            assert informer.wait_for_sync(TIMEOUT), informer.last_error
            body["metadata"]["labels"] = {"app": "db"}
            body["data"]["keep"] = "changed"
            apiserver.call("PUT", path + "/m", body)
            assert_converged(informer, state,
                             apiserver.configmap_versions(ns), informerd)
            want = _pruned(apiserver.call("GET", path + "/m"), paths)
            got = decode(informer.lister.get(ns, "m"))
            assert got == want
            assert got["data"] == {"keep": "changed"}
            assert "value" not in got["data"] and "creationTimestamp" not in \
                got["metadata"]
        finally:
            informer.stop(TIMEOUT)
            channel.close()


def test_slow_handler_does_not_delay_another(tmp_path):
    """One handler takes 1 s per event; the other gets each event within
    50 ms of the informer receiving it (the transform runs as it does)."""
    with live_cluster(str(tmp_path)) as (apiserver, informerd, ns):
        received_at = {}
        fast_at = {}
        slow_seen = []
        all_fast = threading.Event()
        names = ["x%d" % i for i in range(5)]

        def timestamp(obj):
            received_at[(obj.key, obj.resource_version)] = time.monotonic()
            return obj

        def fast(obj):
            fast_at[(obj.key, obj.resource_version)] = time.monotonic()
            if len(fast_at) == len(names):
                all_fast.set()

        def slow(obj):
            slow_seen.append(obj.key)
            time.sleep(1.0)  # The slow handler's work.

        channel = connect(ConnectionOptions([informerd.grpc_address]))
        informer = Informer(channel, "configmaps", namespace=ns,
                            transform=timestamp)
        informer.add_event_handler(HandlerFuncs(on_add=slow))
        informer.add_event_handler(HandlerFuncs(on_add=fast))
        try:
            informer.start()
            assert informer.wait_for_sync(TIMEOUT), informer.last_error
            path = "/api/v1/namespaces/%s/configmaps" % ns
            for name in names:
                apiserver.call("POST", path, configmap(name, "1"))
            assert all_fast.wait(TIMEOUT), fast_at
            assert len(slow_seen) <= 2, slow_seen  # 1 s per event.
            delays = {item: fast_at[item] - received_at[item]
                      for item in fast_at}
            print("fast handler delay after the informer received (s):",
                  sorted(round(d, 4) for d in delays.values()))
            assert max(delays.values()) < 0.05, delays
        finally:
            informer.stop(TIMEOUT)
            channel.close()
