#!/usr/bin/env bash
# Runs every test against a real control plane and ends with the line
# `N passed, N failed`, counting individual test cases. Exits non-zero if
# anything failed.
#
# Usage: hack/test.sh
#
# Two Kubernetes versions, one after the other (hack/control-plane.sh):
#   1.37  today's kube-apiserver and etcd 3.6: every suite;
#   1.20  the oldest supported: the integration tests (the apiserver oracle,
#         auth, TLS, resilience), the client end-to-end tests, chaos and the
#         chart. Its Bazel tests run in an output base of their own.
# Each row of the summary names the version it ran on; the final counts
# add both. INFORMERD_TEST_KUBE_VERSIONS (default "1.37 1.20") runs fewer
# versions, INFORMERD_TEST_SUITES (default: all) fewer suites, e.g.
# "bazel_all go_client" (the fast inner loop of docs/TESTING.md); a name that is
# no suite counts as a failure.
#
# Each version's control plane is a private one (state in ~/.cache/
# informerd/test-control-plane-VERSION, ports 24790/24800/27443,
# overridable with INFORMERD_TEST_ETCD_CLIENT_PORT,
# INFORMERD_TEST_ETCD_PEER_PORT, INFORMERD_TEST_APISERVER_PORT), so a running
# demo is left alone. Its etcd starts empty on every run. Its paths and
# tokens stay the same from run to run so that Bazel keeps caching the
# results of unit tests; integration tests must therefore carry
# tags = ["external"], which makes Bazel run them every time.
#
# Every test gets the variables of `hack/control-plane.sh env` through
# --test_env (KUBECONFIG, INFORMERD_APISERVER_URL, INFORMERD_KUBE_VERSION,
# INFORMERD_CP_DIR, ...).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$INFORMERD_ROOT"

readonly run_dir="$INFORMERD_CACHE/test-run"
readonly junit_root="$run_dir/junit"
export INFORMERD_ETCD_CLIENT_PORT="${INFORMERD_TEST_ETCD_CLIENT_PORT:-24790}"
export INFORMERD_ETCD_PEER_PORT="${INFORMERD_TEST_ETCD_PEER_PORT:-24800}"
export INFORMERD_APISERVER_PORT="${INFORMERD_TEST_APISERVER_PORT:-27443}"
read -r -a kube_versions <<<"${INFORMERD_TEST_KUBE_VERSIONS:-1.37 1.20}"

control_plane_running=false
stop_control_plane() {
  if $control_plane_running; then
    control_plane_running=false
    hack/control-plane.sh down
  fi
}
trap stop_control_plane EXIT

# Steps that failed without leaving a JUnit report; each counts one failure.
failed_without_report=()

start_control_plane() {
  # A control plane left behind by an interrupted run goes first, then its
  # data, so every run starts from an empty etcd.
  hack/control-plane.sh down
  rm -rf "$INFORMERD_CP_DIR/etcd-data" "$INFORMERD_CP_DIR/logs"
  control_plane_running=true
  hack/control-plane.sh up
}

# Prints one --test_env=NAME=VALUE flag per variable of
# `control-plane.sh env`. Run it in a subshell: it evals those variables.
test_env_flags() {
  local env_lines name
  env_lines="$(hack/control-plane.sh env)"
  eval "$env_lines"
  for name in $(sed -n 's/^export \([A-Za-z_][A-Za-z0-9_]*\)=.*/\1/p' <<<"$env_lines"); do
    printf -- '--test_env=%s=%s\n' "$name" "${!name}"
  done
}

# Every Bazel run's testlogs tree, event file and version, one per line, for
# the counts.
bazel_runs="$run_dir/bazel-runs"

