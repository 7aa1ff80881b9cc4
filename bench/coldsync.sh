#!/usr/bin/env bash
# Cold sync and memory (docs/BENCHMARKS.md), against the control plane of
# `hack/control-plane.sh env`: loads COUNT objects of each resource into a
# namespace of its own (once; later runs reuse them), then, side by side:
#   apiserver  the kube-apiserver's own LIST of the namespace as client-go's
#              Reflector asks for it (resourceVersion=0, limit=500, JSON):
#              the floor for any cache
#   client-go  a SharedIndexInformer (bench/clientgo: today's client-go from
#              its go.mod, managedFields dropped by SetTransform, streaming
#              or paged list as its Reflector chooses, protobuf as its typed
#              clients ask for built-in types): time to HasSynced,
#              CPU until then, peak RSS,
#              RSS STEADY seconds later, after a forced GC
#   client-go JSON  the same reading JSON (--content-type=json), as client-go
#              reads CRDs and as informerd reads every resource
#   informerd  started on the namespace: time to /readyz ok (curl every
#              10 ms, from exec; client-go polls HasSynced every 1 ms from
#              main), CPU until then,
#              peak RSS, RSS STEADY seconds later
# RSS per object subtracts the same program's RSS on an empty namespace.
# The three run ROUNDS times in turn (the apiserver's LIST time moves by 2x
# from one request to the next); a second table gives the medians and the
# ratios between them, each system measured the same way.
#
# Each cache runs alone on the machine's last CPU (taskset), the control
# plane on the others.
#
# Usage: bench/coldsync.sh [--quick]
#   --quick  200 ConfigMaps, one round, STEADY 1 s (the smoke run)
# Settings (environment): COLDSYNC_COUNT (10000), COLDSYNC_RESOURCES
#   ("configmaps pods"), COLDSYNC_ROUNDS (5), COLDSYNC_STEADY (5),
#   COLDSYNC_GRPC_PORT (20073), COLDSYNC_HTTP_PORT (8073),
#   COLDSYNC_INFORMERD_FLAGS (more informerd flags, e.g. --upstream-list=paged)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../hack/lib.sh"
source "$INFORMERD_ROOT/bench/lib.sh"
cd "$INFORMERD_ROOT"

count="${COLDSYNC_COUNT:-10000}"
resources="${COLDSYNC_RESOURCES:-configmaps pods}"
grpc_port="${COLDSYNC_GRPC_PORT:-20073}"
http_port="${COLDSYNC_HTTP_PORT:-8073}"
steady="${COLDSYNC_STEADY:-5}"
rounds="${COLDSYNC_ROUNDS:-5}"
if [[ "${1:-}" == "--quick" ]]; then
  count=200 resources=configmaps steady=1 rounds=1
fi

eval "$(hack/control-plane.sh env)"
bin="$(bench::build_opt)"
clientgo="$(bench::clientgo_binary)"

bench::make_run_dir
# The cache under test (client-go's program, then informerd) alone on the
# last CPU; the control plane on the others.
bench::split_cpus
bench::pin_control_plane "$bench_other_cpus"
export BENCH_INFORMERD_CPUS="$bench_server_cpu"

api() { bench::api "$@"; }
process_stats() { bench::process_stats "$@"; }

# informerd_sync RESOURCE NAMESPACE: "objects=... synced_seconds=... cpu_seconds=...
# peak_kib=... steady_kib=...", as the client-go program prints.
informerd_sync() {
  cat >"$run_dir/config.yaml" <<YAML
resources:
  - resource: $1
    namespace: $2
YAML
  local start end stats objects
  start="$(date +%s.%N)"
  # shellcheck disable=SC2086 # COLDSYNC_INFORMERD_FLAGS is a word list
  bench::start_informerd "$bin" "$run_dir/config.yaml" "$grpc_port" "$http_port" \
    "$run_dir/informerd.log" ${COLDSYNC_INFORMERD_FLAGS:-}
  end="$(date +%s.%N)"
  read -r cpu _ _ <<<"$(process_stats "$informerd_pid")"
  objects="$(informerd::metric_sum "$http_port" informerd_cached_objects)"
  sleep "$steady"
  read -r _ rss hwm <<<"$(process_stats "$informerd_pid")"
  kill "$informerd_pid"
  wait "$informerd_pid" 2>/dev/null || true
  informerd_pid=""
  echo "objects=$objects synced_seconds=$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.3f", b - a}') cpu_seconds=$cpu peak_kib=$hwm steady_kib=$rss"
}

# field NAME LINE: the value of NAME=value in LINE.
field() { tr ' ' '\n' <<<"$2" | awk -F= -v k="$1" '$1 == k {print $2}'; }

empty_ns=bench-coldsync-empty
"$bin/bench/bulk_loader" --apiserver_url "$INFORMERD_APISERVER_URL" --ca_file "$INFORMERD_CA_FILE" \
  --token_file "$INFORMERD_ADMIN_TOKEN_FILE" --namespace_ "$empty_ns" --count 0 >/dev/null

