#!/usr/bin/env bash
# A one-node Kubernetes 1.37 cluster on this machine, for the tests that need
# pods (tests/node): its own etcd and kube-apiserver (hack/control-plane.sh
# with INFORMERD_CP_NODE_IP), kube-controller-manager, kube-scheduler, a
# kubelet with containerd, runc and the CNI bridge, kube-proxy, and CoreDNS
# so that Service names resolve in pods. Everything it starts and every
# network interface, mount and iptables chain it makes, `down` removes.
#
# Usage: hack/node.sh up|down|env|status|build
#   up      start everything and wait until the node is Ready and DNS
#           answers; does nothing if it all runs
#   build   only build (or find cached) the node's binaries
#   down    stop it all and clean up the host (containers, mounts, links)
#   env     print `export` lines to eval (those of control-plane.sh env,
#           plus INFORMERD_NODE_* below)
#   status  say what runs
#
# Settings (environment):
#   INFORMERD_NODE_DIR   state directory (default ~/.cache/informerd/node);
#                        the runtime's images stay there across runs
#   INFORMERD_NODE_IP    the node's address (default 10.213.0.1), added to
#                        the loopback link so that it is the same on every
#                        machine; pods reach the apiserver and DNS there
#   INFORMERD_NODE_ETCD_CLIENT_PORT, INFORMERD_NODE_ETCD_PEER_PORT,
#   INFORMERD_NODE_APISERVER_PORT  (default 22790, 22800, 22443)
#
# Versions and sources: kubelet, kube-proxy, kube-scheduler and
# kube-controller-manager v1.37 from the same wrapper module as
# kube-apiserver (hack/build-upstream.sh), CoreDNS from Go modules
# (hack/upstream/coredns), containerd, runc and the CNI plugins from Debian,
# the pause image from hack/node/pause. What differs from a production
# cluster is in docs/DECISIONS.md ("The test node").
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly node_dir="${INFORMERD_NODE_DIR:-$INFORMERD_CACHE/node}"
readonly node_ip="${INFORMERD_NODE_IP:-10.213.0.1}"
readonly node_name=informerd-node
readonly bridge=informerd-cni0
readonly pod_cidr=10.214.0.0/24
readonly cluster_domain=cluster.local
readonly pause_image=informerd.local/pause:1
readonly run_dir=/run/informerd-node
readonly containerd_sock="$run_dir/containerd/containerd.sock"
readonly pid_dir="$node_dir/pids"
readonly log_dir="$node_dir/logs"
readonly kubelet_dir="$node_dir/kubelet"
readonly cp_dir="$node_dir/control-plane"
readonly env_file="$node_dir/env.sh"

export INFORMERD_KUBE_VERSION=1.37
export INFORMERD_CP_DIR="$cp_dir"
export INFORMERD_CP_NODE_IP="$node_ip"
export INFORMERD_ETCD_CLIENT_PORT="${INFORMERD_NODE_ETCD_CLIENT_PORT:-22790}"
export INFORMERD_ETCD_PEER_PORT="${INFORMERD_NODE_ETCD_PEER_PORT:-22800}"
export INFORMERD_APISERVER_PORT="${INFORMERD_NODE_APISERVER_PORT:-22443}"

# Debian packages of the node: containerd (1.6; kubelet 1.37 still falls back
# to its own cgroupDriver for runtimes without the RuntimeConfig call), runc,
# the CNI plugins, what kubelet and kube-proxy call on the host, and buildah
# for the pause image.
readonly node_packages=(containerd runc containernetworking-plugins iptables conntrack
  ethtool socat ebtables kmod mount util-linux buildah)
readonly node_components=(kube-proxy kubelet kube-scheduler kube-controller-manager coredns
  containerd)

usage() {
  sed -n '9,16s/^# \{0,1\}//p' "$0" >&2
  exit 2
}