# Runs Bazel tests with the control plane's variables and records the run.
# OUTPUT_BASE empty: the workspace's own; another one leaves the workspace's
# analysis cache and bazel-* links alone. CONFIG empty: none. Returns 1 when
# the run has no counts (Bazel failed before testing).
# Usage: bazel_tests NAME OUTPUT_BASE CONFIG BAZEL_TEST_ARG...
bazel_tests() {
  local name="$1" base="$2" config="$3"
  shift 3
  local tag="$name-$INFORMERD_KUBE_VERSION"
  local log="$run_dir/bazel-$tag.log" bep="$run_dir/bep-$tag.json" testlogs
  local -a startup=() options=() env_flags
  if [[ -n "$base" ]]; then
    base="$(informerd::workspace_output_base "$base")"
    startup=(--output_base="$base")
    options+=(--symlink_prefix=/)
  fi
  [[ -z "$config" ]] || options+=(--config="$config")
  mapfile -t env_flags < <(test_env_flags)
  informerd::log "bazel test ($name) on Kubernetes $INFORMERD_KUBE_VERSION (log: $log)"
  local rc=0
  bazel "${startup[@]}" test "${options[@]}" --keep_going --test_output=errors \
    --build_event_json_file="$bep" "$@" "${env_flags[@]}" >"$log" 2>&1 || rc=$?
  # Without the event file Bazel failed early: old reports prove nothing.
  if [[ -s "$bep" ]] &&
    testlogs="$(bazel "${startup[@]}" info "${options[@]}" bazel-testlogs 2>>"$log")"; then
    printf '%s\t%s\t%s\n' "$testlogs" "$bep" "$INFORMERD_KUBE_VERSION${config:+ $config}" >>"$bazel_runs"
  fi
  # 3 means "built, but some tests failed"; the counts show those. Any other
  # failure (a broken build, no tests found) is not in the counts.
  if [[ "$rc" != 0 && "$rc" != 3 ]]; then
    informerd::log "bazel test ($name) exited $rc; last lines of $log:"
    tail -n 20 "$log" >&2
    return 1
  fi
}

# --- further suites ---------------------------------------------------------
# Suites outside Bazel (the Go, Java and Python clients, the helm chart) go
# here, each as a function named suite_<name> that runs against the control
# plane in this environment (eval'd from `control-plane.sh env`) and writes
# JUnit XML into the directory given as $1 (or, for another Bazel run, has
# sanitized_tests record its testlogs and event file). Append <name> to
# extra_suites. A suite that exits non-zero without writing XML counts as
# one failure.
extra_suites=()

# Tests that kill and restart kube-apiserver run outside Bazel: Bazel's
# process wrapper kills every process a test leaves behind, including an
# apiserver it restarted.
suite_resilience() {
  bazel build //tests/integration:resilience_test
  INFORMERD_ROOT="$INFORMERD_ROOT" bazel-bin/tests/integration/resilience_test \
    --gtest_output="xml:$1/resilience.xml"
}
extra_suites+=(resilience)

# Runs the unit tests again under a sanitizer config, with any further
# targets and flags given, in an output base of its own. Its testlogs tree
# and event file are counted like the main run's (bazel_runs), so a
# sanitizer build that fails counts as failures and reports left by earlier
# runs do not count. Usage: sanitized_tests CONFIG [ARG...]
sanitized_tests() {
  local config="$1"
  shift
  bazel_tests "$config" "$INFORMERD_CACHE/bazel-$config" "$config" \
    //server/... //selector/... //retry/... //client/cpp/... "$@"
}

# AddressSanitizer + UndefinedBehaviorSanitizer, also on the in-process
# integration tests (informerd's gRPC service against the real apiserver).
suite_asan() {
  sanitized_tests asan //tests/integration:oracle_test \
    //tests/integration:slow_consumer_test //tests/integration:auth_test \
    //tests/integration:informer_factory_test
}
extra_suites+=(asan)

# ThreadSanitizer, with Abseil built for it (hack/build-tsan-abseil.sh:
# Debian's build hides every absl::Mutex from TSan). The integration tests
# are left out: Debian's gRPC is not built for TSan either, and its
# transport hands data between threads in ways TSan cannot see
# (docs/DECISIONS.md); so are unit tests that make real gRPC connections
# (tags = ["no_tsan"]).
suite_tsan() {
  local absl_lib
  absl_lib="$(hack/build-tsan-abseil.sh)" || return 1
  sanitized_tests tsan --test_env=LD_LIBRARY_PATH="$absl_lib" \
    --test_env=TSAN_OPTIONS="suppressions=$INFORMERD_ROOT/hack/tsan-suppressions.txt" \
    --test_tag_filters=-no_tsan
}
extra_suites+=(tsan)

