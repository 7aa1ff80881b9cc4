#!/usr/bin/env bash
# Runs one language's example informer with the same command line and the
# same output as the others, so the four client libraries can be checked
# alike (tests/e2e drives all of them through this).
#
# Usage: hack/example.sh LANG --server ADDR --resource RESOURCE [-n NS]
#                            [-l SELECTOR] [--token-file F] [--ca-file F]
#   ADDR: host:port, or several ip:port separated by commas (replicas,
#         balanced round robin; a watch broken by one resumes on another).
#   LANG: go, java, python or cpp: the client library's own informer;
#         go-controller-runtime or java-kubernetes-client: an example
#         controller on that library, its informers from informerd through
#         the client's adapter (it also prints RECONCILED lines).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
lang="${1:-}"
case "$lang" in
  go|java|python|cpp) script="$root/client/$lang/run-example.sh" ;;
  go-controller-runtime|java-kubernetes-client)
    script="$root/client/${lang%%-*}/run-example-${lang#*-}.sh" ;;
  *) echo "usage: hack/example.sh go|java|python|cpp|go-controller-runtime|java-kubernetes-client --server ADDR --resource RESOURCE [-n NS] [-l SELECTOR] [--token-file F] [--ca-file F]" >&2; exit 2 ;;
esac
shift
exec "$script" "$@"
