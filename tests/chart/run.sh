#!/usr/bin/env bash
# Tests of the Helm chart (charts/informerd) and of deploy/Dockerfile; each
# check is one JUnit test case. Exits non-zero if any check failed.
#
# Usage: tests/chart/run.sh [--junit PATH]
#
# Without a cluster:
#   helm lint --strict and helm template of each values set in
#   tests/chart/values/, with render_checks.py on the result; the values
#   schema refusing bad values; dockerfile_libs_test.py.
# Against the control plane of the environment
# (eval "$(hack/control-plane.sh env)"), reported skipped without one:
#   every object of every values set through the API server's dry run;
#   the generated certificate kept across upgrades (lookup), and renewed
#   with the same CA near its end;
#   the RBAC proof: the chart's ServiceAccount and (Cluster)Roles applied
#   for real, bazel-bin/server/informerd run locally with the Deployment's
#   own flags (tests/chart/local_command.py: --auth-mode=kubernetes, TLS
#   with the chart's generated certificate, gRPC on 0.0.0.0:50064, HTTP
#   127.0.0.1:8084), a token of that ServiceAccount and the chart's
#   rendered config; /readyz must turn ok (every resource synced), the helm
#   test's informerctl command must pass with the token over TLS, and the
#   token must be refused what the chart does not grant;
#   the tier proof: the leaf set's ServiceAccount and RBAC applied for real
#   in a namespace of its own, and a leaf informerd run locally with the
#   leaf Deployment's flags and the leaf ConfigMap's upstream keys (mapped
#   to that root on localhost:50064, its CA and a token of the leaf's
#   ServiceAccount; gRPC 0.0.0.0:50065, HTTP 127.0.0.1:8085): the leaf
#   turns ready only if the root's SubjectAccessReviews allow the leaf's
#   grants, and an object written to the API server reaches it.
#
# The binaries come from Bazel (bazel build //server:informerd
# //client/cpp:informerctl); helm and kubectl from hack/install-helm.sh.
# Every run uses new namespaces (suffix: time and pid), as no namespace
# controller ever finishes deleting one on the test control plane.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../hack/lib.sh"

readonly chart="$INFORMERD_ROOT/charts/informerd"
readonly here="$INFORMERD_ROOT/tests/chart"
readonly informerd_bin="$INFORMERD_ROOT/bazel-bin/server/informerd"
readonly informerctl_bin="$INFORMERD_ROOT/bazel-bin/client/cpp/informerctl"
readonly grpc_port=50064
readonly grpc_address=127.0.0.1:$grpc_port
readonly http_address=127.0.0.1:8084
readonly leaf_grpc_port=50065
readonly leaf_http_address=127.0.0.1:8085
readonly value_sets=(default namespaced tls https auth open plaintext-tokens cert-manager
  monitoring custom leaf leaf-namespaced leaf-plaintext)
readonly release=t
readonly fullname=t-informerd

