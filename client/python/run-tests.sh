#!/usr/bin/env bash
# Runs the Python client's unit tests and its live test against the package
# as pip installs it (see venv.sh), from a directory where the source tree
# is not importable. The live test (tests/test_live.py) needs the variables
# of `hack/control-plane.sh env` and an informerd binary: INFORMERD_BIN, or
# a built bazel-bin/server/informerd.
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
      # pytest runs elsewhere; a relative PATH means the caller's directory.
      args+=("--junitxml=$(realpath -m "$2")"); shift 2 ;;
    --junitxml=*) args+=("--junitxml=$(realpath -m "${1#--junitxml=}")"); shift ;;
    *) args+=("$1"); shift ;;
  esac
done
python="$("$here/venv.sh")"
rundir="$(mktemp -d)"
trap 'rm -rf "$rundir"' EXIT
cd "$rundir"
"$python" -m pytest -q --rootdir "$here" -c "$here/pyproject.toml" \
  "$here/tests" ${args[@]+"${args[@]}"}
