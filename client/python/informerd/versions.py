"""VersionTracker: the highest resourceVersion handed to event handlers.

The no-copy mode (remote.py) answers reads by RPC, possibly from another
informerd replica than the one the watch comes from, or from the same one
while its cache moves on. A read that follows an event must see that
event's state or a later one ("read your events"): every read carries the
tracker's version as its not-older-than minimum, and informerd waits
(bounded) until its cache has reached it.

Versions are compared as integers: informerd refuses any other
resource_version in a request, and the apiserver's are etcd revisions.
A version that is not a decimal integer is ignored (logged once per
tracker) rather than sent. Thread-safe.
"""

from __future__ import annotations

import logging
import threading

_log = logging.getLogger("informerd")


class VersionTracker:
    """Monotonic: ``observe`` never lowers ``version``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._version = 0  # Guarded by _lock.
        self._warned = False  # Guarded by _lock.

    def observe(self, resource_version: str) -> None:
        """Raises the version to ``resource_version`` if that is higher."""
        try:
            value = int(resource_version)
        except (TypeError, ValueError):
            value = -1
        with self._lock:
            if value < 0:
                if not self._warned:
                    self._warned = True
                    _log.warning("resource_version %r is not a decimal "
                                 "integer; not used as a read minimum",
                                 resource_version)
                return
            if value > self._version:
                self._version = value

    @property
    def version(self) -> str:
        """The highest version observed, "" before the first."""
        with self._lock:
            return str(self._version) if self._version else ""


def not_older_than(*versions: str) -> str:
    """The highest of ``versions`` ("" entries ignored), as a minimum for a
    read; "" when all are empty. ValueError names a non-decimal one."""
    best = 0
    for version in versions:
        if not version:
            continue
        try:
            value = int(version)
        except ValueError:
            raise ValueError("resource_version: %r is not a decimal integer"
                             % (version,)) from None
        if value < 0:
            raise ValueError("resource_version: %r is negative" % (version,))
        best = max(best, value)
    return str(best) if best else ""
