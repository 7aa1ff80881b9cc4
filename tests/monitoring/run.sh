#!/usr/bin/env bash
# informerd's alerts and dashboard (charts/informerd/files): promtool's
# checks and unit tests of the rules, then a real Prometheus scraping a real
# informerd through two faults (prometheus_test.py). One JUnit file.
#
# Usage: tests/monitoring/run.sh [--junit PATH] [--workdir DIR] [--png-dir DIR]
#
# Runs against the control plane named by INFORMERD_APISERVER_URL & co.
# (else the default one, started by hack/control-plane.sh up). It kills
# that control plane's kube-apiserver once and restarts it. promtool and
# prometheus come from Debian's prometheus package, helm from
# hack/install-helm.sh; informerd and informerctl are built with Bazel.
# --png-dir also draws the dashboard's main panels there (docs/img).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$root/hack/lib.sh"
packages=(prometheus python3-yaml)
[[ " $* " != *" --png-dir "* ]] || packages+=(gnuplot-nox)
informerd::ensure_packages "$INFORMERD_CACHE/monitoring-packages.log" "${packages[@]}"
source "$root/tests/e2e/prepare.sh"
helm_dir="$("$root/hack/install-helm.sh")" || informerd::die "installing helm failed"
exec /usr/bin/python3 -u "$root/tests/monitoring/prometheus_test.py" --helm "$helm_dir/helm" "$@"
