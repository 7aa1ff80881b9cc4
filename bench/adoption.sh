#!/usr/bin/env bash
# Adoption (issue 27; docs/BENCHMARKS.md): what a Go controller pays in its
# own process to sync and follow pods directly from the kube-apiserver and
# through informerd (client/go/kube's adapters), and what ten controllers
# cost the whole machine either way. Against the control plane of
# `hack/control-plane.sh env`, on COUNT pods of bench/pod_fixture with their
# status (about 12 KB each as the apiserver serves them; namespace
# bench-pods-COUNT, loaded once and shared with bench/coldsync.sh).
#
# One controller (bench/adoption, a Go program on client/go's go.mod):
#   controller-runtime  a manager with one controller For the pods (its
#               reconciler reads the pod from the cache); through informerd,
#               crcache.NewCacheFunc and crcache.MapperProvider
#   client-go   a SharedIndexInformer on the typed clientset / the metadata
#               informer; through informerd, kube.NewListerWatcher /
#               kube.NewMetadataListerWatcher
# each typed (corev1.Pod) and metadata-only (PartialObjectMetadata); and,
# through informerd only, two controller-runtime shapes that hold less than
# a full copy (issue 36): masked (crcache.WithFields: pods with metadata,
# spec.nodeName, spec.containers.image, status.phase and status.podIP
# only) and nocopy (crcache.NoCopy: metadata-only events, reads answered by
# informerd). Their direct counterpart is the typed controller-runtime
# controller direct (a controller cannot ask the apiserver for less), so
# they run no direct rows of their own. Per
# run: time from the program's start to the informer's HasSynced, its CPU
# (user+sys, getrusage) and max RSS (VmHWM) then, the Go heap in use after
# a forced GC; then RATE pod updates/s for WINDOW seconds (bench/adoption
# update, a process of its own) and the controller's CPU over the window,
# divided by the updates it saw; then, for controller-runtime, a reconciler's
# reads timed through mgr.GetClient() (1,000 Gets of random pods and 100
# Lists of one shard label, 1/64 of the pods: the local cache, or informerd
# with nocopy), after every CPU reading. informerd runs fresh for each of its runs
# and is ready before the controller starts (the adoption case: informerd
# is already serving); its own CPU is in its column, not the controller's.
# Runs alternate direct and informerd (the order flips every round); the
# second table gives medians over ROUNDS and the ratios informerd/direct.
#
# Ten controllers (CONTROLLERS of each of FLEET_KINDS, started together):
# direct (the first kind, which must be typed), each against the apiserver,
# or through one informerd started with them, once per kind; the total CPU
# of every process (controllers, kube-apiserver, etcd, informerd from its
# start) from /proc/PID/stat, to all synced and over the update window, and
# the sum of the controllers' max RSS (VmHWM) plus informerd's. The
# updater's CPU is the same either way and left out.
#
# informerd builds some things lazily, on the first request for them (the
# metadata projection; an encoding other than JSON, where the server has
# one): by default (ADOPTION_WARM=0) the measured controller is informerd's
# first consumer and its time to synced includes that; with
# ADOPTION_WARM=1 a controller of the same configuration syncs and exits
# first, as when a controller joins an informerd that already serves
# others. Its CPU is then in "informerd CPU to ready".
#
# CPUs: the server a controller reads from and the controller get a core
# each: informerd alone on the last CPU (bench::split_cpus; the controllers
# and the control plane on the others), and direct, the controller on the
# last CPU and the control plane on the others.
#
# Node agents (AGENTS of them, issue 36): one process holding one watch per
# node (node-0 .. node-<AGENTS-1>, the pod fixture's nodes) of the pods with
# spec.nodeName=<node>, from the current version on, each event decoded
# into a corev1.Pod: direct, client-go's typed watch in protobuf (full
# objects); through informerd, its Watch with the same selector and a
# five-field mask in protobuf. Over the update window: bytes received and
# the process's CPU, per event. Target: both <= 0.1x direct.
#
# Targets (issue 27): controller CPU through informerd <= 0.8x direct,
# typed; total CPU of the ten-controller setup <= 0.5x direct; time to
# synced <= 1.0x. Issue 36, nocopy: each controller's max RSS and CPU to
# synced <= 0.2x direct typed; ten controllers' total max RSS plus
# informerd's <= 0.25x the direct total, total CPU <= 0.4x; reconcile-read
# p99 (Get, label List) <= 2 ms. A verdict needs a machine doing nothing else: the CPU the
# machine spent during the runs (/proc/stat) less what this script's
# processes and the control plane spent is other work, and above
# ADOPTION_QUIET_CPU cores on average the verdict column says so instead of
# judging. (A load average cannot tell: the runs themselves keep both CPUs
# busy.)
#
# Usage: bench/adoption.sh [--quick]
#   --quick  200 pods, one round, 2 s window at 20 updates/s, 2
#            controllers (the smoke run; the numbers mean nothing)
# Settings (environment): ADOPTION_COUNT (10000; 100000 for the large
#   run), ADOPTION_ROUNDS (3), ADOPTION_RATE (100), ADOPTION_WINDOW (20),
#   ADOPTION_CONTROLLERS (10), ADOPTION_CONFIGS ("controller-runtime:typed
#   client-go:typed controller-runtime:metadata client-go:metadata
#   controller-runtime:masked controller-runtime:nocopy"; masked and nocopy
#   need controller-runtime:typed for their direct column),
#   ADOPTION_FLEET_KINDS ("controller-runtime:typed controller-runtime:masked
#   controller-runtime:nocopy"; empty: no fleet rows),
#   ADOPTION_AGENTS (100; 0: no node-agent rows),
#   ADOPTION_QUIET_CPU (0.2), ADOPTION_WARM (0), ADOPTION_PROFILE (empty;
#   a directory: each measured controller writes a Go CPU profile of its
#   update window there, CONTROLLER-ROUND-KIND-SHAPE-SOURCE.pprof, for
#   `go tool pprof`; the profiler's own cost is then in the CPU columns)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../hack/lib.sh"
source "$INFORMERD_ROOT/bench/lib.sh"
cd "$INFORMERD_ROOT"

