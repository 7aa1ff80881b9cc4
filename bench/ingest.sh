#!/usr/bin/env bash
# Ingest against today's client-go (docs/BENCHMARKS.md, "Ingest"), side by
# side on one CPU of their own: bench/ingest_benchmark (informerd's paths
# from a watch frame or list page to the Informer, Google Benchmark,
# medians of REPETITIONS) and client-go's own deserializer decoding one pod
# as the kube-apiserver of `hack/control-plane.sh env` serves it, in JSON
# and in protobuf (bench/clientgo --decode, medians of REPETITIONS). The pod
# is bench/pod_fixture's, created with its status (bench/bulk_loader) in the
# namespace bench-ingest. Rates are per CPU second, in MB of JSON: informerd's
# of its fixture's pods (10.8 KB), client-go's of the served pod (11.9 KB,
# with a third managedFields entry), its protobuf decodes counted at that
# pod's JSON size; so the ratios compare work per byte of JSON.
#
# Usage: bench/ingest.sh [--quick]
#   --quick  one repetition, 0.1 s each (the smoke run)
# Settings (environment): INGEST_REPETITIONS (3), INGEST_MIN_TIME (1 s per
#   benchmark), INGEST_FILTER (Google Benchmark regex: which rows)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../hack/lib.sh"
source "$INFORMERD_ROOT/bench/lib.sh"
cd "$INFORMERD_ROOT"

repetitions="${INGEST_REPETITIONS:-3}"
min_time="${INGEST_MIN_TIME:-1}"
filter="${INGEST_FILTER:-.}"
decode_seconds=3
if [[ "${1:-}" == "--quick" ]]; then
  repetitions=1 min_time=0.1 decode_seconds=0.3
fi

eval "$(hack/control-plane.sh env)"
bin="$(bench::build_opt)"
bazel build -c opt --symlink_prefix=/ //bench:ingest_benchmark >&2
clientgo="$(bench::clientgo_binary)"
bench::make_run_dir
bench::split_cpus
bench::pin_control_plane "$bench_other_cpus"

ns=bench-ingest
bench::load "$bin" pods "$ns" 1
name="$(bench::api "$INFORMERD_APISERVER_URL/api/v1/namespaces/$ns/pods?limit=1" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["items"][0]["metadata"]["name"])')"
bench::api -H 'Accept: application/json' -o "$run_dir/pod.json" \
  "$INFORMERD_APISERVER_URL/api/v1/namespaces/$ns/pods/$name"
bench::api -H 'Accept: application/vnd.kubernetes.protobuf' -o "$run_dir/pod.pb" \
  "$INFORMERD_APISERVER_URL/api/v1/namespaces/$ns/pods/$name"

taskset -c "$bench_server_cpu" "$bin/bench/ingest_benchmark" --benchmark_filter="$filter" \
  --benchmark_min_time="$min_time" --benchmark_repetitions="$repetitions" \
  --benchmark_format=json >"$run_dir/ingest.json" 2>"$run_dir/ingest.err" ||
  informerd::die "ingest_benchmark failed: $(tail -3 "$run_dir/ingest.err")"
for format in json pb; do
  for ((i = 0; i < repetitions; i++)); do
    taskset -c "$bench_server_cpu" "$clientgo" --decode "$run_dir/pod.$format" \
      --decode-seconds "${decode_seconds}s" >>"$run_dir/decode-$format"
  done
done

python3 - "$run_dir" <<'PY'
import json, os, statistics, sys
run = sys.argv[1]
json_bytes = os.path.getsize(os.path.join(run, "pod.json"))
pb_bytes = os.path.getsize(os.path.join(run, "pod.pb"))

def decodes_per_second(fmt):
    rates = []
    for line in open(os.path.join(run, "decode-" + fmt)):
        f = dict(kv.split("=") for kv in line.split())
        rates.append(int(f["decodes"]) / float(f["cpu_seconds"]))
    return statistics.median(rates)

json_rate = decodes_per_second("json")
pb_rate = decodes_per_second("pb")
json_mb = json_rate * json_bytes / 1e6
pb_mb = pb_rate * json_bytes / 1e6
print(f"client-go v0.37 (bench/clientgo), one pod as the apiserver serves it: JSON {json_bytes} B, "
      f"protobuf {pb_bytes} B")
print()
print("| decoder | pods/s per CPU second | MB/s of the pod's JSON |")
print("|---|---|---|")
print(f"| client-go JSON | {json_rate:,.0f} | {json_mb:.1f} |")
print(f"| client-go protobuf | {pb_rate:,.0f} | {pb_mb:.1f} |")
print()
benchmarks = json.load(open(os.path.join(run, "ingest.json")))["benchmarks"]
# With repetitions, their median; with one run, that run.
medians = [b for b in benchmarks if b.get("aggregate_name") == "median"]
rows = {b["run_name"]: b["bytes_per_second"] / 1e6
        for b in (medians or benchmarks) if "bytes_per_second" in b}
print("| informerd benchmark | MB/s per CPU second | x client-go JSON | x client-go protobuf |")
print("|---|---|---|---|")
for name, mb in rows.items():
    print(f"| {name} | {mb:.0f} | {mb / json_mb:.2f}x | {mb / pb_mb:.2f}x |")
PY
