"""The uniform informerd example program (see hack/example.sh).

Prints one line per handler call, flushed: SYNCED once after the initial
sync, ADD key rv, UPDATE key oldrv newrv, DELETE key rv [final-state-unknown].
On SIGTERM (or SIGINT) prints the lister's content as sorted `CACHE key rv`
lines and exits 0. Keys are ns/name, or name for cluster-scoped objects.
Logs go to stderr; nothing else goes to stdout.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from typing import List, Optional

import informerd


def parse_args(argv: List[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="example")
    parser.add_argument("--server", required=True, help="host:port")
    parser.add_argument("--resource", required=True, help="e.g. configmaps")
    parser.add_argument("-n", "--namespace", default="")
    parser.add_argument("-l", "--selector", default="")
    parser.add_argument("--token-file", default=None)
    return parser.parse_args(argv)


class LinePrinter(informerd.ResourceEventHandler):
    """Writes one flushed stdout line per handler call."""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def emit(self, line: str) -> None:
        with self._lock:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    def on_add(self, obj: informerd.CachedObject) -> None:
        self.emit("ADD %s %s" % (obj.key, obj.resource_version))

    def on_update(self, old: informerd.CachedObject,
                  new: informerd.CachedObject) -> None:
        self.emit("UPDATE %s %s %s"
                  % (new.key, old.resource_version, new.resource_version))

    def on_delete(self, obj: informerd.CachedObject,
                  final_state_unknown: bool) -> None:
        suffix = " final-state-unknown" if final_state_unknown else ""
        self.emit("DELETE %s %s%s" % (obj.key, obj.resource_version, suffix))

    def on_synced(self) -> None:
        self.emit("SYNCED")


def main(argv: Optional[List[str]] = None) -> int:
    logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(message)s")
    args = parse_args(sys.argv[1:] if argv is None else argv)
    terminate = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: terminate.set())

    try:
        channel = informerd.connect(informerd.ConnectionOptions(
            addresses=[args.server], token_file=args.token_file))
        informer = informerd.Informer(
            channel, args.resource, namespace=args.namespace,
            label_selector=args.selector)
    except ValueError as error:
        print("example: %s" % error, file=sys.stderr)
        return 2
    printer = LinePrinter()
    informer.add_event_handler(printer)
    informer.start()
    # Waits in slices so the signal handler gets to run promptly.
    while not terminate.wait(0.5):
        pass
    informer.stop()
    lines = sorted("CACHE %s %s" % (obj.key, obj.resource_version)
                   for obj in informer.lister.list())
    for line in lines:
        printer.emit(line)
    channel.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