count="${ADOPTION_COUNT:-10000}"
rounds="${ADOPTION_ROUNDS:-3}"
rate="${ADOPTION_RATE:-100}"
window="${ADOPTION_WINDOW:-20}"
controllers="${ADOPTION_CONTROLLERS:-10}"
configs="${ADOPTION_CONFIGS:-controller-runtime:typed client-go:typed controller-runtime:metadata client-go:metadata controller-runtime:masked controller-runtime:nocopy}"
read -r -a fleet_kinds <<<"${ADOPTION_FLEET_KINDS-controller-runtime:typed controller-runtime:masked controller-runtime:nocopy}"
((${#fleet_kinds[@]} == 0)) || [[ "${fleet_kinds[0]}" == *:typed ]] ||
  informerd::die "ADOPTION_FLEET_KINDS: the first kind runs direct too and must be typed, not ${fleet_kinds[0]}"
for config in $configs; do
  if [[ "$config" == *:masked || "$config" == *:nocopy ]] && [[ " $configs " != *" controller-runtime:typed "* ]]; then
    informerd::die "ADOPTION_CONFIGS: $config compares with controller-runtime:typed direct; add it"
  fi
done
# through_only CONFIG: true for the shapes that exist only through informerd.
through_only() { [[ "$1" == *:masked || "$1" == *:nocopy ]]; }
quiet_cpu="${ADOPTION_QUIET_CPU:-0.2}"
agents="${ADOPTION_AGENTS:-100}"
warm="${ADOPTION_WARM:-0}"
profile_dir="${ADOPTION_PROFILE:-}"
if [[ "${1:-}" == "--quick" ]]; then
  count=200 rounds=1 rate=20 window=2 controllers=2
  configs="controller-runtime:typed client-go:metadata controller-runtime:masked controller-runtime:nocopy"
  fleet_kinds=(controller-runtime:typed controller-runtime:nocopy)
  agents=100
elif (($# > 0)); then
  informerd::die "usage: bench/adoption.sh [--quick]"
fi

eval "$(hack/control-plane.sh env)"
bin="$(bench::build_opt)"
adoption="$(bench::adoption_binary)"

bench::make_run_dir
if [[ -n "$profile_dir" ]]; then
  mkdir -p "$profile_dir"
  profile_dir="$(cd "$profile_dir" && pwd)"
fi
controller_pids=()
adoption_cleanup() {
  local pid
  for pid in "${controller_pids[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  bench::cleanup
}
trap adoption_cleanup EXIT
bench::split_cpus
bench::pin_control_plane "$bench_other_cpus"
export BENCH_INFORMERD_CPUS="$bench_server_cpu"

namespace="bench-pods-$count"
bench::load "$bin" pods "$namespace" "$count"

# cp_pid NAME: the pid of the control plane's NAME (kube-apiserver, etcd).
cp_pid() { cat "$INFORMERD_CP_DIR/pids/$1.pid"; }
# machine_cpu: CPU seconds the machine has spent since boot, every CPU
# (user, nice, system, irq, softirq, steal).
machine_cpu() {
  awk -v hz="$(getconf CLK_TCK)" '$1 == "cpu" {printf "%.2f", ($2 + $3 + $4 + $7 + $8 + $9) / hz}' /proc/stat
}
# ours_cpu: CPU seconds of this script and its descendants, live or reaped
# (a reaped child's time is in its parent's), and of the control plane.
ours_cpu() {
  python3 - "$$" "$(cp_pid kube-apiserver)" "$(cp_pid etcd)" <<'PY'
import os, sys
roots = {int(a) for a in sys.argv[1:]}
parent, cpu = {}, {}
for entry in os.listdir("/proc"):
    if not entry.isdigit():
        continue
    try:
        with open(f"/proc/{entry}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        continue
    parent[int(entry)] = int(fields[1])
    cpu[int(entry)] = sum(int(x) for x in fields[11:15])
def ours(pid):
    while pid > 1:
        if pid in roots:
            return True
        pid = parent.get(pid, 0)
    return False
print("%.2f" % (sum(c for p, c in cpu.items() if ours(p)) / os.sysconf("SC_CLK_TCK")))
PY
}
run_start="$(date +%s.%N)" machine_start="$(machine_cpu)" ours_start="$(ours_cpu)"

read -r grpc_port http_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1", 0)) for x in s]
print(*[x.getsockname()[1] for x in s])')
# The per-caller limits raised: every controller here is one caller
# (127.0.0.1, no token) where in a cluster each would be its own. With the
# default initial-events budget per caller (256 MiB), ten WatchLists of 10k
# pods are refused (RESOURCE_EXHAUSTED) and relisted thousands of times.
cat >"$run_dir/config.yaml" <<YAML
resources:
  - resource: pods
    namespace: $namespace
    fieldIndexes: [spec.nodeName]   # the node agents' selector
limits:
  maxWatches: 20000
  maxWatchesPerIdentity: 20000
  requestsPerSecond: 100000
  requestBurst: 100000
  requestsPerSecondPerIdentity: 100000
  requestBurstPerIdentity: 100000
  maxInitialBytes: 17179869184
  maxInitialBytesPerIdentity: 17179869184
YAML

# field NAME LINE: the value of NAME=value in LINE.
field() { tr ' ' '\n' <<<"$2" | awk -F= -v k="$1" '$1 == k {print substr($0, length(k) + 2)}'; }

# cpu_of PID: its CPU seconds (user + system) from /proc/PID/stat.
cpu_of() { read -r cpu _ _ <<<"$(bench::process_stats "$1")"; echo "$cpu"; }

# wait_line FILE PATTERN SECONDS: waits until FILE has a line matching
# PATTERN; dies with FILE's tail when it does not within SECONDS.
wait_line() {
  local deadline=$((SECONDS + $3))
  until grep -q "$2" "$1" 2>/dev/null; do
    ((SECONDS < deadline)) || informerd::die "no '$2' in $1 within $3 s: $(tail -5 "$1" "$1.err" 2>/dev/null)"
    sleep 0.05
  done
}

# mark PID FILE: asks the controller PID for a mark line and prints it.
mark() {
  local before
  before="$(grep -c '^mark ' "$2" || true)"
  kill -USR1 "$1"
  local deadline=$((SECONDS + 30))
  until (($(grep -c '^mark ' "$2" || true) > before)); do
    ((SECONDS < deadline)) || informerd::die "controller $1 did not answer a mark: $(tail -3 "$2.err")"
    sleep 0.02
  done
  grep '^mark ' "$2" | tail -1
}

# heap_mark PID FILE: asks the controller PID for its Go heap in use (after
# a GC, so only once its CPU has been read) and prints the bytes.
heap_mark() {
  kill -USR2 "$1"
  wait_line "$2" '^heap ' 30
  field heap_inuse_bytes "$(grep '^heap ' "$2" | tail -1)"
}

# wait_marks PID FILE KEY MIN SECONDS: marks until KEY >= MIN; prints the
# last mark (the one that reached it, or the last before the deadline).
wait_marks() {
  local deadline=$((SECONDS + $5)) line
  while :; do
    line="$(mark "$1" "$2")"
    if (($(field "$3" "$line") >= $4)) || ((SECONDS >= deadline)); then
      echo "$line"
      return
    fi
    sleep 0.2
  done
}

# start_controller KIND:SHAPE SOURCE CPUS OUT: starts one controller in the
# background, its stdout in OUT (stderr OUT.err); sets started_pid.
start_controller() {
  local args=(controller --namespace "$namespace" --kind "${1%%:*}" --shape "${1##*:}")
  rm -f "$4" "$4.err"
  [[ -z "$profile_dir" ]] || args+=(--cpuprofile "$profile_dir/$(basename "$4" .out).pprof")
  [[ "$2" == informerd ]] && args+=(--server "127.0.0.1:$grpc_port")
  taskset -c "$3" "$adoption" "${args[@]}" >"$4" 2>"$4.err" &
  started_pid=$!
  controller_pids+=("$started_pid")
}

stop_controllers() {
  local pid
  for pid in "${controller_pids[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  controller_pids=()
}

stop_informerd() {
  if [[ -n "$informerd_pid" ]]; then
    kill "$informerd_pid" 2>/dev/null || true
    wait "$informerd_pid" 2>/dev/null || true
    informerd_pid=""
  fi
}

# updates: RATE/s for WINDOW s on the other CPUs; prints the updates made.
updates() {
  local line
  line="$(taskset -c "$bench_other_cpus" "$adoption" update --namespace "$namespace" \
    --rate "$rate" --seconds "$window")"
  (($(field errors "$line") == 0)) || informerd::log "updater: $line"
  field updates "$line"
}

results="$run_dir/results"   # "config source metric value" lines for the medians
encodings="$run_dir/encodings"
: >"$results"
: >"$encodings"

# one_run CONFIG SOURCE ROUND: one controller's sync and update window; one row.
one_run() {
  local config="$1" source="$2" round="$3" cpus informerd_sync_cpu=-
  local out="$run_dir/controller-$round-${config/:/-}-$source.out"
  if [[ "$source" == informerd ]]; then
    bench::start_informerd "$bin" "$run_dir/config.yaml" "$grpc_port" "$http_port" "$run_dir/informerd.log"
    if ((warm)); then
      # Another consumer of the same shape first: what informerd builds
      # lazily on a first request (the metadata projection, an encoding)
      # is then built, as it is for a controller joining a serving one.
      start_controller "$config" informerd "$bench_other_cpus" "$run_dir/warm.out"
      wait_line "$run_dir/warm.out" '^synced ' 900
      stop_controllers
    fi
    informerd_sync_cpu="$(cpu_of "$informerd_pid")"
    cpus="$bench_other_cpus"
  else
    cpus="$bench_server_cpu"
  fi
  local api_before
  api_before="$(cpu_of "$(cp_pid kube-apiserver)")"
  start_controller "$config" "$source" "$cpus" "$out"
  local pid="$started_pid"
  wait_line "$out" '^synced ' 900
  local synced objects
  synced="$(grep '^synced ' "$out")"
  objects="$(field objects "$synced")"
  # The controller-runtime reconciler's first pass over every pod, before
  # the window; client-go's program counts synced objects as reconciled.
  local a b made informerd_a=0 informerd_b=0 api_a api_b
  a="$(wait_marks "$pid" "$out" reconciles "$objects" 300)"
  api_a="$(cpu_of "$(cp_pid kube-apiserver)")"
  [[ "$source" == informerd ]] && informerd_a="$(cpu_of "$informerd_pid")"
  [[ -z "$profile_dir" ]] || kill -HUP "$pid"
  made="$(updates)"
  b="$(wait_marks "$pid" "$out" updates "$(($(field updates "$a") + made))" 60)"
  [[ -z "$profile_dir" ]] || kill -HUP "$pid"
  api_b="$(cpu_of "$(cp_pid kube-apiserver)")"
  [[ "$source" == informerd ]] && informerd_b="$(cpu_of "$informerd_pid")"
  local heap_b reads=""
  heap_b="$(heap_mark "$pid" "$out")"
  if [[ "$config" == controller-runtime:* ]]; then
    kill -TTIN "$pid"
    wait_line "$out" '^reads ' 120
    reads="$(grep '^reads ' "$out" | tail -1)"
    (($(field errors "$reads") == 0)) || informerd::die "controller $config $source: reads failed: $reads"
  fi
  stop_controllers
  stop_informerd
  local seen=$(($(field updates "$b") - $(field updates "$a")))
  local encoding
  encoding="$(field encoding "$synced")"
  echo "$config $source $encoding" >>"$encodings"
  awk -v round="$round" -v config="$config" -v source="$source" -v enc="$encoding" -v n="$objects" \
    -v t="$(field synced_seconds "$synced")" -v c="$(field cpu_seconds "$synced")" \
    -v hwm="$(field hwm_kib "$synced")" -v heap="$(field heap_inuse_bytes "$synced")" \
    -v made="$made" -v seen="$seen" -v ca="$(field cpu_seconds "$a")" -v cb="$(field cpu_seconds "$b")" \
    -v hwmb="$(field hwm_kib "$b")" -v heapb="$heap_b" -v isync="$informerd_sync_cpu" \
    -v getp99="$(field get_p99_ms "$reads")" -v listp99="$(field list_p99_ms "$reads")" \
    -v iserve="$(awk -v a="$informerd_sync_cpu" -v b="$informerd_a" -v s="$source" 'BEGIN{if (s == "direct") print "-"; else printf "%.2f", b - a}')" \
    -v iwin="$(awk -v a="$informerd_a" -v b="$informerd_b" -v s="$source" 'BEGIN{if (s == "direct") print "-"; else printf "%.2f", b - a}')" \
    -v api_sync="$(awk -v a="$api_before" -v b="$api_a" 'BEGIN{printf "%.2f", b - a}')" \
    -v api_win="$(awk -v a="$api_a" -v b="$api_b" 'BEGIN{printf "%.2f", b - a}')" \
    -v results="$results" 'BEGIN{
      split(config, parts, ":")
      per = seen > 0 ? (cb - ca) * 1000 / seen : 0
      if (getp99 == "") getp99 = "-"
      if (listp99 == "") listp99 = "-"
      printf "| %d | %s | %s | %s | %s | %d | %.3f | %.2f | %.1f | %.1f | %d/%d | %.2f | %.3f | %.1f | %.1f | %s | %s | %s | %s | %s | %s | %s |\n",
        round, parts[1], parts[2], source, enc, n, t, c, hwm / 1024, heap / 1048576, seen, made,
        cb - ca, per, hwmb / 1024, heapb / 1048576, isync, iserve, iwin, api_sync, api_win, getp99, listp99
      printf "%s %s sync_seconds %s\n%s %s cpu %s\n%s %s hwm %s\n%s %s heap %s\n%s %s cpu_per_update %s\n%s %s window_hwm %s\n%s %s window_heap %s\n",
        config, source, t, config, source, c, config, source, hwm / 1024, config, source, heap / 1048576,
        config, source, per, config, source, hwmb / 1024, config, source, heapb / 1048576 >> results
      if (getp99 != "-") printf "%s %s get_p99 %s\n%s %s list_p99 %s\n", config, source, getp99, config, source, listp99 >> results }'
}

echo "pods: $count in $namespace; updates: $rate/s for $window s; rounds: $rounds; informerd warmed by a first consumer: $( ((warm)) && echo yes || echo no); load average at start: $(cut -d' ' -f1 /proc/loadavg)"
echo
echo "| round | controller | shape | source | encoding | objects | time to synced s | CPU to synced s | max RSS MiB | Go heap in use MiB | updates seen/made | CPU in window s | CPU ms/update | max RSS after window MiB | Go heap in use after window MiB | informerd CPU to ready s | informerd CPU serving the sync s | informerd CPU in window s | apiserver CPU to synced s | apiserver CPU in window s | Get p99 ms | label List p99 ms |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for ((round = 1; round <= rounds; round++)); do
  for config in $configs; do
    order=(direct informerd)
    ((round % 2 == 0)) && order=(informerd direct)
    for source in "${order[@]}"; do
      [[ "$source" == direct ]] && through_only "$config" && continue
      one_run "$config" "$source" "$round"
    done
  done
done

# fleet_run SOURCE ROUND KIND: CONTROLLERS controllers of KIND at once; one
# row, its medians keyed "SOURCE:KIND".
fleet_total="$run_dir/fleet"
: >"$fleet_total"
fleet_run() {
  local source="$1" round="$2" fleet_kind="$3" cpus i pids=() outs=()
  local etcd api
  etcd="$(cp_pid etcd)" api="$(cp_pid kube-apiserver)"
  local etcd0 api0 start_ns
  etcd0="$(cpu_of "$etcd")" api0="$(cpu_of "$api")"
  start_ns="$(date +%s%N)"
  if [[ "$source" == informerd ]]; then
    bench::start_informerd "$bin" "$run_dir/config.yaml" "$grpc_port" "$http_port" "$run_dir/informerd.log"
    cpus="$bench_other_cpus"
  else
    cpus="$bench_server_cpu"
  fi
  for ((i = 0; i < controllers; i++)); do
    start_controller "$fleet_kind" "$source" "$cpus" "$run_dir/fleet-$round-$source-${fleet_kind/:/-}-$i.out"
    pids+=("$started_pid")
    outs+=("$run_dir/fleet-$round-$source-${fleet_kind/:/-}-$i.out")
  done
  for ((i = 0; i < controllers; i++)); do
    wait_line "${outs[$i]}" '^synced ' 900
  done
  local synced_ns objects a_lines=()
  synced_ns="$(date +%s%N)"
  for ((i = 0; i < controllers; i++)); do
    objects="$(field objects "$(grep '^synced ' "${outs[$i]}")")"
    a_lines+=("$(wait_marks "${pids[$i]}" "${outs[$i]}" reconciles "$objects" 300)")
  done
  # CPU to all synced (and reconciled once): every process from its start,
  # the control plane from the row's start.
  sum_cpu() {
    local total=0 pid
    for pid in "$@"; do total="$(awk -v t="$total" -v c="$(cpu_of "$pid")" 'BEGIN{print t + c}')"; done
    echo "$total"
  }
  local ctl_a etcd_a api_a inf_a=0
  ctl_a="$(sum_cpu "${pids[@]}")" etcd_a="$(cpu_of "$etcd")" api_a="$(cpu_of "$api")"
  [[ "$source" == informerd ]] && inf_a="$(cpu_of "$informerd_pid")"
  local made
  made="$(updates)"
  for ((i = 0; i < controllers; i++)); do
    wait_marks "${pids[$i]}" "${outs[$i]}" updates "$(($(field updates "${a_lines[$i]}") + made))" 60 >/dev/null
  done
  local ctl_b etcd_b api_b inf_b=0 ctl_hwm=0 inf_hwm=0 pid hwm
  ctl_b="$(sum_cpu "${pids[@]}")" etcd_b="$(cpu_of "$etcd")" api_b="$(cpu_of "$api")"
  [[ "$source" == informerd ]] && inf_b="$(cpu_of "$informerd_pid")"
  for pid in "${pids[@]}"; do
    read -r _ _ hwm <<<"$(bench::process_stats "$pid")"
    ctl_hwm=$((ctl_hwm + hwm))
  done
  [[ "$source" == informerd ]] && read -r _ _ inf_hwm <<<"$(bench::process_stats "$informerd_pid")"
  stop_controllers
  stop_informerd
  awk -v round="$round" -v source="$source" -v n="$controllers" -v kind="$fleet_kind" \
    -v t="$(((synced_ns - start_ns) / 1000000))" \
    -v ca="$ctl_a" -v cb="$ctl_b" -v e0="$etcd0" -v e1="$etcd_a" -v e2="$etcd_b" \
    -v a0="$api0" -v a1="$api_a" -v a2="$api_b" -v i1="$inf_a" -v i2="$inf_b" -v made="$made" \
    -v chwm="$ctl_hwm" -v ihwm="$inf_hwm" -v out="$fleet_total" 'BEGIN{
      sync_total = ca + (e1 - e0) + (a1 - a0) + i1
      win_total = (cb - ca) + (e2 - e1) + (a2 - a1) + (i2 - i1)
      key = source ":" kind
      printf "| %d | %d x %s | %s | %.3f | %.2f | %.2f | %.2f | %.2f | %.2f | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.0f | %.0f | %.0f |\n",
        round, n, kind, source, t / 1000, ca, a1 - a0, e1 - e0, i1, sync_total,
        made, cb - ca, a2 - a1, e2 - e1, i2 - i1, win_total, sync_total + win_total,
        chwm / 1024, ihwm / 1024, (chwm + ihwm) / 1024
      printf "%s sync_total %s\n%s window_total %s\n%s total %s\n%s all_synced %s\n%s rss_total %s\n%s rss_controller %s\n",
        key, sync_total, key, win_total, key, sync_total + win_total, key, t / 1000,
        key, (chwm + ihwm) / 1024, key, chwm / 1024 / n >> out }'
}

if ((${#fleet_kinds[@]} > 0)); then
  echo
  echo "| round | controllers | source | time to all synced s | controllers CPU to synced s | apiserver | etcd | informerd | total CPU to synced s | updates | controllers CPU in window s | apiserver | etcd | informerd | total CPU in window s | total CPU s | controllers max RSS MiB (sum) | informerd max RSS MiB | total max RSS MiB |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  for ((round = 1; round <= rounds; round++)); do
    rows=("direct ${fleet_kinds[0]}")
    for kind in "${fleet_kinds[@]}"; do rows+=("informerd $kind"); done
    if ((round % 2 == 0)); then
      reversed=()
      for ((i = ${#rows[@]} - 1; i >= 0; i--)); do reversed+=("${rows[$i]}"); done
      rows=("${reversed[@]}")
    fi
    for row in "${rows[@]}"; do
      fleet_run "${row%% *}" "$round" "${row#* }"
    done
  done
fi

# agents_run SOURCE ROUND: the node agents' update window; one row.
agents_total="$run_dir/agents"
: >"$agents_total"
agents_run() {
  local source="$1" round="$2" cpus args=(agents --namespace "$namespace" --nodes "$agents")
  local out="$run_dir/agents-$round-$source.out"
  if [[ "$source" == informerd ]]; then
    bench::start_informerd "$bin" "$run_dir/config.yaml" "$grpc_port" "$http_port" "$run_dir/informerd.log"
    args+=(--server "127.0.0.1:$grpc_port")
    cpus="$bench_other_cpus"
  else
    cpus="$bench_server_cpu"
  fi
  rm -f "$out" "$out.err"
  taskset -c "$cpus" "$adoption" "${args[@]}" >"$out" 2>"$out.err" &
  local pid=$!
  controller_pids+=("$pid")
  wait_line "$out" '^ready ' 300
  local a b made
  a="$(mark "$pid" "$out")" || informerd::die "node agents ($source) failed: $(tail -3 "$out.err")"
  made="$(updates)"
  b="$(wait_marks "$pid" "$out" events "$(($(field events "$a") + made))" 60)" ||
    informerd::die "node agents ($source) failed: $(tail -3 "$out.err")"
  stop_controllers
  stop_informerd
  awk -v round="$round" -v source="$source" -v n="$agents" -v made="$made" \
    -v ea="$(field events "$a")" -v eb="$(field events "$b")" -v ba="$(field bytes "$a")" -v bb="$(field bytes "$b")" \
    -v ca="$(field cpu_seconds "$a")" -v cb="$(field cpu_seconds "$b")" -v rss="$(field rss_kib "$b")" \
    -v out="$agents_total" 'BEGIN{
      e = eb - ea
      bytes = e > 0 ? (bb - ba) / e : 0
      cpu = e > 0 ? (cb - ca) * 1e6 / e : 0
      printf "| %d | %s | %d | %d/%d | %d | %.0f | %.2f | %.0f | %.1f |\n", round, source, n, e, made, bb - ba, bytes, cb - ca, cpu, rss / 1024
      printf "%s bytes_per_event %s\n%s cpu_us_per_event %s\n", source, bytes, source, cpu >> out }'
}

if ((agents > 0)); then
  echo
  echo "| round | agents | watches | events seen/updates | bytes received | bytes/event | CPU s | CPU us/event | agents RSS MiB |"
  echo "|---|---|---|---|---|---|---|---|---|"
  for ((round = 1; round <= rounds; round++)); do
    order=(direct informerd)
    ((round % 2 == 0)) && order=(informerd direct)
    for source in "${order[@]}"; do
      agents_run "$source" "$round"
    done
  done
fi

other_cpu="$(awk -v m0="$machine_start" -v m1="$(machine_cpu)" -v o0="$ours_start" -v o1="$(ours_cpu)" \
  -v t0="$run_start" -v t1="$(date +%s.%N)" 'BEGIN{printf "%.2f", ((m1 - m0) - (o1 - o0)) / (t1 - t0)}')"
loaded="$(awk -v c="$other_cpu" -v q="$quiet_cpu" 'BEGIN{print (c > q) ? 1 : 0}')"

# median CONFIG SOURCE METRIC
median() { awk -v c="$1" -v s="$2" -v m="$3" '$1 == c && $2 == s && $3 == m {print $4}' "$results" | bench::median; }
agents_median() { awk -v s="$1" -v m="$2" '$1 == s && $2 == m {print $3}' "$agents_total" | bench::median; }
fleet_median() { awk -v s="$1" -v m="$2" '$1 == s && $2 == m {print $3}' "$fleet_total" | bench::median; }
# direct_of CONFIG: the config whose direct rows CONFIG compares with.
direct_of() { if through_only "$1"; then echo controller-runtime:typed; else echo "$1"; fi; }
# verdict RATIO TARGET: met / not met, or why no verdict.
verdict() {
  if ((loaded)); then
    echo "no verdict (other work: $other_cpu cores > $quiet_cpu)"
  else
    awk -v r="$1" -v t="$2" 'BEGIN{print (r != "nan" && r != "" && r + 0 <= t) ? "met" : "not met"}'
  fi
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{if (b > 0 && a != "nan") printf "%.2fx", a / b; else print "nan"}'; }

echo
echo "Go adapter encoding (through informerd): $(awk '$2 == "informerd" {print $1 "=" $3}' "$encodings" | sort -u | tr '\n' ' ')"
echo "direct: $(awk '$2 == "direct" {print $1 "=" $3}' "$encodings" | sort -u | tr '\n' ' ')"
echo "other work on the machine during the runs: $other_cpu cores on average (verdicts need <= $quiet_cpu)"
echo
echo "Medians over $rounds round(s), informerd / direct:"
echo
echo "| controller | shape | time to synced s, direct / informerd | ratio | CPU to synced s, direct / informerd | ratio | CPU ms/update, direct / informerd | ratio | max RSS | Go heap | max RSS after window | Go heap after window | Get p99 ms, direct / informerd | label List p99 ms, direct / informerd | verdicts (time <= 1.0x; typed: CPU <= 0.8x; nocopy: RSS and CPU to synced <= 0.2x, read p99 <= 2 ms) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for config in $configs; do
  declare -A m=()
  for metric in sync_seconds cpu cpu_per_update hwm heap window_hwm window_heap get_p99 list_p99; do
    m[direct.$metric]="$(median "$(direct_of "$config")" direct "$metric")"
    m[informerd.$metric]="$(median "$config" informerd "$metric")"
  done
  t_ratio="$(ratio "${m[informerd.sync_seconds]}" "${m[direct.sync_seconds]}")"
  c_ratio="$(ratio "${m[informerd.cpu]}" "${m[direct.cpu]}")"
  u_ratio="$(ratio "${m[informerd.cpu_per_update]}" "${m[direct.cpu_per_update]}")"
  h_ratio="$(ratio "${m[informerd.window_hwm]}" "${m[direct.window_hwm]}")"
  if ((loaded)); then
    verdicts="$(verdict)"
  else
    verdicts="time $(verdict "${t_ratio%x}" 1.0)"
    case "${config##*:}" in
      typed) verdicts+="; CPU to synced $(verdict "${c_ratio%x}" 0.8); CPU/update $(verdict "${u_ratio%x}" 0.8)" ;;
      nocopy)
        verdicts+="; max RSS $(verdict "${h_ratio%x}" 0.2); CPU to synced $(verdict "${c_ratio%x}" 0.2)"
        verdicts+="; Get p99 $(verdict "${m[informerd.get_p99]}" 2); List p99 $(verdict "${m[informerd.list_p99]}" 2)"
        ;;
    esac
  fi
  echo "| ${config%%:*} | ${config##*:} | ${m[direct.sync_seconds]} / ${m[informerd.sync_seconds]} | $t_ratio" \
    "| ${m[direct.cpu]} / ${m[informerd.cpu]} | $c_ratio" \
    "| ${m[direct.cpu_per_update]} / ${m[informerd.cpu_per_update]} | $u_ratio" \
    "| $(ratio "${m[informerd.hwm]}" "${m[direct.hwm]}") | $(ratio "${m[informerd.heap]}" "${m[direct.heap]}")" \
    "| $h_ratio | $(ratio "${m[informerd.window_heap]}" "${m[direct.window_heap]}")" \
    "| ${m[direct.get_p99]:--} / ${m[informerd.get_p99]:--} | ${m[direct.list_p99]:--} / ${m[informerd.list_p99]:--} | $verdicts |"
  unset m
done

if ((${#fleet_kinds[@]} > 0)); then
  echo
  echo "| setup | total CPU to synced s, direct / informerd | ratio | total CPU in window s, direct / informerd | ratio | total CPU s, direct / informerd | ratio | total max RSS MiB, direct / informerd | ratio | per controller max RSS | time to all synced | verdicts (typed: CPU <= 0.5x; nocopy: CPU <= 0.4x, RSS <= 0.25x) |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
  direct_key="direct:${fleet_kinds[0]}"
  for kind in "${fleet_kinds[@]}"; do
    declare -A f=()
    for metric in sync_total window_total total all_synced rss_total rss_controller; do
      f[direct.$metric]="$(fleet_median "$direct_key" "$metric")"
      f[informerd.$metric]="$(fleet_median "informerd:$kind" "$metric")"
    done
    total_ratio="$(ratio "${f[informerd.total]}" "${f[direct.total]}")"
    rss_ratio="$(ratio "${f[informerd.rss_total]}" "${f[direct.rss_total]}")"
    case "${kind##*:}" in
      typed) verdicts="CPU $(verdict "${total_ratio%x}" 0.5)" ;;
      nocopy) verdicts="CPU $(verdict "${total_ratio%x}" 0.4); RSS $(verdict "${rss_ratio%x}" 0.25)" ;;
      *) verdicts="-" ;;
    esac
    echo "| $controllers x $kind | ${f[direct.sync_total]} / ${f[informerd.sync_total]} | $(ratio "${f[informerd.sync_total]}" "${f[direct.sync_total]}")" \
      "| ${f[direct.window_total]} / ${f[informerd.window_total]} | $(ratio "${f[informerd.window_total]}" "${f[direct.window_total]}")" \
      "| ${f[direct.total]} / ${f[informerd.total]} | $total_ratio" \
      "| ${f[direct.rss_total]} / ${f[informerd.rss_total]} | $rss_ratio | $(ratio "${f[informerd.rss_controller]}" "${f[direct.rss_controller]}")" \
      "| $(ratio "${f[informerd.all_synced]}" "${f[direct.all_synced]}") | $verdicts |"
    unset f
  done
fi

if ((agents > 0)); then
  echo
  echo "| node agents | bytes/event, direct / informerd | ratio | CPU us/event, direct / informerd | ratio | verdict (both <= 0.1x) |"
  echo "|---|---|---|---|---|---|"
  declare -A g=()
  for source in direct informerd; do
    for metric in bytes_per_event cpu_us_per_event; do
      g[$source.$metric]="$(agents_median "$source" "$metric")"
    done
  done
  b_ratio="$(ratio "${g[informerd.bytes_per_event]}" "${g[direct.bytes_per_event]}")"
  c_ratio="$(ratio "${g[informerd.cpu_us_per_event]}" "${g[direct.cpu_us_per_event]}")"
  echo "| $agents x spec.nodeName, 5-field mask | ${g[direct.bytes_per_event]} / ${g[informerd.bytes_per_event]} | $b_ratio" \
    "| ${g[direct.cpu_us_per_event]} / ${g[informerd.cpu_us_per_event]} | $c_ratio | bytes $(verdict "${b_ratio%x}" 0.1); CPU $(verdict "${c_ratio%x}" 0.1) |"
fi
