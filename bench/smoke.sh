#!/usr/bin/env bash
# Runs every benchmark briefly (well under a minute in all) to prove it still
# builds, runs and prints its table; the numbers mean nothing at this length.
# Writes a JUnit report with one testcase per benchmark.
#
# Usage: bench/smoke.sh [--junit PATH]
# The ingest, fan-out, cold-sync, read and adoption benchmarks need the control plane of
# `hack/control-plane.sh env`; without a running one their testcases fail.
# The tiers benchmark also needs root (network namespaces) and iproute2.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../hack/lib.sh"
cd "$INFORMERD_ROOT"

junit=""
if [[ "${1:-}" == "--junit" && -n "${2:-}" ]]; then
  junit="$2"
elif (($# > 0)); then
  sed -n '6p' "$0" | sed 's/^# //' >&2
  exit 2
fi

if ! bazel build -c opt --symlink_prefix=/ //bench:all //server:informerd >&2; then
  echo "bench/smoke.sh: build failed" >&2
  exit 1
fi
bin="$(bazel info -c opt bazel-bin 2>/dev/null)"
out_dir="$(mktemp -d)"
trap 'rm -rf "$out_dir"' EXIT

names=()
results=()   # pass or fail
seconds=()

# run NAME TABLE_PATTERNS COMMAND...: passes if COMMAND exits 0 and its
# output holds a line matching each of TABLE_PATTERNS (one per line; rows of
# its tables).
run() {
  local name="$1" patterns="$2"
  shift 2
  local start=$SECONDS result=fail pattern
  echo "== $name" >&2
  if "$@" >"$out_dir/$name.out" 2>&1; then
    result=pass
    while IFS= read -r pattern; do
      grep -Eq "$pattern" "$out_dir/$name.out" || result=fail
    done <<<"$patterns"
  fi
  cat "$out_dir/$name.out" >&2
  names+=("$name")
  results+=("$result")
  seconds+=($((SECONDS - start)))
}

run ingest '^\| client-go JSON \| [0-9,]+ \| [0-9.]+ \|
^\| client-go protobuf \| [0-9,]+ \| [0-9.]+ \|
^\| BM_WatchFrameToInformer \| [0-9]+ \| [0-9.]+x \| [0-9.]+x \|' bench/ingest.sh --quick
run memory_benchmark '^1000 +[0-9]+ +[0-9]+' "$bin/bench/memory_benchmark" 1000
run fanout_benchmark '^\| informerd \| 10 \|
^\| probe \| 10 \|
^\| 100 \| 100 \| 20 \| all \|' bench/fanout.sh --quick
run coldsync '^\| 1 \| configmaps \| 200 \| client-go \|
^\| 1 \| configmaps \| 200 \| client-go-json \|
^\| 1 \| configmaps \| 200 \| informerd \|
^\| configmaps \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+x \|' bench/coldsync.sh --quick
run upstream_list '^\| 1 \| informerd \| paged \| 500 \|
^\| 1 \| informerd \| stream \| 500 \|
^\| 1 \| client-go \| stream \| 500 \|
^\| informerd \| [0-9.]+ \| [0-9.]+ \| [0-9]+ \| [0-9]+ \| [0-9.]+x \|' bench/upstream_list.sh --quick
run stalled_watchlists '^\| 2000 \| 1024 \| 100 \| [0-9]+ \| [0-9]+ \| 0 \| [0-9.]+ \| [0-9]+ \| [0-9]+ \| -?[0-9]+ \| [0-9]+ \| pass \|' \
  bench/stalled_watchlists.sh --quick
run restart '^\| true \| 100 \| 20 \| 2\.0 \| 0 \| [0-9.]+ \| 0 \| 0 \| pass \|
^\| false \| 100 \| 20 \| 2\.0 \| 100 \|' bench/restart.sh --quick
run token_flood '^\| flooded \| 1000 \| [0-9]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+x, [0-9.]+x \| 0 \| [A-Z_:0-9,]+ \|
^TokenReviews answered by the apiserver: .*: pass$' bench/token_flood.sh --quick
run admin_flood '^\| admin \| [0-9]+ \| [0-9]+ \| [0-9]+ \| [0-9]+ \| 0 \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+x \|
^verdict .*: pass$' bench/admin_flood.sh --quick
run backfill_flood '^backfill_attack rounds=5 resumed=[01] refused=OUT_OF_RANGE:[45] .*
^verdict pass' bench/backfill_flood.sh --quick
run tiers '^\| 0 \| - \| 100 \| 2 \| .* \| 0 \| pass \|$
^\| 2 \| 50 \| 100 \| 2 \| .* \| 0 \| pass \|$
^\| 2 \| 50 \| 2 \| [0-9]+ \| 50 \| 2\.0 \| [0-9.]+ \| 0 \| 0 \| 0 \| 0 \| pass \|$' bench/tiers.sh --quick
run read_benchmark '^\| get \| informerd \| 10 \| max \|
^\| get \| informerd \(open loop, 1 client thread\) \| 10 \| 200 \|
^\| list_label \| apiserver \(watch cache, RV=0\) \| 1 \|
^\| list_index \| 1 \| apiserver \(etcd, no RV\) \|' bench/read.sh --quick
run adoption '^\| 1 \| controller-runtime \| typed \| direct \| apiserver:
^\| 1 \| controller-runtime \| typed \| informerd \| informerd:requested=
^\| 1 \| client-go \| metadata \| informerd \|
^\| 1 \| controller-runtime \| masked \| informerd \| .* \| [0-9.]+ \| [0-9.]+ \|$
^\| 1 \| controller-runtime \| nocopy \| informerd \| .* \| [0-9.]+ \| [0-9.]+ \|$
^\| controller-runtime \| typed \| [0-9.]+ / [0-9.]+ \| [0-9.]+x \|
^\| controller-runtime \| nocopy \| [0-9.]+ / [0-9.]+ \| [0-9.]+x \| .* \| [0-9.]+ / [0-9.]+ \| [0-9.]+ / [0-9.]+ \|
^\| 2 x controller-runtime:typed \| [0-9.]+ / [0-9.]+ \| [0-9.]+x \|
^\| 2 x controller-runtime:nocopy \| [0-9.]+ / [0-9.]+ \| [0-9.]+x \| .* \| [0-9.]+ / [0-9.]+ \| [0-9.]+x \|
^\| 1 \| informerd \| 100 \| [0-9]+/[0-9]+ \|
^\| 100 x spec.nodeName, 5-field mask \| [0-9.]+ / [0-9.]+ \| [0-9.]+x \|
^Go adapter encoding \(through informerd\): ' bench/adoption.sh --quick

failed=0
for i in "${!names[@]}"; do
  echo "${names[$i]}: ${results[$i]} (${seconds[$i]} s)" >&2
  [[ "${results[$i]}" == pass ]] || failed=$((failed + 1))
done

if [[ -n "$junit" ]]; then
  mkdir -p "$(dirname "$junit")"
  {
    echo '<?xml version="1.0" encoding="UTF-8"?>'
    echo "<testsuite name=\"bench-smoke\" tests=\"${#names[@]}\" failures=\"$failed\">"
    for i in "${!names[@]}"; do
      echo "  <testcase classname=\"bench\" name=\"${names[$i]}\" time=\"${seconds[$i]}\">"
      if [[ "${results[$i]}" != pass ]]; then
        echo "    <failure message=\"did not run or print its table\"><![CDATA["
        tail -n 40 "$out_dir/${names[$i]}.out" | sed 's/]]>/]] >/g'
        echo "]]></failure>"
      fi
      echo "  </testcase>"
    done
    echo "</testsuite>"
  } >"$junit"
fi
((failed == 0))
