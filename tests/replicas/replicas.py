"""Failover across informerd replicas by resourceVersion (issue 16, item 1):
one JUnit testcase per phase.

Topology: three informerd replicas serving configmaps from the same
apiserver; about 100 watching clients, each given all three addresses
(balanced round robin): the uniform example of each client library
(hack/example.sh LANG, harness.ExampleClient) and, for the rest, light
informers (client/go/internal/replicawatchers, client/go's RemoteInformer, each on a connection of
its own, in one process). They watch one namespace whose configmaps a
background thread keeps changing through the apiserver; a few light
informers (--quiet-clients) watch a second namespace where nothing changes,
so that their last version is that of their sync (or of a bookmark, about
every minute): older than the first list of a replica restarted since.

Cases:
  setup            replicas ready, clients synced, caught up with some churn;
                   every client's first sync shows in the replicas' counts
                   (so the relist count below can see a relist).
  replica-kill     one replica killed with SIGKILL while writes go on.
  rolling-restart  each replica in turn killed, started again and waited
                   ready, while writes go on.
  final-caches     the example clients' CACHE lines and the light
                   informers' caches equal the LIST; every running replica
                   exits 0 on SIGTERM.

After each fault every client's handler state must equal the apiserver's
LIST with consistent handler calls (no replayed nor missed event:
harness.wait_quiescent, and the light informers' own checks), the clients
of the killed replica must have failed over (its open watches, the light
informers' broken streams), and nobody may have relisted: no full state
served by any replica since setup (informerd_watch_initial_states_total and
informerd_rpcs_total{method="List"}, a killed replica's counted just before
its kill) and no relist counted by the light informers.

Run through tests/replicas/run.sh, which provides the control plane, the
informerd binary and the light informers' binary.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import subprocess
import sys
import threading
from typing import Dict, List

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "e2e"))
import harness  # noqa: E402
from harness import (ApiServer, BackgroundChurn, Churn, ExampleClient,  # noqa: E402
                     HarnessError, Informerd, TestCase)

REPLICAS = 3
CLIENTS = 100
# Changes made before a fault, while a replica is down, and after.
OPS_BEFORE, OPS_WHILE_DOWN, OPS_AFTER = 20, 10, 30


def parse_args(argv: List[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="tests/replicas/run.sh")
    parser.add_argument("--langs", default=",".join(harness.LANGUAGES),
                        help="example clients, comma-separated (default: %(default)s)")
    parser.add_argument("--clients", type=int, default=CLIENTS,
                        help="watching clients in all; light informers make up the rest "
                             "(default: %(default)s)")
    parser.add_argument("--quiet-clients", type=int, default=10,
                        help="of the light informers, how many watch a namespace where "
                             "nothing changes (default: %(default)s)")
    parser.add_argument("--cases", default=",".join(name for name, _ in CASES),
                        help="cases to run after setup, in this order "
                             "(default: %(default)s)")
    parser.add_argument("--junit", help="write a JUnit XML report here")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--startup-timeout", type=float, default=600.0,
                        help="seconds an example may take to build and sync")
    parser.add_argument("--settle-timeout", type=float, default=60.0,
                        help="seconds clients may take to catch up after a fault")
    parser.add_argument("--workdir", help="logs go here (default: a new temp dir)")
    args = parser.parse_args(argv)
    args.langs = [lang for lang in args.langs.split(",") if lang]
    for lang in args.langs:
        if lang not in harness.LANGUAGES:
            parser.error("--langs: unknown language %r" % lang)
    args.cases = [name for name in args.cases.split(",") if name]
    for name in args.cases:
        if name not in dict(CASES):
            parser.error("--cases: unknown case %r" % name)
    if args.clients <= len(args.langs) + args.quiet_clients:
        parser.error("--clients must exceed the number of example clients and quiet clients")
    return args


class Replica:
    """One informerd replica across its restarts, and the full states
    (lists) it served: those of its earlier processes are read from their
    /metrics just before each kill."""

    def __init__(self, index: int, workdir: str):
        self.name = "replica-%d" % index
        self.server = Informerd(os.path.join(workdir, "%s.log" % self.name))
        self._retired = 0.0

    def full_states(self) -> float:
        """Lists and initial states this replica's processes served."""
        if not self.server.alive():
            return self._retired
        return self._retired + full_states_served(self.server.metrics())

    def open_watches(self) -> float:
        return harness.metric_sum(self.server.metrics(), "informerd_watchers_open")

    def kill(self) -> None:
        self._retired = self.full_states()
        self.server.kill()


