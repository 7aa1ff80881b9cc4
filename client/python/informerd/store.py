"""Store: the informer's indexed, thread-safe cache of one resource.

Objects are kept by key ("namespace/name", or "name" when cluster-scoped).
Every index maps an index value to the keys of the objects whose index
function returned it; the "namespace" index is always present. The
semantics are client-go's Indexer: ``by_index(index_name, value)`` gives the
objects, ``index_keys(index_name, value)`` their keys, ``index_values`` the
values present; more index functions may be added at any time
(``add_indexers``), also to a store that already holds objects. Reads return
consistent snapshots (lists are built under the lock) and may run on any
thread while the informer writes.

An index function must be pure and fast; one that raises is a bug in the
caller: the error is logged and the object is left out of that index rather
than stopping the informer.
"""

from __future__ import annotations

import logging
import threading
from typing import Callable, Dict, Iterable, List, Mapping, Optional, Set

from informerd.objects import CachedObject, object_key
from informerd.selectors import LabelSelector, parse_label_selector

IndexFunc = Callable[[CachedObject], Iterable[str]]

NAMESPACE_INDEX = "namespace"

_log = logging.getLogger("informerd")


def _namespace_index(obj: CachedObject) -> Iterable[str]:
    return (obj.namespace,)


def _as_selector(selector) -> LabelSelector:
    if isinstance(selector, LabelSelector):
        return selector
    return parse_label_selector(selector)


class Store:
    """Writes are for the informer; reads for anyone (see Lister)."""

    def __init__(self, indexers: Optional[Mapping[str, IndexFunc]] = None
                 ) -> None:
        indexers = dict(indexers or {})
        if NAMESPACE_INDEX in indexers:
            raise ValueError("indexers: %r is built in" % NAMESPACE_INDEX)
        indexers[NAMESPACE_INDEX] = _namespace_index
        self._indexers: Dict[str, IndexFunc] = indexers
        self._lock = threading.Lock()
        self._objects: Dict[str, CachedObject] = {}
        self._indices: Dict[str, Dict[str, Set[str]]] = {
            name: {} for name in indexers}

    def add_indexers(self, indexers: Mapping[str, IndexFunc]) -> None:
        """Adds index functions, indexing the objects already stored (as
        client-go's AddIndexers). Raises ValueError naming an index that
        exists already; then nothing is added."""
        with self._lock:
            taken = sorted(set(indexers) & set(self._indexers))
            if taken:
                raise ValueError("indexers: %s already defined"
                                 % ", ".join(repr(n) for n in taken))
            for name, func in indexers.items():
                self._indexers[name] = func
                index: Dict[str, Set[str]] = {}
                self._indices[name] = index
                for obj in self._objects.values():
                    for value in self._index_values(name, obj):
                        index.setdefault(value, set()).add(obj.key)

    def indexers(self) -> Dict[str, IndexFunc]:
        """A copy of index name -> index function (with the built-in
        namespace index)."""
        with self._lock:
            return dict(self._indexers)

    # --- writes --------------------------------------------------------

    def upsert(self, obj: CachedObject) -> Optional[CachedObject]:
        """Stores ``obj``; returns the object it replaced, if any."""
        with self._lock:
            old = self._objects.get(obj.key)
            if old is not None:
                self._unindex(old)
            self._objects[obj.key] = obj
            self._index(obj)
            return old

    def remove(self, key: str) -> Optional[CachedObject]:
        """Removes the object at ``key``; returns it, or None if absent."""
        with self._lock:
            old = self._objects.pop(key, None)
            if old is not None:
                self._unindex(old)
            return old

    def _index_values(self, index_name: str, obj: CachedObject) -> Set[str]:
        try:
            return set(self._indexers[index_name](obj))
        except Exception:  # pylint: disable=broad-except
            _log.exception("index %r failed on %s; left out of the index",
                           index_name, obj.key)
            return set()

    def _index(self, obj: CachedObject) -> None:
        for index_name, index in self._indices.items():
            for value in self._index_values(index_name, obj):
                index.setdefault(value, set()).add(obj.key)

    def _unindex(self, obj: CachedObject) -> None:
        # Recomputed rather than remembered: index functions are pure.
        for index_name, index in self._indices.items():
            for value in self._index_values(index_name, obj):
                keys = index.get(value)
                if keys is None:
                    continue
                keys.discard(obj.key)
                if not keys:
                    del index[value]

    # --- reads ---------------------------------------------------------

    def get_by_key(self, key: str) -> Optional[CachedObject]:
        with self._lock:
            return self._objects.get(key)

    def get(self, namespace: str, name: str) -> Optional[CachedObject]:
        return self.get_by_key(object_key(namespace, name))

    def list(self, selector="", namespace: Optional[str] = None
             ) -> List[CachedObject]:
        """Objects matching ``selector`` (a LabelSelector or its text; raises
        SelectorError if that does not parse), in ``namespace`` if given,
        sorted by key."""
        parsed = _as_selector(selector)
        if namespace is not None:
            candidates = self.by_index(NAMESPACE_INDEX, namespace)
        else:
            with self._lock:
                candidates = list(self._objects.values())
        matching = [o for o in candidates if parsed.matches(o.labels)]
        matching.sort(key=lambda o: o.key)
        return matching

    def by_index(self, index_name: str, value: str) -> List[CachedObject]:
        """Objects whose ``index_name`` function returned ``value``, sorted
        by key. Raises ValueError naming an unknown index."""
        with self._lock:
            index = self._indices.get(index_name)
            if index is None:
                raise ValueError("index_name: unknown index %r" % index_name)
            objects = [self._objects[key] for key in index.get(value, ())]
        objects.sort(key=lambda o: o.key)
        return objects

    def index_keys(self, index_name: str, value: str) -> List[str]:
        """Keys of the objects whose ``index_name`` function returned
        ``value``, sorted (client-go's IndexKeys). Raises ValueError naming
        an unknown index."""
        with self._lock:
            index = self._indices.get(index_name)
            if index is None:
                raise ValueError("index_name: unknown index %r" % index_name)
            return sorted(index.get(value, ()))

    def index_values(self, index_name: str) -> List[str]:
        """The values ``index_name`` currently holds objects for, sorted."""
        with self._lock:
            index = self._indices.get(index_name)
            if index is None:
                raise ValueError("index_name: unknown index %r" % index_name)
            return sorted(index)

    def snapshot(self) -> Dict[str, CachedObject]:
        """A copy of key -> object."""
        with self._lock:
            return dict(self._objects)

    def keys(self) -> List[str]:
        with self._lock:
            return sorted(self._objects)

    def __len__(self) -> int:
        with self._lock:
            return len(self._objects)


class Lister:
    """A read-only view of a Store; safe to use from any thread."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def get(self, namespace: str, name: str) -> Optional[CachedObject]:
        """The object, or None. Use namespace "" for cluster-scoped ones."""
        return self._store.get(namespace, name)

    def get_by_key(self, key: str) -> Optional[CachedObject]:
        return self._store.get_by_key(key)

    def list(self, selector="", namespace: Optional[str] = None
             ) -> List[CachedObject]:
        return self._store.list(selector, namespace)

    def by_index(self, index_name: str, value: str) -> List[CachedObject]:
        return self._store.by_index(index_name, value)

    def index_keys(self, index_name: str, value: str) -> List[str]:
        return self._store.index_keys(index_name, value)

    def index_values(self, index_name: str) -> List[str]:
        return self._store.index_values(index_name)

    def keys(self) -> List[str]:
        return self._store.keys()

    def __len__(self) -> int:
        return len(self._store)
