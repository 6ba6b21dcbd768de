#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare the fault-injection sweeps of two kernel console logs.

    scripts/faultinject-compare.py C_CONSOLE_LOG RUST_CONSOLE_LOG
    scripts/faultinject-compare.py --names A,B LOG_A LOG_B
    scripts/faultinject-compare.py --table C_LOG RUST_LOG   (docs/results.md)

Each log holds, between NSTREE-FI-BEGIN and NSTREE-FI-END, the step lines
of selftests/faultinject ("FI <operation> n=<n> <result> <fault|nofault>",
and "FI-LOG <operation> n=<n> <message>" for each kernel log record a step
produced).  Prints TAP, one test per operation: its step list must be the
same on both kernels, n by n (the same result at the same n, the same
kernel messages), and then one test for the totals.  An operation only one
log has, or a log without its end marker, is a failure.

Exit status: 0 all equal, 1 a difference, 2 a log without a sweep.
"""

import argparse
import re
import sys

KMSG = re.compile(r"^\[\s*\d+\.\d+\]")
BEGIN = "NSTREE-FI-BEGIN"
END = "NSTREE-FI-END"
TOTALS = re.compile(r"^# NSTREE-FI-TOTALS (.*)$")
STEP = re.compile(r"^(FI|FI-LOG) (\S+) n=(\d+)")
KMSG_IN = re.compile(r"\[\s*\d+\.\d+\]")
# How the program's and the runner's own lines start.
KNOWN = ("FI ", "FI-LOG ", "#", "ok ", "not ok ", "NSTREE", "[", "TAP ", "1..")


class Sweep:
    def __init__(self, path):
        self.path = path
        self.header = None
        self.complete = False
        self.totals = None
        self.ops = {}  # operation -> list of lines
        self.order = []
        self.sweeps = 1  # sweeps the log holds (one is expected)

    def parse(self):
        inside = False
        # The start of a line of ours that a kernel message broke: the
        # serial console interleaves the kernel's own messages with ours,
        # so a line can stop anywhere (even before its "n=") at a kernel
        # time stamp, and go on after the kernel's line (or lines) ends.
        pending = None
        with open(self.path, encoding="utf-8", errors="replace") as f:
            for raw in f:
                line = raw.rstrip("\r\n").rstrip()
                m = TOTALS.match(line)
                if m and self.complete and self.totals is None:
                    self.totals = m.group(1)
                if not inside:
                    pos = line.find(BEGIN)
                    if pos >= 0 and self.header is None:
                        self.header = line[pos:]
                        inside = True
                    elif pos >= 0:
                        self.sweeps += 1
                    continue
                if pending is not None:
                    if KMSG.match(line):
                        continue  # more of the kernel's lines in between
                    if line.startswith(KNOWN):
                        # The rest never came: the fragment stands alone.
                        self.take(pending)
                    else:
                        line = pending + line
                    pending = None
                if line.startswith(END):
                    self.complete = True
                    inside = False
                    continue
                k = KMSG_IN.search(line)
                if k and k.start() > 0:
                    pending = line[:k.start()]
                    continue
                self.take(line)
        if pending is not None:
            self.take(pending)
        return self.header is not None

    def take(self, line):
        """One whole line of ours from inside the sweep."""
        m = STEP.match(line)
        if not m:
            return
        op = m.group(2)
        if op not in self.ops:
            self.order.append(op)
            self.ops[op] = []
        self.ops[op].append(line)


SUMMARY = re.compile(r"^# (\S+): (\d+) steps, (\d+) faults injected, "
                     r"\d+ upstream errnos, ([\d.]+) s")


def table(sweeps, names):
    """The per-operation table of docs/results.md: steps, faults, what the
    calls returned with their fault injected, and each kernel's seconds."""
    secs = []
    for s in sweeps:
        t = {}
        with open(s.path, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = SUMMARY.match(line.rstrip())
                if m:
                    t[m.group(1)] = m.group(4)
        secs.append(t)
    a = sweeps[0]
    print(f"| operation | steps | faults injected | results of the injected steps | "
          f"s ({' / '.join(names)}) |")
    print("|---|---:|---:|---|---:|")
    for op in a.order:
        lines = [l for l in a.ops[op] if l.startswith("FI ")]
        res = {}
        for l in lines:
            if l.endswith(" fault"):
                r = l.split()[3]
                res[r] = res.get(r, 0) + 1
        cells = ", ".join(f"{k} {n}" for k, n in sorted(res.items(), key=lambda x: (-x[1], x[0])))
        same = all(s.ops.get(op) == a.ops[op] for s in sweeps[1:])
        print(f"| `{op}` | {len(lines)} | {faults(a.ops[op])} | {cells or '-'}"
              f"{'' if same else ' (DIFFERENT on the other kernel)'} | "
              f"{' / '.join(t.get(op, '?') for t in secs)} |")


def faults(lines):
    return sum(1 for l in lines if l.startswith("FI ") and l.endswith(" fault"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--names", default="C,Rust",
                    help="labels of the two logs (default: C,Rust)")
    ap.add_argument("--table", action="store_true",
                    help="print the per-operation table of docs/results.md instead")
    ap.add_argument("log_a")
    ap.add_argument("log_b")
    args = ap.parse_args()
    names = args.names.split(",", 1)
    if len(names) != 2:
        ap.error("--names takes two labels: A,B")
    width = max(len(n) for n in names) + 1

    sweeps = [Sweep(args.log_a), Sweep(args.log_b)]
    for name, s in zip(names, sweeps):
        try:
            ok = s.parse()
        except OSError as e:
            print(f"Bail out! {name}: {e}")
            return 2
        if not ok:
            print(f"Bail out! {name}: no {BEGIN} in {s.path}")
            return 2

    a, b = sweeps
    if args.table:
        table(sweeps, names)
        return 0
    for name, s in zip(names, sweeps):
        steps = sum(1 for lines in s.ops.values() for l in lines if l.startswith("FI "))
        nf = sum(faults(lines) for lines in s.ops.values())
        print(f"# {name}: {s.path}: {s.header}; {len(s.ops)} operations, "
              f"{steps} steps, {nf} faults injected"
              + ("" if s.complete else " (no end marker: truncated)"))
    order = a.order + [op for op in b.order if op not in a.ops]
    print(f"1..{len(order) + 1}")
    failed = 0
    for n, op in enumerate(order, 1):
        la, lb = a.ops.get(op), b.ops.get(op)
        if la is None or lb is None:
            lack = a if la is None else b
            failed += 1
            print(f"not ok {n} {op}")
            print(f"# {op}: missing from the {names[sweeps.index(lack)]} log"
                  + ("" if lack.complete else ", which ends without its end marker"))
            continue
        steps = sum(1 for l in la if l.startswith("FI "))
        if la == lb:
            print(f"ok {n} {op} steps={steps} faults={faults(la)}")
            continue
        failed += 1
        i = 0
        while i < len(la) and i < len(lb) and la[i] == lb[i]:
            i += 1
        print(f"not ok {n} {op}")
        print(f"# {op}: first difference")
        print(f"#   {names[0] + ':':<{width}} {la[i] if i < len(la) else '<sweep ends>'}")
        print(f"#   {names[1] + ':':<{width}} {lb[i] if i < len(lb) else '<sweep ends>'}")
    # A sweep must have swept: every operation its header announces, with
    # at least one step each, and one sweep per log.
    short = False
    for name, s in zip(names, sweeps):
        m = re.search(r"\bops=(\d+)", s.header or "")
        want = int(m.group(1)) if m else -1
        empty = [op for op, lines in s.ops.items() if not any(l.startswith("FI ") for l in lines)]
        if want != len(s.ops) or empty or s.sweeps != 1:
            short = True
            print(f"# {name}: {len(s.ops)} operations swept, the header announces {want}"
                  + (f"; {len(empty)} without a step" if empty else "")
                  + (f"; {s.sweeps} sweeps in one log" if s.sweeps != 1 else ""))
    n = len(order) + 1
    if not short and a.complete and b.complete and a.totals is not None and a.totals == b.totals:
        print(f"ok {n} totals {a.totals}")
    else:
        failed += 1
        print(f"not ok {n} totals")
        for name, s in zip(names, sweeps):
            print(f"#   {name + ':':<{width}} {s.totals or '<none>'}"
                  + ("" if s.complete else " (no end marker)"))
    print(f"# {len(order)} operations: {len(order) - failed} equal, "
          f"{failed} different or missing on one kernel")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
