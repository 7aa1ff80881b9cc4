#!/usr/bin/env bash
# Generates the Go code for proto/informerd/v1/informerd.proto into
# informerdv1/. The generated files are committed so that `go get` works
# without protoc; informerdv1/generated_test.go fails when they are stale.
#
# Usage: client/go/gen_proto.sh [OUT_DIR]
#   OUT_DIR  where informerd.pb.go and informerd_grpc.pb.go go
#            (default: client/go/informerdv1)
# Needs protoc, protoc-gen-go and protoc-gen-go-grpc (Debian: protobuf-compiler,
# protoc-gen-go, protoc-gen-go-grpc).
set -euo pipefail
go_dir="$(cd "$(dirname "$0")" && pwd -P)"
root="$(cd "$go_dir/../.." && pwd)"
out_dir="${1:-$go_dir/informerdv1}"
mkdir -p "$out_dir"

# The plugins write to <out>/<go_package path>; generate aside and move the
# two files, so OUT_DIR can be anywhere.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
protoc --proto_path="$root/proto" \
  --go_out="$work" --go_opt=paths=source_relative \
  --go-grpc_out="$work" --go-grpc_opt=paths=source_relative \
  "$root/proto/informerd/v1/informerd.proto"
mv "$work/informerd/v1/informerd.pb.go" "$work/informerd/v1/informerd_grpc.pb.go" "$out_dir/"
