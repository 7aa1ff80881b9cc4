#!/usr/bin/env bash
# Builds (incrementally) and runs the Go example informer; hack/example.sh go
# dispatches here with the same arguments. See example/main.go for the
# arguments and the output.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
(cd "$informerd_go_dir" &&
  go build -o "$informerd_go_bin_dir/informerd-go-example" ./example) >&2
exec "$informerd_go_bin_dir/informerd-go-example" "$@"
