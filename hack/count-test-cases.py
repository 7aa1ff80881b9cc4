#!/usr/bin/env python3
"""Counts individual test cases from JUnit XML reports and prints a summary
ending in the line `N passed, N failed`, after a list of the failed cases
with the first lines of each failure message. Exits 1 if anything failed or if
no test case ran at all.

Sources:
  --testlogs DIR   a bazel-testlogs tree. Each target's cases come from its
                   test.xml (or one per shard/run). A target without any
                   test.xml (crash, timeout) counts as one failed case.
  --bep FILE       Bazel's --build_event_json_file of the same run; needs
                   --testlogs. With it, only the targets of that run count (so stale reports of
                   removed targets are ignored), a target that failed to
                   build counts as one failed case whatever old XML it left,
                   and a target Bazel calls failed counts at least one
                   failed case even when its XML shows none.
                   Both may be repeated, one pair per Bazel run (the
                   sanitizer runs have trees of their own); the Nth --bep
                   goes with the Nth --testlogs.
  --tag TAG        what the rows of the Nth --testlogs are prefixed with,
                   e.g. the Kubernetes version the run tested against;
                   given for each --testlogs or for none.
  --junit-dir DIR  reports of another suite; every *.xml below DIR counts.
                   A <testsuite> property named "summary" is printed on
                   that report's row (e.g. the node suite: which pods ran
                   from which images).
  --failed-without-report NAME
                   a suite or step that failed without writing a report;
                   counts as one failed case.
"""

import argparse
import json
import pathlib
import sys
import xml.etree.ElementTree as ElementTree

# overallStatus values of Bazel's TestSummary event.
PASSING_STATUSES = {"PASSED", "FLAKY"}
# Statuses where the test never ran in this invocation, so any test.xml on
# disk is left over from an earlier run.
NOT_RUN_STATUSES = {"NO_STATUS", "FAILED_TO_BUILD", "TOOL_HALTED_BEFORE_TESTING"}
# How much of each failure the closing list repeats: enough to tell which
# assertion failed from the run's last lines alone (CI may keep only those).
MESSAGE_LINES = 4
MESSAGE_CHARS = 400


class Counts:
    def __init__(self, passed=0, failed=0, skipped=0):
        self.passed = passed
        self.failed = failed
        self.skipped = skipped

    def add(self, other):
        self.passed += other.passed
        self.failed += other.failed
        self.skipped += other.skipped


def leaf_elements(root, tag):
    """Elements named tag that contain no element named tag."""
    return [e for e in root.iter(tag) if len(list(e.iter(tag))) == 1]


def count_report(path):
    """Counts the cases in one JUnit XML file. An unreadable or malformed
    file counts as one failed case: a report that cannot be read proves
    nothing passed."""
    try:
        root = ElementTree.parse(path).getroot()
    except (ElementTree.ParseError, OSError) as error:
        print(f"  unreadable report {path}: {error}", file=sys.stderr)
        return Counts(failed=1)
    counts = Counts()
    cases = list(root.iter("testcase"))
    if cases:
        for case in cases:
            if case.find("failure") is not None or case.find("error") is not None:
                counts.failed += 1
            # gtest marks disabled tests status="notrun".
            elif case.find("skipped") is not None or case.get("status") == "notrun":
                counts.skipped += 1
            else:
                counts.passed += 1
        return counts
    # Some writers give only totals on <testsuite>; use the innermost ones.
    for suite in leaf_elements(root, "testsuite"):
        tests = int(suite.get("tests", "0"))
        failed = int(suite.get("failures", "0")) + int(suite.get("errors", "0"))
        skipped = int(suite.get("skipped", "0")) + int(suite.get("disabled", "0"))
        counts.failed += failed
        counts.skipped += skipped
        counts.passed += max(tests - failed - skipped, 0)
    return counts


def failed_cases(path):
    """(case, first lines of its failure message) for each failed case of
    one JUnit XML file; empty for an unreadable one (count_report says so)."""
    try:
        root = ElementTree.parse(path).getroot()
    except (ElementTree.ParseError, OSError):
        return []
    failed = []
    for case in root.iter("testcase"):
        problem = case.find("failure")
        if problem is None:
            problem = case.find("error")
        if problem is None:
            continue
        name = case.get("name", "?")
        if case.get("classname"):
            name = f"{case.get('classname')}.{name}"
        text = problem.get("message") or problem.text or ""
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        summary = " | ".join(lines[:MESSAGE_LINES])
        if len(summary) > MESSAGE_CHARS:
            summary = summary[:MESSAGE_CHARS] + "..."
        failed.append((name, summary))
    return failed


def target_reports(target_dir):
    """test.xml of a target: one per target, or one per shard or run."""
    direct = target_dir / "test.xml"
    if direct.is_file():
        return [direct]
    return sorted(p for p in target_dir.glob("*/test.xml")
                  if p.parent.name.startswith(("shard_", "run_")))


def label_to_dir(testlogs, label):
    package, _, name = label.lstrip("/").partition(":")
    return testlogs / package / name


def dir_to_label(testlogs, target_dir):
    relative = target_dir.relative_to(testlogs)
    package = relative.parent.as_posix()
    return f"//{'' if package == '.' else package}:{relative.name}"