junit=""
while (($#)); do
  case "$1" in
    --junit)
      (($# >= 2)) || informerd::die "--junit needs a PATH"
      junit="$2"
      shift 2
      ;;
    *) informerd::die "unknown argument $1; usage: tests/chart/run.sh [--junit PATH]" ;;
  esac
done

work="$(mktemp -d)"
readonly work
suffix="$(date +%s)-$$"
readonly suffix
# Cluster-scoped objects the checks created, one kind/name per line.
readonly cluster_objects="$work/cluster-objects"

cleanup() {
  local pid_file
  for pid_file in "$work/leaf/informerd.pid" "$work/informerd.pid"; do
    if [[ -f "$pid_file" ]]; then
      informerd::pid_runs "$(<"$pid_file")" "$informerd_bin" &&
        informerd::stop_pid "$(<"$pid_file")" 10
    fi
  done
  # Cluster-scoped grants would otherwise pile up across runs.
  if [[ -s "$cluster_objects" ]]; then
    xargs "$kubectl" delete --ignore-not-found <"$cluster_objects" >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

bin_dir="$("$INFORMERD_ROOT/hack/install-helm.sh")" || informerd::die "installing helm failed"
readonly helm="$bin_dir/helm" kubectl="$bin_dir/kubectl"

# --- test cases --------------------------------------------------------------

# One line per case: STATUS<TAB>NAME<TAB>SECONDS<TAB>LOG
readonly cases="$work/cases.tsv"
: >"$cases"
case_count=0

# Usage: run_case NAME COMMAND...
# Runs COMMAND in a subshell with errexit, so any failing step fails the
# case; its output goes to the case's log. The subshell must not be part of
# a || or && list: bash would then ignore errexit inside it.
run_case() {
  local name="$1"
  shift
  local log="$work/case-$((++case_count)).log" start="$SECONDS" status=passed
  (set -e; "$@") >"$log" 2>&1
  # shellcheck disable=SC2181  # deliberately not `if (...)`: see above
  (($? == 0)) || status=failed
  printf '%s\t%s\t%s\t%s\n' "$status" "$name" "$((SECONDS - start))" "$log" >>"$cases"
  echo "[$status] $name"
  if [[ "$status" == failed ]]; then
    tail -n 20 "$log" | sed 's/^/    /'
  fi
}

# Usage: skip_case NAME REASON
skip_case() {
  local log="$work/case-$((++case_count)).log"
  echo "$2" >"$log"
  printf 'skipped\t%s\t0\t%s\n' "$1" "$log" >>"$cases"
  echo "[skipped] $1: $2"
}

xml_escape() {
  tr -d '\000-\010\013\014\016-\037' |
    sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g'
}

write_junit() {
  local path="$1" total failed skipped status name seconds log
  total="$(wc -l <"$cases")"
  failed="$(grep -c '^failed' "$cases")"
  skipped="$(grep -c '^skipped' "$cases")"
  mkdir -p "$(dirname "$path")"
  {
    echo '<?xml version="1.0" encoding="UTF-8"?>'
    echo "<testsuites><testsuite name=\"chart\" tests=\"$total\" failures=\"$failed\" skipped=\"$skipped\">"
    while IFS=$'\t' read -r status name seconds log; do
      printf '<testcase classname="chart" name="%s" time="%s">' \
        "$(xml_escape <<<"$name")" "$seconds"
      case "$status" in
        failed) printf '<failure message="failed">%s</failure>' "$(tail -n 200 "$log" | xml_escape)" ;;
        skipped) printf '<skipped message="%s"/>' "$(xml_escape <"$log")" ;;
      esac
      printf '<system-out>%s</system-out></testcase>\n' "$(tail -n 200 "$log" | xml_escape)"
    done <"$cases"
    echo '</testsuite></testsuites>'
  } >"$path"
}

# --- offline checks ----------------------------------------------------------

lint_set() {
  "$helm" lint --strict "$chart" -f "$here/values/$1.yaml"
}

template_set() {
  local set="$1" out="$work/template-$1.yaml"
  "$helm" template "$release" "$chart" --namespace rel -f "$here/values/$set.yaml" >"$out"
  python3 "$here/render_checks.py" "$set" "$out" rel
}

# Usage: expect_refused EXPECTED_MESSAGE HELM_ARGS...
# helm template must fail, saying EXPECTED_MESSAGE (a path or the reason).
expect_refused() {
  local expected="$1" output
  shift
  if output="$("$helm" template "$release" "$chart" "$@" 2>&1)"; then
    echo "helm template $* succeeded; it must be refused"
    return 1
  fi
  echo "$output"
  grep -qF -- "$expected" <<<"$output" || {
    echo "the refusal does not say: $expected"
    return 1
  }
}

# notes_hold VALUES_FILES WANT...: prints the NOTES of a dry-run install
# (in namespace rel) with the values files VALUES_FILES (space-separated,
# under tests/chart/values) and fails naming the first WANT they lack.
notes_hold() {
  local values=() file notes want
  for file in $1; do values+=(-f "$here/values/$file"); done
  shift
  notes="$("$helm" install "$release" "$chart" --namespace rel --dry-run=client "${values[@]}" |
    sed -n '/^NOTES:/,$p')"
  echo "$notes"
  for want in "$@"; do
    grep -qF -- "$want" <<<"$notes" || {
      echo "NOTES lack: $want"
      return 1
    }
  done
}

# A leaf's NOTES name the root it reads and what that root must allow.
notes_name_the_root() {
  notes_hold leaf.yaml "serves from the informerd at" "grpcs://informerd-root.informerd.svc:50051" \
    "($fullname in rel) list and watch them"
}

# A changed config must change the pod template, so pods roll.
config_change_rolls_pods() {
  local before after
  before="$("$helm" template "$release" "$chart" -s templates/deployment.yaml | grep checksum/config)"
  after="$("$helm" template "$release" "$chart" -s templates/deployment.yaml \
    --set config.readWaitSeconds=9 | grep checksum/config)"
  echo "before: $before"
  echo "after:  $after"
  [[ -n "$before" && "$before" != "$after" ]]
}

# A cluster that lists the kind policy/v1/PodDisruptionBudget gets
# policy/v1; pdb_version_matches_server checks the other branch.
pdb_version_follows_capabilities() {
  local version
  version="$("$helm" template "$release" "$chart" -s templates/poddisruptionbudget.yaml \
    --api-versions policy/v1/PodDisruptionBudget | grep '^apiVersion:')"
  echo "with policy/v1/PodDisruptionBudget: $version"
  [[ "$version" == "apiVersion: policy/v1" ]]
}

# NOTES.txt tells how to connect: the Service's DNS name and port, and an
# informerctl command line with the flags the values call for.
notes_tell_how_to_connect() {
  notes_hold "tls.yaml auth.yaml" "$fullname.rel.svc:50051" \
    "informerctl --server $fullname.rel.svc:50051 --tls --ca-file ca.crt --cert-file client.crt --key-file client.key --token-file TOKEN_FILE get pods -A" \
    "helm test $release"
  # Without TLS informerctl sends the token only when told.
  notes_hold "plaintext-tokens.yaml" \
    "informerctl --server $fullname.rel.svc:50051 --token-file TOKEN_FILE --allow-token-without-tls get pods -A"
}

