#!/usr/bin/env bash
# Builds informerd's libFuzzer targets with clang (directly, not through
# Bazel, so the shared Bazel server keeps its gcc toolchain) and runs each
# for N seconds. Writes JUnit XML with one test case per target.
#
# Usage: tests/fuzz/run.sh [--seconds N] [--only REGEX] [--jobs N] [--junit PATH]
#
# --only runs the targets whose name matches REGEX (e.g. 'config|discovery');
# --jobs is how many targets compile at once (2).
#
# The Bazel cc_binary targets of the same sources (tagged "manual") document
# the dependencies; a crash leaves its input under $out_dir/<target>.crashes/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source hack/lib.sh

seconds=20
jobs=2
only=""
junit=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --junit) junit="$2"; shift 2 ;;
    *) echo "usage: $0 [--seconds N] [--only REGEX] [--jobs N] [--junit PATH]" >&2; exit 2 ;;
  esac
done

readonly out_dir="${INFORMERD_FUZZ_DIR:-${TMPDIR:-/tmp}/informerd-fuzz}"
mkdir -p "$out_dir"
readonly absl_libs="$(pkg-config --libs absl_statusor absl_status absl_strings absl_time \
  absl_synchronization)"
readonly flags=(-std=c++17 -O1 -g -I. -fsanitize=fuzzer,address,undefined
                -fno-sanitize-recover=undefined)

readonly rapidjson_flags="-fno-sanitize=pointer-overflow"
readonly yaml_flags="$(pkg-config --cflags --libs yaml-cpp)"
# object_builder_fuzzer checks the wire form against the generated message.
# Generated code is compiled once, plainly: instrumented it took 50 s to
# build and is not what the target fuzzes.
readonly proto_dir="$out_dir/proto"
mkdir -p "$proto_dir"
protoc -Iproto --cpp_out="$proto_dir" proto/informerd/v1/informerd.proto
clang++ -std=c++17 -O1 -I"$proto_dir" -c "$proto_dir/informerd/v1/informerd.pb.cc" \
  -o "$proto_dir/informerd.pb.o"
# name: sources (and flags of its own)...
declare -A targets=(
  [bearer_token_fuzzer]="server/auth/bearer_token_fuzzer.cc server/auth/bearer_token.cc"
  [continue_token_fuzzer]="server/service/continue_token_fuzzer.cc server/service/continue_token.cc server/cache/resource_version.cc $(pkg-config --libs libcrypto)"
  # RapidJSON 1.1's internal Stack adds an offset to a null pointer when it
  # first grows (internal/stack.h), which UBSan's pointer-overflow check
  # reports on every document; the targets that parse with it skip that check.
  [json_writer_fuzzer]="$rapidjson_flags server/cache/json_writer_fuzzer.cc server/cache/json_writer.cc"
  [list_stream_decoder_fuzzer]="$rapidjson_flags server/kube/list_stream_decoder_fuzzer.cc server/kube/list_stream_decoder.cc server/kube/member_cut.cc"
  [watch_decoder_fuzzer]="server/kube/watch_decoder_fuzzer.cc server/kube/watch_decoder.cc"
  [selector_fuzzer]="selector/selector_fuzzer.cc $(ls selector/*.cc | grep -v -e _test.cc -e _fuzzer.cc | tr '\n' ' ')"
  # What the apiserver answers, and the files an operator writes (issue 15).
  # Bearer tokens checked locally against the issuer's keys (issue 38).
  [jwt_verifier_fuzzer]="$rapidjson_flags server/auth/jwt_verifier_fuzzer.cc server/auth/jwt_verifier.cc server/json/json_parse.cc $(pkg-config --libs libcrypto)"
  [review_response_fuzzer]="$rapidjson_flags server/auth/review_response_fuzzer.cc server/auth/review_response.cc server/json/json_parse.cc"
  [api_status_fuzzer]="$rapidjson_flags server/kube/api_status_fuzzer.cc server/kube/api_status.cc server/json/json_parse.cc"
  [url_query_fuzzer]="server/kube/url_query_fuzzer.cc server/kube/url_query.cc"
  [api_path_fuzzer]="server/kubeapi/api_path_fuzzer.cc server/kubeapi/api_path.cc"
  [discovery_fuzzer]="$rapidjson_flags server/kube/discovery_fuzzer.cc server/kube/discovery.cc server/kube/api_status.cc server/kube/url_query.cc server/json/json_parse.cc"
  [kubeconfig_fuzzer]="server/kube/kubeconfig_fuzzer.cc server/kube/kubeconfig.cc $yaml_flags"
  [config_fuzzer]="server/config/config_fuzzer.cc server/config/config.cc server/kube/resource_name.cc $yaml_flags"
  [object_builder_fuzzer]="$rapidjson_flags -I$proto_dir server/cache/object_builder_fuzzer.cc server/cache/object_builder.cc server/json/json_parse.cc server/cache/object.cc server/cache/metadata_projection.cc server/cache/field_mask.cc server/cache/field_mask_projection.cc server/cache/json_writer.cc server/cache/resource_version.cc $proto_dir/informerd.pb.o $(pkg-config --cflags --libs protobuf grpc++)"
  # Field masks (issue 36): any mask on any object, against pruning the parse.
  [field_mask_projection_fuzzer]="$rapidjson_flags server/cache/field_mask_projection_fuzzer.cc server/cache/field_mask_projection.cc server/cache/field_mask.cc server/cache/field_mask_oracle.cc server/cache/json_writer.cc"
  # What a root informerd sends a leaf (issue 26): a root is not trusted to
  # be well-formed.
  [upstream_events_fuzzer]="$rapidjson_flags -I$proto_dir server/tier/upstream_events_fuzzer.cc server/tier/upstream_events.cc server/tier/version_bound.cc server/json/json_parse.cc server/cache/resource_version.cc server/log/log.cc $proto_dir/informerd.pb.o $(pkg-config --cflags --libs protobuf)"
)

