#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Are two kernel builds' objects byte-identical?

compare-objects.py [--strict] A B

A and B are kernel build directories (O=) of the same configuration
options, built from two source trees: here the pristine tree and the tree
with the whole series applied, both with the C choice.  The objects
compared are those vmlinux is linked from: the members of vmlinux.a, in
link order, and of the libraries linked with it (lib/lib.a,
arch/x86/lib/lib.a).  Host programs (tools/objtool, scripts/) are not
part of the kernel and record their source directory, so they are left
out.

- The member lists of vmlinux.a must be the same, in the same order
  (the link order).
- Every object must be byte-identical, with two kinds of exceptions:
  - the build stamps (init/version*.o: the build counter and time;
    usr/initramfs_data.o: the built-in initramfs, stamped with the build
    time), listed and not counted;
  - the Rust helpers (rust/helpers/helpers.o and rust/exports.o, built
    because the configuration has CONFIG_RUST=y): the series adds helpers
    that only its Rust code calls.  There every symbol A defines must be
    defined in B with the same type and size, and every symbol only B
    defines must be a Rust helper (rust_helper_*, or the export entries
    the build generates for one); the added helpers are listed;
  - kernel/nscommon.o: the series puts the active reference count of
    kernel/nscommon.c under #ifdef CONFIG_NSTREE_C, which shifts the
    lines below it by one, and with them the line numbers that the
    warnings there record in __bug_table.  Every other section must be
    byte-identical; the object is listed.

Prints one line per difference and a summary; exits 1 when an object
differs beyond that, is missing on one side, or the link order differs.
"""

import hashlib
import os
import re
import subprocess
import sys

# Objects that record when and how often the tree was built, not what
# it is built from (init/Makefile: UTS_VERSION, the build counter;
# usr/gen_init_cpio.c: the built-in initramfs's entries carry the build
# time as their mtime).
STAMPS = {"init/version.o", "init/version-timestamp.o", "usr/initramfs_data.o"}
# Objects to which the series adds Rust helpers (c-glue/edits/helpers-*.diff,
# c-glue/rust/helpers/), and what an added symbol there may be called.
HELPERS = {"rust/helpers/helpers.o", "rust/exports.o"}
HELPER_SYM = re.compile(
    r"^(rust_helper_\w+|__UNIQUE_ID_addressable_rust_helper_\w+_\d+|__export_symbol_rust_helper_\w+)$")
ARCHIVES = ("vmlinux.a", "lib/lib.a", "arch/x86/lib/lib.a")
# Objects whose source the series shifts by lines, and the sections that
# record line numbers there.
LINE_SHIFTED = {"kernel/nscommon.o"}
LINE_SECTIONS = {"__bug_table", ".rela__bug_table"}


def members(root, archive):
    """The objects of a (thin) archive, relative to the build, in order."""
    path = os.path.join(root, archive)
    if not os.path.exists(path):
        return []
    out = subprocess.run(["ar", "t", path], check=True, capture_output=True, text=True).stdout
    # ar t names a thin archive's members as paths from the current
    # directory (or absolute).
    return [os.path.relpath(os.path.abspath(line), os.path.abspath(root))
            for line in out.splitlines()]


def digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def symbols(path):
    """{name: (type, size)} of the symbols an object defines; a name the
    compiler numbers (__UNIQUE_ID_*_NNN) keeps its number out."""
    out = subprocess.run(["nm", "-S", "--defined-only", path], check=True,
                         capture_output=True, text=True).stdout
    syms = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4:
            size, typ, name = f[1], f[2], f[3]
        elif len(f) == 3:
            size, typ, name = "", f[1], f[2]
        else:
            continue
        if name.startswith("__UNIQUE_ID_"):
            name = re.sub(r"_\d+$", "", name) + "_0"
        syms[name] = (typ, size)
    return syms


def sections(path):
    """{name: bytes} of the sections of an object."""
    out = subprocess.run(["readelf", "-SW", path], check=True, capture_output=True,
                         text=True).stdout
    secs = {}
    data = open(path, "rb").read()
    for line in out.splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)", line)
        if not m or m.group(2) == "NOBITS":
            continue
        off, size = int(m.group(3), 16), int(m.group(4), 16)
        secs[m.group(1)] = data[off:off + size]
    return secs


def lines_only(a, b):
    """None if A and B differ only in the sections that hold line numbers, else why not."""
    sa, sb = sections(a), sections(b)
    if set(sa) != set(sb):
        return f"sections differ: {sorted(set(sa) ^ set(sb))}"
    for name in sa:
        if name not in LINE_SECTIONS and sa[name] != sb[name]:
            return f"section {name} differs"
    return None


def helpers_only(a, b):
    """None if B differs from A only by added Rust helpers, else why not;
    and the names of the added helpers."""
    sa, sb = symbols(a), symbols(b)
    for name, ts in sa.items():
        if name not in sb:
            return f"{name} is gone", []
        if sb[name] != ts:
            return f"{name} changed from {ts} to {sb[name]}", []
    added = sorted(set(sb) - set(sa))
    for name in added:
        if not HELPER_SYM.match(name):
            return f"{name} is added and is not a Rust helper", []
    return None, added


def main():
    args = sys.argv[1:]
    strict = bool(args) and args[0] == "--strict"
    if strict:
        args = args[1:]
        HELPERS.clear()
    if len(args) != 2:
        sys.exit(__doc__)
    a, b = args
    bad = []
    la, lb = members(a, "vmlinux.a"), members(b, "vmlinux.a")
    if not la:
        sys.exit(f"no vmlinux.a in {a}")
    if la != lb:
        bad.append("the link order (vmlinux.a) differs")
        for i, (x, y) in enumerate(zip(la, lb)):
            if x != y:
                bad.append(f"  first at member {i}: {x} in A, {y} in B")
                break
    oa = {m for ar in ARCHIVES for m in members(a, ar)}
    ob = {m for ar in ARCHIVES for m in members(b, ar)}
    same = stamps = 0
    helpers = []
    shifted = []
    for rel in sorted(oa | ob):
        if rel not in oa or rel not in ob:
            bad.append(f"only in {'A' if rel in oa else 'B'}: {rel}")
            continue
        pa, pb = os.path.join(a, rel), os.path.join(b, rel)
        if digest(pa) == digest(pb):
            same += 1
        elif rel in STAMPS:
            stamps += 1
            print(f"differs (build stamp, not counted): {rel}")
        elif rel in HELPERS:
            why, added = helpers_only(pa, pb)
            if why:
                bad.append(f"differs: {rel}: {why}")
            else:
                helpers.append(rel)
                print(f"differs by the added Rust helpers only: {rel}: {len(added)} symbols")
                for h in added:
                    print(f"  + {h}")
        elif rel in LINE_SHIFTED:
            why = lines_only(pa, pb)
            if why:
                bad.append(f"differs: {rel}: {why}")
            else:
                shifted.append(rel)
                print(f"differs in the line numbers of its warnings only: {rel}")
        else:
            bad.append(f"differs: {rel}")
    for line in bad:
        print(line)
    order = "the same link order" if la == lb else "a different link order"
    print(f"{same} objects identical, {len(bad)} differences, {len(helpers)} differ by added "
          f"Rust helpers only, {len(shifted)} in the line numbers of warnings only, "
          f"{stamps} build-stamp objects not compared; {order}")
    sys.exit(1 if bad or same == 0 else 0)


if __name__ == "__main__":
    main()
