"""A kopf operator, unmodified kopf, against whatever server its
kubeconfig names (informerd's Kubernetes API port in tests/ecosystem/run.sh):
an event handler keeps an index of one namespace's ConfigMaps from kopf's
own list and watch.

Run as: kopf run --standalone --namespace NAMESPACE kopf_operator.py, with
KUBECONFIG set and ECOSYSTEM_CLIENT naming the client.
Prints "SYNCED" at its first event (kopf has listed by then). When the
ConfigMap named "done" is in its index it posts a Kubernetes Event about it
with kopf's own client (the write passes through informerd to the
apiserver) and prints "CACHE {name: resourceVersion}".
"""

import json
import os

import kopf

_index = {}
_synced = False


@kopf.on.event("configmaps")
def track(event, body, **_):
    global _synced
    if not _synced:
        _synced = True
        print("SYNCED", flush=True)
    name = body["metadata"]["name"]
    if event["type"] == "DELETED":
        _index.pop(name, None)
    else:
        _index[name] = body["metadata"]["resourceVersion"]
    if name == "done" and event["type"] != "DELETED":
        kopf.info(body, reason="Seen",
                  message="seen by " + os.environ.get("ECOSYSTEM_CLIENT", "kopf"))
        print("CACHE " + json.dumps(_index, sort_keys=True), flush=True)
