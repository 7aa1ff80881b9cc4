#!/usr/bin/env bash
# Builds the Java client offline and runs its JUnit tests.
#
# Usage: client/java/run-tests.sh [--junit-dir DIR]
#   --junit-dir DIR  also copy the surefire XML reports into DIR
# The end-to-end test runs only with INFORMERD_E2E=1 and then needs the
# control plane's environment (eval "$(hack/control-plane.sh env)") and a
# built informerd (bazel-bin/server/informerd, or INFORMERD_BIN).
# Environment: MAVEN_REPO (default /usr/share/maven-repo, Debian's packaged
# repository).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
junit_dir=""
while (($#)); do
  case "$1" in
    --junit-dir) junit_dir="${2:?--junit-dir needs a directory}"; shift 2 ;;
    *) echo "usage: client/java/run-tests.sh [--junit-dir DIR]" >&2; exit 2 ;;
  esac
done

status=0
mvn -o -B -f "$here/pom.xml" -Dmaven.repo.local="${MAVEN_REPO:-/usr/share/maven-repo}" test ||
  status=$?
if [[ -n "$junit_dir" ]]; then
  mkdir -p "$junit_dir"
  cp "$here"/target/surefire-reports/TEST-*.xml "$junit_dir"/ 2>/dev/null || true
fi
exit "$status"
