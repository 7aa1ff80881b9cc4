"""Shared pieces of the end-to-end and chaos suites (Python 3 stdlib only).

- ApiServer: admin calls to the kube-apiserver over HTTPS (urllib).
- Informerd: one informerd process on given ports; start, kill, restart,
  readiness, liveness and RSS.
- ExampleClient: one uniform example program (hack/example.sh LANG ...) run
  as a subprocess whose stdout lines are collected as they come.
- replay_lines / check_client: the invariants every suite asserts about an
  example client's output against the API server's LIST.
- BackgroundChurn: changes made on a thread while a fault happens.
- wait_until, /metrics parsing and the JUnit writer.

Synchronisation is always "poll a condition until a deadline", never a
fixed sleep.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Set by stage_binaries.
INFORMERD_BINARY = ""
INFORMERCTL_BINARY = ""
EXAMPLE_SCRIPT = os.path.join(ROOT, "hack", "example.sh")
LANGUAGES = ("go", "python", "cpp", "java")
# Example controllers built on the libraries controllers are written with,
# with informerd plugged in through an adapter: "<client>-<library>", run by
# client/<client>/run-example-<library>.sh. Besides the handler lines they
# print RECONCILED lines from their Reconciler. The libraries' own examples
# (LANGUAGES) add a second handler to their running informer after SYNCED
# and print its calls as LATE lines.
ADAPTERS = ("go-controller-runtime", "java-kubernetes-client")

POLL_INTERVAL = 0.1


class HarnessError(Exception):
    """A failed expectation; the message says what and why."""


def wait_until(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    """Polls predicate until it is true; HarnessError naming what on timeout."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise HarnessError("timed out after %.0fs waiting for %s" % (timeout, what))
        time.sleep(POLL_INTERVAL)


def stage_binaries(workdir: str) -> None:
    """Copies the binaries named by $INFORMERD_BINARY and $INFORMERCTL_BINARY
    (see prepare.sh) into workdir, so that a rebuild during the run cannot
    change the program a restart starts."""
    bin_dir = os.path.join(workdir, "bin")
    os.makedirs(bin_dir, exist_ok=True)
    for variable in ("INFORMERD_BINARY", "INFORMERCTL_BINARY"):
        source = os.environ.get(variable)
        if not source:
            raise HarnessError("$%s is not set; run through run.sh" % variable)
        target = os.path.join(bin_dir, os.path.basename(source))
        shutil.copyfile(source, target)
        os.chmod(target, 0o755)
        globals()[variable] = target


def start_run(suite: str, workdir: Optional[str], seed: Optional[int]) -> Tuple[str, int]:
    """Makes the run's work directory (workdir, or a new temporary one),
    stages the binaries there and settles the seed (seed, or a random one);
    prints both, so that a failed run can be looked into and repeated."""
    workdir = workdir or tempfile.mkdtemp(prefix="informerd-%s-" % suite)
    os.makedirs(workdir, exist_ok=True)
    stage_binaries(workdir)
    seed = seed if seed is not None else random.randrange(1 << 31)
    print("%s: seed %d, logs in %s" % (suite, seed, workdir), flush=True)
    return workdir, seed


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# How ASan, LSan and TSan open a report, and how UBSan prints each of its own.
SANITIZER_MARKERS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                     "WARNING: ThreadSanitizer", "runtime error:")


def tail(path: str, lines: int = 30) -> str:
    try:
        with open(path, "rb") as f:
            return b"".join(f.readlines()[-lines:]).decode("utf-8", "replace")
    except OSError as e:
        return "(cannot read %s: %s)" % (path, e)


# --- the API server ---------------------------------------------------------


class ApiError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__("HTTP %d: %s" % (status, message))
        self.status = status


