"""The installed package's declared dependencies admit what its generated
code checks at import: bumping grpcio-tools in the build requirements
without raising these lower bounds would let pip install a protobuf or
grpcio the stubs refuse."""

import importlib.metadata
import re

from informerd.v1 import informerd_pb2, informerd_pb2_grpc


def lower_bound(package):
    for requirement in importlib.metadata.requires("informerd"):
        if "extra ==" in requirement:
            continue
        match = re.match(r"%s\s*[^;]*>=\s*([0-9.]+)" % package, requirement)
        if match:
            return tuple(int(part) for part in match.group(1).split("."))
    raise AssertionError("informerd declares no lower bound for %s: %s"
                         % (package, importlib.metadata.requires("informerd")))


def test_protobuf_lower_bound_is_the_gencode_version():
    with open(informerd_pb2.__file__, encoding="utf-8") as source:
        gencode = re.search(
            r"ValidateProtobufRuntimeVersion\(\s*[\w.]+,\s*(\d+),\s*(\d+),"
            r"\s*(\d+),", source.read())
    assert gencode, "no runtime version check in " + informerd_pb2.__file__
    assert lower_bound("protobuf") == tuple(int(g) for g in gencode.groups())


def test_grpcio_lower_bound_is_the_generating_release():
    generated = tuple(
        int(part) for part in informerd_pb2_grpc.GRPC_GENERATED_VERSION.split("."))
    assert lower_bound("grpcio") == generated