suite_python_client() {
  bazel build //server:informerd
  INFORMERD_BIN="$INFORMERD_ROOT/bazel-bin/server/informerd" \
    client/python/run-tests.sh --junitxml "$1/python.xml"
}
extra_suites+=(python_client)

suite_go_client() {
  # kube_proto_encode: the protobuf encoder for internal/protofuzz.
  bazel build //server:informerd //server/kube_proto:kube_proto_encode
  INFORMERD_BIN="$INFORMERD_ROOT/bazel-bin/server/informerd" \
    INFORMERD_KUBE_PROTO_ENCODE="$INFORMERD_ROOT/bazel-bin/server/kube_proto/kube_proto_encode" \
    client/go/run-tests.sh --junit "$1/go.xml"
}
extra_suites+=(go_client)

# Each libFuzzer target (selectors, bearer tokens, continue tokens) for a
# bounded time, under ASan and UBSan.
suite_fuzz() {
  tests/fuzz/run.sh --seconds 20 --junit "$1/fuzz.xml"
}
extra_suites+=(fuzz)

# Clang's thread-safety analysis over the C++ code (.bazelrc's
# thread_safety config turns its warnings into errors), and the unit tests
# as clang built them; tests/build proves the analysis is on.
suite_thread_safety() {
  bazel_tests thread_safety "$INFORMERD_CACHE/bazel-thread_safety" thread_safety \
    //server/... //selector/... //retry/... //client/cpp/... //tests/build/...
}
extra_suites+=(thread_safety)

# The build's layering (bazel query): clients depend on nothing in //server.
suite_layering() {
  hack/check-layering.sh --junit "$1/layering.xml"
}
extra_suites+=(layering)

suite_java_client() {
  bazel build //server:informerd
  INFORMERD_E2E=1 INFORMERD_BIN="$INFORMERD_ROOT/bazel-bin/server/informerd" \
    client/java/run-tests.sh --junit-dir "$1"
}
extra_suites+=(java_client)

# One harness for every client library: each language's example informer
# against informerd and the real apiserver, informerd restarted mid-run.
suite_e2e() {
  /usr/bin/python3 tests/e2e/harness_test.py || return 1
  tests/e2e/run.sh --langs go,python,cpp,java,go-controller-runtime,java-kubernetes-client --junit "$1/e2e.xml"
}
extra_suites+=(e2e)

# Kubernetes clients, unmodified (client-go's typed and dynamic informers,
# the Python kubernetes package, kopf, @kubernetes/client-node, kube-rs,
# fabric8), through informerd's Kubernetes API port: each
# ends with its cache equal to the apiserver's LIST under writes.
suite_ecosystem() {
  bazel build //server:informerd && tests/ecosystem/run.sh --junit "$1/ecosystem.xml"
}
extra_suites+=(ecosystem)

# Bounded chaos on a private control plane (kills its apiserver, cuts
# connections through a fault proxy, restarts informerd, stalls watchers).
suite_chaos() {
  tests/chaos/run.sh --junit "$1/chaos.xml"
}
extra_suites+=(chaos)

# Three informerd replicas behind about 100 watching clients of every
# library: one replica killed, then all restarted one after another, under
# writes; every client ends equal to the LIST and nobody relists.
suite_replicas() {
  tests/replicas/run.sh --junit "$1/replicas.xml"
}
extra_suites+=(replicas)

# Each benchmark briefly (ingest, memory, fan-out): they must run and print
# their tables; the numbers themselves live in docs/BENCHMARKS.md.
suite_bench_smoke() {
  bench/smoke.sh --junit "$1/bench.xml"
}
extra_suites+=(bench_smoke)

