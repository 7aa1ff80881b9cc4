# Sourced by run-example.sh, run-example-kubernetes-client.sh and
# run-tests.sh: one way to run Maven and to build the examples once.
#
# Maven comes from ./mvnw (Maven 3.9.16 from Maven Central, which
# protobuf-maven-plugin 5 needs; Debian's 3.8.7 is too old), dependencies from
# Maven Central into ~/.m2. The examples' runtime classpath is cached under
# ${INFORMERD_CACHE:-$HOME/.cache/informerd}/java so an example starts with a
# plain `java -cp`, without a Maven run, when nothing changed.
java_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# One cache directory per checkout: worktrees of different branches may pin
# different versions.
java_cache="${INFORMERD_CACHE:-$HOME/.cache/informerd}/java/$(printf %s "$java_dir" | md5sum | cut -c1-12)"
version="$(<"$java_dir/../../VERSION")"
examples_jar="$java_dir/examples/target/informerd-examples-$version.jar"
examples_classpath_file="$java_cache/examples.classpath"

informerd_mvn() {
  "$java_dir/mvnw" -B -f "$java_dir/pom.xml" "$@"
}

examples_stale() {
  [[ ! -f "$examples_jar" || ! -f "$examples_classpath_file" ]] && return 0
  [[ -n "$(find "$java_dir"/*/src/main "$java_dir"/pom.xml "$java_dir"/*/pom.xml \
    "$java_dir/../../proto/informerd/v1/informerd.proto" -newer "$examples_jar" -print -quit)" ]]
}

# After `install`: the examples' runtime classpath into the cache, and the
# examples jar marked fresh (the jar plugin keeps an up-to-date jar's old
# time), so the next example start runs no Maven.
# The project's own jars are taken from this checkout's target directories,
# not from ~/.m2, where another checkout may have installed other code under
# the same version.
write_examples_classpath() {
  mkdir -p "$java_cache"
  informerd_mvn -q -pl examples dependency:build-classpath -DincludeScope=runtime \
    -DexcludeGroupIds=io.informerd -Dmdep.outputFile="$examples_classpath_file.new" &&
    { printf '%s:%s:%s:' "$examples_jar" \
        "$java_dir/informerd-client/target/informerd-client-$version.jar" \
        "$java_dir/informerd-kubernetes-client/target/informerd-kubernetes-client-$version.jar"
      cat "$examples_classpath_file.new"; } >"$examples_classpath_file" &&
    rm "$examples_classpath_file.new" &&
    touch "$examples_jar"
}

# Builds the three modules' jars and writes the examples' classpath when a
# source is newer than the examples jar. Several examples may start at once
# (the e2e harness runs them in parallel): one builds, the others wait and
# then find the jar fresh.
build_examples() {
  examples_stale || return 0
  mkdir -p "$java_cache"
  exec 9>"$java_cache/.build.lock"
  flock 9
  if examples_stale; then
    echo "building the Java client and examples (log: $java_cache/build.log)" >&2
    if ! { informerd_mvn -q -DskipTests install && write_examples_classpath; } \
        >"$java_cache/build.log" 2>&1; then
      echo "Java build failed (mvnw install in $java_dir); last lines of $java_cache/build.log:" >&2
      tail -n 40 "$java_cache/build.log" >&2
      exec 9>&-
      return 1
    fi
  fi
  exec 9>&-
}
