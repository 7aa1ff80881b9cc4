#!/usr/bin/env bash
# The history-backfill attack (issue 26, finding 1): informerd serves
# BACKFILL_PODS pods (bench/pod_fixture's, about 12 KB each as served),
# alone on the machine's last CPU; an attacker that may watch one empty
# namespace resumes a Watch from one version before the oldest informerd
# can resume from, BACKFILL_ROUNDS times, each time one before the new
# oldest (bench/backfill_flood, at nice 19 on the other CPUs). Prints its
# line (rounds resumed and refused, informerd's RSS steady, after and at
# its peak, the apiserver's extra LIST requests in full lists per backfill
# window) and a verdict against the bound: RSS within 1.2x, at most one
# extra full LIST per window. Exits 1 when the bound is not met.
#
# Usage: bench/backfill_flood.sh [--quick]
#   --quick  500 pods, 5 rounds (the smoke run)
# Settings (environment): BACKFILL_PODS (10000), BACKFILL_ROUNDS (10),
#   BACKFILL_GRPC_PORT (20078), BACKFILL_HTTP_PORT (8078),
#   BACKFILL_BIN (a bazel-bin holding server/informerd, to measure another
#   build; default: this tree's, built -c opt)
# Runs against the control plane of `hack/control-plane.sh env`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../hack/lib.sh"
source "$INFORMERD_ROOT/bench/lib.sh"
cd "$INFORMERD_ROOT"

pods="${BACKFILL_PODS:-10000}"
rounds="${BACKFILL_ROUNDS:-10}"
grpc_port="${BACKFILL_GRPC_PORT:-20078}"
http_port="${BACKFILL_HTTP_PORT:-8078}"
if [[ "${1:-}" == "--quick" ]]; then
  pods=500 rounds=5
elif (($# > 0)); then
  informerd::die "usage: bench/backfill_flood.sh [--quick]"
fi

eval "$(hack/control-plane.sh env)"
bench::split_cpus
bin="$(bench::build_opt)"
bazel build -c opt --symlink_prefix=/ //bench:backfill_flood >&2
server_bin="${BACKFILL_BIN:-$bin}"

bench::make_run_dir
# The pods' namespace holds exactly as many as asked: informerd serves
# every pod of the cluster, and the verdict counts LISTs of pods.
bench::load "$bin" pods "bench-backfill-$pods" "$pods"
attacker_ns="bench-backfill-attacker"
bench::api -o /dev/null -X POST -H 'Content-Type: application/json' \
  "$INFORMERD_APISERVER_URL/api/v1/namespaces" \
  -d "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$attacker_ns\"}}"

cat >"$run_dir/config.yaml" <<YAML
resources:
  - resource: pods
YAML
bench::pin_control_plane "$bench_other_cpus"
BENCH_INFORMERD_CPUS="$bench_server_cpu" bench::start_informerd "$server_bin" \
  "$run_dir/config.yaml" "$grpc_port" "$http_port" "$run_dir/informerd.log"

echo "informerd $(git rev-parse --short HEAD 2>/dev/null || echo '?')${BACKFILL_BIN:+ ($BACKFILL_BIN)} on CPU $bench_server_cpu alone, every pod of the cluster served, $rounds rounds"
rc=0
taskset -c "$bench_other_cpus" nice -n 19 "$bin/bench/backfill_flood" \
  --target "127.0.0.1:$grpc_port" --watch_namespace "$attacker_ns" --resource pods \
  --rounds "$rounds" --informerd_pid "$informerd_pid" \
  --apiserver_url "$INFORMERD_APISERVER_URL" --ca_file "$INFORMERD_CA_FILE" \
  --token_file "$INFORMERD_ADMIN_TOKEN_FILE" || rc=$?
kill -0 "$informerd_pid" 2>/dev/null || informerd::die "informerd died: $(tail -5 "$run_dir/informerd.log")"
exit "$rc"
