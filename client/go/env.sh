# Sourced by the scripts in client/go: the module's build settings.
# After sourcing: informerd_go_dir is this directory, informerd_go_bin_dir
# where built programs go; GOFLAGS=-mod=readonly so go.mod and go.sum are
# the truth (a missing go.sum entry fails instead of being added), and the
# module cache is filled from the proxy, failing clearly when unreachable.
informerd_go_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
informerd_go_bin_dir="${INFORMERD_CACHE:-$HOME/.cache/informerd}/go-bin"
export GOFLAGS=-mod=readonly GO111MODULE=on
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
mkdir -p "$informerd_go_bin_dir"
if ! (cd "$informerd_go_dir" && go mod download >&2); then
  echo "client/go: go mod download failed (GOPROXY=$(go env GOPROXY)); the Go client's dependencies are not available" >&2
  exit 1
fi
