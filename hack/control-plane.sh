#!/usr/bin/env bash
# A real, local Kubernetes control plane for the demo and the integration
# tests: one etcd and one kube-apiserver on 127.0.0.1, no nodes, no
# controllers. Nothing schedules or runs pods; objects only live in etcd.
#
# Usage: hack/control-plane.sh up|down|env|status|restart-apiserver
#   up      start etcd and kube-apiserver and wait until /readyz says ok;
#           does nothing if they already run and are healthy
#   down    stop exactly the processes that `up` started (pid files)
#   restart-apiserver  start kube-apiserver again (e.g. after a test killed it)
#   env     print `export` lines to eval: eval "$(hack/control-plane.sh env)"
#   status  say what runs
#
# Settings (environment):
#   INFORMERD_KUBE_VERSION        1.37 (default): kube-apiserver v1.37 and
#                                 etcd v3.6, built from Go modules
#                                 (hack/build-upstream.sh); 1.20, the oldest
#                                 supported: Debian's 1.20.2 and etcd 3.4
#   INFORMERD_CP_DIR              state directory (default
#                                 ~/.cache/informerd/control-plane-VERSION)
#   INFORMERD_ETCD_CLIENT_PORT    default 23790
#   INFORMERD_ETCD_PEER_PORT      default 23800
#   INFORMERD_APISERVER_PORT      default 26443
#   INFORMERD_CP_READY_TIMEOUT    seconds `up` waits for /readyz (default 60)
#   INFORMERD_CP_NODE_IP          set by hack/node.sh only: the control plane
#                                 of a cluster with a node. kube-apiserver then
#                                 listens on every address and advertises this
#                                 one (pods reach it as the kubernetes Service,
#                                 10.0.0.1:443), keeps that Service's
#                                 endpoints, admits pods with ServiceAccount
#                                 tokens, and reaches kubelets with a client
#                                 certificate (pki/kubelet-client.*)
# The ports matter only to `up`; `env` reports the ports the running control
# plane was started with.
#
# Identities (bearer tokens in the --token-auth-file, one kubeconfig each):
#   admin     group system:masters; the identity of $KUBECONFIG
#   alice, bob, carol
#             no groups beyond system:authenticated and no RBAC grants;
#             tests grant them what they need with Roles and RoleBindings
#   certuser  authenticates with a client certificate (CN=certuser,
#             O=informerd:certusers), also without RBAC grants
#
# Pods: the ServiceAccount admission plugin is disabled, so pods can be
# created without service accounts. No kubelet ever acknowledges a deletion,
# so tests must delete pods with gracePeriodSeconds=0; otherwise they stay,
# with deletionTimestamp set, forever.
#
# Namespaces: no namespace controller runs, so a deleted namespace stays
# Terminating forever and refuses new objects. Tests should create uniquely
# named namespaces instead of deleting and recreating one. Likewise no
# garbage collector runs: ownerReferences never cascade.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

kube_version="$(informerd::kube_version)"
readonly kube_version
# One state directory per version: etcd 3.6 data cannot go back to 3.4.
readonly cp_dir="${INFORMERD_CP_DIR:-$INFORMERD_CACHE/control-plane-$kube_version}"
readonly pki_dir="$cp_dir/pki"
readonly token_dir="$cp_dir/tokens"
readonly kubeconfig_dir="$cp_dir/kubeconfig"
readonly log_dir="$cp_dir/logs"
readonly pid_dir="$cp_dir/pids"
readonly env_file="$cp_dir/env.sh"
readonly token_identities=(admin alice bob carol)
readonly node_ip="${INFORMERD_CP_NODE_IP:-}"

usage() {
  sed -n '6,12s/^# \{0,1\}//p' "$0" >&2
  exit 2
}

# --- state files -----------------------------------------------------------

