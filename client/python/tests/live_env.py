"""A real kube-apiserver and informerd for the live tests.

Needs the variables of `hack/control-plane.sh env` (INFORMERD_APISERVER_URL,
INFORMERD_CA_FILE, INFORMERD_ADMIN_TOKEN_FILE, KUBECONFIG) and an informerd
binary (INFORMERD_BIN, default bazel-bin/server/informerd). Tests fail,
rather than skip, without them: a silently skipped integration test proves
nothing.
"""

import contextlib
import json
import os
import signal
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request
import uuid

import pytest

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))
TIMEOUT = 60
CATCH_UP_SECONDS = 3.0


def required_env(name):
    value = os.environ.get(name)
    if not value:
        pytest.fail("%s is not set; run with the variables of "
                    "`hack/control-plane.sh env`" % name, pytrace=False)
    return value


class Apiserver:
    """Admin calls to the kube-apiserver."""

    def __init__(self):
        self.url = required_env("INFORMERD_APISERVER_URL").rstrip("/")
        with open(required_env("INFORMERD_ADMIN_TOKEN_FILE")) as token:
            self._token = token.read().strip()
        self._tls = ssl.create_default_context(
            cafile=required_env("INFORMERD_CA_FILE"))

    def call(self, method, path, body=None):
        request = urllib.request.Request(
            self.url + path, method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": "Bearer " + self._token,
                     "Content-Type": "application/json"})
        with urllib.request.urlopen(request, context=self._tls,
                                    timeout=30) as response:
            return json.load(response)

    def configmap_versions(self, namespace, selector=""):
        path = "/api/v1/namespaces/%s/configmaps" % namespace
        if selector:
            path += "?labelSelector=" + urllib.request.quote(selector)
        items = self.call("GET", path)["items"]
        return {"%s/%s" % (namespace, i["metadata"]["name"]):
                i["metadata"]["resourceVersion"] for i in items}


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class InformerdProcess:
    """One informerd serving configmaps and pods on fixed ports,
    restartable. ``ready_at``: when /readyz last answered ok."""

    def __init__(self, log_dir, kubeconfig=None, name="informerd"):
        """``kubeconfig``: default $KUBECONFIG; ``name`` names the log."""
        self.binary = os.environ.get(
            "INFORMERD_BIN", os.path.join(_REPO, "bazel-bin/server/informerd"))
        if not os.access(self.binary, os.X_OK):
            pytest.fail("informerd binary %s not found; build "
                        "//server:informerd or set INFORMERD_BIN"
                        % self.binary, pytrace=False)
        self.kubeconfig = kubeconfig or required_env("KUBECONFIG")
        self.grpc_address = "127.0.0.1:%d" % free_port()
        self.http_address = "127.0.0.1:%d" % free_port()
        self.log_path = os.path.join(log_dir, name + ".log")
        self.process = None
        self.ready_at = None

    def start(self):
        log = open(self.log_path, "a")
        self.process = subprocess.Popen(
            [self.binary, "--kubeconfig", self.kubeconfig,
             "--resources=configmaps,pods", "--grpc-address", self.grpc_address,
             "--http-address", self.http_address],
            stdout=log, stderr=log)
        log.close()
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            try:
                with urllib.request.urlopen(
                        "http://%s/readyz" % self.http_address,
                        timeout=2) as response:
                    if response.read().strip() == b"ok":
                        self.ready_at = time.monotonic()
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.1)  # Polling an external process; nothing to wait on.
        self.stop()
        pytest.fail("informerd did not become ready; log:\n" + self.log())

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def log(self):
        with open(self.log_path, errors="replace") as log:
            return log.read()[-4000:]


@contextlib.contextmanager
def live_cluster(log_dir):
    """(apiserver, running informerd, fresh namespace). Not a fixture, so
    that missing settings fail the test rather than erroring its setup."""
    apiserver = Apiserver()
    informerd = InformerdProcess(log_dir)
    namespace = "py-live-" + uuid.uuid4().hex[:10]
    apiserver.call("POST", "/api/v1/namespaces", {
        "apiVersion": "v1", "kind": "Namespace",
        "metadata": {"name": namespace}})
    try:
        informerd.start()
        yield apiserver, informerd, namespace
    finally:
        informerd.stop()
        apiserver.call("DELETE", "/api/v1/namespaces/" + namespace)


def configmap(name, value, labels=None):
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "labels": labels or {}},
            "data": {"value": value}}
