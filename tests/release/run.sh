#!/usr/bin/env bash
# The release (hack/release.sh) end to end: every artifact built from
# VERSION, version skew refused, and each artifact installed into an empty
# project that lists configmaps through a real informerd
# (tests/release/release_test.py). One JUnit file.
#
# Usage: tests/release/run.sh [--junit PATH] [--workdir DIR]
#
# Runs against the control plane named by INFORMERD_APISERVER_URL & co.
# (else the default one, started by hack/control-plane.sh up). Needs the
# networks the clients' builds need (the Go module proxy, Maven Central,
# PyPI) for third-party dependencies; caches: ~/.m2, pip's, Go's build
# cache and $INFORMERD_CACHE/release-test (a module cache and a local Maven
# repository that the run empties of informerd's own artifacts).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$root/hack/lib.sh"
source "$root/tests/e2e/prepare.sh"
helm_dir="$("$root/hack/install-helm.sh")" || informerd::die "installing helm failed"
go="$(informerd::newest_go)" || informerd::die "no Go 1.26 or newer found"
exec /usr/bin/python3 -u "$root/tests/release/release_test.py" --helm "$helm_dir/helm" \
  --go "$go" "$@"
