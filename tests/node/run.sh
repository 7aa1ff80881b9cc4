#!/usr/bin/env bash
# The chart on a real node: brings up the one-node cluster (hack/node.sh),
# builds the images and imports them into the node's runtime
# (hack/images.sh), runs tests/node/node_test.py, and takes the node down
# (containers, mounts, links, iptables chains) whatever happened.
#
# Usage: tests/node/run.sh [--junit PATH] [--keep]
#   --keep  leave the node running afterwards (hack/node.sh down ends it)
# Each step that fails before the test cases is reported as one failed
# case, with the end of its log.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../hack/lib.sh"

junit=""
keep=false
while (($#)); do
  case "$1" in
    --junit)
      (($# >= 2)) || informerd::die "--junit needs a PATH"
      junit="$2"
      shift 2
      ;;
    --keep)
      keep=true
      shift
      ;;
    *) informerd::die "unknown argument $1; usage: tests/node/run.sh [--junit PATH] [--keep]" ;;
  esac
done

work="$(mktemp -d)"
readonly work
node_up=false
finish() {
  if $node_up && ! $keep; then
    "$INFORMERD_ROOT/hack/node.sh" down >"$work/node-down.log" 2>&1 ||
      { informerd::log "hack/node.sh down failed:"; tail -n 20 "$work/node-down.log" >&2; }
  fi
  rm -rf "$work"
}
trap finish EXIT

# A step that failed before the cases: one failed case with its log's end.
fail_step() {
  local name="$1" log="$2"
  informerd::log "$name failed; last lines of $log:"
  tail -n 40 "$log" >&2
  if [[ -n "$junit" ]]; then
    informerd::junit_write "$junit" node 1 1 \
      "$(informerd::junit_case node "$name" 0 "$name failed" "$(tail -n 40 "$log")")"
  fi
  exit 1
}

export PATH="$("$INFORMERD_ROOT/hack/install-helm.sh"):$PATH"
informerd::log "bringing the node up (log: $work/node-up.log)"
node_up=true
# From a clean slate: a node left running (--keep) holds the last run's
# releases.
"$INFORMERD_ROOT/hack/node.sh" down >"$work/node-up.log" 2>&1 &&
  "$INFORMERD_ROOT/hack/node.sh" up >>"$work/node-up.log" 2>&1 || fail_step node-up "$work/node-up.log"
eval "$("$INFORMERD_ROOT/hack/node.sh" env)"
informerd::log "building and importing the images (log: $work/images.log)"
"$INFORMERD_ROOT/hack/images.sh" --import "$INFORMERD_NODE_CONTAINERD_SOCK" \
  --list "$work/images" >"$work/images.log" 2>&1 || fail_step images "$work/images.log"
cat "$work/images.log" >&2

/usr/bin/python3 -u "$INFORMERD_ROOT/tests/node/node_test.py" --images "$work/images" \
  ${junit:+--junit "$junit"}
