#!/usr/bin/env python3
"""Checks what `helm template` rendered for one values set of
tests/chart/values/.

Usage: render_checks.py SET RENDERED.yaml NAMESPACE

SET is the values file's name without .yaml. Checks common to every set run
first, then the set's own. Prints every violation and exits 1 if any.
The release is named "t", so objects are named "t-informerd".
"""

import base64
import json
import os
import subprocess
import sys
import tempfile
import time

try:
    import yaml
except ImportError:
    sys.exit("render_checks.py needs PyYAML: apt-get install python3-yaml")

FULLNAME = "t-informerd"
STANDARD_LABELS = (
    "helm.sh/chart",
    "app.kubernetes.io/name",
    "app.kubernetes.io/instance",
    "app.kubernetes.io/version",
    "app.kubernetes.io/managed-by",
    "app.kubernetes.io/component",
)
READ_VERBS = ["get", "list", "watch"]
TLS_SECRET = f"{FULLNAME}-tls"
TLS_MOUNT = "/etc/informerd/tls"
TOKEN_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/token"
REVIEW_RULES = {
    ("authentication.k8s.io", "tokenreviews", ("create",)),
    ("authorization.k8s.io", "subjectaccessreviews", ("create",)),
}
# What a leaf's ServiceAccount needs on the served resources: the root's
# SubjectAccessReviews of its ListResources (list) and Watches (watch).
LEAF_VERBS = ["list", "watch"]
UPSTREAM_TOKEN_DIR = "/var/run/secrets/informerd-upstream"
UPSTREAM_CA_DIR = "/etc/informerd/upstream-ca"
UPSTREAM_CLIENT_DIR = "/etc/informerd/upstream-client"


class Rendered:
    def __init__(self, text, namespace):
        self.objects = [o for o in yaml.safe_load_all(text) if o]
        self.namespace = namespace
        self.errors = []

    def expect(self, condition, message):
        if not condition:
            self.errors.append(message)

    def all(self, kind):
        return [o for o in self.objects if o["kind"] == kind]

    def one(self, kind, name=FULLNAME, namespace=None):
        found = [
            o for o in self.all(kind)
            if o["metadata"]["name"] == name
            and (namespace is None or o["metadata"].get("namespace") == namespace)
        ]
        if len(found) != 1:
            raise AssertionError(f"want one {kind} {name}, rendered {len(found)}")
        return found[0]

    def container(self):
        return self.one("Deployment")["spec"]["template"]["spec"]["containers"][0]

    def args(self):
        return self.container()["args"]

    def test_command(self):
        pod = self.one("Pod", f"{FULLNAME}-test-health")
        return pod["spec"]["containers"][0]["command"]

    def volumes(self):
        spec = self.one("Deployment")["spec"]["template"]["spec"]
        return {v["name"]: v for v in spec.get("volumes", [])}

    def config(self):
        return yaml.safe_load(self.one("ConfigMap")["data"]["config.yaml"])

    def served_resources(self):
        return self.config()["resources"]

    def upstream_config(self):
        """The config file's upstream* keys: empty for a root."""
        return {k: v for k, v in self.config().items() if k.startswith("upstream")}

    def mounts(self):
        return {m["name"]: m["mountPath"] for m in self.container()["volumeMounts"]}


def rule_set(role):
    """The rules of a Role or ClusterRole as (group, resource, verbs) tuples,
    one per group and resource."""
    rules = set()
    for rule in role.get("rules") or []:
        for group in rule["apiGroups"]:
            for resource in rule["resources"]:
                rules.add((group, resource, tuple(rule["verbs"])))
    return rules


def read_rules(resources, verbs=READ_VERBS):
    return {(r.get("group", ""), r["resource"], tuple(verbs)) for r in resources}


