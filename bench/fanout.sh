#!/usr/bin/env bash
# Runs the fan-out table (docs/BENCHMARKS.md) against the control plane of
# `hack/control-plane.sh env`: starts its own optimized informerd serving
# ConfigMaps of one fresh namespace, and bench/grpc_probe (gRPC's physical
# limit); then, in one run, N direct apiserver watches, N informerd Watch
# streams under the same writer and N probe streams at the same rate; then a
# search for the highest rate each of informerd, the probe and direct
# apiserver watches sustains with p99 <= 100 ms (and the probe again with
# informerd's upstream writes going on), and their ratios; then a
# reconnect storm (bench/reconnect_benchmark: every
# stream cut and resumed at once); then idle streams for RSS per watcher.
# informerd and the probe run alone on the machine's last CPU (taskset),
# the control plane, the writer and the watching clients on the others.
# Stops both servers at the end.
#
# Usage: bench/fanout.sh [--quick]
#   --quick  one short row per target, no search (the smoke run)
# Settings (environment): FANOUT_GRPC_PORT (20071), FANOUT_HTTP_PORT (8071),
#   FANOUT_PROBE_PORT (20072), FANOUT_WATCHERS ("100 1000"), FANOUT_RATE (20),
#   FANOUT_SECONDS (10), FANOUT_WIDE ("10000:2": informerd and probe rows with
#   WATCHERS:EVENTS_PER_SECOND, too many watchers for direct apiserver watches),
#   FANOUT_SEARCH_WATCHERS (1000),
#   FANOUT_SEARCH_RATES ("30 40 50 60 70 80 120 160": informerd's and the probe's,
#   tried in order until p99 > 100 ms or under 99.9% delivered; empty: no search),
#   FANOUT_SEARCH_APISERVER ("100:20,40,60,80,120,160 1000:2,5,10,20": direct
#   apiserver watches, WATCHERS:RATES), FANOUT_RECONNECT (1000),
#   FANOUT_IDLE (10000)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../hack/lib.sh"
source "$INFORMERD_ROOT/bench/lib.sh"
cd "$INFORMERD_ROOT"

quick=false
[[ "${1:-}" == "--quick" ]] && quick=true
grpc_port="${FANOUT_GRPC_PORT:-20071}"
http_port="${FANOUT_HTTP_PORT:-8071}"
probe_port="${FANOUT_PROBE_PORT:-20072}"
search_watchers="${FANOUT_SEARCH_WATCHERS:-1000}"
search_rates="${FANOUT_SEARCH_RATES-30 40 50 60 70 80 120 160}"
search_apiserver="${FANOUT_SEARCH_APISERVER-100:20,40,60,80,120,160 1000:2,5,10,20}"
watchers="${FANOUT_WATCHERS:-100 1000}"
rate="${FANOUT_RATE:-20}"
wide="${FANOUT_WIDE-10000:2}"
seconds="${FANOUT_SECONDS:-10}"
idle="${FANOUT_IDLE:-10000}"
reconnect="${FANOUT_RECONNECT:-1000}"
warmup=3
if $quick; then
  watchers=10 rate=5 seconds=2 idle=100 warmup=1 search_rates="" reconnect=100 wide=""
fi

# 10,000 streams are 10,000 HTTP/2 streams but far fewer sockets; the limit
# is raised anyway for runs with one stream per connection.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

eval "$(hack/control-plane.sh env)"
bazel build -c opt --symlink_prefix=/ //server:informerd //bench:fanout_benchmark //bench:grpc_probe \
  //bench:reconnect_benchmark >&2
bin="$(bazel info -c opt bazel-bin 2>/dev/null)"

ns="bench-fanout-$(date +%s)-$$"
run_dir="$(mktemp -d)"
# Every benchmark stream comes from one address.
bench::one_caller_config "$ns" >"$run_dir/config.yaml"

