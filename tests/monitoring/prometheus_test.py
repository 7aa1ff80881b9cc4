"""informerd's alerts and dashboard against a real Prometheus scraping a real
informerd on the control plane of the environment (run.sh).

Prometheus (Debian's binary, a plain process on a free port, data in the
work directory) scrapes informerd's /metrics every second and evaluates the
chart's PrometheusRule, rendered by helm with tests/monitoring/
fast-alerts.yaml (short `for:`), every second. One JUnit case each:
  - `promtool check rules` on charts/informerd/files/alerts.yaml;
  - `promtool test rules` on tests/monitoring/alerts_test.yaml;
  - every alert has a promtool test that fires it and one where it stays
    quiet, and a runbook section in docs/OPERATIONS.md;
  - the rendered rules pass `promtool check rules`;
  - no informerd alert is pending or firing before the faults;
  - a watcher that stops reading (informerctl printing into a pipe nobody
    reads, behind more initial events than the buffers hold) makes
    InformerdWatchersStalled fire;
  - kube-apiserver killed makes InformerdUpstreamUnreachable fire (it is
    restarted afterwards with hack/control-plane.sh restart-apiserver, and
    a write after the restart must reach informerd);
  - every query of charts/informerd/files/dashboard.json returns series.
With --png-dir, the dashboard's main panels are drawn from Prometheus's
data of the run (tests/monitoring/plot_panels.py).
"""

from __future__ import annotations

import argparse
import calendar
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Dict, List, Optional

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "e2e"))
import harness  # noqa: E402
from harness import ApiServer, HarnessError, Informerd, TestCase  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CHART = os.path.join(harness.ROOT, "charts", "informerd")
DASHBOARD = os.path.join(CHART, "files", "dashboard.json")
ALERTS = os.path.join(CHART, "files", "alerts.yaml")
ALERTS_TEST = os.path.join(HERE, "alerts_test.yaml")
OPERATIONS = os.path.join(harness.ROOT, "docs", "OPERATIONS.md")
FAULT_ALERTS = ("InformerdWatchersStalled", "InformerdUpstreamUnreachable")
# Initial events bigger than what the kernel's and gRPC's buffers take
# (loopback socket buffers grow to a few MiB): the write blocks.
STALL_OBJECTS = 40
STALL_OBJECT_BYTES = 256 * 1024
ALERT_TIMEOUT = 120.0


