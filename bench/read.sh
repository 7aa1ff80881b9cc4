#!/usr/bin/env bash
# Read path (docs/BENCHMARKS.md), against the control plane of
# `hack/control-plane.sh env`: COUNT pods in one namespace (the namespace
# and pods of bench/coldsync.sh, loaded if missing) and, cached beside them,
# its COUNT ConfigMaps when they exist; starts its own optimized informerd
# on them (field index spec.nodeName, request limits raised: every caller
# comes from 127.0.0.1) and runs bench/read_benchmark: Get, indexed List and
# label-selected List at each client count, against informerd and the
# apiserver. informerd runs alone on the machine's last CPU (taskset), the
# control plane and the benchmark's callers on the others. Stops informerd
# at the end.
#
# Usage: bench/read.sh [--quick]
#   --quick  200 pods, 1 and 10 clients, 0.5 s per row (the smoke run)
# Settings (environment): READ_COUNT (10000), READ_CLIENTS ("1,100,1000"),
#   READ_APISERVER_CLIENTS ("1,100": watch-cache Lists), READ_APISERVER_ETCD_CLIENTS
#   ("1": consistent Lists from etcd), READ_PACED_CLIENTS ("100,1000": informerd
#   rows at a fixed offered rate), READ_PACED_RATE (1000 requests/s),
#   READ_PACED_LIST_RATE (the paced List rows' rate; default READ_PACED_RATE),
#   READ_OPEN_LOOP_CLIENTS ("100,1000": most calls in flight of the open-loop rows,
#   one client thread), READ_OPEN_LOOP_RATES ("1000,5000" requests/s),
#   READ_PAUSED_CONTROL_PLANE (1: the open-loop rows again with kube-apiserver
#   and etcd stopped by SIGSTOP, so that informerd has the cores to itself as
#   on a node of its own; 0: not), READ_SECONDS (5),
#   READ_INDEX_VALUE (node-7: 1% of the fixture pods), READ_LABEL_SELECTOR (shard=7: 1/64),
#   READ_GRPC_PORT (20074), READ_HTTP_PORT (8074)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../hack/lib.sh"
source "$INFORMERD_ROOT/bench/lib.sh"
cd "$INFORMERD_ROOT"

count="${READ_COUNT:-10000}"
clients="${READ_CLIENTS:-1,100,1000}"
apiserver_clients="${READ_APISERVER_CLIENTS:-1,100}"
apiserver_etcd_clients="${READ_APISERVER_ETCD_CLIENTS:-1}"
paced_clients="${READ_PACED_CLIENTS-100,1000}"
paced_rate="${READ_PACED_RATE:-1000}"
open_loop_clients="${READ_OPEN_LOOP_CLIENTS-100,1000}"
open_loop_rates="${READ_OPEN_LOOP_RATES:-1000,5000}"
paused_control_plane="${READ_PAUSED_CONTROL_PLANE:-1}"
seconds="${READ_SECONDS:-5}"
warmup=1
grpc_port="${READ_GRPC_PORT:-20074}"
http_port="${READ_HTTP_PORT:-8074}"
if [[ "${1:-}" == "--quick" ]]; then
  count=200 clients=1,10 apiserver_clients=1 apiserver_etcd_clients=1 paced_clients=10
  paced_rate=200 open_loop_clients=10 open_loop_rates=200 paused_control_plane=0 seconds=0.5
  warmup=0.1
fi

# 1000 callers are 1000 threads, and 100 apiserver callers 100 sockets.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

eval "$(hack/control-plane.sh env)"
bazel build -c opt --symlink_prefix=/ //server:informerd //bench:bulk_loader //bench:read_benchmark >&2
bin="$(bazel info -c opt bazel-bin 2>/dev/null)"

pods_ns="bench-pods-$count"
configmaps_ns="bench-coldsync-configmaps-$count"
bench::load "$bin" pods "$pods_ns" "$count"

run_dir="$(mktemp -d)"
cat >"$run_dir/config.yaml" <<YAML
resources:
  - resource: pods
    namespace: $pods_ns
    fieldIndexes: [spec.nodeName]
YAML
if (($(bench::count configmaps "$configmaps_ns") > 0)); then
  cat >>"$run_dir/config.yaml" <<YAML
  - resource: configmaps
    namespace: $configmaps_ns
YAML
fi
cat >>"$run_dir/config.yaml" <<YAML
# Every benchmark caller comes from one address, which the default
# per-caller limits (16 Lists in flight, 200 requests/s) would refuse.
limits:
  maxLists: 100000
  maxListsPerIdentity: 100000
  requestsPerSecond: 1000000
  requestBurst: 1000000
  requestsPerSecondPerIdentity: 1000000
  requestBurstPerIdentity: 1000000
YAML

informerd_pid=""
paused_pids=()
cleanup() {
  ((${#paused_pids[@]} == 0)) || kill -CONT "${paused_pids[@]}" 2>/dev/null || true
  bench::cleanup
}
trap cleanup EXIT

# informerd alone on a CPU; the control plane and the callers on the rest.
bench::split_cpus
bench::pin_control_plane "$bench_other_cpus"
BENCH_INFORMERD_CPUS="$bench_server_cpu" bench::start_informerd "$bin" "$run_dir/config.yaml" \
  "$grpc_port" "$http_port" "$run_dir/informerd.log"
echo "informerd caches: $(informerd::metric_sum "$http_port" informerd_cached_objects) objects, on CPU $bench_server_cpu alone (control plane and callers on $bench_other_cpus)"

apiserver_pid="$(cat "$INFORMERD_CP_DIR/pids/kube-apiserver.pid")"
common=(--informerd_address "127.0.0.1:$grpc_port" --informerd_pid "$informerd_pid"
  --apiserver_url "$INFORMERD_APISERVER_URL" --ca_file "$INFORMERD_CA_FILE"
  --token_file "$INFORMERD_ADMIN_TOKEN_FILE" --apiserver_pid "$apiserver_pid"
  --namespace_ "$pods_ns" --seconds "$seconds" --warmup_seconds "$warmup")
taskset -c "$bench_other_cpus" "$bin/bench/read_benchmark" "${common[@]}" --index_value "${READ_INDEX_VALUE:-node-7}" \
  --label_selector "${READ_LABEL_SELECTOR:-shard=7}" --clients "$clients" \
  --apiserver_clients "$apiserver_clients" --apiserver_etcd_clients "$apiserver_etcd_clients" \
  --paced_clients "$paced_clients" --paced_rate "$paced_rate" \
  --paced_list_rate "${READ_PACED_LIST_RATE:-$paced_rate}" --open_loop_clients "$open_loop_clients" --open_loop_rates "$open_loop_rates"

if [[ "$paused_control_plane" == 1 && -n "$open_loop_clients" ]]; then
  # informerd serves reads from its cache alone; stopping the control plane
  # shows the latency it gives when it does not share two cores with a
  # kube-apiserver holding the objects (and its garbage collector) and etcd.
  echo
  echo "open-loop rows again, kube-apiserver and etcd stopped (SIGSTOP) meanwhile:"
  paused_pids=("$apiserver_pid" "$(cat "$INFORMERD_CP_DIR/pids/etcd.pid")")
  kill -STOP "${paused_pids[@]}"
  taskset -c "$bench_other_cpus" "$bin/bench/read_benchmark" "${common[@]}" --clients "" --apiserver_clients "" \
    --apiserver_etcd_clients "" --paced_clients "" --open_loop_clients "$open_loop_clients" \
    --open_loop_rates "$open_loop_rates" --target_note ", control plane stopped"
  kill -CONT "${paused_pids[@]}"
  paused_pids=()
fi
