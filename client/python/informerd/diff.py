"""diff_relist: what changed between the cache and a fresh full listing.

After a watch is cut (history exceeded, too old resource version) the
informer lists again. Replaying every listed object as an add would tell
handlers about objects they already know and never about the ones that
vanished meanwhile; the diff tells them exactly what changed. Pure, so the
informer's reconcile step is tested without a server.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Dict, Iterable, List, Mapping, Optional

from informerd.objects import CachedObject


class ChangeType(enum.Enum):
    ADD = "add"
    UPDATE = "update"
    DELETE = "delete"


@dataclass(frozen=True)
class Change:
    type: ChangeType
    # UPDATE, DELETE: the cached object. ADD: None.
    old: Optional[CachedObject]
    # ADD, UPDATE: the listed object. DELETE: None.
    new: Optional[CachedObject]


def diff_relist(cached: Mapping[str, CachedObject],
                listed: Iterable[CachedObject]) -> List[Change]:
    """Adds for listed keys not cached, updates for listed keys whose
    resource_version differs from the cached one (both in listed order),
    then deletes for cached keys not listed (in key order). Unchanged objects
    yield nothing. A key listed twice: the later listing wins. A key whose
    uid changed was deleted and recreated while the watch was down: a delete
    of the cached object, then an add, never an update between two
    different objects (as informerd itself reports it)."""
    latest: Dict[str, CachedObject] = {}
    for obj in listed:
        latest.pop(obj.key, None)  # Re-inserted to keep the later position.
        latest[obj.key] = obj
    changes = []
    for key, new in latest.items():
        old = cached.get(key)
        if old is None:
            changes.append(Change(ChangeType.ADD, None, new))
        elif old.uid and old.uid != new.uid:
            changes.append(Change(ChangeType.DELETE, old, None))
            changes.append(Change(ChangeType.ADD, None, new))
        elif old.resource_version != new.resource_version:
            changes.append(Change(ChangeType.UPDATE, old, new))
    for key in sorted(cached):
        if key not in latest:
            changes.append(Change(ChangeType.DELETE, cached[key], None))
    return changes
