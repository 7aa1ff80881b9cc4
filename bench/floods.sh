#!/usr/bin/env bash
# Every flood of issue 26, one after the other, each with informerd on a CPU
# of its own (the scripts' own pinning), and a summary of their verdicts:
#   admin      bench/admin_flood.sh      trickling connections and chunked
#                                        POSTs at the admin port (finding 2)
#   http2      tests/flood/run.sh        HTTP/2 rapid reset through the
#                                        chart's proxy (finding 3)
#   reviews    bench/review_floods.sh    made-up tokens and an unprivileged
#                                        user's access reviews (4 and 5)
#   tokens     bench/token_flood.sh      made-up tokens at rising rates
#   backfill   bench/backfill_flood.sh   resumes ever further back (1)
# Each prints its own table with the ratios against its bound; this script
# prints their last lines again and exits 1 if any missed its bound (exited
# non-zero, or printed a FAIL verdict).
#
# Usage: bench/floods.sh [--quick]
#   --quick  each flood's short form (what bench/smoke.sh runs)
# Runs against the control plane of `hack/control-plane.sh env`; the http2
# flood needs bazel-bin/server/informerd and bazel-bin/client/cpp/informerctl
# (built here) and HAProxy 3.0 (hack/haproxy.sh, run by tests/flood).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../hack/lib.sh"
cd "$INFORMERD_ROOT"

quick=()
if [[ "${1:-}" == "--quick" ]]; then
  quick=(--quick)
elif (($# > 0)); then
  informerd::die "usage: bench/floods.sh [--quick]"
fi
eval "$(hack/control-plane.sh env)" || informerd::die "no control plane: hack/control-plane.sh up"
bazel build //server:informerd //client/cpp:informerctl >&2 || informerd::die "build failed"

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
names=() verdicts=()
flood() {
  local name="$1"
  shift
  echo "== $name: $*"
  # Some scripts exit 0 with a FAIL row in their table (token_flood.sh's
  # exit follows only its TokenReview bound), so a FAIL anywhere counts.
  if "$@" 2>"$out/$name.err" | tee "$out/$name.out" && ! grep -qw FAIL "$out/$name.out"; then
    verdicts+=(pass)
  else
    verdicts+=(FAIL)
    tail -n 5 "$out/$name.err"
  fi
  names+=("$name")
}
flood admin bench/admin_flood.sh "${quick[@]}"
flood http2 tests/flood/run.sh ${quick:+--duration 5}
flood reviews bench/review_floods.sh ${quick:+5}
flood tokens bench/token_flood.sh "${quick[@]}"
flood backfill bench/backfill_flood.sh "${quick[@]}"

echo
echo "| flood | verdict | its figures |"
echo "| --- | --- | --- |"
failed=0
for i in "${!names[@]}"; do
  name="${names[$i]}"
  figures="$(grep -E 'ratio|verdict|^\| (admin|flooded) |review-flood|backfill_attack' "$out/$name.out" |
    tail -n 3 | tr '\n' ' ' | tr -s ' ' | cut -c1-400)"
  echo "| $name | ${verdicts[$i]} | ${figures//|/\\|} |"
  [[ "${verdicts[$i]}" == pass ]] || failed=1
done
exit "$failed"
