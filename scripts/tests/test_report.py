#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/report.py on synthetic console logs.

test_report.py [--tap] [unittest arguments]

Each test writes the console logs of a C and a Rust kernel, and a
peers/known-issues file, runs report.py on them as scripts/test.sh does
and reads what it printed and its results.json.  report.py runs from a
temporary copy with that known-issues file beside it, so any version of
it can be tested: REPORT_PY=FILE tests FILE instead of the repository's
(e.g. the report.py of an older commit, from `git show`).  Beside it
too, a peers/expected-skips file: the test's own (ExpectedSkips), or by
default one that lists every skip of the logs (found by a first run with
an empty list), so that the other tests see no unexpected skip.

The tests in Regressions fail on the report.py before the fix of the
review's findings (commit "report: known failures on both kernels, ...");
those in Invariants pass on both, and guard against fixing too much.
With --tap the results are printed as TAP, followed by the line
"N passed, N failed".
"""

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.environ.get("REPORT_PY") or os.path.join(HERE, "..", "report.py")
SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed, (\d+) skipped$")
KNOWN = re.compile(r"^(\d+) known failures")


def console(*blocks, rust=False):
    """A console log: the given test blocks, the implementation line, done."""
    lines = ["NSTREE-BOOT release=7.3.4 mode=test", f"NSTREE-IMPL {'rust' if rust else 'c'}"]
    for b in blocks:
        lines += b.strip("\n").splitlines()
    lines.append("NSTREE-DONE")
    return "\n".join(lines) + "\n"


def binary(name, body):
    """One binary's block, framed as qemu/run-tests.sh frames it."""
    return f"NSTREE-TEST-BEGIN {name}\n{body.strip(chr(10))}\nNSTREE-TEST-END {name} rc=0 secs=0.1\n"


def harness_fail(test, func, lines):
    """A kselftest-harness test, run alone with -r, failing after LINES."""
    out = ["TAP version 13", "1..1", "# Starting 1 tests from 1 test cases.",
           f"#  RUN           {test} ..."]
    out += [f"# {l}" for l in lines]
    out += [f"# {func}: Test terminated by assertion", f"#          FAIL  {test}",
            f"not ok 1 {test}", "# FAILED: 0 / 1 tests passed."]
    return "\n".join(out)


def harness_ok(test, skip=None):
    out = ["TAP version 13", "1..1", f"#  RUN           {test} ..."]
    if skip:
        out += [f"#      SKIP      {skip}", f"#            OK  {test}", f"ok 1 {test} # SKIP {skip}"]
    else:
        out += [f"#            OK  {test}", f"ok 1 {test}"]
    return "\n".join(out)


