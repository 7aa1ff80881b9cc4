#!/usr/bin/env bash
# Builds informerd's libFuzzer targets with clang (directly, not through
# Bazel, so the shared Bazel server keeps its gcc toolchain) and runs each
# for N seconds. Writes JUnit XML with one test case per target.
#
# Usage: tests/fuzz/run.sh [--seconds N] [--junit PATH]
#
# The Bazel cc_binary targets of the same sources (tagged "manual") document
# the dependencies; a crash leaves its input under $out_dir/<target>/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source hack/lib.sh

seconds=20
junit=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --junit) junit="$2"; shift 2 ;;
    *) echo "usage: $0 [--seconds N] [--junit PATH]" >&2; exit 2 ;;
  esac
done

readonly out_dir="${INFORMERD_FUZZ_DIR:-${TMPDIR:-/tmp}/informerd-fuzz}"
mkdir -p "$out_dir"
readonly absl_libs="$(pkg-config --libs absl_statusor absl_status absl_strings absl_time)"
readonly flags=(-std=c++17 -O1 -g -I. -fsanitize=fuzzer,address,undefined
                -fno-sanitize-recover=undefined)

readonly rapidjson_flags="-fno-sanitize=pointer-overflow"
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
)

# Seeds: inputs the parsers accept, so mutation starts past the framing.
mkdir -p "$out_dir/bearer_token_fuzzer.corpus" "$out_dir/continue_token_fuzzer.corpus" \
  "$out_dir/selector_fuzzer.corpus" "$out_dir/json_writer_fuzzer.corpus" \
  "$out_dir/list_stream_decoder_fuzzer.corpus" "$out_dir/watch_decoder_fuzzer.corpus"
printf 'Bearer abc.def-ghi' >"$out_dir/bearer_token_fuzzer.corpus/seed"
# A token's shape, and a point: 8 bytes of version, then a key.
printf '%s' "$(printf 'i2xxxxxxxxmmmmmmmmmmmmmmmm5:0:ns/name' | base64 | tr '+/' '-_' | tr -d '=')" \
  >"$out_dir/continue_token_fuzzer.corpus/seed"
printf '\000\000\000\000\000\000\000\005ns/name' >"$out_dir/continue_token_fuzzer.corpus/point"
printf 'app in (a,b),!tier' >"$out_dir/selector_fuzzer.corpus/seed"
printf '{"a":["x\\n\\u0001",1.5,true,null],"long":"%s"}' "$(printf 'v%.0s' {1..40})" \
  >"$out_dir/json_writer_fuzzer.corpus/seed"
printf '\007{"kind":"PodList","metadata":{"resourceVersion":"5"},"items":[{"a":"}"},{"b":[1]},%s]}' \
  '{"metadata":{"name":"p","managedFields":[{"f:x":{"}":[]}}],"uid":"u"},"spec":{}}' \
  >"$out_dir/list_stream_decoder_fuzzer.corpus/seed"
printf '\005{"type":"ADDED","object":{}}\n\r\n  {"type":"BOOKMARK"} \n{"type"' \
  >"$out_dir/watch_decoder_fuzzer.corpus/seed"

cases=""
failures=0
for name in $(printf '%s\n' "${!targets[@]}" | sort); do
  binary="$out_dir/$name"
  log="$out_dir/$name.log"
  start=$(date +%s)
  # shellcheck disable=SC2086
  if clang++ "${flags[@]}" ${targets[$name]} $absl_libs -o "$binary" >"$log" 2>&1 &&
    mkdir -p "$out_dir/$name.corpus" "$out_dir/$name.crashes" &&
    "$binary" -max_total_time="$seconds" -max_len=4096 \
      -artifact_prefix="$out_dir/$name.crashes/" "$out_dir/$name.corpus" >>"$log" 2>&1; then
    echo "PASS $name"
    cases+="$(informerd::junit_case fuzz "$name" $(( $(date +%s) - start )))"$'\n'
  else
    echo "FAIL $name (log: $log)"
    failures=$((failures + 1))
    cases+="$(informerd::junit_case fuzz "$name" $(( $(date +%s) - start )) \
      "fuzzer failed; log: $log" "$(tail -n 30 "$log")")"$'\n'
  fi
done

if [[ -n "$junit" ]]; then
  informerd::junit_write "$junit" fuzz "${#targets[@]}" "$failures" "$cases"
fi
[[ $failures -eq 0 ]]
