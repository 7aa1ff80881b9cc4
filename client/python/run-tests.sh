#!/usr/bin/env bash
# Runs the Python client's unit tests and its live test (tests/test_live.py,
# which needs the variables of `hack/control-plane.sh env` and a built
# bazel-bin/server/informerd, or INFORMERD_BIN) with Debian's python3, whose
# grpc and protobuf modules the library uses.
#
# Usage: client/python/run-tests.sh [--junitxml PATH] [PYTEST_ARGS...]
#   --junitxml PATH  also write a JUnit XML report to PATH
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
args=()
while (($#)); do
  case "$1" in
    --junitxml)
      (($# >= 2)) || { echo "run-tests.sh: --junitxml needs a PATH" >&2; exit 2; }
      args+=("--junitxml=$2"); shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
"$here/gen_proto.sh"
cd "$here"
exec /usr/bin/python3 -m pytest -p no:cacheprovider -q tests ${args[@]+"${args[@]}"}
