"""examples/controller.py against a real informerd and kube-apiserver.

Runs the example as a program, as a user would, and checks what it prints:
it reconciles every ConfigMap with the Pods that use it (two informers of
one factory, a Pod index); the inventory handler added after sync saw every
cached object as an add before its LATE SYNCED; only the reconciler's
handler gets resyncs, at its period; and a handler that takes 2 s per event
does not delay reconciles. Fails, not skips, without the environment (see
live_env.py).
"""

import os
import signal
import subprocess
import sys
import threading
import time

from live_env import TIMEOUT, configmap, live_cluster

EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "examples", "controller.py")
RESYNC_SECONDS = 1.0
SLOW_DELAY_SECONDS = 2.0


class Lines:
    """A program's stdout lines with their time.monotonic() of arrival."""

    def __init__(self, stream):
        self._lines = []
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._read, args=(stream,),
                                        daemon=True)
        self._thread.start()

    def _read(self, stream):
        for line in stream:
            with self._changed:
                self._lines.append((time.monotonic(), line.rstrip("\n")))
                self._changed.notify_all()

    def wait_for(self, predicate, what, timeout=TIMEOUT):
        """Waits until predicate(lines) is true; fails naming ``what``."""
        with self._changed:
            ok = self._changed.wait_for(lambda: predicate(self.lines()),
                                        timeout)
            assert ok, "no %s in:\n%s" % (what, "\n".join(self.lines()))

    def lines(self):
        return [line for _, line in self._lines]

    def timed(self):
        with self._changed:
            return list(self._lines)

    def first_time(self, line):
        return next(t for t, text in self.timed() if text == line)


def pod(name, configmaps):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"automountServiceAccountToken": False,
                     "volumes": [{"name": c, "configMap": {"name": c}}
                                 for c in configmaps],
                     "containers": [{"name": "main",
                                     "image": "registry.invalid/x:1"}]}}


def versions(apiserver, ns, kind):
    items = apiserver.call("GET", "/api/v1/namespaces/%s/%s" % (ns, kind))
    return {"%s/%s" % (ns, i["metadata"]["name"]):
            i["metadata"]["resourceVersion"] for i in items["items"]}


def test_controller_reconciles_with_late_handler_resync_and_slow_handler(
        tmp_path):
    with live_cluster(str(tmp_path)) as (apiserver, informerd, ns):
        cm_path = "/api/v1/namespaces/%s/configmaps" % ns
        apiserver.call("POST", "/api/v1/namespaces/%s/serviceaccounts" % ns,
                       {"metadata": {"name": "default"}})
        for name in ("cm1", "cm2", "cm3"):
            apiserver.call("POST", cm_path, configmap(name, "1"))
        apiserver.call("POST", "/api/v1/namespaces/%s/pods" % ns,
                       pod("p1", ["cm1"]))
        apiserver.call("POST", "/api/v1/namespaces/%s/pods" % ns,
                       pod("p2", ["cm1", "cm2"]))
        configmaps = versions(apiserver, ns, "configmaps")
        pods = versions(apiserver, ns, "pods")

        process = subprocess.Popen(
            [sys.executable, "-u", EXAMPLE, "--server",
             informerd.grpc_address, "-n", ns,
             "--resync", str(RESYNC_SECONDS),
             "--slow-delay", str(SLOW_DELAY_SECONDS)],
            stdout=subprocess.PIPE, stderr=open(tmp_path / "stderr", "w"),
            text=True)
        try:
            out = Lines(process.stdout)
            check_controller(apiserver, ns, cm_path, configmaps, pods, out)
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                assert process.wait(30) == 0, \
                    (tmp_path / "stderr").read_text()[-4000:]
            finally:
                if process.poll() is None:
                    process.kill()


