#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Parse nsbench console logs of the C and the Rust kernel and report.

bench-report.py [--out DIR] [--accel-env FILE] KERNEL=CONSOLE_LOG ...

KERNEL is "c" or "rust"; give one argument per boot, in boot order (the
n-th log of each kernel is boot n; scripts/bench.sh alternates them).
Every "NSBENCH workload=W n=N rep=R ns_per_op=T ..." line is one sample.

Prints, per workload and population size: the C and the Rust median
(ns/op), the Rust/C ratio of the medians, the min and max of the per-rep
ratios (Rust boot b rep r over C boot b rep r: those ran closest in
time) and the ratio of the fastest samples; then the cost of finding the
namespaces by scanning /proc against one listns() call.  Writes the raw
samples to DIR/nsbench.csv, the summary to DIR/summary.csv and a plot of
cost against population size to DIR/nsbench.png (gnuplot).  Exits 1 if a
guest run failed or a kernel has no samples.
"""

import csv
import os
import re
import shutil
import statistics
import subprocess
import sys

TS = re.compile(r"^\[\s*\d+\.\d+\]\s?")
SAMPLE = re.compile(r"^(?:# )?NSBENCH workload=(\S+) n=(\d+) rep=(\d+) ns_per_op=(\d+)"
                    r" iters=(\d+) count=(\d+)")
BEGIN = re.compile(r"^(?:# )?NSBENCH-BEGIN (.*)")
INFO = re.compile(r"^(?:# )?NSBENCH-INFO (.*)")
ERROR = re.compile(r"^(?:# )?NSBENCH-ERROR (.*)")
RC = re.compile(r"^NSBENCH-RC rc=(\d+)")
BAD = re.compile(r"WARNING:|BUG:|Oops|Kernel panic|Call Trace:")
KERNELS = ("c", "rust")
SLOWER = 1.05   # Rust slower than C by more than 5%: worth profiling

# Display order; unknown workloads follow in name order.
ORDER = ["listns_all", "listns_type", "listns_owner", "walk_p1024", "walk_p16", "walk_p1",
         "fh_open", "diag_zero", "diag_one", "diag_resume", "diag_skip", "diag_unpriv",
         "diag_fh_miss",
         "proc_scan", "proc_scan_fd", "churn_none", "churn_uts", "churn_ipc",
         "churn_cgroup", "churn_time", "churn_mnt", "churn_user", "churn_pid", "churn_net"]

WHAT = {
    "listns_all": "listns(), all types, one call",
    "listns_type": "listns(), uts only, one call",
    "listns_owner": "listns(), owned by U2, one call",
    "walk_p1024": "listns() walk, 1024 per call",
    "walk_p16": "listns() walk, 16 per call",
    "walk_p1": "listns() walk, 1 per call",
    "fh_open": "open_by_handle_at(ns id) + close",
    "proc_scan": "stat /proc/*/ns/* (lsns)",
    "proc_scan_fd": "stat /proc/*/ns/* and /proc/*/fd/*",
    "churn_none": "vfork + exit + wait (baseline)",
}


def slope(summary, counts, w, k, sizes):
    """Marginal cost per listed entry of w: between the two largest sizes."""
    pts = [(counts.get((w, n, k)), summary.get((w, n, k))) for n in sizes[-2:]]
    if len(pts) < 2 or any(c is None or v is None for c, v in pts) or pts[1][0] == pts[0][0]:
        return None
    return (pts[1][1] - pts[0][1]) / (pts[1][0] - pts[0][0])


def breakdown(summary, counts, sizes):
    """Rows (part, C, Rust) of the derived costs of listns() and fh_open."""
    n = sizes[-1] if sizes else None
    rows = []

    def get(w, k, at=None):
        return summary.get((w, at or n, k))

    def part(name, f):
        v = {k: f(k) for k in KERNELS}
        rows.append((name, v["c"], v["rust"]))

    def diff(a, b):
        return lambda k: None if get(a, k) is None or get(b, k) is None else get(a, k) - get(b, k)

    part("listns() call, nothing to list (diag_zero)", lambda k: get("diag_zero", k))
    part("+ first entry listed (diag_one - diag_zero)", diff("diag_one", "diag_zero"))
    part(f"+ resume lookup of an id, n={n} (diag_resume - diag_one)",
         diff("diag_resume", "diag_one"))
    if len(sizes) > 1:
        part(f"resume lookup of an id, n={sizes[0]}", lambda k: None
             if get("diag_resume", k, sizes[0]) is None else
             get("diag_resume", k, sizes[0]) - get("diag_one", k, sizes[0]))
    for w, what in (("listns_all", "all types"), ("listns_type", "one type (uts)"),
                    ("listns_owner", "by owner")):
        part(f"per listed entry, {what} (slope of {w})",
             lambda k, w=w: slope(summary, counts, w, k, sizes))

    def skip(k):
        per = slope(summary, counts, "listns_all", k, sizes)
        total, listed = counts.get(("listns_all", n, k)), counts.get(("diag_skip", n, k))
        if None in (per, total, listed, get("diag_skip", k), get("diag_zero", k)) or \
                total == listed:
            return None
        return (get("diag_skip", k) - get("diag_zero", k) - listed * per) / (total - listed)
    part("per skipped entry (diag_skip: net|pid over the unified list)", skip)
    def hidden(k):
        per = slope(summary, counts, "listns_all", k, sizes)
        total, listed = counts.get(("listns_all", n, k)), counts.get(("diag_unpriv", n, k))
        if None in (per, total, listed, get("diag_unpriv", k), get("diag_zero", k)) or \
                total == listed:
            return None
        return (get("diag_unpriv", k) - get("diag_zero", k) - listed * per) / (total - listed)
    part("per entry not visible to the caller (diag_unpriv)", hidden)
    part(f"walk with 1 per call, per call, n={n}", lambda k: None
         if get("walk_p1", k) is None else get("walk_p1", k) / counts[("walk_p1", n, k)])
    part("open_by_handle_at(id) + close, hit (fh_open)", lambda k: get("fh_open", k))
    part("open_by_handle_at(unused id): lookup miss (diag_fh_miss)",
         lambda k: get("diag_fh_miss", k))
    if len(sizes) > 1:
        part(f"lookup miss, n={sizes[0]}", lambda k: get("diag_fh_miss", k, sizes[0]))
    return rows


def kv(text):
    return dict(f.split("=", 1) for f in text.split() if "=" in f)


def parse(path):
    """Samples, metadata and problems of one console log."""
    samples, meta, info, problems = [], {}, [], []
    rc = None
    try:
        with open(path, errors="replace") as f:
            lines = [TS.sub("", l.rstrip("\r\n")) for l in f]
    except OSError as e:
        return samples, meta, info, [str(e)]
    for l in lines:
        m = SAMPLE.match(l)
        if m:
            w, n, rep, ns, iters, count = m.groups()
            samples.append((w, int(n), int(rep), int(ns), int(iters), int(count)))
            continue
        m = BEGIN.match(l)
        if m:
            meta = kv(m.group(1))
            continue
        m = INFO.match(l)
        if m:
            info.append(kv(m.group(1)))
            continue
        m = ERROR.match(l)
        if m:
            problems.append("nsbench: " + m.group(1))
            continue
        m = RC.match(l)
        if m:
            rc = int(m.group(1))
            continue
        if BAD.search(l):
            problems.append("kernel: " + l.strip())
    if rc is None:
        problems.append("no NSBENCH-RC: the guest did not finish")
    elif rc:
        problems.append(f"nsbench exited with {rc}")
    return samples, meta, info, problems


def fmt_ns(v):
    if v is None:
        return "-"
    for unit, div in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if v >= div:
            return f"{v / div:.3g} {unit}"
    return f"{v:.0f} ns"


def order_key(w):
    return (ORDER.index(w), w) if w in ORDER else (len(ORDER), w)


def accel_env(path):
    """The variables of an accel.env (ACCEL_NAME, QEMU_ACCEL, ...)."""
    env = {}
    try:
        with open(path) as f:
            for l in f:
                k, eq, v = l.strip().partition("=")
                if eq and not k.startswith("#"):
                    env[k] = v.replace("\\ ", " ").strip("'\"")
    except OSError:
        pass
    return env


def plot(out_dir, summary, workloads, sizes, unit):
    """nsbench.png: one panel per workload, median ns/op against n."""
    gp = shutil.which("gnuplot")
    if not gp:
        return "gnuplot not found: no plot"
    dat = os.path.join(out_dir, "nsbench-plot.dat")
    with open(dat, "w") as f:
        for w in workloads:
            f.write(f"# {w}\n")
            for n in sizes:
                c = summary.get((w, n, "c"))
                r = summary.get((w, n, "rust"))
                if c is None and r is None:
                    continue
                f.write(f"{n} {c if c is not None else 'NaN'} {r if r is not None else 'NaN'}\n")
            f.write("\n\n")
    png = os.path.join(out_dir, "nsbench.png")
    cols = 4
    rows = (len(workloads) + cols - 1) // cols
    script = [
        f"set terminal pngcairo noenhanced size {cols * 420},{rows * 300} font ',9'",
        f"set output '{png}'",
        f"set multiplot layout {rows},{cols} title 'nsbench: median cost per op vs "
        f"namespace count, C vs Rust ({unit}; compare the lines, not the values)'",
        "set logscale x", "set logscale y", "set grid",
        "set xlabel 'namespaces'", "set ylabel 'ns/op'", "set key top left",
        "set format y '%.0s%c'",
    ]
    for i, w in enumerate(workloads):
        script += [f"set title '{w}'",
                   f"plot '{dat}' index {i} using 1:2 with linespoints lw 2 title 'C', "
                   f"'' index {i} using 1:3 with linespoints lw 2 dt 2 title 'Rust'"]
    script.append("unset multiplot")
    r = subprocess.run([gp], input="\n".join(script), text=True, capture_output=True)
    if r.returncode:
        return "gnuplot failed: " + r.stderr.strip().splitlines()[-1]
    return png


def main(argv):
    out_dir = os.path.expanduser(os.path.join(
        os.environ.get("NSTREE_OUT", "~/.cache/nstree-rs/out"), "bench"))
    accel_path = None
    runs = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--out", "--accel-env") and i + 1 < len(argv):
            if a == "--out":
                out_dir = argv[i + 1]
            else:
                accel_path = argv[i + 1]
            i += 2
            continue
        kernel, _, path = a.partition("=")
        if kernel not in KERNELS or not path:
            sys.exit(f"usage: {os.path.basename(sys.argv[0])} [--out DIR] "
                     "[--accel-env FILE] c=LOG rust=LOG ...")
        runs.append((kernel, path))
        i += 1
    if accel_path is None:
        accel_path = os.path.join(os.path.dirname(out_dir.rstrip("/")), "accel.env")
    os.makedirs(out_dir, exist_ok=True)

    data = {}           # (w, n, kernel) -> [(boot, rep, ns)]
    counts = {}         # (w, n, kernel) -> what one op found (the last sample's)
    raw = []
    metas = {k: [] for k in KERNELS}
    problems = []
    boots = {k: 0 for k in KERNELS}
    found = {}          # (kernel, n) -> info dict
    for kernel, path in runs:
        boots[kernel] += 1
        boot = boots[kernel]
        samples, meta, info, probs = parse(path)
        metas[kernel].append(meta)
        problems += [f"{kernel} boot {boot} ({path}): {p}" for p in probs]
        for w, n, rep, ns, iters, count in samples:
            data.setdefault((w, n, kernel), []).append((boot, rep, ns))
            counts[(w, n, kernel)] = count
            raw.append((kernel, boot, rep, w, n, ns, iters, count))
        for d in info:
            if "listed" in d:
                found[(kernel, int(d["n"]))] = d

    with open(os.path.join(out_dir, "nsbench.csv"), "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["kernel", "boot", "rep", "workload", "n", "ns_per_op", "iters", "count"])
        wr.writerows(raw)

    workloads = sorted({w for w, _, _ in data}, key=order_key)
    sizes = sorted({n for _, n, _ in data})
    env = accel_env(accel_path)
    accel = env.get("ACCEL_NAME", "unknown")
    meta = next((m for k in KERNELS for m in metas[k] if m), {})
    reps = {k: sorted({len(v) for (w, n, kk), v in data.items() if kk == k}) for k in KERNELS}

    print(f"accelerator: {accel} ({env.get('QEMU_ACCEL', '?')})")
    if "icount" in accel:
        print(f"  {env.get('BASE_ACCEL_NAME', 'TCG')} (no working KVM) with -icount shift=0: guest "
              "time advances 1 ns per executed guest\n  instruction, so every ns/op below is "
              "a guest instruction count per op: reproducible\n  and blind to host load, but "
              "not the wall time of real hardware (no caches, atomics or branch\n  prediction "
              "modelled).  Absolute numbers are not meaningful; the C/Rust ratios are.")
    elif accel.startswith("tcg"):
        print("  TCG (no working KVM): the guest CPU is emulated, so absolute times are not "
              "meaningful;\n  the C/Rust ratios are, up to host load: TCG guest time is "
              "host wall time, so every\n  time the shared host runs something else the "
              "sample grows (see min/max and 'fastest').")
    rel = ", ".join(f"{k} {m.get('release', '?')}" for k in KERNELS for m in metas[k][:1])
    print(f"guest: {rel}; {meta.get('cpus', '?')} CPU(s), clock "
          f"{meta.get('clock', '?')} (CLOCK_MONOTONIC resolution "
          f"{meta.get('clock_res_ns', '?')} ns)")
    print(f"boots: c={boots['c']} rust={boots['rust']}; samples per cell: "
          f"c={reps['c']} rust={reps['rust']}; sizes: {sizes}")
    print()

    summary = {}
    rows = []
    hdr = (f"{'workload':<13} {'n':>6} {'C median':>10} {'Rust median':>11} "
           f"{'Rust/C':>7} {'min':>6} {'max':>6} {'fastest':>7}  note")
    print(hdr)
    print("-" * len(hdr))
    slower = []
    for w in workloads:
        for n in sizes:
            c = data.get((w, n, "c"), [])
            r = data.get((w, n, "rust"), [])
            cm = statistics.median(s[2] for s in c) if c else None
            rm = statistics.median(s[2] for s in r) if r else None
            summary[(w, n, "c")] = cm
            summary[(w, n, "rust")] = rm
            ratio = lo = hi = best = None
            if cm and rm:
                ratio = rm / cm
                cby = {(b, p): ns for b, p, ns in c}
                pairs = [ns / cby[(b, p)] for b, p, ns in r if cby.get((b, p))]
                if pairs:
                    lo, hi = min(pairs), max(pairs)
                best = min(s[2] for s in r) / max(1, min(s[2] for s in c))
            note = ""
            if ratio is not None and ratio > SLOWER:
                note = f"Rust {100 * (ratio - 1):.0f}% slower"
                slower.append((w, n, ratio, lo, hi, best))
            elif ratio is not None and ratio < 1 / SLOWER:
                note = f"Rust {100 * (1 - ratio):.0f}% faster"
            f2 = (lambda v: f"{v:.3f}" if v is not None else "-")
            print(f"{w:<13} {n:>6} {fmt_ns(cm):>10} {fmt_ns(rm):>11} {f2(ratio):>7} "
                  f"{f2(lo):>6} {f2(hi):>6} {f2(best):>7}  {note}")
            rows.append([w, n, cm, rm, ratio, lo, hi, best, len(c), len(r)])
        print()

    with open(os.path.join(out_dir, "summary.csv"), "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["workload", "n", "c_median_ns", "rust_median_ns", "rust_c_ratio",
                     "ratio_min", "ratio_max", "fastest_ratio", "c_samples", "rust_samples"])
        wr.writerows(rows)

    print("finding all namespaces: /proc scan vs one listns() call (medians, same kernel)")
    print(f"{'n':>6} {'kernel':<6} {'listns_all':>10} {'proc_scan':>10} {'ratio':>8} "
          f"{'found':>13} {'proc_scan_fd':>12} {'ratio':>8} {'found':>13}")
    for n in sizes:
        for k in KERNELS:
            la = summary.get(("listns_all", n, k))
            ps = summary.get(("proc_scan", n, k))
            pf = summary.get(("proc_scan_fd", n, k))
            if not la:
                continue
            d = found.get((k, n), {})
            listed = d.get("listed", "?")
            r1 = f"{ps / la:.1f}x" if ps else "-"
            r2 = f"{pf / la:.1f}x" if pf else "-"
            print(f"{n:>6} {k:<6} {fmt_ns(la):>10} {fmt_ns(ps):>10} {r1:>8} "
                  f"{d.get('proc_ns_found', '?') + '/' + listed:>13} {fmt_ns(pf):>12} "
                  f"{r2:>8} {d.get('proc_fd_found', '?') + '/' + listed:>13}")
    print("  proc_scan sees only namespaces some process is in (the sleepers' share);")
    print("  proc_scan_fd also stats every open fd and finds all of them, as listns() does.")
    print()

    rows = breakdown(summary, counts, sizes)
    if any(c is not None or r is not None for _, c, r in rows):
        unit = "guest instructions" if "icount" in accel else "ns"
        print(f"where the listns() and file handle costs go (medians, in {unit}):")
        print(f"  {'part':<62} {'C':>9} {'Rust':>9} {'Rust-C':>9} {'Rust/C':>7}")
        for name, c, r in rows:
            f1 = (lambda v: f"{v:.0f}" if v is not None else "-")
            dd = f"{r - c:+.0f}" if c is not None and r is not None else "-"
            rr = f"{r / c:.3f}" if c and r is not None and c > 0 else "-"
            print(f"  {name:<62} {f1(c):>9} {f1(r):>9} {dd:>9} {rr:>7}")
        print()

    if slower:
        print(f"Rust slower than C by more than {100 * (SLOWER - 1):.0f}% (median ratio):")
        for w, n, ratio, lo, hi, best in slower:
            rng = f", per-rep {lo:.3f}..{hi:.3f}" if lo is not None else ""
            print(f"  {w} n={n}: {ratio:.3f}{rng}, fastest-sample ratio {best:.3f}")
    else:
        print(f"Rust is nowhere slower than C by more than {100 * (SLOWER - 1):.0f}% "
              "(median ratio).")
    print()
    print(f"raw samples: {os.path.join(out_dir, 'nsbench.csv')}")
    print(f"summary:     {os.path.join(out_dir, 'summary.csv')}")
    unit = ("icount: 1 ns = 1 guest instruction" if "icount" in accel else
            "TCG wall time" if accel.startswith("tcg") else accel)
    print(f"plot:        {plot(out_dir, summary, workloads, sizes, unit)}")

    for k in KERNELS:
        if boots[k] and not any(kk == k for _, _, kk in data):
            problems.append(f"{k}: no samples")
    if problems:
        print()
        for p in problems:
            print("PROBLEM: " + p)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