class ApiServer:
    """Admin access to the kube-apiserver, from the variables that
    `hack/control-plane.sh env` exports (or explicit values).

    Calls that cannot connect (the apiserver restarting) are retried until
    retry_seconds pass; HTTP errors are not retried.
    """

    def __init__(self, url: Optional[str] = None, ca_file: Optional[str] = None,
                 token_file: Optional[str] = None, retry_seconds: float = 60.0):
        self.url = url or os.environ["INFORMERD_APISERVER_URL"]
        ca_file = ca_file or os.environ["INFORMERD_CA_FILE"]
        with open(token_file or os.environ["INFORMERD_ADMIN_TOKEN_FILE"]) as f:
            self._token = f.read().strip()
        self._ssl = ssl.create_default_context(cafile=ca_file)
        self._retry_seconds = retry_seconds

    def request(self, method: str, path: str, body: Optional[dict] = None,
                content_type: str = "application/json") -> dict:
        data = None if body is None else json.dumps(body).encode()
        deadline = time.monotonic() + self._retry_seconds
        while True:
            req = urllib.request.Request(self.url + path, data=data, method=method)
            req.add_header("Authorization", "Bearer " + self._token)
            req.add_header("Accept", "application/json")
            if data is not None:
                req.add_header("Content-Type", content_type)
            try:
                with urllib.request.urlopen(req, context=self._ssl, timeout=30) as resp:
                    return json.loads(resp.read() or b"{}")
            except urllib.error.HTTPError as e:
                text = e.read().decode("utf-8", "replace")
                try:
                    text = json.loads(text).get("message", text)
                except ValueError:
                    pass
                # 5xx and 429 while the apiserver starts up or loses etcd.
                if (e.code >= 500 or e.code == 429) and time.monotonic() < deadline:
                    time.sleep(0.5)
                    continue
                raise ApiError(e.code, "%s %s: %s" % (method, path, text)) from None
            except (urllib.error.URLError, ConnectionError, socket.timeout) as e:
                if time.monotonic() >= deadline:
                    raise HarnessError("%s %s: apiserver unreachable: %s" % (method, path, e))
                time.sleep(0.5)

    def ready(self) -> bool:
        try:
            req = urllib.request.Request(self.url + "/readyz")
            req.add_header("Authorization", "Bearer " + self._token)
            with urllib.request.urlopen(req, context=self._ssl, timeout=5) as resp:
                return resp.read() == b"ok"
        except (urllib.error.URLError, ConnectionError, socket.timeout):
            return False

    def create_namespace(self, name: str) -> None:
        self.request("POST", "/api/v1/namespaces",
                     {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})

    def create_configmap(self, ns: str, name: str, labels: Dict[str, str],
                         data: Dict[str, str]) -> None:
        body = {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": name, "labels": labels}, "data": data}
        try:
            self.request("POST", "/api/v1/namespaces/%s/configmaps" % ns, body)
        except ApiError as e:
            # A create retried after a lost reply finds its own object.
            if e.status != 409:
                raise

    def patch_configmap(self, ns: str, name: str, patch: dict) -> None:
        self.request("PATCH", "/api/v1/namespaces/%s/configmaps/%s" % (ns, name),
                     patch, content_type="application/merge-patch+json")

    def delete_configmap(self, ns: str, name: str) -> None:
        try:
            self.request("DELETE", "/api/v1/namespaces/%s/configmaps/%s" % (ns, name))
        except ApiError as e:
            if e.status != 404:
                raise

    def list_configmaps(self, ns: str, label_selector: str = "") -> Dict[str, str]:
        """{"ns/name": resourceVersion} of the configmaps in ns."""
        path = "/api/v1/namespaces/%s/configmaps" % ns
        if label_selector:
            path += "?" + urllib.parse.urlencode({"labelSelector": label_selector})
        items = self.request("GET", path).get("items") or []
        return {"%s/%s" % (ns, item["metadata"]["name"]): item["metadata"]["resourceVersion"]
                for item in items}


# --- informerd --------------------------------------------------------------


class Informerd:
    """One informerd serving configmaps on fixed ports (so that a restart
    comes back where clients look for it). The log is appended across
    restarts."""

    def __init__(self, log_path: str, kubeconfig: Optional[str] = None,
                 grpc_port: Optional[int] = None, http_port: Optional[int] = None,
                 resources: str = "configmaps"):
        self.grpc_port = grpc_port or free_port()
        self.http_port = http_port or free_port()
        self.log_path = log_path
        self.kubeconfig = kubeconfig or os.environ["KUBECONFIG"]
        self.resources = resources
        self.proc: Optional[subprocess.Popen] = None
        self.restarts = 0

    @property
    def address(self) -> str:
        return "127.0.0.1:%d" % self.grpc_port

    def start(self, ready_timeout: float = 60.0) -> None:
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [INFORMERD_BINARY, "--kubeconfig", self.kubeconfig,
                 "--resources", self.resources,
                 "--grpc-address", self.address,
                 "--http-address", "127.0.0.1:%d" % self.http_port],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                start_new_session=True)
        wait_until(self._ready, ready_timeout, "informerd /readyz on port %d" % self.http_port)

    def _ready(self) -> bool:
        if not self.alive():
            raise HarnessError("informerd exited with status %s; log tail:\n%s"
                               % (self.proc.returncode, tail(self.log_path)))
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/readyz" % self.http_port,
                                        timeout=2) as resp:
                return resp.read().strip() == b"ok"
        except (urllib.error.URLError, ConnectionError, socket.timeout):
            return False

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL: no draining, as a crash or an OOM kill."""
        if self.alive():
            self.proc.kill()
            self.proc.wait()

    def stop(self, timeout: float = 30.0) -> Optional[int]:
        """SIGTERM and wait; SIGKILL after timeout. Returns the exit status."""
        if not self.alive():
            return None if self.proc is None else self.proc.returncode
        self.proc.terminate()
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise HarnessError("informerd did not stop within %.0fs of SIGTERM" % timeout)

    def restart(self, between: Callable[[], None] = lambda: None) -> None:
        """Kills informerd, runs between() while it is down, starts it again
        on the same ports."""
        self.kill()
        between()
        self.restarts += 1
        self.start()

    def sanitizer_reports(self) -> List[str]:
        """Lines of the log where a sanitizer (ASan, UBSan, TSan, LSan)
        reported an error: empty unless informerd was built with one."""
        try:
            with open(self.log_path, "rb") as f:
                lines = f.read().decode("utf-8", "replace").splitlines()
        except OSError as e:
            return ["(cannot read %s: %s)" % (self.log_path, e)]
        return [line for line in lines if any(marker in line for marker in SANITIZER_MARKERS)]

    def rss_bytes(self) -> int:
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        raise HarnessError("no VmRSS in /proc/%d/status" % self.proc.pid)

    def metrics(self) -> Dict[str, float]:
        """The samples of its /metrics (parse_metrics)."""
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % self.http_port,
                                        timeout=10) as resp:
                return parse_metrics(resp.read().decode("utf-8"))
        except (urllib.error.URLError, ConnectionError, socket.timeout) as e:
            raise HarnessError("informerd /metrics on port %d: %s" % (self.http_port, e))


def parse_metrics(text: str) -> Dict[str, float]:
    """Prometheus text exposition as {'name{labels}': value}, the labels as
    printed (e.g. 'informerd_rpcs_total{code="0",method="List"}')."""
    samples = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        # The value is the last field; label values may hold spaces.
        series, _, value = line.rpartition(" ")
        samples[series] = float(value)
    return samples


def kill_apiserver(cp_dir: str) -> int:
    """SIGKILLs the kube-apiserver of the control plane in CP_DIR
    (hack/control-plane.sh's pid file); returns its pid."""
    with open(os.path.join(cp_dir, "pids", "kube-apiserver.pid")) as f:
        pid = int(f.read())
    os.kill(pid, signal.SIGKILL)
    return pid


def restart_apiserver() -> None:
    """hack/control-plane.sh restart-apiserver; HarnessError with its output
    if it fails."""
    result = subprocess.run(
        [os.path.join(ROOT, "hack", "control-plane.sh"), "restart-apiserver"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=180)
    if result.returncode != 0:
        raise HarnessError("restart-apiserver failed:\n%s"
                           % result.stdout.decode("utf-8", "replace")[-2000:])


def metric_sum(samples: Dict[str, float], name: str, **labels: str) -> float:
    """The sum of the samples of metric name whose labels include labels."""
    total = 0.0
    wanted = ['%s="%s"' % item for item in labels.items()]
    for series, value in samples.items():
        metric, _, rest = series.partition("{")
        if metric == name and all(w in rest for w in wanted):
            total += value
    return total


# --- example clients --------------------------------------------------------


def example_script(lang: str) -> str:
    if lang in ADAPTERS:
        client, library = lang.split("-", 1)
        return os.path.join(ROOT, "client", client, "run-example-%s.sh" % library)
    return os.path.join(ROOT, "client", lang, "run-example.sh")


class ExampleClient:
    """hack/example.sh LANG ... as a subprocess; its stdout lines are
    collected by a reader thread. run-example.sh must exec the example, so
    that the SIGTERM sent to the process reaches it."""

    def __init__(self, lang: str, server: str, namespace: str, stderr_path: str,
                 label_selector: str = ""):
        self.lang = lang
        self.label_selector = label_selector
        # An adapter's example controller must also reconcile every change.
        self.reconciles = lang in ADAPTERS
        # The client libraries' own examples add a second handler to their
        # running informer after SYNCED (its lines start with LATE): it
        # must get every cached object as an ADD before any live event.
        self.late_handler = lang in LANGUAGES
        self.stderr_path = stderr_path
        # The stdout lines are copied here as they come, for post-mortems.
        self.stdout_path = os.path.splitext(stderr_path)[0] + ".stdout"
        args = [EXAMPLE_SCRIPT, lang, "--server", server, "--resource", "configmaps",
                "-n", namespace]
        if label_selector:
            args += ["-l", label_selector]
        self._lines: List[str] = []
        self._lock = threading.Lock()
        with open(stderr_path, "ab") as err:
            self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.PIPE, stderr=err,
                                         start_new_session=True)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        with open(self.stdout_path, "ab") as copy:
            for raw in self.proc.stdout:
                copy.write(raw)
                copy.flush()
                with self._lock:
                    self._lines.append(raw.decode("utf-8", "replace").rstrip("\n"))

    def lines(self) -> List[str]:
        with self._lock:
            return list(self._lines)

    def describe(self) -> str:
        sel = " -l %s" % self.label_selector if self.label_selector else ""
        return "%s example%s" % (self.lang, sel)

    def wait_synced(self, timeout: float) -> None:
        def synced() -> bool:
            if "SYNCED" in self.lines():
                return True
            if self.proc.poll() is not None:
                raise HarnessError("%s exited with status %d before SYNCED; stderr tail:\n%s"
                                   % (self.describe(), self.proc.returncode,
                                      tail(self.stderr_path)))
            return False
        wait_until(synced, timeout, "SYNCED from the %s" % self.describe())

    def alive(self) -> bool:
        return self.proc.poll() is None

    def terminate(self, timeout: float = 30.0) -> List[str]:
        """SIGTERM, wait for exit 0 and the end of stdout; all lines."""
        if self.proc.poll() is not None:
            raise HarnessError("%s had exited (status %d) before SIGTERM; stderr tail:\n%s"
                               % (self.describe(), self.proc.returncode,
                                  tail(self.stderr_path)))
        self.proc.send_signal(signal.SIGTERM)
        try:
            status = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise HarnessError("%s did not exit within %.0fs of SIGTERM"
                               % (self.describe(), timeout))
        self._reader.join(timeout)
        if status != 0:
            raise HarnessError("%s exited with status %d after SIGTERM; stderr tail:\n%s"
                               % (self.describe(), status, tail(self.stderr_path)))
        return self.lines()

    def kill(self) -> None:
        """Ends the whole process group (a build step may still run)."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()


# --- invariants -------------------------------------------------------------


class Replay:
    """The state that a client's handler calls imply, and what was wrong
    with them. rv is a resourceVersion string, keys are "ns/name"."""

    def __init__(self) -> None:
        self.state: Dict[str, str] = {}
        self.errors: List[str] = []
        self.synced = False
        # Keys that got a DELETE line.
        self.deleted: Set[str] = set()
        self.cache: Optional[Dict[str, str]] = None
        # Keys that got an ADD line at some point.
        self.added: Set[str] = set()
        # The last RECONCILED line of each key: an rv, or "absent".
        self.reconciled: Dict[str, str] = {}
        # The LATE lines: the handler the example adds to its running
        # informer after SYNCED, replayed by the same rules; None if the
        # output has none.
        self.late: Optional["Replay"] = None


def _replay_handler_line(r: Replay, words: List[str], where: str) -> bool:
    """Applies one ADD, UPDATE, DELETE or SYNCED line to r; False if the
    line is none of these."""
    kind = words[0]
    if kind == "SYNCED" and len(words) == 1:
        if r.synced:
            r.errors.append("%s: second SYNCED" % where)
        r.synced = True
    elif kind == "ADD" and len(words) == 3:
        key, rv = words[1], words[2]
        if key in r.state:
            r.errors.append("%s: ADD of a key already present at rv %s" % (where, r.state[key]))
        r.state[key] = rv
        r.added.add(key)
    elif kind == "UPDATE" and len(words) == 4:
        key, old, new = words[1:]
        if not r.synced:
            r.errors.append("%s: UPDATE before SYNCED" % where)
        if key not in r.state:
            r.errors.append("%s: UPDATE of an unknown key" % where)
        elif r.state[key] != old:
            r.errors.append("%s: UPDATE old rv %s, but the handler state has rv %s"
                            % (where, old, r.state[key]))
        r.state[key] = new
    elif kind == "DELETE" and (len(words) == 3 or
                               (len(words) == 4 and words[3] == "final-state-unknown")):
        key, rv = words[1], words[2]
        if not r.synced:
            r.errors.append("%s: DELETE before SYNCED" % where)
        if key not in r.state:
            r.errors.append("%s: DELETE of an unknown key" % where)
        elif len(words) == 4 and r.state[key] != rv:
            r.errors.append("%s: final-state-unknown DELETE should carry the last known "
                            "rv %s" % (where, r.state[key]))
        r.state.pop(key, None)
        r.deleted.add(key)
    else:
        return False
    return True


def replay_lines(lines: Sequence[str]) -> Replay:
    """Replays handler lines into a dict, noting every inconsistency:
    an ADD of a known key, an UPDATE or DELETE of an unknown key, an UPDATE
    whose old rv is not the current one, a final-state-unknown DELETE whose
    rv is not the last known, anything but ADD before SYNCED, SYNCED twice,
    and malformed lines. CACHE lines (if any) go to .cache, RECONCILED
    lines to .reconciled, LATE lines (none before SYNCED) to .late, whose
    errors are also r's, prefixed "late handler"."""
    r = Replay()
    for n, line in enumerate(lines, 1):
        words = line.split(" ")
        kind = words[0]
        where = "line %d %r" % (n, line)
        if r.cache is not None and kind != "CACHE":
            r.errors.append("%s: after the CACHE lines" % where)
            continue
        if kind == "LATE":
            if not r.synced:
                r.errors.append("%s: a late handler's line before SYNCED" % where)
            if r.late is None:
                r.late = Replay()
            if not _replay_handler_line(r.late, words[1:] or [""], where):
                r.late.errors.append("%s: not a line of the example's output" % where)
        elif _replay_handler_line(r, words, where):
            pass
        elif kind == "RECONCILED" and len(words) == 3:
            r.reconciled[words[1]] = words[2]
        elif kind == "CACHE" and len(words) == 3:
            if r.cache is None:
                r.cache = {}
            if r.cache and words[1] <= max(r.cache):
                r.errors.append("%s: CACHE lines not sorted" % where)
            r.cache[words[1]] = words[2]
        else:
            r.errors.append("%s: not a line of the example's output" % where)
    if r.late is not None:
        r.errors += ["late handler: %s" % e for e in r.late.errors]
    return r


def diff_states(name: str, got: Dict[str, str], want: Dict[str, str]) -> List[str]:
    """Differences of got from the apiserver's LIST, one message each."""
    out = []
    for key in sorted(set(got) | set(want)):
        if key not in got:
            out.append("%s lacks %s (rv %s in the LIST): a missed add" % (name, key, want[key]))
        elif key not in want:
            out.append("%s has %s rv %s, absent from the LIST: a missed delete"
                       % (name, key, got[key]))
        elif got[key] != want[key]:
            out.append("%s has %s at rv %s, the LIST at rv %s: a missed update"
                       % (name, key, got[key], want[key]))
    return out


def reconcile_errors(r: Replay, want: Dict[str, str]) -> List[str]:
    """An example controller's reconciles against the LIST: the last
    RECONCILED line of every listed key names its listed rv, and every
    other key the handlers ever saw was last reconciled as absent."""
    out = []
    for key in sorted(set(want) | r.added | set(r.reconciled)):
        expected = want.get(key, "absent")
        got = r.reconciled.get(key)
        if got is None:
            out.append("no RECONCILED line for %s (LIST: %s): a missed reconcile"
                       % (key, expected))
        elif got != expected:
            out.append("last RECONCILED %s %s, but the LIST says %s: a stale reconcile"
                       % (key, got, expected))
    return out


def check_handler_state(lines: Sequence[str], want: Dict[str, str],
                        never_removed: Set[str], reconciles: bool = False,
                        late_handler: bool = False) -> List[str]:
    """The live-state invariant (usable while the client runs): the
    handler lines are consistent and their replay equals want (the LIST);
    no key that was never deleted nor moved out of the selector got a
    DELETE; with late_handler, the same of the LATE lines; with
    reconciles, every key was last reconciled at its listed state
    (reconcile_errors)."""
    r = replay_lines(lines)
    errors = list(r.errors)
    handlers = [("the handler state", "", r)]
    if late_handler:
        handlers.append(("the late handler's state", "LATE ", r.late or Replay()))
    for name, prefix, replay in handlers:
        errors += diff_states(name, replay.state, want)
        for key in sorted(replay.deleted & never_removed):
            errors.append("%sDELETE of %s, which was never deleted nor relabelled out of "
                          "the selector" % (prefix, key))
    if reconciles:
        errors += reconcile_errors(r, want)
    return errors


def check_final_output(lines: Sequence[str], want: Dict[str, str],
                       never_removed: Set[str], reconciles: bool = False,
                       late_handler: bool = False) -> List[str]:
    """check_handler_state, plus: SYNCED came (and LATE SYNCED with
    late_handler), and the CACHE lines equal the LIST."""
    r = replay_lines(lines)
    errors = check_handler_state(lines, want, never_removed, reconciles, late_handler)
    if not r.synced:
        errors.append("no SYNCED line")
    if late_handler and (r.late is None or not r.late.synced):
        errors.append("no LATE SYNCED line")
    errors += diff_states("CACHE", r.cache or {}, want)
    return errors


def finish_clients(clients: List[ExampleClient], api: ApiServer, churn: "Churn",
                   server: "Informerd", log: Callable[[str], None]) -> None:
    """The end of a run: SIGTERM every client, check its whole output
    against the apiserver's LIST (check_final_output), then stop informerd,
    which must exit 0. HarnessError listing every violation."""
    finish_example_clients(clients, api, churn, log)
    stop_informerd(server)


def stop_informerd(server: "Informerd") -> None:
    """SIGTERM; HarnessError unless informerd exits 0."""
    status = server.stop()
    if status != 0:
        raise HarnessError("informerd exited with status %s after SIGTERM; log tail:\n%s"
                           % (status, tail(server.log_path)))


def finish_example_clients(clients: List[ExampleClient], api: ApiServer, churn: "Churn",
                           log: Callable[[str], None]) -> None:
    """SIGTERM every client and check its whole output against the
    apiserver's LIST (check_final_output). HarnessError listing every
    violation."""
    errors = []
    for client in clients:
        lines = client.terminate()
        want = api.list_configmaps(churn.namespace, client.label_selector)
        found = check_final_output(lines, want, churn.never_removed(client.label_selector),
                                   client.reconciles, client.late_handler)
        errors += ["%s: %s" % (client.describe(), e) for e in found]
        unknown = sum(1 for line in lines if line.endswith(" final-state-unknown"))
        log("%s: %d lines, %d objects, %d final-state-unknown deletes"
            % (client.describe(), len(lines), len(want), unknown))
    if errors:
        raise HarnessError("%d invariant violations:\n  %s" % (len(errors), "\n  ".join(errors)))


def handler_state_matches(client: ExampleClient, want: Dict[str, str]) -> bool:
    r = replay_lines(client.lines())
    if r.state != want:
        return False
    if client.late_handler and (r.late is None or not r.late.synced or r.late.state != want):
        return False
    return not client.reconciles or not reconcile_errors(r, want)


def wait_quiescent(clients: List[ExampleClient], api: ApiServer, churn: "Churn",
                   timeout: float, when: str) -> None:
    """Waits until every client's handler state equals the LIST, then
    checks the handler lines so far (check_handler_state). HarnessError
    listing the differences on timeout or on a violation."""
    for client in clients:
        want: Dict[str, str] = {}

        def caught_up() -> bool:
            if not client.alive():
                raise HarnessError("%s exited (status %s) %s; stderr tail:\n%s"
                                   % (client.describe(), client.proc.returncode, when,
                                      tail(client.stderr_path)))
            want.clear()
            want.update(api.list_configmaps(churn.namespace, client.label_selector))
            return handler_state_matches(client, want)

        timed_out = False
        problem = "invariant violations %s" % when
        try:
            wait_until(caught_up, timeout,
                       "the %s to match the LIST %s" % (client.describe(), when))
        except HarnessError as e:
            timed_out, problem = True, str(e)
        errors = check_handler_state(client.lines(), want,
                                     churn.never_removed(client.label_selector),
                                     client.reconciles, client.late_handler)
        if errors or timed_out:
            raise HarnessError("%s: %s:\n  %s" % (client.describe(), problem,
                                                  "\n  ".join(errors)))


# --- JUnit ------------------------------------------------------------------


class TestCase:
    def __init__(self, name: str):
        self.name = name
        self.seconds = 0.0
        self.failure: Optional[str] = None
        self.skipped: Optional[str] = None
        self.output: List[str] = []

    def log(self, message: str) -> None:
        line = "[%s] %s" % (self.name, message)
        print(line, flush=True)
        self.output.append(line)


def write_junit(path: str, suite: str, cases: Sequence[TestCase]) -> None:
    root = ET.Element("testsuite", name=suite, tests=str(len(cases)),
                      failures=str(sum(1 for c in cases if c.failure)),
                      skipped=str(sum(1 for c in cases if c.skipped)),
                      time="%.1f" % sum(c.seconds for c in cases))
    for case in cases:
        el = ET.SubElement(root, "testcase", classname=suite, name=case.name,
                           time="%.1f" % case.seconds)
        if case.failure:
            ET.SubElement(el, "failure",
                          message=case.failure.splitlines()[0][:200]).text = case.failure
        elif case.skipped:
            ET.SubElement(el, "skipped", message=case.skipped)
        ET.SubElement(el, "system-out").text = "\n".join(case.output)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def report(suite: str, cases: Sequence[TestCase], junit: Optional[str]) -> int:
    """Writes the JUnit file (if asked), prints the suite's summary line and
    returns the exit status: 1 if any case failed."""
    if junit:
        write_junit(junit, suite, cases)
    failed = [c.name for c in cases if c.failure]
    print("%s: %d passed, %d failed%s" % (suite, len(cases) - len(failed), len(failed),
                                          " (%s)" % ", ".join(failed) if failed else ""),
          flush=True)
    return 1 if failed else 0


def run_case(case: TestCase, body: Callable[[TestCase], None]) -> None:
    """Runs body, recording its time and any failure on case."""
    start = time.monotonic()
    try:
        body(case)
    except HarnessError as e:
        case.failure = str(e)
    except Exception as e:  # a harness bug must still fail only this case
        case.failure = "harness error: %s: %s" % (type(e).__name__, e)
    case.seconds = time.monotonic() - start
    case.log("FAIL: " + case.failure if case.failure else "PASS (%.1fs)" % case.seconds)


# --- churn ------------------------------------------------------------------

SELECTOR_LABEL = "e2e-group"
SELECTOR = SELECTOR_LABEL + "=blue"


class Churn:
    """Changes configmaps in one namespace through the apiserver and
    remembers which keys it ever deleted or relabelled out of SELECTOR, so
    that a DELETE of any other key is known to be wrong.

    Objects carry SELECTOR_LABEL blue or green; relabel flips it."""

    def __init__(self, api: ApiServer, namespace: str, rng):
        self.api = api
        self.namespace = namespace
        self.rng = rng
        self.groups: Dict[str, str] = {}
        self.ever: Set[str] = set()
        self.deleted: Set[str] = set()
        self.relabelled_out: Set[str] = set()
        self._next = 0
        self.ops = 0
        # Extra bytes in every object written, to make events heavy.
        self.payload_bytes = 0

    def key(self, name: str) -> str:
        return "%s/%s" % (self.namespace, name)

    def never_removed(self, label_selector: str) -> Set[str]:
        removed = self.deleted | (self.relabelled_out if label_selector else set())
        return {self.key(n) for n in self.ever - removed}

    def create(self, name: Optional[str] = None) -> str:
        if name is None:
            name = "cm-%04d" % self._next
            self._next += 1
        group = self.rng.choice(("blue", "green"))
        self.api.create_configmap(self.namespace, name, {SELECTOR_LABEL: group},
                                  self._data())
        self.groups[name] = group
        self.ever.add(name)
        self.ops += 1
        return name

    def _data(self) -> Dict[str, str]:
        return {"step": str(self.ops), "pad": "x" * self.payload_bytes}

    def _pick(self) -> Optional[str]:
        return self.rng.choice(sorted(self.groups)) if self.groups else None

    def update(self) -> None:
        name = self._pick()
        if name:
            self.api.patch_configmap(self.namespace, name, {"data": self._data()})
            self.ops += 1

    def relabel(self) -> None:
        name = self._pick()
        if not name:
            return
        group = "green" if self.groups[name] == "blue" else "blue"
        if group == "green":
            # Recorded before the call: a lost reply may still have applied it.
            self.relabelled_out.add(name)
        self.api.patch_configmap(self.namespace, name,
                                 {"metadata": {"labels": {SELECTOR_LABEL: group}}})
        self.groups[name] = group
        self.ops += 1

    def delete(self, name: Optional[str] = None) -> None:
        name = name or self._pick()
        if not name:
            return
        self.deleted.add(name)
        self.api.delete_configmap(self.namespace, name)
        self.groups.pop(name, None)
        self.ops += 1

    def recreate(self) -> None:
        """Delete and create the same name: a new uid behind the same key."""
        name = self._pick()
        if name:
            self.delete(name)
            self.create(name)

    def random_ops(self, count: int) -> None:
        # Creates outweigh deletes, so that the namespace fills up over a run.
        actions = (self.create, self.create, self.create, self.update, self.update,
                   self.relabel, self.relabel, self.delete, self.recreate)
        for _ in range(count):
            action = self.rng.choice(actions)
            if action is self.create:
                self.create()
            else:
                action()


# Seconds between two changes of a BackgroundChurn.
CHURN_PACE_SECONDS = 0.02


class BackgroundChurn:
    """Runs churn.random_ops on a thread until stopped; stop() re-raises
    what the thread hit. Churn is not thread-safe: nothing else may use it
    between start() and stop()."""

    def __init__(self, churn: Churn):
        self._churn = churn
        self._stop = threading.Event()
        self._error: Optional[BaseException] = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            while not self._stop.wait(CHURN_PACE_SECONDS):
                self._churn.random_ops(1)
        except BaseException as e:  # handed to stop()
            self._error = e

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        if self._error is not None:
            raise HarnessError("churn failed: %s" % self._error)
