#!/usr/bin/env bash
# Runs one language's example informer with the same command line and the
# same output as the others, so the four client libraries can be checked
# alike (tests/e2e drives all of them through this).
#
# Usage: hack/example.sh LANG --server ADDR --resource RESOURCE [-n NS]
#                            [-l SELECTOR] [--token-file F]
#   LANG: go, java, python or cpp
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
lang="${1:-}"
case "$lang" in
  go|java|python|cpp) shift ;;
  *) echo "usage: hack/example.sh go|java|python|cpp --server ADDR --resource RESOURCE [-n NS] [-l SELECTOR] [--token-file F]" >&2; exit 2 ;;
esac
exec "$root/client/$lang/run-example.sh" "$@"
