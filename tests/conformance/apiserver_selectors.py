#!/usr/bin/python3
"""Records, or re-checks, the selector vectors (selectors.json) against a
real kube-apiserver.

The vectors say, for each label and field selector text, whether the
apiserver rejects it and, if not, which of a fixed set of labelled
ConfigMaps it selects. Every informer runtime (the server's //selector, the
Go, Java, Python and C++ clients) runs the same file in its own test runner
(tests/conformance/README.md); this tool is where the verdicts come from, so
no runtime's own opinion of the syntax is written into them.

Both modes put the vectors' objects into one namespace of their own
("conformance-selectors", created if missing; ConfigMaps there that are not
in the vectors are deleted first), then ask the apiserver
`GET /api/v1/namespaces/NS/configmaps?labelSelector=...` (or fieldSelector)
for each selector: 400 Bad Request means rejected, 200 lists what matches.

  apiserver_selectors.py --write   records the verdicts into selectors.json
                                   (the inputs are the lists below)
  apiserver_selectors.py           re-checks selectors.json: exits 1, naming
                                   every selector whose verdict differs

Needs the variables of `hack/control-plane.sh env` (INFORMERD_APISERVER_URL,
INFORMERD_CA_FILE, INFORMERD_ADMIN_TOKEN_FILE). Under Bazel it is the
external test //tests/conformance:apiserver_selectors_test, which
hack/test.sh runs against Kubernetes 1.37 and 1.20.
"""

import json
import os
import ssl
import sys
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.realpath(__file__))
VECTORS = os.path.join(HERE, "selectors.json")
NAMESPACE = "conformance-selectors"

# The objects every selector is matched against: labels chosen so that each
# operator selects some and leaves out some, including objects without the
# key, empty values, prefixed keys and integers for '>' and '<'.
OBJECTS = [
    {"name": "web-prod", "labels": {"app": "web", "env": "prod", "n": "3"}},
    {"name": "web-staging", "labels": {"app": "web", "env": "staging", "n": "10"}},
    {"name": "db-prod", "labels": {"app": "db", "env": "prod", "tier": "backend"}},
    {"name": "empty-app", "labels": {"app": "", "n": "0"}},
    {"name": "prefixed", "labels": {"example.com/app": "web", "n": "abc"}},
    {"name": "unlabelled", "labels": {}},
    {"name": "caps", "labels": {"App": "Web", "a.b_c-d": "x_y.z-0"}},
]

LABEL_SELECTORS = [
    # Accepted.
    "",
    "app=web",
    "app==web",
    "app!=web",
    "app in (web,db)",
    "app in (web, db)",
    "app notin (web)",
    "app notin (web,db)",
    "app",
    "!app",
    "!tier",
    "tier",
    "app=",
    "app==",
    "app!=",
    "app in ()",
    "app in (,web)",
    "app=web,env=prod",
    "app=web,env!=prod",
    "app=web,app=db",
    "  app = web  ",
    "app=web , env=prod",
    "example.com/app=web",
    "example.com/app",
    "App=Web",
    "app=Web",
    "a.b_c-d=x_y.z-0",
    "n>5",
    "n<5",
    "n>-5",
    "n<0",
    "n>2,n<11",
    "!app,n",
    "env in (prod),tier notin (frontend)",
    "x" * 63 + "=v",
    "k=" + "v" * 63,
    "example.com/" + "k" * 63,
    # Rejected.
    "app=web,",
    ",app=web",
    "app=we b",
    "app=web)",
    "app=web=db",
    "app in web",
    "app in (web",
    "app notin",
    "app in",
    "in=x",
    "notin",
    "n>abc",
    "n>1.5",
    "n>",
    "n>1,2",
    "n in (1)>",
    "-app=web",
    "app=-web",
    "app=web-",
    "_app",
    "!app=web",
    "!!app",
    "app!",
    "app!==web",
    "x" * 64 + "=v",
    "k=" + "v" * 64,
    "Example.com/app=web",
    "example.com/=web",
    "/app=web",
    "a/b/c=d",
    "app=web;env=prod",
    "app=(web)",
    "(app=web)",
    "app = = web",
    "app=web env=prod",
    "app in (web db)",
    "app in (web),",
    "=web",
    "!",
    ",",
    " , ",
]

FIELD_SELECTORS = [
    # Accepted.
    "",
    "metadata.name=web-prod",
    "metadata.name==web-prod",
    "metadata.name!=web-prod",
    "metadata.name=web-prod,metadata.name=db-prod",
    "metadata.name!=web-prod,metadata.name!=db-prod",
    "metadata.namespace=" + NAMESPACE,
    "metadata.namespace!=" + NAMESPACE,
    "metadata.namespace=" + NAMESPACE + ",metadata.name=caps",
    "metadata.name=",
    "metadata.name!=",
    "metadata.name=no-such-object",
    "metadata.name=web\\,prod",
    "metadata.name=web\\=prod",
    "metadata.name=web\\\\prod",
    "metadata.name=a=b",
    "metadata.name= web-prod",
    "metadata.name=web-prod,",
    ",metadata.name=web-prod",
    ",",
    # Rejected.
    "metadata.name",
    "metadata.name=web-prod,metadata.namespace",
    "metadata.name=web\\prod",
    "metadata.name=web-prod\\",
    "metadata.name in (web-prod)",
    "metadata.name=a,b",
]


