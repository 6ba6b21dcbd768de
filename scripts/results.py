#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""results.py OUT MUTANTS_REPORT > docs/results.md: the results page of the last `make test`.
results.py --readme OUT BENCH_SUMMARY README: the README's summary and headline blocks.
results.py --cover OUT: the cover letter's results paragraph; --check-cover REPO: whether
c-glue/messages/cover-results.txt names the patch-ids of patches/.

Reads OUT/run-record.txt (what ran, on what, the steps' times: scripts/test.sh writes it) and
OUT/report.txt (scripts/report.py's table), and MUTANTS_REPORT, the table of `make
mutants-report` (a file, or - for none).  Writes the page to standard output: the run, the
summary line, the steps' times, pass/fail/skip per suite and kernel, every skip with its
reason, and the mutants.  --check PAGE REPO: whether PAGE names a commit of REPO whose tree
equals HEAD's in rust/, c-glue/ (but its messages), selftests/ and qemu/ (exit 1 if not).
"""

import collections
import os
import re
import subprocess
import sys

RESULT = {"pass", "fail", "skip", "-"}


def record(path):
    rec = {"steps": []}
    for line in open(path):
        key, _, val = line.rstrip("\n").partition(" ")
        if key == "step":
            name, wall, cpu = val.rsplit(" ", 2)
            rec["steps"].append((name, wall, cpu))
        else:
            rec[key] = val
    return rec


def report(path):
    """{flavour: {kernel: {suite: Counter}}}, the one-column sections, and the notes."""
    tables = collections.defaultdict(lambda: collections.defaultdict(
        lambda: collections.defaultdict(collections.Counter)))
    singles, notes = [], []
    section, kernels, single = None, [], None
    for line in open(path):
        line = line.rstrip("\n")
        m = re.match(r"^\[(\w+) configuration\] test\s+(.*)$", line)
        if m:
            section, kernels, single = m.group(1), m.group(2).split(), None
            continue
        if line.startswith("notes ("):
            section, single = "notes", None
            continue
        if section == "notes":
            if line.startswith("  "):
                notes.append(line.strip())
            elif line.strip():
                section = None
            continue
        if re.match(r"^\S.*\bresult\s*$", line):
            single, section = line.split("  ")[0].strip(), None
            continue
        if single and line.startswith("  ") and " of " in line and "passed" in line:
            singles.append((single, line.strip()))
            single = None
            continue
        if section in ("base", "debug") and kernels:
            f = line.split()
            if len(f) > len(kernels) and all(x in RESULT for x in f[-len(kernels):]):
                name = line[:len(line) - len(line.lstrip())] or line
                suite = f[0].split(":")[0]
                for k, r in zip(kernels, f[-len(kernels):]):
                    if r != "-":
                        tables[section][k][suite][r] += 1
    return tables, singles, notes


def page(rec, tables, singles, notes, mutants):
    out = []
    w = out.append
    w("# Results")
    w("")
    w(f"Written by `make results` from the `make test` run of commit {rec.get('commit', '?')}"
      f"{' (with uncommitted changes)' if rec.get('dirty') else ''}, {rec.get('date', '?')}.")
    w("")
    w(f"- Kernel: {rec.get('kernel', '?')}, configurations: {rec.get('flavours', '?')}")
    w(f"- Machine: {rec.get('machine', '?')}, QEMU accelerator {rec.get('accelerator', '?')}")
    w(f"- Toolchain: {rec.get('toolchain', '?')}")
    w("")
    w(f"    {rec.get('summary', '?')}")
    w("")
    w("## Steps")
    w("")
    w("| step | wall (s) | host CPU (s) |")
    w("|---|---:|---:|")
    for name, wall, cpu in rec["steps"]:
        w(f"| {name} | {wall} | {cpu} |")
    w("")
    w("## Checks with one result")
    w("")
    for name, line in singles:
        w(f"- {name}: {line}")
    w("")
    for flavour in ("base", "debug"):
        if flavour not in tables:
            continue
        ks = list(tables[flavour])
        w(f"## {flavour.capitalize()} configuration: pass / fail / skip per suite")
        w("")
        w("| suite | " + " | ".join(ks) + " |")
        w("|---|" + "---:|" * len(ks))
        suites = sorted({s for k in ks for s in tables[flavour][k]})
        for s in suites:
            cells = []
            for k in ks:
                c = tables[flavour][k][s]
                cells.append(f"{c['pass']} / {c['fail']} / {c['skip']}")
            w(f"| {s} | " + " | ".join(cells) + " |")
        w("")
    w("## Failures and skips, with their reasons")
    w("")
    for n in notes:
        w(f"- {n}")
    w("")
    w("## Mutants")
    w("")
    if mutants:
        w("`make mutants-report`, from the console logs of the last `make mutants` runs:")
        w("")
        w("```text")
        w(mutants.rstrip("\n"))
        w("```")
    else:
        w("No mutant runs on this machine.")
    w("")
    return "\n".join(out)


def summary_block(path, rec):
    """The report's first table's header, three rows of it, and the summary line."""
    lines = open(path).read().split("\n")
    out = []
    for i, line in enumerate(lines):
        if line.startswith("[base configuration]"):
            rows = [l for l in lines[i + 2:] if l.strip() and not l.startswith("-")]
            pick = [l for l in rows if l.startswith(("namespaces/listns_test:",
                                                     "nstree-rs/listns_scale_test:",
                                                     "nstree-rs/listns_resume_test:"))]
            out = [squeeze(l) for l in [line] + (pick or rows)[:3]] + ["..."]
            break
    return "\n".join(["```text"] + out + [rec.get("summary", "?"), "```"])


def squeeze(line):
    """A report row with its columns at 64 and 72 rather than where the widest name puts them."""
    f = line.split()
    return f"{' '.join(f[:-2]):<64} {f[-2]:<7} {f[-1]}"


def ranges(csv_path):
    """{(workload, column): (min, max)} over the sizes of docs/bench/summary.csv."""
    import csv
    r = {}
    for row in csv.DictReader(open(csv_path)):
        vals = {"rust_c": float(row["rust_c"]), "rust_copt": float(row["rust_copt"]),
                "noinline_copt": float(row["rust-noinline_median"]) / float(row["c-opt_median"])}
        for k, v in vals.items():
            key = (row["workload"], k)
            lo, hi = r.get(key, (v, v))
            r[key] = (min(lo, v), max(hi, v))
    return r


def headline_block(rec, csv_path):
    r = ranges(csv_path)

    def span(keys, col):
        vals = [r[(k, col)] for k in keys if (k, col) in r]
        if not vals:
            return "-"
        lo, hi = min(v[0] for v in vals), max(v[1] for v in vals)
        return f"{lo:.2f}" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}-{hi:.2f}"

    listing = ["listns_all", "listns_type", "listns_owner"]
    calls = ["diag_zero", "diag_one", "diag_resume", "diag_skip", "diag_unpriv", "walk_p1"]
    api = [w for (w, c) in r if w.startswith("kb_") and c == "rust_c"]
    every = sorted({w for (w, c) in r})
    wall = dict((n, w) for n, w, _ in rec["steps"]).get("total", "?")
    rows = [
        ("`make test`, all four kernels", f"{rec.get('summary', '?')} "
         f"({rec.get('commit', '?')[:12]}, {rec.get('date', '?')[:10]}, {wall} s)"),
        ("listns() of all / one type / one owner's namespaces, Rust / upstream C",
         " / ".join(span([w], "rust_c") for w in listing)),
        ("the same, Rust / C with the same algorithm (C-opt)",
         " / ".join(span([w], "rust_copt") for w in listing)),
        ("one listns() call (0, 1 or a few ids), Rust / C-opt", span(calls, "rust_copt")),
        ("the tree API at boot (lookups, insertion, removal, active counts), Rust / C-opt",
         span(api, "rust_copt")),
        ("every cell, Rust / C-opt", span(every, "rust_copt")),
        ("every cell, GCC-built kernels (no inline helpers), Rust / C-opt",
         span(every, "noinline_copt")),
    ]
    out = ["| | |", "|---|---|"] + [f"| {a} | {b} |" for a, b in rows]
    out.append("")
    bench = ""
    rep = os.path.join(os.path.dirname(csv_path), "report.txt")
    if os.path.exists(rep):
        m = re.search(r"^commit:\s+([0-9a-f]{12})", open(rep).read(), re.M)
        bench = m.group(1) if m else ""
    differs = bench and subprocess.run(
        ["git", "diff", "--quiet", bench, rec.get("commit", "HEAD"), "--", ":/rust", ":/c-glue/rust"],
        cwd=os.path.dirname(os.path.abspath(csv_path)), capture_output=True).returncode != 0
    out.append("Ratios are of guest instruction counts under QEMU `-icount`, medians over "
               "1,000 to 200,000 namespaces ([docs/bench.md](docs/bench.md))"
               + (f", measured at commit {bench}" if bench else "")
               + (": the Rust code has changed since, and the benchmark has not been run on "
                  "it." if differs else "."))
    return "\n".join(out)


def readme(out, csv_path, readme_path):
    rec = record(f"{out}/run-record.txt")
    text = open(readme_path).read()
    for name, block in (("summary", summary_block(f"{out}/report.txt", rec)),
                        ("headline", headline_block(rec, csv_path))):
        text = re.sub(rf"(<!-- {name}:begin -->\n).*?(<!-- {name}:end -->)",
                      lambda m: m.group(1) + block + "\n" + m.group(2), text, flags=re.S)
    open(readme_path, "w").write(text)
    return 0


def cover_results(rec, tables):
    """The cover letter's results paragraph, from the run."""
    ids = rec.get("series", "").split()
    per = []
    for flavour in ("base", "debug"):
        if flavour not in tables:
            continue
        for k, suites in tables[flavour].items():
            tot = collections.Counter()
            for c in suites.values():
                tot.update(c)
            per.append(f"{k}: {tot['pass']} passed, {tot['fail']} failed, {tot['skip']} skipped")
    return (f"make test on the series with patch-ids {' '.join(ids)} "
            f"(commit {rec.get('commit', '?')[:12]}, {rec.get('date', '?')[:10]}, QEMU "
            f"{rec.get('accelerator', '?')}), two "
            "configurations (base, and debug with lockdep, PROVE_RCU, DEBUG_VFS, DEBUG_LIST, "
            f"KASAN and kmemleak): \"{rec.get('summary', '?')}\", per kernel "
            + "; ".join(per) + ". The same result for every test on both kernels, the "
            "differential traces identical, the fault-injection sweeps step by step the same, "
            "and no report in any kernel log.")


def check_cover(repo):
    """Whether the cover letter's results are from the series in patches/."""
    text = open(f"{repo}/c-glue/messages/cover-results.txt").read()
    m = re.search(r"patch-ids ((?:[0-9a-f]{12} ?)+)", text)
    have = m.group(1).split() if m else []
    want = []
    for f in sorted(os.listdir(f"{repo}/patches")):
        if f.startswith("00") and f.endswith(".patch"):
            out = subprocess.run(["git", "patch-id", "--stable"], stdin=open(f"{repo}/patches/{f}"),
                                 capture_output=True, text=True).stdout.split()
            if out:
                want.append(out[0][:12])
    if have != want:
        print(f"cover-results.txt: results of the series {' '.join(have) or '(none)'}, "
              f"patches/ is {' '.join(want)}")
        return 1
    print(f"cover-results.txt: results of the series in patches/ ({len(want)} patch-ids)")
    return 0


def check(pagefile, repo):
    text = open(pagefile).read()
    m = re.search(r"run of commit ([0-9a-f]{40})", text)
    if not m:
        print(f"{pagefile}: names no commit")
        return 1
    commit = m.group(1)
    if subprocess.run(["git", "-C", repo, "cat-file", "-e", commit + "^{commit}"],
                      capture_output=True).returncode:
        print(f"{pagefile}: commit {commit[:12]} is not in the repository")
        return 1
    d = subprocess.run(["git", "-C", repo, "diff", "--stat", commit, "HEAD", "--",
                        "rust", "c-glue", "selftests", "qemu",
                        # The commit messages and the cover letter are not code.
                        ":(exclude)c-glue/messages"], capture_output=True, text=True)
    if d.stdout.strip():
        print(f"{pagefile}: the run of {commit[:12]} tested other code than HEAD's:")
        print(d.stdout.rstrip())
        return 1
    print(f"results: generated from a run of {commit[:12]}, whose rust/, c-glue/, selftests/ "
          f"and qemu/ are HEAD's")
    return 0


def main(argv):
    if argv and argv[0] == "--check":
        return check(argv[1], argv[2])
    if argv and argv[0] == "--readme":
        return readme(argv[1], argv[2], argv[3])
    if argv and argv[0] == "--cover":
        rec = record(f"{argv[1]}/run-record.txt")
        tables, _, _ = report(f"{argv[1]}/report.txt")
        print(cover_results(rec, tables))
        return 0
    if argv and argv[0] == "--check-cover":
        return check_cover(argv[1])
    out, mut = argv[0], argv[1] if len(argv) > 1 else "-"
    rec = record(f"{out}/run-record.txt")
    tables, singles, notes = report(f"{out}/report.txt")
    mutants = open(mut).read() if mut != "-" else ""
    sys.stdout.write(page(rec, tables, singles, notes, mutants))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
