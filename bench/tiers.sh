#!/usr/bin/env bash
# Tiers (docs/BENCHMARKS.md, "Tiers"): one root informerd reading the
# kube-apiserver of `hack/control-plane.sh env` and leaf informerds reading
# the root (--upstream grpc://ROOT), each leaf a host of its own: a network
# namespace joined to the root's by a veth on a bridge (root 10.77.0.1, leaf
# N 10.77.N.2). The watchers and the writer run in this (the root's)
# namespace and reach each leaf over its veth. Rows (bench/tier_benchmark):
#   fanout, leaves 0   a single informerd with every watcher (the reference)
#   fanout, leaves L   W watchers on each leaf and 100 on the root: the
#                      apiserver's WATCHes and CPU, the root's CPU against L,
#                      the latency a tier adds, events lost
#   kill               leaf 1 killed (its watchers resume on leaf 2 from their
#                      last version), then the root killed and started again:
#                      relists, replayed and missed events must all be 0
# Namespaces and bridge are removed on exit. Needs root (ip netns) and
# iproute2.
#
# Usage: bench/tiers.sh [--quick]
#   --quick  leaves 0 and 2, 50 watchers per leaf, short windows (the smoke run)
# Settings (environment): TIERS_LEAVES ("1 2 4": one fanout row each; the
#   largest also runs the kill row), TIERS_WATCHERS (2500 per leaf),
#   TIERS_RATE (2 writes/s: 20,000 deliveries/s at 4 x 2,500, what this 2-core machine sustains with the client on it), TIERS_SECONDS (10), TIERS_PORT (20081: every
#   informerd's gRPC port, each on its own address), TIERS_HTTP_PORT (8081),
#   TIERS_PREFIX (tb: names of the namespaces and links)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../hack/lib.sh"
source "$INFORMERD_ROOT/bench/lib.sh"
cd "$INFORMERD_ROOT"

leaves_list="${TIERS_LEAVES:-1 2 4}"
watchers="${TIERS_WATCHERS:-2500}"
rate="${TIERS_RATE:-2}"
seconds="${TIERS_SECONDS:-10}"
port="${TIERS_PORT:-20081}"
http_port="${TIERS_HTTP_PORT:-8081}"
prefix="${TIERS_PREFIX:-tb}"
warmup=2
if [[ "${1:-}" == "--quick" ]]; then
  leaves_list="2" watchers=50 seconds=3 warmup=1
elif (($# > 0)); then
  informerd::die "usage: bench/tiers.sh [--quick]"
fi
command -v ip >/dev/null || informerd::die "bench/tiers.sh needs iproute2 (ip): hack/deps.txt"
((EUID == 0)) || informerd::die "bench/tiers.sh makes network namespaces (ip netns): run it as root"
max_leaves=0
for l in $leaves_list; do ((l > max_leaves)) && max_leaves=$l; done
((max_leaves >= 2)) || informerd::die "TIERS_LEAVES needs a count of 2 or more (the kill row)"

# 10,000 streams on one informerd in the reference row.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

eval "$(hack/control-plane.sh env)"
bin="$(bench::build_opt)"
bazel build -c opt --symlink_prefix=/ //bench:tier_benchmark >&2
apiserver_pid="$(cat "$INFORMERD_CP_DIR/pids/kube-apiserver.pid")"

run_dir="$(mktemp -d)"
bridge="${prefix}-br"
cleanup() {
  for ((i = 1; i <= max_leaves; i++)); do ip netns del "${prefix}-leaf$i" 2>/dev/null || true; done
  ip link del "$bridge" 2>/dev/null || true
  rm -rf "$run_dir"
}
trap cleanup EXIT

# The hosts: a bridge holding the root's address, and one namespace per
# leaf on a veth whose other end is on the bridge.
ip link add "$bridge" type bridge
ip addr add 10.77.0.1/16 dev "$bridge"
ip link set "$bridge" up
for ((i = 1; i <= max_leaves; i++)); do
  netns="${prefix}-leaf$i"
  ip netns add "$netns"
  ip link add "${prefix}-h$i" type veth peer name "${prefix}-l$i"
  ip link set "${prefix}-l$i" netns "$netns"
  ip link set "${prefix}-h$i" master "$bridge" up
  ip -n "$netns" link set lo up
  ip -n "$netns" addr add "10.77.$i.2/16" dev "${prefix}-l$i"
  ip -n "$netns" link set "${prefix}-l$i" up
done

ns="bench-tiers"
# Every watcher of one informerd comes from one address (10.77.0.1).
bench::one_caller_config "$ns" >"$run_dir/config.yaml"
root_command="$bin/server/informerd --kubeconfig $KUBECONFIG --config $run_dir/config.yaml \
--grpc_address 10.77.0.1:$port --http_address 10.77.0.1:$http_port --allow_unauthenticated --allow_unproxied \
--log_level warning 2>>$run_dir/root.log"
leaf_command="ip netns exec ${prefix}-leaf{leaf} $bin/server/informerd --config $run_dir/config.yaml \
--upstream grpc://10.77.0.1:$port --allow_insecure_upstream \
--grpc_address 10.77.{leaf}.2:$port --http_address 10.77.{leaf}.2:$http_port --allow_unauthenticated --allow_unproxied \
--log_level warning 2>>$run_dir/leaf{leaf}.log"

common=(--apiserver_url "$INFORMERD_APISERVER_URL" --ca_file "$INFORMERD_CA_FILE"
  --token_file "$INFORMERD_ADMIN_TOKEN_FILE" --namespace_ "$ns" --apiserver_pid "$apiserver_pid"
  --root_command "$root_command" --leaf_command "$leaf_command"
  --root_address "10.77.0.1:$port" --root_admin "http://10.77.0.1:$http_port"
  --leaf_address "10.77.{leaf}.2:$port" --leaf_admin "http://10.77.{leaf}.2:$http_port"
  --rate "$rate" --seconds "$seconds" --warmup_seconds "$warmup")

# fail: the row's verdict failed, or the program did; the logs' tails.
status=0
fail() {
  status=1
  tail -n 5 "$run_dir"/*.log >&2 2>/dev/null || true
}

echo "informerd $(git rev-parse --short HEAD 2>/dev/null || echo '?'): root + leaves in network namespaces, $rate writes/s of 1 KB ConfigMaps, $seconds s measured"
echo
"$bin/bench/tier_benchmark" "${common[@]}" --mode fanout --leaves 0 \
  --watchers $((max_leaves * watchers)) --header || fail
for l in $leaves_list; do
  "$bin/bench/tier_benchmark" "${common[@]}" --mode fanout --leaves "$l" --watchers "$watchers" ||
    fail
done
echo
"$bin/bench/tier_benchmark" "${common[@]}" --mode kill --leaves "$max_leaves" \
  --watchers "$watchers" --header || fail
exit "$status"