def check_common(r):
    for o in r.objects:
        labels = o["metadata"].get("labels", {})
        missing = [l for l in STANDARD_LABELS if l not in labels]
        r.expect(not missing, f"{o['kind']} {o['metadata']['name']}: labels lack {missing}")

    deployment = r.one("Deployment")
    spec = deployment["spec"]
    r.expect(spec["strategy"]["rollingUpdate"]["maxUnavailable"] == 0,
             "Deployment: rollingUpdate.maxUnavailable must be 0")
    pod = spec["template"]["spec"]
    r.expect(pod["terminationGracePeriodSeconds"] >= 15,
             "Deployment: terminationGracePeriodSeconds too short to drain")
    annotations = spec["template"]["metadata"].get("annotations", {})
    checksum = annotations.get("checksum/config", "")
    r.expect(len(checksum) == 64, "pod template: no checksum/config annotation")
    r.expect(pod["securityContext"].get("runAsNonRoot") is True, "pod: runAsNonRoot")
    r.expect(pod["securityContext"].get("seccompProfile", {}).get("type") == "RuntimeDefault",
             "pod: seccompProfile RuntimeDefault")

    container = r.container()
    security = container["securityContext"]
    r.expect(security.get("runAsUser") == 65532, "container: runAsUser 65532")
    r.expect(security.get("runAsNonRoot") is True, "container: runAsNonRoot")
    r.expect(security.get("readOnlyRootFilesystem") is True, "container: readOnlyRootFilesystem")
    r.expect(security.get("allowPrivilegeEscalation") is False,
             "container: allowPrivilegeEscalation false")
    r.expect(security.get("capabilities", {}).get("drop") == ["ALL"],
             "container: capabilities drop ALL")
    r.expect(security.get("seccompProfile", {}).get("type") == "RuntimeDefault",
             "container: seccompProfile RuntimeDefault")
    r.expect(container["readinessProbe"]["httpGet"]["path"] == "/readyz", "readiness on /readyz")
    r.expect(container["livenessProbe"]["httpGet"]["path"] == "/healthz", "liveness on /healthz")
    resources = container.get("resources", {})
    r.expect("requests" in resources and "limits" in resources,
             "container: resources need requests and limits")
    r.expect("--config=/etc/informerd/config/config.yaml" in r.args(), "args: --config")
    # The admin port on the pod's address only (issue 26): the probes and
    # Prometheus reach it there.
    http = [a for a in r.args() if a.startswith("--http-address=")]
    r.expect(http == ["--http-address=$(POD_IP):8080"], f"args: --http-address on the pod IP, got {http}")
    r.expect(r.container().get("env", [{}])[0] == {
        "name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
        "env: POD_IP from status.podIP, first, so $(POD_IP) expands")
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    r.expect(mounts.get("config") == "/etc/informerd/config", "config volume mount")

    service = r.one("Service")
    ports = {p["name"]: p for p in service["spec"]["ports"]}
    r.expect(ports.get("grpc", {}).get("appProtocol") == "grpc", "Service: grpc appProtocol grpc")
    r.expect("http-metrics" in ports, "Service: http-metrics port")

    test = r.one("Pod", f"{FULLNAME}-test-health")
    r.expect(test["metadata"]["annotations"].get("helm.sh/hook") == "test", "test pod: hook")
    command = r.test_command()
    r.expect(command[0] == "informerctl" and command[-1] == "health",
             "test pod: informerctl ... health")
    r.expect(f"--server={FULLNAME}.{r.namespace}.svc:50051" in command,
             "test pod: --server names the Service")
    r.expect(test["metadata"]["labels"].get("app.kubernetes.io/component") == "test",
             "test pod: must not carry the server's selector labels")

    accounts = r.all("ServiceAccount")
    r.expect(not accounts or pod["serviceAccountName"] == accounts[0]["metadata"]["name"],
             "Deployment: runs as the chart's ServiceAccount")

    # An HPA owns the replica count: a replicas field beside it would reset
    # the count on every upgrade.
    hpas = r.all("HorizontalPodAutoscaler")
    r.expect(len(hpas) <= 1, f"at most one HorizontalPodAutoscaler, got {len(hpas)}")
    r.expect(("replicas" in spec) == (not hpas),
             f"Deployment: replicas exactly when no HPA (replicas: {spec.get('replicas')}, "
             f"HPAs: {len(hpas)})")

    # A plaintext upstream is accepted only by a leaf that says so.
    upstream = r.upstream_config().get("upstream", "")
    r.expect(("--allow-insecure-upstream" in r.args()) == upstream.startswith("grpc://"),
             f"args: --allow-insecure-upstream exactly for a grpc:// upstream ({upstream!r})")


def check_proxy(r):
    """Every set: with the proxy (the default), HAProxy holds the gRPC port
    and informerd listens on loopback only; without it (tls.clientCA),
    informerd holds the port itself (issue 26, finding 3)."""
    containers = {c["name"]: c for c in
                  r.one("Deployment")["spec"]["template"]["spec"]["containers"]}
    grpc = [a for a in r.args() if a.startswith("--grpc-address=")]
    informerd_ports = {p["name"] for p in r.container().get("ports", [])}
    if "proxy" not in containers:
        r.expect(grpc == ["--grpc-address=0.0.0.0:50051"], f"no proxy: informerd on 0.0.0.0:50051, got {grpc}")
        r.expect("--allow-unproxied" in r.args(), "no proxy: --allow-unproxied, else informerd refuses 0.0.0.0")
        r.expect("grpc" in informerd_ports, "no proxy: informerd's container has the grpc port")
        r.expect("haproxy.cfg" not in r.one("ConfigMap")["data"], "no proxy: no haproxy.cfg")
        r.expect("--trust-forwarded-for" not in r.args(), "no proxy: x-forwarded-for not trusted")
        return
    proxy = containers["proxy"]
    r.expect(grpc == ["--grpc-address=127.0.0.1:50052"], f"proxy: informerd on 127.0.0.1:50052 only, got {grpc}")
    r.expect("grpc" not in informerd_ports, "proxy: informerd's container must not name the grpc port")
    r.expect("--trust-forwarded-for" in r.args(),
             "proxy: informerd counts callers by the proxy's x-forwarded-for (--trust-forwarded-for)")
    r.expect([p["containerPort"] for p in proxy["ports"] if p["name"] == "grpc"] == [50051],
             "proxy: the proxy container holds the grpc port 50051")
    r.expect(proxy["command"][:2] == ["informerd-proxy", "--config=/etc/informerd/config/haproxy.cfg"],
             f"proxy: runs informerd-proxy (HAProxy) with the ConfigMap's haproxy.cfg, got {proxy['command']}")
    r.expect(proxy["image"] == r.container()["image"], "proxy: informerd's image (it carries HAProxy)")
    r.expect(proxy["securityContext"] == r.container()["securityContext"],
             "proxy: the same locked-down securityContext as informerd")
    r.expect("limits" in proxy.get("resources", {}), "proxy: resources need limits")
    config = r.one("ConfigMap")["data"]["haproxy.cfg"]
    lines = [line.strip() for line in config.splitlines()]
    tls = "--tls-cert-file=/etc/informerd/tls/tls.crt" in r.args()
    bind = [line for line in lines if line.startswith("bind ")]
    server = [line for line in lines if line.startswith("server ")]
    if tls:
        r.expect(bind == ["bind :50051 ssl crt /etc/informerd/tls/tls.crt alpn h2"],
                 f"proxy: TLS ends at the proxy with the chart's certificate, got {bind}")
        r.expect(server == ["server informerd 127.0.0.1:50052 ssl verify none alpn h2"],
                 f"proxy: TLS to informerd on loopback, got {server}")
        mounts = {m["name"]: m["mountPath"] for m in proxy["volumeMounts"]}
        r.expect(mounts.get("tls") == "/etc/informerd/tls", "proxy: mounts the TLS Secret")
        watched = [a for a in proxy["command"] if a.startswith("--watch=")]
        r.expect(watched == ["--watch=/etc/informerd/tls/tls.crt", "--watch=/etc/informerd/tls/tls.key"],
                 f"proxy: reloads when the mounted certificate or key changes (renewal), got {watched}")
    else:
        r.expect(bind == ["bind :50051 proto h2"], f"proxy: plaintext h2, got {bind}")
        r.expect(server == ["server informerd 127.0.0.1:50052 proto h2"], f"proxy: h2c to informerd, got {server}")
    # The guard itself: whole requests only, and each address bounded.
    for want in ("option http-buffer-request", "tcp-request connection track-sc0 src",
                 "tcp-request connection reject if { sc_conn_cur(0) gt 16 }",
                 "http-request deny deny_status 429 if { sc_http_req_rate(0) gt 250 }",
                 # HAProxy 3.0's glitch limits: a rapid-reset flood ends its
                 # connection, and its address's next ones are refused.
                 "tune.h2.fe.glitches-threshold 100", "tune.h2.fe.max-total-streams 200",
                 "tcp-request connection reject if { sc_conn_rate(0) gt 10 }",
                 "tcp-request connection reject if { sc_glitch_rate(0) gt 200 }",
                 "http-request set-header x-forwarded-for %[src]",
                 # A reload's previous workers end within this: bounded memory.
                 "hard-stop-after 600s"):
        r.expect(want in lines, f"proxy: haproxy.cfg lacks {want!r}")


def check_security(r):
    """Every set: the Deployment says how callers are authenticated, and an
    open or plaintext combination only with the value that accepts it; the
    test pod connects as the server expects (TLS with the server's CA, a
    token with auth.mode=kubernetes)."""
    args = r.args()
    modes = [a for a in args if a.startswith("--auth-mode=")]
    r.expect(len(modes) == 1, f"args: exactly one --auth-mode, got {modes}")
    tls = "--tls-cert-file=/etc/informerd/tls/tls.crt" in args
    command = r.test_command()
    if modes == ["--auth-mode=none"]:
        r.expect("--allow-unauthenticated" in args, "auth none without --allow-unauthenticated")
        r.expect(not any(a.startswith("--token-file") for a in command),
                 "test pod: no token with auth none")
    if modes == ["--auth-mode=kubernetes"]:
        r.expect(tls or "--allow-plaintext-tokens" in args,
                 "plaintext tokens without --allow-plaintext-tokens")
        r.expect(any(a.startswith("--token-file=") for a in command), "test pod: --token-file")
        r.expect(REVIEW_RULES <= rule_set(cluster_role(r) or {}) or not r.all("ServiceAccount"),
                 "ClusterRole: tokenreviews and subjectaccessreviews create")
    r.expect(tls == ("--tls" in command), "test pod: --tls exactly when the server has TLS")
    r.expect(("--allow-token-without-tls" in command)
             == (not tls and modes == ["--auth-mode=kubernetes"]),
             "test pod: --allow-token-without-tls exactly for a token without TLS")
    if tls:
        r.expect("--tls-key-file=/etc/informerd/tls/tls.key" in args, "args: --tls-key-file")
        r.expect(f"--ca-file={TLS_MOUNT}/ca.crt" in command, "test pod: --ca-file the server's CA")
        secret = r.volumes().get("tls", {}).get("secret", {}).get("secretName")
        pod = r.one("Pod", f"{FULLNAME}-test-health")
        test_secret = [v["secret"]["secretName"] for v in pod["spec"]["volumes"]
                       if v["name"] == "tls"]
        r.expect(test_secret == [secret], f"test pod: the server's Secret {secret}, got {test_secret}")
    else:
        r.expect("tls" not in r.volumes(), "tls volume without TLS")
        r.expect(not r.all("Secret") and not r.all("Certificate"), "certificate without TLS")


def pem_files(secret, directory):
    paths = {}
    for key, value in secret["data"].items():
        paths[key] = os.path.join(directory, key)
        with open(paths[key], "wb") as f:
            f.write(base64.b64decode(value))
    return paths


def service_dns_names(namespace):
    names = []
    for service in (FULLNAME, f"{FULLNAME}-headless"):
        names += [service, f"{service}.{namespace}", f"{service}.{namespace}.svc",
                  f"{service}.{namespace}.svc.cluster.local"]
    return names


def check_generated_certificate(r):
    """The chart's own CA and server certificate: a kubernetes.io/tls Secret
    whose tls.crt the CA in ca.crt signed, for the Service's names."""
    secret = r.one("Secret", TLS_SECRET)
    r.expect(secret["type"] == "kubernetes.io/tls", "TLS Secret: type kubernetes.io/tls")
    r.expect(sorted(secret["data"]) == ["ca.crt", "tls.crt", "tls.key"],
             f"TLS Secret: ca.crt, tls.crt, tls.key, got {sorted(secret['data'])}")
    r.expect(r.volumes()["tls"]["secret"]["secretName"] == TLS_SECRET,
             "tls volume from the generated Secret")
    with tempfile.TemporaryDirectory() as directory:
        paths = pem_files(secret, directory)
        verify = subprocess.run(["openssl", "verify", "-CAfile", paths["ca.crt"], paths["tls.crt"]],
                                capture_output=True, text=True)
        r.expect(verify.returncode == 0, f"tls.crt not signed by ca.crt: {verify.stdout}{verify.stderr}")
        sans = subprocess.run(["openssl", "x509", "-in", paths["tls.crt"], "-noout", "-ext",
                               "subjectAltName"], capture_output=True, text=True).stdout
        for name in service_dns_names(r.namespace) + ["localhost"]:
            r.expect(f"DNS:{name}," in sans + ",", f"certificate lacks DNS name {name}: {sans}")
        r.expect("IP Address:127.0.0.1" in sans, "certificate lacks 127.0.0.1 (port-forward)")
        key = subprocess.run(["openssl", "pkey", "-in", paths["tls.key"], "-pubout"],
                             capture_output=True, text=True).stdout
        cert_key = subprocess.run(["openssl", "x509", "-in", paths["tls.crt"], "-noout", "-pubkey"],
                                  capture_output=True, text=True).stdout
        r.expect(key and key == cert_key, "tls.key does not belong to tls.crt")
        # A year for the server certificate, renewed by upgrades; ten for
        # the CA clients trust (finding 8: both were ten years).
        for path, days in ((paths["tls.crt"], 365), (paths["ca.crt"], 3650)):
            lasts = subprocess.run(["openssl", "x509", "-in", path, "-noout", "-checkend",
                                    str((days - 1) * 86400)], capture_output=True, text=True)
            ends = subprocess.run(["openssl", "x509", "-in", path, "-noout", "-checkend",
                                   str((days + 1) * 86400)], capture_output=True, text=True)
            r.expect(lasts.returncode == 0 and ends.returncode != 0,
                     f"{path}: not valid for {days} days")
    not_after = int(secret["metadata"]["annotations"]["informerd.io/not-after"])
    r.expect(0 <= time.time() + 365 * 86400 - not_after <= 86400 + 3600,
             f"informerd.io/not-after {not_after} is not a year from today")
    pod_annotations = r.one("Deployment")["spec"]["template"]["metadata"]["annotations"]
    r.expect(pod_annotations.get("checksum/tls") == str(not_after),
             "the pods carry the certificate's end (checksum/tls), so a renewal rolls them")
    ca = r.one("Secret", f"{FULLNAME}-ca")
    r.expect(sorted(ca["data"]) == ["ca.crt", "ca.key"] and ca["data"]["ca.crt"] == secret["data"]["ca.crt"],
             "CA Secret: the ca.crt of the TLS Secret, and its key")
    mounted = [v["secret"]["secretName"] for v in r.volumes().values() if "secret" in v]
    r.expect(f"{FULLNAME}-ca" not in mounted, "the CA's key is mounted nowhere")


def cluster_role(r):
    roles = r.all("ClusterRole")
    return roles[0] if roles else None


def check_default(r):
    served = r.served_resources()
    r.expect([x["resource"] for x in served] == ["configmaps", "pods"],
             f"config: default resources, got {served}")
    r.expect(rule_set(cluster_role(r)) == read_rules(served) | REVIEW_RULES,
             "ClusterRole: exactly get/list/watch on the served resources and the reviews")
    binding = r.one("ClusterRoleBinding", f"{r.namespace}-{FULLNAME}")
    r.expect(binding["subjects"][0]["name"] == FULLNAME, "ClusterRoleBinding: the ServiceAccount")
    r.expect(not r.all("Role"), "no Roles without watchNamespaces")
    r.expect(r.one("Deployment")["spec"]["replicas"] == 2, "replicaCount default 2")
    affinity = r.one("Deployment")["spec"]["template"]["spec"].get("affinity", {})
    r.expect("podAntiAffinity" in affinity, "pod anti-affinity by default")
    pdb = r.one("PodDisruptionBudget")
    r.expect(pdb["apiVersion"] == "policy/v1", f"PDB: policy/v1, got {pdb['apiVersion']}")
    r.expect(pdb["spec"]["minAvailable"] == 1, "PDB: minAvailable 1")
    # Secure by default: token authentication and RBAC per read, over TLS
    # with a certificate the chart made, and no risk accepted.
    args = r.args()
    r.expect("--auth-mode=kubernetes" in args, "default: --auth-mode=kubernetes")
    r.expect("--tls-cert-file=/etc/informerd/tls/tls.crt" in args, "default: TLS")
    accepted = [a for a in args if a.startswith(("--allow-", "--client-ca", "--http-tls"))]
    r.expect(not accepted, f"default: no risk accepted, no optional flag: {accepted}")
    # One audience per release: its Service's DNS name.
    audience = f"{FULLNAME}.{r.namespace}.svc"
    r.expect(f"--token-audiences={audience}" in args,
             f"default: --token-audiences={audience}, got "
             f"{[a for a in args if a.startswith('--token-audiences')]}")
    pod = r.one("Pod", f"{FULLNAME}-test-health")["spec"]
    projected = [v["projected"]["sources"][0]["serviceAccountToken"]["audience"]
                 for v in pod["volumes"] if v["name"] == "informerd-token"]
    r.expect(projected == [audience], f"test pod: a token for {audience}, got {projected}")
    check_generated_certificate(r)
    # The binary's 2 GiB of initial events would exceed the pod's 1 Gi.
    limits = r.config().get("limits", {})
    r.expect(limits.get("maxInitialBytes") == 256 << 20
             and limits.get("maxInitialBytesPerIdentity") == 64 << 20,
             f"default: initial events budgeted to a quarter of 1Gi, a caller a quarter of that, got {limits}")
    r.expect(r.config().get("initialEventsSeconds") == 600, "default: initialEventsSeconds 600")
    r.expect(not r.all("Certificate") and not r.all("Issuer"), "default: no cert-manager objects")
    for kind in ("ServiceMonitor", "PrometheusRule", "NetworkPolicy", "HorizontalPodAutoscaler"):
        r.expect(not r.all(kind), f"{kind} rendered while disabled")
    r.expect(not [c for c in r.all("ConfigMap") if c["metadata"]["name"] != FULLNAME],
             "default: no dashboard ConfigMap")
    # A root: it reads the API server, with nothing of a leaf.
    r.expect(not r.upstream_config(), f"root: no upstream keys, got {r.upstream_config()}")
    r.expect(set(r.volumes()) == {"config", "tls"} and set(r.mounts()) == {"config", "tls"},
             f"root: volumes config and tls only, got {sorted(r.volumes())}")
    r.expect("automountServiceAccountToken" not in r.one("Deployment")["spec"]["template"]["spec"],
             "root: its ServiceAccount token is mounted (it reads the API server)")


def check_namespaced(r):
    served = r.served_resources()
    r.expect(rule_set(cluster_role(r)) == REVIEW_RULES,
             "ClusterRole: only the reviews when only namespaces are served")
    for namespace in ("chart-team-a", "chart-team-b"):
        role = r.one("Role", f"{r.namespace}-{FULLNAME}", namespace)
        here = [x for x in served if x.get("namespace") == namespace]
        r.expect(here and rule_set(role) == read_rules(here),
                 f"Role in {namespace}: exactly its resources, got {rule_set(role)}")
        binding = r.one("RoleBinding", f"{r.namespace}-{FULLNAME}", namespace)
        r.expect(binding["subjects"][0]["namespace"] == r.namespace,
                 f"RoleBinding in {namespace}: the release's ServiceAccount")


def check_tls(r):
    args = r.args()
    for flag in ("--tls-cert-file=/etc/informerd/tls/tls.crt",
                 "--tls-key-file=/etc/informerd/tls/tls.key",
                 "--client-ca-file=/etc/informerd/client-ca/ca.crt"):
        r.expect(flag in args, f"args: {flag}")
    r.expect(r.volumes().get("tls", {}).get("secret", {}).get("secretName") == "informerd-tls",
             "tls volume from tls.secretName")
    r.expect(not r.all("Secret") and not r.all("Certificate"),
             "no certificate of the chart's own with tls.secretName")
    command = r.test_command()
    for flag in ("--tls", "--ca-file=/etc/informerd/tls/ca.crt",
                 "--cert-file=/etc/informerd/client/tls.crt"):
        r.expect(flag in command, f"test pod: {flag}")


def check_https(r):
    args = r.args()
    r.expect("--http-tls" in args, "args: --http-tls")
    r.expect(not any(a.startswith("--client-ca-file") for a in args), "no client CA")
    container = r.container()
    for probe in ("readinessProbe", "livenessProbe"):
        r.expect(container[probe]["httpGet"].get("scheme") == "HTTPS", f"{probe} uses HTTPS")


def check_auth(r):
    r.expect("--auth-mode=kubernetes" in r.args(), "args: --auth-mode=kubernetes")
    rules = rule_set(cluster_role(r))
    r.expect(rules == read_rules(r.served_resources()) | REVIEW_RULES,
             f"ClusterRole: reads plus review creation only, got {rules}")
    r.expect(any(a.startswith("--token-file=") for a in r.test_command()),
             "test pod: --token-file")


def check_token_audiences(r):
    check_auth(r)
    r.expect("--token-audiences=informerd,informerd.example" in r.args(),
             "args: --token-audiences from auth.tokenAudiences")
    r.expect("--token-file=/var/run/secrets/informerd/token" in r.test_command(),
             "test pod: the projected token for informerd")
    pod = r.one("Pod", f"{FULLNAME}-test-health")["spec"]
    projected = [v["projected"]["sources"][0]["serviceAccountToken"] for v in pod["volumes"]
                 if v["name"] == "informerd-token"]
    r.expect(projected and projected[0]["audience"] == "informerd"
             and projected[0]["path"] == "token",
             f"test pod: projected serviceAccountToken for audience informerd, got {projected}")
    mounts = [m["mountPath"] for m in pod["containers"][0]["volumeMounts"]
              if m["name"] == "informerd-token"]
    r.expect(mounts == ["/var/run/secrets/informerd"], f"test pod: token mount, got {mounts}")


def check_open(r):
    args = r.args()
    r.expect("--auth-mode=none" in args and "--allow-unauthenticated" in args,
             "open: --auth-mode=none --allow-unauthenticated")
    r.expect(not any(a.startswith("--tls") for a in args), "open: no TLS flags")
    r.expect(rule_set(cluster_role(r)) == read_rules(r.served_resources()),
             "open: ClusterRole reads only, no reviews")


def check_plaintext_tokens(r):
    args = r.args()
    r.expect("--auth-mode=kubernetes" in args and "--allow-plaintext-tokens" in args,
             "plaintext-tokens: --auth-mode=kubernetes --allow-plaintext-tokens")
    r.expect("--allow-unauthenticated" not in args, "plaintext-tokens: authentication stays")
    r.expect(not any(a.startswith("--tls") for a in args), "plaintext-tokens: no TLS flags")


def check_cert_manager(r):
    r.expect(not r.all("Secret"), "cert-manager: no generated Secret")
    issuers = {i["metadata"]["name"]: i["spec"] for i in r.all("Issuer")}
    r.expect(issuers == {f"{FULLNAME}-selfsigned": {"selfSigned": {}},
                         f"{FULLNAME}-ca": {"ca": {"secretName": f"{FULLNAME}-ca"}}},
             f"cert-manager: a self-signed Issuer and the release's CA Issuer, got {issuers}")
    ca = r.one("Certificate", f"{FULLNAME}-ca")["spec"]
    r.expect(ca.get("isCA") is True and ca["issuerRef"]["name"] == f"{FULLNAME}-selfsigned",
             "cert-manager: CA Certificate from the self-signed Issuer")
    server = r.one("Certificate", FULLNAME)["spec"]
    r.expect(server["secretName"] == TLS_SECRET, "cert-manager: server Certificate's Secret")
    r.expect(server["issuerRef"] == {"name": f"{FULLNAME}-ca", "kind": "Issuer",
                                     "group": "cert-manager.io"},
             f"cert-manager: signed by the CA Issuer, got {server['issuerRef']}")
    r.expect(set(service_dns_names(r.namespace)) <= set(server["dnsNames"]),
             f"cert-manager: the Service's DNS names, got {server['dnsNames']}")
    r.expect("server auth" in server.get("usages", []), "cert-manager: usage server auth")
    r.expect(r.volumes()["tls"]["secret"]["secretName"] == TLS_SECRET,
             "cert-manager: tls volume from the Certificate's Secret")


def check_monitoring(r):
    monitor = r.one("ServiceMonitor")
    r.expect(monitor["apiVersion"] == "monitoring.coreos.com/v1", "ServiceMonitor apiVersion")
    r.expect(monitor["metadata"]["labels"].get("release") == "prometheus",
             "ServiceMonitor: serviceMonitor.labels")
    r.expect(monitor["spec"]["endpoints"][0]["port"] == "http-metrics",
             "ServiceMonitor: scrapes http-metrics")
    headless = r.one("Service", f"{FULLNAME}-headless")
    r.expect(headless["spec"]["clusterIP"] == "None", "headless Service")
    policy = r.one("NetworkPolicy")
    grpc_rule, metrics_rule = policy["spec"]["ingress"]
    peers = grpc_rule["from"]
    r.expect(peers[0]["podSelector"]["matchLabels"] == {f"{FULLNAME}-client": "true"},
             "NetworkPolicy: client label first")
    r.expect(len(peers) == 2, "NetworkPolicy: networkPolicy.grpcFrom appended")
    r.expect(metrics_rule["ports"][0]["port"] == "http", "NetworkPolicy: metrics rule")
    test_labels = r.one("Pod", f"{FULLNAME}-test-health")["metadata"]["labels"]
    r.expect(test_labels.get(f"{FULLNAME}-client") == "true",
             "test pod: carries the client label the NetworkPolicy admits")
    r.expect(r.one("Deployment")["spec"]["replicas"] == 3, "replicaCount 3")
    check_alerts(r)
    check_dashboard(r)


def chart_file(name):
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "charts",
                        "informerd", "files", name)


