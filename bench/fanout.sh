#!/usr/bin/env bash
# Runs the fan-out table (docs/BENCHMARKS.md) against the control plane of
# `hack/control-plane.sh env`: starts its own optimized informerd serving
# ConfigMaps of one fresh namespace, then, in one run, N direct apiserver
# watches and N informerd Watch streams under the same writer, and idle
# streams for RSS per watcher. Stops informerd at the end.
#
# Usage: bench/fanout.sh [--quick]
#   --quick  one short row per target (the smoke run)
# Settings (environment): FANOUT_GRPC_PORT (50071), FANOUT_HTTP_PORT (8071),
#   FANOUT_WATCHERS ("100 1000"), FANOUT_RATE (20), FANOUT_SECONDS (10),
#   FANOUT_IDLE (10000)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../hack/lib.sh"
cd "$INFORMERD_ROOT"

quick=false
[[ "${1:-}" == "--quick" ]] && quick=true
grpc_port="${FANOUT_GRPC_PORT:-50071}"
http_port="${FANOUT_HTTP_PORT:-8071}"
watchers="${FANOUT_WATCHERS:-100 1000}"
rate="${FANOUT_RATE:-20}"
seconds="${FANOUT_SECONDS:-10}"
idle="${FANOUT_IDLE:-10000}"
warmup=3
if $quick; then
  watchers=10 rate=5 seconds=2 idle=100 warmup=1
fi

# 10,000 streams are 10,000 HTTP/2 streams but far fewer sockets; the limit
# is raised anyway for runs with one stream per connection.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

eval "$(hack/control-plane.sh env)"
bazel build -c opt --symlink_prefix=/ //server:informerd //bench:fanout_benchmark >&2
bin="$(bazel info -c opt bazel-bin 2>/dev/null)"

ns="bench-fanout-$(date +%s)-$$"
run_dir="$(mktemp -d)"
cat >"$run_dir/config.yaml" <<YAML
resources:
  - resource: configmaps
    namespace: $ns
# Every benchmark stream comes from one address, which the default
# per-caller limit (100) would refuse.
limits:
  maxWatches: 20000
  maxWatchesPerIdentity: 20000
YAML

"$bin/server/informerd" --kubeconfig "$KUBECONFIG" --config "$run_dir/config.yaml" \
  --grpc_address "127.0.0.1:$grpc_port" --http_address "127.0.0.1:$http_port" \
  --log_level warning >"$run_dir/informerd.log" 2>&1 &
informerd_pid=$!
stop_informerd() {
  kill "$informerd_pid" 2>/dev/null || true
  wait "$informerd_pid" 2>/dev/null || true
  rm -rf "$run_dir"
}
trap stop_informerd EXIT

for _ in $(seq 100); do
  curl -fs "http://127.0.0.1:$http_port/readyz" >/dev/null 2>&1 && break
  sleep 0.2
done
curl -fs "http://127.0.0.1:$http_port/readyz" >/dev/null ||
  informerd::die "informerd did not become ready; see $run_dir/informerd.log"

apiserver_pid="$(cat "$INFORMERD_CP_DIR/pids/kube-apiserver.pid")"
common=(--apiserver_url "$INFORMERD_APISERVER_URL" --ca_file "$INFORMERD_CA_FILE"
  --token_file "$INFORMERD_ADMIN_TOKEN_FILE" --namespace_ "$ns"
  --informerd_address "127.0.0.1:$grpc_port" --informerd_admin "http://127.0.0.1:$http_port"
  --informerd_pid "$informerd_pid" --apiserver_pid "$apiserver_pid"
  --rate "$rate" --seconds "$seconds" --warmup_seconds "$warmup")

echo "fan-out: namespace $ns, $rate writes/s of ~10 KB ConfigMaps, $seconds s measured"
header=--header
for n in $watchers; do
  # The apiserver's direct watches are one thread and connection each in
  # this client: run them only up to 100.
  if ((n <= 100)); then
    "$bin/bench/fanout_benchmark" "${common[@]}" --target apiserver --watchers "$n" $header
    header=
  fi
  "$bin/bench/fanout_benchmark" "${common[@]}" --target informerd --watchers "$n" $header
  header=
done
echo
"$bin/bench/fanout_benchmark" "${common[@]}" --target idle --watchers "$idle" --header