# These run for half of --seconds (10 s in CI), so the seven targets added
# for issue 15 add about 80 s of fuzzing, not 140: measured over 60 s runs,
# each reached over 90% of its final edge coverage within 10 s (api_status
# 96%, config 92%), and deep runs belong to local runs that keep their
# corpus. object_builder_fuzzer keeps the full time: its input is what
# tenants write.
readonly quick_targets="review_response_fuzzer api_status_fuzzer url_query_fuzzer api_path_fuzzer discovery_fuzzer kubeconfig_fuzzer config_fuzzer"

# Seeds: inputs the parsers accept, so mutation starts past the framing.
for name in "${!targets[@]}"; do mkdir -p "$out_dir/$name.corpus"; done
printf 'Bearer abc.def-ghi' >"$out_dir/bearer_token_fuzzer.corpus/seed"
# A token's shape, and a point: 8 bytes of version, then a key.
printf '%s' "$(printf 'i2xxxxxxxxmmmmmmmmmmmmmmmm5:0:ns/name' | base64 | tr '+/' '-_' | tr -d '=')" \
  >"$out_dir/continue_token_fuzzer.corpus/seed"
printf '\000\000\000\000\000\000\000\005ns/name' >"$out_dir/continue_token_fuzzer.corpus/point"
printf 'app in (a,b),!tier' >"$out_dir/selector_fuzzer.corpus/seed"
printf 'spec.containers.image,status.podIP,metadata.labels.app\n{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","uid":"u","labels":{"app":"a","x":"}"}},"spec":{"containers":[{"name":"c","image":"i"},{"image":["j"]},7,null]},"status":{"podIP":null}}' \
  >"$out_dir/field_mask_projection_fuzzer.corpus/seed"
printf '{"a":["x\\n\\u0001",1.5,true,null],"long":"%s"}' "$(printf 'v%.0s' {1..40})" \
  >"$out_dir/json_writer_fuzzer.corpus/seed"
printf '\007{"kind":"PodList","metadata":{"resourceVersion":"5"},"items":[{"a":"}"},{"b":[1]},%s]}' \
  '{"metadata":{"name":"p","managedFields":[{"f:x":{"}":[]}}],"uid":"u"},"spec":{}}' \
  >"$out_dir/list_stream_decoder_fuzzer.corpus/seed"
printf '\005{"type":"ADDED","object":{}}\n\r\n  {"type":"BOOKMARK"} \n{"type"' \
  >"$out_dir/watch_decoder_fuzzer.corpus/seed"
# The first byte picks the review and HTTP status (0: TokenReview, 201;
# 1: SubjectAccessReview, 201).
printf '\000{"kind":"TokenReview","status":{"authenticated":true,"user":{"username":"alice","uid":"u1","groups":["dev","system:authenticated"],"extra":{"scopes":["a","b"]}},"audiences":["x"]}}' \
  >"$out_dir/review_response_fuzzer.corpus/token"
