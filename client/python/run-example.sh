#!/usr/bin/env bash
# Runs examples/example.py with the arguments of hack/example.sh, after
# generating the API modules if needed. Debian's python3, because the Debian
# grpc and protobuf modules live there.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
"$here/gen_proto.sh"
export PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}"
exec /usr/bin/python3 -u "$here/examples/example.py" "$@"
