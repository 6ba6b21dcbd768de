#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Parse the nsbench console logs of the benchmark kernels and report.

bench-report.py [--out DIR] [--accel-env FILE] [--header FILE] [--memory JSON]
                KERNEL=CONSOLE_LOG ...

KERNEL is "c", "c-opt", "rust" or "rust-noinline"; give one argument per
boot, in boot order (the n-th log of each kernel is boot n;
scripts/bench.sh alternates them).  Every "NSBENCH workload=W n=N rep=R
ns_per_op=T ..." line is one sample: from nsbench in user space, and
(kb_*, kbm_* workloads) from the kernel's boot-time microbenchmark of the
tree API (CONFIG_NSTREE_BENCH).

Prints, per workload and population size, the median cost per op of each
kernel (under TCG -icount: guest instructions; every table says its unit)
and four ratios of the medians:
  Rust/C              what users get: the Rust kernel against upstream's C;
  Rust/C-opt          what the language costs (> 1) or saves (< 1): Rust
                      against the same algorithm in C (upstream C +
                      bench/c-opt/*.patch);
  C-opt/C             what upstream could take: the algorithm alone, in C;
  Rust-noinline/Rust  what CONFIG_RUST_INLINE_HELPERS buys (> 1: the
                      inlined C helpers save that much);
with the range of the per-repetition Rust/C-opt ratios (Rust boot b rep r
over C-opt boot b rep r: those ran closest in time).  Then listns() under
churn, the /proc scan against listns(), the parts of a listns() call, the
memory figures (static: --memory, from scripts/bench-mem.py; slab per
namespace: NSBENCH-MEM), the population's memory, and "cells above 1.02":
every (workload, n) whose Rust/C-opt is above 1.02, generated here so
that no document selects them.  Writes the raw samples to DIR/nsbench.csv,
the summary to DIR/summary.csv and the plot of cost against population
size to DIR/nsbench.png (gnuplot).  Exits 1 if a guest run failed, a
measurement reported an error or a kernel has no samples.
"""

import csv
import json
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
MEM = re.compile(r"^(?:# )?NSBENCH-MEM (.*)")
GUEST = re.compile(r"^NSBENCH-GUEST (.*)")
ERROR = re.compile(r"^(?:# )?NSBENCH-ERROR (.*)")
RC = re.compile(r"^NSBENCH-RC rc=(\d+)")
BAD = re.compile(r"WARNING:|BUG:|Oops|Kernel panic|Call Trace:")
KERNELS = ("c", "c-opt", "rust", "rust-noinline")
NAMES = {"c": "C", "c-opt": "C-opt", "rust": "Rust", "rust-noinline": "Rust-noinline"}
# The ratio columns: (title, numerator, denominator).
RATIOS = (("Rust/C", "rust", "c"), ("Rust/C-opt", "rust", "c-opt"),
          ("C-opt/C", "c-opt", "c"), ("Rust-noinline/Rust", "rust-noinline", "rust"))
ABOVE = 1.02    # Rust/C-opt above this: listed in "cells above 1.02"

# Display order; unknown workloads follow in name order.
ORDER = ["listns_all", "listns_type", "listns_owner", "listns_churn",
         "walk_p1024", "walk_p16", "walk_p1",
         "fh_open", "diag_zero", "diag_one", "diag_resume", "diag_skip", "diag_unpriv",
         "diag_fh_miss",
         "proc_scan", "proc_scan_fd", "churn_none", "churn_uts", "churn_ipc",
         "churn_cgroup", "churn_time", "churn_mnt", "churn_user", "churn_pid", "churn_net",
         "kb_lookup", "kb_lookup_type", "kb_lookup_miss", "kb_remove", "kb_add",
         "kb_active_hot", "kb_active_d1", "kb_active_d4", "kb_active_d16",
         "kbm_lookup", "kbm_lookup_type", "kbm_remove", "kbm_add"]

WHAT = {
    "listns_all": "listns() of all namespaces, one call",
    "listns_type": "listns() of one type (uts), one call",
    "listns_owner": "listns() of what U2 owns, one call",
    "listns_churn": "listns() of all, one call, on CPU 0 while CPU 1 creates and destroys"
                    " UTS namespaces (both CPUs counted)",
    "walk_p1024": "listns() walk, 1024 ids per call",
    "walk_p16": "listns() walk, 16 ids per call",
    "walk_p1": "listns() walk, 1 id per call",
    "fh_open": "open_by_handle_at(ns id) + close",
    "diag_zero": "listns() with nr_ns_ids = 0",
    "diag_one": "listns() of the first namespace only",
    "diag_resume": "listns() of one namespace after a mid-list id",
    "diag_skip": "listns(net|pid) over the unified list",
    "diag_unpriv": "listns() of all by root in U3 only",
    "diag_fh_miss": "open_by_handle_at(unused id): ESTALE",
    "proc_scan": "stat /proc/*/ns/* (lsns)",
    "proc_scan_fd": "stat /proc/*/ns/* and /proc/*/fd/*",
    "churn_none": "vfork + exit + wait (baseline)",
    "kb_lookup": "kernel: ns_tree_lookup_rcu(id, 0)",
    "kb_lookup_type": "kernel: ns_tree_lookup_rcu(id, CLONE_NEWUTS)",
    "kb_lookup_miss": "kernel: ns_tree_lookup_rcu(unused id, 0)",
    "kb_remove": "kernel: __ns_tree_remove()",
    "kb_add": "kernel: __ns_tree_add_raw(), new largest id",
    "kb_active_hot": "kernel: active get + put of an active namespace (1 -> 2 -> 1)",
    "kb_active_d1": "kernel: active get + put, cascade depth 1",
    "kb_active_d4": "kernel: active get + put, cascade depth 4",
    "kb_active_d16": "kernel: active get + put, cascade depth 16",
    "kbm_lookup": "kernel, mixed types and owners: ns_tree_lookup_rcu(id, 0)",
    "kbm_lookup_type": "kernel, mixed: ns_tree_lookup_rcu(id, its type)",
    "kbm_remove": "kernel, mixed: __ns_tree_remove()",
    "kbm_add": "kernel, mixed: __ns_tree_add_raw(), new largest id",
}


def unit_of(accel):
    """What a sample's ns_per_op is, for table titles and headers."""
    if "icount" in accel:
        return "guest instructions (TCG -icount)"
    if accel.startswith("tcg"):
        return "ns of TCG guest time (host wall time, load-dependent)"
    if accel.startswith("kvm"):
        return "ns (KVM, wall time)"
    return f"ns ({accel})"



def slope(summary, counts, w, k, sizes):
    """Marginal cost per listed entry of w: between the two largest sizes."""
    sizes = [n for n in sizes if summary.get((w, n, k)) is not None]
    pts = [(counts.get((w, n, k)), summary.get((w, n, k))) for n in sizes[-2:]]
    if len(pts) < 2 or any(c is None or v is None for c, v in pts) or pts[1][0] == pts[0][0]:
        return None
    return (pts[1][1] - pts[0][1]) / (pts[1][0] - pts[0][0])


def breakdown(summary, counts, sizes, kernels):
    """Rows (part, {kernel: value}) of the derived costs of listns() and fh_open."""
    full = [n for n in sizes if summary.get(("diag_zero", n, kernels[0])) is not None]
    n = full[-1] if full else None
    rows = []

    def get(w, k, at=None):
        return summary.get((w, at or n, k))

    def part(name, f):
        rows.append((name, {k: f(k) for k in kernels}))

    def diff(a, b):
        return lambda k: None if get(a, k) is None or get(b, k) is None else get(a, k) - get(b, k)

    part("listns() call, nothing to list (diag_zero)", lambda k: get("diag_zero", k))
    part("+ first entry listed (diag_one - diag_zero)", diff("diag_one", "diag_zero"))
    part(f"+ resume lookup of an id, n={n} (diag_resume - diag_one)",
         diff("diag_resume", "diag_one"))
    if len(full) > 1:
        part(f"resume lookup of an id, n={full[0]}", lambda k: None
             if get("diag_resume", k, full[0]) is None else
             get("diag_resume", k, full[0]) - get("diag_one", k, full[0]))
    for w, what in (("listns_all", "all types"), ("listns_type", "one type (uts)"),
                    ("listns_owner", "by owner")):
        part(f"per listed entry, {what} (slope of {w})",
             lambda k, w=w: slope(summary, counts, w, k, full))

    def per_rest(w):
        def f(k):
            per = slope(summary, counts, "listns_all", k, full)
            total, listed = counts.get(("listns_all", n, k)), counts.get((w, n, k))
            if None in (per, total, listed, get(w, k), get("diag_zero", k)) or \
                    total == listed:
                return None
            return (get(w, k) - get("diag_zero", k) - listed * per) / (total - listed)
        return f
    part("per skipped entry (diag_skip: net|pid over the unified list)", per_rest("diag_skip"))
    part("per entry not visible to the caller (diag_unpriv)", per_rest("diag_unpriv"))
    part(f"walk with 1 per call, per call, n={n}", lambda k: None
         if get("walk_p1", k) is None else get("walk_p1", k) / counts[("walk_p1", n, k)])
    part("open_by_handle_at(id) + close, hit (fh_open)", lambda k: get("fh_open", k))
    part("open_by_handle_at(unused id): lookup miss (diag_fh_miss)",
         lambda k: get("diag_fh_miss", k))
    if len(full) > 1:
        part(f"lookup miss, n={full[0]}", lambda k: get("diag_fh_miss", k, full[0]))
    return rows


def kv(text):
    return dict(f.split("=", 1) for f in text.split() if "=" in f)


def parse(path):
    """Samples, metadata, info, memory lines and problems of one console log."""
    samples, meta, info, mem, problems = [], {}, [], [], []
    guest = {}
    rc = None
    try:
        with open(path, errors="replace") as f:
            lines = [TS.sub("", l.rstrip("\r\n")) for l in f]
    except OSError as e:
        return samples, meta, info, mem, guest, [str(e)]
    for l in lines:
        m = SAMPLE.match(l)
        if m:
            w, n, rep, ns, iters, count = m.groups()
            samples.append((w, int(n), int(rep), int(ns), int(iters), int(count)))
            continue
        for rx, dst in ((BEGIN, "meta"), (INFO, "info"), (MEM, "mem"), (GUEST, "guest")):
            m = rx.match(l)
            if m:
                if dst == "meta":
                    meta = kv(m.group(1))
                elif dst == "info":
                    info.append(kv(m.group(1)))
                elif dst == "mem":
                    mem.append(kv(m.group(1)))
                else:
                    guest = kv(m.group(1))
                break
        else:
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
    return samples, meta, info, mem, guest, problems


def fmt_ns(v):
    if v is None:
        return "-"
    for unit, div in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if v >= div:
            return f"{v / div:.3g} {unit}"
    return f"{v:.0f} ns"


def fmt_count(v):
    """A guest instruction count: 9834, 145.1k, 1.44M, 2.10G."""
    if v is None:
        return "-"
    if v >= 1e9:
        return f"{v / 1e9:.2f}G"
    if v >= 1e6:
        return f"{v / 1e6:.2f}M"
    if v >= 1e4:
        return f"{v / 1e3:.1f}k"
    return f"{v:.0f}"


def f3(v):
    return f"{v:.3f}" if v is not None else "-"


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
                    env[k] = v.replace("\\ ", " ").replace("\\,", ",").strip("'\"")
    except OSError:
        pass
    return env


def plot(out_dir, summary, workloads, sizes, kernels, unit):
    """nsbench.png: one panel per workload, median ns/op against n, per kernel."""
    gp = shutil.which("gnuplot")
    if not gp:
        return "gnuplot not found: no plot"
    dat = os.path.join(out_dir, "nsbench-plot.dat")
    with open(dat, "w") as f:
        for w in workloads:
            f.write(f"# {w}: n {' '.join(kernels)}\n")
            for n in sizes:
                vals = [summary.get((w, n, k)) for k in kernels]
                if all(v is None for v in vals):
                    continue
                f.write(f"{n} " + " ".join("NaN" if v is None else str(v) for v in vals) + "\n")
            f.write("\n\n")
    png = os.path.join(out_dir, "nsbench.png")
    cols = 4
    rows = (len(workloads) + cols - 1) // cols
    styles = {"c": "lw 2 lc rgb '#1f77b4'", "c-opt": "lw 2 dt 3 lc rgb '#2ca02c'",
              "rust": "lw 2 dt 2 lc rgb '#d62728'",
              "rust-noinline": "lw 2 dt 4 lc rgb '#ff7f0e'"}
    script = [
        f"set terminal pngcairo noenhanced size {cols * 420},{rows * 300} font ',9'",
        f"set output '{png}'",
        f"set multiplot layout {rows},{cols} title 'nsbench: median cost per op vs "
        f"namespace count, {', '.join(NAMES[k] for k in kernels)} ({unit}; compare the "
        "lines, not the values)'",
        "set logscale x", "set logscale y", "set grid",
        "set xlabel 'namespaces'",
        f"set ylabel '{'guest instructions' if 'icount' in unit else 'ns'} per op'",
        "set key top left",
        "set format y '%.0s%c'",
    ]
    for i, w in enumerate(workloads):
        plots = [f"'{dat}' index {i} using 1:{j + 2} with linespoints {styles.get(k, '')} "
                 f"title '{NAMES.get(k, k)}'" for j, k in enumerate(kernels)]
        script += [f"set title '{w}'", "plot " + ", ".join(plots)]
    script.append("unset multiplot")
    r = subprocess.run([gp], input="\n".join(script), text=True, capture_output=True)
    os.unlink(dat)
    if r.returncode:
        return "gnuplot failed: " + r.stderr.strip().splitlines()[-1]
    return png


def ratio(a, b):
    return a / b if a is not None and b else None


def main(argv):
    out_dir = os.path.expanduser(os.path.join(
        os.environ.get("NSTREE_OUT", "~/.cache/nstree-rs/out"), "bench"))
    accel_path = header_path = memory_path = None
    runs = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--out", "--accel-env", "--header", "--memory") and i + 1 < len(argv):
            v = argv[i + 1]
            if a == "--out":
                out_dir = v
            elif a == "--accel-env":
                accel_path = v
            elif a == "--header":
                header_path = v
            else:
                memory_path = v
            i += 2
            continue
        kernel, _, path = a.partition("=")
        if kernel not in KERNELS or not path:
            sys.exit(f"usage: {os.path.basename(sys.argv[0])} [--out DIR] [--accel-env FILE] "
                     "[--header FILE] [--memory JSON] c=LOG c-opt=LOG rust=LOG "
                     "rust-noinline=LOG ...")
        runs.append((kernel, path))
        i += 1
    if accel_path is None:
        accel_path = os.path.join(os.path.dirname(out_dir.rstrip("/")), "accel.env")
    os.makedirs(out_dir, exist_ok=True)

    data = {}           # (w, n, kernel) -> [(boot, rep, ns)]
    counts = {}         # (w, n, kernel) -> what one op found (the last sample's)
    raw = []
    metas = {k: [] for k in KERNELS}
    guests = {k: [] for k in KERNELS}
    problems = []
    boots = {k: 0 for k in KERNELS}
    found = {}          # (kernel, n) -> info dict
    popinfo = {}        # (kernel, n) -> info dict of the population build
    mems = {}           # (kernel, kind) -> [bytes_per_ns]
    memn = {}
    kinfo = {}
    churninfo = {}      # (kernel, n) -> [info dict of a listns_churn sample]
    for kernel, path in runs:
        boots[kernel] += 1
        boot = boots[kernel]
        samples, meta, info, mem, guest, probs = parse(path)
        metas[kernel].append(meta)
        guests[kernel].append(guest)
        problems += [f"{kernel} boot {boot} ({path}): {p}" for p in probs]
        for w, n, rep, ns, iters, count in samples:
            data.setdefault((w, n, kernel), []).append((boot, rep, ns))
            counts[(w, n, kernel)] = count
            raw.append((kernel, boot, rep, w, n, ns, iters, count))
        kbench_started = kbench_done = False
        for d in info:
            if "listed" in d:
                found[(kernel, int(d["n"]))] = d
            elif "build_ms" in d:
                popinfo.setdefault((kernel, int(d["n"])), []).append(d)
            elif "churn_ops" in d:
                churninfo.setdefault((kernel, int(d["n"])), []).append(d)
            elif "tsc_khz" in d:
                kinfo.setdefault(kernel, []).append(d)
                kbench_started = True
            elif "errors" in d:
                kbench_done = True
                if int(d["errors"]):
                    problems.append(f"{kernel} boot {boot} ({path}): kernel microbenchmark: "
                                    f"{d['errors']} wrong result(s) (NSBENCH-ERROR lines)")
        if kbench_started and not kbench_done:
            problems.append(f"{kernel} boot {boot} ({path}): the kernel microbenchmark did not "
                            "finish")
        for d in mem:
            mems.setdefault((kernel, d["kind"]), []).append(int(d["bytes_per_ns"]))
            memn[d["kind"]] = d["n"]
    kernels = [k for k in KERNELS if boots[k]]

    with open(os.path.join(out_dir, "nsbench.csv"), "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["kernel", "boot", "rep", "workload", "n", "ns_per_op", "iters", "count"])
        wr.writerows(raw)

    workloads = sorted({w for w, _, _ in data}, key=order_key)
    sizes = sorted({n for _, n, _ in data})
    env = accel_env(accel_path)
    accel = env.get("ACCEL_NAME", "unknown")
    meta = next((m for k in kernels for m in metas[k] if m), {})
    reps = {k: sorted({len(v) for (w, n, kk), v in data.items() if kk == k}) for k in kernels}
    icount = "icount" in accel

    if header_path:
        with open(header_path) as f:
            print(f.read().rstrip())
        print()
    print(f"accelerator: {accel} ({env.get('QEMU_ACCEL', '?')})")
    if icount:
        print(f"  {env.get('BASE_ACCEL_NAME', 'TCG')}, no usable KVM (/dev/kvm here is PVM, "
              "which runs guest kernel code ~600x slower than TCG),\n  with -icount shift=0: "
              "guest time advances 1 ns per executed guest instruction, so every ns/op\n"
              "  below is a guest instruction count per op: reproducible and blind to host "
              "load, but not\n  the wall time of real hardware (no caches, atomics or branch "
              "prediction modelled).\n  Absolute numbers are not meaningful; the ratios are.")
    elif accel.startswith("tcg"):
        print("  TCG (no working KVM): the guest CPU is emulated, so absolute times are not "
              "meaningful;\n  the ratios are, up to host load: TCG guest time is "
              "host wall time, so every\n  time the shared host runs something else the "
              "sample grows (see the per-rep range).")
    rel = ", ".join(f"{NAMES[k]} {m.get('release', '?')}" for k in kernels for m in metas[k][:1])
    g = next((gg for k in kernels for gg in guests[k] if gg), {})
    print(f"guest: {rel}; {meta.get('cpus', '?')} CPU(s), {g.get('mem_total_kb', '?')} kB, "
          f"clock {meta.get('clock', '?')}")
    print("boots: " + " ".join(f"{NAMES[k]}={boots[k]}" for k in kernels) +
          "; samples per cell: " + " ".join(f"{NAMES[k]}={reps[k]}" for k in kernels) +
          f"; sizes: {sizes}")
    print()
    print("Ratios of the medians:")
    print("  Rust/C              what users get: the Rust kernel against upstream's C kernel")
    print("  Rust/C-opt          what the language costs (> 1) or saves (< 1): Rust against the")
    print("                      same algorithm in C (upstream + bench/c-opt/*.patch: the")
    print("                      permission check once per call, ids collected 64 at a time")
    print("                      under one RCU section)")
    print("  C-opt/C             what upstream could take: that algorithm alone, in C")
    print("  Rust-noinline/Rust  what the inlined C helpers buy (CONFIG_RUST_INLINE_HELPERS:")
    print("                      rust-noinline is the Rust kernel without it; > 1: they save)")
    print("  per-rep             the range of Rust/C-opt over the repetitions (boot b, rep r)")
    print("  kb_* rows are the kernel's boot-time microbenchmark of the tree API on fake UTS")
    print("  namespaces, kbm_* rows the same on a mixed population (uts, ipc, pid, time,")
    print("  cgroup and user fakes under 16 owners); n = fakes on the trees, the same C caller")
    print("  on every kernel.")
    print()

    unit = unit_of(accel)
    fmt = fmt_count if icount else fmt_ns
    summary = {}
    rows = []
    width = max(9, *(len(NAMES[k]) for k in kernels))
    print(f"Median cost per operation, in {unit}; ratios of the medians:")
    hdr = (f"{'workload':<15} {'n':>7} " + " ".join(f"{NAMES[k]:>{width}}" for k in kernels) +
           " " + " ".join(f"{t:>{max(7, len(t))}}" for t, _, _ in RATIOS) +
           f" {'per-rep':>13}  note")
    print(hdr)
    print("-" * len(hdr))
    above = []
    for w in workloads:
        printed = False
        for n in sizes:
            med = {}
            for k in kernels:
                smp = data.get((w, n, k), [])
                med[k] = statistics.median(x[2] for x in smp) if smp else None
                summary[(w, n, k)] = med[k]
            if all(v is None for v in med.values()):
                continue
            printed = True
            rat = {t: ratio(med.get(a), med.get(b)) for t, a, b in RATIOS}
            rco = rat["Rust/C-opt"]
            lo = hi = None
            if "rust" in kernels and "c-opt" in kernels:
                by = {(b, p): ns for b, p, ns in data.get((w, n, "c-opt"), [])}
                pairs = [ns / by[(b, p)] for b, p, ns in data.get((w, n, "rust"), [])
                         if by.get((b, p))]
                if pairs:
                    lo, hi = min(pairs), max(pairs)
            note = ""
            if rco is not None and rco > ABOVE:
                note = f"Rust/C-opt above {ABOVE}"
                above.append((w, n, rco, lo, hi))
            rng = f"{lo:.3f}..{hi:.3f}" if lo is not None else "-"
            print(f"{w:<15} {n:>7} " + " ".join(f"{fmt(med[k]):>{width}}" for k in kernels) +
                  " " + " ".join(f"{f3(rat[t]):>{max(7, len(t))}}" for t, _, _ in RATIOS) +
                  f" {rng:>13}  {note}")
            rows.append({"workload": w, "n": n, "med": med, "ratios": rat, "lo": lo, "hi": hi,
                         "samples": {k: len(data.get((w, n, k), [])) for k in kernels}})
        if printed:
            print()

    with open(os.path.join(out_dir, "summary.csv"), "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["workload", "n", "unit"] + [f"{k}_median" for k in kernels] +
                    ["rust_c", "rust_copt", "copt_c", "noinline_rust",
                     "rust_copt_min", "rust_copt_max"] +
                    [f"{k}_samples" for k in kernels])
        for r in rows:
            wr.writerow([r["workload"], r["n"], unit] + [r["med"][k] for k in kernels] +
                        [r["ratios"][t] for t, _, _ in RATIOS] + [r["lo"], r["hi"]] +
                        [r["samples"][k] for k in kernels])

    print("workloads:")
    for w in workloads:
        if w in WHAT:
            print(f"  {w:<14} {WHAT[w]}")
    print()

    if any(w == "listns_churn" for w in workloads):
        print(f"listns() under churn (medians, in {unit}): listns_churn is listns_all's call on "
              "CPU 0 while\nCPU 1 creates and destroys UTS namespaces without pause"
              + (";  the guest clock of -icount counts\nboth CPUs, so with the churner busy a "
                 "call costs about twice a quiet one, and more only\nby what the churn adds to "
                 "the call (retries, waits)" if icount else "") + ":")
        print(f"{'n':>7} {'kernel':<13} {'listns_all':>10} {'listns_churn':>12} {'churn/all':>9} "
              f"{'churned/call':>12} {'churned/ms':>10}")
        for n in sizes:
            for k in kernels:
                la = summary.get(("listns_all", n, k))
                lc = summary.get(("listns_churn", n, k))
                if lc is None:
                    continue
                ci = churninfo.get((k, n), [])
                if len(ci) != len(data.get(("listns_churn", n, k), [])):
                    problems.append(f"{k}: listns_churn n={n}: {len(ci)} churn counts "
                                    "(NSBENCH-INFO churn lines) for "
                                    f"{len(data.get(('listns_churn', n, k), []))} samples")
                pc = statistics.median(float(d["churn_per_call"]) for d in ci) if ci else None
                pm = statistics.median(float(d["churn_per_ms"]) for d in ci) if ci else None
                print(f"{n:>7} {NAMES[k]:<13} {fmt(la):>10} {fmt(lc):>12} "
                      f"{f3(ratio(lc, la)):>9} "
                      f"{(f'{pc:.3f}' if pc is not None else '-'):>12} "
                      f"{(f'{pm:.2f}' if pm is not None else '-'):>10}")
        print("  churned: UTS namespaces created and destroyed while the calls were measured "
              "(per ms of\n  guest time" + (", i.e. per million guest instructions" if icount
                                              else "") + "); nsbench fails a sample with none.")
        print()

    print(f"finding all namespaces: /proc scan vs one listns() call (medians, in {unit}, same "
          "kernel)")
    print(f"{'n':>7} {'kernel':<13} {'listns_all':>10} {'proc_scan':>10} {'ratio':>8} "
          f"{'found':>15} {'proc_scan_fd':>12} {'ratio':>8} {'found':>15}")
    for n in sizes:
        for k in kernels:
            la = summary.get(("listns_all", n, k))
            ps = summary.get(("proc_scan", n, k))
            pf = summary.get(("proc_scan_fd", n, k))
            if not la:
                continue
            d = found.get((k, n), {})
            listed = d.get("listed", "?")
            r1 = f"{ps / la:.1f}x" if ps else "-"
            r2 = f"{pf / la:.1f}x" if pf else "-"
            print(f"{n:>7} {NAMES[k]:<13} {fmt(la):>10} {fmt(ps):>10} {r1:>8} "
                  f"{d.get('proc_ns_found', '?') + '/' + listed:>15} {fmt(pf):>12} "
                  f"{r2:>8} {d.get('proc_fd_found', '?') + '/' + listed:>15}")
    print("  proc_scan sees only namespaces some process is in (the sleepers' share);")
    print("  proc_scan_fd also stats every open fd and finds all of them, as listns() does.")
    print()

    brows = breakdown(summary, counts, sizes, kernels)
    if any(v is not None for _, vals in brows for v in vals.values()):
        print(f"where the listns() and file handle costs go (medians, in {unit}):")
        print(f"  {'part':<62} " + " ".join(f"{NAMES[k]:>{width}}" for k in kernels) + " " +
              " ".join(f"{t:>{max(7, len(t))}}" for t, _, _ in RATIOS))
        for name, vals in brows:
            f0 = (lambda v: f"{v:.0f}" if v is not None else "-")
            print(f"  {name:<62} " + " ".join(f"{f0(vals[k]):>{width}}" for k in kernels) + " " +
                  " ".join(f"{f3(ratio(vals.get(a), vals.get(b))):>{max(7, len(t))}}"
                           for t, a, b in RATIOS))
        print()

    if mems:
        print("slab memory per namespace (NSBENCH-MEM: Slab: of /proc/meminfo before and after "
              "creating n\nnamespaces of a type, each held by an fd, in a fresh child; bytes per "
              "namespace, fd\nincluded; median over the boots):")
        kinds = sorted({kd for _, kd in mems}, key=lambda x: ["uts", "ipc", "cgroup", "time",
                                                               "mnt", "user", "pid", "net"].index(x)
                       if x in ("uts", "ipc", "cgroup", "time", "mnt", "user", "pid", "net") else 9)
        print(f"  {'type':<7} {'n':>5} " + " ".join(f"{NAMES[k]:>7}" for k in kernels) +
              "  per-boot values")
        for kd in kinds:
            vals = {k: mems.get((k, kd)) for k in kernels}
            med = {k: statistics.median(v) if v else None for k, v in vals.items()}
            per = "; ".join(f"{NAMES[k]} {','.join(map(str, vals[k] or []))}" for k in kernels)
            print(f"  {kd:<7} {memn.get(kd, '?'):>5} " +
                  " ".join(f"{(f'{med[k]:.0f}' if med[k] is not None else '-'):>7}"
                           for k in kernels) + f"  {per}")
        print("  struct ns_common and every namespace type are the same structures on all "
              "kernels; a\n  difference here is slab noise (per-CPU partial slabs), not the "
              "implementation.")
        print()

    if memory_path and os.path.exists(memory_path):
        with open(memory_path) as f:
            memj = json.load(f)
        print("static memory (scripts/bench-mem.py on each kernel's vmlinux; all three include the")
        print("same boot-time microbenchmark, kernel/nstree_bench.o):")
        print(f"  {'kernel':<7} {'text':>9} {'data':>9} {'bss':>9}   {'tree text':>9} "
              f"{'tree data':>9} {'tree bss':>8}  objects")
        for k in kernels:
            r = memj.get(k)
            if not r:
                continue
            v, o = r["vmlinux"], r["tree_objects"]
            print(f"  {NAMES[k]:<7} {v['text']:>9} {v['data']:>9} {v['bss']:>9}   "
                  f"{o['text']:>9} {o['data']:>9} {o['bss']:>8}  {' '.join(r['objects'])}")
            if r["kunit"]["text"] or r["kunit"]["data"]:
                print(f"  {'':<7} {'':>9} {'':>9} {'':>9}   {r['kunit']['text']:>9} "
                      f"{r['kunit']['data']:>9} {'':>8}  of which the crate's KUnit tests")
        if "c" in memj:
            for k in kernels[1:]:
                if k in memj:
                    dv = {x: memj[k]["vmlinux"][x] - memj["c"]["vmlinux"][x]
                          for x in ("text", "data", "bss")}
                    print(f"  vmlinux {NAMES[k]} - C: text {dv['text']:+d}, data "
                          f"{dv['data']:+d}, bss {dv['bss']:+d}")
        print("listns() stack (deepest chain of namespace tree code from __x64_sys_listns; "
              "frame =\nreturn address + pushes + sub $N,%rsp, read from the prologues):")
        for k in kernels:
            r = memj.get(k)
            if r:
                chain = " -> ".join(f"{f} {s}" if s else f for f, s in r["listns_chain"])
                print(f"  {NAMES[k]:<7} {r['listns_stack']:>5} bytes  {chain}")
        print()

    if popinfo:
        print("population (user-space nsbench; per size: time to build it, in guest seconds"
              + (" = 1e9 guest instructions (TCG -icount)" if icount else f" ({unit})") +
              ", guest memory left):")
        print(f"  {'n':>8} " + " ".join(f"{NAMES[k] + ' build':>12} {NAMES[k] + ' MemAvail':>15}"
                                         for k in kernels))
        for n in sizes:
            cells = []
            for k in kernels:
                d = popinfo.get((k, n))
                if not d:
                    cells.append(f"{'-':>12} {'-':>15}")
                    continue
                b = statistics.median(int(x["build_ms"]) for x in d)
                m = min(int(x["mem_available_kb"]) for x in d)
                cells.append(f"{b / 1000:>10.1f} s {m // 1024:>12} MB")
            if any(c.strip("- ") for c in cells):
                print(f"  {n:>8} " + " ".join(cells))
        print()

    # C and C-opt run the same code for everything but listns(): their
    # ratio on the churn workloads is the noise of those measurements.
    noise = [abs(r["ratios"]["C-opt/C"] - 1) for r in rows
             if r["workload"].startswith("churn_") and r["ratios"]["C-opt/C"] is not None]
    floor = max(noise) if noise else None
    if floor is not None:
        print(f"noise floor of the churn_ workloads ({unit}): C-opt/C, the same code on both "
              f"(only\nlistns() differs), is within 1 +- {floor:.3f}; a churn_ ratio within that "
              "is not a difference between\nthe kernels.")
        print()
    if "rust" in kernels and "c-opt" in kernels:
        print(f"cells above {ABOVE}: every (workload, n) whose Rust/C-opt (median {unit}) is "
              f"above {ABOVE},\n{len(above)} of {len(rows)} cells (generated from the table above):")
        for w, n, r, lo, hi in above:
            rng = f", per-rep {lo:.3f}..{hi:.3f}" if lo is not None else ""
            nf = (" (within the churn noise floor)" if floor is not None and
                  w.startswith("churn_") and r - 1 <= floor else "")
            print(f"  {w} n={n}: {r:.3f}{rng}{nf}")
        if not above:
            print("  none")
    print()
    png = plot(out_dir, summary, workloads, sizes, kernels, unit)
    print("files (next to this report): nsbench.csv (every sample), summary.csv (the table), "
          f"memory.json, {os.path.basename(png) if png.endswith('.png') else png}")

    for k in kernels:
        if not any(kk == k for _, _, kk in data):
            problems.append(f"{k}: no samples")
    if problems:
        print()
        for p in problems:
            print("PROBLEM: " + p)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