control_plane() { "$INFORMERD_ROOT/hack/control-plane.sh" "$@"; }


# The host as kubelet and kube-proxy need it: forwarding, bridged traffic
# through iptables (Services between pods of one bridge), the node's address.
prepare_host() {
  [[ "$(id -u)" == 0 ]] || informerd::die "the node needs root (containers, mounts, iptables)"
  [[ -d /sys/fs/cgroup/memory && -d /sys/fs/cgroup/cpu ]] ||
    informerd::die "no cgroup v1 memory and cpu hierarchies under /sys/fs/cgroup; the node's kubelet uses cgroupfs on cgroup v1"
  echo 1 >/proc/sys/net/ipv4/ip_forward
  if [[ ! -e /proc/sys/net/bridge/bridge-nf-call-iptables ]]; then
    modprobe br_netfilter 2>/dev/null ||
      informerd::die "the kernel lacks br_netfilter (/proc/sys/net/bridge); Services between pods need it"
  fi
  echo 1 >/proc/sys/net/bridge/bridge-nf-call-iptables
  # On the loopback link: kernels without the dummy driver have it, and a
  # local address is reachable from the pods' bridge all the same.
  ip -o addr show dev lo | grep -qF " $node_ip/32 " || ip addr add "$node_ip/32" dev lo
  mkdir -p "$run_dir" "$node_dir/cni/net.d" "$node_dir/cni/ipam" "$kubelet_dir" "$log_dir"
}

write_configs() {
  local pki="$cp_dir/pki" kubeconfig="$cp_dir/kubeconfig/admin.kubeconfig"
  cat >"$node_dir/containerd.toml" <<EOF
version = 2
root = "$node_dir/containerd"
state = "$run_dir/containerd"
[grpc]
  address = "$containerd_sock"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$pause_image"
  # kubelet asks for negative OOM scores (-998 for sandboxes), which a
  # sandboxed machine's root may not set (runc fails with "can't get final
  # child's PID"); clamped to containerd's own score instead.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$node_dir/cni/net.d"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        BinaryName = "/usr/sbin/runc"
        SystemdCgroup = false
EOF
  cat >"$node_dir/cni/net.d/10-informerd.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "informerd-node",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$bridge",
      "isGateway": true,
      "ipMasq": true,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{"subnet": "$pod_cidr"}]],
        "routes": [{"dst": "0.0.0.0/0"}],
        "dataDir": "$node_dir/cni/ipam"
      }
    },
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
EOF
  # The pods' resolver is CoreDNS on the node's address; names outside the
  # cluster have nowhere to go from this machine.
  echo "nameserver $node_ip" >"$node_dir/resolv.conf"
  cat >"$node_dir/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
# This machine has cgroup v1 only and no systemd; kubelet 1.35+ refuses
# cgroup v1 unless told (docs/DECISIONS.md).
failCgroupV1: false
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix://$containerd_sock
address: $node_ip
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $pki/ca.crt}
authorization:
  mode: Webhook
clusterDNS: [$node_ip]
clusterDomain: $cluster_domain
resolvConf: $node_dir/resolv.conf
failSwapOn: false
# A test machine's disk may be fuller than a node's would be: evict only
# when it is really short, and never collect the imported images (no
# registry could give them back).
evictionHard: {memory.available: 100Mi, nodefs.available: 1%, imagefs.available: 1%, nodefs.inodesFree: 1%}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
serializeImagePulls: false
maxPods: 110
EOF
  cat >"$node_dir/Corefile" <<EOF
$cluster_domain:53 in-addr.arpa:53 {
  bind $node_ip
  errors
  ready 127.0.0.1:22181
  health 127.0.0.1:22180
  kubernetes $cluster_domain in-addr.arpa {
    kubeconfig $kubeconfig
    pods insecure
  }
  cache 5
}
.:53 {
  bind $node_ip
  errors
}
EOF
}

# --- waiting --------------------------------------------------------------

