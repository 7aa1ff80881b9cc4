#!/usr/bin/env bash
# Other ecosystems' own Kubernetes clients, unmodified, read through
# informerd's Kubernetes API port (issue 37 item 3): each gets a kubeconfig
# that differs from the control plane's admin kubeconfig only in its server
# URL (informerd's port, HTTPS with the apiserver's own serving certificate,
# so the kubeconfig's CA and token are unchanged), and runs the informer or
# list-then-watch loop its README shows over one namespace's ConfigMaps.
#
# Each case (one JUnit test case per client):
#   1. 20 ConfigMaps are written to a new namespace, at the apiserver;
#   2. the client lists and watches them through informerd, writes one
#      ConfigMap of its own through informerd (it passes through to the
#      apiserver with the client's token), and prints SYNCED (kopf prints
#      it at its first event and writes after step 4);
#   3. 10 creates, 20 updates and 5 deletes go to the apiserver directly,
#      then a last ConfigMap named "done";
#   4. the client prints its cache once "done" is in it.
# The case passes when that cache (name -> resourceVersion) equals the
# apiserver's LIST of the namespace, and informerd's own counters show it
# gave the initial state (a List, or a WatchList) and watch events (the reads were served from its
# cache, not passed through; informerd refuses to pass a watch through).
#
# Clients (pinned): a client-go typed SharedIndexInformer beside a dynamic
# one (go/go.mod: client-go v0.37.2, protobuf preferred as client-go asks
# for built-in types; informerd answers JSON, which it accepts), a
# controller-runtime manager with default options (v0.25.2: discovery,
# its cache cluster-wide, one controller For ConfigMaps), the
# official Python `kubernetes` package and kopf
# (python/requirements.txt: an event handler's index, and an Event kopf
# posts with its own client as its write), and @kubernetes/client-node
# (node/package.json and its package-lock.json; 1.4.0, the newest that
# runs on the machine's Node 20: 2.x needs undici 8 and Node 22.19), and a
# kube-rs reflector (rust/Cargo.toml and Cargo.lock: kube 5.0.0 with
# rustls, k8s-openapi 0.29.0), and a fabric8 SharedIndexInformer
# (java/pom.xml: kubernetes-client 8.0.0, its default Vert.x 5 HTTP client).
# informerd serves ConfigMaps, and Namespaces and CustomResourceDefinitions
# because kopf watches them for its own discovery: informerd passes no
# watch through, so an operator's informerd must serve what it watches.
#
# Usage: tests/ecosystem/run.sh [--junit PATH] [--clients python-kubernetes,kopf,client-node]
# Needs the control plane of the environment (eval "$(hack/control-plane.sh
# env)"), bazel-bin/server/informerd, kubectl from hack/install-helm.sh,
# Go, python3 (3.10 or newer), node with npm, cargo, and Java 17 with Maven.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../hack/lib.sh"

readonly here="$INFORMERD_ROOT/tests/ecosystem"
readonly informerd_bin="$INFORMERD_ROOT/bazel-bin/server/informerd"
readonly all_clients="client-go,controller-runtime,python-kubernetes,kopf,client-node,kube-rs,fabric8"

junit="" clients="$all_clients"
while (($#)); do
  case "$1" in
    --junit) junit="${2:?--junit needs a PATH}"; shift 2 ;;
    --clients) clients="${2:?--clients needs a list}"; shift 2 ;;
    *) informerd::die "unknown argument $1; usage: tests/ecosystem/run.sh [--junit PATH] [--clients $all_clients]" ;;
  esac
done
for var in INFORMERD_ADMIN_KUBECONFIG INFORMERD_CP_DIR INFORMERD_CACHE; do
  [[ -n "${!var:-}" ]] || informerd::die "$var is unset: eval \"\$(hack/control-plane.sh env)\" first"
done
[[ -x "$informerd_bin" ]] || informerd::die "$informerd_bin is missing: bazel build //server:informerd"
"$INFORMERD_ROOT/hack/install-helm.sh" >/dev/null || informerd::die "installing kubectl failed (hack/install-helm.sh)"
readonly kubectl_bin="$INFORMERD_CACHE/bin/kubectl"
command -v node >/dev/null && command -v npm >/dev/null || informerd::die "node and npm are needed for @kubernetes/client-node (preinstalled on the project's machines)"

