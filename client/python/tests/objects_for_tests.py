"""Builders of objects and watch events for the unit tests."""

from typing import Dict, Optional

from informerd import CachedObject, pb


def proto_object(key: str, rv: str,
                 labels: Optional[Dict[str, str]] = None) -> "pb.Object":
    namespace, _, name = key.rpartition("/")
    return pb.Object(namespace=namespace, name=name, resource_version=rv,
                     labels=labels or {},
                     json=b'{"metadata":{"name":"%s"}}' % name.encode())


def cached(key: str, rv: str,
           labels: Optional[Dict[str, str]] = None) -> CachedObject:
    return CachedObject.from_proto(proto_object(key, rv, labels))


def event(kind: str, key: str = "", rv: str = "", *,
          labels: Optional[Dict[str, str]] = None,
          initial_events_end: bool = False,
          final_state_unknown: bool = False) -> "pb.WatchEvent":
    if kind == "BOOKMARK":
        return pb.WatchEvent(type=pb.WatchEvent.BOOKMARK, resource_version=rv,
                             object=pb.Object(resource_version=rv),
                             initial_events_end=initial_events_end)
    return pb.WatchEvent(type=getattr(pb.WatchEvent, kind),
                         object=proto_object(key, rv, labels),
                         resource_version=rv,
                         final_state_unknown=final_state_unknown)
