#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Parse the guest consoles of the C and the Rust kernel and report.

report.py [--out DIR] NAME=CONSOLE_LOG ...

Every kselftest-harness and KUnit TAP result in each console log becomes
one result (pass, fail or skip with its reason).  A TAP "# SKIP"
directive makes a skip wherever it stands: after a test name, right after
the test number (kselftest's ksft_test_result_skip(): "ok 3 # SKIP
reason"), on a plan ("1..0 # SKIP reason": the whole binary skipped), on
an "ok" or a "not ok" line.  A test without a name is named by its
number ("#3"); a name seen twice in one binary's output gets its number
too, so that no result hides another.  On top of these, each kernel gets
health checks: the guest finished, the kernel log has no
WARNING/BUG/Oops/KASAN/lockdep/kmemleak report, and (Rust kernels) Rust
code announced itself.  A test whose result differs between the kernels
is a failure of its own.  Prints a side-by-side table with whole test
names (the name column is as wide as the longest name) and ends with
the line "N passed, N failed, N skipped"; exits 1 if anything failed.

Every test runs once (qemu/run-tests.sh).  Console logs of older runners
may hold re-runs of skipped tests (NSTREE-RETRY-BEGIN/END): the last
attempt is the result, the table shows the number of attempts, and a
test that needed a different number of attempts on C and on Rust is a
C/Rust difference, a failure, whatever its last result.

A failed test's reason is its assertion message: the first kselftest
assertion line ("# file.c:LINE:test:Expected ..."), else the first
other "# file.c:LINE:" line (a TH_LOG), else our runner's exit status.
peers/known-issues explains failures and skips of upstream suites that
are not ours to fix (tab-separated: fail|skip, a test-id glob, a glob for
the failure's message, the reason).  A listed test that fails on both
kernels at the same place (file.c:LINE), with a message that matches the
listed glob on each kernel, is a known failure: shown as "fail" with the
reason, and counted on a line of its own before the summary line, one
per kernel's result, not as passed nor as failed ("N known failures (M
tests, one result a kernel): pre-existing, same on C and Rust").  If it
fails on one kernel only, at different places, with a message that does
not match on either kernel, or otherwise, it is an ordinary failure (and
on one kernel only a C/Rust difference).

peers/expected-skips lists every skip a run may have (tab-separated: the
report names it is expected on, as comma-separated globs of c, rust,
c-debug, ...; the whole test id; the reason).  The list is the expected
count of skips of each binary on each kernel, one entry a skip: a skip
that no entry lists is a failure ("unexpected skip"), named with its
binary's count against the expected one, so that a guest that lost a
device, a filesystem or a tool cannot pass by skipping more.  An entry
whose test did not skip is only a note.
"""

import fnmatch
import json
import os
import re
import sys

TS = re.compile(r"^\[\s*\d+\.\d+\]\s?")
# A TAP result: status, number, description (may be empty: kselftest's
# ksft_test_result_skip() prints "ok N # SKIP reason"), directive (TAP
# directives are case-insensitive), the directive's text.
TAP = re.compile(r"^\s*(ok|not ok)\s+(\d+)(?:\s+(.*?))??"
                 r"(?:\s*#\s*(SKIP|XFAIL|XPASS|TODO)\b\s*(.*))?$", re.I)
PLAN = re.compile(r"^\s*1\.\.(\d+)(?:\s*#\s*(SKIP)\b\s*(.*))?", re.I)
# The kselftest harness's assertion message, or our runner's exit status.
DIAG = re.compile(r"^# (\S+\.c:\d+:.*|exit status \d+)$")
# An assertion's message (__EXPECT(), __EXPECT_STR() in kselftest_harness.h:
# "# file.c:LINE:test:Expected ..."), as opposed to a TH_LOG() line, which
# has the same prefix and any text.
ASSERTION = re.compile(r"^\S+\.c:\d+:[^:]*:Expected ")
KNOWN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "peers", "known-issues")
EXPECTED_SKIPS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "peers", "expected-skips")
BAD = re.compile(
    r"WARNING:|BUG:|Oops|Kernel panic|general protection fault|KASAN:|"
    r"UBSAN:|kernel BUG|possible recursive locking|possible circular locking|"
    r"inconsistent lock state|suspicious RCU usage|refcount_t:|list_add corruption|"
    r"list_del corruption|rcu_preempt detected stalls|INFO: rcu|unreferenced object|"
    r"Call Trace:|segfault at|NSTREE-KMEMLEAK entries=[1-9]")


def tap_result(m):
    """(test name, number, status) of a TAP result line's match."""
    status, num, desc, directive, text = m.groups()
    desc = (desc or "").strip()
    if desc.startswith("#"):
        # "not ok 4 # error ...": no name, the rest is the reason.
        text, desc = (text or desc.lstrip("# ")), ""
    return desc or f"#{num}", num, status_of(status, directive, text)


def parse(path):
    """Return (results, checks, attempts) for one console log.

    attempts maps a test id to the number of times an older runner ran it
    (NSTREE-RETRY markers); tests that ran once are not in it."""
    results = {}  # test id -> (status, reason)
    attempts = {}
    checks = {}
    try:
        with open(path, errors="replace") as f:
            lines = [TS.sub("", l.rstrip("\r\n")) for l in f]
    except OSError as e:
        return results, {"guest finished": ("fail", str(e))}, attempts

    done = any(l.startswith("NSTREE-DONE") for l in lines)
    checks["guest finished"] = ("pass", "") if done else ("fail", "no NSTREE-DONE: timeout or crash")
    bad = [l for l in lines if BAD.search(l)]
    checks["kernel log clean"] = ("fail", bad[0].strip()) if bad else ("pass", "")
    # The guest runner's own failures (qemu/run-tests.sh: NSTREE-ERROR).
    err = [l for l in lines if l.startswith("NSTREE-ERROR")]
    checks["runner sane"] = ("fail", err[0].strip()) if err else ("pass", "")

    current, plan, seen, kunit_suite, retry = None, None, 0, None, None
    names = set()  # the test names of the current binary, to keep duplicates apart
    diag = Diag()
    for l in lines:
        diag.feed(l)
        if l.startswith("NSTREE-RETRY-BEGIN "):
            _, binary, tn, attempt = l.split()[:4]
            retry = (binary, tn, int(attempt.split("=")[1]))
            continue
        if l.startswith("NSTREE-RETRY-END "):
            retry = None
            continue
        if retry:
            # A re-run of a skipped test (older runners): its result
            # replaces the skip, and the attempts are counted.
            m = TAP.match(l)
            if m and not l.startswith(" "):
                desc, _, st = tap_result(m)
                if desc != retry[1]:
                    continue
                st = with_diag(st, diag.take())
                tid = f"{retry[0]}:{desc}"
                attempts[tid] = retry[2]
                note = f"attempt {retry[2]} (earlier attempts skipped)"
                results[tid] = (st[0], f"{st[1]}; {note}" if st[1] else note)
            continue
        if l.startswith("NSTREE-TEST-BEGIN "):
            current, plan, seen = l.split()[1], None, 0
            names = set()
            diag.take()
            continue
        if l.startswith("NSTREE-TEST-END "):
            rc = re.search(r"rc=(\d+)", l)
            rc = int(rc.group(1)) if rc else -1
            if plan is None:
                results[current + ":(binary)"] = ("fail", f"no TAP plan, rc={rc}")
            elif seen < plan:
                results[current + ":(binary)"] = (
                    "fail", f"{plan - seen} of {plan} results missing, rc={rc}")
            current = None
            continue
        if current is None:
            # Boot-time KUnit (KTAP): "# Subtest: suite" then "ok N case".
            m = re.match(r"^\s*# Subtest: (\S+)", l)
            if m:
                kunit_suite = m.group(1)
                continue
            m = TAP.match(l)
            if m and kunit_suite and l.startswith(" "):
                desc, _, st = tap_result(m)
                results[f"kunit/{kunit_suite}:{desc}"] = st
            continue
        m = PLAN.match(l)
        if m and not l.startswith(" "):
            # Tests may run one per invocation: plans add up.
            plan = (plan or 0) + int(m.group(1))
            if m.group(2):
                # "1..0 # SKIP reason": the binary skipped everything.
                results[current + ":(binary)"] = ("skip", (m.group(3) or "").strip())
            continue
        m = TAP.match(l)
        if m and not l.startswith(" "):
            seen += 1
            desc, num, st = tap_result(m)
            if desc in names:
                # Two results of one name (kselftest programs that name
                # their results by what they print): both count.
                desc = f"{desc} (#{num})"
            names.add(desc)
            results[f"{current}:{desc}"] = with_diag(st, diag.take())
    return results, checks, attempts


class Diag:
    """The message of the next failure: kselftest's assertion line
    ("file.c:LINE:test:Expected ...") if one was printed since the last
    result, else the first other "file.c:LINE:" line (a TH_LOG()), or our
    runner's "exit status N"."""

    def __init__(self):
        self.first = self.assertion = None

    def feed(self, line):
        m = DIAG.match(line)
        if not m:
            return
        msg = m.group(1)
        if self.first is None:
            self.first = msg
        if self.assertion is None and ASSERTION.match(msg):
            self.assertion = msg

    def take(self):
        msg = self.assertion or self.first
        self.first = self.assertion = None
        return msg


def with_diag(st, diag):
    """A failure's reason: the assertion that failed, if one was printed."""
    if st[0] == "fail" and not st[1] and diag:
        return ("fail", diag)
    return st


def where(reason):
    """Where a test failed, to tell whether two kernels failed the same way."""
    m = re.search(r"\S+\.c:\d+", reason or "")
    return m.group(0) if m else (reason or "")


def load_known(path=KNOWN):
    """[(kind, test glob, message glob, reason)] from the known-issues file."""
    known = []
    try:
        with open(path) as f:
            for l in f:
                if not l.strip() or l.startswith("#"):
                    continue
                kind, glob, msg, reason = l.rstrip("\n").split("\t", 3)
                known.append((kind, glob, msg, reason))
    except OSError:
        pass
    return known


def load_expected_skips(path=EXPECTED_SKIPS):
    """([(kernel globs, test id, reason)], [problems]) from the expected-skips
    file.  A missing file lists nothing (every skip is then unexpected); a
    malformed or repeated entry is a problem, which fails the run."""
    entries, problems, seen = [], [], set()
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        return [], [f"{path}: {e.strerror}: every skip is unexpected"]
    for n, l in enumerate(lines, 1):
        if not l.strip() or l.startswith("#"):
            continue
        parts = l.split("\t")
        if len(parts) != 3 or not all(p.strip() for p in parts):
            problems.append(f"expected-skips line {n}: not KERNELS<tab>TEST<tab>REASON: {l!r}")
            continue
        kernels, test, reason = parts
        globs = tuple(k.strip() for k in kernels.split(","))
        for g in globs:
            if (g, test) in seen:
                problems.append(f"expected-skips line {n}: {test} listed twice for {g}")
            seen.add((g, test))
        entries.append((globs, test, reason))
    return entries, problems


def expected_skip(entries, kernel, test):
    """The reason of the entry that lists TEST as a skip on KERNEL, or None."""
    for globs, t, reason in entries:
        if t == test and any(fnmatch.fnmatchcase(kernel, g) for g in globs):
            return reason
    return None


def binary_of(kernel, test):
    """The binary a result belongs to: suite/binary of a guest's test id,
    the file itself for a plain TAP file (host tests, comparisons)."""
    return kernel if plain_tap(kernel) else test.split(":", 1)[0]


def check_skips(parsed, entries):
    """Every skip against the expected ones.  Returns (unexpected, lines,
    listed): the (kernel, test) skips no entry lists, the report's lines
    about them (each binary with an unexpected skip: its skips against
    the expected count), and the expected skips' reasons by test id."""
    unexpected, listed = [], {}
    skips, expected = {}, {}
    for kernel, (results, _, _) in parsed.items():
        for t, st in results.items():
            if st[0] != "skip":
                continue
            b = binary_of(kernel, t)
            skips[(kernel, b)] = skips.get((kernel, b), 0) + 1
            why = expected_skip(entries, kernel, t)
            if why is None:
                unexpected.append((kernel, t, st[1]))
            else:
                listed[t] = why
    for globs, t, _ in entries:
        for kernel in parsed:
            if any(fnmatch.fnmatchcase(kernel, g) for g in globs):
                b = binary_of(kernel, t)
                expected[(kernel, b)] = expected.get((kernel, b), 0) + 1
    lines = []
    for kernel, b in sorted({(k, binary_of(k, t)) for k, t, _ in unexpected}):
        lines.append(f"{b} on {kernel}: {skips[(kernel, b)]} skips, "
                     f"{expected.get((kernel, b), 0)} expected (peers/expected-skips); not listed:")
        for k, t, why in unexpected:
            if k == kernel and binary_of(k, t) == b:
                lines.append(f"    {t}: {why or '(no reason given)'}")
    return unexpected, lines, listed


def known_reason(known, kind, test, messages=None):
    """The reason of the entry for TEST whose message glob matches every
    one of MESSAGES (each kernel's failure message), if given."""
    for k, glob, msg, reason in known:
        if k == kind and fnmatch.fnmatchcase(test, glob) and (
                messages is None or all(fnmatch.fnmatchcase(m or "", msg) for m in messages)):
            return reason
    return None


def status_of(status, directive, reason):
    directive = (directive or "").upper()
    if directive == "SKIP":
        return ("skip", (reason or "").strip())
    if status == "ok" or directive in ("XFAIL", "TODO"):
        return ("pass", "")
    return ("fail", (reason or "").strip())


def torture_stats(path):
    """nstorture's operation rates and check count in a console log, or None."""
    stats, summary = None, {}
    try:
        with open(path, errors="replace") as f:
            for l in f:
                l = TS.sub("", l.rstrip("\r\n"))
                m = re.match(r"^# NSTORTURE-STATS (.*)", l)
                if m:
                    stats = dict(kv.split("=", 1) for kv in m.group(1).split() if "=" in kv)
                m = re.match(r"^# nstorture: seed=(\d+), ([\d.]+) s, (\d+) checks", l)
                if m:
                    summary = dict(seed=m.group(1), secs=m.group(2), checks=m.group(3))
    except OSError:
        return None
    if stats is not None:
        stats.update(summary)
    return stats


def torture_table(kernels):
    """Rows of nstorture's rates, one column per kernel that ran it."""
    stats = {name: next((st for st in map(torture_stats, paths) if st), None)
             for name, paths in kernels
             if not plain_tap(name)}
    stats = {k: v for k, v in stats.items() if v}
    if not stats:
        return []
    names = list(stats)
    rows = [("nstorture (per second; all kernels, same seed)", [f"{n:>10}" for n in names], "")]
    keys = ["walks/s", "listns/s", "ids/s", "opens/s", "ioctls/s", "ns-created/s",
            "scenes/s", "chains8/s", "resurrections/s", "siocgskns/s", "mounts/s",
            "setns/s", "checks", "seed"]
    for k in keys:
        rows.append((f"  {k}", [f"{stats[n].get(k, '-'):>10}" for n in names], ""))
    return rows + [""]


def parse_tap(path):
    """Results of a plain TAP file (the host tests)."""
    results = {}
    try:
        lines = open(path, errors="replace").read().splitlines()
    except OSError as e:
        return {}, {"ran": ("fail", str(e))}, {}
    for l in lines:
        m = TAP.match(l)
        if m and not l.startswith(" "):
            desc, num, st = tap_result(m)
            if desc in results:
                desc = f"{desc} (#{num})"
            results[desc] = st
    ok = any(PLAN.match(l) for l in lines)
    return results, {"ran": ("pass", "") if ok else ("fail", "no TAP plan")}, {}


def plain_tap(name):
    """Whether NAME=FILE is a plain TAP file (host tests, a comparison of
    the two kernels' traces or sweeps, a scripted shell session), not a
    guest's console log."""
    return name == "host" or name.startswith(("difftest", "faultinject", "shell-"))


def shard_of(path):
    """The shard a console log is of ("1of2", "torture"), from its name."""
    m = re.search(r"\.shard-([^./]+)\.log$", path)
    return m.group(1) if m else None


def parse_kernel(name, paths):
    """Return (results, checks, attempts) for one kernel, whose tests ran in
    one guest or in several (shards, one console log each): the results
    of all of them, and each health check failed if it failed in any.  A
    test that ran in more than one guest (the KUnit suites run at every
    boot) must have the same result in each."""
    results, checks, attempts = {}, {}, {}
    for path in paths:
        res, chk, att = parse(path)
        # The guest's init says which namespace tree the kernel runs
        # (NSTREE-IMPL, from /proc/kallsyms): it must be the one the
        # kernel's name promises.
        try:
            text = open(path, errors="replace").read()
        except OSError:
            text = ""
        want = "rust" if name.startswith("rust") else "c"
        m = re.search(r"^(?:\[[^]]*\]\s*)?NSTREE-IMPL (\w+)", text, re.M)
        got = m.group(1) if m else None
        chk["nstree implementation"] = (
            ("pass", "") if got == want
            else ("fail", f"expected the {want} nstree, the guest reports {got or 'nothing'}"))
        # The Rust walk's reschedule pause must be taken in a guest that ran
        # the test that makes it likely (its trace event, counted by
        # qemu/run-tests.sh); the C walk has no such pause.
        if re.search(r"^(?:\[[^]]*\]\s*)?NSTREE-TEST-BEGIN nstree-rs/listns_scale_test$", text, re.M):
            m = re.search(r"^(?:\[[^]]*\]\s*)?NSTREE-TRACE nstree_listns_pause (\d+)", text, re.M)
            if want == "c":
                chk["listns() reschedule pause"] = ("pass", "")
            elif m and int(m.group(1)) > 0:
                chk["listns() reschedule pause"] = ("pass", "")
            else:
                chk["listns() reschedule pause"] = (
                    "fail", "the walk never paused (nstree_listns_pause: "
                    f"{m.group(1) + ' events' if m else 'no count'})")
        shard = shard_of(path)
        for t, st in res.items():
            if t in results and results[t][0] != st[0]:
                results[t] = ("fail", f"differs between this kernel's guests: "
                                      f"{results[t][0]} and {st[0]} (shard {shard})")
            results.setdefault(t, st)
        for c, st in chk.items():
            if st[0] != "pass" and shard:
                st = (st[0], f"shard {shard}: {st[1]}")
            if c not in checks or (checks[c][0] == "pass" and st[0] != "pass"):
                checks[c] = st
        attempts.update(att)
    return results, checks, attempts


def test_times(paths):
    """{test: (slowest secs, limit)} from the NSTREE-TIME lines of the logs."""
    times = {}
    for path in paths:
        try:
            with open(path, errors="replace") as f:
                for l in f:
                    m = re.search(r"NSTREE-TIME (\S+) secs=([\d.]+) limit=(\d+)", l)
                    if m:
                        t, secs, lim = m.group(1), float(m.group(2)), int(m.group(3))
                        old = times.get(t, (0.0, lim))
                        times[t] = (max(old[0], secs), lim)
        except OSError:
            continue
    return times


def time_table(kernels):
    """The tests closest to their limits, on any kernel; a warning for
    each that passed half of it."""
    slow = {}
    for name, paths in kernels:
        if plain_tap(name):
            continue
        for t, (secs, lim) in test_times(paths).items():
            if lim and (t not in slow or secs / lim > slow[t][0] / slow[t][1]):
                slow[t] = (secs, lim, name)
    if not slow:
        return [], []
    worst = sorted(slow.items(), key=lambda kv: -kv[1][0] / kv[1][1])
    rows = [("slowest tests against their limits (secs / limit, kernel)", ["", "", ""], "")]
    for t, (secs, lim, name) in worst[:15]:
        rows.append((f"  {t}", [f"{secs:.1f}", f"{lim}", name],
                     "  <- above half its limit" if secs > lim / 2 else ""))
    warns = [f"{t}: {secs:.1f} s of its {lim} s limit on {name}"
             for t, (secs, lim, name) in worst if secs > lim / 2]
    return rows + [""], warns


def main(argv):
    out = ignore = None
    while len(argv) > 1 and argv[0] in ("--out", "--ignore"):
        if argv[0] == "--out":
            out = argv[1]
        else:
            # --ignore ERE: the results of the tests whose id matches are
            # left out (make mutants: a mutant's own tests).
            ignore = re.compile(argv[1])
        argv = argv[2:]
    # NAME=LOG, or NAME=LOG1,LOG2,... for a kernel whose tests ran in
    # several guests (shards).
    kernels = [(n, p.split(",")) for n, p in (a.split("=", 1) for a in argv)]
    parsed = {}
    for name, paths in kernels:
        if plain_tap(name):
            parsed[name] = parse_tap(paths[0])
            continue
        parsed[name] = parse_kernel(name, paths)
    for results, _, _ in parsed.values() if ignore else ():
        for t in [t for t in results if ignore.search(t)]:
            del results[t]

    counts = {"pass": 0, "fail": 0, "skip": 0, "known": 0, "known_tests": 0}
    known = load_known()
    # Every skip must be an expected one (peers/expected-skips).
    entries, skip_problems = load_expected_skips()
    unexpected, skip_lines, expected_why = check_skips(parsed, entries)
    unexpected_at = {(k, t) for k, t, _ in unexpected}
    notes = []
    # Rows: a string (a blank line), a Rule under a header, or (label,
    # cells, mark).  Formatted at the end, with the
    # label column as wide as the longest label: names are never cut.
    rows = []

    def count(st):
        counts[st[0] if st[0] in counts else "fail"] += 1

    # Host tests and C/Rust trace comparisons: one column each.
    titles = {"host": "host tests (cargo test, no kernel)"}
    for name in [n for n, _ in kernels if plain_tap(n)]:
        res, checks, _ = parsed[name]
        if name.startswith("difftest-skipped-"):
            title = f"{name.split('-', 2)[-1]} configuration"
        elif name.startswith("shell-"):
            title = f"scripted make shell session ({name.split('-', 1)[-1]})"
        elif name.startswith("faultinject-"):
            title = f"fault-injection sweeps, C vs Rust, step by step ({name.split('-', 1)[-1]})"
        else:
            title = titles.get(name, f"differential traces, C vs Rust ({name.split('-', 1)[-1]})")
        rows.append((title, ["result"], ""))
        passed = sum(1 for v in res.values() if v[0] == "pass")
        for t, st in sorted(res.items()):
            count(st)
            if st[0] != "pass":
                rows.append(("  " + t, [st[0]], "  <- unexpected skip"
                             if (name, t) in unexpected_at else ""))
                notes.append((f"{name} {t}", st[1]))
        for c, st in checks.items():
            count(st)
            if st[0] != "pass":
                notes.append((f"{name} {c}", st[1]))
        rows.append((f"  {passed} of {len(res)} passed", [""], ""))
        rows.append("")

    # Kernels: C and Rust side by side, per flavour.
    flavours = []
    for name, _ in kernels:
        if plain_tap(name):
            continue
        fl = name.split("-", 1)[1] if "-" in name else "base"
        if fl not in flavours:
            flavours.append(fl)
    for fl in flavours:
        c = "c" if fl == "base" else f"c-{fl}"
        r = "rust" if fl == "base" else f"rust-{fl}"
        cols = [k for k in (c, r) if k in parsed]
        rows.append((f"[{fl} configuration] test", [k for k in cols], ""))
        rows.append(Rule(len(cols)))
        tests = sorted(set().union(*(parsed[k][0].keys() for k in cols)))
        for t in tests:
            rust_only = t.startswith("kunit/")
            cells = []
            for k in cols:
                st = parsed[k][0].get(t)
                if st is None and not (rust_only and k == c):
                    st = ("fail", "missing: the test did not report on this kernel")
                cells.append(st if st else ("n/a", ""))
            tries = [parsed[k][2].get(t, 1) for k in cols]
            # A known failure: failed on both kernels at the same place,
            # with the listed message on each.  It stays a "fail" in the
            # table and the notes.
            listed = known_reason(known, "fail", t)
            both = len(cols) == 2 and all(x[0] == "fail" for x in cells)
            same = both and where(cells[0][1]) == where(cells[1][1])
            why = known_reason(known, "fail", t, [x[1] for x in cells]) if same else None
            mark = ""
            for k, st in zip(cols, cells):
                if st[0] == "n/a":
                    continue
                if why:
                    counts["known"] += 1
                    notes.append((f"{t} [{k}]", f"known failure: {st[1]}"))
                    continue
                count(st)
                if st[1]:
                    notes.append((f"{t} [{k}]", st[1]))
            if why:
                counts["known_tests"] += 1
                mark = "  <- known failure, same on C and Rust"
                notes.append((t, f"known failure: {why}"))
            elif listed and any(x[0] == "fail" for x in cells):
                how = ("on one kernel only" if not both else
                       "at different places" if not same else
                       "with a message the entry's glob does not match on " +
                       " and ".join(k for k, x in zip(cols, cells)
                                    if not known_reason(known, "fail", t, [x[1]])))
                notes.append((t, f"listed as a known failure ({listed}), but it did not fail "
                                 f"that way on both kernels: it failed {how}"))
            elif listed:
                notes.append((t, f"listed as a known failure ({listed}), but it did not fail: "
                                 "update peers/known-issues"))
            skip_why = known_reason(known, "skip", t)
            if skip_why and any(x[0] == "skip" for x in cells):
                notes.append((t, f"skipped: {skip_why}"))
            if t in expected_why and any(x[0] == "skip" for x in cells):
                notes.append((t, f"expected skip: {expected_why[t]}"))
            elif any(expected_skip(entries, k, t) for k in cols) and not any(
                    x[0] == "skip" for x in cells):
                notes.append((t, "listed in peers/expected-skips, but it did not skip: "
                                 "update the list"))
            differs = not rust_only and len(cols) == 2 and cells[0][0] != cells[1][0]
            if differs:
                counts["fail"] += 1
                notes.append((f"{t}", f"C and Rust differ: {cells[0][0]} vs {cells[1][0]}"))
                mark = "  <- C/Rust differ"
            elif not rust_only and len(cols) == 2 and tries[0] != tries[1]:
                # A re-run hid a result on one kernel (older runners).
                counts["fail"] += 1
                notes.append((t, f"C and Rust differ: {tries[0]} vs {tries[1]} attempts "
                                 "(a skip that a re-run turned into its last result)"))
                mark = "  <- C/Rust differ in attempts"
            elif same and not why and not rust_only:
                mark = "  <- fails on C and Rust"
            if any((k, t) in unexpected_at for k in cols):
                mark += "  <- unexpected skip"
            rows.append((t, [x[0] if n == 1 else f"{x[0]} ({n} attempts)"
                             for x, n in zip(cells, tries)], mark))
        for k in cols:
            for chk, st in parsed[k][1].items():
                count(st)
                rows.append((f"({k}) {chk}", [st[0] if m == k else "" for m in cols], ""))
                if st[0] != "pass":
                    notes.append((f"({k}) {chk}", st[1]))
        rows.append("")

    trows, twarn = time_table(kernels)
    print("\n".join(format_rows(rows + torture_table(kernels) + trows)))
    for w in twarn:
        print(f"warning: a test passed half its time limit: {w}")
    if notes:
        print("notes (reasons for failures and skips, retried tests):")
        for t, why in notes:
            print(f"  {t}: {why}")
        print()
    if out:
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "results.json"), "w") as f:
            json.dump({n: {"results": parsed[n][0], "checks": parsed[n][1],
                           "attempts": parsed[n][2]} for n in parsed},
                      f, indent=1, sort_keys=True)
    # Unexpected skips: each a failure, named with its binary's count.
    if skip_problems or unexpected:
        print(f"unexpected skips: {len(unexpected)} (a skip that peers/expected-skips does not list "
              "is a failure: a guest that lost what a test needs must not pass by skipping more)")
        for l in skip_problems + skip_lines:
            print(f"  {l}")
        print()
    counts["fail"] += len(unexpected) + len(skip_problems)
    if counts["known"]:
        print(f"{counts['known']} known failures ({counts['known_tests']} tests, one result a "
              "kernel): pre-existing, same on C and Rust (peers/known-issues; not counted below)")
    print(f"{counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped")
    return 1 if counts["fail"] else 0


class Rule:
    """A line under a header, as wide as a row of NCOL cells."""

    def __init__(self, ncol):
        self.ncol = ncol


def format_rows(rows):
    """Table lines: the label column as wide as the longest label (at
    least 60), each cell column as wide as its widest cell (at least 7)."""
    tuples = [r for r in rows if isinstance(r, tuple)]
    width = max([60] + [len(r[0]) for r in tuples])
    cw = max([7] + [len(c) for r in tuples for c in r[1]])
    lines = []
    for r in rows:
        if isinstance(r, Rule):
            lines.append("-" * (width + 2 + (cw + 2) * r.ncol))
        elif isinstance(r, tuple):
            label, cells, mark = r
            lines.append(f"{label:<{width}}  " + "  ".join(f"{x:<{cw}}" for x in cells) + mark)
        else:
            lines.append(r)
    return lines


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
