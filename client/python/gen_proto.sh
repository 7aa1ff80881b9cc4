#!/usr/bin/env bash
# Generates the Python protobuf and gRPC modules of the informerd API into
# informerd/_proto/ with Debian's protoc and grpc_python_plugin. Does nothing
# when the generated files are newer than the .proto, so callers (the
# example, the tests) may run it every time.
#
# Usage: client/python/gen_proto.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
proto_rel="informerd/v1/informerd.proto"
proto="$root/proto/$proto_rel"
out="$here/informerd/_proto"
stamp="$out/informerd/v1/informerd_pb2_grpc.py"

if [[ -f "$stamp" && "$stamp" -nt "$proto" && "$stamp" -nt "$0" ]]; then
  exit 0
fi

for tool in /usr/bin/protoc /usr/bin/grpc_python_plugin; do
  if [[ ! -x "$tool" ]]; then
    echo "gen_proto.sh: $tool missing; apt-get install protobuf-compiler protobuf-compiler-grpc" >&2
    exit 1
  fi
done

# Built aside and moved into place, so an interrupted run never leaves a
# half-generated package behind.
tmp="$(mktemp -d "$here/informerd/._proto.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
/usr/bin/protoc -I "$root/proto" \
  --python_out="$tmp" \
  --grpc_out="$tmp" --plugin=protoc-gen-grpc=/usr/bin/grpc_python_plugin \
  "$root/proto/$proto_rel"
touch "$tmp/__init__.py" "$tmp/informerd/__init__.py" "$tmp/informerd/v1/__init__.py"
# The generated stub imports its messages as the top-level package
# "informerd.v1", which would name this library; point it at the copy here.
sed -i 's/^from informerd\.v1 import informerd_pb2/from informerd._proto.informerd.v1 import informerd_pb2/' \
  "$tmp/informerd/v1/informerd_pb2_grpc.py"
grep -q '^from informerd\._proto\.informerd\.v1 import informerd_pb2' \
  "$tmp/informerd/v1/informerd_pb2_grpc.py" ||
  { echo "gen_proto.sh: unexpected import in generated informerd_pb2_grpc.py" >&2; exit 1; }
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