alive_and() {
  local name="$1"
  shift
  informerd::component_pid "$name" >/dev/null || fail_start "$name" "$name exited during startup"
  "$@"
}

fail_start() {
  local name="$1" message="$2"
  informerd::log "$message; last lines of $log_dir/$name.log:"
  tail -n 30 "$log_dir/$name.log" >&2 || true
  cmd_down
  exit 1
}

ctr_k8s() { ctr --address "$containerd_sock" --namespace k8s.io "$@"; }
containerd_ready() { ctr --address "$containerd_sock" version >/dev/null 2>&1; }
kubectl_admin() { "$INFORMERD_CACHE/bin/kubectl" --kubeconfig "$cp_dir/kubeconfig/admin.kubeconfig" "$@"; }
node_ready() {
  [[ "$(kubectl_admin get node "$node_name" \
    -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" == True ]]
}
dns_ready() {
  [[ "$(curl -sS --max-time 2 http://127.0.0.1:22181/ready 2>/dev/null)" == OK ]]
}
pause_image_present() { ctr_k8s images check "name==$pause_image" 2>/dev/null | grep -q complete; }

# The pause image: hack/node/pause's static binary alone, committed by
# buildah and imported into the runtime (docker-archive).
ensure_pause_image() {
  pause_image_present && return 0
  local go work container
  go="$(informerd::newest_go)"
  work="$(mktemp -d)"
  (cd "$INFORMERD_ROOT/hack/node/pause" && GOTOOLCHAIN=local CGO_ENABLED=0 \
    "$go" build -trimpath -ldflags "-s -w" -o "$work/pause" .) ||
    informerd::die "building hack/node/pause failed"
  {
    container="$(buildah from scratch)" &&
      buildah copy "$container" "$work/pause" /pause &&
      buildah config --entrypoint '["/pause"]' "$container" &&
      buildah commit --rm "$container" "$pause_image" &&
      buildah push "$pause_image" "docker-archive:$work/pause.tar:$pause_image"
  } >"$log_dir/pause-image.log" 2>&1 ||
    informerd::die "making the pause image failed; see $log_dir/pause-image.log"
  ctr_k8s images import "$work/pause.tar" >>"$log_dir/pause-image.log" 2>&1 ||
    informerd::die "importing the pause image into containerd failed; see $log_dir/pause-image.log"
  rm -rf "$work"
}

# --- up / down ------------------------------------------------------------

# The node's binaries from Go modules (hack/build-upstream.sh, cached by
# version); kube-apiserver and etcd come with the control plane.
readonly node_binaries=(kubelet kube-proxy kube-scheduler kube-controller-manager coredns)

# Usage: node_binary NAME; prints its path, building it the first time.
node_binary() {
  "$INFORMERD_ROOT/hack/build-upstream.sh" "$1" || informerd::die "building $1 failed"
}

cmd_build() {
  local name
  for name in "${node_binaries[@]}"; do
    node_binary "$name" >/dev/null
  done
}