class Run:
    """report.py's output on a C and a Rust console log.  EXPECTED: the
    peers/expected-skips file (None: every skip of the logs, listed)."""

    def __init__(self, c, rust, known="", expected=None):
        if expected is None:
            first = Run(c, rust, known, expected="")
            expected = "".join(
                f"{k}\t{t}\tsynthetic\n" for k in ("c", "rust")
                for t, st in sorted(first.json.get(k, {}).get("results", {}).items())
                if st[0] == "skip")
        d = tempfile.mkdtemp(prefix="report-test-")
        try:
            os.makedirs(os.path.join(d, "scripts"))
            os.makedirs(os.path.join(d, "peers"))
            shutil.copy(REPORT, os.path.join(d, "scripts", "report.py"))
            with open(os.path.join(d, "peers", "known-issues"), "w") as f:
                f.write(known)
            with open(os.path.join(d, "peers", "expected-skips"), "w") as f:
                f.write(expected)
            args = []
            for n, text in (("c", c), ("rust", rust)):
                # A list of logs: the kernel's shards, one guest each.
                texts = text if isinstance(text, list) else [text]
                paths = []
                for i, t in enumerate(texts, 1):
                    sfx = f".shard-{i}of{len(texts)}" if isinstance(text, list) else ""
                    paths.append(os.path.join(d, f"console-{n}{sfx}.log"))
                    with open(paths[-1], "w") as f:
                        f.write(t)
                args.append(f"{n}={','.join(paths)}")
            p = subprocess.run(
                [sys.executable, os.path.join(d, "scripts", "report.py"), "--out", d] + args,
                capture_output=True, text=True, timeout=60)
            self.rc, self.out, self.err = p.returncode, p.stdout, p.stderr
            try:
                with open(os.path.join(d, "results.json")) as f:
                    self.json = json.load(f)
            except OSError:
                self.json = {}
        finally:
            shutil.rmtree(d)
        self.lines = self.out.splitlines()
        m = [SUMMARY.match(l) for l in self.lines]
        m = [x for x in m if x]
        if not m:
            raise AssertionError(f"no summary line in:\n{self.out}\n{self.err}")
        self.passed, self.failed, self.skipped = (int(x) for x in m[-1].groups())
        k = [KNOWN.match(l) for l in self.lines]
        k = [x for x in k if x]
        self.known = int(k[-1].group(1)) if k else 0

    def result(self, kernel, test):
        return tuple(self.json.get(kernel, {}).get("results", {}).get(test, ()))

    def row(self, test):
        """The table row of TEST (its whole name, then the cells)."""
        rows = [l for l in self.lines if l.startswith(test + " ")]
        return rows[0] if rows else None

    def __str__(self):
        return self.out


# The health checks add 8 passes (4 a kernel) to every run.
HEALTH = 8

KNOWN_CLONE3 = ("fail\tempty_mntns/clone3_empty_mntns_test:global.unknown_flags_rejected\t"
                "clone3_empty_mntns_test.c:*:unknown_flags_rejected:Expected wait_for_pid(pid) (1) == 0 (0)\t"
                "flag bit 35 is CLONE_NNP in 7.3\n")
CLONE3 = "empty_mntns/clone3_empty_mntns_test"
CLONE3_TEST = "global.unknown_flags_rejected"


def clone3_failure(errno_seen):
    return binary(CLONE3, harness_fail(CLONE3_TEST, "unknown_flags_rejected", [
        f"clone3_empty_mntns_test.c:412:unknown_flags_rejected:Expected wait_for_pid(pid) ({errno_seen}) == 0 (0)"]))


