"""Decoding cached objects' JSON into dicts or the caller's own types.

The informer keeps the server's JSON bytes and parses nothing; these helpers
parse on demand, so handlers that only need the key or labels pay nothing.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, TypeVar, Union

from informerd.objects import CachedObject

T = TypeVar("T")


class DecodeError(ValueError):
    """The object's JSON is malformed or the target type rejected it; the
    message names the object."""


def decode(obj: Union[CachedObject, bytes]) -> Dict[str, Any]:
    """The object's JSON as a dict (a fresh one per call: mutate freely)."""
    data, what = ((obj.json, obj.key) if isinstance(obj, CachedObject)
                  else (obj, "object"))
    try:
        decoded = json.loads(data)
    except (ValueError, UnicodeDecodeError) as error:
        raise DecodeError("%s: invalid JSON: %s" % (what, error)) from error
    if not isinstance(decoded, dict):
        raise DecodeError("%s: JSON is a %s, not an object"
                          % (what, type(decoded).__name__))
    return decoded


def decode_as(obj: Union[CachedObject, bytes],
              into: Callable[[Dict[str, Any]], T]) -> T:
    """``into(decode(obj))``: e.g. a dataclass's ``from_dict`` or a
    pydantic model's ``model_validate``. Errors raised by ``into``
    (ValueError, TypeError, KeyError) become DecodeError."""
    data = decode(obj)
    try:
        return into(data)
    except (ValueError, TypeError, KeyError) as error:
        what = obj.key if isinstance(obj, CachedObject) else "object"
        raise DecodeError("%s: cannot decode as %s: %s"
                          % (what, getattr(into, "__qualname__", into), error)
                          ) from error
