#!/usr/bin/env bash
# Failover across three informerd replicas by resourceVersion (see
# replicas.py): about 100 watching clients of every client library, a
# replica killed, then all three restarted one after another, under writes;
# every client must end equal to the apiserver's LIST without relisting.
# One JUnit testcase per phase.
#
# Usage: tests/replicas/run.sh [--langs go,python,cpp,java] [--clients N]
#                              [--quiet-clients N] [--cases replica-kill,...]
#                              [--junit PATH] [--seed N] [--workdir DIR]
#
# Uses the control plane named by INFORMERD_APISERVER_URL & co. when set,
# else starts (or reuses) the default one (tests/e2e/prepare.sh). Builds
# informerd with Bazel (unless INFORMERD_BINARY names one), the light
# informers (client/go/internal/replicawatchers) with Go; the examples build themselves through
# hack/example.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$root/hack/lib.sh"
source "$root/tests/e2e/prepare.sh"
source "$root/client/go/env.sh"
export REPLICAS_WATCHERS_BINARY="$informerd_go_bin_dir/replicas-watchers"
(cd "$root/client/go" && go build -o "$REPLICAS_WATCHERS_BINARY" ./internal/replicawatchers) >&2
exec /usr/bin/python3 -u "$root/tests/replicas/replicas.py" "$@"
