#!/usr/bin/env bash
# Bounded chaos suite (see chaos.py): faults between and around informerd,
# one JUnit testcase each, against a PRIVATE control plane that this script
# starts on free ports and stops at the end, so that killing its
# kube-apiserver disturbs nobody else.
#
# Usage: tests/chaos/run.sh [--seconds N] [--junit PATH] [--seed N]
#                           [--rss-limit-mb N] [--workdir DIR]
#        tests/chaos/run.sh --soak HOURS      loops faults; not for CI
#
# INFORMERD_CHAOS_CP_DIR: the private control plane's state directory
# (default $INFORMERD_CACHE/chaos-control-plane-VERSION, for the version
# INFORMERD_KUBE_VERSION selects; see hack/control-plane.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$root/hack/lib.sh"
cache="$INFORMERD_CACHE"

export INFORMERD_CP_DIR="${INFORMERD_CHAOS_CP_DIR:-$cache/chaos-control-plane-$(informerd::kube_version)}"
export INFORMERD_ETCD_CLIENT_PORT="$(informerd::free_port)"
export INFORMERD_ETCD_PEER_PORT="$(informerd::free_port)"
export INFORMERD_APISERVER_PORT="$(informerd::free_port)"
unset INFORMERD_APISERVER_URL KUBECONFIG
trap '"$root/hack/control-plane.sh" down' EXIT
# Each run starts from an empty etcd: the objects earlier runs left behind
# (some of 64 KB) would pile up into a resource no run means to test.
"$root/hack/control-plane.sh" down >/dev/null
rm -rf "$INFORMERD_CP_DIR/etcd-data"
"$root/hack/control-plane.sh" up
eval "$("$root/hack/control-plane.sh" env)"

# informerd itself runs with AddressSanitizer and UBSan, so that a fault
# that corrupts memory shows as a report in its log (chaos.py checks) and
# not as a silent wrong answer. The output base is the one hack/test.sh's
# ASan suite uses, whose objects this build reuses.
asan_bin="$(informerd::bazel_build "$cache/chaos-asan-build.log" "$cache/bazel-asan" asan \
  //server:informerd)" || exit 1
export INFORMERD_BINARY="$asan_bin/server/informerd"
# Leaks at a kill -9 are not findings; UBSan reports go on, with a stack.
# ASan holds up to 256 MB of freed memory back by default, which would
# swamp the RSS bound; 32 MB still catches a use soon after the free.
export ASAN_OPTIONS=detect_leaks=0:quarantine_size_mb=32
export UBSAN_OPTIONS=print_stacktrace=1
source "$root/tests/e2e/prepare.sh"

bazel_bin="$(informerd::bazel_build "$cache/chaos-build.log" "" "" \
  //tests/chaos:stream_churner)" || exit 1
export STREAM_CHURNER_BINARY="$bazel_bin/tests/chaos/stream_churner"
/usr/bin/python3 -u "$root/tests/chaos/chaos.py" "$@"
