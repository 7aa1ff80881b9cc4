#!/usr/bin/env bash
# Builds (incrementally, with Bazel) and runs the C++ example informer;
# hack/example.sh cpp dispatches here with the same arguments. See
# example/example_main.cc for the arguments and the output. Bazel's output
# goes to a log file so that stdout carries only the example's lines.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
log_dir="${INFORMERD_CACHE:-$HOME/.cache/informerd}"
mkdir -p "$log_dir"
log="$log_dir/cpp-example-build.log"
# bazel info names this build's output directory; the bazel-bin symlink
# follows whichever build ran last, whatever its options.
if ! bin_dir="$(cd "$root" && bazel build //client/cpp:example >"$log" 2>&1 &&
  bazel info bazel-bin 2>>"$log")"; then
  echo "run-example.sh: building //client/cpp:example failed; last lines of $log:" >&2
  tail -n 30 "$log" >&2
  exit 1
fi
exec "$bin_dir/client/cpp/example" "$@"
