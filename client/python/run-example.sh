#!/usr/bin/env bash
# Runs examples/example.py with the arguments of hack/example.sh, against the
# package as pip installs it (see venv.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python="$("$here/venv.sh")"
exec "$python" -u "$here/examples/example.py" "$@"