work="$(mktemp -d)"
readonly work pid_dir="$work/pids" log_dir="$work/logs"
cleanup() {
  local client
  for client in ${all_clients//,/ }; do informerd::stop_component "$client"; done
  informerd::stop_component informerd
  rm -rf "$work"
}
trap cleanup EXIT

direct() { "$kubectl_bin" --kubeconfig "$INFORMERD_ADMIN_KUBECONFIG" "$@"; }

# --- the clients' installs, cached by the digest of their pins ----------------
digest() { informerd::digest "$@" | cut -c1-16; }

python_env() {
  local venv="$INFORMERD_CACHE/ecosystem/python-$(digest "$here/python/requirements.txt")"
  if [[ ! -x "$venv/bin/python" ]]; then
    informerd::log "installing the Python kubernetes client (python/requirements.txt) in $venv"
    rm -rf "$venv" && mkdir -p "$(dirname "$venv")"
    python3 -m venv "$venv.tmp" && "$venv.tmp/bin/pip" install -q --no-deps \
      -r "$here/python/requirements.txt" >&2 || { rm -rf "$venv.tmp"; return 1; }
    mv "$venv.tmp" "$venv"
  fi
  echo "$venv/bin/python"
}

node_env() {
  local dir="$INFORMERD_CACHE/ecosystem/node-$(digest "$here/node/package.json" "$here/node/package-lock.json")"
  if [[ ! -d "$dir/node_modules/@kubernetes/client-node" ]]; then
    informerd::log "installing @kubernetes/client-node (node/package-lock.json) in $dir"
    rm -rf "$dir" && mkdir -p "$dir"
    cp "$here/node/package.json" "$here/node/package-lock.json" "$dir/" &&
      (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2) || { rm -rf "$dir"; return 1; }
  fi
  # The script runs from the install, where its imports resolve.
  cp "$here/node/watch_configmaps.mjs" "$dir/"
  echo "$dir"
}

rust_env() {
  local cargo
  cargo="$(command -v cargo || echo "$HOME/.cargo/bin/cargo")"
  [[ -x "$cargo" ]] || { echo "cargo not found on PATH or in ~/.cargo/bin: kube-rs needs Rust (rustup, preinstalled on the project's machines)" >&2; return 1; }
  local target="$INFORMERD_CACHE/ecosystem/rust-target"
  informerd::log "building the kube-rs reflector (rust/Cargo.lock; minutes the first time) in $target"
  (cd "$here/rust" && CARGO_TARGET_DIR="$target" "$cargo" build --release --locked --quiet >&2) || return 1
  echo "$target/release/kube-rs-reflector"
}

java_env() {
  local dir="$INFORMERD_CACHE/ecosystem/java-$(digest "$here/java/pom.xml" "$here/java/src/main/java/informerd/ecosystem/Fabric8Informer.java")"
  if [[ ! -f "$dir/target/fabric8-informer-0.jar" ]]; then
    informerd::log "building the fabric8 informer (java/pom.xml) in $dir"
    rm -rf "$dir" && mkdir -p "$dir" && cp -r "$here/java/pom.xml" "$here/java/src" "$dir/" &&
      (cd "$dir" && mvn -q -B package >&2) || { rm -rf "$dir"; return 1; }
  fi
  echo "$dir"
}

# go_env [PACKAGE]: builds go/PACKAGE (default the module's root) and
# prints the binary.
go_env() {
  local package="${1:-.}"
  local binary="$INFORMERD_CACHE/ecosystem/go-$(basename "$(cd "$here/go/$package" && pwd)")"
  (cd "$here/go" && GOTOOLCHAIN=local GOFLAGS=-mod=readonly go build -o "$binary" "./$package" >&2) || return 1
  echo "$binary"
}

# client_command CLIENT NAMESPACE: sets `command` to the argv running CLIENT
# on NAMESPACE with informerd's kubeconfig ($KUBECONFIG too, for kopf).
client_command() {
  local kubeconfig="$work/informerd.kubeconfig"
  case "$1" in
    python-kubernetes)
      local py; py="$(python_env)" || return 1
      command=("$py" "$here/python/watch_configmaps.py" "$kubeconfig" "$2" "$1") ;;
    kopf)
      local py; py="$(python_env)" || return 1
      # -m: the venv was built in a temporary directory, so its scripts' shebangs point there.
      command=("$py" -m kopf run --standalone --namespace "$2" "$here/python/kopf_operator.py") ;;
    client-node)
      local dir; dir="$(node_env)" || return 1
      command=("$(command -v node)" "$dir/watch_configmaps.mjs" "$kubeconfig" "$2" "$1") ;;
    client-go)
      local binary; binary="$(go_env)" || return 1
      command=("$binary" "$kubeconfig" "$2" "$1") ;;
    controller-runtime)
      local binary; binary="$(go_env controllerruntime)" || return 1
      command=("$binary" "$kubeconfig" "$2" "$1") ;;
    kube-rs)
      local binary; binary="$(rust_env)" || return 1
      command=("$binary" "$kubeconfig" "$2" "$1") ;;
    fabric8)
      local dir; dir="$(java_env)" || return 1
      command=("$(readlink -f "$(command -v java)")" -cp "$dir/target/fabric8-informer-0.jar:$dir/target/lib/*"
               informerd.ecosystem.Fabric8Informer "$kubeconfig" "$2" "$1") ;;
    *) informerd::die "unknown client $1 (known: $all_clients)" ;;
  esac
}

