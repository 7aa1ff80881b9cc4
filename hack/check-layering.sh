#!/usr/bin/env bash
# The build's layering, checked with bazel query: the client libraries
# depend on nothing under //server/ (what both need, e.g. the selectors,
# lives in a package of its own), and informerd is assembled only by
# Server (tests start it through Server too). One JUnit testcase per rule.
#
# Usage: hack/check-layering.sh [--junit PATH]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
junit=""
case "${1:-}" in
  --junit) junit="${2:?--junit needs a path}" ;;
  "") ;;
  *) echo "usage: hack/check-layering.sh [--junit PATH]" >&2; exit 2 ;;
esac
cd "$INFORMERD_ROOT"

# name|query whose answer must be empty|what it means when it is not
rules=(
  "client_cpp_no_server|deps(//client/...) intersect //server/...|the C++ client depends on server packages"
  "retry_no_server|deps(//retry/...) intersect //server/...|the shared retry package depends on server packages"
  "one_assembly|rdeps(//..., //server/service:cache_service, 1) except //server/...|something outside //server/ builds the Cache service itself instead of starting a Server (server/server.h)"
)
failures=0
cases=""
for rule in "${rules[@]}"; do
  IFS='|' read -r name query meaning <<<"$rule"
  if ! found="$(bazel query --noshow_progress "$query" 2>/tmp/check-layering.$$)"; then
    found="bazel query failed: $(tail -n 5 /tmp/check-layering.$$)"
  fi
  rm -f /tmp/check-layering.$$
  if [[ -n "$found" ]]; then
    failures=$((failures + 1))
    echo "layering: $name: $meaning:" >&2
    echo "$found" | sed 's/^/  /' >&2
    cases+="$(informerd::junit_case layering "$name" 0 "$meaning" "$found")"$'\n'
  else
    echo "layering: $name: ok"
    cases+="$(informerd::junit_case layering "$name" 0)"$'\n'
  fi
done
if [[ -n "$junit" ]]; then
  informerd::junit_write "$junit" layering "${#rules[@]}" "$failures" "$cases"
fi
((failures == 0))
