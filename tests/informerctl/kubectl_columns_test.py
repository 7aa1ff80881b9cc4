#!/usr/bin/python3
"""informerctl's output against kubectl's on the same objects.

A real informerd caches the control plane's pods, configmaps, secrets,
services, namespaces, nodes, deployments and serviceaccounts. The test
creates objects of each (pods get statuses through pods/status, as a kubelet
would set them: Running, CrashLoopBackOff, Completed, Init:1/2, Terminating),
then runs `informerctl get` and `kubectl get` with the same flags (table,
-A, -o wide, -o name, -o json, -o yaml) and compares every column by name:
exactly, except AGE and the age in RESTARTS, which may differ by a few
seconds. `informerctl watch` is compared with
`kubectl get -w --output-watch-events` over the same changes.

Other tests share the control plane, so only rows of this test's objects are
compared. Each comparison is retried until it holds or 30 s pass, since
informerd's cache follows the API server by a moment.

Runs under Bazel (hack/test.sh gives it the control plane's variables).
"""

import json
import os
import queue
import random
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.request

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
DEADLINE_SECONDS = 30
AGE_TOLERANCE_SECONDS = 10


def runfile(path):
    if path == "client/cpp/informerctl" and os.environ.get("INFORMERCTL_BINARY"):
        return os.environ["INFORMERCTL_BINARY"]
    base = os.environ.get("TEST_SRCDIR")
    if base:
        candidate = os.path.join(base, "informerd", path)
        if os.path.exists(candidate):
            return candidate
    return os.path.join(ROOT, "bazel-bin", path)


def find_kubectl():
    cache = os.environ.get("INFORMERD_CACHE") or os.path.expanduser("~/.cache/informerd")
    kubectl = os.path.join(cache, "bin", "kubectl")
    if not os.access(kubectl, os.X_OK):
        subprocess.run([os.path.join(ROOT, "hack", "install-helm.sh")], check=True,
                       stdout=subprocess.DEVNULL, env=dict(os.environ, INFORMERD_CACHE=cache))
    return kubectl


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def poll(condition, what, timeout=DEADLINE_SECONDS):
    """Polls condition() (None when it holds, else a description of what does
    not) until it holds or timeout passes; then fails with its last answer."""
    deadline = time.monotonic() + timeout
    while True:
        problem = condition()
        if problem is None:
            return
        if time.monotonic() > deadline:
            raise AssertionError("%s after %ds:\n%s" % (what, timeout, problem))
        time.sleep(0.3)


def age_seconds(text):
    """kubectl's human duration ("3m2s", "2d3h") in seconds."""
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400, "y": 365 * 86400}
    parts = re.fullmatch(r"((\d+)([smhdy]))+", text)
    if not parts:
        raise ValueError("not a duration: %r" % text)
    return sum(int(n) * units[u] for n, u in re.findall(r"(\d+)([smhdy])", text))