# The same for the HorizontalPodAutoscaler: autoscaling/v2 where the cluster
# lists it; hpa_version_matches_server checks the server's choice.
hpa_version_follows_capabilities() {
  local version
  version="$("$helm" template "$release" "$chart" -s templates/hpa.yaml \
    --set autoscaling.enabled=true \
    --api-versions autoscaling/v2/HorizontalPodAutoscaler | grep '^apiVersion:')"
  echo "with autoscaling/v2/HorizontalPodAutoscaler: $version"
  [[ "$version" == "apiVersion: autoscaling/v2" ]]
}

run_offline_checks() {
  local set
  for set in "${value_sets[@]}"; do
    run_case "helm lint --strict ($set)" lint_set "$set"
    run_case "helm template ($set)" template_set "$set"
  done
  run_case "NOTES tell how to connect" notes_tell_how_to_connect
  run_case "NOTES of a leaf name its root" notes_name_the_root
  run_case "config change rolls pods (checksum/config)" config_change_rolls_pods
  run_case "PodDisruptionBudget policy/v1 when the cluster has it" pdb_version_follows_capabilities
  run_case "HorizontalPodAutoscaler autoscaling/v2 when the cluster has it" \
    hpa_version_follows_capabilities

  run_case "schema refuses replicaCount: -1" \
    expect_refused "/replicaCount" --set replicaCount=-1
  run_case "schema refuses an unknown auth.mode" \
    expect_refused "/auth/mode" --set auth.mode=ldap
  run_case "template refuses auth.mode=none without auth.allowUnauthenticated" \
    expect_refused "set auth.allowUnauthenticated=true" --set auth.mode=none
  run_case "template refuses plaintext tokens without auth.allowPlaintextTokens" \
    expect_refused "set auth.allowPlaintextTokens=true" --set tls.enabled=false
  run_case "template refuses tls.clientCA behind the proxy" \
    expect_refused "Set proxy.enabled=false to serve client certificates" \
    --set tls.clientCA.secretName=client-ca
  run_case "schema refuses an unknown proxy key" \
    expect_refused "/proxy" --set proxy.maxconn=1
  run_case "schema refuses an unknown tls.certManager key" \
    expect_refused "/tls/certManager" --set tls.certManager.issuer=x
  run_case "schema refuses a cert-manager issuer kind" \
    expect_refused "/tls/certManager/issuerRef/kind" --set tls.certManager.issuerRef.kind=Vault
  run_case "schema refuses an unknown config key" \
    expect_refused "/config/resources/0" --set-json 'config.resources=[{"resource":"pods","nodeName":"a"}]'
  run_case "schema refuses config.maxPageBytes out of range" \
    expect_refused "/config/maxPageBytes" --set config.maxPageBytes=100
  run_case "template refuses config.limits.maxInitialBytes at or above the memory limit" \
    expect_refused "config.limits.maxInitialBytes: 2147483648 is not below resources.limits.memory" \
    --set config.limits.maxInitialBytes=2147483648
  run_case "template refuses a memory limit it cannot read" \
    expect_refused 'resources.limits.memory: "lots" is not a memory quantity' \
    --set resources.limits.memory=lots
  run_case "schema refuses an unknown config.limits key" \
    expect_refused "/config/limits" --set config.limits.maxWatchez=1
  run_case "schema refuses an unknown top-level value" \
    expect_refused "additional properties 'replicas'" --set replicas=3
  run_case "schema refuses a bad logLevel" \
    expect_refused "/logLevel" --set logLevel=verbose
  run_case "template refuses a resource outside watchNamespaces" \
    expect_refused "needs a namespace" --set 'watchNamespaces={a,b}'
  run_case "template refuses tls.http without tls.enabled" \
    expect_refused "tls.http: needs tls.enabled" --set tls.http=true --set tls.enabled=false \
    --set auth.allowPlaintextTokens=true
  run_case "template refuses tls.http with a client CA" \
    expect_refused "cannot be combined with tls.clientCA" -f "$here/values/tls.yaml" --set tls.http=true
  run_case "template refuses history.minEvents above maxEvents" \
    expect_refused "config.history.minEvents" --set config.history.minEvents=200000
  run_case "template refuses a plaintext upstream without upstream.allowInsecure" \
    expect_refused "set upstream.allowInsecure=true" --set upstream.address=root:50051 \
    --set upstream.tls.enabled=false
  run_case "template refuses an upstream CA from both a Secret and a ConfigMap" \
    expect_refused "caSecretName and caConfigMapName are alternatives" \
    --set upstream.address=root:50051 --set upstream.tls.caSecretName=a \
    --set upstream.tls.caConfigMapName=b
  run_case "template refuses an upstream client certificate without TLS" \
    expect_refused "needs upstream.tls.enabled" --set upstream.address=root:50051 \
    --set upstream.tls.enabled=false --set upstream.allowInsecure=true \
    --set upstream.tls.clientCertSecretName=c
  run_case "schema refuses an upstream address without a port" \
    expect_refused "/upstream/address" --set upstream.address=grpcs://root
  run_case "schema refuses an upstream token shorter than 600 seconds" \
    expect_refused "/upstream/token/expirationSeconds" --set upstream.address=root:50051 \
    --set upstream.token.expirationSeconds=60
  run_case "template refuses autoscaling.minReplicas above maxReplicas" \
    expect_refused "autoscaling.minReplicas: must not exceed" --set autoscaling.enabled=true \
    --set autoscaling.minReplicas=5 --set autoscaling.maxReplicas=3
  run_case "template refuses autoscaling without a metric" \
    expect_refused "autoscaling: needs targetCPUUtilizationPercentage or podsMetrics" \
    --set autoscaling.enabled=true --set autoscaling.targetCPUUtilizationPercentage=null
  run_case "schema refuses an override of an alert the chart does not have" \
    expect_refused "/prometheusRule/alerts" --set prometheusRule.alerts.InformerdTypo.for=5m
  run_case "schema refuses an alert's for that is not a duration" \
    expect_refused "/prometheusRule/alerts/InformerdRelisting/for" \
    --set prometheusRule.alerts.InformerdRelisting.for=soon
  run_case "schema refuses a dashboard label that is not a string" \
    expect_refused "/grafanaDashboard/labels/grafana_dashboard" \
    --set grafanaDashboard.labels.grafana_dashboard=1
  run_case "schema refuses an autoscaling Pods metric without a target" \
    expect_refused "/autoscaling/podsMetrics/0" --set autoscaling.enabled=true \
    --set-json 'autoscaling.podsMetrics=[{"name":"informerd_watchers_open"}]'

  local test_name test_names
  mapfile -t test_names < <(sed -n 's/^    def \(test_[a-z0-9_]*\)(self.*/\1/p' \
    "$here/dockerfile_libs_test.py")
  for test_name in "${test_names[@]}"; do
    run_case "dockerfile: $test_name" \
      python3 "$here/dockerfile_libs_test.py" "DockerfileTest.$test_name"
  done
}