def check_controller(apiserver, ns, cm_path, configmaps, pods, out):
    def key(name):
        return "%s/%s" % (ns, name)

    # Every ConfigMap reconciled, with the Pods that use it.
    expected = {
        "RECONCILED %s %s pods=%s" % (key("cm1"), configmaps[key("cm1")],
                                      key("p1") + "," + key("p2")),
        "RECONCILED %s %s pods=%s" % (key("cm2"), configmaps[key("cm2")],
                                      key("p2")),
        "RECONCILED %s %s pods=" % (key("cm3"), configmaps[key("cm3")])}
    out.wait_for(lambda lines: expected <= set(lines), "initial reconciles")

    # The late handler: every cached object as an add, then LATE SYNCED.
    out.wait_for(lambda lines: {"LATE SYNCED configmap", "LATE SYNCED pod"}
                 <= set(lines), "LATE SYNCED")
    lines = out.lines()
    assert "LATE" not in " ".join(lines[:lines.index("SYNCED")])
    for kind, objects in (("configmap", configmaps), ("pod", pods)):
        late = [line for line in lines if line.startswith("LATE ")
                and line.split()[2] == kind]
        synced_at = late.index("LATE SYNCED " + kind)
        assert sorted(late[:synced_at]) == sorted(
            "LATE ADD %s %s %s" % (kind, k, rv) for k, rv in objects.items())

    # A handler that takes 2 s per event does not delay reconciles: each
    # new ConfigMap is reconciled well within 2 s of its write.
    written_at = {}
    for name in ("cm4", "cm5", "cm6", "cm7"):
        started = time.monotonic()  # Delays include the write's own time.
        created = apiserver.call("POST", cm_path, configmap(name, "1"))
        written_at[(key(name), created["metadata"]["resourceVersion"])] = \
            started
    reconciled = ["RECONCILED %s %s pods=" % item for item in written_at]
    out.wait_for(lambda lines: set(reconciled) <= set(lines),
                 "reconciles of the new ConfigMaps")
    delays = {item: out.first_time(line) - written_at[item]
              for item, line in zip(written_at, reconciled)}
    assert max(delays.values()) < 1.0, delays
    slow_lines = {"SLOW %s %s" % item for item in written_at}
    # The slow handler is behind by then (it also worked through the 3
    # initial objects and resyncs are not queued for it).
    assert not slow_lines <= set(out.lines())
    out.wait_for(lambda lines: slow_lines <= set(lines),
                 "slow handler's lines", timeout=TIMEOUT)
    print("reconcile delay after write (s):",
          {k: round(v, 3) for k, v in delays.items()})

    # A Pod change reaches the ConfigMaps it used, through the Pod index.
    apiserver.call("DELETE", "/api/v1/namespaces/%s/pods/p2" % ns)
    out.wait_for(lambda lines: "RECONCILED %s %s pods=" % (
        key("cm2"), configmaps[key("cm2")]) in lines, "reconcile after the "
        "Pod's deletion")

    # Resyncs: only the reconciler's handler asks for them, every 1 s; each
    # cached ConfigMap comes again at its cached version, and is reconciled.
    current = versions(apiserver, ns, "configmaps")

    def resync_times(lines_with_times, k):
        return [t for t, line in lines_with_times
                if line == "RESYNC %s %s" % (k, current[k])]

    out.wait_for(lambda _: all(len(resync_times(out.timed(), k)) >= 3
                               for k in current), "three resyncs each")
    timed = out.timed()
    for k in current:
        times = resync_times(timed, k)
        gaps = [b - a for a, b in zip(times, times[1:])]
        assert min(gaps) > 0.9 * RESYNC_SECONDS, (k, gaps)
        assert sum(gaps) / len(gaps) < 1.5 * RESYNC_SECONDS, (k, gaps)
    # Neither the inventory nor the audit handler got a resync.
    assert not [line for _, line in timed if line.startswith("LATE UPDATE")
                and line.split()[-1] == line.split()[-2]]
    for k, rv in current.items():
        assert [line for _, line in timed if line == "SLOW %s %s" % (k, rv)
                ] in ([], ["SLOW %s %s" % (k, rv)]), k