printf '\000{"status":{"authenticated":false,"error":"token expired"}}' \
  >"$out_dir/review_response_fuzzer.corpus/rejected"
printf '\001{"kind":"SubjectAccessReview","status":{"allowed":true,"denied":false,"reason":"RBAC"}}' \
  >"$out_dir/review_response_fuzzer.corpus/access"
# A key set (an RSA key of 2048 bits, a malformed EC key), a NUL, then a
# token naming the RSA key, with a signature that does not match.
printf '%s\000%s' '{"keys":[{"kty":"RSA","use":"sig","kid":"k","n":"wmTZLO_aAXfyUYoJbAxHqyUJ8ZaOPN5eEeE59L5kFURb698C_nfYl84ZjdlKxRA07vxEhh-bU707S88bxHLTVKs1hwMDUZku7JgEDcbnpr7SvQlA9tEtOfKH3qk5DRtXpaSAHvvZ46TSs3MALo6mp9B16RVaCmQF43DnOAiD15mY97lRPJaKxH7eRXAY2mQ9Qk3G4s0iCAt7n_4ZAig-S7dmFND9Vw4F7inwHvuYXwg5QJZl_qqA5WBJMDJ1lZg2CbEYGq8026N_xtU4LXS7RsdibJXw9ZCbfnNmDG4Ya7JZbpZzSj5URlDlNMSQX-hQtyHi9x7zdX7tGJLGc_nbFQ","e":"AQAB"},{"kty":"EC","crv":"P-256","kid":"e","x":"AAAA","y":"AAAA"}]}' \
  'eyJhbGciOiJSUzI1NiIsImtpZCI6ImsifQ.eyJpc3MiOiJpc3N1ZXIiLCJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6YTpiIiwiYXVkIjpbImF1ZCJdLCJleHAiOjE4MDAwMDA2MDAsIm5iZiI6MTc5OTk5OTAwMH0.AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0-P0BBQkNERUZHSElKS0xNTk9QUVJTVFVWV1hZWltcXV5fYGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6e3x9fn-AgYKDhIWGh4iJiouMjY6PkJGSk5SVlpeYmZqbnJ2en6ChoqOkpaanqKmqq6ytrq-wsbKztLW2t7i5uru8vb6_wMHCw8TFxsfIycrLzM3Oz9DR0tPU1dbX2Nna29zd3t_g4eLj5OXm5-jp6uvs7e7v8PHy8_T19vf4-fr7_P3-_w' >"$out_dir/jwt_verifier_fuzzer.corpus/seed"
# Two bytes of HTTP status (410, 502), then the body.
printf '\001\232{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 5 (10)","reason":"Expired","code":410}' \
  >"$out_dir/api_status_fuzzer.corpus/status"
printf '\001\366<html><body>Bad Gateway</body></html>' >"$out_dir/api_status_fuzzer.corpus/html"
printf 'app in (a,b),tier!=x,metadata.name=caf\303\251' >"$out_dir/url_query_fuzzer.corpus/seed"
printf '/apis/apps/v1/namespaces/web/deployments/front/status' >"$out_dir/api_path_fuzzer.corpus/seed"
# Flags (group apps or core, version asked or not, both GETs answered 200),
# then the two documents separated by a NUL.
printf '\001{"kind":"APIGroupList","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}]}\000{"kind":"APIResourceList","resources":[{"name":"deployments","namespaced":true,"kind":"Deployment","verbs":["get","list","watch"]}]}' \
  >"$out_dir/discovery_fuzzer.corpus/apps"
printf '\002{"kind":"APIVersions","versions":["v1"]}\000{"resources":[{"name":"deployments","namespaced":false,"kind":"D","verbs":["list","watch"]}]}' \
  >"$out_dir/discovery_fuzzer.corpus/core"
cat >"$out_dir/kubeconfig_fuzzer.corpus/seed" <<'EOF'
apiVersion: v1
kind: Config
current-context: dev
contexts:
- name: dev
  context: {cluster: kind, user: admin}
clusters:
- name: kind
  cluster:
    server: https://127.0.0.1:6443/
    certificate-authority-data: Y2EK
users:
- name: admin
  user:
    token: abc
    tokenFile: token
    client-certificate: cert.pem
    client-key-data: a2V5
EOF
cat >"$out_dir/config_fuzzer.corpus/seed" <<'EOF'
resources:
- resource: pods
  namespace: team-a
  labelSelector: app in (a,b)
  fieldIndexes: [spec.nodeName, status.phase]
  dropFields: [metadata.annotations]
  stripManagedFields: false