def check_alerts(r):
    """The PrometheusRule holds files/alerts.yaml with monitoring.yaml's
    overrides, and nothing else changed."""
    rule = r.one("PrometheusRule")
    r.expect(rule["apiVersion"] == "monitoring.coreos.com/v1", "PrometheusRule apiVersion")
    r.expect(rule["metadata"]["namespace"] == r.namespace, "PrometheusRule: release namespace")
    r.expect(rule["metadata"]["labels"].get("release") == "prometheus",
             "PrometheusRule: prometheusRule.labels")
    with open(chart_file("alerts.yaml")) as f:
        source = yaml.safe_load(f)["groups"]
    groups = rule["spec"]["groups"]
    r.expect([g["name"] for g in groups] == [g["name"] for g in source],
             "PrometheusRule: the groups of files/alerts.yaml")
    rendered = {x["alert"]: x for g in groups for x in g["rules"]}
    for want in (x for g in source for x in g["rules"]):
        name = want["alert"]
        if name == "InformerdRelisting":
            r.expect(name not in rendered, f"{name}: enabled: false drops it")
            continue
        got = rendered.get(name)
        if got is None:
            r.errors.append(f"PrometheusRule: {name} missing")
            continue
        if name == "InformerdVersionLagGrowing":
            r.expect(got["for"] == "20m" and got["labels"]["severity"] == "critical"
                     and got["expr"] == "min_over_time(informerd_resource_version_lag[10m]) > 5000",
                     f"{name}: for, severity and expr overridden, got {got}")
        else:
            r.expect(got["expr"] == want["expr"] and got["for"] == want["for"]
                     and got["labels"]["severity"] == want["labels"]["severity"],
                     f"{name}: as in files/alerts.yaml, got {got}")
        r.expect(got["labels"].get("team") == "platform", f"{name}: prometheusRule.alertLabels")
        r.expect(got["annotations"]["runbook_url"]
                 == "https://docs.example.com/informerd/OPERATIONS.md#" + name.lower(),
                 f"{name}: runbook_url under prometheusRule.runbookBaseURL")
        r.expect(got["annotations"]["description"] == want["annotations"]["description"],
                 f"{name}: description as in files/alerts.yaml")


