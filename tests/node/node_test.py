"""The Helm chart on a real node (hack/node.sh): informerd and its clients in
pods, from the images hack/images.sh built. One JUnit testcase per step;
each needs the ones before it, so the first failure ends the run (the
later steps are reported failed with that reason).

Cases:
  images           informerd's image (deploy/Dockerfile) and the example
                   clients' images are in the node's runtime.
  install          `helm install` with the chart's default values: the
                   Deployment becomes available, both pods run on the node
                   from informerd's image, and each turned Ready through the
                   /readyz probe, which answers only once every resource is
                   synced.
  helm-test        `helm test` runs the chart's test pod, which passes.
  attack-admin     a pod of another namespace, with no token and no RBAC,
                   floods one informerd pod's admin port (its IP, 8080)
                   for 45 s with 1000 connections trickling their requests
                   and two chunked POST streams (tests/node/admin_flood.py,
                   issue 26, finding 2); the kubelet's probes on that port
                   never fail: the pod stays Ready, no Unhealthy event, no
                   restart, and the attacker's own probes all answer.
  attack-h2        a pod of another namespace, with no token, floods one
                   informerd pod's gRPC port (the chart's proxy) for 20 s
                   with HTTP/2 streams opened and reset at once on 16
                   connections (bench/rapidreset, run in the pod through
                   kubectl exec; issue 26, finding 3), while a caller on
                   the node Lists ConfigMaps with the clients' token:
                   every List is answered within its 5 s deadline,
                   informerd's RSS stays within 1.2x, and neither of the
                   pod's containers restarts (the proxy's memory limit is
                   256Mi). The caller's p99 ratio is printed.
  clients          the Go controller-runtime and Java client-java example
                   controllers and the Python and C++ example informers in
                   pods reach informerd through the Service's
                   DNS name with TLS (the chart's CA) and a projected token
                   for informerd's audience; under writes, each one's
                   handler state ends equal to the apiserver's LIST (every
                   object reconciled by the controllers).
  upgrade          `helm upgrade` changing a value rolls both pods under
                   writes; the clients end equal to the LIST again and
                   nobody relisted: the new pods served no List and no
                   initial state.
  eviction         with the node cordoned (no replacement can start), the
                   eviction API evicts one of the two pods (the
                   PodDisruptionBudget allows one), then refuses the other
                   (429); uncordoned, the Deployment recovers.
  tier             a leaf release in a namespace of its own reads the root
                   release over TLS with its own projected token; a client
                   pod of the leaf ends equal to the LIST under writes.
  uninstall        `helm uninstall` of both releases leaves no object of
                   either behind, namespaced or cluster-scoped.

On a failure the case prints the events and last log lines of the pods
involved. Run through tests/node/run.sh, which brings the node up, builds
and imports the images and takes everything down afterwards.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
import xml.etree.ElementTree as ElementTree
from typing import Dict, List, Optional

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "e2e"))
import harness  # noqa: E402
from harness import ApiServer, BackgroundChurn, Churn, HarnessError, TestCase  # noqa: E402

ROOT = harness.ROOT
CHART = os.path.join(ROOT, "charts", "informerd")
RELEASE = "informerd"
NAMESPACE = "informerd"
LEAF_RELEASE = "informerd-leaf"
LEAF_NAMESPACE = "informerd-leaf"
CLIENT_NAMESPACE = "informerd-clients"
APPS_NAMESPACE = "informerd-apps"
GRPC_TARGET = "%s.%s.svc:50051" % (RELEASE, NAMESPACE)
# The chart's default audience for client tokens (auth.tokenAudiences): the
# release's Service DNS name.
AUDIENCE = "%s.%s.svc" % (RELEASE, NAMESPACE)
LEAF_TARGET = "%s.%s.svc:50051" % (LEAF_RELEASE, LEAF_NAMESPACE)
ATTACKER_NAMESPACE = "informerd-attacker"
ATTACK_SECONDS = 45
H2_ATTACKER_NAMESPACE = "informerd-attacker-h2"
TIMEOUT = "300s"


def run(args: List[str], check: bool = True, timeout: float = 600,
        stderr_to_stdout: bool = True) -> str:
    """ARGS' output (with its stderr unless told otherwise: kubectl prints
    deprecation warnings there); HarnessError with it if ARGS failed."""
    proc = subprocess.run(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT if stderr_to_stdout else subprocess.PIPE,
                          timeout=timeout)
    out = proc.stdout.decode("utf-8", "replace")
    if check and proc.returncode != 0:
        err = "" if stderr_to_stdout else proc.stderr.decode("utf-8", "replace")
        raise HarnessError("%s exited %d:\n%s%s" % (" ".join(args), proc.returncode,
                                                   out[-4000:], err[-4000:]))
    return out


def kubectl(*args: str, check: bool = True) -> str:
    return run(["kubectl"] + list(args), check=check)


def kubectl_json(*args: str) -> dict:
    return json.loads(kubectl(*args, "-o", "json"))


def helm(*args: str, namespace: str = "") -> str:
    """helm ARGS; on failure the error also shows NAMESPACE's pods, events
    and logs (a missing image, a pod never Ready, a failing test pod)."""
    try:
        return run(["helm"] + list(args), timeout=900)
    except HarnessError as e:
        if not namespace:
            raise
        raise HarnessError("%s\n%s" % (e, diagnose(namespace))) from None


def kubectl_apply(objects: List[dict]) -> None:
    proc = subprocess.run(["kubectl", "apply", "-f", "-"],
                          input=json.dumps({"apiVersion": "v1", "kind": "List",
                                            "items": objects}).encode(),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if proc.returncode != 0:
        raise HarnessError("kubectl apply: %s" % proc.stdout.decode("utf-8", "replace"))


def diagnose(namespace: str, selector: str = "") -> str:
    """The pods' states, the namespace's events and each pod's last log
    lines, for a failure message."""
    parts = []
    args = ["get", "pods", "-n", namespace, "-o", "wide"] + (["-l", selector] if selector else [])
    parts.append(kubectl(*args, check=False))
    parts.append(kubectl("get", "events", "-n", namespace, "--sort-by=.lastTimestamp",
                         check=False)[-3000:])
    pods = json.loads(kubectl("get", "pods", "-n", namespace, "-o", "json",
                              *(["-l", selector] if selector else []), check=False)
                      or "{}").get("items", [])
    for pod in pods:
        name = pod["metadata"]["name"]
        parts.append("--- last log lines of %s/%s:\n%s" % (
            namespace, name, kubectl("logs", "-n", namespace, name, "--all-containers",
                                     "--tail=20", check=False)))
    return "\n".join(parts)


def wait_for(predicate, timeout: float, what: str, namespace: str, selector: str = "") -> None:
    try:
        harness.wait_until(predicate, timeout, what)
    except HarnessError as e:
        raise HarnessError("%s\n%s" % (e, diagnose(namespace, selector)))


def release_pods(namespace: str, release: str) -> List[dict]:
    """The release's informerd pods, less those terminating."""
    pods = kubectl_json("get", "pods", "-n", namespace, "-l",
                        "app.kubernetes.io/instance=%s,app.kubernetes.io/name=informerd" % release
                        )["items"]
    return [p for p in pods if not p["metadata"].get("deletionTimestamp")]


