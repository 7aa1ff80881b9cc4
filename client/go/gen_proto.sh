#!/usr/bin/env bash
# Generates the Go code for proto/informerd/v1/informerd.proto into
# informerdv1/. The generated files are committed so that `go get` works
# without protoc; informerdv1/generated_test.go fails when they are stale.
#
# Usage: client/go/gen_proto.sh [OUT_DIR]
#   OUT_DIR  where informerd.pb.go and informerd_grpc.pb.go go
#            (default: client/go/informerdv1)
# Needs protoc (Debian: protobuf-compiler). The Go plugins are installed with
# `go install` at the versions pinned below into a cache directory, so the
# output does not depend on whatever plugins are on PATH.
set -euo pipefail
# The generated code names the plugin versions: change these together with
# the go.mod requirements and regenerate.
protoc_gen_go_version=v1.36.12      # google.golang.org/protobuf
protoc_gen_go_grpc_version=v1.6.2   # google.golang.org/grpc/cmd/protoc-gen-go-grpc

go_dir="$(cd "$(dirname "$0")" && pwd -P)"
root="$(cd "$go_dir/../.." && pwd)"
out_dir="${1:-$go_dir/informerdv1}"
mkdir -p "$out_dir"

if ! command -v protoc >/dev/null; then
  echo "gen_proto.sh: protoc not found; install it (Debian: apt-get install -y protobuf-compiler)" >&2
  exit 1
fi
plugin_dir="${INFORMERD_CACHE:-$HOME/.cache/informerd}/go-protoc-plugins/go-$protoc_gen_go_version-grpc-$protoc_gen_go_grpc_version"
if [[ ! -x "$plugin_dir/protoc-gen-go" || ! -x "$plugin_dir/protoc-gen-go-grpc" ]]; then
  mkdir -p "$plugin_dir"
  # Outside any module, so the pins above decide and not client/go's go.mod.
  (cd / && export GOBIN="$plugin_dir" GOFLAGS= &&
    go install "google.golang.org/protobuf/cmd/protoc-gen-go@$protoc_gen_go_version" &&
    go install "google.golang.org/grpc/cmd/protoc-gen-go-grpc@$protoc_gen_go_grpc_version") || {
    echo "gen_proto.sh: go install of protoc-gen-go $protoc_gen_go_version / protoc-gen-go-grpc $protoc_gen_go_grpc_version failed (is the Go module proxy reachable?)" >&2
    exit 1
  }
fi

# The plugins write to <out>/<go_package path>; generate aside and move the
# two files, so OUT_DIR can be anywhere.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
PATH="$plugin_dir:$PATH" protoc --proto_path="$root/proto" \
  --go_out="$work" --go_opt=paths=source_relative \
  --go-grpc_out="$work" --go-grpc_opt=paths=source_relative \
  "$root/proto/informerd/v1/informerd.proto"
mv "$work/informerd/v1/informerd.pb.go" "$work/informerd/v1/informerd_grpc.pb.go" "$out_dir/"