def check_dashboard(r):
    dashboard = r.one("ConfigMap", f"{FULLNAME}-dashboard")
    r.expect(dashboard["metadata"]["labels"].get("grafana_dashboard") == "1",
             "dashboard ConfigMap: labelled for Grafana's sidecar")
    r.expect(dashboard["metadata"].get("annotations", {}).get("grafana_folder") == "platform",
             "dashboard ConfigMap: grafanaDashboard.annotations")
    with open(chart_file("dashboard.json")) as f:
        want = json.load(f)
    got = json.loads(dashboard["data"]["informerd.json"])
    r.expect(got == want, "dashboard ConfigMap: files/dashboard.json unchanged")
    r.expect(got["uid"] == "informerd" and got["panels"], "dashboard: uid and panels")


def check_custom(r):
    deployment = r.one("Deployment")
    pod = deployment["spec"]["template"]["spec"]
    r.expect(deployment["spec"]["replicas"] == 1, "replicaCount 1")
    r.expect(not r.all("PodDisruptionBudget"), "no PDB for a single replica")
    required = pod["affinity"]["podAntiAffinity"].get("requiredDuringSchedulingIgnoredDuringExecution")
    r.expect(bool(required), "podAntiAffinity hard: required anti-affinity")
    r.expect(pod.get("priorityClassName") == "informerd-critical", "priorityClassName")
    r.expect(pod.get("nodeSelector") == {"kubernetes.io/os": "linux"}, "nodeSelector")
    r.expect(pod.get("tolerations", [{}])[0].get("key") == "dedicated", "tolerations")
    r.expect(r.args()[-1] == "--log-json=false", "extraArgs last, so they override")
    r.expect(r.container().get("env")[1:] == [{"name": "TZ", "value": "UTC"}],
             "extraEnv, after POD_IP")
    r.expect(pod["serviceAccountName"] == "informerd-external", "serviceAccount.name")
    for kind in ("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"):
        r.expect(not r.all(kind), f"{kind} rendered although not to be created")