def pod_ready(pod: dict) -> bool:
    return any(c["type"] == "Ready" and c["status"] == "True"
               for c in pod["status"].get("conditions", []))


def deployment_settled(namespace: str, name: str, replicas: int) -> bool:
    """The rollout is over: every replica is updated, available, and the
    old pods are gone."""
    d = kubectl_json("get", "deployment", "-n", namespace, name)
    s = d["status"]
    pods = release_pods(namespace, d["metadata"]["labels"]["app.kubernetes.io/instance"])
    return (s.get("observedGeneration") == d["metadata"]["generation"]
            and s.get("updatedReplicas") == replicas and s.get("availableReplicas") == replicas
            and s.get("replicas") == replicas and len(pods) == replicas)


def metrics(pod: dict) -> Dict[str, float]:
    url = "http://%s:8080/metrics" % pod["status"]["podIP"]
    with urllib.request.urlopen(url, timeout=10) as resp:
        return harness.parse_metrics(resp.read().decode())


def full_states_served(pod: dict) -> float:
    """Lists and initial states this informerd served: what a relist costs."""
    m = metrics(pod)
    return (harness.metric_sum(m, "informerd_rpcs_total", method="List")
            + harness.metric_sum(m, "informerd_watch_initial_states_total"))


class PodClient:
    """An example controller in a pod, as harness.wait_quiescent wants a
    client: its stdout lines are read from the node's CRI log file (stderr
    lines, its logs, are kept apart), alive while its one container runs
    without a restart."""

    def __init__(self, lang: str, namespace: str, name: str):
        self.lang = lang
        self.namespace = namespace
        self.name = name
        self.label_selector = ""
        # As harness.ExampleClient: the adapters' controllers reconcile, the
        # libraries' own examples add a LATE handler after SYNCED.
        self.reconciles = lang in harness.ADAPTERS
        self.late_handler = lang in harness.LANGUAGES
        self.stderr_path = "(kubectl logs -n %s %s)" % (namespace, name)

        class _Proc:
            returncode = None
        self.proc = _Proc()
        # The pod's uid names its log directory; it never changes, so it is
        # asked once (lines() is polled).
        self._uid: Optional[str] = None

    def describe(self) -> str:
        return "%s pod %s/%s" % (self.lang, self.namespace, self.name)

    def _pod(self) -> dict:
        return kubectl_json("get", "pod", "-n", self.namespace, self.name)

    def alive(self) -> bool:
        pod = self._pod()
        statuses = pod["status"].get("containerStatuses") or []
        if pod["status"].get("phase") in ("Failed", "Succeeded") or any(
                s.get("restartCount", 0) > 0 for s in statuses):
            self.proc.returncode = "%s, restarts %s" % (
                pod["status"].get("phase"), [s.get("restartCount") for s in statuses])
            self.stderr_path = diagnose(self.namespace, "informerd-test-client=%s" % self.name)
            return False
        return True

    def lines(self) -> List[str]:
        """The stdout lines so far, from the container's log file (CRI
        format: time, stream, P(artial) or F(ull), text)."""
        if self._uid is None:
            self._uid = self._pod()["metadata"]["uid"]
        path = "/var/log/pods/%s_%s_%s/client/0.log" % (self.namespace, self.name, self._uid)
        out: List[str] = []
        partial = ""
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                for raw in f:
                    fields = raw.rstrip("\n").split(" ", 3)
                    if len(fields) < 4 or fields[1] != "stdout":
                        continue
                    partial += fields[3]
                    if fields[2] == "F":
                        out.append(partial)
                        partial = ""
        except FileNotFoundError:
            pass
        return out

    def wait_synced(self, timeout: float) -> None:
        def synced() -> bool:
            if not self.alive():
                raise HarnessError("%s stopped before SYNCED (%s):\n%s"
                                   % (self.describe(), self.proc.returncode, self.stderr_path))
            return "SYNCED" in self.lines()
        wait_for(synced, timeout, "SYNCED from the %s" % self.describe(), self.namespace)


