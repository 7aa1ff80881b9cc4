"""A thread-safe handler that records its calls, for the informer tests."""

import threading
import time

from informerd import ResourceEventHandler

TIMEOUT = 10


class Recorder(ResourceEventHandler):
    """Records "ADD key rv", "UPDATE key oldrv newrv", "DELETE key rv
    final_state_unknown" and "SYNCED", each with the time.monotonic() of
    the call in ``times``. ``work`` seconds of simulated work per call
    (e.g. a slow handler); ``gate``, when given, is waited for before each
    call returns (a handler held mid-call)."""

    def __init__(self, work: float = 0.0, gate: threading.Event = None):
        self.calls = []
        self.times = []
        self.registration = None
        self._work = work
        self._gate = gate
        self.in_call = threading.Event()
        self._changed = threading.Condition()

    def _record(self, line):
        now = time.monotonic()
        with self._changed:
            self.calls.append(line)
            self.times.append(now)
            self._changed.notify_all()
        self.in_call.set()
        if self._work:
            time.sleep(self._work)  # The handler's (slow) work, not a wait.
        if self._gate is not None:
            self._gate.wait(TIMEOUT)

    def on_add(self, obj):
        self._record("ADD %s %s" % (obj.key, obj.resource_version))

    def on_update(self, old, new):
        self._record("UPDATE %s %s %s" % (
            new.key, old.resource_version, new.resource_version))

    def on_delete(self, obj, final_state_unknown):
        self._record("DELETE %s %s %s" % (
            obj.key, obj.resource_version, final_state_unknown))

    def on_synced(self):
        synced = self.registration is None or self.registration.has_synced()
        self._record("SYNCED" if synced else "SYNCED before has_synced")

    def wait_for(self, count, timeout=TIMEOUT):
        """Waits until ``count`` calls were recorded; asserts they were."""
        self.wait_until(lambda calls: len(calls) >= count, timeout)

    def wait_until(self, predicate, timeout=TIMEOUT):
        with self._changed:
            assert self._changed.wait_for(lambda: predicate(self.calls),
                                          timeout), self.calls

    def snapshot(self):
        with self._changed:
            return list(self.calls), list(self.times)