def targets_from_tree(testlogs):
    """Every directory holding a test.log, directly or in a shard/run
    subdirectory, is a test target."""
    dirs = set()
    for log in testlogs.rglob("test.log"):
        parent = log.parent
        if parent.name.startswith(("shard_", "run_")):
            parent = parent.parent
        dirs.add(parent)
    return {dir_to_label(testlogs, d): None for d in sorted(dirs)}


def targets_from_bep(bep_path):
    """Maps each test target of the run to its overall status (None when it
    never got one). A test target Bazel built but did not schedule (left out
    by --test_tag_filters: its TargetComplete has no test timeout) is not a
    test of the run."""
    statuses = {}
    filtered = set()
    with open(bep_path, encoding="utf-8") as bep:
        for line in bep:
            event = json.loads(line)
            event_id = event.get("id", {})
            if "targetConfigured" in event_id:
                label = event_id["targetConfigured"]["label"]
                if "aborted" in event:
                    statuses.setdefault(label, "FAILED_TO_BUILD")
                elif "testSize" in event.get("configured", {}):
                    statuses.setdefault(label, None)
            elif "targetCompleted" in event_id:
                label = event_id["targetCompleted"]["label"]
                completed = event.get("completed", {})
                if label in statuses and ("aborted" in event or
                                          not completed.get("success", False)):
                    statuses[label] = statuses[label] or "FAILED_TO_BUILD"
                elif label in statuses and "testTimeoutSeconds" not in completed:
                    filtered.add(label)
            elif "testSummary" in event_id:
                label = event_id["testSummary"]["label"]
                statuses[label] = event["testSummary"].get("overallStatus", "NO_STATUS")
                filtered.discard(label)
    return {label: status for label, status in statuses.items() if label not in filtered}


def count_target(testlogs, label, status):
    """Counts one Bazel test target; status is None without a BEP file."""
    if status in NOT_RUN_STATUSES:
        return Counts(failed=1), status
    counts = Counts()
    for report in target_reports(label_to_dir(testlogs, label)):
        counts.add(count_report(report))
    if counts.passed + counts.failed + counts.skipped == 0:
        # No report at all: the test crashed or timed out before writing it.
        return Counts(failed=1), status or "NO_REPORT"
    if status is not None and status not in PASSING_STATUSES and counts.failed == 0:
        counts.failed = 1
    if status is None:
        status = "FAILED" if counts.failed else "PASSED"
    return counts, status


def report_summary(path):
    """The "summary" properties of a JUnit report's suites, joined; empty
    for none or for an unreadable file (count_report says so)."""
    try:
        root = ElementTree.parse(path).getroot()
    except (ElementTree.ParseError, OSError):
        return ""
    return "; ".join(p.get("value", "") for p in root.iter("property")
                     if p.get("name") == "summary")


def describe(counts):
    text = f"{counts.passed} passed, {counts.failed} failed"
    if counts.skipped:
        text += f", {counts.skipped} skipped"
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--testlogs", type=pathlib.Path, action="append", default=[])
    parser.add_argument("--bep", type=pathlib.Path, action="append", default=[])
    parser.add_argument("--tag", action="append", default=[])
    parser.add_argument("--junit-dir", type=pathlib.Path, action="append", default=[])
    parser.add_argument("--failed-without-report", action="append", default=[])
    args = parser.parse_args()

    total = Counts()
    rows = []
    failures = []  # (row name, case, message) of every failed case
    if args.bep and len(args.bep) != len(args.testlogs):
        parser.error("each --bep needs its --testlogs")
    if args.tag and len(args.tag) != len(args.testlogs):
        parser.error("give a --tag for each --testlogs, or none")
    beps = args.bep or [None] * len(args.testlogs)
    tags = args.tag or [None] * len(args.testlogs)
    for testlogs, bep, tag in zip(args.testlogs, beps, tags):
        testlogs = testlogs.resolve()
        if bep is not None:
            targets = targets_from_bep(bep)
        else:
            targets = targets_from_tree(testlogs)
        for label in sorted(targets):
            counts, status = count_target(testlogs, label, targets[label])
            total.add(counts)
            detail = describe(counts)
            row = f"[{tag}] {label}" if tag else label
            if counts.failed:
                detail += f"  (logs in {label_to_dir(testlogs, label)})"
                for report in target_reports(label_to_dir(testlogs, label)):
                    failures += [(row, case, message) for case, message in failed_cases(report)]
            rows.append((status, row, detail))
    for junit_dir in args.junit_dir:
        for report in sorted(junit_dir.rglob("*.xml")):
            counts = count_report(report)
            total.add(counts)
            detail = describe(counts)
            summary = report_summary(report)
            if summary:
                detail += f"  ({summary})"
            if counts.failed:
                failures += [(str(report), case, message) for case, message in failed_cases(report)]
            rows.append(("FAILED" if counts.failed else "PASSED", str(report), detail))
    for name in args.failed_without_report:
        total.add(Counts(failed=1))
        rows.append(("FAILED", name, "no report"))

    for status, name, detail in rows:
        print(f"{status:<16} {name}  {detail}")
    if failures:
        print("Failed cases:")
        for row, case, message in failures:
            print(f"  {row} {case}: {message}")
    if total.skipped:
        print(f"{total.skipped} skipped (counted neither as passed nor as failed)")
    print(f"{total.passed} passed, {total.failed} failed")
    return 1 if total.failed or total.passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