# --- cluster checks ----------------------------------------------------------

# Usage: ensure_namespace NAME
ensure_namespace() {
  "$kubectl" get namespace "$1" >/dev/null 2>&1 || "$kubectl" create namespace "$1"
}

# The real operator's CRD, if installed, is left as it is.
servicemonitor_crd() {
  "$kubectl" get crd servicemonitors.monitoring.coreos.com >/dev/null 2>&1 ||
    "$kubectl" create -f "$here/servicemonitor-crd.yaml"
  "$kubectl" wait --for condition=established --timeout=60s \
    crd/servicemonitors.monitoring.coreos.com
}

prometheusrule_crd() {
  "$kubectl" get crd prometheusrules.monitoring.coreos.com >/dev/null 2>&1 ||
    "$kubectl" create -f "$here/prometheusrule-crd.yaml"
  "$kubectl" wait --for condition=established --timeout=60s \
    crd/prometheusrules.monitoring.coreos.com
}

# Stand-ins for cert-manager's CRDs (Issuer, Certificate), so that the
# server dry run can admit the cert-manager set's objects; the real
# cert-manager's, if installed, are left as they are.
cert_manager_crds() {
  local crd
  for crd in issuers certificates; do
    "$kubectl" get crd "$crd.cert-manager.io" >/dev/null 2>&1 ||
      "$kubectl" create -f "$here/cert-manager-crds/$crd.yaml"
    "$kubectl" wait --for condition=established --timeout=60s "crd/$crd.cert-manager.io"
  done
}

# The generated CA and certificate survive an upgrade: a second render
# against the cluster (lookup) gives the Secret the first one stored.
generated_certificate_kept() {
  local namespace="chart-tls-$suffix" first="$work/tls-first.yaml" second="$work/tls-second.yaml"
  local renewed="$work/tls-renewed.yaml"
  ensure_namespace "$namespace"
  render_tls() {
    "$helm" template "$release" "$chart" --namespace "$namespace" -s templates/tls-secret.yaml \
      --dry-run=server >"$1"
  }
  # One key of a rendered file's Secret (NAME), base64 as rendered.
  secret_key() {
    python3 -c 'import sys, yaml
for o in yaml.safe_load_all(open(sys.argv[1])):
    if o and o["metadata"]["name"] == sys.argv[2]: print(o["data"][sys.argv[3]])' "$@"
  }
  render_tls "$first"
  "$kubectl" apply -f "$first"
  # As helm install would have left them: owned by the release.
  "$kubectl" annotate -n "$namespace" secret "$fullname-tls" "$fullname-ca" \
    meta.helm.sh/release-name="$release" meta.helm.sh/release-namespace="$namespace"
  render_tls "$second"
  local key
  for key in ca.crt tls.crt tls.key; do
    [[ -n "$(secret_key "$first" "$fullname-tls" "$key")" &&
      "$(secret_key "$first" "$fullname-tls" "$key")" == "$(secret_key "$second" "$fullname-tls" "$key")" ]] || {
      echo "an upgrade changed $key, far from the certificate's end"
      return 1
    }
  done
  # Within renewBeforeDays (30) of its end, an upgrade signs a new server
  # certificate with the same CA.
  "$kubectl" annotate -n "$namespace" --overwrite secret "$fullname-tls" \
    informerd.io/not-after="$(($(date +%s) + 5 * 86400))"
  render_tls "$renewed"
  [[ "$(secret_key "$renewed" "$fullname-tls" tls.crt)" != "$(secret_key "$first" "$fullname-tls" tls.crt)" ]] || {
    echo "the certificate was not renewed 5 days before its end"
    return 1
  }
  [[ "$(secret_key "$renewed" "$fullname-tls" ca.crt)" == "$(secret_key "$first" "$fullname-tls" ca.crt)" &&
    "$(secret_key "$renewed" "$fullname-ca" ca.key)" == "$(secret_key "$first" "$fullname-ca" ca.key)" ]] || {
    echo "renewal changed the CA clients trust"
    return 1
  }
  secret_key "$renewed" "$fullname-tls" ca.crt | base64 -d >"$work/tls-ca.crt"
  secret_key "$renewed" "$fullname-tls" tls.crt | base64 -d >"$work/tls-renewed.crt"
  openssl verify -CAfile "$work/tls-ca.crt" "$work/tls-renewed.crt"
  openssl x509 -in "$work/tls-renewed.crt" -noout -checkend $((364 * 86400))
}

