#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check-citations.py --linux TREE [--series TREE] [--list] FILE...

The crate's SAFETY comments quote the 7.3 source they rely on as
`path:LINE` (or `path:A-B`, `path:A,B,C`). This checks, for every
`// SAFETY:` comment of FILE...:

- it cites at least one line of the kernel tree (a path under one of the
  kernel's top-level directories);
- every cited file exists in TREE (the pristine 7.3 tree) or, for the
  files the series adds (kernel/nstree_rs/, rust/helpers/ additions), in
  the --series tree, and every cited line exists and is not blank;
- a `quoted` C identifier or call right before a citation (the text in
  backticks just before "(path:LINE)") appears on the cited lines, or
  names the definition (a line starting in column 0) they are in, so a
  citation cannot silently drift to the wrong line.

--list prints every citation with the cited text, for review.
Exits 1 on findings.
"""

import argparse
import os
import re
import sys

TOP = ("arch", "block", "drivers", "fs", "include", "init", "ipc", "kernel", "lib", "mm",
       "net", "rust", "scripts", "security", "tools", "Documentation")
CITE = re.compile(r"\b((?:%s)/[\w./-]+\.(?:c|h|rs|S|rst)):(\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*)"
                  % "|".join(TOP))
QUOTE = re.compile(r"`([A-Za-z_][\w>.-]*?)(?:\(\))?`\s*\(?\s*$")


def comment_blocks(lines):
    """(first line number, text) of each // SAFETY: comment block."""
    i = 0
    while i < len(lines):
        if lines[i].strip().startswith("// SAFETY:"):
            start = i
            text = [lines[i].split("// SAFETY:", 1)[1]]
            i += 1
            while i < len(lines) and lines[i].strip().startswith("//"):
                text.append(lines[i].strip()[2:])
                i += 1
            yield start + 1, " ".join(t.strip() for t in text)
        else:
            i += 1


def in_definition(src, first, ident):
    """Whether the cited line is inside the definition of ident: the
    nearest line above it that starts in column 0 (a C definition or
    macro) names ident."""
    for n in range(first, max(0, first - 80), -1):
        line = src[n - 1]
        if line[:1].strip() and not line.startswith(("{", "}", "#include", "/*", " *", "*/")):
            return ident in line
    return False


def cited_lines(spec):
    for part in spec.split(","):
        a, _, b = part.partition("-")
        for n in range(int(a), int(b or a) + 1):
            yield n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--linux", required=True)
    ap.add_argument("--series")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    cache = {}

    def read(path):
        if path not in cache:
            text = None
            for tree in (args.linux, args.series):
                if tree and os.path.isfile(os.path.join(tree, path)):
                    with open(os.path.join(tree, path), errors="replace") as f:
                        text = f.read().split("\n")
                    break
            cache[path] = text
        return cache[path]

    findings, blocks, cites = [], 0, 0
    for path in args.files:
        lines = open(path).read().split("\n")
        for lineno, text in comment_blocks(lines):
            blocks += 1
            where = f"{path}:{lineno}"
            found = list(CITE.finditer(text))
            if not found:
                findings.append(f"{where}: SAFETY comment cites no 7.3 source line")
                continue
            for m in found:
                cites += 1
                file, spec = m.group(1), m.group(2)
                src = read(file)
                if src is None:
                    findings.append(f"{where}: {file}: no such file in the trees")
                    continue
                nums = list(cited_lines(spec))
                ends = {int(p.partition("-")[0]) for p in spec.split(",")}
                ends |= {int(p.partition("-")[2] or p.partition("-")[0]) for p in spec.split(",")}
                bad = [n for n in nums if n < 1 or n > len(src)]
                bad += [n for n in sorted(ends) if not bad and not src[n - 1].strip()]
                if bad:
                    findings.append(f"{where}: {file}:{spec}: line {bad[0]} is missing or blank")
                    continue
                body = "\n".join(src[n - 1] for n in nums)
                # The C name quoted last before the citation, within the
                # same sentence: it must be on the cited lines or name the
                # definition they are in.
                before = re.split(r"[.;:]\s", text[:m.start()])[-1]
                # ... and within 60 characters, with no other citation or
                # clause in between.
                before = CITE.split(before)[-1][-60:]
                before = re.split(r",\s|\bor\b|\band\b", before)[-1] if "(" not in before[-60:] else before
                q = None
                for q in re.finditer(r"`([A-Za-z_][\w>.-]*?)(?:\(\))?`", before):
                    pass
                if q and not re.match(r"^[A-Z][a-z]", q.group(1)) and "::" not in q.group(1):
                    ident = q.group(1).split("->")[-1].split(".")[-1]
                    if ident and ident not in body and not in_definition(src, nums[0], ident):
                        findings.append(f"{where}: `{q.group(1)}` not on {file}:{spec}")
                if args.list:
                    print(f"{where}: {file}:{spec}")
                    for n in nums[:4]:
                        print(f"    {n}: {src[n - 1].strip()}")
    for f in findings:
        print(f)
    print(f"citations: {blocks} SAFETY comments, {cites} citations of the 7.3 tree, "
          f"{len(findings)} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
