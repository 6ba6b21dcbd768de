#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""checkpatch-filter.py ACCEPTED < checkpatch output: the findings that
ACCEPTED (c-glue/checkpatch-accepted: TYPE, file glob, reason per line,
tab-separated) does not list."""
import fnmatch
import re
import sys

acc = [l.rstrip("\n").split("\t")[:2] for l in open(sys.argv[1])
       if l.strip() and not l.startswith("#")]
text = sys.stdin.read()
for block in re.split(r"\n(?=(?:ERROR|WARNING|CHECK):)", text.strip()):
    m = re.match(r"(?:ERROR|WARNING|CHECK):(\w+):", block)
    if not m:
        continue
    f = re.search(r"FILE: ([^:]+):", block)
    path = f.group(1) if f else ""
    if any(m.group(1) == t and fnmatch.fnmatch(path, p) for t, p in acc):
        continue
    print(block + "\n")
