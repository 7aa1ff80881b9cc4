#!/usr/bin/env bash
# Builds (incrementally) and runs the Go example informer; hack/example.sh go
# dispatches here with the same arguments. See example/main.go for the
# arguments and the output.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/gopath.sh"
bin_dir="${HOME}/.cache/informerd/go-bin"
mkdir -p "$bin_dir"
(cd "$informerd_go_pkg_dir" &&
  go build -o "$bin_dir/informerd-go-example" ./example) >&2
exec "$bin_dir/informerd-go-example" "$@"
