#!/usr/bin/env bash
# Prints the path of a Python interpreter that has this package installed
# (non-editable, with the [test] extra), for run-tests.sh and run-example.sh.
#
# The virtualenv lives in ${INFORMERD_CACHE:-$HOME/.cache/informerd}/python-venv,
# or in $INFORMERD_PYTHON_VENV when set (e.g. one per checkout on a machine
# where several checkouts are tested at once).
# It is created from python3 on PATH (3.10 or newer) and re-created when
# pyproject.toml or setup.py change; the package is reinstalled when any of
# its sources or the .proto change. Everything is fetched from PyPI with pip.
# Progress goes to stderr, so stdout is only the interpreter's path.
#
# Usage: py="$(client/python/venv.sh)"
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cache="${INFORMERD_CACHE:-$HOME/.cache/informerd}"
venv="${INFORMERD_PYTHON_VENV:-$cache/python-venv}"

fail() { echo "client/python/venv.sh: $*" >&2; exit 1; }

python="$(command -v python3)" || fail "python3 not found on PATH (need Python 3.10 or newer)"
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' ||
  fail "$python is Python $("$python" -c 'import platform; print(platform.python_version())'); need 3.10 or newer"

mkdir -p "$(dirname "$venv")"
# run-tests.sh and the e2e examples may start at once; one installs, the
# other waits and then finds everything current.
exec 9>"$venv.lock"
flock 9

digest() { sha256sum "$@" | sha256sum | cut -d' ' -f1; }
env_digest="$("$python" -c 'import sys; print(sys.version)' | sha256sum | cut -d' ' -f1)-$(digest "$here/pyproject.toml" "$here/setup.py")"
mapfile -t sources < <(cd "$here" && find informerd -name '*.py' ! -name 'informerd_pb2*' | sort)
package_digest="$(cd "$here" && digest pyproject.toml setup.py MANIFEST.in "${sources[@]}" "$root/proto/informerd/v1/informerd.proto")"

if [[ "$(cat "$venv/.informerd-env" 2>/dev/null)" != "$env_digest" ]]; then
  echo "venv.sh: creating $venv" >&2
  rm -rf "$venv"
  "$python" -m venv "$venv" >&2 || fail "python3 -m venv $venv failed"
  echo "$env_digest" > "$venv/.informerd-env"
fi

if [[ "$(cat "$venv/.informerd-package" 2>/dev/null)" != "$package_digest" ]]; then
  echo "venv.sh: installing $here[test] into $venv" >&2
  rm -f "$venv/.informerd-package"
  # setuptools builds in the source tree; what a previous build left there
  # (e.g. a module since deleted) must not end up in this one.
  rm -rf "$here/build" "$here"/*.egg-info
  status=0
  # pip always reinstalls a package given as a local directory.
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "$here[test]" >&2 || status=$?
  rm -rf "$here/build" "$here"/*.egg-info
  ((status == 0)) || fail "pip install $here[test] into $venv failed (exit $status); see pip's messages above"
  echo "$package_digest" > "$venv/.informerd-package"
fi
echo "$venv/bin/python"