cmd_up() {
  if informerd::component_pid kubelet >/dev/null && node_ready 2>/dev/null && dns_ready; then
    informerd::log "already running (state: $node_dir)"
    return 0
  fi
  mkdir -p "$node_dir"
  informerd::ensure_packages "$node_dir/apt.log" "${node_packages[@]}"
  "$INFORMERD_ROOT/hack/install-helm.sh" >/dev/null
  local kubelet_bin proxy_bin scheduler_bin cm_bin coredns_bin
  kubelet_bin="$(node_binary kubelet)"
  proxy_bin="$(node_binary kube-proxy)"
  scheduler_bin="$(node_binary kube-scheduler)"
  cm_bin="$(node_binary kube-controller-manager)"
  coredns_bin="$(node_binary coredns)"

  cmd_down_quiet
  prepare_host
  control_plane up
  write_configs
  local kubeconfig="$cp_dir/kubeconfig/admin.kubeconfig" pki="$cp_dir/pki"

  informerd::log "starting containerd $(containerd --version | awk '{print $3}') (log: $log_dir/containerd.log)"
  informerd::start_component containerd "$(command -v containerd)" --config "$node_dir/containerd.toml"
  informerd::wait_until 30 alive_and containerd containerd_ready ||
    fail_start containerd "containerd not answering after 30s"
  ensure_pause_image

  informerd::log "starting kube-controller-manager, kube-scheduler, CoreDNS (logs in $log_dir)"
  # The controllers a chart needs: Deployments, ReplicaSets, the PDB's
  # disruption controller, garbage collection, namespaces, ServiceAccounts
  # and the kube-root-ca.crt ConfigMap that projected tokens mount.
  informerd::start_component kube-controller-manager "$cm_bin" \
    --kubeconfig "$kubeconfig" --authentication-kubeconfig "$kubeconfig" \
    --authorization-kubeconfig "$kubeconfig" \
    --bind-address 127.0.0.1 --secure-port 22257 --leader-elect=false \
    --root-ca-file "$pki/ca.crt" --service-account-private-key-file "$pki/service-account.key" \
    --use-service-account-credentials=false --cluster-name informerd-node \
    --controllers '*,-nodeipam,-bootstrapsigner,-tokencleaner,-csrsigning,-csrapproving'
  informerd::start_component kube-scheduler "$scheduler_bin" \
    --kubeconfig "$kubeconfig" --authentication-kubeconfig "$kubeconfig" \
    --authorization-kubeconfig "$kubeconfig" \
    --bind-address 127.0.0.1 --secure-port 22259 --leader-elect=false
  informerd::start_component coredns "$coredns_bin" -conf "$node_dir/Corefile"

  informerd::log "starting kubelet and kube-proxy as node $node_name at $node_ip"
  informerd::start_component kubelet "$kubelet_bin" \
    --config "$node_dir/kubelet.yaml" --kubeconfig "$kubeconfig" \
    --root-dir "$kubelet_dir" --cert-dir "$kubelet_dir/pki" \
    --hostname-override "$node_name" --node-ip "$node_ip" \
    --v 1
  informerd::start_component kube-proxy "$proxy_bin" \
    --kubeconfig "$kubeconfig" --hostname-override "$node_name" \
    --proxy-mode iptables --cluster-cidr "$pod_cidr" \
    --bind-address "$node_ip" --metrics-bind-address 127.0.0.1:22249 \
    --healthz-bind-address 127.0.0.1:22256 --conntrack-max-per-core 0 \
    --nodeport-addresses primary

  informerd::wait_until 120 alive_and kubelet node_ready ||
    fail_start kubelet "node $node_name not Ready after 120s"
  informerd::wait_until 60 alive_and coredns dns_ready ||
    fail_start coredns "CoreDNS not ready after 60s"
  for name in kube-proxy kube-scheduler kube-controller-manager; do
    informerd::component_pid "$name" >/dev/null || fail_start "$name" "$name exited during startup"
  done
  {
    control_plane env
    printf 'export INFORMERD_NODE_DIR=%q\n' "$node_dir"
    printf 'export INFORMERD_NODE_NAME=%q\n' "$node_name"
    printf 'export INFORMERD_NODE_IP=%q\n' "$node_ip"
    printf 'export INFORMERD_NODE_CONTAINERD_SOCK=%q\n' "$containerd_sock"
  } >"$env_file"
  informerd::log "node $node_name Ready (state: $node_dir)"
}

