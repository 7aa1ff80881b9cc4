"""informerd: Python client for the informerd shared informer cache.

    channel = informerd.connect(informerd.ConnectionOptions(["host:50051"]))
    informer = informerd.Informer(channel, "configmaps", namespace="ns1")
    informer.add_event_handler(informerd.HandlerFuncs(on_add=...))
    informer.start()
    informer.wait_for_sync(30)
    informer.lister.list("app=web")
"""

from informerd.backoff import Backoff
from informerd.connection import (BearerToken, ConnectionOptions, TlsOptions,
                                  TokenError, connect, target_for)
from informerd.decode import DecodeError, decode, decode_as
from informerd.diff import Change, ChangeType, diff_relist
from informerd.handlers import HandlerFuncs, ResourceEventHandler
from informerd.informer import Informer
from informerd.models import decode_model
from informerd.objects import CachedObject, object_key
from informerd.proto import pb, pb_grpc
from informerd.resource import parse_resource
from informerd.selectors import (LabelSelector, SelectorError,
                                 parse_label_selector)
from informerd.store import NAMESPACE_INDEX, IndexFunc, Lister, Store

__all__ = [
    "Backoff", "BearerToken", "CachedObject", "Change", "ChangeType",
    "ConnectionOptions", "DecodeError", "HandlerFuncs", "IndexFunc",
    "Informer", "LabelSelector", "Lister", "NAMESPACE_INDEX",
    "ResourceEventHandler", "SelectorError", "Store", "TlsOptions",
    "TokenError", "connect", "decode", "decode_as", "decode_model",
    "diff_relist",
    "object_key", "parse_label_selector", "parse_resource", "pb", "pb_grpc",
    "target_for",
]
