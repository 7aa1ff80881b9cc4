#!/usr/bin/env bash
# Builds kube-apiserver 1.20 (the oldest Kubernetes informerd supports) from
# Debian's kubernetes source package with Debian's Go 1.19, once per
# machine. The binary is cached under ~/.cache/informerd keyed by the source
# version, so later runs (and CI on the same machine) reuse it. Today's
# version comes from Go modules instead: hack/build-upstream.sh.
#
# Usage: hack/build-apiserver-1.20.sh   prints the path of the binary
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cache_root="$INFORMERD_CACHE"
mkdir -p "$cache_root"
log="$cache_root/build-apiserver-1.20.log"

source_version() {
  apt-cache showsrc kubernetes 2>/dev/null | awk '/^Version:/ {print $2; exit}'
}

informerd::ensure_deb_src "$log"
version="$(source_version)"
if [[ -z "$version" ]]; then
  apt-get update >>"$log" 2>&1
  version="$(source_version)"
fi
[[ -n "$version" ]] || { informerd::log "cannot find Debian's kubernetes source package (see $log)"; exit 1; }

bin="$cache_root/kube-apiserver-$version"
if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi

informerd::log "building kube-apiserver $version from Debian source (about 6 minutes on 2 cores; log: $log)"
if ! dpkg -s golang-github-modern-go-reflect2-dev >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y golang-github-modern-go-reflect2-dev golang-go >>"$log" 2>&1
fi

work="$cache_root/kubernetes-src"
rm -rf "$work"
mkdir -p "$work"
(
  cd "$work"
  apt-get source --download-only kubernetes >>"$log" 2>&1
  orig="$(ls kubernetes_*.orig.tar.* | head -n1)"
  mkdir tree
  tar -xf "$orig" -C tree --strip-components=1
) 
tree="$work/tree"
# The vendored reflect2 v1.0.1 panics on every JSON map decode under Go 1.19.
rm -rf "$tree/vendor/github.com/modern-go/reflect2"
cp -r /usr/share/gocode/src/github.com/modern-go/reflect2 "$tree/vendor/github.com/modern-go/reflect2"

gopath="$work/go"
mkdir -p "$gopath/src/k8s.io"
ln -sfn "$tree" "$gopath/src/k8s.io/kubernetes"
(
  cd "$gopath/src/k8s.io/kubernetes"
  # Kubernetes 1.20 predates modules and builds in GOPATH mode with the Go
  # of its time: Debian's 1.19, not whatever newer Go is first on PATH.
  export PATH="/usr/lib/go-1.19/bin:$PATH"
  export GOPATH="$gopath" GO111MODULE=off CGO_ENABLED=0 GOFLAGS= GOTOOLCHAIN=local
  make WHAT=cmd/kube-apiserver >>"$log" 2>&1
) || { informerd::log "build failed, see $log"; exit 1; }

built="$(find "$tree/_output" -type f -name kube-apiserver -perm -u+x | head -n1)"
[[ -n "$built" ]] || { informerd::log "no binary produced, see $log"; exit 1; }
cp "$built" "$bin.tmp"
mv "$bin.tmp" "$bin"
echo "$bin"
