#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare the ns_difftest traces of two kernel console logs.

    scripts/difftest-compare.py C_CONSOLE_LOG RUST_CONSOLE_LOG
    scripts/difftest-compare.py --names C1,C2 LOG_A LOG_B   (e.g. C vs C)
    scripts/difftest-compare.py --last-seed LOG   (the last seed LOG ran)

Each log holds, between NSTREE-DIFF-BEGIN and NSTREE-DIFF-END, one block
per seed ("SEED s" and one line per step) as printed by
selftests/difftest/ns_difftest.  Kernel messages on the console
("[   12.345678] ...") and comment lines ("# ...") are ignored.  Prints
TAP, one test per seed; for every divergent seed the first divergent step
with both lines.  A seed only one log has is a failure: both kernels are
given the same seeds, so a run that did fewer (its time budget cut it
short, or it ended without its end marker) did too little.

Exit status: 0 all seeds equal, 1 a divergence, 2 a log without a trace.
"""

import argparse
import re
import sys

KMSG = re.compile(r"^\[\s*\d+\.\d+\]")
BEGIN = "NSTREE-DIFF-BEGIN"
END = "NSTREE-DIFF-END"


class Trace:
    def __init__(self, path):
        self.path = path
        self.header = None
        self.complete = False
        self.seeds = {}  # seed -> list of lines (the SEED line first)
        self.order = []

    def parse(self):
        seed = None
        inside = False
        with open(self.path, encoding="utf-8", errors="replace") as f:
            for raw in f:
                line = raw.rstrip("\r\n").rstrip()
                if not inside:
                    pos = line.find(BEGIN)
                    if pos >= 0 and self.header is None:
                        self.header = line[pos:]
                        inside = True
                    continue
                if line.startswith(END):
                    self.complete = True
                    break
                if not line or KMSG.match(line) or line.startswith("#"):
                    continue
                if line.startswith("SEED "):
                    try:
                        seed = int(line.split()[1])
                    except (IndexError, ValueError):
                        seed = None
                        continue
                    if seed not in self.seeds:
                        self.order.append(seed)
                    self.seeds[seed] = [line]
                    continue
                if seed is not None:
                    self.seeds[seed].append(line)
        return self.header is not None


def step_of(line):
    tok = line.split(" ", 1)[0] if line else ""
    return tok if tok.isdigit() else (tok or "end")


def last_seed(path):
    """The last seed whose trace the log holds (0 if none)."""
    t = Trace(path)
    try:
        if not t.parse():
            return 0
    except OSError:
        return 0
    return max(t.seeds, default=0)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--last-seed":
        print(last_seed(sys.argv[2]))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--names", default="C,Rust",
                    help="labels of the two logs (default: C,Rust)")
    ap.add_argument("log_a")
    ap.add_argument("log_b")
    args = ap.parse_args()
    names = args.names.split(",", 1)
    if len(names) != 2:
        ap.error("--names takes two labels: A,B")
    width = max(len(n) for n in names) + 1

    traces = [Trace(args.log_a), Trace(args.log_b)]
    for name, t in zip(names, traces):
        try:
            ok = t.parse()
        except OSError as e:
            print(f"Bail out! {name}: {e}")
            return 2
        if not ok:
            print(f"Bail out! {name}: no {BEGIN} in {t.path}")
            return 2

    a, b = traces
    print(f"# {names[0]}: {a.path}: {a.header}"
          f"{'' if a.complete else ' (no end marker: truncated)'}")
    print(f"# {names[1]}: {b.path}: {b.header}"
          f"{'' if b.complete else ' (no end marker: truncated)'}")
    if a.header != b.header:
        print("# warning: the two runs were started with different parameters")

    seeds = sorted(set(a.seeds) | set(b.seeds))
    print(f"1..{len(seeds)}")
    failed = 0
    for n, seed in enumerate(seeds, 1):
        la, lb = a.seeds.get(seed), b.seeds.get(seed)
        if la is None or lb is None:
            have, lack = (b, a) if la is None else (a, b)
            lack_name = names[traces.index(lack)]
            failed += 1
            print(f"not ok {n} seed {seed}")
            print(f"# seed {seed}: missing from the {lack_name} log"
                  + ("" if lack.complete else ", which ends without its end marker"))
            continue
        if la == lb:
            print(f"ok {n} seed {seed}")
            continue
        failed += 1
        i = 0
        while i < len(la) and i < len(lb) and la[i] == lb[i]:
            i += 1
        xa = la[i] if i < len(la) else "<trace ends>"
        xb = lb[i] if i < len(lb) else "<trace ends>"
        print(f"not ok {n} seed {seed}")
        print(f"# seed {seed}: first divergent step {step_of(xa if i < len(la) else xb)}")
        print(f"#   {names[0] + ':':<{width}} {xa}")
        print(f"#   {names[1] + ':':<{width}} {xb}")
    print(f"# {len(seeds)} seeds: {len(seeds) - failed} equal, "
          f"{failed} divergent or missing on one kernel")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