# Stops every component, then removes what pods left on the host. Each step
# is tried even when an earlier one failed: a half-started node must go too.
cmd_down_quiet() {
  local name pid
  for name in kube-proxy kubelet kube-scheduler kube-controller-manager coredns; do
    informerd::stop_component "$name"
  done
  if informerd::component_pid containerd >/dev/null; then
    # Sandboxes and containers first, so that no shim outlives containerd.
    local id
    for id in $(ctr_k8s tasks ls -q 2>/dev/null); do
      ctr_k8s tasks kill -s SIGKILL "$id" >/dev/null 2>&1 || true
    done
    for id in $(ctr_k8s tasks ls -q 2>/dev/null); do
      informerd::wait_until 10 task_stopped "$id" || true
      ctr_k8s tasks delete -f "$id" >/dev/null 2>&1 || true
    done
    for id in $(ctr_k8s containers ls -q 2>/dev/null); do
      ctr_k8s containers delete "$id" >/dev/null 2>&1 || true
    done
  fi
  informerd::stop_component containerd
  # Shims of containerd's address that a killed containerd left behind.
  for pid in $(pgrep -f "containerd-shim-runc-v2 .*-address $containerd_sock" 2>/dev/null); do
    kill -KILL "$pid" 2>/dev/null || true
  done
  # Mounts under the node's directories, deepest first.
  local mounts
  mounts="$(awk -v a="$kubelet_dir" -v b="$run_dir" -v c="$node_dir/containerd" \
    'index($2, a) == 1 || index($2, b) == 1 || index($2, c) == 1 {print $2}' /proc/mounts | sort -r)"
  for name in $mounts; do
    umount -l "$name" 2>/dev/null || true
  done
  local ns
  for ns in /var/run/netns/cni-*; do
    [[ -e "$ns" ]] || continue
    ip netns delete "$(basename "$ns")" 2>/dev/null || true
  done
  ip link delete "$bridge" 2>/dev/null || true
  ip addr del "$node_ip/32" dev lo 2>/dev/null || true
  cleanup_iptables
  rm -rf "$node_dir/cni/ipam" "$run_dir"
  control_plane down >/dev/null 2>&1 || true
  rm -rf "$cp_dir/etcd-data" "$cp_dir/logs"
}

task_stopped() {
  ! ctr_k8s tasks ls 2>/dev/null | awk -v id="$1" '$1 == id && $3 == "RUNNING"' | grep -q .
}

# kube-proxy's chains (KUBE-*) and the CNI plugins' (CNI-*), in every table.
cleanup_iptables() {
  local table chain rule rules chains
  for table in nat filter mangle; do
    rules="$(iptables -t "$table" -S 2>/dev/null | grep -E -- '-j (KUBE|CNI)-' || true)"
    while read -r rule; do
      [[ -n "$rule" ]] || continue
      eval "iptables -t $table ${rule/#-A /-D }" 2>/dev/null || true
    done <<<"$rules"
    chains="$(iptables -t "$table" -S 2>/dev/null |
      awk '$1 == "-N" && $2 ~ /^(KUBE|CNI)-/ {print $2}' || true)"
    for chain in $chains; do
      iptables -t "$table" -F "$chain" 2>/dev/null || true
    done
    for chain in $chains; do
      iptables -t "$table" -X "$chain" 2>/dev/null || true
    done
  done
}

cmd_down() {
  cmd_down_quiet
  informerd::log "stopped; host cleaned (state kept in $node_dir)"
}

cmd_env() {
  informerd::component_pid kubelet >/dev/null && [[ -f "$env_file" ]] ||
    informerd::die "no node runs in $node_dir; run: hack/node.sh up"
  cat "$env_file"
}

cmd_status() {
  local name pid
  control_plane status
  for name in "${node_components[@]}"; do
    if pid="$(informerd::component_pid "$name")"; then
      echo "$name: running (pid $pid, log $log_dir/$name.log)"
    else
      echo "$name: stopped"
    fi
  done
}

(($# == 1)) || usage
case "$1" in
  up) cmd_up ;;
  build) cmd_build ;;
  down) cmd_down ;;
  env) cmd_env ;;
  status) cmd_status ;;
  *) usage ;;
esac
