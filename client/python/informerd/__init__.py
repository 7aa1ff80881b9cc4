"""informerd: Python client for the informerd shared informer cache.

    channel = informerd.connect(informerd.ConnectionOptions(["host:50051"]))
    factory = informerd.SharedInformerFactory(channel)
    informer = factory.informer("configmaps", namespace="ns1")
    informer.add_event_handler(informerd.HandlerFuncs(on_add=...))
    factory.start()
    factory.wait_for_cache_sync(30)
    informer.lister.list("app=web")
    factory.shutdown()
"""

from informerd.backoff import Backoff
from informerd.connection import (BearerToken, ConnectionOptions, TlsOptions,
                                  TokenError, connect, target_for)
from informerd.decode import DecodeError, decode, decode_as
from informerd.diff import Change, ChangeType, diff_relist
from informerd.factory import InformerKey, SharedInformerFactory
from informerd.handlers import HandlerFuncs, ResourceEventHandler
from informerd.informer import Informer, InformerError
from informerd.models import decode_model
from informerd.processor import (DEFAULT_HANDLER_QUEUE_LIMIT,
                                 HandlerRegistration)
from informerd.objects import CachedObject, object_key
from informerd.proto import pb, pb_grpc
from informerd.remote import (ObjectList, ReadError, RemoteInformer,
                              RemoteLister)
from informerd.hot_cache import HotCache
from informerd.versions import VersionTracker
from informerd.resource import parse_resource
from informerd.selectors import (LabelSelector, SelectorError,
                                 parse_label_selector)
from informerd.store import NAMESPACE_INDEX, IndexFunc, Lister, Store
from informerd.transforms import Transform, strip_managed_fields

__all__ = [
    "Backoff", "BearerToken", "CachedObject", "Change", "ChangeType",
    "ConnectionOptions", "DEFAULT_HANDLER_QUEUE_LIMIT", "DecodeError",
    "HandlerFuncs", "HandlerRegistration", "HotCache", "IndexFunc", "Informer",
    "InformerError", "InformerKey", "LabelSelector", "Lister", "NAMESPACE_INDEX",
    "ObjectList", "ReadError", "RemoteInformer", "RemoteLister",
    "ResourceEventHandler", "SelectorError", "SharedInformerFactory",
    "Store", "TlsOptions", "TokenError", "Transform", "connect", "decode",
    "decode_as", "decode_model", "diff_relist",
    "object_key", "parse_label_selector", "parse_resource", "pb", "pb_grpc",
    "strip_managed_fields", "target_for", "VersionTracker",
]
