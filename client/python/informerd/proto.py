"""The generated informerd.v1 API modules, under short names.

``pb`` holds the messages (``pb.WatchRequest``, ``pb.Object``, ...) and
``pb_grpc`` the ``CacheStub``. They are generated when the package is built
(see setup.py), so they exist in an installed package, not in a checkout.
"""

import importlib.util

try:
    from informerd.v1 import informerd_pb2 as pb
    from informerd.v1 import informerd_pb2_grpc as pb_grpc
except ImportError as error:  # pragma: no cover - depends on the install
    if importlib.util.find_spec("informerd.v1.informerd_pb2") is not None:
        raise
    raise ImportError(
        "informerd: the generated module informerd.v1.informerd_pb2 is "
        "missing: informerd was imported from a source checkout instead of "
        "an installed package; install it with "
        "`pip install <repository>/client/python`") from error

__all__ = ["pb", "pb_grpc"]
