#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check-shape.py REPO: the shape rules of the kernel sources, and their measures.

Kernel sources are the nstree crate (rust/*.rs), the rust/kernel abstractions and the C glue
(c-glue/).  Rules, each a finding:

- no host-build cfg (`nstree_host`, `cfg(loom)`, `cfg(test)`) in kernel sources;
- no `unreachable_pub` allowance in rust/ or c-glue/;
- no line citation (`file.c:123`, `file.h:12-34`) in rust/ or c-glue/: name the function;
- no reference to the project's docs (docs/, the walkthrough) or make targets in rust/ or
  c-glue/;
- no words of the process that builds the project (a numbered stop, the CI of a landing)
  anywhere in it;
- `unsafe` in the nstree crate only in its embedding module, rust/ns.rs; every other module of
  the crate is `#![forbid(unsafe_code)]`.

Measures, each with its limit (a finding above it):

- lines of the nstree crate that open an `unsafe` block, fn, impl or extern: at most 45;
- comment lines (starting with `//`) per code line (other non-blank lines): at most 0.6 in each
  file of the nstree crate, at most 1.8 in each rust/kernel abstraction;
- code lines of the nstree crate without its KUnit tests: at most 1.5 x the 692 code lines of
  7.3's kernel/nstree.c and kernel/nscommon.c.

Prints the measures and the findings; exits 1 on findings.
"""

import os
import re
import subprocess
import sys

UNSAFE_LINE = re.compile(r"\bunsafe\s*(\{|fn\b|impl\b|extern\b)")
HOST_CFG = re.compile(r"\bnstree_host\b|cfg\((any\()?[^)]*\b(loom|test)\b")
UNREACHABLE = re.compile(r"unreachable_pub")
CITATION = re.compile(r"\b[\w./-]+\.[ch]:[0-9]+")
DOCS_REF = re.compile(r"\bdocs/|walkthrough|\bmake\s+(host-test|test|check|bench|loom|rustdoc|mutants|"
                      r"kunit|walk-mutants|cascade-mutants|check-series|shell|setup|patches|torture)\b")
# Spelled in pieces, so that this file does not match itself.
PROCESS = re.compile(r"\b" + "st" + r"op [0-9]+|" + "land" + "ing CI", re.I)

C_LINES = 692
UNSAFE_MAX = 45
RATIO_CRATE = 0.6
RATIO_ABSTRACTION = 1.8


def kernel_sources(repo):
    """The crate's files, the abstractions' Rust files and every file of c-glue/."""
    crate = sorted(os.path.join(repo, "rust", f) for f in os.listdir(os.path.join(repo, "rust"))
                   if f.endswith(".rs"))
    glue = []
    for root, _, files in os.walk(os.path.join(repo, "c-glue")):
        # The cover letter and the commit messages of the series say how it was tested.
        if "/c-glue/messages" not in root:
            glue += [os.path.join(root, f) for f in files]
    abstractions = sorted(f for f in glue if f.endswith(".rs") and "/c-glue/rust/kernel/" in f
                          and "/compile-fail/" not in f)
    return crate, abstractions, sorted(glue)


def counts(path):
    """(code lines, comment lines) of a Rust file."""
    code = comment = 0
    for line in open(path):
        s = line.strip()
        if not s:
            continue
        if s.startswith("//"):
            comment += 1
        else:
            code += 1
    return code, comment


def tracked(repo):
    """Every file git tracks, or every file if there is no git."""
    p = subprocess.run(["git", "-C", repo, "ls-files"], capture_output=True, text=True)
    if p.returncode == 0:
        return [os.path.join(repo, f) for f in p.stdout.split("\n") if f]
    out = []
    for root, dirs, files in os.walk(repo):
        dirs[:] = [d for d in dirs if d not in (".git", "target")]
        out += [os.path.join(root, f) for f in files]
    return out


def main(repo):
    repo = os.path.abspath(repo)
    rel = lambda p: os.path.relpath(p, repo)
    findings = []
    crate, abstractions, glue = kernel_sources(repo)
    host = [f for f in tracked(repo) if "/rust/host/" in f and os.path.isfile(f)]

    for path in crate + glue:
        for n, line in enumerate(open(path, errors="replace"), 1):
            if HOST_CFG.search(line):
                findings.append(f"{rel(path)}:{n}: host-build cfg in a kernel source")
    for path in crate + glue + host:
        for n, line in enumerate(open(path, errors="replace"), 1):
            if UNREACHABLE.search(line):
                findings.append(f"{rel(path)}:{n}: unreachable_pub allowance")
            if CITATION.search(line):
                findings.append(f"{rel(path)}:{n}: line citation: {CITATION.search(line).group(0)}")
            if DOCS_REF.search(line):
                findings.append(f"{rel(path)}:{n}: reference to the project's docs or make targets")
    for path in tracked(repo):
        if not os.path.isfile(path) or "/.git/" in path or path.endswith((".png", ".csv")):
            continue
        if rel(path) == "scripts/check-shape.py":
            continue
        try:
            for n, line in enumerate(open(path, errors="strict"), 1):
                if PROCESS.search(line):
                    findings.append(f"{rel(path)}:{n}: process vocabulary: {PROCESS.search(line).group(0)}")
        except UnicodeDecodeError:
            pass

    unsafe_lines = 0
    logic = [f for f in crate if not f.endswith("/kunit.rs")]
    code_total = 0
    print(f"{'file':44} {'code':>5} {'comment':>7} {'ratio':>5} {'unsafe':>6}")
    for path in crate + abstractions:
        code, comment = counts(path)
        ratio = comment / code if code else 0.0
        lines = [l for l in open(path) if not l.strip().startswith("//")]
        nu = sum(1 for l in lines if UNSAFE_LINE.search(l))
        print(f"{rel(path):44} {code:5} {comment:7} {ratio:5.2f} {nu:6}")
        if path in crate:
            limit = RATIO_CRATE
            if nu and not path.endswith("/ns.rs"):
                findings.append(f"{rel(path)}: unsafe outside the embedding module rust/ns.rs")
            if not path.endswith(("/ns.rs", "/nstree_rs.rs")) and \
                    "#![forbid(unsafe_code)]" not in open(path).read():
                findings.append(f"{rel(path)}: no #![forbid(unsafe_code)]")
            unsafe_lines += nu
            if path in logic:
                code_total += code
        else:
            limit = RATIO_ABSTRACTION
        if ratio > limit:
            findings.append(f"{rel(path)}: {ratio:.2f} comment lines per code line, above {limit}")
    print(f"nstree crate: {code_total} code lines without KUnit (limit {int(1.5 * C_LINES)}, "
          f"1.5 x {C_LINES} of 7.3's nstree.c + nscommon.c), "
          f"{unsafe_lines} lines that open unsafe code (limit {UNSAFE_MAX})")
    if code_total > 1.5 * C_LINES:
        findings.append(f"nstree crate: {code_total} code lines, above {int(1.5 * C_LINES)}")
    if unsafe_lines > UNSAFE_MAX:
        findings.append(f"nstree crate: {unsafe_lines} lines open unsafe code, above {UNSAFE_MAX}")
    for f in findings:
        print(f)
    print(f"shape: {len(findings)} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
