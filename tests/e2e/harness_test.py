"""Unit tests of the invariant checks in harness.py (stdlib unittest):
each check must catch the violation it exists for.

Run: /usr/bin/python3 tests/e2e/harness_test.py
"""

import unittest

import harness

LIST = {"ns/a": "7", "ns/c": "9"}


class ReplayTest(unittest.TestCase):
    def test_consistent_lines_pass(self):
        lines = ["ADD ns/a 5", "ADD ns/b 6", "SYNCED", "UPDATE ns/a 5 7",
                 "DELETE ns/b 6 final-state-unknown", "ADD ns/c 9",
                 "CACHE ns/a 7", "CACHE ns/c 9"]
        self.assertEqual(harness.check_final_output(lines, LIST, {"ns/a", "ns/c"}), [])

    def assert_caught(self, lines, fragment, never_removed=frozenset()):
        errors = harness.check_final_output(lines, LIST, set(never_removed))
        self.assertTrue(any(fragment in e for e in errors), errors)

    def test_add_of_known_key(self):
        self.assert_caught(["ADD ns/a 7", "SYNCED", "ADD ns/a 7", "ADD ns/c 9"],
                           "ADD of a key already present")

    def test_update_with_wrong_old_rv(self):
        self.assert_caught(["ADD ns/a 5", "SYNCED", "UPDATE ns/a 6 7", "ADD ns/c 9"],
                           "UPDATE old rv 6")

    def test_delete_of_unknown_key(self):
        self.assert_caught(["SYNCED", "DELETE ns/x 3"], "DELETE of an unknown key")

    def test_unknown_delete_with_wrong_rv(self):
        self.assert_caught(["ADD ns/b 4", "SYNCED", "DELETE ns/b 5 final-state-unknown"],
                           "should carry the last known rv 4")

    def test_missed_delete(self):
        self.assert_caught(["ADD ns/a 7", "ADD ns/b 1", "ADD ns/c 9", "SYNCED"],
                           "a missed delete")

    def test_missed_update_in_cache(self):
        self.assert_caught(["ADD ns/a 7", "ADD ns/c 9", "SYNCED", "CACHE ns/a 6",
                            "CACHE ns/c 9"], "CACHE has ns/a at rv 6")

    def test_spurious_delete_of_live_object(self):
        self.assert_caught(["ADD ns/a 7", "SYNCED", "DELETE ns/a 7", "ADD ns/a 7",
                            "ADD ns/c 9"], "DELETE of ns/a, which was never deleted",
                           never_removed={"ns/a"})

    def test_live_event_before_synced(self):
        self.assert_caught(["ADD ns/a 5", "UPDATE ns/a 5 7", "SYNCED", "ADD ns/c 9"],
                           "UPDATE before SYNCED")

    def test_missing_synced_and_garbage(self):
        errors = harness.check_final_output(["hello"], {}, set())
        self.assertIn("no SYNCED line", errors)
        self.assertTrue(any("not a line of the example's output" in e for e in errors))

    def test_unsorted_cache(self):
        self.assert_caught(["ADD ns/a 7", "ADD ns/c 9", "SYNCED", "CACHE ns/c 9",
                            "CACHE ns/a 7"], "not sorted")


