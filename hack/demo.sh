#!/usr/bin/env bash
# The demo: a real control plane, informerd caching ConfigMaps and
# Namespaces, a background loop that creates, updates and deletes
# ConfigMaps in namespace "demo", and informerctl watching them through
# informerd, one table row per event as `kubectl get -w
# --output-watch-events` prints them (EVENT NAME DATA AGE). Ctrl-C stops
# everything the demo started.
#
# Usage: hack/demo.sh
# Logs: ~/.cache/informerd/demo/ (build, informerd, generator).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$INFORMERD_ROOT"

readonly demo_dir="$INFORMERD_CACHE/demo"
readonly grpc_address=127.0.0.1:50051
readonly http_address=127.0.0.1:8080
readonly namespace=demo

informerd_pid=""
generator_pid=""
watcher_pid=""
started_control_plane=false

cleanup() {
  trap - EXIT INT TERM
  if [[ -n "$watcher_pid" ]]; then
    kill -TERM "$watcher_pid" 2>/dev/null || true
    wait "$watcher_pid" 2>/dev/null || true
  fi
  if [[ -n "$generator_pid" ]]; then
    kill -TERM "$generator_pid" 2>/dev/null || true
    wait "$generator_pid" 2>/dev/null || true
  fi
  if [[ -n "$informerd_pid" ]]; then
    informerd::log "stopping informerd (pid $informerd_pid)"
    informerd::stop_pid "$informerd_pid" 10
    wait "$informerd_pid" 2>/dev/null || true
  fi
  # A control plane that ran before the demo is the user's; it stays.
  if $started_control_plane; then
    hack/control-plane.sh down
  fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

build() {
  local log="$demo_dir/bazel-build.log"
  informerd::log "building informerd and informerctl (the first build takes" \
    "several minutes; log: $log)"
  bazel build //server:informerd //client/cpp:informerctl >"$log" 2>&1 || {
    tail -n 30 "$log" >&2
    informerd::die "build failed; see $log"
  }
}

start_control_plane() {
  [[ "$(hack/control-plane.sh status)" == *"apiserver: ready"* ]] ||
    started_control_plane=true
  hack/control-plane.sh up
  eval "$(hack/control-plane.sh env)"
}

informerd_ready() {
  [[ -d "/proc/$informerd_pid" ]] || {
    tail -n 30 "$demo_dir/informerd.log" >&2
    informerd::die "informerd exited; see $demo_dir/informerd.log"
  }
  curl -fsS -o /dev/null --max-time 2 "http://$http_address/readyz" 2>/dev/null
}

port_in_use() {
  (exec 3<>"/dev/tcp/${1%:*}/${1##*:}") 2>/dev/null
}

start_informerd() {
  local log="$demo_dir/informerd.log" address
  # Otherwise the readiness check could be answered by someone else.
  for address in "$grpc_address" "$http_address"; do
    port_in_use "$address" && informerd::die "$address is taken by another process"
  done
  informerd::log "starting informerd on $grpc_address (log: $log)"
  bazel-bin/server/informerd --kubeconfig "$KUBECONFIG" \
    --resources=configmaps,namespaces \
    --grpc-address "$grpc_address" --http-address "$http_address" \
    </dev/null >"$log" 2>&1 &
  informerd_pid="$!"
  informerd::wait_until 60 informerd_ready ||
    informerd::die "informerd not ready after 60s; see $log"
}

# Usage: configmap_json NAME VALUE
configmap_json() {
  printf '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%s"},"data":{"value":"%s"}}' "$1" "$2"
}

# Three ConfigMaps go round in turns: created, then updated, then deleted.
# A failed call (say, a create racing a leftover) only shows in the log.
generate_configmaps() {
  local base="/api/v1/namespaces/$namespace/configmaps" tick=0 name
  while true; do
    name="demo-$((tick % 3))"
    case "$(((tick / 3) % 3))" in
      0) configmap_json "$name" "created at tick $tick" |
        hack/kube-curl.sh POST "$base" - ;;
      1) printf '{"data":{"value":"updated at tick %d"}}' "$tick" |
        hack/kube-curl.sh PATCH "$base/$name" - ;;
      2) hack/kube-curl.sh DELETE "$base/$name" ;;
    esac >/dev/null || true
    tick=$((tick + 1))
    sleep 2
  done
}

mkdir -p "$demo_dir"
informerd::ensure_deps
build
start_control_plane
start_informerd
if ! hack/kube-curl.sh GET "/api/v1/namespaces/$namespace" >/dev/null 2>&1; then
  printf '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"%s"}}' "$namespace" |
    hack/kube-curl.sh POST /api/v1/namespaces - >/dev/null
fi
generate_configmaps >"$demo_dir/generator.log" 2>&1 &
generator_pid="$!"

informerd::log "watching ConfigMaps in namespace $namespace; Ctrl-C stops the demo"
# In the background, because bash runs a trap only once a foreground command
# returns, while `wait` returns at once on a trapped signal.
bazel-bin/client/cpp/informerctl --server "$grpc_address" \
  watch configmaps -n "$namespace" --initial-events -o table &
watcher_pid="$!"
wait "$watcher_pid"