def parse_args(argv: List[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="tests/monitoring/run.sh")
    parser.add_argument("--junit", help="write a JUnit XML report here")
    parser.add_argument("--workdir", help="keep logs and Prometheus's data here")
    parser.add_argument("--helm", required=True, help="the helm binary")
    parser.add_argument("--png-dir", help="draw the dashboard's main panels here")
    return parser.parse_args(argv)


class Prometheus:
    """One Prometheus process scraping informerd's admin port."""

    def __init__(self, workdir: str, target: str, rules: str):
        self.port = harness.free_port()
        self.workdir = workdir
        self.log_path = os.path.join(workdir, "prometheus.log")
        config = os.path.join(workdir, "prometheus.yml")
        with open(config, "w") as f:
            json.dump({  # JSON is YAML
                "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
                "rule_files": [rules],
                "scrape_configs": [{"job_name": "informerd",
                                    "static_configs": [{"targets": [target]}]}],
            }, f)
        self.args = ["prometheus", "--config.file", config,
                     "--web.listen-address", "127.0.0.1:%d" % self.port,
                     "--storage.tsdb.path", os.path.join(workdir, "prometheus-data")]
        self.proc: Optional[subprocess.Popen] = None

    def start(self) -> None:
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(self.args, stdin=subprocess.DEVNULL, stdout=log,
                                         stderr=log, start_new_session=True)
        harness.wait_until(self._ready, 60, "Prometheus /-/ready on port %d" % self.port)

    def _ready(self) -> bool:
        if self.proc.poll() is not None:
            raise HarnessError("prometheus exited with status %s; log tail:\n%s"
                               % (self.proc.returncode, harness.tail(self.log_path)))
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/-/ready" % self.port,
                                        timeout=2) as resp:
                return resp.status == 200
        except (urllib.error.URLError, ConnectionError, OSError):
            return False

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def api(self, path: str, **params: str) -> dict:
        url = "http://127.0.0.1:%d/api/v1/%s" % (self.port, path)
        if params:
            url += "?" + urllib.parse.urlencode(params)
        try:
            with urllib.request.urlopen(url, timeout=10) as resp:
                body = json.load(resp)
        except urllib.error.HTTPError as e:
            raise HarnessError("Prometheus %s: HTTP %d: %s"
                               % (path, e.code, e.read().decode("utf-8", "replace")))
        if body.get("status") != "success":
            raise HarnessError("Prometheus %s: %s" % (path, body))
        return body["data"]

    def query(self, expr: str) -> List[dict]:
        return self.api("query", query=expr)["result"]

    def alerts(self) -> Dict[str, str]:
        """{alertname: state} of informerd's alerts now (pending or firing)."""
        return {a["labels"]["alertname"]: a["state"] for a in self.api("alerts")["alerts"]
                if a["labels"]["alertname"].startswith("Informerd")}

    def evaluations_since(self, since: float) -> bool:
        """True when every rule group was evaluated after `since` (epoch s)."""
        groups = self.api("rules")["groups"]
        if not groups:
            return False
        for group in groups:
            stamp = group.get("lastEvaluation", "")
            # RFC 3339 with nanoseconds; seconds are enough here.
            if not stamp or stamp.startswith("0001-"):
                return False
            seconds = calendar.timegm(time.strptime(stamp[:19], "%Y-%m-%dT%H:%M:%S"))
            if seconds < since:
                return False
        return True


