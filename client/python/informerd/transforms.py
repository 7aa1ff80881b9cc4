"""Transforms: functions the informer applies to every object it receives,
before the object is stored or given to a handler (client-go's
TransformFunc).

A transform takes a CachedObject and returns one with the same namespace
and name, typically with fields dropped to save memory. It runs on the
informer's thread, once per received object, and must be pure: the factory
shares one informer among all callers asking for the same transform (the
same function object). A transform that raises, or returns an object with
another key, ends the stream with that error; the informer retries it after
its backoff (as client-go's reflector does when its transform fails).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Callable

from informerd.objects import CachedObject

Transform = Callable[[CachedObject], CachedObject]


def apply_transform(transform: Transform, obj: CachedObject) -> CachedObject:
    """``transform(obj)``, checked. Raises TypeError or ValueError for a
    result that is not a CachedObject of the same key."""
    result = transform(obj)
    if not isinstance(result, CachedObject):
        raise TypeError("transform %r returned %r, not a CachedObject"
                        % (transform, type(result).__name__))
    if result.key != obj.key:
        raise ValueError("transform %r changed the key %s to %s"
                         % (transform, obj.key, result.key))
    return result


def strip_managed_fields(obj: CachedObject) -> CachedObject:
    """Drops ``metadata.managedFields``, which controllers rarely read and
    which is often the larger part of an object (client-go's
    TransformStripManagedFields)."""
    if b'"managedFields"' not in obj.json:
        return obj
    decoded = json.loads(obj.json)
    metadata = decoded.get("metadata")
    if not isinstance(metadata, dict) or "managedFields" not in metadata:
        return obj
    del metadata["managedFields"]
    return dataclasses.replace(
        obj, json=json.dumps(decoded, separators=(",", ":")).encode())
