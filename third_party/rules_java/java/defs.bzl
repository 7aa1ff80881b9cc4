"""Re-exports Bazel's native Java rules under rules_java's names.

Bazel 4's own tools/jdk package loads these even for C++-only builds;
informerd builds no Java with Bazel, and this stand-in keeps that load offline.
"""

java_binary = native.java_binary
java_import = native.java_import
java_library = native.java_library
java_runtime = native.java_runtime
java_toolchain = native.java_toolchain
