# Sourced by tests/e2e/run.sh and tests/chaos/run.sh: makes sure a control
# plane is named in the environment (starting the default one if none is)
# and that informerd and informerctl are built. Expects $root.
#
# INFORMERD_BINARY and INFORMERCTL_BINARY, when set, name prebuilt binaries
# and skip the build. The suites copy the binaries before use, so a rebuild
# while they run changes nothing.
if [[ -z "${INFORMERD_APISERVER_URL:-}" ]]; then
  "$root/hack/control-plane.sh" up
  eval "$("$root/hack/control-plane.sh" env)"
fi
if [[ -z "${INFORMERD_BINARY:-}" || -z "${INFORMERCTL_BINARY:-}" ]]; then
  build_log="${INFORMERD_CACHE:-$HOME/.cache/informerd}/tests-build.log"
  mkdir -p "$(dirname "$build_log")"
  # bazel info names this build's output directory; the bazel-bin symlink
  # follows whichever build ran last, whatever its options.
  if ! bazel_bin="$(cd "$root" &&
    bazel build //server:informerd //client/cpp:informerctl >"$build_log" 2>&1 &&
    bazel info bazel-bin 2>>"$build_log")"; then
    echo "building informerd failed; last lines of $build_log:" >&2
    tail -n 30 "$build_log" >&2
    exit 1
  fi
  export INFORMERD_BINARY="${INFORMERD_BINARY:-$bazel_bin/server/informerd}"
  export INFORMERCTL_BINARY="${INFORMERCTL_BINARY:-$bazel_bin/client/cpp/informerctl}"
fi