informerd_pid=""
# informerd and the probe (the servers under test) alone on the last CPU;
# the control plane, the writer and every watching client on the others.
bench::split_cpus
bench::pin_control_plane "$bench_other_cpus"
clients=(taskset -c "$bench_other_cpus")
start_informerd() {
  BENCH_INFORMERD_CPUS="$bench_server_cpu" bench::start_informerd "$bin" "$run_dir/config.yaml" \
    "$grpc_port" "$http_port" \
    "$run_dir/informerd.log"
}
stop_informerd() {
  kill "$informerd_pid" 2>/dev/null || true
  wait "$informerd_pid" 2>/dev/null || true
}
start_informerd
probe_pid=""
# start_probe RATE: (re)starts the probe sending RATE events/s.
start_probe() {
  stop_probe
  taskset -c "$bench_server_cpu" "$bin/bench/grpc_probe" --address "127.0.0.1:$probe_port" --rate "$1" \
    2>>"$run_dir/probe.log" &
  probe_pid=$!
  for _ in $(seq 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$probe_port") 2>/dev/null && return 0
    sleep 0.1
  done
  informerd::die "grpc_probe did not listen on $probe_port; see $run_dir/probe.log"
}
stop_probe() {
  if [[ -n "$probe_pid" ]]; then
    kill "$probe_pid" 2>/dev/null || true
    wait "$probe_pid" 2>/dev/null || true
    probe_pid=""
  fi
}
stop_servers() {
  stop_probe
  stop_informerd
  bench::pin_control_plane all
  rm -rf "$run_dir"
}
trap stop_servers EXIT

apiserver_pid="$(cat "$INFORMERD_CP_DIR/pids/kube-apiserver.pid")"
# common: the fan-out benchmark's flags for the current informerd.
set_common() {
  common=(--apiserver_url "$INFORMERD_APISERVER_URL" --ca_file "$INFORMERD_CA_FILE"
    --token_file "$INFORMERD_ADMIN_TOKEN_FILE" --namespace_ "$ns"
    --informerd_address "127.0.0.1:$grpc_port" --informerd_admin "http://127.0.0.1:$http_port"
    --informerd_pid "$informerd_pid" --apiserver_pid "$apiserver_pid"
    --probe_address "127.0.0.1:$probe_port" --seconds "$seconds" --warmup_seconds "$warmup")
}
set_common

# row TARGET WATCHERS RATE [--header]: one table row.
row() {
  local target="$1" n="$2" r="$3"
  shift 3
  if [[ "$target" == probe ]]; then
    start_probe "$r"
    "${clients[@]}" "$bin/bench/fanout_benchmark" "${common[@]}" --target probe --probe_pid "$probe_pid" \
      --watchers "$n" "$@"
  elif [[ "$target" == probe+writes ]]; then
    # The probe under informerd's upstream load: the same writes go through
    # the apiserver to informerd, which no one watches.
    start_probe "$r"
    "${clients[@]}" "$bin/bench/fanout_benchmark" "${common[@]}" --target probe --probe_pid "$probe_pid" \
      --probe_background_rate "$r" --watchers "$n" "$@"
  else
    "${clients[@]}" "$bin/bench/fanout_benchmark" "${common[@]}" --target "$target" --rate "$r" \
      --watchers "$n" "$@"
  fi
}

echo "fan-out: namespace $ns, $rate writes/s of ~10 KB ConfigMaps, $seconds s measured"
header=--header
for n in $watchers; do
  # The apiserver's direct watches are one thread and connection each in
  # this client: run them only up to 100.
  if ((n <= 100)); then
    row apiserver "$n" "$rate" $header
    header=
  fi
  row informerd "$n" "$rate" $header
  header=
  row probe "$n" "$rate"
done
for entry in $wide; do
  row informerd "${entry%%:*}" "${entry#*:}"
  row probe "${entry%%:*}" "${entry#*:}"
done

# search TARGET WATCHERS RATES...: rows at rising rates until one fails
# (p99 > 100 ms or under 99.9% delivered); sets `best` to the deliveries/s
# of the last row that passed (0 if none did).
search() {
  local target="$1" n="$2" r line
  shift 2
  best=0
  for r in "$@"; do
    # Not in a subshell: row restarts the probe and must track its pid.
    row "$target" "$n" "$r" $header >"$run_dir/row" || true
    header=
    line="$(cat "$run_dir/row")"
    echo "$line"
    # Columns: | target | watchers | events/s | deliveries/s | delivered | fewest | p50 | p99 |
    awk -F'|' '/^\| (informerd|probe|probe\+writes|apiserver) /{
         delivered = $6; sub(/%/, "", delivered)
         exit !($9 + 0 <= 100 && delivered + 0 >= 99.9)
       }' <<<"$line" || break
    best="$(awk -F'|' '/^\| (informerd|probe|probe\+writes|apiserver) /{gsub(/ /, "", $5); print $5}' <<<"$line")"
  done
  echo "highest passing for $target, $n watchers: $best deliveries/s"
}

if [[ -n "$search_rates" ]]; then
  echo
  echo "search: rates rise until p99 > 100 ms or under 99.9% delivered"
  header=--header
  # shellcheck disable=SC2086 # the rate lists are word lists
  search informerd "$search_watchers" $search_rates
  informerd_best="$best"
  search probe "$search_watchers" $search_rates
  probe_best="$best"
  search probe+writes "$search_watchers" $search_rates
  probe_writes_best="$best"
  apiserver_best=0
  for entry in $search_apiserver; do
    rates="${entry#*:}"
    search apiserver "${entry%%:*}" ${rates//,/ }
    apiserver_best="$(awk -v a="$apiserver_best" -v b="$best" 'BEGIN{print (b > a) ? b : a}')"
  done
  awk -v i="$informerd_best" -v p="$probe_best" -v w="$probe_writes_best" -v a="$apiserver_best" '
    function ratio(x, y, format) { return y > 0 ? sprintf(format, x / y) : "-" }
    BEGIN{
      printf "highest deliveries/s with p99 <= 100 ms: informerd / probe = %s, informerd / probe+writes = %s, informerd / apiserver (best N) = %s\n",
        ratio(i, p, "%.2fx"), ratio(i, w, "%.2fx"), ratio(i, a, "%.1fx") }'
fi
stop_probe
# A fresh informerd: the rows above leave its heap grown (10,000 busy
# streams), which would hide the storm's and the idle streams' memory.
stop_informerd
start_informerd
set_common

echo
echo "reconnect storm: $reconnect streams cut and resumed at once, writes going on"
"${clients[@]}" "$bin/bench/reconnect_benchmark" --apiserver_url "$INFORMERD_APISERVER_URL" \
  --ca_file "$INFORMERD_CA_FILE" --token_file "$INFORMERD_ADMIN_TOKEN_FILE" --namespace_ "$ns" \
  --informerd_address "127.0.0.1:$grpc_port" --informerd_admin "http://127.0.0.1:$http_port" \
  --informerd_pid "$informerd_pid" --watchers "$reconnect" --header
echo
"${clients[@]}" "$bin/bench/fanout_benchmark" "${common[@]}" --target idle --watchers "$idle" --header