class Regressions(unittest.TestCase):
    """Each of these fails on the report.py before the fix."""

    def test_rust_only_intermittent_skip_is_a_failure(self):
        # The runner re-ran a skipped namespaces test (older runners): on
        # Rust the first attempt skipped ("Failed to open child namespace",
        # what a wrong active reference count looks like in
        # ns_active_ref_test), the second passed.  C passed at once.
        t = "ns_active_ref.child_ns_active_after_parent_exit"
        b = "namespaces/ns_active_ref_test"
        c = console(binary(b, harness_ok(t)))
        r = console(binary(b, harness_ok(t, skip="Failed to open child namespace") + f"""
NSTREE-RETRY-BEGIN {b} {t} attempt=2
{harness_ok(t)}
NSTREE-RETRY-END {b} {t}"""), rust=True)
        run = Run(c, r)
        self.assertEqual(run.failed, 1, f"an attempt difference must be a failure:\n{run}")
        self.assertIn("2 attempts", run.row(f"{b}:{t}") or "", f"the table shows the attempts:\n{run}")

    def test_rust_only_different_message_on_known_failure_is_a_failure(self):
        # Listed known failure; C fails as listed, Rust at the same
        # file:line with another value (errno): not the known failure.
        run = Run(console(clone3_failure(1)), console(clone3_failure(22), rust=True), KNOWN_CLONE3)
        self.assertEqual(run.known, 0, f"Rust's message does not match the glob:\n{run}")
        self.assertEqual(run.failed, 2, f"both results are ordinary failures:\n{run}")
        self.assertTrue(any("does not match on rust" in l for l in run.lines),
                        f"the note names the kernel:\n{run}")

    def test_th_log_line_is_not_the_assertion(self):
        # A TH_LOG() line comes first, then the assertion: the assertion
        # is the message, and the known failure is matched on it.
        fail = binary(CLONE3, harness_fail(CLONE3_TEST, "unknown_flags_rejected", [
            "clone3_empty_mntns_test.c:405:unknown_flags_rejected:clone3 with flags 0x800000000",
            "clone3_empty_mntns_test.c:412:unknown_flags_rejected:Expected wait_for_pid(pid) (1) == 0 (0)"]))
        run = Run(console(fail), console(fail, rust=True), KNOWN_CLONE3)
        for k in ("c", "rust"):
            st = run.result(k, f"{CLONE3}:{CLONE3_TEST}")
            self.assertEqual(st[:1], ("fail",), f"{run}")
            self.assertIn(":412:", st[1], f"{k}: the message is the assertion, not the TH_LOG:\n{run}")
        self.assertEqual(run.known, 2, f"{run}")
        self.assertEqual(run.failed, 0, f"{run}")

    def test_th_log_place_does_not_decide_same_place(self):
        # Same assertion on both kernels, different TH_LOG lines (a log of
        # a value before the assertion): the place is the assertion's.
        def fail(line):
            return binary(CLONE3, harness_fail(CLONE3_TEST, "unknown_flags_rejected", [
                f"clone3_empty_mntns_test.c:{line}:unknown_flags_rejected:child started",
                "clone3_empty_mntns_test.c:412:unknown_flags_rejected:Expected wait_for_pid(pid) (1) == 0 (0)"]))
        run = Run(console(fail(400)), console(fail(401), rust=True), KNOWN_CLONE3)
        self.assertEqual(run.known, 2, f"{run}")
        self.assertEqual(run.failed, 0, f"{run}")

    def test_skip_directive_without_a_name_is_a_skip(self):
        # kselftest's ksft_test_result_skip(): "ok N # SKIP reason", as
        # timens prints for CLOCK_BOOTTIME_ALARM (timens.h check_skip()).
        tap = """TAP version 13
1..3
ok 1 Passed for CLOCK_MONOTONIC (syscall)
ok 2 # SKIP CLOCK_BOOTTIME_ALARM isn't supported
ok 3 # SKIP CLOCK_BOOTTIME_ALARM isn't supported
# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:2 error:0"""
        b = binary("timens/timens", tap)
        run = Run(console(b), console(b, rust=True))
        self.assertEqual(run.skipped, 4, f"two skips on each kernel:\n{run}")
        self.assertEqual(run.passed, 2 + HEALTH, f"{run}")
        self.assertEqual(run.failed, 0, f"{run}")

    def test_skip_directive_on_a_plan_is_a_skip(self):
        # ksft_exit_skip() before any result: "1..0 # SKIP reason".
        b = binary("timens/exec", "TAP version 13\n1..0 # SKIP need to run as root")
        run = Run(console(b), console(b, rust=True))
        self.assertEqual(run.skipped, 2, f"the binary's skip, on each kernel:\n{run}")
        self.assertEqual(run.failed, 0, f"{run}")

    def test_rust_only_nameless_skip_is_a_difference(self):
        # The same program passes on C and skips on Rust: without a name
        # the skip used to read as a (differently named) pass.
        c = binary("timens/timer", "1..1\nok 1 clockid=7")
        r = binary("timens/timer", "1..1\nok 1 # SKIP Posix Clocks & timers are not supported")
        run = Run(console(c), console(r, rust=True))
        self.assertGreaterEqual(run.failed, 1, f"{run}")
        self.assertEqual(run.skipped, 1, f"{run}")

    def test_long_names_are_whole_in_the_table(self):
        # Two names alike in their first 60 columns.
        stem = "mount_setattr/mount_setattr_test:mount_setattr_idmapped.idmapped_mount_"
        names = [stem + "tree_invalid_when_detached", stem + "tree_valid_when_attached"]
        b = binary("mount_setattr/mount_setattr_test",
                   "\n".join(harness_ok(n.split(":", 1)[1]) for n in names))
        run = Run(console(b), console(b, rust=True))
        for n in names:
            row = run.row(n)
            self.assertIsNotNone(row, f"{n} is not whole in the table:\n{run}")
            self.assertEqual(row.split()[1:], ["pass", "pass"], f"{run}")