- {resource: deployments, group: apps, version: v1}
history: {windowSeconds: 120, minEvents: 10, maxEvents: 1000}
readWaitSeconds: 5
maxPageBytes: 65536
authMode: kubernetes
sensitiveResources: [configmaps]
tls: {certFile: /tls/crt, keyFile: /tls/key, http: true, refreshSeconds: 30}
limits: {maxWatches: 10, requestsPerSecond: 50, requestBurstPerIdentity: 5}
EOF
# The first byte picks the schema (bit 0: fill in apiVersion and kind;
# 1: strip managedFields; 2: drop fields; 3: a repeated field index).
printf '\017{"metadata":{"name":"p","namespace":"ns","uid":"u","resourceVersion":"42","labels":{"app":"a","tier":"b"},"annotations":{"x":"y"},"managedFields":[{"manager":"m"}]},"spec":{"nodeName":"n1","a":{"b":"c"},"n":1.5},"status":{"phase":"Running"}}' \
  >"$out_dir/object_builder_fuzzer.corpus/pod"
printf '\000{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","resourceVersion":"7"}}' \
  >"$out_dir/object_builder_fuzzer.corpus/typed"
# A list of one item, its end, an event, a bookmark (see the fuzzer's header).
{
  printf '\001\000|5|{"metadata":{"name":"a","resourceVersion":"5"}}\000'
  printf '\004\001|9||\000'
  printf '\002\002|11|11|{"metadata":{"name":"a","resourceVersion":"11"},"data":[[{}]]}\000'
  printf '\000\100|12||\000'
} >"$out_dir/upstream_events_fuzzer.corpus/stream"

# How long a target runs: --seconds, or a share of it for the targets listed
# in quick_targets (see there).
target_seconds() {
  if [[ " $quick_targets " == *" $1 "* ]]; then
    echo $(( seconds / 2 > 0 ? seconds / 2 : 1 ))
  else
    echo "$seconds"
  fi
}

selected=()
for name in $(printf '%s\n' "${!targets[@]}" | sort); do
  [[ -z "$only" || "$name" =~ $only ]] && selected+=("$name")
done

# Compiling is most of the suite's time and each target is one clang++, so
# the targets are compiled two at a time (--jobs), then run one by one (each
# fuzzer is single-threaded; running them side by side would only share
# the cores). A compile's log starts the target's log; its status and
# seconds go to $out_dir/<target>.compiled.
compile() {
  local name="$1" begin
  begin=$(date +%s)
  # shellcheck disable=SC2086
  if clang++ "${flags[@]}" ${targets[$name]} $absl_libs -o "$out_dir/$name" \
    >"$out_dir/$name.log" 2>&1; then
    echo "0 $(( $(date +%s) - begin ))" >"$out_dir/$name.compiled"
  else
    echo "1 $(( $(date +%s) - begin ))" >"$out_dir/$name.compiled"
  fi
}
running=0
for name in "${selected[@]}"; do
  if ((running >= jobs)); then
    wait -n
    running=$((running - 1))
  fi
  compile "$name" &
  running=$((running + 1))
done
wait

cases=""
failures=0
for name in "${selected[@]}"; do
  binary="$out_dir/$name"
  log="$out_dir/$name.log"
  read -r compile_status compile_seconds <"$out_dir/$name.compiled"
  start=$(date +%s)
  if [[ "$compile_status" -eq 0 ]] &&
    mkdir -p "$out_dir/$name.corpus" "$out_dir/$name.crashes" &&
    "$binary" -max_total_time="$(target_seconds "$name")" -max_len=4096 \
      -artifact_prefix="$out_dir/$name.crashes/" "$out_dir/$name.corpus" >>"$log" 2>&1; then
    echo "PASS $name (compiled in $compile_seconds s, ran $(( $(date +%s) - start )) s)"
    cases+="$(informerd::junit_case fuzz "$name" $(( $(date +%s) - start + compile_seconds )))"$'\n'
  else
    echo "FAIL $name (log: $log)"
    failures=$((failures + 1))
    cases+="$(informerd::junit_case fuzz "$name" $(( $(date +%s) - start + compile_seconds )) \
      "fuzzer failed; log: $log" "$(tail -n 30 "$log")")"$'\n'
  fi
done

if [[ -n "$junit" ]]; then
  informerd::junit_write "$junit" fuzz "${#selected[@]}" "$failures" "$cases"
fi
[[ $failures -eq 0 ]]
