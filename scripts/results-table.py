#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""results-table.py RESULTS_JSON [REPORT_TXT]: the per-binary table of
docs/results.md, from the results.json that report.py writes (--out), so
that the numbers in the docs are a run's, not typed in.

One row per suite/binary: the number of tests and, per kernel, pass /
fail / skip (fail counts known failures too; the summary line says how
many of them are known).  Then the comparisons (difftest, host) with
their counts, and the run's summary lines from REPORT_TXT.
"""

import json
import re
import sys
from collections import defaultdict


def main():
    data = json.load(open(sys.argv[1]))
    kernels = [k for k in ("c", "rust", "c-debug", "rust-debug") if k in data]
    others = sorted(k for k in data if k not in kernels)
    binaries = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
    tests = defaultdict(set)
    for k in kernels:
        for t, st in data[k]["results"].items():
            binary = t.split(":", 1)[0]
            i = {"pass": 0, "fail": 1, "skip": 2}.get(st[0], 1)
            binaries[binary][k][i] += 1
            tests[binary].add(t)
    print("| binary | tests | " + " | ".join(kernels) + " |")
    print("|---|---:|" + "---|" * len(kernels))
    for b in sorted(binaries):
        cells = []
        for k in kernels:
            if k in binaries[b]:
                p, f, s = binaries[b][k]
                cells.append(f"{p} / {f} / {s}")
            else:
                cells.append("n/a")
        print(f"| {b} | {len(tests[b])} | " + " | ".join(cells) + " |")
    for o in others:
        res = data[o]["results"]
        n = len(res)
        p = sum(1 for st in res.values() if st[0] == "pass")
        f = sum(1 for st in res.values() if st[0] not in ("pass", "skip"))
        s = sum(1 for st in res.values() if st[0] == "skip")
        print(f"| {o} | {n} | {p} / {f} / {s} (one row for all kernels) |" + " |" * (len(kernels) - 1))
    if len(sys.argv) > 2:
        lines = open(sys.argv[2]).read().splitlines()
        tail = [l for l in lines if re.match(r"^\d+ (passed|known failures)", l)]
        print()
        for l in tail:
            print(f"`{l}`  ")
    return 0


if __name__ == "__main__":
    sys.exit(main())