class Invariants(unittest.TestCase):
    """What the fix must keep (these pass before and after it)."""

    def test_known_failure_on_both_kernels_is_known(self):
        run = Run(console(clone3_failure(1)), console(clone3_failure(1), rust=True), KNOWN_CLONE3)
        self.assertEqual(run.known, 2, f"{run}")
        self.assertEqual(run.failed, 0, f"{run}")
        self.assertEqual(run.rc, 0, f"{run}")

    def test_known_failure_on_one_kernel_is_a_failure(self):
        ok = binary(CLONE3, harness_ok(CLONE3_TEST))
        run = Run(console(clone3_failure(1)), console(ok, rust=True), KNOWN_CLONE3)
        self.assertEqual(run.known, 0, f"{run}")
        self.assertEqual(run.failed, 2, f"the failure and the C/Rust difference:\n{run}")
        self.assertEqual(run.rc, 1, f"{run}")

    def test_c_only_different_message_on_known_failure_is_a_failure(self):
        # Rust as listed, C not: the old report checked C's message, so
        # this held before the fix too.
        run = Run(console(clone3_failure(22)), console(clone3_failure(1), rust=True), KNOWN_CLONE3)
        self.assertEqual(run.known, 0, f"{run}")
        self.assertEqual(run.failed, 2, f"{run}")

    def test_rust_only_skip_is_a_difference(self):
        # Without re-runs (the current runner), a skip on one kernel.
        t = "ns_active_ref.child_ns_active_after_parent_exit"
        b = "namespaces/ns_active_ref_test"
        run = Run(console(binary(b, harness_ok(t))),
                  console(binary(b, harness_ok(t, skip="Failed to open child namespace")), rust=True))
        self.assertEqual(run.failed, 1, f"{run}")
        self.assertEqual(run.skipped, 1, f"{run}")

    def test_named_skip_is_a_skip(self):
        t = "fsmount_ns.basic.create"
        b = binary("fsmount_ns/fsmount_ns_test", harness_ok(t, skip="only for basic case"))
        run = Run(console(b), console(b, rust=True))
        self.assertEqual((run.passed, run.failed, run.skipped), (HEALTH, 0, 2), f"{run}")


KUNIT = """KTAP version 1
    KTAP version 1
    # Subtest: nstree_rs_trees
    ok 1 initial_ids_are_one_to_last_init_id
# nstree_rs_trees: pass:1 fail:0 skip:0 total:1
ok 1 nstree_rs_trees
"""


