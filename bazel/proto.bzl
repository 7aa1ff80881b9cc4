"""cc_grpc_library: C++ message and gRPC service code from .proto files.

One rule runs Debian's protoc with grpc_cpp_plugin for every proto in the
repository, so generated code never comes from hand-copied genrules. The BUILD
file that uses it sits at the proto import root: a proto at
<package>/informerd/v1/x.proto is imported as "informerd/v1/x.proto" and its
code is included as "informerd/v1/x.pb.h".
"""

_SUFFIXES = [".pb.h", ".pb.cc", ".grpc.pb.h", ".grpc.pb.cc"]

def _proto_cc_sources_impl(ctx):
    package = ctx.label.package
    outputs = []
    for src in ctx.files.srcs:
        relative = src.short_path[len(package) + 1:] if package else src.short_path
        stem = relative[:-len(".proto")]
        outputs += [ctx.actions.declare_file(stem + suffix) for suffix in _SUFFIXES]
    out_dir = ctx.bin_dir.path + ("/" + package if package else "")
    ctx.actions.run(
        executable = "/usr/bin/protoc",
        arguments = [
            "--proto_path=" + (package or "."),
            "--cpp_out=" + out_dir,
            "--grpc_out=" + out_dir,
            "--plugin=protoc-gen-grpc=/usr/bin/grpc_cpp_plugin",
        ] + [src.path for src in ctx.files.srcs],
        inputs = ctx.files.srcs,
        outputs = outputs,
        mnemonic = "ProtocCc",
        progress_message = "Generating C++ and gRPC code for %s" % ctx.label,
    )
    return [DefaultInfo(files = depset(outputs))]

_proto_cc_sources = rule(
    implementation = _proto_cc_sources_impl,
    attrs = {"srcs": attr.label_list(allow_files = [".proto"], mandatory = True)},
)

def cc_grpc_library(name, srcs, visibility = None):
    """A cc_library with the messages and gRPC stubs of `srcs`."""
    _proto_cc_sources(name = name + "_sources", srcs = srcs)
    native.cc_library(
        name = name,
        srcs = [":" + name + "_sources"],
        includes = ["."],
        deps = ["@grpc"],
        visibility = visibility,
    )
