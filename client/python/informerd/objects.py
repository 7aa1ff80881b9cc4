"""CachedObject: one object as the informer caches it, immutable.

The fields beside ``json`` are copied from the server's Object so that
routing, indexing and label matching never parse JSON. Instances are never
modified after construction and may be shared between threads; ``labels``
is a read-only mapping.
"""

from __future__ import annotations

import types
from dataclasses import dataclass, field
from typing import Any, Mapping

from informerd.proto import pb


def object_key(namespace: str, name: str) -> str:
    """"namespace/name", or just "name" for cluster-scoped objects."""
    return "%s/%s" % (namespace, name) if namespace else name


@dataclass(frozen=True, eq=True)
class CachedObject:
    namespace: str
    name: str
    resource_version: str
    uid: str = ""
    labels: Mapping[str, str] = field(
        default_factory=lambda: types.MappingProxyType({}))
    json: bytes = b""

    __hash__ = None  # labels is a mapping; equality is by value.

    @property
    def key(self) -> str:
        return object_key(self.namespace, self.name)

    def as_model(self, model: Any) -> Any:
        """This object as a ``kubernetes.client`` model, e.g.
        ``obj.as_model(V1Pod)``; see informerd.models.decode_model."""
        # Imported here: informerd.models imports this module.
        from informerd.models import decode_model
        return decode_model(self, model)

    @classmethod
    def from_proto(cls, obj: "pb.Object") -> "CachedObject":
        return cls(namespace=obj.namespace, name=obj.name,
                   resource_version=obj.resource_version, uid=obj.uid,
                   labels=types.MappingProxyType(dict(obj.labels)),
                   json=bytes(obj.json))
