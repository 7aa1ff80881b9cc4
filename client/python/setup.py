"""Build hooks: the informerd.v1 API modules are generated from the .proto
while building, never checked in.

The .proto lives at the repository root (proto/informerd/v1/informerd.proto),
outside this project; the sdist carries a copy under proto/ so that a wheel
built from the sdist (python -m build, pip from an sdist) finds it too.
Everything else is in pyproject.toml.
"""

import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist
from setuptools.errors import SetupError

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO = "informerd/v1/informerd.proto"
# The sdist's copy first: inside an unpacked sdist, ../.. is unrelated.
PROTO_ROOTS = (os.path.join(HERE, "proto"),
               os.path.join(HERE, os.pardir, os.pardir, "proto"))


def proto_root():
    """The -I directory holding PROTO."""
    for root in PROTO_ROOTS:
        if os.path.isfile(os.path.join(root, PROTO)):
            return os.path.normpath(root)
    raise SetupError(
        "informerd: %s not found under %s; build from a checkout of the "
        "repository or from its sdist"
        % (PROTO, " or ".join(os.path.normpath(r) for r in PROTO_ROOTS)))


def generate(out_dir):
    """Writes informerd/v1/informerd_pb2{,_grpc}.py(i) under out_dir.

    With the .proto's own path as import path the stubs import
    ``informerd.v1.informerd_pb2``, which is where they land in this
    package: they are used exactly as generated.
    """
    from grpc_tools import protoc  # A build requirement, not a runtime one.

    args = ["grpc_tools.protoc", "-I" + proto_root(),
            "--python_out=" + out_dir, "--pyi_out=" + out_dir,
            "--grpc_python_out=" + out_dir, PROTO]
    if protoc.main(args) != 0:
        raise SetupError("informerd: protoc failed on %s (command: %s)"
                         % (PROTO, " ".join(args)))


class BuildPyWithApi(build_py):
    def run(self):
        super().run()
        # An editable install imports from the source tree, so the modules
        # go there (ignored by git); otherwise into the build directory.
        generate(HERE if self.editable_mode else self.build_lib)

    def get_outputs(self, include_bytecode=True):
        generated = [os.path.join(self.build_lib, "informerd", "v1", name)
                     for name in ("informerd_pb2.py", "informerd_pb2.pyi",
                                  "informerd_pb2_grpc.py")]
        return super().get_outputs(include_bytecode) + generated


class SdistWithProto(sdist):
    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        target = os.path.join(base_dir, "proto", PROTO)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(proto_root(), PROTO), target)


setup(cmdclass={"build_py": BuildPyWithApi, "sdist": SdistWithProto})
