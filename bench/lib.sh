# Shared functions for the benchmark scripts that run against a control
# plane of `hack/control-plane.sh env`. Source it after hack/lib.sh, with
# the control plane's variables in the environment by the time a function
# is called; it defines functions and nothing else.

# Prints the bazel-bin of an optimized build of informerd and bulk_loader,
# building them first.
bench::build_opt() {
  (cd "$INFORMERD_ROOT" &&
    bazel build -c opt --symlink_prefix=/ //server:informerd //bench:bulk_loader >&2 &&
    bazel info -c opt bazel-bin 2>/dev/null)
}

# Prints the path of the client-go side (bench/clientgo: today's client-go
# from its own go.mod), rebuilt when its source or pins change.
bench::clientgo_binary() {
  local binary="$INFORMERD_CACHE/bench-bin/informerd-clientgo-bench"
  local source="$INFORMERD_ROOT/bench/clientgo"
  mkdir -p "$(dirname "$binary")"
  if [[ ! -x "$binary" || "$source/main.go" -nt "$binary" || "$source/go.sum" -nt "$binary" ]]; then
    (cd "$source" && GOTOOLCHAIN=local GOFLAGS=-mod=readonly CGO_ENABLED=0 \
      go build -o "$binary" .) >&2
  fi
  echo "$binary"
}

# Prints the path of bench/adoption's program (client/go's adapters and
# today's controller-runtime, from its go.mod), built every time: go build
# is incremental, and the adapter it links (client/go, by a replace) changes
# under it, e.g. in the encoding it asks informerd for.
bench::adoption_binary() {
  local binary="$INFORMERD_CACHE/bench-bin/informerd-adoption-bench"
  mkdir -p "$(dirname "$binary")"
  (cd "$INFORMERD_ROOT/bench/adoption" && GOTOOLCHAIN=local GOFLAGS=-mod=readonly CGO_ENABLED=0 \
    go build -o "$binary" .) >&2
  echo "$binary"
}

# Sets run_dir to a new temporary directory and informerd_pid to none; on
# exit, stops the informerd of informerd_pid (when one is set), gives the
# control plane every CPU again (when bench::pin_control_plane took some)
# and removes run_dir.
bench::make_run_dir() {
  run_dir="$(mktemp -d)"
  informerd_pid=""
  trap bench::cleanup EXIT
}
bench::cleanup() {
  if [[ -n "${informerd_pid:-}" ]]; then
    kill "$informerd_pid" 2>/dev/null || true
    wait "$informerd_pid" 2>/dev/null || true
  fi
  [[ -n "${bench_control_plane_pinned:-}" ]] && bench::pin_control_plane all
  rm -rf "$run_dir"
}

# Prints the median of the numbers on stdin (one a line), the mean of the
# middle two for an even count, "nan" for none.
bench::median() {
  sort -g | awk '{v[NR] = $1} END{
    if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2];
    else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Calls the apiserver as the admin: bench::api CURL_ARG...
bench::api() {
  # Not curl's user agent: the apiserver pretty-prints JSON for curl, and
  # then builds a LIST whole instead of encoding it as it writes.
  curl -sS -A informerd-bench --cacert "$INFORMERD_CA_FILE" \
    -H "Authorization: Bearer $(<"$INFORMERD_ADMIN_TOKEN_FILE")" "$@"
}

# Creates what is missing of COUNT objects of RESOURCE in NAMESPACE, with
# the bulk_loader in BIN (a bazel-bin); ConfigMaps hold OBJECT_BYTES of data
# (the bulk_loader's default when not given).
# Usage: bench::load BIN RESOURCE NAMESPACE COUNT [OBJECT_BYTES]
bench::load() {
  local bin="$1" resource="$2" namespace="$3" count="$4"
  local sized=()
  [[ -n "${5:-}" ]] && sized=(--object_bytes "$5")
  if (($(bench::count "$resource" "$namespace") < count)); then
    "$bin/bench/bulk_loader" --apiserver_url "$INFORMERD_APISERVER_URL" \
      --ca_file "$INFORMERD_CA_FILE" --token_file "$INFORMERD_ADMIN_TOKEN_FILE" \
      --namespace_ "$namespace" --resource "$resource" --count "$count" --concurrency 8 \
      "${sized[@]}" >&2
  fi
}

# Prints how many objects of RESOURCE the apiserver holds in NAMESPACE.
# Usage: bench::count RESOURCE NAMESPACE
bench::count() {
  bench::api "$INFORMERD_APISERVER_URL/api/v1/namespaces/$2/$1?limit=1" |
    python3 -c 'import json,sys; l=json.load(sys.stdin); print(len(l.get("items",[])) + l.get("metadata",{}).get("remainingItemCount",0))'
}