def check_rbac_cluster(r):
    check_auth(r)


def projected_token(r):
    """The serviceAccountToken source of the leaf's upstream-token volume."""
    volume = r.volumes().get("upstream-token", {})
    sources = volume.get("projected", {}).get("sources", [])
    r.expect(len(sources) == 1 and "serviceAccountToken" in sources[0],
             f"upstream-token: one projected serviceAccountToken, got {volume}")
    return sources[0]["serviceAccountToken"] if sources else {}


def check_leaf_token(r, audience):
    """The leaf sends its ServiceAccount's projected token, mounted where
    upstreamTokenFile points."""
    r.expect(r.upstream_config().get("upstreamTokenFile") == f"{UPSTREAM_TOKEN_DIR}/token",
             "leaf: upstreamTokenFile is the projected token")
    r.expect(r.mounts().get("upstream-token") == UPSTREAM_TOKEN_DIR,
             f"leaf: upstream-token mounted at {UPSTREAM_TOKEN_DIR}, got {r.mounts()}")
    token = projected_token(r)
    r.expect(token.get("path") == "token" and token.get("expirationSeconds") == 3600,
             f"leaf: token path and lifetime, got {token}")
    r.expect(token.get("audience") == audience,
             f"leaf: token audience {audience!r}, got {token.get('audience')!r}")


