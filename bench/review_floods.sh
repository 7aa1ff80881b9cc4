#!/usr/bin/env bash
# The review floods of issue 26 (findings 4 and 5), standalone: runs
# tests/integration/review_flood_test (built -c opt) outside Bazel's test
# runner, with informerd alone on the machine's last CPU and the control
# plane, the flood and the legitimate caller on the others, and prints its
# `review-flood` lines: for each flood (made_up_tokens: random bearer
# tokens from the caller's own address; access_reviews: an accepted user
# with no RBAC asking ListResources in made-up namespaces), the caller's
# List p99 unflooded and flooded and their ratio, informerd's RSS before and
# at its peak and their ratio, the TokenReviews and SubjectAccessReviews
# the apiserver answered, the flood's calls and their codes, the caller's
# failed Lists, and whether its Watch ended. Exits non-zero when a bound
# (p99 within 2x + 5 ms, no failure, the Watch open, RSS within 1.5x)
# fails.
#
# Usage: bench/review_floods.sh [SECONDS]
#   SECONDS  how long each condition (unflooded, flooded) is measured, in
#            windows of 5 s (default 20)
# Runs against the control plane of `hack/control-plane.sh env`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../hack/lib.sh"
source "$INFORMERD_ROOT/bench/lib.sh"
cd "$INFORMERD_ROOT"

seconds="${1:-20}"
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || informerd::die "usage: bench/review_floods.sh [SECONDS]"

eval "$(hack/control-plane.sh env)"
bench::split_cpus
bazel build -c opt --symlink_prefix=/ //tests/integration:review_flood_test >&2
bin="$(bazel info -c opt bazel-bin 2>/dev/null)"
bench::make_run_dir

bench::pin_control_plane "$bench_other_cpus"
rc=0
INFORMERD_FLOOD_SECONDS="$seconds" \
  INFORMERD_FLOOD_SERVER_CPUS="$bench_server_cpu" \
  INFORMERD_FLOOD_CLIENT_CPUS="$bench_other_cpus" \
  TEST_SRCDIR="$bin/tests/integration/review_flood_test.runfiles" \
  TEST_TMPDIR="$run_dir" \
  "$bin/tests/integration/review_flood_test" >"$run_dir/review_floods.log" 2>&1 || rc=$?
grep '^review-flood ' "$run_dir/review_floods.log" || true
if ((rc != 0)); then
  echo "a bound failed (exit $rc):" >&2
  grep -E -A3 'Failure' "$run_dir/review_floods.log" >&2 || tail -n 20 "$run_dir/review_floods.log" >&2
fi
exit "$rc"
