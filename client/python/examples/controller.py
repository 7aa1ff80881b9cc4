"""A controller on a SharedInformerFactory: what a client-go controller does,
with informerd as the source.

It reconciles every ConfigMap of a namespace against the Pods that use it:

* two informers from one factory, ConfigMaps and Pods, both with the
  strip_managed_fields transform, the Pods with an index from a ConfigMap's
  key to the Pods that mount it or take env from it;
* the reconciler's handlers only enqueue ConfigMap keys (a Pod change
  enqueues the ConfigMaps it uses); a worker thread takes keys off the
  queue and reads the current state from the listers, so it acts on the
  latest objects however many events arrived meanwhile;
* the ConfigMap handler has a resync period: every ``--resync`` seconds
  each cached ConfigMap comes again as an update with old and new the same
  object, and is reconciled again (no new List reaches the server);
* an audit handler that takes ``--slow-delay`` seconds per event: it has
  its own queue and thread, so it delays neither the reconciler nor the
  informers;
* once the caches have synced, an inventory handler is added to both
  running informers: it first gets every cached object as an add.

Output (stdout, one whole line each, for tests/test_controller_e2e.py):
``SYNCED``; ``RECONCILED key rv pods=a,b`` (or ``RECONCILED key gone``);
``RESYNC key rv``; ``SLOW key rv`` when the audit handler is done with an
event; ``LATE ADD kind key rv``, ``LATE SYNCED kind``, then ``LATE UPDATE
kind key oldrv newrv`` and ``LATE DELETE kind key rv``. Stops on SIGTERM or
SIGINT.

    python3 examples/controller.py --server 127.0.0.1:50051 -n my-namespace
"""

from __future__ import annotations

import argparse
import logging
import queue
import sys
import threading
from typing import List, Optional, Set

import informerd

from example_support import (Output, add_connection_arguments, connect,
                             log_to_stderr, terminate_on_signals)

CONFIGMAP_INDEX = "configmap"


class KeyQueue:
    """A FIFO of keys in which a key waits at most once."""

    def __init__(self) -> None:
        self._queue: "queue.Queue[Optional[str]]" = queue.Queue()
        self._pending: Set[str] = set()
        self._lock = threading.Lock()

    def add(self, key: str) -> None:
        with self._lock:
            if key in self._pending:
                return
            self._pending.add(key)
        self._queue.put(key)

    def get(self) -> Optional[str]:
        """The next key; None once close() was called."""
        key = self._queue.get()
        if key is not None:
            with self._lock:
                self._pending.discard(key)
        return key

    def close(self) -> None:
        self._queue.put(None)


def configmaps_of_pod(pod: informerd.CachedObject) -> List[str]:
    """Keys of the ConfigMaps a Pod mounts or takes env from."""
    spec = informerd.decode(pod).get("spec", {})
    names = {volume["configMap"]["name"]
             for volume in spec.get("volumes", []) if "configMap" in volume}
    for container in spec.get("containers", []):
        names.update(source["configMapRef"]["name"]
                     for source in container.get("envFrom", [])
                     if "configMapRef" in source)
    return sorted(informerd.object_key(pod.namespace, name) for name in names)


