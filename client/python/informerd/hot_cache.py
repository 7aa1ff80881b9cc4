"""HotCache: a bounded, least-recently-used cache of whole objects for the
no-copy mode (remote.py), off unless given a size.

It holds only objects of the keys the mode's informer watches, and serves
one only while it is the version the informer last received for its key:
every read checks the cached resource_version against the informer's
metadata (which is updated before any handler is told of a change), and the
watch's events evict their keys. So a read served from the cache is never
older than an event handed to a handler; a read that raced with a change is
answered by informerd and cached only if it is still the current version.

Bounded by ``max_objects``; the least recently used object goes first.
Thread-safe.
"""

from __future__ import annotations

import collections
import threading
from typing import Callable, Optional

from informerd.objects import CachedObject

# key -> resource_version the informer holds for it, or None.
CurrentVersion = Callable[[str], Optional[str]]


class HotCache:

    def __init__(self, max_objects: int, current_version: CurrentVersion
                 ) -> None:
        """``max_objects`` > 0; ``current_version(key)`` the version the
        informer holds (None: not watched, or deleted)."""
        if isinstance(max_objects, bool) or not isinstance(max_objects, int) \
                or max_objects <= 0:
            raise ValueError("cache_size: must be a positive number of "
                             "objects, got %r" % (max_objects,))
        self._max = max_objects
        self._current_version = current_version
        self._lock = threading.Lock()
        # key -> object, least recently used first. Guarded by _lock.
        self._objects: "collections.OrderedDict[str, CachedObject]" = \
            collections.OrderedDict()
        self.hits = 0        # Guarded by _lock.
        self.misses = 0      # Guarded by _lock.
        self.evictions = 0   # Size evictions. Guarded by _lock.
        self.invalidations = 0  # By events and stale reads. Guarded by _lock.

    @property
    def max_objects(self) -> int:
        return self._max

    def get(self, key: str) -> Optional[CachedObject]:
        """The cached object if it is the informer's current version."""
        current = self._current_version(key)
        with self._lock:
            obj = self._objects.get(key)
            if obj is not None and current is not None \
                    and obj.resource_version == current:
                self._objects.move_to_end(key)
                self.hits += 1
                return obj
            if obj is not None:
                del self._objects[key]
                self.invalidations += 1
            self.misses += 1
            return None

    def put(self, obj: CachedObject) -> None:
        """Caches ``obj`` if it is the informer's current version of its
        key; evicts the least recently used object past the bound."""
        if self._current_version(obj.key) != obj.resource_version:
            return
        with self._lock:
            self._objects[obj.key] = obj
            self._objects.move_to_end(obj.key)
            while len(self._objects) > self._max:
                self._objects.popitem(last=False)
                self.evictions += 1

    def invalidate(self, key: str) -> None:
        with self._lock:
            if self._objects.pop(key, None) is not None:
                self.invalidations += 1

    def keys(self):
        """Cached keys, least recently used first."""
        with self._lock:
            return list(self._objects)

    def __len__(self) -> int:
        with self._lock:
            return len(self._objects)
