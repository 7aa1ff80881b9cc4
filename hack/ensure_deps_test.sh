#!/usr/bin/env bash
# Checks informerd::ensure_deps (hack/lib.sh) with stand-ins for dpkg-query
# and apt-get on PATH, as on a fresh machine: dpkg-query exits 1 when it
# does not know a package, and that must not end the caller silently. Also
# checks that a hack/ script that fails says what failed.
set -euo pipefail

lib="$TEST_SRCDIR/$TEST_WORKSPACE/hack/lib.sh"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# A copy of hack/ with its own deps.txt: lib.sh reads it from its own root.
root="$TEST_TMPDIR/root"
mkdir -p "$root/hack" "$TEST_TMPDIR/bin"
cp "$lib" "$root/hack/lib.sh"
printf '# comment\npresent\nabsent  # trailing comment\n\n' >"$root/hack/deps.txt"

# dpkg-query as Debian's: prints the packages it knows, exits 1 if any is
# unknown. KNOWN lists the installed ones.
cat >"$TEST_TMPDIR/bin/dpkg-query" <<'SH'
#!/usr/bin/env bash
status=0
for arg in "$@"; do
  case "$arg" in -*) continue ;; esac
  if grep -qxF "$arg" <<<"${KNOWN// /$'\n'}"; then
    echo "$arg install ok installed"
  else
    echo "dpkg-query: no packages found matching $arg" >&2
    status=1
  fi
done
exit "$status"
SH
# apt-get records what it was asked; APT_FAIL=1 makes install fail.
cat >"$TEST_TMPDIR/bin/apt-get" <<'SH'
#!/usr/bin/env bash
echo "$*" >>"$APT_CALLS"
if [[ "${APT_FAIL:-0}" == 1 && " $* " == *" install "* ]]; then exit 100; fi
exit 0
SH
# Root without sudo, whoever runs the test.
printf '#!/bin/sh\n[ "$1" = -u ] && echo 0 || exec /usr/bin/id "$@"\n' >"$TEST_TMPDIR/bin/id"
chmod +x "$TEST_TMPDIR/bin/"*

# Usage: run_ensure_deps KNOWN APT_FAIL; sets out (stderr) and rc.
run_ensure_deps() {
  export APT_CALLS="$TEST_TMPDIR/apt-calls" KNOWN="$1" APT_FAIL="$2"
  rm -f "$APT_CALLS"
  rc=0
  out="$(PATH="$TEST_TMPDIR/bin:$PATH" INFORMERD_CACHE="$TEST_TMPDIR/cache" \
    bash -c 'set -euo pipefail; source "$1"; informerd::ensure_deps' _ \
    "$root/hack/lib.sh" 2>&1)" || rc=$?
}

run_ensure_deps "present" 0
((rc == 0)) || fail "ensure_deps with an unknown package exited $rc: $out"
grep -q "installing 1 Debian packages (absent)" <<<"$out" ||
  fail "ensure_deps did not say what it installs: $out"
grep -qx "install -y --no-install-recommends absent" "$APT_CALLS" 2>/dev/null ||
  fail "apt-get was not asked for exactly the missing package: $(cat "$APT_CALLS" 2>/dev/null)"

run_ensure_deps "present absent" 0
((rc == 0)) || fail "ensure_deps with everything installed exited $rc: $out"
[[ ! -e "$APT_CALLS" ]] || fail "apt-get ran although nothing was missing: $(cat "$APT_CALLS")"

run_ensure_deps "" 1
((rc != 0)) || fail "a failed installation exited 0"
grep -q "package installation failed; see .*ensure-deps.log" <<<"$out" ||
  fail "a failed installation did not say so: $out"

# A failing command in a script that sources lib.sh names itself.
out="$(bash -c 'set -euo pipefail; source "$1"; f() { false; }; f' probe.sh \
  "$root/hack/lib.sh" 2>&1)" && fail "the failing script exited 0"
grep -q 'error: "false" failed with status 1' <<<"$out" ||
  fail "a failing script did not say what failed: '$out'"

# A script without `set -e` checks statuses itself: no message.
out="$(bash -c 'set -uo pipefail; source "$1"; grep -q x /dev/null; echo done' probe.sh \
  "$root/hack/lib.sh" 2>&1)"
[[ "$out" == done ]] || fail "a script without set -e got an error message: '$out'"

((failures == 0)) && echo "PASS"
