"""A minimal controller on an informerd informer.

The handlers only enqueue keys; a worker thread takes keys off the queue and
reads the current state from the lister, so it always acts on the latest
object (or its absence) however many events arrived meanwhile, and a slow
reconcile never slows the informer.

    python3 examples/controller.py 127.0.0.1:50051 configmaps my-namespace
"""

from __future__ import annotations

import logging
import queue
import sys
import threading

import informerd


class KeyQueue:
    """A FIFO of keys in which a key waits at most once."""

    def __init__(self) -> None:
        self._queue: "queue.Queue[str]" = queue.Queue()
        self._pending = set()
        self._lock = threading.Lock()

    def add(self, key: str) -> None:
        with self._lock:
            if key in self._pending:
                return
            self._pending.add(key)
        self._queue.put(key)

    def get(self) -> str:
        key = self._queue.get()
        with self._lock:
            self._pending.discard(key)
        return key


def reconcile(lister: informerd.Lister, key: str) -> None:
    obj = lister.get_by_key(key)
    if obj is None:
        logging.info("%s is gone; cleaning up", key)
        return
    data = informerd.decode(obj).get("data", {})
    logging.info("%s at %s has %d data keys", key, obj.resource_version,
                 len(data))


def main() -> int:
    logging.basicConfig(level=logging.INFO)
    server, resource, namespace = (sys.argv[1:] + ["", "", ""])[:3]
    channel = informerd.connect(informerd.ConnectionOptions([server]))
    informer = informerd.Informer(channel, resource, namespace=namespace)
    keys = KeyQueue()
    informer.add_event_handler(informerd.HandlerFuncs(
        on_add=lambda obj: keys.add(obj.key),
        on_update=lambda old, new: keys.add(new.key),
        on_delete=lambda obj, final_state_unknown: keys.add(obj.key)))
    informer.start()
    if not informer.wait_for_sync(60):
        logging.error("not synced: %s", informer.last_error)
        return 1

    def work() -> None:
        while True:
            reconcile(informer.lister, keys.get())

    threading.Thread(target=work, daemon=True).start()
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    informer.stop()
    channel.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
