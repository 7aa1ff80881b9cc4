#!/usr/bin/env bash
# Upstream cost of a sync (docs/BENCHMARKS.md): how much memory and CPU the
# kube-apiserver spends while one client syncs COUNT pods of about 10 KB,
# when the client reads them with paged LISTs (limit=500) and when it reads
# them with a streaming list (WATCH with sendInitialEvents, KEP-3157), for
#   informerd   --upstream-list=paged and --upstream-list=stream
#   client-go   today's (bench/clientgo), with WatchListClient off and on
# Before each sync the apiserver is restarted and its pod watch cache
# filled, its peak RSS mark is reset (/proc/PID/clear_refs), then the
# sync runs to ready; the row gives the apiserver's peak RSS above its RSS
# before the sync, the bytes its Go heap allocated during the sync
# (go_memstats_alloc_bytes_total: the memory pressure a sync causes, which
# RSS hides when the heap already holds enough free memory from the
# apiserver's own start), and its CPU seconds during it. Systems take turns for
# ROUNDS rounds; the second table gives medians and the stream/paged ratio.
#
# Usage: bench/upstream_list.sh [--quick]
#   --quick  500 pods, one round (the smoke run)
# Settings (environment): UPSTREAM_COUNT (50000), UPSTREAM_ROUNDS (3),
#   UPSTREAM_GRPC_PORT (20075), UPSTREAM_HTTP_PORT (8075)
# Runs against the control plane of `hack/control-plane.sh env`, which it
# restarts (its kube-apiserver) between rows.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../hack/lib.sh"
source "$INFORMERD_ROOT/bench/lib.sh"
cd "$INFORMERD_ROOT"

count="${UPSTREAM_COUNT:-50000}"
rounds="${UPSTREAM_ROUNDS:-3}"
grpc_port="${UPSTREAM_GRPC_PORT:-20075}"
http_port="${UPSTREAM_HTTP_PORT:-8075}"
if [[ "${1:-}" == "--quick" ]]; then
  count=500 rounds=1
elif (($# > 0)); then
  informerd::die "usage: bench/upstream_list.sh [--quick]"
fi

eval "$(hack/control-plane.sh env)"
bin="$(bench::build_opt)"
clientgo="$(bench::clientgo_binary)"

bench::make_run_dir

api() { bench::api -f "$@"; }
ns="bench-upstream-pods-$count"
bench::load "$bin" pods "$ns" "$count"

apiserver_pid() { cat "$INFORMERD_CP_DIR/pids/kube-apiserver.pid"; }
process_stats() { bench::process_stats "$@"; }

# A fresh apiserver whose pod watch cache holds the namespace: a list from
# the cache (resourceVersion=0) waits for it.
fresh_apiserver() {
  hack/control-plane.sh restart-apiserver >&2
  api -o /dev/null "$INFORMERD_APISERVER_URL/api/v1/namespaces/$ns/pods?resourceVersion=0&limit=1"
}

# The apiserver's Go heap allocations so far, in bytes.
allocated_bytes() {
  api "$INFORMERD_APISERVER_URL/metrics" | awk '$1 == "go_memstats_alloc_bytes_total" {printf "%.0f", $2}'
}

# sync_once SYSTEM: runs one sync to ready; prints "seconds objects".
sync_once() {
  local start end objects
  start="$(date +%s.%N)"
  case "$1" in
    informerd-*)
      cat >"$run_dir/config.yaml" <<YAML
resources:
  - resource: pods
    namespace: $ns
YAML
      bench::start_informerd "$bin" "$run_dir/config.yaml" "$grpc_port" "$http_port" \
        "$run_dir/informerd.log" --upstream_list "${1#informerd-}"
      end="$(date +%s.%N)"
      objects="$(informerd::metric_sum "$http_port" informerd_cached_objects)"
      kill "$informerd_pid"
      wait "$informerd_pid" 2>/dev/null || true
      informerd_pid=""
      ;;
    client-go-*)
      local gate=true
      [[ "$1" == client-go-paged ]] && gate=false
      objects="$(KUBE_FEATURE_WatchListClient="$gate" "$clientgo" --kubeconfig "$KUBECONFIG" \
        --resource pods --namespace "$ns" --steady 0s | tr ' ' '\n' | awk -F= '$1 == "objects" {print $2}')"
      end="$(date +%s.%N)"
      ;;
  esac
  echo "$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.3f", b - a}') $objects"
}

systems=(informerd-paged informerd-stream client-go-paged client-go-stream)
results="$run_dir/results"
version="$("$(informerd::apiserver_binary)" --version | awk '{print $2}')"
echo "kube-apiserver $version, $count pods of about 10 KB in one namespace"
echo
echo "| round | client | list | objects | time to synced s | apiserver peak RSS above before, MiB | apiserver heap allocated, MiB | apiserver CPU s |"
echo "|---|---|---|---|---|---|---|---|"
for ((round = 1; round <= rounds; round++)); do
  for system in "${systems[@]}"; do
    fresh_apiserver
    pid="$(apiserver_pid)"
    alloc_before="$(allocated_bytes)"
    read -r cpu_before rss_before _ <<<"$(process_stats "$pid")"
    echo 5 >"/proc/$pid/clear_refs"
    read -r seconds objects <<<"$(sync_once "$system")"
    read -r cpu_after _ hwm <<<"$(process_stats "$pid")"
    alloc_after="$(allocated_bytes)"
    awk -v round="$round" -v s="$system" -v n="$objects" -v t="$seconds" -v rb="$rss_before" \
      -v hwm="$hwm" -v cb="$cpu_before" -v ca="$cpu_after" -v ab="$alloc_before" \
      -v aa="$alloc_after" -v res="$results" 'BEGIN{
        split(s, part, "-"); list = part[length(part)]; client = s; sub("-" list "$", "", client)
        peak = (hwm - rb) / 1024; cpu = ca - cb; alloc = (aa - ab) / 1048576
        printf "| %d | %s | %s | %d | %.3f | %.1f | %.0f | %.2f |\n", round, client, list, n, t, peak, alloc, cpu
        printf "%s %.1f %.2f %.0f\n", s, peak, cpu, alloc >> res }'
  done
done

# median SYSTEM COLUMN (2 = peak MiB, 3 = CPU s, 4 = allocated MiB) of $results.
median() {
  awk -v s="$1" -v col="$2" '$1 == s {print $col}' "$results" | bench::median
}
echo
echo "Medians of $rounds rounds:"
echo
echo "| client | apiserver peak RSS MiB, paged | streaming | apiserver heap allocated MiB, paged | streaming | streaming / paged | apiserver CPU s, paged | streaming | streaming / paged |"
echo "|---|---|---|---|---|---|---|---|---|"
for client in informerd client-go; do
  awk -v c="$client" -v pp="$(median "$client-paged" 2)" -v ps="$(median "$client-stream" 2)" \
    -v ap="$(median "$client-paged" 4)" -v as="$(median "$client-stream" 4)" \
    -v cp="$(median "$client-paged" 3)" -v cs="$(median "$client-stream" 3)" 'BEGIN{
      printf "| %s | %.1f | %.1f | %.0f | %.0f | %.2fx | %.2f | %.2f | %.2fx |\n", c, pp, ps, ap, as,
        (ap > 0 ? as / ap : 0), cp, cs, (cp > 0 ? cs / cp : 0) }'
done