class Controller:
    """Wires the informers, handlers and worker described above."""

    def __init__(self, factory: informerd.SharedInformerFactory,
                 namespace: str, output: Output, resync: float,
                 slow_delay: float) -> None:
        self._output = output
        self._keys = KeyQueue()
        self._slow_delay = slow_delay
        self._stopping = threading.Event()
        self.configmaps = factory.informer(
            "configmaps", namespace=namespace,
            transform=informerd.strip_managed_fields)
        self.pods = factory.informer(
            "pods", namespace=namespace,
            transform=informerd.strip_managed_fields,
            indexers={CONFIGMAP_INDEX: configmaps_of_pod})
        self.configmaps.add_event_handler(informerd.HandlerFuncs(
            on_add=lambda obj: self._keys.add(obj.key),
            on_update=self._configmap_updated,
            on_delete=lambda obj, _: self._keys.add(obj.key)),
            resync_period=resync)
        self.pods.add_event_handler(informerd.HandlerFuncs(
            on_add=self._pod_changed,
            on_update=lambda old, new: self._pod_changed(old, new),
            on_delete=lambda obj, _: self._pod_changed(obj)),
            resync_period=0)
        self.configmaps.add_event_handler(informerd.HandlerFuncs(
            on_add=self._audit, on_update=lambda old, new: self._audit(new),
            on_delete=lambda obj, _: self._audit(obj)), resync_period=0)
        self._worker = threading.Thread(target=self._work, name="worker")

    def _configmap_updated(self, old: informerd.CachedObject,
                           new: informerd.CachedObject) -> None:
        if old is new:
            self._output.emit("RESYNC %s %s" % (new.key,
                                                new.resource_version))
        self._keys.add(new.key)

    def _pod_changed(self, *versions: informerd.CachedObject) -> None:
        for key in sorted({key for pod in versions
                           for key in configmaps_of_pod(pod)}):
            self._keys.add(key)

    def _audit(self, obj: informerd.CachedObject) -> None:
        # A slow sink (say, an external audit log); waits unless stopping.
        self._stopping.wait(self._slow_delay)
        self._output.emit("SLOW %s %s" % (obj.key, obj.resource_version))

    def start_worker(self) -> None:
        """REQUIRES: the informers have synced, so that a reconcile sees
        every Pod."""
        self._worker.start()

    def add_inventory(self) -> None:
        """Adds the late handler to both running informers."""
        for kind, informer in (("configmap", self.configmaps),
                               ("pod", self.pods)):
            informer.add_event_handler(Inventory(self._output, kind),
                                       resync_period=0)

    def _work(self) -> None:
        while True:
            key = self._keys.get()
            if key is None:
                return
            try:
                self.reconcile(key)
            except Exception:  # pylint: disable=broad-except
                logging.exception("reconcile %s failed", key)

    def reconcile(self, key: str) -> None:
        obj = self.configmaps.lister.get_by_key(key)
        if obj is None:
            self._output.emit("RECONCILED %s gone" % key)
            return
        users = self.pods.lister.index_keys(CONFIGMAP_INDEX, key)
        self._output.emit("RECONCILED %s %s pods=%s" % (
            key, obj.resource_version, ",".join(users)))

    def stop(self) -> None:
        """Ends the audit handler's wait and the worker.
        REQUIRES: the factory is shut down after it."""
        self._stopping.set()
        self._keys.close()
        if self._worker.is_alive():
            self._worker.join()


class Inventory(informerd.ResourceEventHandler):
    """The late handler: LATE lines for one kind."""

    def __init__(self, output: Output, kind: str) -> None:
        self._output = output
        self._kind = kind

    def on_add(self, obj: informerd.CachedObject) -> None:
        self._output.emit("LATE ADD %s %s %s"
                          % (self._kind, obj.key, obj.resource_version))

    def on_update(self, old: informerd.CachedObject,
                  new: informerd.CachedObject) -> None:
        self._output.emit("LATE UPDATE %s %s %s %s" % (
            self._kind, new.key, old.resource_version, new.resource_version))

    def on_delete(self, obj: informerd.CachedObject,
                  final_state_unknown: bool) -> None:
        self._output.emit("LATE DELETE %s %s %s"
                          % (self._kind, obj.key, obj.resource_version))

    def on_synced(self) -> None:
        self._output.emit("LATE SYNCED %s" % self._kind)


def main(argv: Optional[List[str]] = None) -> int:
    log_to_stderr()
    parser = argparse.ArgumentParser(prog="controller")
    add_connection_arguments(parser)
    parser.add_argument("--resync", type=float, default=30.0,
                        help="ConfigMap resync period, seconds (0: none)")
    parser.add_argument("--slow-delay", type=float, default=1.0,
                        help="seconds the audit handler takes per event")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    terminate = terminate_on_signals()

    channel = connect(args)
    factory = informerd.SharedInformerFactory(channel)
    output = Output()
    controller = Controller(factory, args.namespace, output, args.resync,
                            args.slow_delay)
    factory.start()
    while not terminate.is_set():
        synced = factory.wait_for_cache_sync(0.5)
        if all(synced.values()):
            output.emit("SYNCED")
            controller.start_worker()
            controller.add_inventory()
            break
    while not terminate.wait(0.5):  # Slices let the signal handler run.
        pass
    controller.stop()
    factory.shutdown()
    channel.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
