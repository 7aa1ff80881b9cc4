#!/usr/bin/env bash
# End-to-end test of every client library through its uniform example
# program (see e2e.py): one JUnit testcase per language.
#
# Usage: tests/e2e/run.sh [--langs go,python,cpp,java] [--junit PATH]
#                         [--seed N] [--ops N] [--workdir DIR]
#
# Uses the control plane named by INFORMERD_APISERVER_URL & co. when set,
# else starts (or reuses) the default one with hack/control-plane.sh up.
# Builds informerd with Bazel; the examples build themselves through
# hack/example.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$root/hack/lib.sh"
source "$root/tests/e2e/prepare.sh"
exec /usr/bin/python3 -u "$root/tests/e2e/e2e.py" "$@"