def container_pid(pod_uid: str, command: str) -> int:
    """The node's pid of the process named COMMAND in the pod with POD_UID,
    found by the pod's cgroup (the kubelet names it after the uid)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/comm" % entry) as f:
                if f.read().strip() != command:
                    continue
            with open("/proc/%s/cgroup" % entry) as f:
                cgroups = f.read()
        except OSError:
            continue
        if pod_uid in cgroups or pod_uid.replace("-", "_") in cgroups:
            found.append(int(entry))
    if len(found) != 1:
        raise HarnessError("want one %s process of pod %s on the node, found %s"
                           % (command, pod_uid, found))
    return found[0]


def client_pod(name: str, image: str, target: str, ca_config_map: str) -> dict:
    """An example controller's pod: informerd at TARGET over TLS with the CA
    of CA_CONFIG_MAP and a projected token for that release's audience (the
    chart's default: its Service DNS name, TARGET's host); the apiserver
    through its own ServiceAccount (in-cluster config)."""
    audience = target.rsplit(":", 1)[0]
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": CLIENT_NAMESPACE,
                     "labels": {"informerd-test-client": name}},
        "spec": {
            "serviceAccountName": "controller",
            "restartPolicy": "Never",
            "securityContext": {"runAsNonRoot": True, "runAsUser": 65532},
            "containers": [{
                "name": "client", "image": image, "imagePullPolicy": "Never",
                "args": ["--server", target, "--resource", "configmaps", "-n", APPS_NAMESPACE,
                         "--token-file", "/var/run/secrets/informerd/token",
                         "--ca-file", "/etc/informerd-ca/ca.crt"],
                "resources": {"requests": {"cpu": "50m", "memory": "128Mi"},
                              "limits": {"memory": "512Mi"}},
                "securityContext": {"allowPrivilegeEscalation": False,
                                    "readOnlyRootFilesystem": True,
                                    "capabilities": {"drop": ["ALL"]}},
                "volumeMounts": [
                    {"name": "token", "mountPath": "/var/run/secrets/informerd", "readOnly": True},
                    {"name": "ca", "mountPath": "/etc/informerd-ca", "readOnly": True},
                    {"name": "tmp", "mountPath": "/tmp"}],
            }],
            "volumes": [
                {"name": "token", "projected": {"sources": [{"serviceAccountToken": {
                    "audience": audience, "expirationSeconds": 3600, "path": "token"}}]}},
                {"name": "ca", "configMap": {"name": ca_config_map}},
                {"name": "tmp", "emptyDir": {}}],
        },
    }


class NodeSuite:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.images: Dict[str, str] = {}
        with open(args.images) as f:
            for line in f:
                name, ref = line.split()
                self.images[name] = ref
        self.api = ApiServer()
        self.rng = random.Random(args.seed)
        self.churn: Optional[Churn] = None
        self.clients: List[PodClient] = []
        self.leaf_clients: List[PodClient] = []
        # "what ran: image (image ID)", for the summary row.
        self.ran: Dict[str, str] = {}

    # --- cases -------------------------------------------------------------

    def case_images(self, case: TestCase) -> None:
        listed = run(["ctr", "--address", os.environ["INFORMERD_NODE_CONTAINERD_SOCK"],
                      "-n", "k8s.io", "images", "ls", "-q"])
        for name in ("informerd",) + CLIENT_LANGS:
            ref = self.images.get(name)
            if not ref or ref not in listed.split():
                raise HarnessError("image %s (%s) is not in the node's runtime; it has:\n%s"
                                   % (name, ref, listed))
            case.log("%s: %s" % (name, ref))

    def case_install(self, case: TestCase) -> None:
        helm("install", RELEASE, CHART, "-n", NAMESPACE, "--create-namespace",
             "--wait", "--timeout", TIMEOUT, namespace=NAMESPACE)
        wait_for(lambda: deployment_settled(NAMESPACE, RELEASE, 2), 300,
                 "the Deployment to be available", NAMESPACE)
        for pod in release_pods(NAMESPACE, RELEASE):
            self.check_informerd_pod(case, pod, self.images["informerd"])

    def check_informerd_pod(self, case: TestCase, pod: dict, image: str) -> None:
        name = pod["metadata"]["name"]
        node = pod["spec"].get("nodeName")
        if node != os.environ["INFORMERD_NODE_NAME"] or pod["status"].get("phase") != "Running":
            raise HarnessError("pod %s: phase %s on node %s" % (name, pod["status"].get("phase"), node))
        container = pod["spec"]["containers"][0]
        status = pod["status"]["containerStatuses"][0]
        if status["image"] != image and status["image"] != image.split("/", 2)[-1]:
            raise HarnessError("pod %s runs image %s, not %s" % (name, status["image"], image))
        probe = container["readinessProbe"]["httpGet"]["path"]
        if probe != "/readyz" or not pod_ready(pod):
            raise HarnessError("pod %s: readiness probe %s, Ready %s" % (name, probe, pod_ready(pod)))
        # /readyz turns ok only when every resource has synced.
        m = metrics(pod)
        synced = [k for k, v in m.items() if k.startswith("informerd_resource_synced") and v == 1]
        unsynced = [k for k, v in m.items() if k.startswith("informerd_resource_synced") and v != 1]
        if not synced or unsynced:
            raise HarnessError("pod %s is Ready, but its resources are not all synced: %s"
                               % (name, unsynced or "no informerd_resource_synced samples"))
        case.log("pod %s Running and Ready on %s from %s (%s), %d resources synced"
                 % (name, node, status["image"], status["imageID"], len(synced)))
        self.ran["informerd pods"] = "%s (%s)" % (status["image"], status["imageID"][:19])

    def case_helm_test(self, case: TestCase) -> None:
        out = helm("test", RELEASE, "-n", NAMESPACE, "--timeout", TIMEOUT, "--logs",
                   namespace=NAMESPACE)
        case.log(out.strip().replace("\n", "\n    "))

    def case_attack_admin(self, case: TestCase) -> None:
        target = sorted(release_pods(NAMESPACE, RELEASE), key=lambda p: p["metadata"]["name"])[0]
        name = target["metadata"]["name"]
        restarts = target["status"]["containerStatuses"][0]["restartCount"]
        kubectl("create", "namespace", ATTACKER_NAMESPACE)
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "admin_flood.py")) as f:
            script = f.read()
        kubectl_apply([
            {"apiVersion": "v1", "kind": "ConfigMap",
             "metadata": {"name": "admin-flood", "namespace": ATTACKER_NAMESPACE},
             "data": {"admin_flood.py": script}},
            {"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": "admin-flood", "namespace": ATTACKER_NAMESPACE},
             "spec": {
                 "restartPolicy": "Never",
                 "automountServiceAccountToken": False,
                 "securityContext": {"runAsNonRoot": True, "runAsUser": 65532},
                 "containers": [{
                     "name": "attacker", "image": self.images["python"],
                     "imagePullPolicy": "Never",
                     "command": ["python3", "/attack/admin_flood.py",
                                 "%s:8080" % target["status"]["podIP"],
                                 "--connections", "1000", "--posts", "2",
                                 "--seconds", str(ATTACK_SECONDS)],
                     "volumeMounts": [{"name": "attack", "mountPath": "/attack"}],
                 }],
                 "volumes": [{"name": "attack", "configMap": {"name": "admin-flood"}}],
             }},
        ])
        started = time.time()
        not_ready = []

        def attack_over() -> bool:
            pod = kubectl_json("get", "pod", "-n", NAMESPACE, name)
            if not pod_ready(pod):
                not_ready.append(round(time.time() - started, 1))
            phase = kubectl_json("get", "pod", "-n", ATTACKER_NAMESPACE, "admin-flood")[
                "status"].get("phase")
            return phase in ("Succeeded", "Failed")
        wait_for(attack_over, ATTACK_SECONDS + 180, "the attacker pod to finish",
                 ATTACKER_NAMESPACE)
        report = kubectl("logs", "-n", ATTACKER_NAMESPACE, "admin-flood").strip().splitlines()
        result = json.loads(report[-1]) if report and report[-1].startswith("{") else None
        if result is None:
            raise HarnessError("the attacker printed no result:\n%s"
                               % diagnose(ATTACKER_NAMESPACE))
        case.log("attacker on %s: %s" % (name, json.dumps(result)))
        pod = kubectl_json("get", "pod", "-n", NAMESPACE, name)
        events = kubectl_json("get", "events", "-n", NAMESPACE,
                              "--field-selector", "involvedObject.name=%s,reason=Unhealthy" % name)
        # Probes that failed while the pod started (connection refused) are
        # older than the attack.
        since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started - 1))
        unhealthy = [e.get("message", "") for e in events["items"]
                     if (e.get("lastTimestamp") or e.get("eventTime") or "") >= since]
        problems = []
        if result["trickle_connections_opened"] < 1000 or result["probes"] < ATTACK_SECONDS - 5:
            problems.append("the attack did not run as asked: %s" % result)
        if not_ready:
            problems.append("pod %s was not Ready at %s s into the attack" % (name, not_ready))
        if unhealthy:
            problems.append("the kubelet's probes failed: %s" % unhealthy)
        if pod["status"]["containerStatuses"][0]["restartCount"] != restarts:
            problems.append("pod %s restarted" % name)
        if result["probes_failed"]:
            problems.append("%d of the attacker's %d probes of /healthz failed"
                            % (result["probes_failed"], result["probes"]))
        if problems:
            raise HarnessError("; ".join(problems))
        case.log("pod %s stayed Ready with no failed probe and no restart; the attacker's "
                 "%d probes of /healthz took at most %.3f s"
                 % (name, result["probes"], result["probe_max_seconds"]))
        kubectl("delete", "namespace", ATTACKER_NAMESPACE, "--wait=false")

    def setup_clients_namespace(self) -> None:
        """The clients' namespace: their ServiceAccount, its grants (list and
        watch configmaps in the apps namespace, which informerd checks with
        SubjectAccessReviews and the controllers' own API calls need too) and
        the chart's CA as a ConfigMap."""
        for ns in (CLIENT_NAMESPACE, APPS_NAMESPACE):
            kubectl("create", "namespace", ns)
        ca = kubectl("get", "secret", "-n", NAMESPACE, "%s-tls" % RELEASE,
                     "-o", "jsonpath={.data.ca\\.crt}")
        kubectl_apply([
            {"apiVersion": "v1", "kind": "ServiceAccount",
             "metadata": {"name": "controller", "namespace": CLIENT_NAMESPACE}},
            {"apiVersion": "v1", "kind": "ConfigMap",
             "metadata": {"name": "informerd-ca", "namespace": CLIENT_NAMESPACE},
             "binaryData": {"ca.crt": ca}},
            {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
             "metadata": {"name": "configmap-reader", "namespace": APPS_NAMESPACE},
             "rules": [{"apiGroups": [""], "resources": ["configmaps"],
                        "verbs": ["get", "list", "watch"]}]},
            {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
             "metadata": {"name": "controller", "namespace": APPS_NAMESPACE},
             "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                         "name": "configmap-reader"},
             "subjects": [{"kind": "ServiceAccount", "name": "controller",
                           "namespace": CLIENT_NAMESPACE}]},
        ])

    def start_clients(self, prefix: str, target: str) -> List[PodClient]:
        clients = []
        for lang in CLIENT_LANGS:
            image = self.images[lang]
            name = "%s-%s" % (prefix, lang)
            kubectl_apply([client_pod(name, image, target, "informerd-ca")])
            clients.append(PodClient(lang, CLIENT_NAMESPACE, name))
        for client in clients:
            client.wait_synced(240)
            status = client._pod()["status"]["containerStatuses"][0]
            self.ran["%s pods" % client.lang] = "%s (%s)" % (status["image"],
                                                             status["imageID"][:19])
        return clients

    def churn_and_check(self, case: TestCase, clients: List[PodClient], ops: int,
                        when: str, during=None) -> None:
        """Writes OPS changes in the background (while DURING runs, if
        given), then waits until every client equals the LIST."""
        assert self.churn is not None
        background = BackgroundChurn(self.churn)
        try:
            if during:
                during()
            target = self.churn.ops + ops
            harness.wait_until(lambda: self.churn.ops >= target, 120, "%d writes" % ops)
        finally:
            background.stop()
        harness.wait_quiescent(clients, self.api, self.churn, 180, when)
        case.log("%d clients equal the LIST of %d objects %s after %d writes in all"
                 % (len(clients), len(self.api.list_configmaps(APPS_NAMESPACE)), when,
                    self.churn.ops))

    def case_clients(self, case: TestCase) -> None:
        self.setup_clients_namespace()
        self.churn = Churn(self.api, APPS_NAMESPACE, self.rng)
        self.churn.random_ops(20)
        self.clients = self.start_clients("root", GRPC_TARGET)
        for client in self.clients:
            case.log("%s synced through %s with TLS and a token for audience %s"
                     % (client.describe(), GRPC_TARGET, AUDIENCE))
        self.churn_and_check(case, self.clients, 100, "under writes")
        case.log("kubectl get pods -A -o wide:\n" + kubectl("get", "pods", "-A", "-o", "wide"))

    def case_attack_h2(self, case: TestCase) -> None:
        target = sorted(release_pods(NAMESPACE, RELEASE), key=lambda p: p["metadata"]["name"])[0]
        name, ip, uid = target["metadata"]["name"], target["status"]["podIP"], target["metadata"]["uid"]
        restarts = {c["name"]: c["restartCount"] for c in target["status"]["containerStatuses"]}
        work = tempfile.mkdtemp(prefix="attack-h2-")
        os.chmod(work, 0o755)
        # Static, so that it runs in any image; mounted from the node.
        run(["bash", "-c", 'source "$0/client/go/env.sh" && cd "$0/bench/rapidreset" && '
             'CGO_ENABLED=0 go build -o "$1/rapidreset" .', ROOT, work])
        os.chmod(os.path.join(work, "rapidreset"), 0o755)
        kubectl("create", "namespace", H2_ATTACKER_NAMESPACE)
        kubectl_apply([{
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "flood", "namespace": H2_ATTACKER_NAMESPACE},
            "spec": {
                "automountServiceAccountToken": False,
                "securityContext": {"runAsNonRoot": True, "runAsUser": 65532},
                "containers": [{
                    "name": "attacker", "image": self.images["python"],
                    "imagePullPolicy": "Never",
                    # Idle: the caller's tool runs the flood in it, timed
                    # between its windows.
                    "command": ["python3", "-c", "import signal; signal.pause()"],
                    "volumeMounts": [{"name": "flood", "mountPath": "/flood", "readOnly": True}],
                }],
                "volumes": [{"name": "flood", "hostPath": {"path": work, "type": "Directory"}}],
            }}])
        wait_for(lambda: pod_ready(kubectl_json("get", "pod", "-n", H2_ATTACKER_NAMESPACE, "flood")),
                 120, "the attacker pod to run", H2_ATTACKER_NAMESPACE)
        ca = os.path.join(work, "ca.crt")
        with open(ca, "w") as f:
            f.write(base64.b64decode(kubectl("get", "secret", "-n", NAMESPACE, "%s-tls" % RELEASE,
                                             "-o", "jsonpath={.data.ca\\.crt}")).decode())
        token = os.path.join(work, "token")
        with open(token, "w") as f:
            f.write(run(["kubectl", "create", "token", "controller", "-n", CLIENT_NAMESPACE,
                         "--audience", AUDIENCE, "--duration", "10m"],
                        stderr_to_stdout=False).strip())
        pid = container_pid(uid, "informerd")
        out = run([os.path.join(work, "rapidreset"), "-address", "%s:50051" % ip, "-tls",
                   "-ca-file", ca, "-server-name", "%s.%s.svc" % (RELEASE, NAMESPACE),
                   "-token-file", token, "-namespace", APPS_NAMESPACE, "-pid", str(pid),
                   "-duration", "20s", "-window", "20s", "-connections", "16",
                   "-flood-via", "kubectl exec -n %s flood -- /flood/rapidreset" % H2_ATTACKER_NAMESPACE,
                   "-max-rss-ratio", "1.2", "-no-failed-lists"], check=False, timeout=300)
        case.log("flood from pod flood/%s against %s (%s:50051):\n%s"
                 % (H2_ATTACKER_NAMESPACE, name, ip, out.strip()))
        problems = []
        sent = re.search(r"(\d+) HEADERS\+RST_STREAM pairs sent", out)
        if not sent or int(sent.group(1)) < 10000:
            problems.append("the flood did not run as asked (fewer than 10000 resets)")
        problems += [line for line in out.splitlines() if line.startswith(("FAIL", "rapidreset:"))]
        pod = kubectl_json("get", "pod", "-n", NAMESPACE, name)
        after = {c["name"]: c["restartCount"] for c in pod["status"]["containerStatuses"]}
        if after != restarts:
            problems.append("containers restarted: %s before, %s after" % (restarts, after))
        if not pod_ready(pod):
            problems.append("pod %s is not Ready after the flood" % name)
        if problems:
            raise HarnessError("; ".join(problems))
        case.log("every List answered in time, informerd's RSS within 1.2x, no restart of %s"
                 % sorted(after))
        kubectl("delete", "namespace", H2_ATTACKER_NAMESPACE, "--wait=false")

    def case_upgrade(self, case: TestCase) -> None:
        before = {p["metadata"]["name"] for p in release_pods(NAMESPACE, RELEASE)}

        def upgrade() -> None:
            helm("upgrade", RELEASE, CHART, "-n", NAMESPACE, "--reuse-values",
                 "--set", "config.bookmarkIntervalSeconds=30", "--wait", "--timeout", TIMEOUT,
                 namespace=NAMESPACE)
            wait_for(lambda: deployment_settled(NAMESPACE, RELEASE, 2), 300,
                     "the rollout to finish", NAMESPACE)
        self.churn_and_check(case, self.clients, 100, "after the rolling upgrade", upgrade)
        after = release_pods(NAMESPACE, RELEASE)
        names = {p["metadata"]["name"] for p in after}
        if names & before:
            raise HarnessError("pods %s were not replaced by the upgrade" % sorted(names & before))
        served = {p["metadata"]["name"]: full_states_served(p) for p in after}
        case.log("rolled %s -> %s; Lists and initial states the new pods served: %s"
                 % (sorted(before), sorted(names), served))
        if any(served.values()):
            raise HarnessError("clients relisted after the rollout: the new pods served %s "
                               "full states (Lists + initial states)" % served)
        for pod in after:
            self.check_informerd_pod(case, pod, self.images["informerd"])

    def evict(self, name: str) -> int:
        body = {"apiVersion": "policy/v1", "kind": "Eviction",
                "metadata": {"name": name, "namespace": NAMESPACE}}
        try:
            # No retry: a 429 is the answer looked for, not a hiccup.
            ApiServer(retry_seconds=0).request(
                "POST", "/api/v1/namespaces/%s/pods/%s/eviction" % (NAMESPACE, name), body)
            return 201
        except harness.ApiError as e:
            return e.status

    def case_eviction(self, case: TestCase) -> None:
        node = os.environ["INFORMERD_NODE_NAME"]
        pdb = kubectl_json("get", "pdb", "-n", NAMESPACE, RELEASE)
        case.log("PodDisruptionBudget minAvailable %s, disruptionsAllowed %s"
                 % (pdb["spec"].get("minAvailable"), pdb["status"].get("disruptionsAllowed")))
        pods = sorted(p["metadata"]["name"] for p in release_pods(NAMESPACE, RELEASE))
        kubectl("cordon", node)
        try:
            status = self.evict(pods[0])
            if status != 201:
                raise HarnessError("evicting %s with both pods ready: %d, not allowed" % (pods[0], status))
            case.log("eviction of %s allowed" % pods[0])

            def budget_spent() -> bool:
                s = kubectl_json("get", "pdb", "-n", NAMESPACE, RELEASE)["status"]
                return s.get("disruptionsAllowed") == 0
            wait_for(budget_spent, 60, "the budget to count the eviction", NAMESPACE)
            status = self.evict(pods[1])
            if status != 429:
                raise HarnessError("evicting %s, the last ready pod: %d, not 429" % (pods[1], status))
            case.log("eviction of %s refused with 429 (the budget would be violated)" % pods[1])
        finally:
            kubectl("uncordon", node)
        wait_for(lambda: deployment_settled(NAMESPACE, RELEASE, 2), 300,
                 "the Deployment to recover after uncordon", NAMESPACE)

    def case_tier(self, case: TestCase) -> None:
        kubectl("create", "namespace", LEAF_NAMESPACE)
        ca = kubectl("get", "secret", "-n", NAMESPACE, "%s-tls" % RELEASE,
                     "-o", "jsonpath={.data.ca\\.crt}")
        kubectl_apply([{"apiVersion": "v1", "kind": "ConfigMap",
                        "metadata": {"name": "root-ca", "namespace": LEAF_NAMESPACE},
                        "binaryData": {"ca.crt": ca}}])
        helm("install", LEAF_RELEASE, CHART, "-n", LEAF_NAMESPACE,
             "--set", "upstream.address=%s" % GRPC_TARGET,
             "--set", "upstream.tls.caConfigMapName=root-ca",
             "--set", "replicaCount=1",
             "--wait", "--timeout", TIMEOUT, namespace=LEAF_NAMESPACE)
        wait_for(lambda: deployment_settled(LEAF_NAMESPACE, LEAF_RELEASE, 1), 300,
                 "the leaf Deployment to be available", LEAF_NAMESPACE)
        # The leaf's own CA, for its clients.
        leaf_ca = kubectl("get", "secret", "-n", LEAF_NAMESPACE, "%s-tls" % LEAF_RELEASE,
                          "-o", "jsonpath={.data.ca\\.crt}")
        kubectl_apply([{"apiVersion": "v1", "kind": "ConfigMap",
                        "metadata": {"name": "informerd-leaf-ca", "namespace": CLIENT_NAMESPACE},
                        "binaryData": {"ca.crt": leaf_ca}}])
        pod = client_pod("leaf-go-controller-runtime", self.images["go-controller-runtime"],
                         LEAF_TARGET, "informerd-leaf-ca")
        kubectl_apply([pod])
        client = PodClient("go-controller-runtime", CLIENT_NAMESPACE, "leaf-go-controller-runtime")
        client.wait_synced(240)
        self.leaf_clients = [client]
        self.churn_and_check(case, self.leaf_clients + self.clients, 50, "through the leaf")

    def case_uninstall(self, case: TestCase) -> None:
        kinds = [k for k in kubectl("api-resources", "--verbs=list", "-o", "name").split()
                 if k not in ("events", "events.events.k8s.io")]
        for release, ns in ((LEAF_RELEASE, LEAF_NAMESPACE), (RELEASE, NAMESPACE)):
            helm("uninstall", release, "-n", ns, "--wait", "--timeout", TIMEOUT)
        left = []

        def nothing_left() -> bool:
            left.clear()
            for release in (LEAF_RELEASE, RELEASE):
                out = run(["kubectl", "get", ",".join(kinds), "-A", "-l",
                           "app.kubernetes.io/instance=%s" % release,
                           "-o", "jsonpath={range .items[*]}{.kind}/{.metadata.namespace}/"
                           "{.metadata.name}{\"\\n\"}{end}"], stderr_to_stdout=False)
                left.extend(line for line in out.splitlines() if line.strip())
            return not left
        try:
            harness.wait_until(nothing_left, 120, "the releases' objects to go")
        except HarnessError:
            raise HarnessError("objects left after helm uninstall:\n  %s" % "\n  ".join(left))
        case.log("no object labelled with either release is left (%d kinds searched)" % len(kinds))


