#!/usr/bin/env bash
# Checks count-test-cases.py on a hand-made bazel-testlogs tree and event file.
set -euo pipefail

counter="$TEST_SRCDIR/$TEST_WORKSPACE/hack/count-test-cases.py"
logs="$TEST_TMPDIR/testlogs"
failures=0

# Usage: target DIR [XML]; a target directory with a test.log and maybe XML.
target() {
  mkdir -p "$logs/$1"
  touch "$logs/$1/test.log"
  if (($# == 2)); then printf '%s' "$2" >"$logs/$1/test.xml"; fi
}

# Usage: expect_last_line WANT COMMAND...
expect_last_line() {
  local want="$1" got
  shift
  got="$("$@" | tail -n 1)" || true
  if [[ "$got" != "$want" ]]; then
    echo "FAIL: $* printed '$got', want '$want'"
    failures=$((failures + 1))
  fi
}

target a/pass '<testsuites><testsuite><testcase name="a"/><testcase name="b"/><testcase name="off" status="notrun"/></testsuite></testsuites>'
target a/fail '<testsuite><testcase name="a"/><testcase classname="Suite" name="b"><failure message="x_test.cc:12&#10;Expected equality&#10;  got&#10;  want&#10;fifth line"/></testcase><testcase name="c"><error/></testcase></testsuite>'
target b/crash
target b/totals '<testsuites><testsuite tests="4" failures="1" errors="0"/></testsuites>'
target b/malformed '<testsuite'
mkdir -p "$logs/c/sharded/shard_1_of_2" "$logs/c/sharded/shard_2_of_2"
touch "$logs/c/sharded/shard_1_of_2/test.log" "$logs/c/sharded/shard_2_of_2/test.log"
printf '<testsuite><testcase name="x"/></testsuite>' >"$logs/c/sharded/shard_1_of_2/test.xml"
printf '<testsuite><testcase name="y"/></testsuite>' >"$logs/c/sharded/shard_2_of_2/test.xml"
target d/stale '<testsuite><testcase name="old"/></testsuite>'

# pass 2 + fail 1 + totals 3 + sharded 2 + stale 1 passed; fail 2 + crash 1
# + totals 1 + malformed 1 failed.
expect_last_line "9 passed, 5 failed" python3 "$counter" --testlogs "$logs"

# Each failed case is named again before the total, with the first four
# lines of its message, so the last lines of a run say what failed.
listed="$(python3 "$counter" --testlogs "$logs")" || true
want='  //a:fail Suite.b: x_test.cc:12 | Expected equality | got | want'
if ! grep -qxF "$want" <<<"$listed" || grep -qF "fifth line" <<<"$listed"; then
  echo "FAIL: no line '$want' (and no fifth line) in:"
  echo "$listed"
  failures=$((failures + 1))
fi

# With an event file only its targets count: d/stale failed to build, so
# its old XML is ignored, and a/pass failed although its XML says otherwise.
bep="$TEST_TMPDIR/bep.json"
cat >"$bep" <<'JSON'
{"id":{"targetConfigured":{"label":"//a:pass"}},"configured":{"targetKind":"sh_test rule","testSize":"MEDIUM"}}
{"id":{"testSummary":{"label":"//a:pass"}},"testSummary":{"overallStatus":"FAILED"}}
{"id":{"targetConfigured":{"label":"//c:sharded"}},"configured":{"targetKind":"sh_test rule","testSize":"MEDIUM"}}
{"id":{"testSummary":{"label":"//c:sharded"}},"testSummary":{"overallStatus":"PASSED"}}
{"id":{"targetConfigured":{"label":"//d:stale"}},"configured":{"targetKind":"sh_test rule","testSize":"MEDIUM"}}
{"id":{"targetCompleted":{"label":"//d:stale"}},"completed":{"success":false}}
{"id":{"targetConfigured":{"label":"//e:binary"}},"configured":{"targetKind":"cc_binary rule"}}
{"id":{"targetConfigured":{"label":"//f:filtered"}},"configured":{"targetKind":"cc_test rule","testSize":"MEDIUM","tag":["no_tsan"]}}
{"id":{"targetCompleted":{"label":"//f:filtered"}},"completed":{"success":true,"tag":["no_tsan"]}}
{"id":{"targetConfigured":{"label":"//f:interrupted"}},"configured":{"targetKind":"cc_test rule","testSize":"MEDIUM"}}
{"id":{"targetCompleted":{"label":"//f:interrupted"}},"completed":{"success":true,"testTimeoutSeconds":"300"}}
JSON
# f/filtered was left out by a tag filter (built, no test timeout): not a
# test of the run. f/interrupted was scheduled but never summarized: failed.
expect_last_line "4 passed, 3 failed" python3 "$counter" --testlogs "$logs" --bep "$bep"

mkdir -p "$TEST_TMPDIR/junit/go"
printf '<testsuite><testcase name="g"/></testsuite>' >"$TEST_TMPDIR/junit/go/report.xml"
expect_last_line "1 passed, 1 failed" python3 "$counter" \
  --junit-dir "$TEST_TMPDIR/junit" --failed-without-report "suite python"

# Two Bazel runs, each with its own tree and event file: each tree counts
# only the targets of its own run (the second run's tree holds a stale
# report of a target it did not run).
logs2="$TEST_TMPDIR/testlogs2"
mkdir -p "$logs2/a/pass" "$logs2/old/gone"
printf '<testsuite><testcase name="a"/></testsuite>' >"$logs2/a/pass/test.xml"
printf '<testsuite><testcase name="old"/></testsuite>' >"$logs2/old/gone/test.xml"
bep2="$TEST_TMPDIR/bep2.json"
cat >"$bep2" <<'JSON'
{"id":{"targetConfigured":{"label":"//a:pass"}},"configured":{"targetKind":"sh_test rule","testSize":"MEDIUM"}}
{"id":{"testSummary":{"label":"//a:pass"}},"testSummary":{"overallStatus":"PASSED"}}
JSON
expect_last_line "5 passed, 3 failed" python3 "$counter" --testlogs "$logs" --bep "$bep" \
  --testlogs "$logs2" --bep "$bep2"

# Tags name the run of each row: the same target on two versions stays two
# rows that say which is which.
tagged="$(python3 "$counter" --testlogs "$logs" --bep "$bep" --tag 1.37 \
  --testlogs "$logs2" --bep "$bep2" --tag 1.20)" || true
for want in "FAILED           [1.37] //a:pass" "PASSED           [1.20] //a:pass"; do
  grep -qF "$want" <<<"$tagged" || {
    echo "FAIL: no row '$want' in:"
    echo "$tagged"
    failures=$((failures + 1))
  }
done
if python3 "$counter" --testlogs "$logs" --tag 1.37 --tag 1.20 >/dev/null 2>&1; then
  echo "FAIL: more tags than --testlogs were accepted"
  failures=$((failures + 1))
fi

if python3 "$counter" --junit-dir "$TEST_TMPDIR/empty" >/dev/null; then
  echo "FAIL: a run without any test case exited 0"
  failures=$((failures + 1))
fi

((failures == 0))
