#!/usr/bin/env bash
# Runs the uniform informerd example program (see hack/example.sh) with the
# Java client: builds the jar when it is missing or older than its sources,
# then execs the JVM directly, so starting costs no Maven run when nothing
# changed.
#
# Usage: client/java/run-example.sh --server ADDR --resource RESOURCE
#                                   [-n NS] [-l SELECTOR] [--token-file F]
# Environment: MAVEN_REPO (default /usr/share/maven-repo, Debian's packaged
# repository; Maven runs offline against it).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
jar="$here/target/informerd-client-0.1.0-SNAPSHOT.jar"
classpath_file="$here/target/classpath.txt"
repo="${MAVEN_REPO:-/usr/share/maven-repo}"

stale() {
  [[ ! -f "$jar" || ! -f "$classpath_file" ]] && return 0
  [[ -n "$(find "$here/src/main" "$here/pom.xml" "$here/gen_proto.sh" \
    "$here/../../proto/informerd/v1/informerd.proto" -newer "$jar" -print -quit)" ]]
}

if stale; then
  # Several examples may start at once (the e2e harness runs them in
  # parallel); one builds, the others wait and then find the jar fresh.
  mkdir -p "$here/target"
  exec 9>"$here/target/.build.lock"
  flock 9
  if stale; then
    echo "run-example.sh: building $jar" >&2
    mvn -o -q -f "$here/pom.xml" -Dmaven.repo.local="$repo" -DskipTests package >&2
    # The jar plugin keeps an up-to-date jar's old time; mark it fresh.
    touch "$jar"
  fi
  exec 9>&-
fi
exec java -cp "$jar:$(cat "$classpath_file")" io.informerd.client.examples.ExampleInformer "$@"