# Certificates and keys are made once per state directory; a half-written
# set (an interrupted run) is never used because it is built aside first.
ensure_pki() {
  [[ -f "$pki_dir/ca.crt" ]] && return 0
  local tmp="$pki_dir.tmp"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  local log="$log_dir/openssl.log"
  {
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 \
      -subj "/CN=informerd-local-ca" -keyout "$tmp/ca.key" -out "$tmp/ca.crt"
    sign_cert "$tmp" serving "/CN=kube-apiserver" \
      "subjectAltName=IP:127.0.0.1,${node_ip:+IP:$node_ip,}DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,IP:10.0.0.1
extendedKeyUsage=serverAuth"
    sign_cert "$tmp" certuser "/O=informerd:certusers/CN=certuser" \
      "extendedKeyUsage=clientAuth"
    # What kube-apiserver shows a kubelet for logs and exec.
    sign_cert "$tmp" kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" \
      "extendedKeyUsage=clientAuth"
    openssl genrsa -out "$tmp/service-account.key" 2048
    openssl rsa -in "$tmp/service-account.key" -pubout \
      -out "$tmp/service-account.pub"
  } >"$log" 2>&1 || informerd::die "generating certificates failed; see $log"
  chmod 600 "$tmp"/*.key
  mv "$tmp" "$pki_dir"
}

# Usage: sign_cert DIR NAME SUBJECT EXTENSIONS
# Writes DIR/NAME.key and DIR/NAME.crt, signed by DIR/ca.{crt,key}.
sign_cert() {
  local dir="$1" name="$2" subject="$3" extensions="$4"
  openssl req -new -newkey rsa:2048 -nodes -subj "$subject" \
    -keyout "$dir/$name.key" -out "$dir/$name.csr"
  openssl x509 -req -in "$dir/$name.csr" -days 3650 \
    -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -set_serial "0x$(openssl rand -hex 16)" \
    -extfile <(printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\n%s\n' "$extensions") \
    -out "$dir/$name.crt"
  rm "$dir/$name.csr"
}

# Tokens are random per state directory and kept across restarts, so a
# kubeconfig handed out earlier keeps working.
ensure_tokens() {
  mkdir -p "$token_dir"
  local name
  for name in "${token_identities[@]}"; do
    [[ -s "$token_dir/$name.token" ]] && continue
    (umask 077 && openssl rand -hex 24 >"$token_dir/$name.token")
  done
  # Format: token,user,uid,"group,group"
  {
    echo "$(<"$token_dir/admin.token"),admin,admin,\"system:masters\""
    for name in alice bob carol; do
      echo "$(<"$token_dir/$name.token"),$name,$name"
    done
  } >"$token_dir/tokens.csv"
  chmod 600 "$token_dir/tokens.csv"
}

# Usage: write_kubeconfig NAME SERVER_URL USER_YAML
write_kubeconfig() {
  local name="$1" server="$2" user_yaml="$3"
  mkdir -p "$kubeconfig_dir"
  cat >"$kubeconfig_dir/$name.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: informerd-local
  cluster:
    server: $server
    certificate-authority: $pki_dir/ca.crt
users:
- name: $name
  user:
$user_yaml
contexts:
- name: $name
  context:
    cluster: informerd-local
    user: $name
current-context: $name
EOF
  chmod 600 "$kubeconfig_dir/$name.kubeconfig"
}

write_kubeconfigs() {
  local server="$1" name
  for name in "${token_identities[@]}"; do
    write_kubeconfig "$name" "$server" "    token: $(<"$token_dir/$name.token")"
  done
  write_kubeconfig certuser "$server" "    client-certificate: $pki_dir/certuser.crt
    client-key: $pki_dir/certuser.key"
}

# Usage: write_env_file SERVER_URL ETCD_URL
write_env_file() {
  local server="$1" etcd_url="$2" name upper
  {
    printf 'export KUBECONFIG=%q\n' "$kubeconfig_dir/admin.kubeconfig"
    printf 'export INFORMERD_CP_DIR=%q\n' "$cp_dir"
    # Tests run with another $HOME; this keeps them on the cached binaries.
    printf 'export INFORMERD_CACHE=%q\n' "$INFORMERD_CACHE"
    printf 'export INFORMERD_KUBE_VERSION=%q\n' "$kube_version"
    printf 'export INFORMERD_APISERVER_URL=%q\n' "$server"
    printf 'export INFORMERD_ETCD_URL=%q\n' "$etcd_url"
    printf 'export INFORMERD_CA_FILE=%q\n' "$pki_dir/ca.crt"
    for name in "${token_identities[@]}" certuser; do
      upper="${name^^}"
      printf 'export INFORMERD_%s_KUBECONFIG=%q\n' "$upper" \
        "$kubeconfig_dir/$name.kubeconfig"
    done
    for name in "${token_identities[@]}"; do
      upper="${name^^}"
      printf 'export INFORMERD_%s_TOKEN_FILE=%q\n' "$upper" "$token_dir/$name.token"
    done
    printf 'export INFORMERD_CERTUSER_CERT_FILE=%q\n' "$pki_dir/certuser.crt"
    printf 'export INFORMERD_CERTUSER_KEY_FILE=%q\n' "$pki_dir/certuser.key"
  } >"$env_file"
}

# --- processes -------------------------------------------------------------

port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# Usage: fail_start NAME MESSAGE; shows the end of NAME's log, then exits.
fail_start() {
  local name="$1" message="$2"
  informerd::log "$message; last lines of $log_dir/$name.log:"
  tail -n 30 "$log_dir/$name.log" >&2 || true
  stop_all
  exit 1
}

stop_all() {
  informerd::stop_component kube-apiserver
  informerd::stop_component etcd
}

etcd_healthy() {
  curl -fsS --max-time 2 "$1/health" 2>/dev/null | grep -q '"health":"true"'
}

# Usage: apiserver_ready SERVER_URL
apiserver_ready() {
  [[ "$(curl -sS --max-time 5 --cacert "$pki_dir/ca.crt" \
    -H "Authorization: Bearer $(<"$token_dir/admin.token")" \
    "$1/readyz" 2>/dev/null)" == ok ]]
}

# Usage: alive_and NAME COMMAND...; fails fast when NAME has died.
alive_and() {
  local name="$1"
  shift
  informerd::component_pid "$name" >/dev/null || fail_start "$name" "$name exited during startup"
  "$@"
}

running_server_url() {
  [[ -f "$env_file" ]] || return 1
  (source "$env_file" && echo "$INFORMERD_APISERVER_URL")
}

# Usage: start_apiserver BINARY SERVER_URL ETCD_URL
start_apiserver() {
  local apiserver_bin="$1" server="$2" etcd_url="$3"
  local apiserver_port="${server##*:}"
  informerd::log "starting kube-apiserver $("$apiserver_bin" --version | awk '{print $2}')" \
    "on $server (log: $log_dir/kube-apiserver.log)"
  # The service account flags are required by 1.20 (the TokenRequest API
  # signs with the signing key); --api-audiences defaults to the issuer.
  # Without a node (INFORMERD_CP_NODE_IP) no controller manager runs, so
  # ServiceAccount admission would reject every pod for want of a default
  # service account; it is disabled. Since 1.3x the endpoint reconciler
  # refuses a loopback advertise address; no pod ever uses the kubernetes
  # Service's endpoints then, so it is off.
  local -a address_flags
  if [[ -n "$node_ip" ]]; then
    address_flags=(--bind-address 0.0.0.0 --advertise-address "$node_ip"
      --endpoint-reconciler-type lease
      --kubelet-client-certificate "$pki_dir/kubelet-client.crt"
      --kubelet-client-key "$pki_dir/kubelet-client.key"
      --kubelet-preferred-address-types InternalIP)
  else
    address_flags=(--bind-address 127.0.0.1 --advertise-address 127.0.0.1
      --endpoint-reconciler-type none --disable-admission-plugins ServiceAccount)
  fi
  informerd::start_component kube-apiserver "$apiserver_bin" \
    --etcd-servers "$etcd_url" \
    "${address_flags[@]}" \
    --secure-port "$apiserver_port" \
    --tls-cert-file "$pki_dir/serving.crt" \
    --tls-private-key-file "$pki_dir/serving.key" \
    --cert-dir "$pki_dir" \
    --client-ca-file "$pki_dir/ca.crt" \
    --token-auth-file "$token_dir/tokens.csv" \
    --authorization-mode Node,RBAC \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$pki_dir/service-account.pub" \
    --service-account-signing-key-file "$pki_dir/service-account.key" \
    --allow-privileged=true \
    --service-cluster-ip-range 10.0.0.0/24 \
    --enable-priority-and-fairness=false
}

# --- commands --------------------------------------------------------------

cmd_up() {
  local server
  if informerd::component_pid etcd >/dev/null && informerd::component_pid kube-apiserver >/dev/null &&
    server="$(running_server_url)" && apiserver_ready "$server"; then
    informerd::log "already running at $server (state: $cp_dir)"
    return 0
  fi
  # Whatever is left of an earlier, broken start goes first.
  stop_all
  # etcd's data and the apiserver's storage versions belong to one version.
  if [[ -d "$cp_dir/etcd-data" && -f "$cp_dir/kube-version" &&
    "$(<"$cp_dir/kube-version")" != "$kube_version" ]]; then
    informerd::die "$cp_dir holds the data of Kubernetes $(<"$cp_dir/kube-version")," \
      "not $kube_version; remove $cp_dir/etcd-data or choose another INFORMERD_CP_DIR"
  fi

  local etcd_client_port="${INFORMERD_ETCD_CLIENT_PORT:-23790}"
  local etcd_peer_port="${INFORMERD_ETCD_PEER_PORT:-23800}"
  local apiserver_port="${INFORMERD_APISERVER_PORT:-26443}"
  local timeout="${INFORMERD_CP_READY_TIMEOUT:-60}"
  local port
  for port in "$etcd_client_port" "$etcd_peer_port" "$apiserver_port"; do
    port_in_use "$port" && informerd::die "port $port on 127.0.0.1 is taken" \
      "by another process; choose other ports with INFORMERD_ETCD_CLIENT_PORT," \
      "INFORMERD_ETCD_PEER_PORT, INFORMERD_APISERVER_PORT"
  done

  local apiserver_bin etcd_bin
  apiserver_bin="$(informerd::apiserver_binary)"
  etcd_bin="$(informerd::etcd_binary)"

  mkdir -p "$cp_dir" "$log_dir"
  echo "$kube_version" >"$cp_dir/kube-version"
  ensure_pki
  ensure_tokens
  local etcd_url="http://127.0.0.1:$etcd_client_port"
  local peer_url="http://127.0.0.1:$etcd_peer_port"
  server="https://127.0.0.1:$apiserver_port"
  write_kubeconfigs "$server"

  informerd::log "starting etcd $("$etcd_bin" --version | awk '/etcd Version/ {print $3}')" \
    "on $etcd_url (log: $log_dir/etcd.log)"
  informerd::start_component etcd "$etcd_bin" \
    --name informerd \
    --data-dir "$cp_dir/etcd-data" \
    --listen-client-urls "$etcd_url" --advertise-client-urls "$etcd_url" \
    --listen-peer-urls "$peer_url" --initial-advertise-peer-urls "$peer_url" \
    --initial-cluster "informerd=$peer_url" --initial-cluster-state new \
    --logger zap --log-outputs stderr
  informerd::wait_until 30 alive_and etcd etcd_healthy "$etcd_url" ||
    fail_start etcd "etcd not healthy after 30s"

  start_apiserver "$apiserver_bin" "$server" "$etcd_url"
  informerd::wait_until "$timeout" alive_and kube-apiserver apiserver_ready "$server" ||
    fail_start kube-apiserver "kube-apiserver not ready after ${timeout}s"

  write_env_file "$server" "$etcd_url"
  informerd::log "ready: $server (state: $cp_dir)"
}

cmd_down() {
  stop_all
  informerd::log "stopped (state kept in $cp_dir)"
}

# Starts kube-apiserver again (same state, ports and flags) if it is not
# running, e.g. after a test killed it; etcd keeps running.
cmd_restart_apiserver() {
  informerd::component_pid etcd >/dev/null && [[ -f "$env_file" ]] ||
    informerd::die "no control plane runs in $cp_dir; run: hack/control-plane.sh up"
  local server etcd_url timeout="${INFORMERD_CP_READY_TIMEOUT:-60}"
  server="$(source "$env_file" && echo "$INFORMERD_APISERVER_URL")"
  etcd_url="$(source "$env_file" && echo "$INFORMERD_ETCD_URL")"
  informerd::stop_component kube-apiserver
  start_apiserver "$(informerd::apiserver_binary)" "$server" "$etcd_url"
  informerd::wait_until "$timeout" alive_and kube-apiserver apiserver_ready "$server" ||
    fail_start kube-apiserver "kube-apiserver not ready after ${timeout}s"
  informerd::log "kube-apiserver restarted at $server"
}

cmd_env() {
  informerd::component_pid kube-apiserver >/dev/null && [[ -f "$env_file" ]] ||
    informerd::die "no control plane runs in $cp_dir; run: hack/control-plane.sh up"
  cat "$env_file"
}

cmd_status() {
  local name pid server
  for name in etcd kube-apiserver; do
    if pid="$(informerd::component_pid "$name")"; then
      echo "$name: running (pid $pid, log $log_dir/$name.log)"
    else
      echo "$name: stopped"
    fi
  done
  if informerd::component_pid kube-apiserver >/dev/null && server="$(running_server_url)"; then
    if apiserver_ready "$server"; then
      echo "apiserver: ready at $server"
    else
      echo "apiserver: not ready at $server"
    fi
  fi
  echo "state: $cp_dir"
}

(($# == 1)) || usage
case "$1" in
  up) cmd_up ;;
  down) cmd_down ;;
  restart-apiserver) cmd_restart_apiserver ;;
  env) cmd_env ;;
  status) cmd_status ;;
  *) usage ;;
esac