def full_states_served(samples: Dict[str, float]) -> float:
    """Watches that began with the full state, and List calls (any page,
    any outcome): what every client's first sync and every relist cost."""
    return (harness.metric_sum(samples, "informerd_watch_initial_states_total") +
            harness.metric_sum(samples, "informerd_rpcs_total", method="List"))


class LightInformers:
    """The watchers program (client/go/internal/replicawatchers/main.go): many informers in one
    process, asked for their state with CHECK lines."""

    def __init__(self, binary: str, server: str, namespace: str, count: int,
                 stderr_path: str):
        self.namespace = namespace
        self.count = count
        self.stderr_path = stderr_path
        with open(stderr_path, "ab") as err:
            self.proc = subprocess.Popen(
                [binary, "--server", server, "--namespace", namespace, "--count", str(count)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                start_new_session=True)
        self._synced = threading.Event()
        self._reports: "queue.Queue[dict]" = queue.Queue()
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def describe(self) -> str:
        return "%d light informers of %s" % (self.count, self.namespace)

    def _read(self) -> None:
        for raw in self.proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if line == "SYNCED":
                self._synced.set()
            elif line.startswith("STATUS "):
                self._reports.put(json.loads(line[len("STATUS "):]))

    def _check_alive(self) -> None:
        if self.proc.poll() is not None:
            raise HarnessError("the %s exited with status %d; stderr tail:\n%s"
                               % (self.describe(), self.proc.returncode,
                                  harness.tail(self.stderr_path)))

    def wait_synced(self, timeout: float) -> None:
        def synced() -> bool:
            self._check_alive()
            return self._synced.is_set()
        harness.wait_until(synced, timeout, "SYNCED from the %s" % self.describe())

    def check(self, want: Dict[str, str]) -> dict:
        """The program's report against want (see client/go/internal/replicawatchers/main.go)."""
        self._check_alive()
        with self._lock:
            self.proc.stdin.write(("CHECK %s\n" % json.dumps(want)).encode())
            self.proc.stdin.flush()
            try:
                return self._reports.get(timeout=30)
            except queue.Empty:
                raise HarnessError("the %s did not answer CHECK within 30 s" % self.describe())

    def terminate(self, timeout: float = 30.0) -> None:
        """Closes stdin; the program must stop its informers and exit 0."""
        self._check_alive()
        self.proc.stdin.close()
        try:
            status = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise HarnessError("the %s did not exit within %.0fs of the end of its input"
                               % (self.describe(), timeout))
        if status != 0:
            raise HarnessError("the %s exited with status %d; stderr tail:\n%s"
                               % (self.describe(), status, harness.tail(self.stderr_path)))

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class Suite:
    def __init__(self, args: argparse.Namespace, workdir: str, rng: random.Random):
        self.args = args
        self.workdir = workdir
        self.rng = rng
        self.api = ApiServer()
        self.namespace = "replicas-%d-%06x" % (os.getpid(), rng.getrandbits(24))
        self.churn = Churn(self.api, self.namespace, rng)
        self.replicas = [Replica(i, workdir) for i in range(REPLICAS)]
        self.examples: List[ExampleClient] = []
        self.quiet_namespace = self.namespace + "-quiet"
        # The light informers of the busy namespace, then of the quiet one.
        self.light: List[LightInformers] = []
        # Full states served when every client had synced; any later one is
        # a relist.
        self.baseline = 0.0

    def total_full_states(self) -> float:
        return sum(r.full_states() for r in self.replicas)

    # --- cases ---

    def setup(self, case: TestCase) -> None:
        self.api.create_namespace(self.namespace)
        for _ in range(30):
            self.churn.create()
        for replica in self.replicas:
            replica.server.start()
        addresses = ",".join(r.server.address for r in self.replicas)
        for lang in self.args.langs:
            self.examples.append(ExampleClient(
                lang, addresses, self.namespace,
                os.path.join(self.workdir, "%s-example.stderr" % lang)))
        self.api.create_namespace(self.quiet_namespace)
        for i in range(5):
            self.api.create_configmap(self.quiet_namespace, "quiet-%d" % i, {}, {"n": str(i)})
        busy = self.args.clients - len(self.args.langs) - self.args.quiet_clients
        for namespace, count in ((self.namespace, busy),
                                 (self.quiet_namespace, self.args.quiet_clients)):
            if count:
                self.light.append(LightInformers(
                    os.environ["REPLICAS_WATCHERS_BINARY"], addresses, namespace, count,
                    os.path.join(self.workdir, "light-informers-%s.stderr" % namespace)))
        for client in self.examples:
            client.wait_synced(self.args.startup_timeout)
        for group in self.light:
            group.wait_synced(self.args.startup_timeout)
        case.log("replicas %s; %s example clients synced, and %s"
                 % (addresses, ",".join(self.args.langs),
                    ", ".join(group.describe() for group in self.light)))
        # Caught up with changes made after every replica listed, every
        # client resumes inside every replica's history.
        self.churn.random_ops(OPS_BEFORE)
        self.wait_quiescent("after the first changes")
        self.baseline = self.total_full_states()
        case.log("%d full states served for %d clients' first syncs"
                 % (self.baseline, self.args.clients))
        # Each client's first sync must show, or a relist would not either.
        if self.baseline < self.args.clients:
            raise HarnessError("the replicas served %d full states for %d clients' first "
                               "syncs: their counts would miss relists"
                               % (self.baseline, self.args.clients))
        self.check_relists(case, "during setup")

    def replica_kill(self, case: TestCase) -> None:
        victim = self.rng.choice(self.replicas)
        broken_before = self.broken_streams()
        churn = BackgroundChurn(self.churn)
        try:
            self.wait_ops(OPS_BEFORE, "before the kill")
            watches = victim.open_watches()
            victim.kill()
            case.log("%s killed with SIGKILL; it had %d open watches" % (victim.name, watches))
            self.wait_ops(OPS_AFTER, "after the kill")
        finally:
            churn.stop()
        if watches == 0:
            raise HarnessError("%s had no open watch: the kill tested nothing" % victim.name)
        self.wait_quiescent("after %s's kill" % victim.name)
        broken = self.broken_streams() - broken_before
        case.log("clients caught up; the light informers had %d broken streams" % broken)
        if broken == 0:
            raise HarnessError("no light informer's stream broke: none failed over")
        self.check_relists(case, "after %s's kill" % victim.name)

    def rolling_restart(self, case: TestCase) -> None:
        for replica in self.replicas:
            if not replica.server.alive():
                replica.server.start()
                case.log("%s started again (killed by an earlier case)" % replica.name)
        # The replica with the most watches first, and so on: every kill
        # moves clients, some of them onto a replica restarted moments
        # before, whose history begins at its restart.
        order = sorted(self.replicas, key=lambda r: -r.open_watches())
        churn = BackgroundChurn(self.churn)
        try:
            for replica in order:
                self.wait_ops(OPS_BEFORE, "before %s's restart" % replica.name)
                watches = replica.open_watches()
                replica.kill()
                self.wait_ops(OPS_WHILE_DOWN, "while %s is down" % replica.name)
                replica.server.start()
                case.log("%s killed with %d open watches, started again, ready"
                         % (replica.name, watches))
            self.wait_ops(OPS_AFTER, "after the restarts")
        finally:
            churn.stop()
        self.wait_quiescent("after the rolling restart")
        self.check_relists(case, "after the rolling restart")

    def final_caches(self, case: TestCase) -> None:
        harness.finish_example_clients(self.examples, self.api, self.churn, case.log)
        for group in self.light:
            want = self.api.list_configmaps(group.namespace)
            report = group.check(want)
            group.terminate()
            if report["matching"] != report["informers"] or report["errors_total"]:
                raise HarnessError("%s at the end: %s" % (group.describe(),
                                                          describe_report(report)))
            case.log("%s: caches equal the LIST (%d objects)" % (group.describe(), len(want)))
        for replica in self.replicas:
            # A replica a case left killed has nothing to stop.
            if replica.server.alive():
                harness.stop_informerd(replica.server)

    def teardown(self) -> None:
        for client in self.examples:
            client.kill()
        for group in self.light:
            group.kill()
        for replica in self.replicas:
            replica.server.kill()

    # --- invariants ---

    def wait_ops(self, count: int, when: str) -> None:
        ops = self.churn.ops
        harness.wait_until(lambda: self.churn.ops >= ops + count, 60,
                           "%d changes %s" % (count, when))

    def broken_streams(self) -> int:
        return sum(sum(group.check({})["stream_errors"].values()) for group in self.light)

    def wait_quiescent(self, when: str) -> None:
        """Every client's state equals the LIST, with consistent handler
        calls; HarnessError naming the differences otherwise."""
        harness.wait_quiescent(self.examples, self.api, self.churn,
                               self.args.settle_timeout, when)
        # Only a relist learns of a delete without its event.
        for client in self.examples:
            unknown = [line for line in client.lines() if line.endswith(" final-state-unknown")]
            if unknown:
                raise HarnessError("%s %s: %d final-state-unknown deletes, which only a relist "
                                   "makes, e.g. %r" % (client.describe(), when, len(unknown),
                                                       unknown[0]))
        for group in self.light:
            last: Dict[str, dict] = {}

            def caught_up() -> bool:
                last["report"] = group.check(self.api.list_configmaps(group.namespace))
                return last["report"]["matching"] == last["report"]["informers"]
            try:
                harness.wait_until(caught_up, self.args.settle_timeout,
                                   "the %s to match the LIST %s" % (group.describe(), when))
            except HarnessError as e:
                raise HarnessError("%s: %s" % (e, describe_report(last.get("report", {}))))
            if last["report"]["errors_total"]:
                raise HarnessError("%s %s: %s" % (group.describe(), when,
                                                  describe_report(last["report"])))

    def check_relists(self, case: TestCase, when: str) -> None:
        served = self.total_full_states() - self.baseline
        reports = {group.describe(): group.check({}) for group in self.light}
        light = {name: report["relists"] for name, report in reports.items()}
        counted = ", ".join("%d by the %s (their streams ended by code: %s)"
                            % (report["relists"], name, report["stream_errors"])
                            for name, report in reports.items())
        case.log("relists %s: %d full states served by the replicas; relists counted: %s"
                 % (when, served, counted))
        if served or any(light.values()):
            raise HarnessError("clients relisted %s: the replicas served %d full states since "
                               "every client had synced; relists counted %s. OutOfRange: a "
                               "resume point older than the replica's history, which begins "
                               "at its first list after a (re)start (see the replicas' logs "
                               "and light-informers-*.stderr in %s)"
                               % (when, served, counted, self.workdir))


def describe_report(report: dict) -> str:
    return ("%s of %s informers match the LIST, %s relists, streams ended by code %s; "
            "%s handler errors:\n  %s\ndifferences:\n  %s"
            % (report.get("matching"), report.get("informers"), report.get("relists"),
               report.get("stream_errors"), report.get("errors_total"),
               "\n  ".join(report.get("errors") or []),
               "\n  ".join(report.get("differences") or [])))


CASES = (("replica-kill", Suite.replica_kill), ("rolling-restart", Suite.rolling_restart),
         ("final-caches", Suite.final_caches))


def main(argv: List[str]) -> int:
    args = parse_args(argv)
    workdir, seed = harness.start_run("replicas", args.workdir, args.seed)
    suite = Suite(args, workdir, random.Random(seed))
    cases = []
    try:
        setup = TestCase("setup")
        harness.run_case(setup, suite.setup)
        cases.append(setup)
        for name in args.cases:
            body = dict(CASES)[name]
            case = TestCase(name)
            if setup.failure:
                case.failure = "not run: setup failed"
            else:
                harness.run_case(case, lambda c, body=body: body(suite, c))
            cases.append(case)
    finally:
        suite.teardown()
    return harness.report("replicas", cases, args.junit)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
