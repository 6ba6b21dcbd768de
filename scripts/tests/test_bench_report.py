#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Self-test of scripts/bench-report.py on synthetic console logs.

scripts/tests/test_bench_report.py [--keep DIR]

Writes the console logs of 2 boots of each of the four benchmark kernels
(c, c-opt, rust, rust-noinline) as the guests print them (nsbench's lines,
the kernel microbenchmark's with their printk time stamps), with known
medians, runs bench-report.py on them and checks what a reader relies on:
the unit in every table's title or header, a column per kernel and per
ratio, the "cells above 1.02" list against the cells computed here, the
summary CSV, and that a wrong result (NSBENCH-ERROR, "kbench done
errors=N"), an unfinished kernel microbenchmark or a listns_churn without
churn counts fails the report.  Prints "N passed, N failed".
"""

import csv
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.path.join(HERE, "..", "bench-report.py")
KERNELS = ("c", "c-opt", "rust", "rust-noinline")
SIZES = (1000, 10000)
REPS = 3
ICOUNT = "guest instructions (TCG -icount)"

# Median per op at n=1000 of each kernel (c, c-opt, rust, rust-noinline);
# "scale" makes the value grow with n (per listed entry) or not.
CELLS = {
    "listns_all":   ((145100, 47000, 46800, 47500), True),
    "listns_churn": ((290000, 94000, 93500, 99000), True),
    "proc_scan":    ((900000, 900000, 901000, 902000), True),
    "walk_p1":      ((593, 547, 678, 760), True),
    "diag_zero":    ((328, 344, 428, 470), False),
    "diag_one":     ((421, 434, 559, 600), False),
    "diag_resume":  ((591, 538, 667, 700), False),
    "fh_open":      ((3424, 3422, 3452, 3460), False),
    "diag_fh_miss": ((1057, 1056, 1087, 1100), False),
    "churn_uts":    ((100000, 101000, 102500, 104000), False),
    "churn_ipc":    ((200000, 204000, 208500, 209000), False),
    "kb_lookup":    ((112, 112, 136, 150), False),
    "kb_active_hot": ((20, 20, 20, 24), False),
    "kbm_lookup":   ((120, 120, 123, 131), False),
    "kbm_add":      ((731, 731, 745, 800), False),
}
# A per-boot, per-rep jitter that leaves the median where CELLS says.
JITTER = {(1, 1): 0.0, (1, 2): -0.001, (1, 3): 0.001, (2, 1): 0.0, (2, 2): -0.002, (2, 3): 0.002}


def value(w, k, n, boot, rep):
    base, scale = CELLS[w]
    v = base[KERNELS.index(k)] * (n / 1000 if scale else 1)
    return round(v * (1 + JITTER[(boot, rep)]))


def median(w, k, n):
    return statistics.median(value(w, k, n, b, r) for b in (1, 2) for r in range(1, REPS + 1))


def console(k, boot, bad=None):
    """One boot's console log; bad: a fault to put in it."""
    ts = iter(f"[{t / 1000:12.6f}] " for t in range(1000, 10 ** 7, 7))
    out = ["Linux version 7.3.4-nstree (synthetic)"]
    out.append(next(ts) + "NSBENCH-INFO kbench sizes=2 reps=3 tsc_khz=1000000")
    for n in SIZES:
        for rep in range(1, REPS + 1):
            for w in CELLS:
                if w.startswith("kb"):
                    out.append(next(ts) + f"NSBENCH workload={w} n={n} rep={rep} "
                               f"ns_per_op={value(w, k, n, boot, rep)} iters=4096 count={n} "
                               "ticks=1")
    if bad == "kbench-error":
        out.append(next(ts) + "NSBENCH-ERROR kbm_lookup n=1000: 3 of 4096 lookups wrong")
        out.append(next(ts) + "NSBENCH-INFO kbench done errors=1 ticks=5")
    elif bad != "kbench-unfinished":
        out.append(next(ts) + "NSBENCH-INFO kbench done errors=0 ticks=5")
    out.append("NSBENCH-GUEST cpus=2 mem_total_kb=4012345")
    out.append("NSBENCH-BEGIN release=7.3.4-nstree cpus=2 levels=3 reps=3 ms=10 baseline=9 "
               "clock_res_ns=1 clock=clock_monotonic")
    for n in SIZES:
        out.append(f"NSBENCH-INFO n={n} build_ms={n // 10} sleepers={n // 40} "
                   f"mem_available_kb={3900000 - n}")
        out.append(f"NSBENCH-INFO n={n} listed={n + 9} owned={n // 3} proc_ns_found={n // 10} "
                   f"proc_fd_found={n + 9}")
        for rep in range(1, REPS + 1):
            for w in CELLS:
                if w.startswith("kb"):
                    continue
                out.append(f"NSBENCH workload={w} n={n} rep={rep} "
                           f"ns_per_op={value(w, k, n, boot, rep)} iters=100 count={n + 9}")
                if w == "listns_churn" and bad != "no-churn-info":
                    out.append(f"NSBENCH-INFO churn workload=listns_churn n={n} rep={rep} "
                               f"churn_ops=40 churn_per_call=0.400 churn_per_ms=4.25 "
                               "churn_type=uts")
    out.append("NSBENCH-MEM kind=uts n=2000 bytes_per_ns=1644")
    out.append("NSBENCH-END")
    out.append("NSBENCH-RC rc=0 seconds=100")
    return "\n".join(out) + "\n"


def run(d, accel, bad=None):
    logs = []
    order = list(KERNELS) + list(reversed(KERNELS))
    for i, k in enumerate(order):
        boot = 1 if i < len(KERNELS) else 2
        path = os.path.join(d, f"console-{k}-boot{boot}.log")
        with open(path, "w") as f:
            f.write(console(k, boot, bad if k == "rust" and boot == 2 else None))
        logs.append(f"{k}={path}")
    env = os.path.join(d, "accel.env")
    with open(env, "w") as f:
        f.write("# key\n" + accel)
    out = os.path.join(d, "out")
    r = subprocess.run([sys.executable, REPORT, "--out", out, "--accel-env", env] + logs,
                       capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr, out


def main(argv):
    keep = argv[1] if len(argv) > 1 and argv[0] == "--keep" else None
    passed = failed = 0

    def check(what, ok, detail=""):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print(f"FAIL: {what}" + (f": {detail}" if detail else ""))

    with tempfile.TemporaryDirectory() as tmp:
        d = keep or tmp
        os.makedirs(d, exist_ok=True)
        icount = ("ACCEL_NAME=tcg-smp4-icount\nQEMU_ACCEL=-accel\\ tcg,thread=single\\ -smp\\ 2"
                  "\\ -icount\\ shift=0,sleep=off\nBASE_ACCEL_NAME=tcg-smp4\n")
        rc, text, out = run(d, icount)
        if keep:
            with open(os.path.join(d, "report.txt"), "w") as f:
                f.write(text)
        lines = text.splitlines()
        check("clean logs: exit 0", rc == 0, text[-2000:])
        check("no PROBLEM", "PROBLEM" not in text)

        # Every table says its unit in its title or header.
        for title in ("Median cost per operation", "listns() under churn",
                      "finding all namespaces", "where the listns() and file handle costs go",
                      "population (", "noise floor", "cells above 1.02"):
            tl = [l for l in lines if l.startswith(title)]
            check(f"table '{title}' is there", len(tl) == 1, str(tl))
            if tl:
                i = lines.index(tl[0])
                check(f"table '{title}' says {ICOUNT}",
                      any(ICOUNT in l or "1e9 guest instructions (TCG -icount)" in l
                          for l in lines[i:i + 3]), "\n".join(lines[i:i + 3]))

        hdr = next((l for l in lines if l.startswith("workload ")), "")
        for col in ("C", "C-opt", "Rust", "Rust-noinline", "Rust/C", "Rust/C-opt", "C-opt/C",
                    "Rust-noinline/Rust"):
            check(f"main table has column {col}", f" {col} " in hdr + " ", hdr)

        # A row: the medians and the ratios, as computed here.
        row = next((l.split() for l in lines if l.startswith("kb_lookup ") and " 1000 " in l),
                   [])
        want = ["kb_lookup", "1000", "112", "112", "136", "150", "1.214", "1.214", "1.000",
                "1.103"]
        check("kb_lookup n=1000 row", row[:10] == want, f"{row} != {want}")
        row = next((l.split() for l in lines if l.startswith("listns_all ") and " 10000 " in l),
                   [])
        check("listns_all n=10000 counts", row[2:6] == ["1.45M", "470.0k", "468.0k", "475.0k"],
              str(row))

        # cells above 1.02: exactly the cells whose Rust/C-opt is above 1.02.
        expect = sorted((w, n) for w in CELLS for n in SIZES
                        if median(w, "rust", n) / median(w, "c-opt", n) > 1.02)
        i = next((j for j, l in enumerate(lines) if l.startswith("cells above 1.02")), None)
        got = []
        if i is not None:
            for l in lines[i + 2:]:
                if not l.startswith("  ") or l.strip() == "none":
                    break
                w, n = l.split()[0], int(l.split()[1].rstrip(":").split("=")[1])
                got.append((w, n))
        check("cells above 1.02 lists exactly the cells above 1.02", sorted(got) == expect,
              f"got {sorted(got)}, expected {expect}")
        check("cells above 1.02 counts them", i is not None and
              f"{len(expect)} of {len(CELLS) * len(SIZES)} cells" in lines[i + 1],
              lines[i + 1] if i is not None else "")

        # The churn table: ratio to listns_all and the churn counts.
        crow = next((l.split() for l in lines if l.startswith("   1000 Rust ")
                     and "0.400" in l), [])
        check("listns() under churn row", crow[-3:] == ["1.998", "0.400", "4.25"], str(crow))

        with open(os.path.join(out, "summary.csv")) as f:
            rows = list(csv.DictReader(f))
        check("summary.csv: a row per cell", len(rows) == len(CELLS) * len(SIZES), len(rows))
        r = next((r for r in rows if r["workload"] == "kb_lookup" and r["n"] == "1000"), {})
        check("summary.csv: kernels, ratios and unit",
              r.get("rust-noinline_median") == "150.0" and r.get("unit") == ICOUNT and
              abs(float(r.get("noinline_rust") or 0) - 150 / 136) < 1e-9, str(r))

        for bad, what in (("kbench-error", "NSBENCH-ERROR"),
                          ("kbench-unfinished", "did not finish"),
                          ("no-churn-info", "churn counts")):
            rc, text, _ = run(d, icount, bad)
            check(f"{bad}: exit 1", rc == 1)
            check(f"{bad}: reported", any(l.startswith("PROBLEM") and what in l
                                          for l in text.splitlines()),
                  "\n".join(l for l in text.splitlines() if l.startswith("PROBLEM")))

        # Without -icount the tables say what the numbers are.
        rc, text, _ = run(d, "ACCEL_NAME=tcg-smp4\nQEMU_ACCEL=-accel\\ tcg\n")
        tl = next((l for l in text.splitlines() if l.startswith("Median cost")), "")
        check("TCG without icount: the unit says so", "TCG guest time" in tl and
              ICOUNT not in text, tl)

    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