class Apiserver:
    def __init__(self):
        try:
            self.url = os.environ["INFORMERD_APISERVER_URL"].rstrip("/")
            with open(os.environ["INFORMERD_ADMIN_TOKEN_FILE"]) as f:
                self.token = f.read().strip()
            self.context = ssl.create_default_context(cafile=os.environ["INFORMERD_CA_FILE"])
        except KeyError as e:
            sys.exit(f"apiserver_selectors.py: {e.args[0]} is not set; "
                     "run under `eval \"$(hack/control-plane.sh env)\"`")

    def request(self, method, path, body=None):
        """Returns (HTTP status, decoded JSON body)."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Authorization", "Bearer " + self.token)
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, context=self.context, timeout=30) as resp:
                return resp.status, json.load(resp)
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"{}")

    def must(self, method, path, body=None, ok=(200, 201)):
        status, reply = self.request(method, path, body)
        if status not in ok:
            raise RuntimeError(f"{method} {path}: HTTP {status}: {reply.get('message', reply)}")
        return reply


def put_objects(api, objects):
    """Makes the namespace hold exactly `objects`, with exactly their labels."""
    status, _ = api.request("GET", f"/api/v1/namespaces/{NAMESPACE}")
    if status == 404:
        api.must("POST", "/api/v1/namespaces",
                 {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
                 ok=(201, 409))
    base = f"/api/v1/namespaces/{NAMESPACE}/configmaps"
    wanted = {o["name"]: o for o in objects}
    for item in api.must("GET", base)["items"]:
        if item["metadata"]["name"] not in wanted:
            api.must("DELETE", f"{base}/{item['metadata']['name']}", ok=(200, 202, 404))
    for o in objects:
        body = {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": o["name"], "namespace": NAMESPACE, "labels": o["labels"]}}
        status, current = api.request("GET", f"{base}/{o['name']}")
        if status == 404:
            api.must("POST", base, body)
        elif current["metadata"].get("labels", {}) != o["labels"]:
            body["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
            api.must("PUT", f"{base}/{o['name']}", body)


def verdict(api, parameter, selector):
    """{"valid": False} if the apiserver rejects the selector, else
    {"valid": True, "matches": [names, sorted]}."""
    query = urllib.parse.urlencode({parameter: selector})
    status, reply = api.request("GET", f"/api/v1/namespaces/{NAMESPACE}/configmaps?{query}")
    if status == 400:
        return {"valid": False}
    if status != 200:
        raise RuntimeError(f"{parameter}={selector!r}: HTTP {status}: {reply.get('message', reply)}")
    return {"valid": True, "matches": sorted(i["metadata"]["name"] for i in reply["items"])}


def record(api):
    put_objects(api, OBJECTS)
    status, info = api.request("GET", "/version")
    vectors = {
        "comment": [
            "Label and field selectors with the verdicts of a real kube-apiserver,",
            "recorded by tests/conformance/apiserver_selectors.py --write (do not edit by",
            "hand; re-checked live by //tests/conformance:apiserver_selectors_test on",
            "Kubernetes 1.37 and 1.20). Each selector is either rejected (valid: false) or",
            "selects exactly `matches` among `objects` (ConfigMaps in `namespace`; field",
            "selectors see metadata.name and metadata.namespace).",
        ],
        "recorded_with": info.get("gitVersion", "unknown") if status == 200 else "unknown",
        "namespace": NAMESPACE,
        "objects": OBJECTS,
        "label_selectors": [dict(selector=s, **verdict(api, "labelSelector", s))
                            for s in LABEL_SELECTORS],
        "field_selectors": [dict(selector=s, **verdict(api, "fieldSelector", s))
                            for s in FIELD_SELECTORS],
    }
    with open(VECTORS, "w") as f:
        json.dump(vectors, f, indent=1)
        f.write("\n")
    print(f"wrote {VECTORS}: {len(vectors['label_selectors'])} label and "
          f"{len(vectors['field_selectors'])} field selectors")


def check(api):
    with open(VECTORS) as f:
        vectors = json.load(f)
    if vectors["namespace"] != NAMESPACE:
        sys.exit(f"{VECTORS}: namespace {vectors['namespace']!r}, expected {NAMESPACE!r}")
    put_objects(api, vectors["objects"])
    failures = []
    count = 0
    for kind, parameter in (("label_selectors", "labelSelector"), ("field_selectors", "fieldSelector")):
        for case in vectors[kind]:
            count += 1
            recorded = {k: v for k, v in case.items() if k != "selector"}
            live = verdict(api, parameter, case["selector"])
            if live != recorded:
                failures.append(f"{parameter}={case['selector']!r}: recorded {recorded}, "
                                f"the apiserver says {live}")
    version = os.environ.get("INFORMERD_KUBE_VERSION", "?")
    for failure in failures:
        print("MISMATCH " + failure)
    print(f"{count - len(failures)} of {count} selector vectors agree with kube-apiserver {version}")
    return 1 if failures else 0


def main():
    api = Apiserver()
    if sys.argv[1:] == ["--write"]:
        record(api)
        return 0
    if sys.argv[1:]:
        sys.exit("usage: apiserver_selectors.py [--write]")
    return check(api)


if __name__ == "__main__":
    sys.exit(main())
