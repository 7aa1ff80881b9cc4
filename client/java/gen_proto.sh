#!/usr/bin/env bash
# Generates the Java message classes and gRPC stubs for informerd's proto into
# target/generated-sources/proto. Maven runs this in generate-sources (see
# pom.xml) so the build needs only protoc and the grpc-java protoc plugin on
# the machine, not a plugin that downloads them.
#
# Usage: client/java/gen_proto.sh
# Environment: PROTOC (default protoc), GRPC_JAVA_PLUGIN (default the first of
# grpc_java_plugin, protoc-gen-grpc-java found on PATH).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
proto_root="$here/../../proto"
out="$here/target/generated-sources/proto"
protoc="${PROTOC:-protoc}"
plugin="${GRPC_JAVA_PLUGIN:-$(command -v grpc_java_plugin || command -v protoc-gen-grpc-java || true)}"
if [[ -z "$plugin" ]]; then
  echo "gen_proto.sh: grpc-java protoc plugin not found; install grpc_java_plugin (Debian: protobuf-compiler-grpc-java-plugin) or set GRPC_JAVA_PLUGIN" >&2
  exit 1
fi
rm -rf "$out"
mkdir -p "$out"
"$protoc" -I "$proto_root" \
  --java_out="$out" \
  --plugin=protoc-gen-grpc-java="$plugin" --grpc-java_out="$out" \
  "$proto_root/informerd/v1/informerd.proto"
