#!/usr/bin/env bash
# Stalled streams stay bounded (the "secure by default" issue, item 4):
# STREAMS WatchList streams (send_initial_events) from one caller on OBJECTS
# configmaps, none of them ever read. informerd admits them up to the
# caller's initial-events budget (limits.maxInitialBytesPerIdentity) and
# refuses the rest with RESOURCE_EXHAUSTED; the admitted ones end once they
# have waited stalledStreamSeconds for the client. Reports informerd's RSS
# before the streams and its peak (VmHWM, reset just before) while they
# were open, against the bound: the RSS before plus the caller's budget.
# The verdict needs every stream refused or ended as stalled (informerd's
# /metrics) and the peak under the bound.
#
# Usage: bench/stalled_watchlists.sh [--quick]
#   --quick  2,000 objects, 100 streams, 3 s stall (the smoke run)
# Settings (environment): STALLED_OBJECTS (50000), STALLED_STREAMS (1000),
#   STALLED_OBJECT_BYTES (1024), STALLED_SECONDS (10),
#   STALLED_GRPC_PORT (20076), STALLED_HTTP_PORT (8076)
# Runs against the control plane of `hack/control-plane.sh env`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../hack/lib.sh"
source "$INFORMERD_ROOT/bench/lib.sh"
cd "$INFORMERD_ROOT"

objects="${STALLED_OBJECTS:-50000}"
streams="${STALLED_STREAMS:-1000}"
object_bytes="${STALLED_OBJECT_BYTES:-1024}"
stall_seconds="${STALLED_SECONDS:-10}"
grpc_port="${STALLED_GRPC_PORT:-20076}"
http_port="${STALLED_HTTP_PORT:-8076}"
if [[ "${1:-}" == "--quick" ]]; then
  objects=2000 streams=100 stall_seconds=3
elif (($# > 0)); then
  informerd::die "usage: bench/stalled_watchlists.sh [--quick]"
fi
# The default of limits.maxInitialBytesPerIdentity (docs/CONFIGURATION.md).
budget_mib=256

eval "$(hack/control-plane.sh env)"
bin="$(bench::build_opt)"
bazel build -c opt --symlink_prefix=/ //bench:stalled_watchlists >&2

bench::make_run_dir

ns="bench-stalled-$objects-$object_bytes"
bench::load "$bin" configmaps "$ns" "$objects" "$object_bytes"

cat >"$run_dir/config.yaml" <<YAML
resources:
  - resource: configmaps
    namespace: $ns
stalledStreamSeconds: $stall_seconds
YAML
bench::start_informerd "$bin" "$run_dir/config.yaml" "$grpc_port" "$http_port" \
  "$run_dir/informerd.log"
metric() { informerd::metric_sum "$http_port" "$@"; }
cached="$(metric informerd_cached_objects)"
read -r _ rss_before _ <<<"$(bench::process_stats "$informerd_pid")"
echo 5 >"/proc/$informerd_pid/clear_refs"
# The client side holds its streams open (reading nothing) until they end
# or its timeout; informerd's own metrics say when they have all ended.
"$bin/bench/stalled_watchlists" --target "127.0.0.1:$grpc_port" --namespace_ "$ns" \
  --streams "$streams" --timeout_s $((stall_seconds * 3 + 30)) >"$run_dir/client.out" &
client_pid=$!
start="$(date +%s.%N)"
deadline=$((SECONDS + stall_seconds * 3 + 30))
while ((SECONDS < deadline)); do
  open="$(metric informerd_watchers_open)"
  ended="$(metric informerd_watcher_terminations_total 'reason="stalled"')"
  # Stalled streams count as rejected too (reason "stalled").
  refused=$(($(metric informerd_requests_rejected_total 'method="Watch"') - ended))
  ((open == 0 && ended + refused >= streams)) && break
  sleep 0.2
done
end="$(date +%s.%N)"
read -r _ _ hwm <<<"$(bench::process_stats "$informerd_pid")"
kill "$client_pid" 2>/dev/null || true
wait "$client_pid" 2>/dev/null || true
kill -0 "$informerd_pid" 2>/dev/null || informerd::die "informerd died: $(tail -5 "$run_dir/informerd.log")"
open="$(metric informerd_watchers_open)"
ended="$(metric informerd_watcher_terminations_total 'reason="stalled"')"
refused=$(($(metric informerd_requests_rejected_total 'method="Watch"') - ended))

echo "informerd $(git rev-parse --short HEAD 2>/dev/null || echo '?'), stalledStreamSeconds $stall_seconds, default limits"
echo
echo "| objects | object bytes | streams | refused | ended stalled | open after | all ended after s | RSS before MiB | peak RSS MiB | growth MiB | bound MiB | verdict |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
awk -v n="$cached" -v b="$object_bytes" -v s="$streams" -v r="$refused" -v e="$ended" \
  -v o="$open" -v t0="$start" -v t1="$end" -v before="$rss_before" -v hwm="$hwm" \
  -v budget="$budget_mib" 'BEGIN{
    peak = hwm / 1024; base = before / 1024; bound = base + budget
    verdict = (r + e == s && o == 0 && peak <= bound) ? "pass" : "FAIL"
    printf "| %d | %d | %d | %d | %d | %d | %.1f | %.0f | %.0f | %.0f | %.0f | %s |\n",
      n, b, s, r, e, o, t1 - t0, base, peak, peak - base, bound, verdict }'