def check_leaf_ca(r, source):
    """Only the CA key of the root's Secret or ConfigMap, where
    upstreamCaFile points: a root's TLS Secret also holds its key."""
    r.expect(r.upstream_config().get("upstreamCaFile") == f"{UPSTREAM_CA_DIR}/ca.crt",
             "leaf: upstreamCaFile")
    r.expect(r.mounts().get("upstream-ca") == UPSTREAM_CA_DIR, "leaf: upstream-ca mount")
    volume = r.volumes().get("upstream-ca", {})
    r.expect(volume.get(source[0], {}).get(source[1]) == source[2],
             f"leaf: CA from {source}, got {volume}")
    items = volume.get(source[0], {}).get("items")
    r.expect(items == [{"key": "ca.crt", "path": "ca.crt"}],
             f"leaf: only ca.crt of the {source[0]} mounted, got {items}")


def check_leaf(r):
    """A leaf of informerd-root.informerd.svc over TLS, with a token for the
    root's audience, autoscaled."""
    upstream = r.upstream_config()
    r.expect(upstream.get("upstream") == "grpcs://informerd-root.informerd.svc:50051",
             f"leaf: upstream grpcs:// the root's Service, got {upstream}")
    r.expect(set(upstream) == {"upstream", "upstreamCaFile", "upstreamTokenFile"},
             f"leaf: upstream keys, got {sorted(upstream)}")
    # The root's Service DNS name, from upstream.address: the default
    # audience of a root installed with the chart's defaults.
    check_leaf_token(r, "informerd-root.informerd.svc")
    check_leaf_ca(r, ("configMap", "name", "informerd-root-ca"))
    # RBAC: what the root's SubjectAccessReviews check, and the reviews of
    # its own callers; nothing to get from the API server.
    rules = rule_set(cluster_role(r))
    r.expect(rules == read_rules(r.served_resources(), LEAF_VERBS) | REVIEW_RULES,
             f"leaf ClusterRole: list and watch on the served resources and the reviews, "
             f"got {rules}")
    r.expect(not r.all("Role"), "leaf: no Roles without watchNamespaces")

    hpa = r.one("HorizontalPodAutoscaler")
    r.expect(hpa["apiVersion"] == "autoscaling/v2", f"HPA: autoscaling/v2, got {hpa['apiVersion']}")
    spec = hpa["spec"]
    r.expect(spec["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment",
                                        "name": FULLNAME},
             f"HPA: scales the Deployment, got {spec['scaleTargetRef']}")
    r.expect((spec["minReplicas"], spec["maxReplicas"]) == (2, 8),
             f"HPA: 2 to 8 pods, got {spec['minReplicas']} to {spec['maxReplicas']}")
    r.expect(spec["metrics"] == [
        {"type": "Resource",
         "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}},
        {"type": "Pods",
         "pods": {"metric": {"name": "informerd_watchers_open"},
                  "target": {"type": "AverageValue", "averageValue": "500"}}},
    ], f"HPA: CPU at 60% and 500 open watchers per pod, got {spec['metrics']}")
    r.expect("behavior" not in spec, "HPA: Kubernetes' default behavior")
    r.expect("replicas" not in r.one("Deployment")["spec"], "Deployment: no replicas with the HPA")
    r.expect(r.one("PodDisruptionBudget")["spec"]["minAvailable"] == 1,
             "PDB: kept with autoscaling.minReplicas 2")


def check_leaf_namespaced(r):
    """A leaf of one namespace, in the root's namespace: the root's own TLS
    Secret for the CA, a client certificate, no reviews of its own callers
    (auth none) and so no API server access at all."""
    upstream = r.upstream_config()
    r.expect(upstream == {
        "upstream": "grpcs://informerd-root:50051",
        "upstreamCaFile": f"{UPSTREAM_CA_DIR}/ca.crt",
        "upstreamCertFile": f"{UPSTREAM_CLIENT_DIR}/tls.crt",
        "upstreamKeyFile": f"{UPSTREAM_CLIENT_DIR}/tls.key",
        "upstreamTokenFile": f"{UPSTREAM_TOKEN_DIR}/token",
    }, f"leaf-namespaced: upstream keys, got {upstream}")
    # The chart's default audience, which a root of the chart's defaults
    # takes: a bare Service name is one in the leaf's own namespace.
    check_leaf_token(r, f"informerd-root.{r.namespace}.svc")
    check_leaf_ca(r, ("secret", "secretName", "informerd-root-tls"))
    r.expect(r.mounts().get("upstream-client") == UPSTREAM_CLIENT_DIR, "leaf: client cert mount")
    client = r.volumes().get("upstream-client", {}).get("secret", {})
    r.expect(client.get("secretName") == "informerd-leaf-client",
             f"leaf: client certificate Secret, got {client}")
    pod = r.one("Deployment")["spec"]["template"]["spec"]
    r.expect(pod.get("automountServiceAccountToken") is False,
             "leaf with auth none: no API server token mounted")
    r.expect(not r.all("ClusterRole") and not r.all("ClusterRoleBinding"),
             "leaf-namespaced: nothing cluster-wide (no reviews, namespaced reads)")
    role = r.one("Role", f"{r.namespace}-{FULLNAME}", "chart-team-a")
    r.expect(rule_set(role) == read_rules(r.served_resources(), LEAF_VERBS),
             f"leaf-namespaced Role: list and watch on its resources, got {rule_set(role)}")
    r.expect(r.one("Deployment")["spec"].get("replicas") == 3, "replicaCount 3 without an HPA")
    r.expect(not r.all("HorizontalPodAutoscaler"), "no HPA while autoscaling is off")


def check_leaf_plaintext(r):
    """A leaf reading an open root in plaintext, accepted by
    upstream.allowInsecure, sending no token: it needs no grants from the
    root's point of view, only the reviews of its own callers."""
    upstream = r.upstream_config()
    r.expect(upstream == {"upstream": "grpc://informerd-root.informerd.svc:50051"},
             f"leaf-plaintext: only a grpc:// upstream, got {upstream}")
    r.expect("--allow-insecure-upstream" in r.args(), "args: --allow-insecure-upstream")
    r.expect(not {"upstream-token", "upstream-ca", "upstream-client"} & set(r.volumes()),
             f"leaf-plaintext: no token or certificates toward the root, got {sorted(r.volumes())}")
    r.expect(rule_set(cluster_role(r)) == REVIEW_RULES,
             f"leaf-plaintext ClusterRole: the reviews only, got {rule_set(cluster_role(r))}")


SET_CHECKS = {
    "default": check_default,
    "namespaced": check_namespaced,
    "tls": check_tls,
    "https": check_https,
    "auth": check_token_audiences,
    "open": check_open,
    "plaintext-tokens": check_plaintext_tokens,
    "cert-manager": check_cert_manager,
    "monitoring": check_monitoring,
    "custom": check_custom,
    "rbac-cluster": check_rbac_cluster,
    "leaf": check_leaf,
    "leaf-namespaced": check_leaf_namespaced,
    "leaf-plaintext": check_leaf_plaintext,
}


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in SET_CHECKS:
        sys.exit(f"usage: {sys.argv[0]} {{{','.join(SET_CHECKS)}}} RENDERED.yaml NAMESPACE")
    name, path, namespace = sys.argv[1:]
    with open(path) as f:
        rendered = Rendered(f.read(), namespace)
    try:
        check_common(rendered)
        check_security(rendered)
        check_proxy(rendered)
        SET_CHECKS[name](rendered)
    except (AssertionError, KeyError, TypeError, IndexError, ValueError) as error:
        rendered.errors.append(f"unexpected shape: {error!r}")
    for error in rendered.errors:
        print(f"{name}: {error}")
    sys.exit(1 if rendered.errors else 0)


if __name__ == "__main__":
    main()
