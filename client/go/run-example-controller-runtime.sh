#!/usr/bin/env bash
# Builds (incrementally) and runs the example controller-runtime controller
# (examples/controller-runtime); hack/example.sh go-controller-runtime
# dispatches here with the same arguments. Kube credentials come from
# KUBECONFIG. See examples/controller-runtime/main.go for the output.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
(cd "$informerd_go_dir" &&
  go build -o "$informerd_go_bin_dir/informerd-go-controller-runtime-example" ./examples/controller-runtime) >&2
exec "$informerd_go_bin_dir/informerd-go-controller-runtime-example" "$@"
