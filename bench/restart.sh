#!/usr/bin/env bash
# Restart under writes (docs/BENCHMARKS.md, "A restart resumes its
# clients"): WATCHERS streams follow informerd, which is killed with SIGKILL
# while a writer patches through the kube-apiserver, stays down DOWN
# seconds and starts again; each stream then resumes from its last
# resourceVersion. Two rows, the same run otherwise:
#   true   historyBackfill on (the default): the verdict needs every resume
#          served, nothing replayed, nothing missed;
#   false  as informerd was before it: every resume is refused OUT_OF_RANGE,
#          which makes a client list again (the reference).
#
# Usage: bench/restart.sh [--quick]
#   --quick  100 watchers (the smoke run)
# Settings (environment): RESTART_WATCHERS (1000), RESTART_RATE (20 writes/s),
#   RESTART_DOWN (2 s), RESTART_GRPC_PORT (20077), RESTART_HTTP_PORT (8077)
# Runs against the control plane of `hack/control-plane.sh env`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../hack/lib.sh"
source "$INFORMERD_ROOT/bench/lib.sh"
cd "$INFORMERD_ROOT"

watchers="${RESTART_WATCHERS:-1000}"
rate="${RESTART_RATE:-20}"
down="${RESTART_DOWN:-2}"
grpc_port="${RESTART_GRPC_PORT:-20077}"
http_port="${RESTART_HTTP_PORT:-8077}"
if [[ "${1:-}" == "--quick" ]]; then
  watchers=100
elif (($# > 0)); then
  informerd::die "usage: bench/restart.sh [--quick]"
fi

eval "$(hack/control-plane.sh env)"
bin="$(bench::build_opt)"
bazel build -c opt --symlink_prefix=/ //bench:restart_benchmark >&2

run_dir="$(mktemp -d)"
trap 'rm -rf "$run_dir"' EXIT
ns="bench-restart"

echo "informerd $(git rev-parse --short HEAD 2>/dev/null || echo '?'), killed with SIGKILL under writes and started again"
echo
header=--header
for backfill in true false; do
  cat >"$run_dir/config-$backfill.yaml" <<YAML
resources:
  - resource: configmaps
    namespace: $ns
historyBackfill: $backfill
# Every watcher here is one caller (127.0.0.1): without this, its resumes
# beyond the per-caller burst would be refused RESOURCE_EXHAUSTED.
limits:
  maxWatchesPerIdentity: 20000
  requestsPerSecondPerIdentity: 100000
  requestBurstPerIdentity: 100000
YAML
  expect=true
  [[ "$backfill" == false ]] && expect=false
  "$bin/bench/restart_benchmark" --apiserver_url "$INFORMERD_APISERVER_URL" \
    --ca_file "$INFORMERD_CA_FILE" --token_file "$INFORMERD_ADMIN_TOKEN_FILE" --namespace_ "$ns" \
    --informerd_address "127.0.0.1:$grpc_port" --informerd_admin "http://127.0.0.1:$http_port" \
    --informerd_command "$bin/server/informerd --kubeconfig $KUBECONFIG --config $run_dir/config-$backfill.yaml --grpc_address 127.0.0.1:$grpc_port --http_address 127.0.0.1:$http_port --log_level warning 2>>$run_dir/informerd.log" \
    --watchers "$watchers" --rate "$rate" --down_seconds "$down" --label "$backfill" \
    --expect_resumes="$expect" $header
  header=
done