# informerd's alerts and dashboard (charts/informerd/files): promtool's
# checks and rule tests, then a real Prometheus scraping a real informerd
# through two faults (a stalled watcher; kube-apiserver killed, then
# restarted), and every dashboard query evaluated.
suite_monitoring() {
  bazel build //server:informerd //client/cpp:informerctl
  INFORMERD_BINARY="$INFORMERD_ROOT/bazel-bin/server/informerd" \
    INFORMERCTL_BINARY="$INFORMERD_ROOT/bazel-bin/client/cpp/informerctl" \
    tests/monitoring/run.sh --junit "$1/monitoring.xml"
}
extra_suites+=(monitoring)

# The release (hack/release.sh): chart, Go module, Maven artifacts and
# Python package built from VERSION, version skew refused, and each
# artifact installed into an empty project (GOPROXY=file://, a file://
# Maven repository, pip --find-links) whose program lists configmaps
# through a real informerd.
suite_release() {
  bazel build //server:informerd //client/cpp:informerctl
  INFORMERD_BINARY="$INFORMERD_ROOT/bazel-bin/server/informerd" \
    INFORMERCTL_BINARY="$INFORMERD_ROOT/bazel-bin/client/cpp/informerctl" \
    tests/release/run.sh --junit "$1/release.xml"
}
extra_suites+=(release)

# HTTP/2 rapid reset against informerd behind the chart's proxy (issue 26,
# finding 3): informerd's memory stays bounded and a caller stays served.
suite_flood() {
  bazel build //server:informerd //client/cpp:informerctl
  tests/flood/run.sh --junit "$1/flood.xml"
}
extra_suites+=(flood)

suite_chart() {
  bazel build //server:informerd //client/cpp:informerctl
  tests/chart/run.sh --junit "$1/chart.xml"
}
extra_suites+=(chart)

# The chart on a real node (hack/node.sh: kubelet, containerd and the rest
# beside a control plane of its own, so this version's stays up): images
# from deploy/Dockerfile, helm install, test, upgrade and uninstall, client
# pods through the Service, evictions and a tier (tests/node/node_test.py).
# The images and the node's binaries were built in the background since the
# run began (prebuild_node).
suite_node() {
  if [[ -n "$prebuild_node_pid" ]]; then
    wait "$prebuild_node_pid" || informerd::log "building the node's binaries and images" \
      "in the background failed (log: $run_dir/prebuild-node.log); trying again"
  fi
  tests/node/run.sh --junit "$1/node.xml"
}
extra_suites+=(node)

# The integration tests against the oldest supported apiserver, in an
# output base of their own (compiled objects come from the disk cache), and
# the re-check of the selector vectors' recorded verdicts
# (tests/conformance/).
suite_bazel_integration() {
  bazel_tests integration "$INFORMERD_CACHE/bazel-kube-$INFORMERD_KUBE_VERSION" "" \
    //tests/integration/... //hack:control_plane_env_test \
    //tests/conformance:apiserver_selectors_test --test_tag_filters=-latest_kube_only
}

# The suites each version runs, in order. On 1.20 they are the ones whose
# answers depend on the apiserver: what it serves, how it fails, what it
# accepts.
declare -A suites_of_version=(
  [1.37]="bazel_all ${extra_suites[*]}"
  [1.20]="bazel_integration resilience e2e ecosystem chaos chart"
)

# Every Bazel test in the workspace's own output base: the suites after it
# use the bazel-bin it leaves.
suite_bazel_all() {
  # kubectl for //tests/integration:kube_api_test and
  # //tests/informerctl:kubectl_columns_test (nothing when installed).
  hack/install-helm.sh >/dev/null || return 1
  bazel_tests all "" "" //...
}

# Usage: run_suites VERSION
# Each suite's wall time, "VERSION SUITE SECONDS" a line, for the summary.
suite_times="$run_dir/suite-times"

run_suites() {
  local version="$1" name dir log rc started
  for name in ${suites_of_version[$version]}; do
    if [[ -n "${INFORMERD_TEST_SUITES:-}" && " $INFORMERD_TEST_SUITES " != *" $name "* ]]; then
      continue
    fi
    started=$SECONDS
    dir="$junit_root/kube-$version/$name"
    log="$run_dir/suite-$name-$version.log"
    mkdir -p "$dir"
    informerd::log "suite $name on Kubernetes $version (log: $log)"
    rc=0
    (eval "$(hack/control-plane.sh env)" && "suite_$name" "$dir") >"$log" 2>&1 || rc=$?
    if [[ "$rc" != 0 ]] && ! compgen -G "$dir/*.xml" >/dev/null; then
      failed_without_report+=("[$version] suite $name exited $rc (log: $log)")
    fi
    echo "$version $name $((SECONDS - started))" >>"$suite_times"
  done
}