class Shards(unittest.TestCase):
    """A kernel's tests split over several guests (scripts/test.sh)."""

    BLOCKS = [binary("namespaces/a_test", harness_ok("global.one")),
              binary("namespaces/b_test", harness_ok("global.two", skip="no luck")),
              binary("nstree-rs/c_test", harness_ok("global.three"))]

    def test_sharded_report_is_the_unsharded_one(self):
        whole = Run(console(KUNIT, *self.BLOCKS), console(KUNIT, *self.BLOCKS, rust=True))
        split = Run([console(KUNIT, *self.BLOCKS[:2]), console(KUNIT, self.BLOCKS[2])],
                    [console(KUNIT, *self.BLOCKS[:2], rust=True),
                     console(KUNIT, self.BLOCKS[2], rust=True)])
        self.assertEqual((split.passed, split.failed, split.skipped),
                         (whole.passed, whole.failed, whole.skipped), f"{split}")
        for k in ("c", "rust"):
            self.assertEqual(split.json[k]["results"], whole.json[k]["results"])
            self.assertEqual(split.json[k]["checks"], whole.json[k]["checks"])

    def test_a_shard_that_did_not_finish_fails_its_kernel(self):
        cut = console(KUNIT, self.BLOCKS[2], rust=True).replace("NSTREE-DONE\n", "")
        run = Run([console(KUNIT, *self.BLOCKS[:2]), console(KUNIT, self.BLOCKS[2])],
                  [console(KUNIT, *self.BLOCKS[:2], rust=True), cut])
        self.assertEqual(run.json["rust"]["checks"]["guest finished"][0], "fail")
        self.assertIn("shard 2of2", run.json["rust"]["checks"]["guest finished"][1])

    def test_a_test_that_differs_between_shards_fails(self):
        bad = KUNIT.replace("    ok 1 initial", "    not ok 1 initial")
        run = Run([console(KUNIT, *self.BLOCKS[:2]), console(bad, self.BLOCKS[2])],
                  [console(KUNIT, *self.BLOCKS[:2], rust=True),
                   console(KUNIT, self.BLOCKS[2], rust=True)])
        st = run.result("c", "kunit/nstree_rs_trees:initial_ids_are_one_to_last_init_id")
        self.assertEqual(st[0], "fail", f"{run}")

    def test_a_runner_error_fails_its_kernel(self):
        # qemu/run-tests.sh's own check of run() (tools/nsrun).
        err = console(KUNIT, "NSTREE-ERROR run() did not wait for a leftover process (30 ms)", *self.BLOCKS)
        run = Run(console(KUNIT, *self.BLOCKS), err.replace("NSTREE-IMPL c", "NSTREE-IMPL rust"))
        self.assertEqual(run.json["rust"]["checks"]["runner sane"][0], "fail", f"{run}")
        self.assertEqual(run.json["c"]["checks"]["runner sane"][0], "pass", f"{run}")
        self.assertNotEqual(run.failed, 0, f"{run}")


