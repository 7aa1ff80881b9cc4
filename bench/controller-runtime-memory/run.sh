#!/usr/bin/env bash
# Heap bytes per cached object in a controller-runtime manager's cache:
# full objects vs metadata only, fed by informerd vs by the stock apiserver
# informers, for ConfigMaps (1 KiB of data) and Pods (two containers).
#
# Usage: bench/controller-runtime-memory/run.sh [--count N]
# Needs hack/control-plane.sh env (KUBECONFIG) and INFORMERD_BIN (default
# /work/bin/informerd, else bazel-bin/server/informerd). Creates and
# deletes its own namespace; runs its own informerd.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
root="$(cd "$here/../.." && pwd)"
count=2000
while (($#)); do
  case "$1" in
    --count) count="$2"; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
: "${KUBECONFIG:?run eval \"\$(hack/control-plane.sh env)\" first}"
informerd_bin="${INFORMERD_BIN:-$root/bazel-bin/server/informerd}"
[[ -x "$informerd_bin" ]] || { echo "informerd binary $informerd_bin missing (set INFORMERD_BIN)" >&2; exit 1; }

bin="${INFORMERD_CACHE:-$HOME/.cache/informerd}/go-bin/controller-runtime-memory"
(cd "$here" && GOFLAGS=-mod=readonly go build -o "$bin" .)

namespace="crmem-$(date +%s)-$$"
work="$(mktemp -d)"
informerd_pid=""
cleanup() {
  [[ -n "$informerd_pid" ]] && kill "$informerd_pid" 2>/dev/null && wait "$informerd_pid" 2>/dev/null
  "$bin" cleanup -n "$namespace" || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "populating $namespace with $count configmaps and $count pods" >&2
"$bin" populate -n "$namespace" --kind configmaps --count "$count"
"$bin" populate -n "$namespace" --kind pods --count "$count"

read -r grpc_port http_port < <(python3 -c '
import socket
s=[socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1",0)) for x in s]
print(*[x.getsockname()[1] for x in s])')
"$informerd_bin" --kubeconfig="$KUBECONFIG" --resources=configmaps,pods \
  --grpc_address="127.0.0.1:$grpc_port" --http_address="127.0.0.1:$http_port" >"$work/informerd.log" 2>&1 &
informerd_pid=$!
for _ in $(seq 600); do
  [[ "$(curl -s "http://127.0.0.1:$http_port/readyz" || true)" == ok* ]] && break
  sleep 0.1
done
[[ "$(curl -s "http://127.0.0.1:$http_port/readyz" || true)" == ok* ]] || { cat "$work/informerd.log" >&2; echo "informerd not ready" >&2; exit 1; }

# apiserver-strip: the stock cache with cache.TransformStripManagedFields,
# the fair comparison (informerd drops managedFields at ingest by default).
printf '%-10s %-16s %-9s %8s %14s %8s\n' kind source shape objects bytes/object sync_s
for kind in configmaps pods; do
  for source in apiserver apiserver-strip informerd; do
    for shape in full metadata; do
      args=(measure -n "$namespace" --kind "$kind")
      [[ "$shape" == metadata ]] && args+=(--metadata)
      [[ "$source" == informerd ]] && args+=(--server "127.0.0.1:$grpc_port")
      [[ "$source" == apiserver-strip ]] && args+=(--strip-managed-fields)
      "$bin" "${args[@]}" 2>>"$work/measure.log" | python3 -c '
import json,sys
r=json.loads(sys.stdin.read())
print("%-10s %-16s %-9s %8d %14.0f %8.2f" % (r["kind"], r["source"], r["shape"], r["objects"], r["bytes_per_object"], r["sync_seconds"]))'
    done
  done
done