# wrote CLIENT NAMESPACE: whether the apiserver has CLIENT's write through
# informerd: kopf's is an Event it posts about "done" with its own client
# (asynchronously), the others' a ConfigMap written-by-CLIENT.
wrote() {
  if [[ "$1" == kopf ]]; then
    [[ -n "$(direct get events -n "$2" --field-selector reason=Seen,involvedObject.name=done -o name)" ]]
  else
    direct get configmap -n "$2" "written-by-$1" -o name >/dev/null 2>&1
  fi
}

# --- informerd, with its Kubernetes API port over HTTPS ----------------------
grpc_port="$(informerd::free_port)" http_port="$(informerd::free_port)" kube_port="$(informerd::free_port)"
informerd::start_component informerd "$informerd_bin" \
  --kubeconfig "$INFORMERD_ADMIN_KUBECONFIG" --auth-mode=kubernetes \
  --resources=configmaps,namespaces,customresourcedefinitions.apiextensions.k8s.io \
  --tls-cert-file="$INFORMERD_CP_DIR/pki/serving.crt" --tls-key-file="$INFORMERD_CP_DIR/pki/serving.key" \
  --grpc_address="127.0.0.1:$grpc_port" --http_address="127.0.0.1:$http_port" \
  --kube-api-address="127.0.0.1:$kube_port"
ready() { curl -fs "http://127.0.0.1:$http_port/readyz" >/dev/null; }
informerd::wait_until 60 ready || informerd::die "informerd did not become ready: $(tail -n 20 "$log_dir/informerd.log")"
# The admin kubeconfig with only its server changed.
sed -E "s#^( *server: ).*#\1https://127.0.0.1:$kube_port#" "$INFORMERD_ADMIN_KUBECONFIG" >"$work/informerd.kubeconfig"
[[ "$(grep -c 'server: ' "$work/informerd.kubeconfig")" == 1 ]] ||
  informerd::die "$INFORMERD_ADMIN_KUBECONFIG has other than one server: line"

counter() { informerd::metric_sum "$http_port" "$@"; }

# listed NAMESPACE: {name: resourceVersion} of its ConfigMaps, as the apiserver LISTs them.
listed() {
  direct get configmaps -n "$1" -o json |
    python3 -c 'import json, sys; print(json.dumps({i["metadata"]["name"]: i["metadata"]["resourceVersion"] for i in json.load(sys.stdin)["items"]}, sort_keys=True))'
}

configmaps() {  # configmaps PREFIX COUNT: a List manifest of COUNT ConfigMaps
  python3 -c 'import json, sys; p, n = sys.argv[1], int(sys.argv[2]); print(json.dumps({"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "%s-%d" % (p, i), "labels": {"set": p}}, "data": {"i": str(i)}} for i in range(n)]}))' "$1" "$2"
}

