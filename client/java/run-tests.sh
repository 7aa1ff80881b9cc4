#!/usr/bin/env bash
# Builds the Java client, its client-java adapter and the examples, and runs
# their JUnit tests (Maven and the dependencies come from Maven Central; see
# lib/build.sh).
#
# Usage: client/java/run-tests.sh [--junit-dir DIR]
#   --junit-dir DIR  also copy the surefire XML reports of every module into DIR
# The end-to-end tests run only with INFORMERD_E2E=1 and then need the
# control plane's environment (eval "$(hack/control-plane.sh env)") and a
# built informerd (bazel-bin/server/informerd, or INFORMERD_BIN).
set -euo pipefail
source "$(dirname "$0")/lib/build.sh"
junit_dir=""
while (($#)); do
  case "$1" in
    --junit-dir) junit_dir="${2:?--junit-dir needs a directory}"; shift 2 ;;
    *) echo "usage: client/java/run-tests.sh [--junit-dir DIR]" >&2; exit 2 ;;
  esac
done

status=0
# -fae: a failing module does not hide the others' results.
informerd_mvn -fae install || status=$?
# Leaves the examples ready to start without a Maven run (the e2e suite's
# startup timeout would not cover a first build).
if ((status == 0)); then
  write_examples_classpath || status=$?
fi
if [[ -n "$junit_dir" ]]; then
  mkdir -p "$junit_dir"
  cp "$java_dir"/*/target/surefire-reports/TEST-*.xml "$junit_dir"/ 2>/dev/null || true
fi
if ((status != 0)); then
  echo "client/java/run-tests.sh: Maven build or tests failed (exit $status); see the output above" >&2
fi
exit "$status"