def render_rules(helm: str, workdir: str) -> str:
    """The chart's PrometheusRule with tests/monitoring/fast-alerts.yaml,
    as a Prometheus rules file."""
    result = subprocess.run(
        [helm, "template", "t", CHART, "--namespace", "rel", "-s",
         "templates/prometheusrule.yaml", "-f", os.path.join(HERE, "fast-alerts.yaml")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    if result.returncode != 0:
        raise HarnessError("helm template: %s" % result.stderr.decode("utf-8", "replace"))
    import yaml  # python3-yaml; only this step needs it
    rule = yaml.safe_load(result.stdout)
    if not rule or rule.get("kind") != "PrometheusRule":
        raise HarnessError("helm template rendered no PrometheusRule")
    path = os.path.join(workdir, "rules.yaml")
    with open(path, "w") as f:
        yaml.safe_dump({"groups": rule["spec"]["groups"]}, f)
    return path


def promtool(case: TestCase, *args: str) -> None:
    result = subprocess.run(["promtool"] + list(args), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, timeout=120)
    case.log(result.stdout.decode("utf-8", "replace").strip())
    if result.returncode != 0:
        raise HarnessError("promtool %s exited %d" % (" ".join(args), result.returncode))


def every_alert_tested_and_documented(case: TestCase) -> None:
    """Each alert of alerts.yaml: a promtool test where it fires, one where
    it must not (an empty exp_alerts, or a firing test whose other series
    must stay quiet: at least two label sets in its input), and a runbook
    heading in docs/OPERATIONS.md that its runbook_url points to."""
    import yaml
    with open(ALERTS) as f:
        rules = [r for g in yaml.safe_load(f)["groups"] for r in g["rules"]]
    with open(ALERTS_TEST) as f:
        tests = yaml.safe_load(f)["tests"]
    with open(OPERATIONS) as f:
        headings = {line.strip("# \n").lower() for line in f if line.startswith("### ")}
    problems = []
    for rule in rules:
        name = rule["alert"]
        fires = quiet = False
        for test in tests:
            for check in test.get("alert_rule_test", []):
                if check["alertname"] != name:
                    continue
                if check.get("exp_alerts"):
                    fires = True
                    if len(test["input_series"]) > len(check["exp_alerts"]):
                        quiet = True
                else:
                    quiet = True
        if not fires:
            problems.append("%s: no promtool test where it fires" % name)
        if not quiet:
            problems.append("%s: no promtool test where it stays quiet" % name)
        if name.lower() not in headings:
            problems.append("%s: no '### %s' runbook in docs/OPERATIONS.md" % (name, name))
        anchor = "docs/OPERATIONS.md#" + name.lower()
        if rule.get("annotations", {}).get("runbook_url") != anchor:
            problems.append("%s: runbook_url is not %s" % (name, anchor))
    case.log("%d alerts" % len(rules))
    if problems:
        raise HarnessError("\n".join(problems))


def dashboard_queries() -> List[str]:
    with open(DASHBOARD) as f:
        dashboard = json.load(f)
    exprs = []
    for panel in dashboard["panels"]:
        for target in panel.get("targets", []):
            exprs.append(target["expr"])
    return exprs


def instant(expr: str) -> str:
    """A dashboard expression with Grafana's range variables filled in as
    Grafana does for a short range at a 1 s scrape interval."""
    return expr.replace("$__rate_interval", "30s").replace("$__range", "5m")


class Run:
    def __init__(self, args: argparse.Namespace, workdir: str):
        self.args = args
        self.workdir = workdir
        self.api = ApiServer()
        self.namespace = "monitoring-%d-%d" % (int(time.time()), os.getpid())
        self.cp_dir = os.environ["INFORMERD_CP_DIR"]
        self.config = os.path.join(workdir, "informerd.yaml")
        with open(self.config, "w") as f:
            # A watcher whose client takes no write for 2 s ends as stalled.
            f.write("stalledStreamSeconds: 2\ninitialEventsSeconds: 5\n")
        self.server = ConfiguredInformerd(os.path.join(workdir, "informerd.log"), self.config)
        self.prometheus: Optional[Prometheus] = None
        self.rules = ""
        self.watcher: Optional[subprocess.Popen] = None
        self.stall_objects_created = 0
        self.after_restart_created = False
        self.last_get_error = ""
        # "LABEL@EPOCH_SECONDS" of each fault, for the pictures.
        self.marks: List[str] = []

    def check_rendered_rules(self, case: TestCase) -> None:
        self.rules = render_rules(self.args.helm, self.workdir)
        result = subprocess.run(["promtool", "check", "rules", self.rules],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
        case.log(result.stdout.decode("utf-8", "replace").strip())
        if result.returncode != 0:
            raise HarnessError("promtool check rules failed on the rendered PrometheusRule")

    def quiet_before_faults(self, case: TestCase) -> None:
        if not self.rules:
            raise HarnessError("no rendered rules (the first case failed)")
        self.api.create_namespace(self.namespace)
        self.server.start()
        self.prometheus = Prometheus(self.workdir, "127.0.0.1:%d" % self.server.http_port,
                                     self.rules)
        self.prometheus.start()
        case.log("Prometheus on port %d, informerd metrics on %d"
                 % (self.prometheus.port, self.server.http_port))

        def synced_in_prometheus() -> bool:
            return bool(self.prometheus.query('informerd_resource_synced{resource="configmaps"} == 1'))
        harness.wait_until(synced_in_prometheus, 60, "Prometheus to scrape a synced informerd")
        # A few evaluations with rate windows that hold several samples.
        since = time.time() + 3
        harness.wait_until(lambda: self.prometheus.evaluations_since(since), 30,
                           "the rules to be evaluated again")
        alerts = self.prometheus.alerts()
        case.log("informerd alerts before the faults: %s" % (alerts or "none"))
        if alerts:
            raise HarnessError("informerd alerts pending or firing before any fault: %s" % alerts)

    def wait_firing(self, case: TestCase, alert: str) -> None:
        start = time.monotonic()
        harness.wait_until(lambda: self.prometheus.alerts().get(alert) == "firing",
                           ALERT_TIMEOUT, "%s to fire" % alert)
        case.log("%s firing %.1fs after the fault" % (alert, time.monotonic() - start))

    def expect_not_active(self, alert: str) -> None:
        state = self.prometheus.alerts().get(alert)
        if state:
            raise HarnessError("%s is %s before its fault" % (alert, state))

    def informerctl_get(self) -> bytes:
        """The test namespace's configmaps as informerctl prints them; empty
        when it fails (its message in last_get_error)."""
        result = subprocess.run(
            [harness.INFORMERCTL_BINARY, "--server", self.server.address, "get",
             "configmaps", "-n", self.namespace], stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, timeout=60)
        if result.returncode != 0:
            self.last_get_error = result.stderr.decode("utf-8", "replace").strip()
            return b""
        return result.stdout

    def stalled_watcher(self, case: TestCase) -> None:
        if self.prometheus is None:
            raise HarnessError("no Prometheus (an earlier case failed)")
        self.expect_not_active("InformerdWatchersStalled")
        for i in range(STALL_OBJECTS):
            self.api.create_configmap(self.namespace, "big-%02d" % i, {"monitoring": "stall"},
                                      {"pad": "x" * STALL_OBJECT_BYTES})
            self.stall_objects_created = i + 1
        # Listed through informerd (a List, so that the RPC panels have a
        # unary call to show), until it has them all.
        try:
            harness.wait_until(lambda: self.informerctl_get().count(b"big-") >= STALL_OBJECTS,
                               60, "informerd to list the %d objects" % STALL_OBJECTS)
        except HarnessError as e:
            raise HarnessError("%s (last informerctl error: %s)"
                               % (e, self.last_get_error or "none"))
        self.marks.append("watcher stalls@%.1f" % time.time())
        # informerctl prints each event whole (-o json) as it reads it, into
        # a pipe nobody reads: once the pipe's 64 KiB are full it stops
        # reading the watch.
        with open(os.path.join(self.workdir, "watcher.stderr"), "ab") as err:
            self.watcher = subprocess.Popen(
                [harness.INFORMERCTL_BINARY, "--server", self.server.address,
                 "watch", "configmaps", "-n", self.namespace, "--initial-events", "-o", "json"],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err)
        case.log("informerctl watch (pid %d) writing %d initial events of %d KiB into a pipe"
                 " nobody reads" % (self.watcher.pid, STALL_OBJECTS, STALL_OBJECT_BYTES // 1024))
        try:
            self.wait_firing(case, "InformerdWatchersStalled")
            stalled = harness.metric_sum(self.server.metrics(),
                                         "informerd_watcher_terminations_total", reason="stalled")
            case.log("informerd_watcher_terminations_total{reason=\"stalled\"} = %g" % stalled)
        finally:
            self.watcher.kill()
            self.watcher.wait()

    def apiserver_killed(self, case: TestCase) -> None:
        if self.prometheus is None:
            raise HarnessError("no Prometheus (an earlier case failed)")
        self.expect_not_active("InformerdUpstreamUnreachable")
        pid = harness.kill_apiserver(self.cp_dir)
        self.marks.append("kube-apiserver killed@%.1f" % time.time())
        case.log("kube-apiserver (pid %d) killed with SIGKILL" % pid)
        try:
            self.wait_firing(case, "InformerdUpstreamUnreachable")
        finally:
            harness.restart_apiserver()
            self.marks.append("restarted@%.1f" % time.time())
            case.log("kube-apiserver restarted")
        # Recovered: a write after the restart reaches informerd's cache.
        self.api.create_configmap(self.namespace, "after-restart", {}, {"a": "b"})
        self.after_restart_created = True
        harness.wait_until(lambda: b"after-restart" in self.informerctl_get(), 60,
                           "a write after the restart to reach informerd")
        case.log("a write after the restart reached informerd")

    def dashboard_queries(self, case: TestCase) -> None:
        if self.prometheus is None:
            raise HarnessError("no Prometheus (an earlier case failed)")
        empty = []
        for expr in dashboard_queries():
            series = self.prometheus.query(instant(expr))
            case.log("%d series: %s" % (len(series), expr))
            if not series:
                empty.append(expr)
        if empty:
            raise HarnessError("dashboard queries without series:\n  " + "\n  ".join(empty))

    def draw_panels(self, case: TestCase) -> None:
        if self.prometheus is None:
            raise HarnessError("no Prometheus (an earlier case failed)")
        # So that the pictures show the recovery: Prometheus has scraped the
        # event of the write after the restart.
        harness.wait_until(
            lambda: bool(self.prometheus.query(
                "sum(rate(informerd_events_received_total[5s])) > 0")),
            30, "Prometheus to see the event after the restart")
        result = subprocess.run(
            [sys.executable, os.path.join(HERE, "plot_panels.py"), "--prometheus",
             "http://127.0.0.1:%d" % self.prometheus.port, "--dashboard", DASHBOARD,
             "--out-dir", self.args.png_dir] + ["--mark=" + m for m in self.marks],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
        case.log(result.stdout.decode("utf-8", "replace").strip())
        if result.returncode != 0:
            raise HarnessError("plot_panels.py exited %d" % result.returncode)

    def close(self) -> None:
        if self.watcher is not None and self.watcher.poll() is None:
            self.watcher.kill()
            self.watcher.wait()
        if self.prometheus is not None:
            self.prometheus.stop()
        self.server.stop()
        # The objects would stay in etcd (no namespace controller runs).
        names = ["big-%02d" % i for i in range(self.stall_objects_created)]
        if self.after_restart_created:
            names.append("after-restart")
        for name in names:
            try:
                self.api.delete_configmap(self.namespace, name)
            except (HarnessError, harness.ApiError) as e:
                print("cleanup: %s" % e, flush=True)


class ConfiguredInformerd(Informerd):
    """harness.Informerd with a configuration file."""

    def __init__(self, log_path: str, config: str):
        super().__init__(log_path)
        self.config = config

    def start(self, ready_timeout: float = 60.0) -> None:
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [harness.INFORMERD_BINARY, "--kubeconfig", self.kubeconfig,
                 "--config", self.config, "--resources", self.resources,
                 "--grpc-address", self.address,
                 "--http-address", "127.0.0.1:%d" % self.http_port],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
        harness.wait_until(self._ready, ready_timeout,
                           "informerd /readyz on port %d" % self.http_port)


def main(argv: List[str]) -> int:
    args = parse_args(argv)
    workdir, _ = harness.start_run("monitoring", args.workdir, 0)
    run = Run(args, workdir)
    steps = [
        ("promtool check rules alerts.yaml", lambda case: promtool(case, "check", "rules", ALERTS)),
        ("promtool test rules alerts_test.yaml",
         lambda case: promtool(case, "test", "rules", ALERTS_TEST)),
        ("every alert tested firing and quiet, with a runbook", every_alert_tested_and_documented),
        ("rendered PrometheusRule passes promtool check rules", run.check_rendered_rules),
        ("no informerd alert before the faults", run.quiet_before_faults),
        ("stalled watcher fires InformerdWatchersStalled", run.stalled_watcher),
        ("kube-apiserver killed fires InformerdUpstreamUnreachable", run.apiserver_killed),
        ("every dashboard query returns series", run.dashboard_queries),
    ]
    if args.png_dir:
        steps.append(("dashboard panels drawn", run.draw_panels))
    cases = []
    try:
        for name, body in steps:
            case = TestCase(name)
            cases.append(case)
            harness.run_case(case, body)
    finally:
        run.close()
    return harness.report("monitoring", cases, args.junit)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