class ExpectedSkips(unittest.TestCase):
    """peers/expected-skips: a skip it does not list fails the run."""

    B = "mount_cycle/loop_cycle_test"
    T1 = "loop_cycle.detached_loop_mount_released"
    T2 = "loop_cycle.crossed_images_released"

    def logs(self, *skips):
        """Both kernels: T1 and T2, each skipped if named in SKIPS."""
        blocks = binary(self.B, "\n".join(
            harness_ok(t, skip="test requires the filesystem of the image (FAT or minix)"
                       if t in skips else None) for t in (self.T1, self.T2)))
        return console(blocks), console(blocks, rust=True)

    def test_unlisted_skip_fails_and_is_named(self):
        run = Run(*self.logs(self.T1), expected="")
        self.assertEqual(run.failed, 2, f"one unexpected skip a kernel:\n{run}")
        self.assertEqual(run.rc, 1, f"{run}")
        for k in ("c", "rust"):
            self.assertIn(f"{self.B} on {k}: 1 skips, 0 expected (peers/expected-skips); not listed:",
                          run.out, f"{run}")
        self.assertIn(f"    {self.B}:{self.T1}: test requires the filesystem", run.out, f"{run}")
        self.assertIn("<- unexpected skip", run.row(f"{self.B}:{self.T1}") or "", f"{run}")

    def test_listed_skip_passes_with_its_reason(self):
        run = Run(*self.logs(self.T1),
                  expected=f"c,rust\t{self.B}:{self.T1}\tno FAT here, on purpose\n")
        self.assertEqual((run.failed, run.skipped, run.rc), (0, 2, 0), f"{run}")
        self.assertIn(f"{self.B}:{self.T1}: expected skip: no FAT here, on purpose", run.out, f"{run}")

    def test_kernel_globs(self):
        # "*" lists it everywhere; an entry for the debug kernels does not
        # cover the base ones.
        run = Run(*self.logs(self.T1), expected=f"*\t{self.B}:{self.T1}\tr\n")
        self.assertEqual(run.failed, 0, f"{run}")
        run = Run(*self.logs(self.T1), expected=f"*-debug\t{self.B}:{self.T1}\tr\n")
        self.assertEqual(run.failed, 2, f"{run}")
        run = Run(*self.logs(self.T1), expected=f"c\t{self.B}:{self.T1}\tr\n")
        self.assertEqual(run.failed, 1, f"listed for C only, skipped on Rust too:\n{run}")
        self.assertIn(f"{self.B} on rust: 1 skips, 0 expected", run.out, f"{run}")

    def test_more_skips_than_expected_in_a_binary(self):
        # One skip listed, a second one appears: the count and the newcomer.
        run = Run(*self.logs(self.T1, self.T2), expected=f"c,rust\t{self.B}:{self.T1}\tr\n")
        self.assertEqual(run.failed, 2, f"{run}")
        self.assertIn(f"{self.B} on c: 2 skips, 1 expected", run.out, f"{run}")
        self.assertIn(f"    {self.B}:{self.T2}:", run.out, f"{run}")
        self.assertNotIn(f"    {self.B}:{self.T1}:", run.out, f"the listed one is not named:\n{run}")

    def test_listed_test_that_ran_is_only_a_note(self):
        run = Run(*self.logs(), expected=f"c,rust\t{self.B}:{self.T1}\tr\n")
        self.assertEqual((run.failed, run.skipped, run.rc), (0, 0, 0), f"{run}")
        self.assertIn("listed in peers/expected-skips, but it did not skip", run.out, f"{run}")

    def test_a_malformed_entry_fails(self):
        run = Run(*self.logs(self.T1),
                  expected=f"c,rust\t{self.B}:{self.T1}\tr\nc {self.B}:{self.T2} no tabs\n")
        self.assertEqual(run.failed, 1, f"{run}")
        self.assertIn("expected-skips line 2: not KERNELS<tab>TEST<tab>REASON", run.out, f"{run}")

    def test_the_committed_list(self):
        # The repository's list: well formed, and no reason is only that
        # the guest lacks something (a reason says why it cannot have it).
        spec = importlib.util.spec_from_file_location("report", REPORT)
        report = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(report)
        path = os.path.join(HERE, "..", "..", "peers", "expected-skips")
        entries, problems = report.load_expected_skips(path)
        self.assertEqual(problems, [])
        self.assertGreater(len(entries), 0)
        for globs, t, why in entries:
            self.assertRegex(t, r"^[^:\s]+/[^:\s]+:.+$|^[^:]+$", f"a whole test id: {t}")
            self.assertNotRegex(why.lower(), r"^(the )?(guest|kernel) lacks|^test requires",
                                f"{t}: the reason must say why, not what is missing")


class TapResult(unittest.TextTestResult):
    """Prints a TAP line per test."""

    n = 0

    def _line(self, test, ok, why=""):
        TapResult.n += 1
        name = f"{type(test).__name__}.{test._testMethodName}"
        self.stream.write(f"{'ok' if ok else 'not ok'} {TapResult.n} {name}\n")
        for l in why.splitlines():
            self.stream.write(f"# {l}\n")
        self.stream.flush()

    def addSuccess(self, test):
        super().addSuccess(test)
        self._line(test, True)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._line(test, False, self._exc_info_to_string(err, test))

    def addError(self, test, err):
        super().addError(test, err)
        self._line(test, False, self._exc_info_to_string(err, test))


def main():
    argv = sys.argv[1:]
    if "--tap" not in argv:
        unittest.main(argv=[sys.argv[0]] + argv)
        return
    argv.remove("--tap")
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])
    if argv:
        suite = unittest.defaultTestLoader.loadTestsFromNames(argv, sys.modules[__name__])
    print("TAP version 13")
    print(f"1..{suite.countTestCases()}")
    result = TapResult(unittest.runner._WritelnDecorator(sys.stdout), False, 0)
    suite.run(result)
    bad = len(result.failures) + len(result.errors)
    print(f"{result.testsRun - bad} passed, {bad} failed")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
