# Sourced by the scripts in client/go: builds offline in GOPATH mode against
# Debian's Go packages (/usr/share/gocode), through a GOPATH whose import
# path github.com/informerd/informerd/client/go is a symlink to this
# directory. Real users build with go.mod instead.
#
# After sourcing: GO111MODULE, GOPATH and GOFLAGS are exported, and
# informerd_go_pkg_dir is this directory as seen through the GOPATH.
informerd_go_src_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
informerd_gopath="${INFORMERD_GOPATH:-${HOME}/.cache/informerd/gopath}"
informerd_go_pkg_dir="$informerd_gopath/src/github.com/informerd/informerd/client/go"
mkdir -p "$(dirname "$informerd_go_pkg_dir")"
if [[ "$(readlink "$informerd_go_pkg_dir" 2>/dev/null)" != "$informerd_go_src_dir" ]]; then
  ln -sfn "$informerd_go_src_dir" "$informerd_go_pkg_dir"
fi
export GO111MODULE=off
export GOPATH="$informerd_gopath:/usr/share/gocode"
export GOFLAGS=