# Usage: test_version VERSION; a setup that fails counts as one failure.
test_version() {
  local version="$1"
  export INFORMERD_KUBE_VERSION="$version"
  export INFORMERD_CP_DIR="$INFORMERD_CACHE/test-control-plane-$version"
  informerd::log "Kubernetes $version: control plane and suites"
  if start_control_plane; then
    run_suites "$version"
  else
    failed_without_report+=("[$version] setup of kube-apiserver, etcd or control plane (see above)")
  fi
  stop_control_plane
}
# ---------------------------------------------------------------------------

# Builds the control plane binaries of the versions after the first in the
# background at the lowest priority, so that a first run builds them in the
# idle time of the first version's suites (a fresh machine saves the 1.20
# build's 6 minutes). test_version waits for them.
declare -A prebuild_pids=()
prebuild_later_versions() {
  local version
  for version in "${kube_versions[@]:1}"; do
    (export INFORMERD_KUBE_VERSION="$version" &&
      nice -n 19 bash -c 'source hack/lib.sh && informerd::apiserver_binary &&
        informerd::etcd_binary') >"$run_dir/prebuild-$version.log" 2>&1 &
    prebuild_pids[$version]=$!
  done
}

# Builds the node's binaries and the images of tests/node in the background
# at the lowest priority, in the idle time of the suites before it.
prebuild_node_pid=""
prebuild_node() {
  nice -n 19 bash -c 'hack/node.sh build && hack/images.sh' >"$run_dir/prebuild-node.log" 2>&1 &
  prebuild_node_pid=$!
}

rm -rf "$run_dir"
mkdir -p "$run_dir" "$junit_root"
for name in ${INFORMERD_TEST_SUITES:-}; do
  declare -F "suite_$name" >/dev/null ||
    failed_without_report+=("INFORMERD_TEST_SUITES: no suite $name (choose among: bazel_all bazel_integration ${extra_suites[*]})")
done
if (informerd::ensure_deps); then
  prebuild_later_versions
  # The node's images only for a run that has the node suite.
  if [[ " ${kube_versions[*]} " == *" 1.37 "* ]] &&
    [[ -z "${INFORMERD_TEST_SUITES:-}" || " $INFORMERD_TEST_SUITES " == *" node "* ]]; then
    prebuild_node
  fi
  for version in "${kube_versions[@]}"; do
    if [[ -n "${prebuild_pids[$version]:-}" ]]; then
      # A failed build is tried again, and reported, by the control plane's start.
      wait "${prebuild_pids[$version]}" || informerd::log "building Kubernetes $version" \
        "in the background failed (log: $run_dir/prebuild-$version.log); trying again"
    fi
    if [[ -z "${suites_of_version[$version]:-}" ]]; then
      failed_without_report+=("INFORMERD_TEST_KUBE_VERSIONS: no suites for Kubernetes $version (choose among: ${!suites_of_version[*]})")
      continue
    fi
    test_version "$version"
  done
else
  failed_without_report+=("setup of Debian packages (see above)")
fi

echo
if [[ -s "$suite_times" ]]; then
  echo "Suite wall times (seconds; the whole run: $SECONDS):"
  awk '{ printf "  %-6s %-16s %6d\n", $1, $2, $3 }' "$suite_times"
fi
echo "Summary (logs in $run_dir):"
count_args=(--junit-dir "$junit_root")
if [[ -s "$bazel_runs" ]]; then
  while IFS=$'\t' read -r testlogs bep version; do
    count_args+=(--testlogs "$testlogs" --bep "$bep" --tag "$version")
  done <"$bazel_runs"
fi
for failure in "${failed_without_report[@]}"; do
  count_args+=(--failed-without-report "$failure")
done
exec python3 hack/count-test-cases.py "${count_args[@]}"
