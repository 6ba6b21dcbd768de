#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check-c-checks.py LINUX REPO: every check of the C the crate replaces has its Rust counterpart.

The C checks are the VFS_WARN_ON_ONCE(), WARN_ON*(), RCU_LOCKDEP_WARN() and BUILD_BUG_ON() of
LINUX/kernel/nstree.c and of LINUX/kernel/nscommon.c from ns_owner() on (the part the Rust
choice replaces).  REPO/c-glue/c-checks.txt lists each one with the Rust function that makes it
and a text of the Rust check, or with the reason for a deliberate difference.  A C check
missing from the table, a row that names no C check, or a Rust function without the text is a
finding.  Prints the table's verdict per row; exits 1 on findings.
"""

import re
import sys

MACROS = r"(VFS_WARN_ON_ONCE|WARN_ON_ONCE|WARN_ON|RCU_LOCKDEP_WARN|BUILD_BUG_ON)"


def c_checks(linux):
    """[(file, function, macro, condition)] in source order."""
    out = []
    for rel, start in (("kernel/nstree.c", None), ("kernel/nscommon.c", "ns_owner")):
        fn, depth, on = None, 0, start is None
        for line in open(f"{linux}/{rel}"):
            m = re.match(r"^[a-z].*?\b(\w+)\(", line)
            if depth == 0 and m and not line.rstrip().endswith(";"):
                fn = m.group(1)
                on = on or fn == start
            depth += line.count("{") - line.count("}")
            for mm in re.finditer(MACROS + r"\((.*)\);", line):
                if on:
                    out.append((rel, fn, mm.group(1), mm.group(2)))
    return out


def rust_fn(path, name):
    """The text of the Rust function `name` in `path` ('-': the whole file)."""
    src = open(path).read()
    if name == "-":
        return src
    m = re.search(r"\bfn " + re.escape(name) + r"\b", src)
    if not m:
        return None
    i = src.index("{", m.end())
    depth = 0
    for j in range(i, len(src)):
        depth += {"{": 1, "}": -1}.get(src[j], 0)
        if depth == 0:
            return src[m.start():j + 1]
    return None


def main(linux, repo):
    want = c_checks(linux)
    rows = []
    for line in open(f"{repo}/c-glue/c-checks.txt"):
        if line.startswith("#") or not line.strip():
            continue
        f = line.rstrip("\n").split("\t")
        rows.append(f)
    findings = []
    left = list(want)
    for r in rows:
        key = tuple(r[:4])
        if key in left:
            left.remove(key)
        else:
            findings.append(f"no such C check: {' '.join(key)}")
        how = r[4].split(" ", 3)
        if how[0] == "rust":
            body = rust_fn(f"{repo}/rust/{how[1]}", how[2])
            if body is None:
                findings.append(f"no fn {how[2]} in rust/{how[1]} ({key[1]}: {key[3]})")
            elif how[3].strip('"') not in body:
                findings.append(f"rust/{how[1]} {how[2]} has no check '{how[3]}' ({key[1]}: {key[3]})")
            else:
                print(f"ok   {key[1]}: {key[2]}({key[3]}) -> {how[2]}()")
        elif how[0] == "difference":
            print(f"diff {key[1]}: {key[2]}({key[3]}): {r[4][len('difference '):]}")
        else:
            findings.append(f"bad row: {line}")
    for k in left:
        findings.append(f"C check not in c-glue/c-checks.txt: {k[0]} {k[1]}: {k[2]}({k[3]})")
    for f in findings:
        print(f)
    print(f"c-checks: {len(want)} C checks, {sum(r[4].startswith('rust') for r in rows)} in Rust, "
          f"{sum(r[4].startswith('difference') for r in rows)} differences, {len(findings)} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
