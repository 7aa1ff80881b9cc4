"""Re-exports Bazel's native C++ rules under rules_cc's names.

Debian's bazel-rules-cc needs a newer Bazel than Debian's bazel-bootstrap 4.2.3,
so this stand-in keeps `load("@rules_cc//cc:defs.bzl", ...)` working offline.
"""

cc_binary = native.cc_binary
cc_library = native.cc_library
cc_test = native.cc_test
cc_import = native.cc_import
cc_proto_library = native.cc_proto_library
cc_toolchain = native.cc_toolchain
cc_toolchain_suite = native.cc_toolchain_suite
objc_library = native.objc_library
