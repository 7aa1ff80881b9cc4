"""Exponentially growing, jittered delays between reconnect attempts.

The jitter keeps many clients that lost the same server from reconnecting in
lock step. Not thread-safe: one Backoff per retry loop.
"""

from __future__ import annotations

import random
from typing import Optional


class Backoff:
    """Delays drawn uniformly from [d/2, d]; d starts at ``initial`` and
    doubles with every call up to ``maximum``."""

    # A 1s ceiling keeps an informer within about a second of a restarted
    # server (gRPC's own reconnect backoff is capped alike in connection.py);
    # retrying a single stream that often costs the server next to nothing.
    def __init__(self, initial: float = 0.2, maximum: float = 1.0,
                 rng: Optional[random.Random] = None) -> None:
        if not 0 < initial <= maximum:
            raise ValueError("initial, maximum: need 0 < initial <= maximum")
        self._initial = initial
        self._maximum = maximum
        self._current = initial
        self._rng = rng or random.Random()

    def next_delay(self) -> float:
        delay = self._current
        self._current = min(self._current * 2, self._maximum)
        return self._rng.uniform(delay / 2, delay)

    def reset(self) -> None:
        """Back to ``initial``, e.g. after the connection delivered data."""
        self._current = self._initial
