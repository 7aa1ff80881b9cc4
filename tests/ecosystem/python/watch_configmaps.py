"""The official Python `kubernetes` client, unmodified, against whatever
server its kubeconfig names (informerd's Kubernetes API port in
tests/ecosystem/run.sh): a list-then-watch cache of one namespace's
ConfigMaps, as a hand-written informer keeps it.

Usage: watch_configmaps.py KUBECONFIG NAMESPACE CLIENT_NAME
Prints "SYNCED" once it has listed and written its own ConfigMap (the
write passes through informerd to the apiserver), then keeps watching;
when the ConfigMap named "done" is in its cache it prints
"CACHE {name: resourceVersion}" and exits 0. A watch that ends is resumed
from the last resourceVersion seen, and a 410 relists, as client-go does.
"""

import json
import sys

from kubernetes import client, config, watch


def main():
    kubeconfig, namespace, name = sys.argv[1:4]
    config.load_kube_config(config_file=kubeconfig)
    core = client.CoreV1Api()

    def relist():
        listed = core.list_namespaced_config_map(namespace)
        cache = {item.metadata.name: item.metadata.resource_version
                 for item in listed.items}
        return cache, listed.metadata.resource_version

    cache, version = relist()
    core.create_namespaced_config_map(namespace, client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name="written-by-" + name),
        data={"client": name}))
    print("SYNCED", flush=True)

    while "done" not in cache:
        stream = watch.Watch().stream(
            core.list_namespaced_config_map, namespace,
            resource_version=version, allow_watch_bookmarks=True,
            timeout_seconds=30)
        for event in stream:
            kind, obj = event["type"], event["object"]
            if kind == "ERROR":
                if obj.get("code") == 410:
                    cache, version = relist()
                    break
                raise RuntimeError("watch error: %r" % (obj,))
            version = obj.metadata.resource_version
            if kind == "DELETED":
                cache.pop(obj.metadata.name, None)
            elif kind in ("ADDED", "MODIFIED"):
                cache[obj.metadata.name] = version
            if "done" in cache:
                break
    print("CACHE " + json.dumps(cache, sort_keys=True), flush=True)


if __name__ == "__main__":
    main()