def parse_table(text):
    """Header names and rows as {header: cell}, columns found from the
    header's positions (a header may hold one space: "NOMINATED NODE")."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return [], []
    header = lines[0]
    spans = [(m.start(), m.group(0)) for m in re.finditer(r"\S+(?: \S+)*", header)]
    names = [name for _, name in spans]
    rows = []
    for line in lines[1:]:
        cells = {}
        for i, (start, name) in enumerate(spans):
            end = spans[i + 1][0] if i + 1 < len(spans) else len(line)
            cells[name] = line[start:end].strip()
        rows.append(cells)
    return names, rows


def same_age(a, b):
    try:
        return abs(age_seconds(a) - age_seconds(b)) <= AGE_TOLERANCE_SECONDS
    except ValueError:
        return a == b


def same_cell(column, a, b):
    if column == "AGE":
        return same_age(a, b)
    if column == "RESTARTS":
        # "3 (90s ago)": the count exactly, the age within the tolerance.
        ma, mb = re.fullmatch(r"(\d+) \((\S+) ago\)", a), re.fullmatch(r"(\d+) \((\S+) ago\)", b)
        if ma and mb:
            return ma.group(1) == mb.group(1) and same_age(ma.group(2), mb.group(2))
    return a == b


class Lines:
    """A process's stdout read line by line on a thread of its own, so a
    reader can give up at a deadline instead of blocking on a missed line."""

    def __init__(self, args):
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True)
        self.lines = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def readline(self, timeout=DEADLINE_SECONDS):
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError("no line from %s within %ds" % (self.process.args, timeout))
        if line is None:
            raise AssertionError("%s ended: %s" % (self.process.args, self.process.stderr.read()))
        return line

    def stop(self):
        self.process.kill()
        self.process.wait()
        self.reader.join(timeout=10)  # it ends at the pipe's end
        self.process.stdout.close()
        self.process.stderr.close()


class Cluster:
    def __init__(self, kubectl):
        self.kubectl = kubectl

    def run(self, *args, stdin=None, check=True):
        result = subprocess.run([self.kubectl, *args], input=stdin, capture_output=True,
                                text=True, timeout=60)
        if check and result.returncode != 0:
            raise AssertionError("kubectl %s: %s" % (" ".join(args), result.stderr))
        return result.stdout

    def apply(self, *objects):
        self.run("create", "-f", "-", stdin=json.dumps({"apiVersion": "v1", "kind": "List",
                                                         "items": list(objects)}))

    def patch_status(self, kind, name, namespace, status):
        args = ["patch", kind, name, "--subresource=status", "--type=merge",
                "-p", json.dumps({"status": status})]
        if namespace:
            args += ["-n", namespace]
        self.run(*args)


def ago(seconds):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - seconds))


def pod(namespace, name, init=0, sidecar=False, gates=(), node="", finalizer=False):
    spec = {"containers": [{"name": "main", "image": "example.invalid/app:1"},
                           {"name": "side", "image": "example.invalid/side:1"}]}
    if init:
        spec["initContainers"] = [{"name": "init-%d" % i, "image": "example.invalid/init:1"}
                                  for i in range(init)]
    if sidecar:
        spec.setdefault("initContainers", []).append(
            {"name": "proxy", "image": "example.invalid/proxy:1", "restartPolicy": "Always"})
    if gates:
        spec["readinessGates"] = [{"conditionType": g} for g in gates]
    if node:
        spec["nodeName"] = node
    metadata = {"name": name, "namespace": namespace}
    if finalizer:
        metadata["finalizers"] = ["example.com/hold"]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}


def running(name, ready=True, restarts=0):
    status = {"name": name, "ready": ready, "restartCount": restarts, "image": "x", "imageID": "",
              "started": True, "state": {"running": {"startedAt": ago(60)}}}
    return status


class KubectlColumnsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.kube = Cluster(find_kubectl())
        suffix = "%06x" % random.getrandbits(24)
        cls.ns = "cols-%s" % suffix
        cls.ns2 = "cols2-%s" % suffix
        cls.gone = "cols-gone-%s" % suffix
        cls.node = "cols-node-%s" % suffix
        cls.ours = {cls.ns, cls.ns2, cls.gone, cls.node}
        cls.create_objects()
        cls.tmp = tempfile.mkdtemp(prefix="informerctl-columns-")
        cls.grpc = "127.0.0.1:%d" % free_port()
        http = free_port()
        cls.log = open(os.path.join(cls.tmp, "informerd.log"), "wb")
        cls.informerd = subprocess.Popen(
            [runfile("server/informerd"), "--kubeconfig", os.environ["KUBECONFIG"],
             "--resources=pods,configmaps,secrets,services,namespaces,nodes,"
             "deployments.apps,serviceaccounts",
             "--grpc-address", cls.grpc, "--http-address", "127.0.0.1:%d" % http],
            stdin=subprocess.DEVNULL, stdout=cls.log, stderr=subprocess.STDOUT)

        def ready():
            if cls.informerd.poll() is not None:
                raise AssertionError("informerd exited: see %s" % cls.log.name)
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/readyz" % http, timeout=2):
                    return None
            except OSError as e:
                return str(e)
        poll(ready, "informerd not ready", timeout=60)

    @classmethod
    def tearDownClass(cls):
        cls.informerd.terminate()
        cls.informerd.wait(timeout=30)
        cls.log.close()
        # Finalizers the test set would keep its objects forever.
        cls.kube.run("patch", "pod", "terminating", "-n", cls.ns, "--type=merge",
                     "-p", '{"metadata":{"finalizers":null}}', check=False)
        cls.kube.run("delete", "node", cls.node, "--ignore-not-found", check=False)

    @classmethod
    def create_objects(cls):
        kube, ns = cls.kube, cls.ns
        for name in (ns, cls.ns2, cls.gone):
            kube.run("create", "namespace", name)
        # No namespace controller runs: a deleted namespace stays Terminating.
        kube.run("delete", "namespace", cls.gone, "--wait=false")
        kube.apply(
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "empty", "namespace": ns}},
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "three", "namespace": ns},
             "data": {"a": "1", "b": "2"}, "binaryData": {"c": "AAE="}},
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "other", "namespace": cls.ns2},
             "data": {"a": "1"}},
            {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "opaque", "namespace": ns},
             "type": "Opaque", "data": {"user": "YQ==", "password": "Yg=="}},
            {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "custom", "namespace": ns},
             "type": "example.com/custom"},
            {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": ns},
             "spec": {"selector": {"app": "web", "tier": "front"},
                      "ports": [{"name": "http", "port": 80}, {"name": "dns", "port": 53, "protocol": "UDP"}]}},
            {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "nodeport", "namespace": ns},
             "spec": {"type": "NodePort", "externalIPs": ["192.0.2.10"],
                      "ports": [{"port": 8080, "protocol": "TCP"}]}},
            {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "headless", "namespace": ns},
             "spec": {"clusterIP": "None", "ports": [{"port": 9000}]}},
            {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "external", "namespace": ns},
             "spec": {"type": "ExternalName", "externalName": "db.example.com"}},
            {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "balancer", "namespace": ns},
             "spec": {"type": "LoadBalancer", "ports": [{"port": 443}]}},
            {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "pending", "namespace": ns},
             "spec": {"type": "LoadBalancer", "ports": [{"port": 443}]}},
            {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot", "namespace": ns}},
            {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": ns},
             "spec": {"replicas": 3,
                      "selector": {"matchLabels": {"app": "web"},
                                   "matchExpressions": [{"key": "env", "operator": "In",
                                                         "values": ["prod", "dev"]}]},
                      "template": {"metadata": {"labels": {"app": "web", "env": "prod"}},
                                   "spec": {"containers": [
                                       {"name": "app", "image": "example.invalid/app:1"},
                                       {"name": "log", "image": "example.invalid/log:2"}]}}}},
            {"apiVersion": "v1", "kind": "Node",
             "metadata": {"name": cls.node,
                          "labels": {"node-role.kubernetes.io/control-plane": "",
                                     "kubernetes.io/role": "infra"}},
             "spec": {"unschedulable": True}},
            pod(ns, "pending"),
            pod(ns, "running", gates=("example.com/gate-a", "example.com/gate-b"), node=cls.node),
            pod(ns, "crashing", node=cls.node),
            pod(ns, "completed", node=cls.node),
            pod(ns, "initializing", init=2, node=cls.node),
            pod(ns, "sidecar", sidecar=True, node=cls.node),
            pod(ns, "terminating", finalizer=True),
            pod(cls.ns2, "elsewhere"),
        )
        kube.patch_status("service", "balancer", ns, {"loadBalancer": {"ingress": [
            {"ip": "203.0.113.7"}, {"hostname": "lb.example.com"}]}})
        kube.patch_status("deployment", "web", ns, {
            "replicas": 3, "updatedReplicas": 3, "readyReplicas": 2, "availableReplicas": 1})
        kube.patch_status("node", cls.node, "", {
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                            "lastHeartbeatTime": ago(5), "lastTransitionTime": ago(5)}],
            "addresses": [{"type": "InternalIP", "address": "10.9.0.1"}],
            "nodeInfo": {"kubeletVersion": "v1.37.2", "osImage": "Debian GNU/Linux 12",
                         "kernelVersion": "6.1.0", "architecture": "amd64",
                         "containerRuntimeVersion": "containerd://1.7",
                         "machineID": "", "systemUUID": "", "bootID": "", "kubeProxyVersion": "",
                         "operatingSystem": "linux"}})
        kube.patch_status("pod", "running", ns, {
            "phase": "Running", "podIP": "10.8.0.5", "podIPs": [{"ip": "10.8.0.5"}],
            "conditions": [{"type": "Ready", "status": "True"},
                           {"type": "example.com/gate-a", "status": "True"},
                           {"type": "example.com/gate-b", "status": "False"}],
            "containerStatuses": [running("main"), running("side")]})
        kube.patch_status("pod", "pending", ns, {"phase": "Pending", "nominatedNodeName": "spare"})
        kube.patch_status("pod", "crashing", ns, {
            "phase": "Running",
            "containerStatuses": [
                {"name": "main", "ready": False, "restartCount": 4, "image": "x", "imageID": "",
                 "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off"}},
                 "lastState": {"terminated": {"exitCode": 1, "reason": "Error",
                                              "startedAt": ago(100), "finishedAt": ago(90)}}},
                running("side", restarts=1)]})
        kube.patch_status("pod", "completed", ns, {
            "phase": "Succeeded",
            "containerStatuses": [
                {"name": n, "ready": False, "restartCount": 0, "image": "x", "imageID": "",
                 "state": {"terminated": {"exitCode": 0, "reason": "Completed",
                                          "startedAt": ago(30), "finishedAt": ago(20)}}}
                for n in ("main", "side")]})
        kube.patch_status("pod", "initializing", ns, {
            "phase": "Pending",
            "initContainerStatuses": [
                {"name": "init-0", "ready": False, "restartCount": 0, "image": "x", "imageID": "",
                 "state": {"terminated": {"exitCode": 0, "reason": "Completed",
                                          "startedAt": ago(30), "finishedAt": ago(20)}}},
                {"name": "init-1", "ready": False, "restartCount": 0, "image": "x", "imageID": "",
                 "state": {"running": {"startedAt": ago(10)}}}],
            "containerStatuses": [
                {"name": n, "ready": False, "restartCount": 0, "image": "x", "imageID": "",
                 "state": {"waiting": {"reason": "PodInitializing"}}} for n in ("main", "side")]})
        kube.patch_status("pod", "sidecar", ns, {
            "phase": "Running",
            "conditions": [{"type": "Initialized", "status": "True"}],
            "initContainerStatuses": [dict(running("proxy", restarts=2),
                                           lastState={"terminated": {"exitCode": 1, "startedAt": ago(50),
                                                                     "finishedAt": ago(40)}})],
            "containerStatuses": [running("main"), running("side", ready=False)]})
        kube.run("delete", "pod", "terminating", "-n", ns, "--wait=false")

    def informerctl(self, *args):
        result = subprocess.run([runfile("client/cpp/informerctl"), "--server", self.grpc, *args],
                                capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise AssertionError("informerctl %s: %s" % (" ".join(args), result.stderr))
        return result.stdout

    def ours_only(self, rows):
        if rows and "NAMESPACE" in rows[0]:
            return [r for r in rows if r["NAMESPACE"] in self.ours]
        return rows

    def compare_tables(self, *args):
        """informerctl get ARGS against kubectl get ARGS, column by column."""
        def differences():
            mine_text = self.informerctl("get", *args)
            theirs_text = self.kube.run("get", *args)
            mine_names, mine = parse_table(mine_text)
            theirs_names, theirs = parse_table(theirs_text)
            if mine_names != theirs_names:
                return "headers: informerctl %s, kubectl %s" % (mine_names, theirs_names)
            mine, theirs = self.ours_only(mine), self.ours_only(theirs)
            if args[0] in ("namespaces", "nodes"):
                mine = [r for r in mine if r["NAME"] in self.ours]
                theirs = [r for r in theirs if r["NAME"] in self.ours]
            key = lambda r: (r.get("NAMESPACE", ""), r["NAME"])
            mine.sort(key=key)
            theirs.sort(key=key)
            if [key(r) for r in mine] != [key(r) for r in theirs] or not theirs:
                return "rows: informerctl %s, kubectl %s" % ([key(r) for r in mine],
                                                              [key(r) for r in theirs])
            problems = []
            for a, b in zip(mine, theirs):
                for column in theirs_names:
                    if not same_cell(column, a[column], b[column]):
                        problems.append("%s %s: informerctl %r, kubectl %r" % (
                            key(b), column, a[column], b[column]))
            if problems:
                return "\n".join(problems)
            # Whole tables of only this test's objects, once every cell is
            # equal, are equal to the byte: same widths, same spacing.
            whole = "-A" not in args and args[0] not in ("namespaces", "nodes")
            if whole and mine == theirs and mine_text != theirs_text:
                return "informerctl:\n%s\nkubectl:\n%s" % (mine_text, theirs_text)
            return None
        poll(differences, "informerctl get %s differs from kubectl" % " ".join(args))

    def test_pods(self):
        self.compare_tables("pods", "-n", self.ns)

    def test_pods_wide(self):
        self.compare_tables("pods", "-n", self.ns, "-o", "wide")

    def test_pods_all_namespaces(self):
        self.compare_tables("pods", "-A")

    def test_configmaps(self):
        self.compare_tables("configmaps", "-n", self.ns)
        self.compare_tables("configmaps", "-A")

    def test_secrets(self):
        self.compare_tables("secrets", "-n", self.ns)

    def test_services(self):
        self.compare_tables("services", "-n", self.ns)
        self.compare_tables("services", "-n", self.ns, "-o", "wide")

    def test_namespaces(self):
        self.compare_tables("namespaces")

    def test_nodes(self):
        self.compare_tables("nodes")
        self.compare_tables("nodes", "-o", "wide")

    def test_deployments(self):
        self.compare_tables("deployments", "-n", self.ns)
        self.compare_tables("deployments", "-n", self.ns, "-o", "wide")

    def test_other_types_have_name_and_age(self):
        self.compare_tables("serviceaccounts", "-n", self.ns)

    def test_one_object_by_name(self):
        self.compare_tables("pods", "crashing", "-n", self.ns)

    def test_names(self):
        for args in (("configmaps", "-n", self.ns), ("deployments.apps", "-n", self.ns),
                     ("pods", "-n", self.ns)):
            def differences():
                mine = sorted(self.informerctl("get", *args, "-o", "name").split())
                theirs = sorted(self.kube.run("get", *args, "-o", "name").split())
                return None if mine == theirs else "informerctl %s, kubectl %s" % (mine, theirs)
            poll(differences, "-o name of %s" % " ".join(args))

    def test_json_and_yaml_are_the_objects(self):
        def strip(obj):
            obj["metadata"].pop("managedFields", None)
            return obj

        def differences():
            theirs = strip(json.loads(self.kube.run("get", "pods", "running", "-n", self.ns, "-o", "json")))
            mine_json = json.loads(self.informerctl("get", "pods", "running", "-n", self.ns, "-o", "json"))
            mine_yaml = yaml.safe_load(self.informerctl("get", "pods", "running", "-n", self.ns, "-o", "yaml"))
            if mine_json != theirs:
                return "-o json: %s\nkubectl: %s" % (mine_json, theirs)
            if mine_yaml != theirs:
                return "-o yaml: %s\nkubectl: %s" % (mine_yaml, theirs)
            return None
        poll(differences, "-o json / -o yaml differ from kubectl -o json")
        listing = yaml.safe_load(self.informerctl("get", "configmaps", "-n", self.ns, "-o", "yaml"))
        self.assertEqual(listing["kind"], "List")
        self.assertEqual(sorted(i["metadata"]["name"] for i in listing["items"]), ["empty", "three"])

    def test_watch_table_matches_kubectl_watch_events(self):
        name = "watched"
        mine = Lines([runfile("client/cpp/informerctl"), "--server", self.grpc,
                      "watch", "configmaps", "-n", self.ns2, "--initial-events"])
        theirs = Lines([self.kube.kubectl, "get", "configmaps", "-n", self.ns2, "-w",
                        "--output-watch-events"])

        def rows_until(stream, event, row_name):
            """Rows (cells split on blanks: configmap cells hold none) up to
            the first EVENT row_name one."""
            rows = []
            while True:
                cells = stream.readline().split()
                rows.append(cells)
                if cells[:2] == [event, row_name]:
                    return rows

        try:
            # Both print their header, then the ConfigMap that exists as ADDED:
            # from then on both are watching.
            for stream in (mine, theirs):
                self.assertEqual(stream.readline().split(), ["EVENT", "NAME", "DATA", "AGE"])
                rows_until(stream, "ADDED", "other")
            self.kube.run("create", "configmap", name, "-n", self.ns2, "--from-literal=a=1")
            self.kube.run("patch", "configmap", name, "-n", self.ns2, "--type=merge",
                          "-p", '{"data":{"b":"2"}}')
            self.kube.run("delete", "configmap", name, "-n", self.ns2)
            mine_rows = [r for r in rows_until(mine, "DELETED", name) if r[1] == name]
            theirs_rows = [r for r in rows_until(theirs, "DELETED", name) if r[1] == name]
            self.assertEqual([r[:3] for r in mine_rows],
                             [["ADDED", name, "1"], ["MODIFIED", name, "2"], ["DELETED", name, "2"]])
            self.assertEqual([r[:3] for r in mine_rows], [r[:3] for r in theirs_rows])
            for a, b in zip(mine_rows, theirs_rows):
                self.assertTrue(same_age(a[3], b[3]), (a, b))
        finally:
            mine.stop()
            theirs.stop()

    def test_watch_json_lines(self):
        mine = Lines([runfile("client/cpp/informerctl"), "--server", self.grpc,
                      "watch", "namespaces", "--initial-events", "-o", "json"])
        try:
            seen = set()
            while not self.ours.intersection(seen) >= {self.ns, self.ns2}:
                event = json.loads(mine.readline())
                self.assertEqual(sorted(event), ["object", "type"])
                self.assertEqual(event["type"], "ADDED")
                seen.add(event["object"]["metadata"]["name"])
        finally:
            mine.stop()


class RecordingResult(unittest.TextTestResult):
    """Remembers each case's outcome for the JUnit report."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.outcomes = []

    def addSuccess(self, test):
        super().addSuccess(test)
        self.outcomes.append((test, None))

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.outcomes.append((test, self.failures[-1][1]))

    def addError(self, test, err):
        super().addError(test, err)
        self.outcomes.append((test, self.errors[-1][1]))


def write_junit(result, path):
    """One <testcase> per case, so hack/test.sh counts each (Bazel's own
    report of an sh_test would hold one)."""
    import xml.etree.ElementTree as ET
    suite = ET.Element("testsuite", name="kubectl_columns_test", tests=str(len(result.outcomes)),
                       failures=str(sum(1 for _, e in result.outcomes if e)))
    for test, error in result.outcomes:
        case = ET.SubElement(suite, "testcase", name=test.id().split(".")[-1],
                             classname="KubectlColumnsTest")
        if error:
            ET.SubElement(case, "failure", message=error.splitlines()[-1][:200]).text = error
    root = ET.Element("testsuites")
    root.append(suite)
    ET.ElementTree(root).write(path, encoding="unicode")


if __name__ == "__main__":
    runner = unittest.TextTestRunner(verbosity=2, resultclass=RecordingResult)
    outcome = runner.run(unittest.defaultTestLoader.loadTestsFromTestCase(KubectlColumnsTest))
    if os.environ.get("XML_OUTPUT_FILE"):
        write_junit(outcome, os.environ["XML_OUTPUT_FILE"])
    sys.exit(0 if outcome.wasSuccessful() and outcome.testsRun > 0 else 1)
