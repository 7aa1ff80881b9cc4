#!/usr/bin/env bash
# Runs the Go client's tests (module mode; dependencies from the Go module
# proxy, pinned by go.sum): gofmt and go vet, then go test -race over every
# package. The integration tests need hack/control-plane.sh env and
# INFORMERD_BIN (or bazel-bin/server/informerd); without them they fail,
# they never skip.
#
# Usage: client/go/run-tests.sh [--junit PATH] [go test flags...]
#   --junit PATH  also write a JUnit XML report to PATH
set -euo pipefail
junit=""
go_test_flags=()
while (($#)); do
  case "$1" in
    --junit) junit="${2:?--junit needs a path}"; shift 2 ;;
    --junit=*) junit="${1#--junit=}"; shift ;;
    *) go_test_flags+=("$1"); shift ;;
  esac
done
[[ -z "$junit" || "$junit" == /* ]] || junit="$PWD/$junit"

source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$informerd_go_dir"
# Here protoc is installed: a stale generated file must fail, not skip.
export INFORMERD_REQUIRE_PROTOC=1

unformatted="$(gofmt -l .)"
if [[ -n "$unformatted" ]]; then
  echo "gofmt needed on: $unformatted" >&2
  exit 1
fi
go vet ./...
if [[ -z "$junit" ]]; then
  exec go test -race -count=1 "${go_test_flags[@]}" ./...
fi
bin_dir="$informerd_go_bin_dir"
mkdir -p "$(dirname "$junit")"
go build -o "$bin_dir/gotest2junit" ./internal/gotest2junit
go test -json -race -count=1 "${go_test_flags[@]}" ./... 2>&1 |
  "$bin_dir/gotest2junit" -o "$junit"