# Every object the chart renders for the set, hooks included, must pass the
# API server's validation and admission (dry run: nothing is stored).
# helm template --dry-run=server takes the cluster's capabilities, so the
# PodDisruptionBudget comes out as the server's version.
dry_run_set() {
  local set="$1" namespace="chart-dry-$1-$suffix" out="$work/dry-run-$1.yaml"
  ensure_namespace "$namespace"
  ensure_namespace chart-team-a
  ensure_namespace chart-team-b
  "$helm" template "$release" "$chart" --namespace "$namespace" \
    -f "$here/values/$set.yaml" --dry-run=server >"$out"
  local objects applied
  objects="$(grep -c '^kind:' "$out")"
  applied="$("$kubectl" apply --dry-run=server -f "$out")"
  echo "$applied"
  [[ "$(grep -c '(server dry run)' <<<"$applied")" == "$objects" ]] || {
    echo "the server accepted fewer than the $objects rendered objects"
    return 1
  }
}

# The PodDisruptionBudget rendered with the cluster's capabilities has the
# version the server serves: policy/v1beta1 before Kubernetes 1.21.
pdb_version_matches_server() {
  local want=policy/v1beta1 versions got
  versions="$("$kubectl" api-versions)"
  grep -qx policy/v1 <<<"$versions" && want=policy/v1
  got="$("$helm" template "$release" "$chart" -s templates/poddisruptionbudget.yaml \
    --dry-run=server | sed -n 's/^apiVersion: //p')"
  echo "server serves $want; rendered $got"
  [[ "$got" == "$want" ]]
}

# The HorizontalPodAutoscaler rendered with the cluster's capabilities has
# the version the server serves: autoscaling/v2beta2 before Kubernetes 1.23.
hpa_version_matches_server() {
  local want=autoscaling/v2beta2 versions got
  versions="$("$kubectl" api-versions)"
  grep -qx autoscaling/v2 <<<"$versions" && want=autoscaling/v2
  got="$("$helm" template "$release" "$chart" -s templates/hpa.yaml \
    --set autoscaling.enabled=true --dry-run=server | sed -n 's/^apiVersion: //p')"
  echo "server serves $want; rendered $got"
  [[ "$got" == "$want" ]]
}

# Usage: prepare_identity SET NAMESPACE [DIR [HELM_ARGS...]]
# Applies the set's ServiceAccount, RBAC objects and ConfigMap (rendered
# with HELM_ARGS too) for real in NAMESPACE and writes DIR/config.yaml (the
# ConfigMap's file as the API server stored it), DIR/rendered.yaml,
# DIR/sa.token and DIR/sa.kubeconfig (a token of the ServiceAccount for the
# API server) and DIR/informerd.token (one for informerd's first
# --token-audiences, as the test pod projects it; the API server's audience
# without that flag). DIR defaults to $work.
prepare_identity() {
  local set="$1" namespace="$2" dir="${3:-$work}"
  shift $(($# < 3 ? $# : 3))
  local rendered="$dir/rbac-$set.yaml" token
  mkdir -p "$dir"
  ensure_namespace "$namespace"
  # Which RBAC templates render anything depends on the set, and helm
  # template --show-only refuses an empty one; so the documents are picked
  # by their "# Source:" line instead.
  "$helm" template "$release" "$chart" --namespace "$namespace" -f "$here/values/$set.yaml" \
    "$@" --dry-run=server >"$dir/all-$set.yaml"
  awk '/^---$/ { keep = 0; next }
       /^# Source: / { keep = $3 ~ /templates\/(serviceaccount|clusterrole|role|configmap)\.yaml$/
                       if (keep) print "---" }
       keep' "$dir/all-$set.yaml" >"$rendered"
  grep '^kind:' "$rendered"
  if grep -q '^kind: ClusterRole$' "$rendered"; then
    printf '%s\n' "clusterrole/$namespace-$fullname" "clusterrolebinding/$namespace-$fullname" \
      >>"$cluster_objects"
  fi
  "$kubectl" apply -f "$rendered"
  "$kubectl" get configmap "$fullname" -n "$namespace" -o jsonpath='{.data.config\.yaml}' \
    >"$dir/config.yaml"
  # The Deployment's flags and the test pod's command for this identity.
  cp "$dir/all-$set.yaml" "$dir/rendered.yaml"
  # TokenRequest (kube-apiserver 1.20 serves it: the control plane has a
  # service account issuer and signing key).
  token="$("$kubectl" create token "$fullname" -n "$namespace" --duration=1h)"
  echo "$token" >"$dir/sa.token"
  local audience
  audience="$(grep -o -- '--token-audiences=[^,"]*' "$dir/all-$set.yaml" | head -n1 | cut -d= -f2)"
  if [[ -n "$audience" ]]; then
    "$kubectl" create token "$fullname" -n "$namespace" --duration=1h --audience "$audience" \
      >"$dir/informerd.token"
  else
    cp "$dir/sa.token" "$dir/informerd.token"
  fi
  cat >"$dir/sa.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: $INFORMERD_APISERVER_URL
    certificate-authority: $INFORMERD_CA_FILE
users:
- name: sa
  user:
    token: $token
contexts:
- name: sa
  context:
    cluster: local
    user: sa
current-context: sa
EOF
  echo "config informerd gets:"
  cat "$dir/config.yaml"
}

