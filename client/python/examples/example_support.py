"""What the example programs (example.py, controller.py) share.

Both print whole lines on stdout that tests and hack/example.sh parse, log
to stderr only, and stop on SIGTERM or SIGINT. They run as scripts, so
this module is found next to them (the script's directory is on sys.path).
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading

import grpc

import informerd


class Output:
    """stdout, one whole flushed line at a time, from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def emit(self, line: str) -> None:
        with self._lock:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()


def log_to_stderr() -> None:
    """Sends logging to stderr: stdout carries only the program's lines."""
    logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(message)s")


def terminate_on_signals() -> threading.Event:
    """An event set on SIGTERM or SIGINT.

    Wait on it in slices (e.g. ``while not event.wait(0.5)``) so that the
    signal handler gets to run promptly.
    """
    terminate = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: terminate.set())
    return terminate


def add_connection_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags every example takes: where informerd is, what to read."""
    parser.add_argument("--server", required=True,
                        help="host:port, or several ip:port separated by commas "
                             "(replicas, balanced round robin)")
    parser.add_argument("-n", "--namespace", default="")
    parser.add_argument("--token-file", default=None)
    parser.add_argument("--ca-file", default=None,
                        help="PEM CA certificates to verify informerd's TLS "
                             "certificate with; without it: plaintext")


def connect(args: argparse.Namespace) -> grpc.Channel:
    """A channel to the informerd of add_connection_arguments' flags."""
    tls = None
    if args.ca_file is not None:
        tls = informerd.TlsOptions(ca_file=args.ca_file)
    # Several replicas fail over by resourceVersion: a watch broken by one
    # resumes on another. Without --ca-file the example talks to a local
    # server (the e2e suites), so a token may go in plaintext; in a pod it
    # is given the chart's CA.
    return informerd.connect(informerd.ConnectionOptions(
        addresses=args.server.split(","), tls=tls, token_file=args.token_file,
        allow_token_without_tls=tls is None))