# run_case CLIENT: prints nothing and returns 0 when it passes, else prints why.
run_case() {
  local client="$1" ns="ecosystem-$1-$$" command=()
  client_command "$client" "$ns" || { echo "installing $client failed"; return 1; }
  direct create namespace "$ns" >/dev/null || { echo "creating namespace $ns failed"; return 1; }
  configmaps seed 20 | direct apply -n "$ns" -f - >/dev/null || { echo "seeding $ns failed"; return 1; }
  local lists_before events_before
  # A List, or a Watch that began with the current state (client-go's
  # WatchList): either way the initial state came from informerd.
  lists_before="$(($(counter informerd_rpcs_total 'method="List"') + $(counter informerd_watch_initial_states_total)))"
  events_before="$(counter informerd_events_dispatched_total)"

  local log="$log_dir/$client.log"
  KUBECONFIG="$work/informerd.kubeconfig" ECOSYSTEM_CLIENT="$client" \
    informerd::start_component "$client" "${command[0]}" "${command[@]:1}"
  synced() { grep -q '^SYNCED' "$log" 2>/dev/null || ! informerd::component_pid "$client" >/dev/null; }
  informerd::wait_until 120 synced
  if ! grep -q '^SYNCED' "$log" 2>/dev/null; then
    echo "$client never synced: $(tail -n 30 "$log" 2>/dev/null)"
    return 1
  fi

  configmaps added 10 | direct apply -n "$ns" -f - >/dev/null &&
    direct label configmaps -n "$ns" -l set=seed changed=yes >/dev/null &&
    direct delete configmaps -n "$ns" seed-0 seed-1 seed-2 seed-3 seed-4 >/dev/null &&
    direct create configmap done -n "$ns" >/dev/null || { echo "the writes to the apiserver failed"; return 1; }

  printed() { grep -q '^CACHE ' "$log" 2>/dev/null || ! informerd::component_pid "$client" >/dev/null; }
  informerd::wait_until 60 printed
  local cache want
  cache="$(sed -n 's/^CACHE //p' "$log" | head -n 1)"
  [[ -n "$cache" ]] || { echo "$client printed no cache within 60 s of \"done\": $(tail -n 30 "$log")"; return 1; }
  want="$(listed "$ns")"
  wrote_it() { wrote "$client" "$ns"; }
  informerd::wait_until 30 wrote_it || { echo "the apiserver has no write of $client's through informerd: $(tail -n 30 "$log")"; return 1; }
  cache="$(python3 -c 'import json, sys; print(json.dumps(json.loads(sys.argv[1]), sort_keys=True))' "$cache")"
  [[ "$cache" == "$want" ]] || { printf 'cache != LIST\ncache: %s\nLIST:  %s\n' "$cache" "$want"; return 1; }
  local lists events
  lists="$(($(counter informerd_rpcs_total 'method="List"') + $(counter informerd_watch_initial_states_total)))"
  events="$(counter informerd_events_dispatched_total)"
  ((lists > lists_before && events > events_before)) ||
    { echo "informerd served $client no initial state or no watch event (Lists and initial-state Watches $lists_before -> $lists, events dispatched $events_before -> $events): its reads went elsewhere"; return 1; }
  direct delete namespace "$ns" --wait=false >/dev/null
  return 0
}

cases="" failures=0 tests=0
IFS=, read -r -a wanted <<<"$clients"
for client in "${wanted[@]}"; do
  started=$SECONDS
  informerd::log "case $client"
  if why="$(run_case "$client")"; then
    informerd::log "PASS $client ($((SECONDS - started)) s)"
    cases+="$(informerd::junit_case ecosystem "$client: cache equals the apiserver's LIST, its write passed through" $((SECONDS - started)))"$'\n'
  else
    informerd::log "FAIL $client: $why"
    cases+="$(informerd::junit_case ecosystem "$client: cache equals the apiserver's LIST, its write passed through" $((SECONDS - started)) "$client failed" "$why")"$'\n'
    failures=$((failures + 1))
  fi
  tests=$((tests + 1))
  informerd::stop_component "$client"
done
[[ -z "$junit" ]] || informerd::junit_write "$junit" ecosystem "$tests" "$failures" "$cases"
informerd::log "$((tests - failures)) passed, $failures failed"
((failures == 0))