# Prints "CPU_SECONDS RSS_KIB HWM_KIB" of PID (user + system time, VmRSS,
# VmHWM).
bench::process_stats() {
  local ticks
  ticks="$(awk '{print $14 + $15}' "/proc/$1/stat")"
  echo "$(awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" 'BEGIN{printf "%.2f", t / hz}')" \
    "$(awk '/^VmRSS:/{print $2}' "/proc/$1/status")" "$(awk '/^VmHWM:/{print $2}' "/proc/$1/status")"
}

# Prints an informerd config serving the ConfigMaps of NAMESPACE to
# thousands of streams from one address: one caller, whose streams beyond
# the default per-caller limits (1000 watches, 200 requests/s) would be
# refused.
# Usage: bench::one_caller_config NAMESPACE
bench::one_caller_config() {
  cat <<YAML
resources:
  - resource: configmaps
    namespace: $1
limits:
  maxWatches: 20000
  maxWatchesPerIdentity: 20000
  requestsPerSecond: 100000
  requestBurst: 100000
  requestsPerSecondPerIdentity: 100000
  requestBurstPerIdentity: 100000
YAML
}

# Starts BIN's informerd with CONFIG, gRPC on 127.0.0.1:GRPC_PORT and HTTP
# on 127.0.0.1:HTTP_PORT, logging to LOG, with any further FLAGs; sets
# informerd_pid and returns once /readyz says ok (dies with the log's tail
# if informerd exits first). With BENCH_INFORMERD_CPUS set (a taskset CPU
# list), informerd runs on those CPUs only. The scripts' fixed ports (20071
# and up, 8071 and up) stay below Linux's ephemeral range (32768-60999):
# there, any outgoing connection's local port could hold one (a bind failed
# on 50076 so in a full test run).
# Usage: bench::start_informerd BIN CONFIG GRPC_PORT HTTP_PORT LOG [FLAG...]
bench::start_informerd() {
  local bin="$1" config="$2" grpc_port="$3" http_port="$4" log="$5"
  shift 5
  local pinned=()
  [[ -n "${BENCH_INFORMERD_CPUS:-}" ]] && pinned=(taskset -c "$BENCH_INFORMERD_CPUS")
  "${pinned[@]}" "$bin/server/informerd" --kubeconfig "$KUBECONFIG" --config "$config" \
    --grpc_address "127.0.0.1:$grpc_port" --http_address "127.0.0.1:$http_port" \
    --log_level warning "$@" >"$log" 2>&1 &
  informerd_pid=$!
  until curl -fs "http://127.0.0.1:$http_port/readyz" >/dev/null 2>&1; do
    kill -0 "$informerd_pid" 2>/dev/null || informerd::die "informerd exited: $(tail -5 "$log")"
    sleep 0.01
  done
}

# The CPUs of this machine split for a verdict that needs the server under
# test alone on a core: sets bench_server_cpu (the last CPU) and
# bench_other_cpus (the rest, for the control plane, writers and clients).
# Dies on a single-CPU machine, where no such verdict can be had.
bench::split_cpus() {
  local cpus
  cpus="$(nproc)"
  ((cpus >= 2)) || informerd::die "this benchmark needs 2 CPUs or more: the server under test gets one of its own"
  bench_server_cpu=$((cpus - 1))
  bench_other_cpus="0-$((cpus - 2))"
}

# Moves every thread of the control plane's processes (hack/control-plane.sh
# pid files under INFORMERD_CP_DIR) onto CPUS (a taskset list), or back
# onto every CPU with "all".
# Usage: bench::pin_control_plane CPUS|all
bench::pin_control_plane() {
  local cpus="$1" pid_file
  bench_control_plane_pinned=1
  if [[ "$cpus" == all ]]; then
    cpus="0-$(($(nproc) - 1))"
    bench_control_plane_pinned=""
  fi
  for pid_file in "$INFORMERD_CP_DIR"/pids/*.pid; do
    [[ -f "$pid_file" ]] || continue
    taskset -apc "$cpus" "$(<"$pid_file")" >/dev/null 2>&1 || true
  done
}

# Prints how many TokenReviews the control plane's apiserver has answered
# (its apiserver_request_total for tokenreviews).
bench::apiserver_token_reviews() {
  bench::api "$INFORMERD_APISERVER_URL/metrics" |
    awk '/^apiserver_request_total\{/ && /resource="tokenreviews"/ {n += $NF} END{printf "%d", n}'
}