class LateHandlerTest(unittest.TestCase):
    MAIN = ["ADD ns/a 5", "ADD ns/b 6", "SYNCED"]
    END = ["UPDATE ns/a 5 7", "DELETE ns/b 6", "ADD ns/c 9"]
    CACHE = ["CACHE ns/a 7", "CACHE ns/c 9"]

    def errors(self, late, main_end=None):
        lines = self.MAIN + late + (self.END if main_end is None else main_end) + self.CACHE
        return harness.check_final_output(lines, LIST, {"ns/a", "ns/c"}, late_handler=True)

    def assert_caught(self, late, fragment, main_end=None):
        errors = self.errors(late, main_end)
        self.assertTrue(any(fragment in e for e in errors), errors)

    def test_cached_adds_then_live_events_pass(self):
        self.assertEqual(self.errors(["LATE ADD ns/b 6", "LATE ADD ns/a 5", "LATE SYNCED",
                                      "LATE UPDATE ns/a 5 7", "LATE DELETE ns/b 6",
                                      "LATE ADD ns/c 9"]), [])

    def test_live_event_before_late_synced(self):
        self.assert_caught(["LATE ADD ns/a 5", "LATE ADD ns/b 6", "LATE UPDATE ns/a 5 7",
                            "LATE SYNCED", "LATE DELETE ns/b 6", "LATE ADD ns/c 9"],
                           "late handler: line 6 'LATE UPDATE ns/a 5 7': UPDATE before SYNCED")

    def test_missed_cached_object(self):
        self.assert_caught(["LATE ADD ns/a 5", "LATE SYNCED", "LATE UPDATE ns/a 5 7",
                            "LATE DELETE ns/b 6", "LATE ADD ns/c 9"],
                           "late handler: line 7 'LATE DELETE ns/b 6': DELETE of an unknown key")

    def test_missing_late_synced(self):
        self.assert_caught(["LATE ADD ns/a 5", "LATE ADD ns/b 6", "LATE UPDATE ns/a 5 7",
                            "LATE DELETE ns/b 6", "LATE ADD ns/c 9"], "no LATE SYNCED line")

    def test_late_state_differs_from_the_list(self):
        self.assert_caught(["LATE ADD ns/a 5", "LATE ADD ns/b 6", "LATE SYNCED"],
                           "the late handler's state lacks ns/c")

    def test_no_late_lines_at_all(self):
        self.assert_caught([], "no LATE SYNCED line")

    def test_late_line_before_synced(self):
        lines = ["ADD ns/a 7", "LATE ADD ns/a 7", "ADD ns/c 9", "SYNCED", "LATE ADD ns/c 9",
                 "LATE SYNCED", "CACHE ns/a 7", "CACHE ns/c 9"]
        errors = harness.check_final_output(lines, LIST, set(), late_handler=True)
        self.assertTrue(any("a late handler's line before SYNCED" in e for e in errors), errors)

    def test_late_line_after_cache(self):
        lines = self.MAIN + ["LATE ADD ns/a 5", "LATE ADD ns/b 6", "LATE SYNCED"] + self.END
        lines += ["CACHE ns/a 7", "LATE ADD ns/c 9", "CACHE ns/c 9"]
        errors = harness.check_final_output(lines, LIST, set(), late_handler=True)
        self.assertTrue(any("after the CACHE lines" in e for e in errors), errors)

    def test_malformed_late_line(self):
        self.assert_caught(["LATE", "LATE SYNCED"], "not a line of the example's output")

    def test_late_lines_checked_only_when_expected(self):
        lines = self.MAIN + self.END + self.CACHE
        self.assertEqual(harness.check_final_output(lines, LIST, {"ns/a", "ns/c"}), [])


class ReconcileTest(unittest.TestCase):
    HANDLED = ["ADD ns/a 5", "ADD ns/b 6", "SYNCED", "UPDATE ns/a 5 7", "DELETE ns/b 6",
               "ADD ns/c 9"]

    def errors(self, reconciles):
        return harness.check_final_output(
            self.HANDLED + reconciles + ["CACHE ns/a 7", "CACHE ns/c 9"], LIST,
            {"ns/a", "ns/c"}, reconciles=True)

    def test_every_key_reconciled_at_its_last_state_passes(self):
        self.assertEqual(self.errors(["RECONCILED ns/a 5", "RECONCILED ns/b 6",
                                      "RECONCILED ns/a 7", "RECONCILED ns/b absent",
                                      "RECONCILED ns/c 9"]), [])

    def test_stale_reconcile(self):
        errors = self.errors(["RECONCILED ns/a 5", "RECONCILED ns/b absent",
                              "RECONCILED ns/c 9"])
        self.assertTrue(any("last RECONCILED ns/a 5" in e for e in errors), errors)

    def test_deleted_key_not_reconciled_as_absent(self):
        errors = self.errors(["RECONCILED ns/a 7", "RECONCILED ns/b 6", "RECONCILED ns/c 9"])
        self.assertTrue(any("last RECONCILED ns/b 6" in e for e in errors), errors)

    def test_missed_reconcile(self):
        errors = self.errors(["RECONCILED ns/a 7", "RECONCILED ns/b absent"])
        self.assertTrue(any("no RECONCILED line for ns/c" in e for e in errors), errors)

    def test_reconciles_ignored_for_plain_clients(self):
        lines = self.HANDLED + ["CACHE ns/a 7", "CACHE ns/c 9"]
        self.assertEqual(harness.check_final_output(lines, LIST, {"ns/a", "ns/c"}), [])


if __name__ == "__main__":
    unittest.main()
