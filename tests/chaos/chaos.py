"""Bounded chaos suite for informerd, against a private control plane (see
run.sh). One JUnit testcase per fault, plus one for the final caches.

Topology: kube-apiserver <- fault_proxy <- informerd <- Go and Python
example clients (hack/example.sh), which watch one namespace while a
background thread churns its configmaps through the apiserver directly.
The clients also know a second informerd replica, which runs only during
the replica-kill fault.

Faults: proxy delay, stall, resets, cuts in the middle of a chunk;
kube-apiserver kill -9 and restart; informerd kill and restart while
clients watch; 10% of ten informerctl watchers SIGSTOPped under heavy
events; a client opening and abandoning streams in a tight loop; the
second replica started, then each replica killed with -9 in turn, so that
the clients fail over from one to the other and back.

After each fault: informerd is alive, its log holds no sanitizer report
(run.sh builds it with ASan and UBSan), its RSS (sampled through the
fault) stayed under --rss-limit-mb (500 by default; the ASan build starts
at about 330 MB, its allocator and shadow memory), and every client's
handler state equals the apiserver's LIST with consistent handler lines
(harness.wait_quiescent).
At the end the clients' CACHE lines must equal the LIST.

--soak HOURS loops random faults and prints the invariants after each.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import threading
import time
import urllib.parse
from typing import Callable, List

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "e2e"))
import harness  # noqa: E402
from harness import (ApiServer, BackgroundChurn, Churn, ExampleClient,  # noqa: E402
                     HarnessError, Informerd, TestCase)
from fault_proxy import FaultProxy  # noqa: E402

CLIENT_LANGUAGES = ("go", "python")
WATCHERS = 10
STOPPED_WATCHERS = 1
RSS_SAMPLE_SECONDS = 0.25


def parse_args(argv: List[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="tests/chaos/run.sh")
    parser.add_argument("--seconds", type=float, default=180.0,
                        help="rough bound of the whole run (default: %(default)s)")
    parser.add_argument("--soak", type=float, metavar="HOURS",
                        help="loop random faults for HOURS instead (not for CI)")
    parser.add_argument("--junit", help="write a JUnit XML report here")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--rss-limit-mb", type=int, default=500)
    parser.add_argument("--settle-timeout", type=float, default=90.0,
                        help="seconds clients may take to catch up after a fault")
    parser.add_argument("--workdir", help="logs go here (default: a new temp dir)")
    return parser.parse_args(argv)


class RssSampler:
    """Samples informerd's RSS until stopped; the peak is what counts (a
    leak could be freed again by the time the fault ends)."""

    def __init__(self, server: Informerd):
        self._server = server
        self._stop = threading.Event()
        self.peak = 0
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(RSS_SAMPLE_SECONDS):
            try:
                self.peak = max(self.peak, self._server.rss_bytes())
            except (OSError, HarnessError, AttributeError):
                pass  # between a deliberate kill and the restart

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        try:
            self.peak = max(self.peak, self._server.rss_bytes())
        except (OSError, HarnessError):
            pass
        return self.peak


class Chaos:
    """The running system and the faults that can be done to it."""

    def __init__(self, args: argparse.Namespace, workdir: str, rng: random.Random):
        self.args = args
        self.workdir = workdir
        self.rng = rng
        self.cp_dir = os.environ["INFORMERD_CP_DIR"]
        self.api = ApiServer(retry_seconds=120)
        url = urllib.parse.urlparse(self.api.url)
        self.proxy = FaultProxy(url.hostname, url.port)
        self.kubeconfig = self._proxied_kubeconfig(url)
        self.namespace = "chaos-%d-%06x" % (os.getpid(), rng.getrandbits(24))
        self.churn = Churn(self.api, self.namespace, rng)
        self.server = Informerd(os.path.join(workdir, "informerd.log"), self.kubeconfig)
        self.replica = Informerd(os.path.join(workdir, "informerd-replica.log"), self.kubeconfig)
        self.clients: List[ExampleClient] = []

    def _proxied_kubeconfig(self, url: urllib.parse.ParseResult) -> str:
        """$KUBECONFIG with the server behind the proxy; the serving
        certificate names 127.0.0.1, so TLS verification still holds."""
        with open(os.environ["KUBECONFIG"]) as f:
            text = f.read()
        original = "server: %s://%s" % (url.scheme, url.netloc)
        if original not in text:
            raise HarnessError("%s has no line %r" % (os.environ["KUBECONFIG"], original))
        path = os.path.join(self.workdir, "proxied.kubeconfig")
        with open(path, "w") as f:
            f.write(text.replace(original, "server: https://127.0.0.1:%d" % self.proxy.port))
        os.chmod(path, 0o600)
        return path

    def setup(self, log: Callable[[str], None]) -> None:
        self.api.create_namespace(self.namespace)
        for _ in range(30):
            self.churn.create()
        self.server.start()
        for lang in CLIENT_LANGUAGES:
            self.clients.append(ExampleClient(
                lang, "%s,%s" % (self.server.address, self.replica.address), self.namespace,
                os.path.join(self.workdir, "%s-example.stderr" % lang)))
        for client in self.clients:
            client.wait_synced(600)
        log("namespace %s; informerd %s via proxy :%d; clients %s synced"
            % (self.namespace, self.server.address, self.proxy.port,
               ", ".join(CLIENT_LANGUAGES)))

    def teardown(self) -> None:
        for client in self.clients:
            client.kill()
        self.server.kill()
        self.replica.kill()

    # --- faults: each runs for about `seconds` while the churn goes on ---

    def proxy_delay(self, seconds: float, log: Callable[[str], None]) -> None:
        self.proxy.set_delay(300)
        try:
            time.sleep(seconds)
        finally:
            self.proxy.set_delay(0)

    def proxy_stall(self, seconds: float, log: Callable[[str], None]) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.proxy.set_stalled(True)
            time.sleep(3)
            self.proxy.set_stalled(False)
            time.sleep(1)

    def proxy_reset(self, seconds: float, log: Callable[[str], None]) -> None:
        deadline, resets = time.monotonic() + seconds, 0
        while time.monotonic() < deadline:
            resets += self.proxy.reset_all()
            time.sleep(self.rng.uniform(0.3, 1.5))
        log("%d connections reset" % resets)

    def proxy_cut_mid_event(self, seconds: float, log: Callable[[str], None]) -> None:
        deadline, before = time.monotonic() + seconds, self.proxy.cuts
        while time.monotonic() < deadline:
            self.proxy.cut_mid_chunk()
            time.sleep(self.rng.uniform(0.3, 1.5))
        cuts = self.proxy.cuts - before
        log("%d chunks cut in the middle" % cuts)
        if cuts == 0:
            raise HarnessError("the fault did not happen: no chunk passed the proxy to cut")

    def apiserver_kill(self, seconds: float, log: Callable[[str], None]) -> None:
        pid = harness.kill_apiserver(self.cp_dir)
        log("kube-apiserver (pid %d) killed with SIGKILL" % pid)
        time.sleep(min(seconds, 5))  # a while with no apiserver at all
        harness.restart_apiserver()
        log("kube-apiserver restarted")

    def informerd_restart(self, seconds: float, log: Callable[[str], None]) -> None:
        def while_down() -> None:
            # The background churn goes on; wait until it changed something.
            ops = self.churn.ops
            harness.wait_until(lambda: self.churn.ops >= ops + 5, 60,
                               "five changes while informerd is down")
        self.server.restart(between=while_down)
        log("informerd killed and restarted (restart %d)" % self.server.restarts)
        time.sleep(max(0.0, seconds - 5))

    def stalled_watchers(self, seconds: float, log: Callable[[str], None]) -> None:
        watchers = []
        try:
            for i in range(WATCHERS):
                with open(os.path.join(self.workdir, "watcher-%d.stderr" % i), "ab") as err:
                    watchers.append(subprocess.Popen(
                        [harness.INFORMERCTL_BINARY, "--server", self.server.address,
                         "watch", "configmaps", "-n", self.namespace, "--initial-events"],
                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err))
            for watcher in watchers[:STOPPED_WATCHERS]:
                watcher.send_signal(signal.SIGSTOP)
            self.churn.payload_bytes = 64 * 1024
            time.sleep(seconds)
            running = sum(1 for w in watchers[STOPPED_WATCHERS:] if w.poll() is None)
            log("%d of %d watchers stopped; %d of the others still watching"
                % (STOPPED_WATCHERS, WATCHERS, running))
        finally:
            self.churn.payload_bytes = 0
            for watcher in watchers:
                watcher.kill()  # SIGKILL ends stopped processes too
                watcher.wait()

    def stream_churn(self, seconds: float, log: Callable[[str], None]) -> None:
        result = subprocess.run(
            [os.environ["STREAM_CHURNER_BINARY"], "--server", self.server.address,
             "--namespace", self.namespace, "--count", "400"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=300)
        message = result.stderr.decode("utf-8", "replace").strip()
        if result.returncode != 0:
            raise HarnessError("stream_churner exited %d: %s" % (result.returncode, message))
        log(message)

    def replica_kill(self, seconds: float, log: Callable[[str], None]) -> None:
        def changes(count: int, when: str) -> None:
            ops = self.churn.ops
            harness.wait_until(lambda: self.churn.ops >= ops + count, 60,
                               "%d changes %s" % (count, when))
        self.replica.start()
        changes(5, "with both replicas up")
        # The clients of the first fail over to the second, and back.
        self.server.kill()
        changes(5, "after the first replica's kill")
        harness.wait_until(
            lambda: harness.metric_sum(self.replica.metrics(),
                                       "informerd_watchers_open") >= len(self.clients),
            30, "every client to watch through the second replica")
        self.server.start()
        changes(5, "after the first replica's restart")
        self.replica.kill()
        log("second replica started; first killed with SIGKILL and started again; "
            "second killed with SIGKILL")
        reports = self.replica.sanitizer_reports()
        if reports:
            raise HarnessError("sanitizer reports in the second replica's log:\n%s"
                               % "\n".join(reports[:10]))

    # --- invariants ---

    def check(self, peak_rss: int, when: str) -> str:
        """Raises HarnessError on a violated invariant; returns a summary."""
        if not self.server.alive():
            raise HarnessError("informerd died %s (status %s); log tail:\n%s"
                               % (when, self.server.proc.returncode,
                                  harness.tail(self.server.log_path)))
        reports = self.server.sanitizer_reports()
        if reports:
            raise HarnessError("sanitizer reports in informerd's log %s:\n%s"
                               % (when, "\n".join(reports[:10])))
        limit = self.args.rss_limit_mb << 20
        if peak_rss > limit:
            raise HarnessError("informerd RSS peaked at %d MB %s, over the %d MB bound"
                               % (peak_rss >> 20, when, self.args.rss_limit_mb))
        harness.wait_quiescent(self.clients, self.api, self.churn,
                               self.args.settle_timeout, when)
        return ("informerd alive, no sanitizer report, peak RSS %d MB, %d objects, "
                "clients match the LIST") % (
            peak_rss >> 20, len(self.api.list_configmaps(self.namespace)))

    def run_fault(self, name: str, seconds: float, case: TestCase) -> None:
        fault = getattr(self, name.replace("-", "_"))
        sampler = RssSampler(self.server)
        churn = BackgroundChurn(self.churn)
        try:
            fault(seconds, case.log)
        finally:
            churn.stop()
            peak = sampler.stop()
        case.log(self.check(peak, "after %s" % name))

    def final_caches(self, case: TestCase) -> None:
        harness.finish_clients(self.clients, self.api, self.churn, self.server, case.log)


# The reflector's backoff grows with each upstream failure and resets only
# after a quiet while (as client-go's does), so a fault that breaks
# connections leaves informerd slow to notice the next one. Hence the order:
# the apiserver kill on a fresh informerd, the cuts right after the
# informerd restart, the faults that do not depend on the reflector last.
FAULTS = ("apiserver-kill", "informerd-restart", "proxy-cut-mid-event", "proxy-reset",
          "proxy-stall", "proxy-delay", "stalled-watchers", "stream-churn", "replica-kill")


def run_bounded(chaos: Chaos, args: argparse.Namespace) -> List[TestCase]:
    cases = []
    setup = TestCase("setup")
    harness.run_case(setup, lambda c: chaos.setup(c.log))
    cases.append(setup)
    # Setup and the settling after each fault take about half of the time.
    seconds = max(3.0, args.seconds / 2 / len(FAULTS))
    for name in FAULTS:
        case = TestCase(name)
        if setup.failure:
            case.failure = "not run: setup failed"
        else:
            harness.run_case(case, lambda c, name=name: chaos.run_fault(name, seconds, c))
        cases.append(case)
    final = TestCase("final-caches")
    if setup.failure:
        final.failure = "not run: setup failed"
    else:
        harness.run_case(final, chaos.final_caches)
    cases.append(final)
    return cases


def run_soak(chaos: Chaos, args: argparse.Namespace) -> List[TestCase]:
    setup = TestCase("setup")
    harness.run_case(setup, lambda c: chaos.setup(c.log))
    if setup.failure:
        return [setup]
    cases = [setup]
    end = time.monotonic() + args.soak * 3600
    round_number = 0
    while time.monotonic() < end:
        round_number += 1
        name = chaos.rng.choice(FAULTS)
        case = TestCase("soak-%d-%s" % (round_number, name))
        harness.run_case(case, lambda c: chaos.run_fault(name, 30, c))
        cases.append(case)
    final = TestCase("final-caches")
    harness.run_case(final, chaos.final_caches)
    cases.append(final)
    return cases


def main(argv: List[str]) -> int:
    args = parse_args(argv)
    workdir, seed = harness.start_run("chaos", args.workdir, args.seed)
    chaos = Chaos(args, workdir, random.Random(seed))
    try:
        cases = run_soak(chaos, args) if args.soak else run_bounded(chaos, args)
    finally:
        chaos.teardown()
    return harness.report("chaos", cases, args.junit)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
