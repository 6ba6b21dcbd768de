#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Parse the guest consoles of the C and the Rust kernel and report.

report.py [--out DIR] NAME=CONSOLE_LOG ...

Every kselftest-harness and KUnit TAP result in each console log becomes
one result (pass, fail or skip with its reason).  On top of these, each
kernel gets health checks: the guest finished, the kernel log has no
WARNING/BUG/Oops/KASAN/lockdep/kmemleak report, and (Rust kernels) Rust
code announced itself.  A test whose result differs between the kernels
is a failure of its own.  Prints a side-by-side table and ends with the
line "N passed, N failed, N skipped"; exits 1 if anything failed.

A failed test's reason is its first assertion message ("# file.c:LINE:
...") or exit status.  peers/known-issues explains failures and skips of
upstream suites that are not ours to fix (tab-separated: fail|skip, a
test-id glob, a glob for the failure's message, the reason).  A listed
test that fails on both kernels at the same place, with the listed
message, is a known failure: shown as "fail" with the reason, and
counted on a line of its own before the summary line, one per kernel's
result, not as passed nor as failed ("N known failures (M tests, one
result a kernel): pre-existing, same on C and Rust").  If it
fails on one kernel only, at different places or otherwise, it is an
ordinary failure (and on one kernel only a C/Rust difference).
"""

import fnmatch
import json
import os
import re
import sys

TS = re.compile(r"^\[\s*\d+\.\d+\]\s?")
TAP = re.compile(r"^\s*(ok|not ok)\s+\d+\s+(.*?)(?:\s+#\s*(SKIP|XFAIL|TODO)\b\s*(.*))?$")
PLAN = re.compile(r"^\s*1\.\.(\d+)")
# The kselftest harness's assertion message, or our runner's exit status.
DIAG = re.compile(r"^# (\S+\.c:\d+:.*|exit status \d+)$")
KNOWN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "peers", "known-issues")
BAD = re.compile(
    r"WARNING:|BUG:|Oops|Kernel panic|general protection fault|KASAN:|"
    r"UBSAN:|kernel BUG|possible recursive locking|possible circular locking|"
    r"inconsistent lock state|suspicious RCU usage|refcount_t:|list_add corruption|"
    r"list_del corruption|rcu_preempt detected stalls|INFO: rcu|unreferenced object|"
    r"Call Trace:|segfault at|NSTREE-KMEMLEAK entries=[1-9]")


def parse(path):
    """Return (results, checks) for one console log."""
    results = {}  # test id -> (status, reason)
    checks = {}
    try:
        with open(path, errors="replace") as f:
            lines = [TS.sub("", l.rstrip("\r\n")) for l in f]
    except OSError as e:
        return results, {"guest finished": ("fail", str(e))}

    done = any(l.startswith("NSTREE-DONE") for l in lines)
    checks["guest finished"] = ("pass", "") if done else ("fail", "no NSTREE-DONE: timeout or crash")
    bad = [l for l in lines if BAD.search(l)]
    checks["kernel log clean"] = ("fail", bad[0].strip()) if bad else ("pass", "")

    current, plan, seen, kunit_suite, retry = None, None, 0, None, None
    diag = None  # the first assertion message since the last result
    for l in lines:
        m = DIAG.match(l)
        if m and diag is None:
            diag = m.group(1)
        if l.startswith("NSTREE-RETRY-BEGIN "):
            _, binary, tn, attempt = l.split()[:4]
            retry = (binary, tn, attempt.split("=")[1])
            continue
        if l.startswith("NSTREE-RETRY-END "):
            retry = None
            continue
        if retry:
            # A re-run of a skipped test: its result replaces the skip.
            m = TAP.match(l)
            if m and not l.startswith(" ") and m.group(2) == retry[1]:
                status, desc, directive, reason = m.groups()
                st = with_diag(status_of(status, directive, reason), diag)
                diag = None
                note = f"attempt {retry[2]} of 3 (earlier attempts skipped)"
                results[f"{retry[0]}:{desc}"] = (st[0], f"{st[1]}; {note}" if st[1] else note)
            continue
        if l.startswith("NSTREE-TEST-BEGIN "):
            current, plan, seen, diag = l.split()[1], None, 0, None
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
                status, desc, directive, reason = m.groups()
                results[f"kunit/{kunit_suite}:{desc}"] = status_of(status, directive, reason)
            continue
        m = PLAN.match(l)
        if m and not l.startswith(" "):
            # Tests may run one per invocation: plans add up.
            plan = (plan or 0) + int(m.group(1))
            continue
        m = TAP.match(l)
        if m and not l.startswith(" "):
            seen += 1
            status, desc, directive, reason = m.groups()
            results[f"{current}:{desc}"] = with_diag(status_of(status, directive, reason), diag)
            diag = None
    return results, checks


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


def known_reason(known, kind, test, message=None):
    """The reason of the entry for TEST (and its failure MESSAGE, if given)."""
    for k, glob, msg, reason in known:
        if k == kind and fnmatch.fnmatchcase(test, glob) and (
                message is None or fnmatch.fnmatchcase(message, msg)):
            return reason
    return None


def status_of(status, directive, reason):
    if directive == "SKIP":
        return ("skip", (reason or "").strip())
    if status == "ok" or directive in ("XFAIL", "TODO"):
        return ("pass", "")
    return ("fail", "")


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
    stats = {name: torture_stats(path) for name, path in kernels
             if name != "host" and not name.startswith("difftest")}
    stats = {k: v for k, v in stats.items() if v}
    if not stats:
        return []
    names = list(stats)
    rows = [f"{'nstorture (per second; all kernels, same seed)':<60}  " +
            "  ".join(f"{n:>10}" for n in names)]
    keys = ["walks/s", "listns/s", "ids/s", "opens/s", "ioctls/s", "ns-created/s",
            "scenes/s", "chains8/s", "resurrections/s", "siocgskns/s", "mounts/s",
            "setns/s", "checks", "seed"]
    for k in keys:
        rows.append(f"  {k:<58}  " + "  ".join(f"{stats[n].get(k, '-'):>10}" for n in names))
    return rows + [""]


def parse_tap(path):
    """Results of a plain TAP file (the host tests)."""
    results = {}
    try:
        lines = open(path, errors="replace").read().splitlines()
    except OSError as e:
        return {}, {"ran": ("fail", str(e))}
    for l in lines:
        m = TAP.match(l)
        if m and not l.startswith(" "):
            status, desc, directive, reason = m.groups()
            results[desc] = status_of(status, directive, reason)
    ok = any(PLAN.match(l) for l in lines)
    return results, {"ran": ("pass", "") if ok else ("fail", "no TAP plan")}


def main(argv):
    out = None
    if len(argv) > 1 and argv[0] == "--out":
        out, argv = argv[1], argv[2:]
    kernels = [tuple(a.split("=", 1)) for a in argv]
    parsed = {}
    for name, path in kernels:
        if name == "host" or name.startswith("difftest"):
            parsed[name] = parse_tap(path)
            continue
        parsed[name] = parse(path)
        if name.startswith("rust"):
            try:
                text = open(path, errors="replace").read()
            except OSError:
                text = ""
            ok = "nstree_rs: Rust nstree in use" in text
            parsed[name][1]["Rust code ran"] = (
                ("pass", "") if ok else ("fail", "no nstree_rs banner on the console"))

    counts = {"pass": 0, "fail": 0, "skip": 0, "known": 0, "known_tests": 0}
    known = load_known()
    notes = []
    lines = []

    def count(st):
        counts[st[0] if st[0] in counts else "fail"] += 1

    def fmt_row(label, cells, mark=""):
        return f"{label[:60]:<60}  " + "  ".join(f"{c:<7}" for c in cells) + mark

    # Host tests and C/Rust trace comparisons: one column each.
    titles = {"host": "host tests (cargo test, no kernel)"}
    for name in [n for n, _ in kernels if n == "host" or n.startswith("difftest")]:
        res, checks = parsed[name]
        if name.startswith("difftest-skipped-"):
            title = f"{name.split('-', 2)[-1]} configuration"
        else:
            title = titles.get(name, f"differential traces, C vs Rust ({name.split('-', 1)[-1]})")
        lines.append(fmt_row(title, ["result"]))
        passed = sum(1 for v in res.values() if v[0] == "pass")
        for t, st in sorted(res.items()):
            count(st)
            if st[0] != "pass":
                lines.append(fmt_row("  " + t, [st[0]]))
                notes.append((f"{name} {t}", st[1]))
        for c, st in checks.items():
            count(st)
            if st[0] != "pass":
                notes.append((f"{name} {c}", st[1]))
        lines.append(fmt_row(f"  {passed} of {len(res)} passed", [""]))
        lines.append("")

    # Kernels: C and Rust side by side, per flavour.
    flavours = []
    for name, _ in kernels:
        if name == "host" or name.startswith("difftest"):
            continue
        fl = name.split("-", 1)[1] if "-" in name else "base"
        if fl not in flavours:
            flavours.append(fl)
    for fl in flavours:
        c = "c" if fl == "base" else f"c-{fl}"
        r = "rust" if fl == "base" else f"rust-{fl}"
        cols = [k for k in (c, r) if k in parsed]
        lines.append(fmt_row(f"[{fl} configuration] test", [k for k in cols]))
        lines.append("-" * (62 + 9 * len(cols)))
        tests = sorted(set().union(*(parsed[k][0].keys() for k in cols)))
        for t in tests:
            rust_only = t.startswith("kunit/")
            cells = []
            for k in cols:
                st = parsed[k][0].get(t)
                if st is None and not (rust_only and k == c):
                    st = ("fail", "missing: the test did not report on this kernel")
                cells.append(st if st else ("n/a", ""))
            # A known failure: failed on both kernels at the same place,
            # with the message listed.  It stays a "fail" in the table
            # and the notes.
            listed = known_reason(known, "fail", t)
            same = (len(cols) == 2 and all(x[0] == "fail" for x in cells) and
                    where(cells[0][1]) == where(cells[1][1]))
            why = known_reason(known, "fail", t, cells[0][1]) if same else None
            mark = ""
            for k, st in zip(cols, cells):
                if st[0] == "n/a":
                    continue
                if why and same:
                    counts["known"] += 1
                    notes.append((f"{t} [{k}]", f"known failure: {st[1]}"))
                    continue
                count(st)
                if st[1]:
                    notes.append((f"{t} [{k}]", st[1]))
            if why and same:
                counts["known_tests"] += 1
                mark = "  <- known failure, same on C and Rust"
                notes.append((t, f"known failure: {why}"))
            elif listed and any(x[0] == "fail" for x in cells):
                notes.append((t, f"listed as a known failure ({listed}), but it did not fail "
                                 "that way on both kernels"))
            elif listed:
                notes.append((t, f"listed as a known failure ({listed}), but it did not fail: "
                                 "update peers/known-issues"))
            skip_why = known_reason(known, "skip", t)
            if skip_why and any(x[0] == "skip" for x in cells):
                notes.append((t, f"skipped: {skip_why}"))
            differs = not rust_only and len(cols) == 2 and cells[0][0] != cells[1][0]
            if differs:
                counts["fail"] += 1
                notes.append((f"{t}", f"C and Rust differ: {cells[0][0]} vs {cells[1][0]}"))
                mark = "  <- C/Rust differ"
            elif same and not why and not rust_only:
                mark = "  <- fails on C and Rust"
            lines.append(fmt_row(t, [x[0] for x in cells], mark))
        for k in cols:
            for chk, st in parsed[k][1].items():
                count(st)
                lines.append(fmt_row(f"({k}) {chk}", [st[0] if m == k else "" for m in cols]))
                if st[0] != "pass":
                    notes.append((f"({k}) {chk}", st[1]))
        lines.append("")

    lines += torture_table(kernels)
    print("\n".join(lines))
    if notes:
        print("notes (reasons for failures and skips, retried tests):")
        for t, why in notes:
            print(f"  {t}: {why}")
        print()
    if out:
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "results.json"), "w") as f:
            json.dump({n: {"results": parsed[n][0], "checks": parsed[n][1]} for n in parsed},
                      f, indent=1, sort_keys=True)
    if counts["known"]:
        print(f"{counts['known']} known failures ({counts['known_tests']} tests, one result a "
              "kernel): pre-existing, same on C and Rust (peers/known-issues; not counted below)")
    print(f"{counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped")
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
