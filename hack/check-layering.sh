#!/usr/bin/env bash
# The build's layering, checked with bazel query: the client libraries
# depend on nothing under //server/ (what both need, e.g. the selectors,
# lives in a package of its own). One JUnit testcase per rule.
#
# Usage: hack/check-layering.sh [--junit PATH]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
junit=""
case "${1:-}" in
  --junit) junit="${2:?--junit needs a path}" ;;
  "") ;;
  *) echo "usage: hack/check-layering.sh [--junit PATH]" >&2; exit 2 ;;
esac
cd "$root"

# name|query whose answer must be empty|what it means when it is not
rules=(
  "client_cpp_no_server|deps(//client/...) intersect //server/...|the C++ client depends on server packages"
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
    body="$(echo "$found" | sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g')"
    cases+="  <testcase classname=\"layering\" name=\"$name\"><failure message=\"$meaning\">$body</failure></testcase>"$'\n'
  else
    echo "layering: $name: ok"
    cases+="  <testcase classname=\"layering\" name=\"$name\"/>"$'\n'
  fi
done
if [[ -n "$junit" ]]; then
  mkdir -p "$(dirname "$junit")"
  printf '<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="layering" tests="%d" failures="%d">\n%s</testsuite>\n' \
    "${#rules[@]}" "$failures" "$cases" >"$junit"
fi
((failures == 0))