# Every client library: the adapters' example controllers and the
# libraries' own example informers, each in a pod of its own.
CLIENT_LANGS = ("go-controller-runtime", "java-kubernetes-client", "python", "cpp")
CASES = ["images", "install", "helm-test", "attack-admin", "clients", "attack-h2", "upgrade", "eviction", "tier", "uninstall"]


def main() -> int:
    parser = argparse.ArgumentParser(prog="tests/node/run.sh")
    parser.add_argument("--images", required=True,
                        help="hack/images.sh --list output: NAME REFERENCE per line")
    parser.add_argument("--junit")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    if args.seed is None:
        args.seed = random.randrange(1 << 30)
    print("seed %d" % args.seed, flush=True)
    suite = NodeSuite(args)
    cases = []
    failed: Optional[str] = None
    for name in CASES:
        case = TestCase(name)
        cases.append(case)
        if failed:
            case.failure = "not run: %s failed" % failed
            continue
        harness.run_case(case, getattr(suite, "case_" + name.replace("-", "_")))
        if case.failure:
            failed = name
    status = harness.report("node", cases, args.junit)
    if args.junit:
        add_summary(args.junit, ", ".join("%s from %s" % item for item in sorted(suite.ran.items())))
    return status


def add_summary(path: str, summary: str) -> None:
    """Puts SUMMARY in the report as the suite's "summary" property, which
    hack/count-test-cases.py prints on the suite's row."""
    tree = ElementTree.parse(path)
    properties = ElementTree.Element("properties")
    ElementTree.SubElement(properties, "property", name="summary", value=summary)
    tree.getroot().insert(0, properties)
    tree.write(path, encoding="utf-8", xml_declaration=True)


if __name__ == "__main__":
    sys.exit(main())
