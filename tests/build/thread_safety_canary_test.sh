#!/usr/bin/env bash
# Proves that the flags of .bazelrc's thread_safety config make clang refuse
# an unguarded write to an ABSL_GUARDED_BY member, and accept the guarded
# one: without this, a build that silently stopped analysing (a header
# that no longer expands the annotations, a compiler without the warning)
# would still pass.
set -euo pipefail
canary="$(dirname "$0")/thread_safety_canary.cc"
flags=(-std=c++17 -fsyntax-only -Wthread-safety -Werror=thread-safety)
clang="$(command -v clang++-14 || true)"
[[ -n "$clang" ]] || { echo "clang++-14 not found (Debian package clang-14)" >&2; exit 1; }
"$clang" "${flags[@]}" "$canary" || { echo "the guarded write was refused" >&2; exit 1; }
if out="$("$clang" "${flags[@]}" -DTHREAD_SAFETY_VIOLATION "$canary" 2>&1)"; then
  echo "clang accepted a write to a guarded member without its mutex" >&2
  exit 1
fi
grep -q "requires holding mutex" <<<"$out" || { echo "unexpected error: $out" >&2; exit 1; }
echo "thread-safety analysis is on"