port_free() {
  ! (exec 3<>"/dev/tcp/${1%:*}/${1##*:}") 2>/dev/null
}

# Usage: readyz_ok [HTTP_ADDRESS]
readyz_ok() {
  [[ "$(curl -sS --max-time 2 "http://${1:-$http_address}/readyz" 2>/dev/null)" == ok ]]
}

# Usage: informerd_becomes_ready [DIR GRPC_PORT HTTP_ADDRESS]
# Runs informerd as the ServiceAccount (prepare_identity's DIR, default
# $work) until /readyz says ok: only then has it listed and watched every
# configured resource with the granted rights.
informerd_becomes_ready() {
  local dir="${1:-$work}" port="${2:-$grpc_port}" http="${3:-$http_address}"
  [[ -x "$informerd_bin" ]] || {
    echo "$informerd_bin missing: bazel build //server:informerd"
    return 1
  }
  local address
  for address in "127.0.0.1:$port" "$http"; do
    port_free "$address" || {
      echo "$address is taken by another process"
      return 1
    }
  done
  local log="$dir/informerd-$case_count.log" args
  mapfile -t args < <(python3 "$here/local_command.py" server "$dir/rendered.yaml" "$dir" \
    "$port" "$http")
  ((${#args[@]})) || return 1
  echo "informerd ${args[*]}"
  "$informerd_bin" "${args[@]}" >"$log" 2>&1 &
  echo "$!" >"$dir/informerd.pid"
  if ! informerd::wait_until 60 readyz_ok "$http"; then
    echo "/readyz not ok after 60s: $(curl -sS --max-time 2 "http://$http/readyz" 2>&1)"
    echo "informerd log:"
    cat "$log"
    return 1
  fi
  echo "/readyz: ok"
}

informerctl_health() {
  [[ -x "$informerctl_bin" ]] || {
    echo "$informerctl_bin missing: bazel build //client/cpp:informerctl"
    return 1
  }
  local args
  mapfile -t args < <(python3 "$here/local_command.py" test "$work/rendered.yaml" "$work" \
    "$grpc_port")
  ((${#args[@]})) || return 1
  echo "informerctl ${args[*]}"
  "$informerctl_bin" "${args[@]}"
}

# The test pod's connection flags (TLS, the chart's CA, the ServiceAccount's
# token) with a call that needs the token: accepted; without the token, or
# in plaintext, refused.
informerctl_token_over_tls() {
  local args connection=()
  mapfile -t args < <(python3 "$here/local_command.py" test "$work/rendered.yaml" "$work" \
    "$grpc_port")
  local arg
  for arg in "${args[@]}"; do
    [[ "$arg" == --* ]] && connection+=("$arg")
  done
  printf '%s\n' "${connection[@]}" | grep -qx -- --tls
  printf '%s\n' "${connection[@]}" | grep -q -- '^--token-file='
  echo "informerctl ${connection[*]} resources"
  "$informerctl_bin" "${connection[@]}" resources
  local without_token=() output
  for arg in "${connection[@]}"; do
    [[ "$arg" == --token-file=* ]] || without_token+=("$arg")
  done
  if output="$("$informerctl_bin" "${without_token[@]}" resources 2>&1)"; then
    echo "without a token: accepted; must be UNAUTHENTICATED"
    return 1
  fi
  echo "without a token: $output"
  grep -q UNAUTHENTICATED <<<"$output"
  if output="$("$informerctl_bin" --server "$grpc_address" \
    --token-file "$work/sa.token" --allow-token-without-tls resources 2>&1)"; then
    echo "plaintext: accepted; the port must speak TLS only"
    return 1
  fi
  echo "plaintext: $output"
}

# Usage: another_release_token_refused SET NAMESPACE
# A token of the same ServiceAccount issued for the audience another
# release of the same values accepts (the chart's default: that release's
# Service DNS name) is refused: one release's clients do not reach another,
# which may serve more.
another_release_token_refused() {
  local args connection=() arg output audience
  audience="$("$helm" template other "$chart" --namespace "$2" -f "$here/values/$1.yaml" |
    grep -o -- '--token-audiences=[^,"]*' | head -n1 | cut -d= -f2)"
  [[ -n "$audience" ]] || {
    echo "release other renders no --token-audiences"
    return 1
  }
  mapfile -t args < <(python3 "$here/local_command.py" test "$work/rendered.yaml" "$work" \
    "$grpc_port")
  for arg in "${args[@]}"; do
    [[ "$arg" == --* && "$arg" != --token-file=* ]] && connection+=("$arg")
  done
  "$kubectl" create token "$fullname" -n "$2" --duration=1h --audience "$audience" \
    >"$work/other-release.token"
  if output="$("$informerctl_bin" "${connection[@]}" --token-file="$work/other-release.token" \
    resources 2>&1)"; then
    echo "a token for release other's audience $audience: accepted; must be UNAUTHENTICATED"
    return 1
  fi
  echo "a token for release other's audience $audience: $output"
  grep -q UNAUTHENTICATED <<<"$output"
}

# Usage: stop_informerd [DIR]
stop_informerd() {
  local pid_file="${1:-$work}/informerd.pid"
  [[ -f "$pid_file" ]] || return 0
  local pid
  pid="$(<"$pid_file")"
  rm "$pid_file"
  informerd::pid_runs "$pid" "$informerd_bin" && informerd::stop_pid "$pid" 10
  return 0
}

# Usage: expect_status CODE METHOD PATH [BODY]
# The API server must answer the ServiceAccount's token with CODE.
expect_status() {
  local want="$1" method="$2" path="$3" body="${4:-}" code
  local -a data=()
  [[ -n "$body" ]] && data=(-H 'Content-Type: application/json' --data "$body")
  code="$(curl -sS -o "$work/response.json" -w '%{http_code}' --max-time 10 \
    --cacert "$INFORMERD_CA_FILE" -H "Authorization: Bearer $(<"$work/sa.token")" \
    -X "$method" "${data[@]}" "$INFORMERD_APISERVER_URL$path")"
  echo "$method $path: HTTP $code (want $want)"
  [[ "$code" == "$want" ]] || {
    cat "$work/response.json"
    return 1
  }
}

refused_outside_grants_cluster() {
  # First proof that the token authenticates: a granted read succeeds.
  expect_status 200 GET /apis/coordination.k8s.io/v1/leases
  expect_status 403 GET /api/v1/secrets
  expect_status 403 GET "/api/v1/namespaces/$1/secrets"
  expect_status 403 GET /apis/apps/v1/replicasets
  expect_status 403 POST "/api/v1/namespaces/$1/configmaps" \
    '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}'
}

reviews_allowed() {
  expect_status 201 POST /apis/authentication.k8s.io/v1/tokenreviews \
    '{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"not-a-token"}}'
  expect_status 201 POST /apis/authorization.k8s.io/v1/subjectaccessreviews \
    '{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"alice","resourceAttributes":{"verb":"list","resource":"pods"}}}'
}

refused_outside_grants_namespaced() {
  expect_status 200 GET /api/v1/namespaces/chart-team-a/configmaps
  expect_status 403 GET /api/v1/configmaps
  expect_status 403 GET /api/v1/namespaces/chart-team-b/configmaps
  expect_status 403 GET /api/v1/namespaces/chart-team-a/pods
  # auth.mode=kubernetes (the default) needs the reviews, granted
  # cluster-wide: the only cluster-wide grant.
  expect_status 201 POST /apis/authentication.k8s.io/v1/tokenreviews \
    '{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"x"}}'
}

# Usage: prepare_leaf NAMESPACE ROOT_NAMESPACE
# The leaf set's identity as prepare_identity applies a root's, in
# $work/leaf, with upstream.address the root's Service in ROOT_NAMESPACE,
# its config pointed at the root informerd_becomes_ready runs
# (localhost:$grpc_port, which the generated certificate names) and that
# root's CA, and a token of the leaf's ServiceAccount for the audience of
# the Deployment's projected token (the chart's default, derived from
# upstream.address: the root's Service DNS name, which that root accepts).
prepare_leaf() {
  local dir="$work/leaf" audience
  prepare_identity leaf "$1" "$dir" --set "upstream.address=$fullname.$2.svc:50051"
  audience="$(python3 "$here/local_command.py" leaf "$dir/rendered.yaml" "$dir" \
    "localhost:$grpc_port" "$work/tls/ca.crt")"
  local audience_args=()
  [[ -z "$audience" ]] || audience_args=(--audience "$audience")
  mkdir -p "$dir/upstream-token"
  "$kubectl" create token "$fullname" -n "$1" --duration=1h "${audience_args[@]}" \
    >"$dir/upstream-token/token"
  echo "the leaf's config, pointed at the local root:"
  cat "$dir/config.yaml"
}

# Usage: expect_can ANSWER NAMESPACE VERB RESOURCE
# The API server's authorizer, which the root's SubjectAccessReviews ask,
# must answer ANSWER (yes or no) for the leaf's ServiceAccount.
expect_can() {
  local answer
  answer="$("$kubectl" auth can-i "$3" "$4" --all-namespaces \
    --as "system:serviceaccount:$2:$fullname" 2>/dev/null || true)"
  echo "can $3 $4: $answer (want $1)"
  [[ "$answer" == "$1" ]]
}

leaf_grants() {
  expect_can yes "$1" list pods
  expect_can yes "$1" watch pods
  expect_can yes "$1" watch configmaps
  expect_can yes "$1" create tokenreviews.authentication.k8s.io
  expect_can yes "$1" create subjectaccessreviews.authorization.k8s.io
  # It reads nothing from the API server itself.
  expect_can no "$1" get pods
  expect_can no "$1" list secrets
  expect_can no "$1" list deployments.apps
}

# Usage: leaf_lists NAME INFORMERCTL_ARGS...
# informerctl's output (in $work/leaf/get.out) names NAME.
leaf_lists() {
  local name="$1"
  shift
  "$informerctl_bin" "$@" >"$work/leaf/get.out" 2>&1
  grep -qF -- "$name" "$work/leaf/get.out"
}

# A ConfigMap created at the API server reaches a client of the leaf
# (API server, root, leaf), read with the helm test's connection flags.
leaf_serves_new_object() {
  local args connection=() arg
  mapfile -t args < <(python3 "$here/local_command.py" test "$work/leaf/rendered.yaml" \
    "$work/leaf" "$leaf_grpc_port")
  for arg in "${args[@]}"; do
    [[ "$arg" == --* ]] && connection+=("$arg")
  done
  local name="through-the-root-$suffix"
  "$kubectl" create configmap "$name" -n "$1" --from-literal=tier=leaf
  echo "informerctl ${connection[*]} get configmaps -n $1 -o name"
  if ! informerd::wait_until 30 leaf_lists "$name" "${connection[@]}" get configmaps -n "$1" \
    -o name; then
    echo "the leaf does not list $name after 30s:"
    cat "$work/leaf/get.out"
    return 1
  fi
  cat "$work/leaf/get.out"
}

run_cluster_checks() {
  if [[ -z "${INFORMERD_APISERVER_URL:-}" || -z "${KUBECONFIG:-}" ]]; then
    # shellcheck disable=SC2016  # the command is for the reader to run
    local reason='no control plane: hack/control-plane.sh up; eval "$(hack/control-plane.sh env)"'
    local set
    for set in "${value_sets[@]}"; do skip_case "server dry run ($set)" "$reason"; done
    skip_case "rbac: informerd as the chart's ServiceAccount" "$reason"
    skip_case "generated certificate kept across upgrades, renewed near its end (lookup)" "$reason"
    skip_case "tier leaf: informerd reading the chart's root" "$reason"
    return 0
  fi
  run_case "ServiceMonitor CRD (stand-in) established" servicemonitor_crd
  run_case "PrometheusRule CRD (stand-in) established" prometheusrule_crd
  run_case "cert-manager CRDs (stand-in) established" cert_manager_crds
  run_case "generated certificate kept across upgrades, renewed near its end (lookup)" generated_certificate_kept
  run_case "PodDisruptionBudget version the server serves" pdb_version_matches_server
  run_case "HorizontalPodAutoscaler version the server serves" hpa_version_matches_server
  local set
  for set in "${value_sets[@]}"; do
    run_case "server dry run ($set)" dry_run_set "$set"
  done

  local namespace="chart-rbac-$suffix"
  run_case "rbac cluster-wide: ServiceAccount, ClusterRole, token" \
    prepare_identity rbac-cluster "$namespace"
  run_case "rbac cluster-wide: informerd syncs every resource (/readyz ok)" \
    informerd_becomes_ready
  run_case "rbac cluster-wide: informerctl health (the helm test's command, token over TLS)" \
    informerctl_health
  run_case "rbac cluster-wide: the token over TLS accepted; none, or plaintext, refused" \
    informerctl_token_over_tls
  run_case "rbac cluster-wide: a token for another release's audience refused" \
    another_release_token_refused rbac-cluster "$namespace"
  # The tier: a leaf release's identity reads that root.
  local leaf_namespace="chart-leaf-$suffix"
  run_case "tier leaf: ServiceAccount, ClusterRole, ConfigMap, token toward the root" \
    prepare_leaf "$leaf_namespace" "$namespace"
  run_case "tier leaf: may list and watch the served resources and create reviews, no more" \
    leaf_grants "$leaf_namespace"
  run_case "tier leaf: informerd reading the root syncs every resource (/readyz ok)" \
    informerd_becomes_ready "$work/leaf" "$leaf_grpc_port" "$leaf_http_address"
  run_case "tier leaf: a ConfigMap created at the API server reaches the leaf's client" \
    leaf_serves_new_object "$leaf_namespace"
  stop_informerd "$work/leaf"
  stop_informerd
  run_case "rbac cluster-wide: token may create token and access reviews" reviews_allowed
  run_case "rbac cluster-wide: token refused secrets and writes (403)" \
    refused_outside_grants_cluster "$namespace"

  namespace="chart-rbacns-$suffix"
  run_case "rbac namespaced: ServiceAccount, Roles, token" \
    prepare_identity namespaced "$namespace"
  run_case "rbac namespaced: informerd syncs every resource (/readyz ok)" \
    informerd_becomes_ready
  stop_informerd
  run_case "rbac namespaced: token refused outside its namespaces (403)" \
    refused_outside_grants_namespaced
}

# --- main --------------------------------------------------------------------

run_offline_checks
run_cluster_checks

[[ -n "$junit" ]] && write_junit "$junit"
passed="$(grep -c '^passed' "$cases")"
failed="$(grep -c '^failed' "$cases")"
skipped="$(grep -c '^skipped' "$cases")"
echo "chart: $passed passed, $failed failed, $skipped skipped"
((failed == 0))
