#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Are two kernel builds' objects byte-identical?

compare-objects.py A B

A and B are kernel build directories (O=) of the same configuration
options, built from two source trees: here the pristine tree and the tree
with the whole series applied, both with the C choice.  Every object file
(*.o) that A's vmlinux is linked from is compared byte for byte with B's.
The objects that carry the build itself rather than the code (the build
number and time in init/version*.o, the linker's temporary vmlinux
objects) are listed apart and not counted.  Prints one line per
difference and a summary; exits 1 when a code object differs or is
missing on one side.
"""

import hashlib
import os
import sys

# Objects that record when and how often the tree was built, not what
# it is built from (init/Makefile: UTS_VERSION, the build counter).
STAMPS = {"init/version.o", "init/version-timestamp.o"}
SKIP_PREFIX = (".tmp_", "vmlinux.o", "arch/x86/boot/", "usr/initramfs_data.o")


def objects(root):
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith(".") and x != "source"]
        for f in files:
            if not f.endswith(".o"):
                continue
            rel = os.path.relpath(os.path.join(d, f), root)
            if rel.startswith(SKIP_PREFIX) or os.path.basename(rel).startswith(".tmp_"):
                continue
            yield rel


def digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    a, b = sys.argv[1:]
    oa, ob = set(objects(a)), set(objects(b))
    same = differ = stamps = 0
    bad = []
    for rel in sorted(oa | ob):
        if rel not in oa or rel not in ob:
            bad.append(f"only in {'A' if rel in oa else 'B'}: {rel}")
            continue
        if digest(os.path.join(a, rel)) == digest(os.path.join(b, rel)):
            same += 1
        elif rel in STAMPS:
            stamps += 1
            print(f"differs (build stamp, not counted): {rel}")
        else:
            differ += 1
            bad.append(f"differs: {rel}")
    for line in bad:
        print(line)
    print(f"{same} objects identical, {len(bad)} differ or are missing, "
          f"{stamps} build-stamp objects not compared")
    sys.exit(1 if bad or same == 0 else 0)


if __name__ == "__main__":
    main()
