"""Cached objects as the official Kubernetes client's models (V1Pod, ...).

Needs the ``kubernetes`` package: ``pip install informerd[kubernetes]``.
The JSON is handed to ``kubernetes.client.ApiClient.deserialize``, the same
code that turns an apiserver response into a model, so field names,
timestamps and quantities come out exactly as from a call through
``CoreV1Api``; no request is made.
"""

from __future__ import annotations

import threading
from typing import Any, Optional, Type, TypeVar, Union

from informerd.decode import DecodeError
from informerd.objects import CachedObject

M = TypeVar("M")

_lock = threading.Lock()
_api_client: Optional[Any] = None


def _deserializer() -> Any:
    """One ApiClient for all decoding: deserialize keeps no state, and an
    ApiClient that never sends a request opens no connection."""
    global _api_client  # pylint: disable=global-statement
    with _lock:
        if _api_client is None:
            try:
                from kubernetes.client import ApiClient
            except ImportError as error:
                raise ImportError(
                    "informerd: decoding into Kubernetes models needs the "
                    "kubernetes package; pip install 'informerd[kubernetes]'"
                ) from error
            _api_client = ApiClient()
        return _api_client


def decode_model(obj: Union[CachedObject, bytes],
                 model: Union[Type[M], str]) -> M:
    """The object as ``model``: a class of ``kubernetes.client`` (e.g.
    ``V1Pod``) or its name (``"V1Pod"``). A fresh model per call.

    Raises DecodeError naming the object for malformed JSON or JSON the
    model rejects, and ImportError when ``kubernetes`` is not installed.
    """
    data, what = ((obj.json, obj.key) if isinstance(obj, CachedObject)
                  else (obj, "object"))
    name = model if isinstance(model, str) else getattr(
        model, "__qualname__", repr(model))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise DecodeError("%s: invalid UTF-8: %s" % (what, error)) from error
    deserializer = _deserializer()
    try:
        decoded = deserializer.deserialize(text, model, "application/json")
    except (ValueError, TypeError, AttributeError) as error:
        # ValueError covers malformed JSON and pydantic's ValidationError;
        # AttributeError a model name kubernetes.client does not have.
        raise DecodeError("%s: cannot decode as %s: %s"
                          % (what, name, error)) from error
    if decoded is None or isinstance(decoded, (str, bytes)):
        raise DecodeError("%s: cannot decode as %s: not a JSON object"
                          % (what, name))
    return decoded
