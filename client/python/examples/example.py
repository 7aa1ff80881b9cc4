"""The uniform informerd example program (see hack/example.sh).

Prints one line per handler call, flushed: SYNCED once after the initial
sync, ADD key rv, UPDATE key oldrv newrv, DELETE key rv [final-state-unknown].
Right after SYNCED it adds a second handler to the running informer, which
prints the same lines prefixed with LATE: the cache's objects as LATE ADD,
LATE SYNCED once its registration has synced, then live changes. Both
handlers run on their own threads and write whole lines under one lock.
On SIGTERM (or SIGINT) stops the informer and its handlers, prints the
lister's content as sorted `CACHE key rv` lines and exits 0. Keys are
ns/name, or name for cluster-scoped objects. Logs go to stderr; nothing
else goes to stdout.
"""

from __future__ import annotations

import argparse
import logging
import sys
import threading
from typing import List, Optional

import informerd

from example_support import (Output, add_connection_arguments, connect,
                             log_to_stderr, terminate_on_signals)


def parse_args(argv: List[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="example")
    add_connection_arguments(parser)
    parser.add_argument("--resource", required=True, help="e.g. configmaps")
    parser.add_argument("-l", "--selector", default="")
    return parser.parse_args(argv)


class LinePrinter(informerd.ResourceEventHandler):
    """Writes one line per handler call, after ``prefix``."""

    def __init__(self, output: Output, prefix: str = "") -> None:
        self._output = output
        self._prefix = prefix
        self.synced = threading.Event()
        self.registration: Optional[informerd.HandlerRegistration] = None

    def emit(self, line: str) -> None:
        self._output.emit(self._prefix + line)

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
        # The registration reports has_synced from this call on.
        if self.registration is not None and \
                not self.registration.has_synced():
            logging.error("%sSYNCED before has_synced", self._prefix)
        self.emit("SYNCED")
        self.synced.set()


def main(argv: Optional[List[str]] = None) -> int:
    log_to_stderr()
    args = parse_args(sys.argv[1:] if argv is None else argv)
    terminate = terminate_on_signals()

    try:
        channel = connect(args)
        factory = informerd.SharedInformerFactory(channel)
        informer = factory.informer(args.resource, namespace=args.namespace,
                                    label_selector=args.selector)
    except ValueError as error:
        print("example: %s" % error, file=sys.stderr)
        return 2
    output = Output()
    printer = LinePrinter(output)
    printer.registration = informer.add_event_handler(printer)
    factory.start()
    # Waits in slices so the signal handler gets to run promptly.
    while not printer.synced.wait(0.5) and not terminate.is_set():
        pass
    if not terminate.is_set():
        late = LinePrinter(output, "LATE ")
        late.registration = informer.add_event_handler(late)
    while not terminate.wait(0.5):
        pass
    factory.shutdown()  # No handler runs after this: CACHE lines come last.
    lines = sorted("CACHE %s %s" % (obj.key, obj.resource_version)
                   for obj in informer.lister.list())
    for line in lines:
        output.emit(line)
    channel.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
