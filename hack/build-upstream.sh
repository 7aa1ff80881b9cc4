#!/usr/bin/env bash
# Builds today's control plane and node from Go modules, once per version:
# the kube-apiserver of k8s.io/kubernetes (hack/upstream/kubernetes), the
# etcd server of go.etcd.io/etcd/server/v3 (hack/upstream/etcd), and for the
# node (hack/node.sh) kubelet, kube-scheduler, kube-controller-manager and
# kube-proxy from the same module as kube-apiserver and CoreDNS
# (hack/upstream/coredns). Each
# wrapper module's go.mod and go.sum pin the version and every dependency;
# the binary is cached as ~/.cache/informerd/NAME-VERSION, so later runs
# (and CI on the same machine) reuse it. Kubernetes 1.20 comes from Debian
# instead: hack/build-apiserver-1.20.sh.
#
# Usage: hack/build-upstream.sh NAME   prints the binary's path
#   NAME: kube-apiserver, etcd, kubelet, kube-scheduler,
#         kube-controller-manager, kube-proxy or coredns
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
  informerd::log "usage: $0 kube-apiserver|etcd|kubelet|kube-scheduler|kube-controller-manager|kube-proxy|coredns"
  exit 2
}
(($# == 1)) || usage
name="$1"
case "$name" in
  kube-apiserver)
    module_dir="$INFORMERD_ROOT/hack/upstream/kubernetes"
    module=k8s.io/kubernetes
    package=k8s.io/kubernetes/cmd/kube-apiserver
    minutes=12
    ;;
  kubelet | kube-scheduler | kube-controller-manager | kube-proxy)
    # The same module and version as kube-apiserver: the Go build cache
    # shares what they have in common, so each takes a few minutes more.
    module_dir="$INFORMERD_ROOT/hack/upstream/kubernetes"
    module=k8s.io/kubernetes
    package="k8s.io/kubernetes/cmd/$name"
    minutes=4
    ;;
  coredns)
    module_dir="$INFORMERD_ROOT/hack/upstream/coredns"
    module=github.com/coredns/coredns
    package=informerd.local/upstream/coredns
    minutes=4
    ;;
  etcd)
    module_dir="$INFORMERD_ROOT/hack/upstream/etcd"
    module=go.etcd.io/etcd/server/v3
    package=go.etcd.io/etcd/server/v3
    minutes=2
    ;;
  *) usage ;;
esac

export GOTOOLCHAIN=local GOFLAGS=-mod=readonly CGO_ENABLED=0
go="$(informerd::newest_go)" || exit 1
# The version is the one go.mod requires, so a bump of go.mod is a new binary.
version="$(cd "$module_dir" && "$go" list -m -f '{{.Version}}' "$module")"
[[ "$version" == v* ]] || informerd::die "cannot read the version of $module from $module_dir/go.mod"
# CoreDNS's plugins are chosen by the wrapper's own main.go: its hash is part
# of the binary's name.
if [[ "$name" == coredns ]]; then
  version+="-$(cat "$module_dir"/*.go | sha256sum | cut -c1-12)"
fi
mkdir -p "$INFORMERD_CACHE"
bin="$INFORMERD_CACHE/$name-$version"
if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi

log="$INFORMERD_CACHE/build-$name-$version.log"
informerd::log "building $name $version from Go modules (about $minutes minutes on" \
  "2 cores the first time; log: $log)"
ldflags="-s -w"
if [[ "$module" == k8s.io/kubernetes ]]; then
  # What a release build stamps, so that /version names the release: the
  # oracle tests and clients read it.
  minor="$(cut -d. -f2 <<<"$version")"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $pkg.gitVersion=$version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
    ldflags+=" -X $pkg.gitTreeState=clean"
  done
fi
if ! (cd "$module_dir" && "$go" build -trimpath -ldflags "$ldflags" -o "$bin.tmp" "$package") \
  >"$log" 2>&1; then
  informerd::log "error: building $name $version failed; last lines of $log:"
  tail -n 30 "$log" >&2
  exit 1
fi
mv "$bin.tmp" "$bin"
echo "$bin"