# Rows of the first table, kept for the medians: "resource system seconds cpu".
results="$run_dir/results"

echo "| round | resource | objects | system | time to synced s | CPU s | peak RSS MiB | steady RSS MiB | steady RSS B/object | B/object compact JSON |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for resource in $resources; do
  ns="bench-coldsync-$resource-$count"
  [[ "$resource" == pods ]] && ns="bench-pods-$count"  # pods with status (bulk_loader)
  bench::load "$bin" "$resource" "$ns" "$count"
  for ((round = 1; round <= rounds; round++)); do
    # The floor: the apiserver's own LIST, as the Reflector asks for it
    # (served from the watch cache in one piece at resourceVersion=0). Before 1.33
    # the apiserver encodes the whole list before it sends a byte, so the
    # first byte shows how much of the floor is encoding; from 1.33 it
    # encodes item by item as it writes.
    read -r seconds first_byte <<<"$(api -o /dev/null \
      -w '%{time_total} %{time_starttransfer}' -H 'Accept: application/json' \
      "$INFORMERD_APISERVER_URL/api/v1/namespaces/$ns/$resource?limit=500&resourceVersion=0")"
    # The compact JSON each cache keeps per object once managedFields are
    # gone: the mean over a page of 500 (a consistent read, which pages).
    read -r json_bytes <<<"$(api -H 'Accept: application/json' \
      "$INFORMERD_APISERVER_URL/api/v1/namespaces/$ns/$resource?limit=500" | python3 -c '
import json, sys
items = json.load(sys.stdin)["items"]
for item in items:
    item["metadata"].pop("managedFields", None)
print(sum(len(json.dumps(i, separators=(",", ":"))) for i in items) // max(1, len(items)))
')"
    echo "| $round | $resource | $count | apiserver LIST (floor; first byte at $first_byte s) | $seconds | - | - | - | - | $json_bytes |"
    echo "$resource floor $seconds -" >>"$results"

    for system in client-go client-go-json informerd; do
      if [[ "$system" == client-go* ]]; then
        format=()
        [[ "$system" == client-go-json ]] && format=(--content-type json)
        base="$(taskset -c "$bench_server_cpu" "$clientgo" --kubeconfig "$KUBECONFIG" --resource "$resource" --namespace "$empty_ns" --steady "${steady}s" "${format[@]}")"
        line="$(taskset -c "$bench_server_cpu" "$clientgo" --kubeconfig "$KUBECONFIG" --resource "$resource" --namespace "$ns" --steady "${steady}s" "${format[@]}")"
      else
        base="$(informerd_sync "$resource" "$empty_ns")"
        line="$(informerd_sync "$resource" "$ns")"
      fi
      echo "$resource $system $(field synced_seconds "$line") $(field cpu_seconds "$line")" >>"$results"
      awk -v round="$round" -v r="$resource" -v s="$system" -v n="$(field objects "$line")" \
        -v t="$(field synced_seconds "$line")" -v c="$(field cpu_seconds "$line")" \
        -v peak="$(field peak_kib "$line")" -v steady="$(field steady_kib "$line")" \
        -v base="$(field steady_kib "$base")" -v json="$json_bytes" 'BEGIN{
          per = n > 0 ? (steady - base) * 1024 / n : 0
          printf "| %d | %s | %d | %s | %.3f | %.2f | %.1f | %.1f | %.0f (%.2fx JSON) | %s |\n",
            round, r, n, s, t, c, peak / 1024, steady / 1024, per, per / json, json }'
    done
  done
done

# median RESOURCE SYSTEM COLUMN: the median of a column of $results (3 =
# seconds, 4 = CPU), the mean of the middle two for an even count.
median() {
  awk -v r="$1" -v s="$2" -v col="$3" '$1 == r && $2 == s {print $col}' "$results" | bench::median
}

echo
echo "Medians of $rounds rounds:"
echo
echo "| resource | floor s | client-go s | client-go JSON s | informerd s | informerd / floor | informerd / client-go, time | informerd / client-go, CPU | informerd / client-go JSON, time | informerd / client-go JSON, CPU |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for resource in $resources; do
  awk -v r="$resource" -v f="$(median "$resource" floor 3)" \
    -v gt="$(median "$resource" client-go 3)" -v gc="$(median "$resource" client-go 4)" \
    -v jt="$(median "$resource" client-go-json 3)" -v jc="$(median "$resource" client-go-json 4)" \
    -v it="$(median "$resource" informerd 3)" -v ic="$(median "$resource" informerd 4)" 'BEGIN{
      printf "| %s | %.3f | %.3f | %.3f | %.3f | %.2fx | %.2fx | %.2fx | %.2fx | %.2fx |\n",
        r, f, gt, jt, it, it / f, it / gt, ic / gc, it / jt, ic / jc }'
done
