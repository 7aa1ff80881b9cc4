#!/usr/bin/env bash
# The admin port under abuse (issue 26, finding 2): informerd alone on the
# machine's last CPU; on the others, at nice 19, tests/node/admin_flood.py
# keeps ADMIN_CONNECTIONS connections trickling request heads a byte a
# second and ADMIN_POSTS chunked POST streams for ADMIN_SECONDS, while it
# asks /healthz once a second with the kubelet's 2 s timeout. Prints the
# probes' outcome and informerd's RSS before and at its peak (VmHWM, reset
# before the flood), and a verdict against the bound: no failed probe,
# RSS within 1.2x. Exits 1 when the bound is not met.
#
# Usage: bench/admin_flood.sh [--quick]
#   --quick  200 connections for 5 s (the smoke run)
# Settings (environment): ADMIN_CONNECTIONS (1000), ADMIN_POSTS (2),
#   ADMIN_SECONDS (30), ADMIN_GRPC_PORT (20079), ADMIN_HTTP_PORT (8079)
# Runs against the control plane of `hack/control-plane.sh env`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../hack/lib.sh"
source "$INFORMERD_ROOT/bench/lib.sh"
cd "$INFORMERD_ROOT"

connections="${ADMIN_CONNECTIONS:-1000}"
posts="${ADMIN_POSTS:-2}"
seconds="${ADMIN_SECONDS:-30}"
grpc_port="${ADMIN_GRPC_PORT:-20079}"
http_port="${ADMIN_HTTP_PORT:-8079}"
if [[ "${1:-}" == "--quick" ]]; then
  connections=200 seconds=5
elif (($# > 0)); then
  informerd::die "usage: bench/admin_flood.sh [--quick]"
fi

eval "$(hack/control-plane.sh env)"
bench::split_cpus
bin="$(bench::build_opt)"
bench::make_run_dir
ns="bench-admin-flood"
bench::api -o /dev/null -X POST -H 'Content-Type: application/json' \
  "$INFORMERD_APISERVER_URL/api/v1/namespaces" \
  -d "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$ns\"}}"
bench::one_caller_config "$ns" >"$run_dir/config.yaml"
bench::pin_control_plane "$bench_other_cpus"
BENCH_INFORMERD_CPUS="$bench_server_cpu" bench::start_informerd "$bin" "$run_dir/config.yaml" \
  "$grpc_port" "$http_port" "$run_dir/informerd.log"
rss_before="$(awk '/^VmRSS/ {print $2}' "/proc/$informerd_pid/status")"
echo 5 >"/proc/$informerd_pid/clear_refs"

echo "informerd $(git rev-parse --short HEAD 2>/dev/null || echo '?') on CPU $bench_server_cpu alone; $connections trickling connections and $posts chunked POST streams for ${seconds} s"
(ulimit -n $((connections + 1024)) &&
  taskset -c "$bench_other_cpus" nice -n 19 python3 tests/node/admin_flood.py \
    "127.0.0.1:$http_port" --connections "$connections" --posts "$posts" \
    --seconds "$seconds") >"$run_dir/flood.json"
rss_peak="$(awk '/^VmHWM/ {print $2}' "/proc/$informerd_pid/status")"
python3 - "$run_dir/flood.json" "$rss_before" "$rss_peak" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
before, peak = int(sys.argv[2]), int(sys.argv[3])
ratio = peak / before
print("| flood | connections opened | closed by informerd | POST MiB sent | probes | failed | slowest probe, s | RSS before, MiB | RSS peak, MiB | peak/before |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
print("| admin | %d | %d | %.0f | %d | %d | %.3f | %.1f | %.1f | %.2fx |" % (
    r["trickle_connections_opened"], r["trickle_connections_closed_by_server"],
    r["post_bytes_sent"] / 2**20, r["probes"], r["probes_failed"], r["probe_max_seconds"],
    before / 1024, peak / 1024, ratio))
ok = r["probes_failed"] == 0 and ratio <= 1.2
print("verdict (no failed probe, RSS within 1.2x): %s" % ("pass" if ok else "FAIL"))
sys.exit(0 if ok else 1)
PY
