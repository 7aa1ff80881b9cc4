# Sourced by tests/e2e/run.sh and tests/chaos/run.sh: makes sure a control
# plane is named in the environment (starting the default one if none is)
# and that informerd and informerctl are built. Expects $root and
# hack/lib.sh sourced.
#
# INFORMERD_BINARY and INFORMERCTL_BINARY, when set, name prebuilt binaries
# and skip the build. The suites copy the binaries before use, so a rebuild
# while they run changes nothing.
if [[ -z "${INFORMERD_APISERVER_URL:-}" ]]; then
  "$root/hack/control-plane.sh" up
  eval "$("$root/hack/control-plane.sh" env)"
fi
if [[ -z "${INFORMERD_BINARY:-}" || -z "${INFORMERCTL_BINARY:-}" ]]; then
  bazel_bin="$(informerd::bazel_build "$INFORMERD_CACHE/tests-build.log" "" "" \
    //server:informerd //client/cpp:informerctl)" || exit 1
  export INFORMERD_BINARY="${INFORMERD_BINARY:-$bazel_bin/server/informerd}"
  export INFORMERCTL_BINARY="${INFORMERCTL_BINARY:-$bazel_bin/client/cpp/informerctl}"
fi
