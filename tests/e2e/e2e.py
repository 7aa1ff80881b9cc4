"""End-to-end test of the client libraries through their uniform example
programs (hack/example.sh LANG), one JUnit testcase per language.

For each language: a private informerd serving configmaps, a fresh
namespace, two example clients (all objects, and -l e2e-group=blue), churn
through the apiserver, an informerd kill and restart with changes made while
it is down (a delete among them), which every client must have caught up
with within 3 s of informerd's readiness, more churn; then, once every
client's handler state equals the apiserver's LIST, SIGTERM and the checks
of harness.check_final_output. The adapters' example controllers
(harness.ADAPTERS) must also have reconciled every key at its listed state;
the libraries' own examples (harness.LANGUAGES) add a second
handler after SYNCED, whose LATE lines must show every cached object as an
ADD before any live event and end equal to the LIST as well.

Run through tests/e2e/run.sh, which provides the control plane and the
informerd binary.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from typing import List

import harness
from harness import ApiServer, Churn, ExampleClient, HarnessError, Informerd, TestCase


def parse_args(argv: List[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="tests/e2e/run.sh")
    parser.add_argument("--langs", default=",".join(harness.LANGUAGES + harness.ADAPTERS),
                        help="comma-separated languages (default: %(default)s)")
    parser.add_argument("--junit", help="write a JUnit XML report here")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the churn (default: random, printed)")
    parser.add_argument("--ops", type=int, default=40,
                        help="changes per churn phase (default: %(default)s)")
    parser.add_argument("--startup-timeout", type=float, default=600.0,
                        help="seconds an example may take to build and sync")
    parser.add_argument("--settle-timeout", type=float, default=60.0,
                        help="seconds clients may take to catch up with the LIST")
    parser.add_argument("--restart-catchup", type=float, default=3.0,
                        help="seconds clients may take, after informerd is ready again, "
                             "to catch up with the changes made while it was down")
    parser.add_argument("--workdir", help="logs go here (default: a new temp dir)")
    args = parser.parse_args(argv)
    args.langs = [lang for lang in args.langs.split(",") if lang]
    for lang in args.langs:
        if lang not in harness.LANGUAGES + harness.ADAPTERS:
            parser.error("--langs: unknown language %r (known: %s)"
                         % (lang, ", ".join(harness.LANGUAGES + harness.ADAPTERS)))
    return args


def run_language(lang: str, args: argparse.Namespace, workdir: str, seed: int,
                 case: TestCase) -> None:
    script = harness.example_script(lang)
    if not os.access(script, os.X_OK):
        raise HarnessError("%s does not exist or is not executable: the %s client has no "
                           "uniform example to run" % (script, lang))
    api = ApiServer()
    namespace = "e2e-%s-%d-%06x" % (lang, os.getpid(), random.getrandbits(24))
    api.create_namespace(namespace)
    churn = Churn(api, namespace, random.Random(seed))
    case.log("namespace %s, seed %d, logs in %s" % (namespace, seed, workdir))
    for _ in range(8):
        churn.create()

    server = Informerd(os.path.join(workdir, "%s-informerd.log" % lang))
    server.start()
    clients: List[ExampleClient] = []
    try:
        for selector in ("", harness.SELECTOR):
            suffix = "-selected" if selector else ""
            clients.append(ExampleClient(
                lang, server.address, namespace,
                os.path.join(workdir, "%s-example%s.stderr" % (lang, suffix)), selector))
        for client in clients:
            client.wait_synced(args.startup_timeout)
        case.log("clients synced; churning %d changes" % args.ops)
        churn.random_ops(args.ops)
        harness.wait_quiescent(clients, api, churn, args.settle_timeout, "before the restart")

        def while_down() -> None:
            churn.delete()
            churn.update()
            churn.relabel()
            churn.create()
            churn.recreate()
        case.log("killing informerd; changing objects while it is down")
        server.restart(between=while_down)
        ready = time.monotonic()
        harness.wait_quiescent(clients, api, churn, args.restart_catchup,
                               "within %.0f s of informerd's readiness after its restart"
                               % args.restart_catchup)
        case.log("informerd restarted; clients caught up %.1f s after its readiness; "
                 "churning %d more changes" % (time.monotonic() - ready, args.ops))
        churn.random_ops(args.ops)
        harness.wait_quiescent(clients, api, churn, args.settle_timeout, "after the restart")

        harness.finish_clients(clients, api, churn, server, case.log)
    finally:
        for client in clients:
            client.kill()
        server.kill()


def main(argv: List[str]) -> int:
    args = parse_args(argv)
    workdir, seed = harness.start_run("e2e", args.workdir, args.seed)
    cases = []
    for lang in args.langs:
        case = TestCase(lang)
        harness.run_case(case, lambda c, lang=lang: run_language(lang, args, workdir, seed, c))
        cases.append(case)
    return harness.report("e2e", cases, args.junit)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
