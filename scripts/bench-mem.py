#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Static memory figures of the benchmark kernels.

bench-mem.py [--json FILE] KERNEL=BUILD_DIR ...

For each kernel (a Kbuild output directory with vmlinux):
- text, data and bss of vmlinux (llvm-size, Berkeley format), and of the
  namespace tree objects: kernel/nstree.o + kernel/nscommon.o for C,
  kernel/nstree_rs/*.o + kernel/nscommon.o (what stays C) for Rust;
- the stack listns() itself uses: from the syscall entry
  __x64_sys_listns, every function of those objects it calls directly,
  each one's frame read from its prologue (return address, pushes,
  "sub $N, %rsp"); the deepest chain is the figure, callees outside the
  namespace tree code (put_user(), the capability check, ...) are not
  counted, on either kernel.
Prints a table and writes the figures as JSON.
"""

import json
import os
import re
import subprocess
import sys

LLVM = os.environ.get("LLVM_SUFFIX", "-22")
ROOT = "__x64_sys_listns"


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def berkeley(paths):
    """(text, data, bss) summed over the files."""
    out = run(f"llvm-size{LLVM}", "-B", *paths)
    t = d = b = 0
    for line in out.splitlines()[1:]:
        f = line.split()
        if len(f) >= 3 and f[0].isdigit():
            t, d, b = t + int(f[0]), d + int(f[1]), b + int(f[2])
    return t, d, b


def tree_objects(build):
    """The namespace tree's objects in this build, and which variant it is."""
    rs = os.path.join(build, "kernel", "nstree_rs")
    if os.path.isdir(rs) and os.path.exists(os.path.join(rs, "nstree_rs.o")):
        objs = [os.path.join(rs, f) for f in sorted(os.listdir(rs)) if f.endswith(".o")
                and f != "built-in.o"]
        kind = "rust"
    else:
        objs = [os.path.join(build, "kernel", "nstree.o")]
        kind = "c"
    return kind, objs + [os.path.join(build, "kernel", "nscommon.o")]


def functions(objs):
    names = set()
    for o in objs:
        for line in run(f"llvm-nm{LLVM}", "--defined-only", o).splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in "tTwW":
                names.add(f[2])
    return names


PUSH = re.compile(r"\spush[q]?\s+%r")
SUB = re.compile(r"\ssub[q]?\s+\$0x([0-9a-f]+),\s*%rsp")
CALL = re.compile(r"\scall[q]?\s+(?:0x)?[0-9a-f]+\s+<([^>+]+)>")
JMP = re.compile(r"\sjmp[q]?\s+(?:0x)?[0-9a-f]+\s+<([^>+]+)>")


def disasm(vmlinux, sym):
    return run(f"llvm-objdump{LLVM}", "-d", "--no-show-raw-insn",
               f"--disassemble-symbols={sym}", vmlinux)


def frame(lines):
    """Bytes of stack a function's prologue reserves, return address included."""
    size = 8
    for l in lines[:24]:
        if PUSH.search(l):
            size += 8
            continue
        m = SUB.search(l)
        if m:
            size += int(m.group(1), 16)
            break
        if re.search(r"\s(call|j[a-z]+|ret)", l):
            break
    return size


def stack(vmlinux, ours):
    """Deepest chain from ROOT through functions in ours: (bytes, chain, frames).

    A call adds the callee's frames to the caller's; a tail call (a jmp to
    another function) replaces the caller's frame, which is gone by then.
    """
    frames, calls, tails = {}, {}, {}
    todo = [ROOT]
    while todo:
        f = todo.pop()
        if f in frames:
            continue
        lines = [l for l in disasm(vmlinux, f).splitlines() if "\t" in l]
        frames[f] = frame(lines)
        callees = {m.group(1) for l in lines for m in [CALL.search(l)] if m}
        jumps = {m.group(1) for l in lines for m in [JMP.search(l)] if m}
        calls[f] = sorted(c for c in callees if c in ours and c != f)
        tails[f] = sorted(c for c in jumps if c in ours and c != f)
        todo += calls[f] + tails[f]

    memo = {}

    def deepest(f, seen=()):
        if f in memo:
            return memo[f]
        best = (0, [])
        for c in calls.get(f, []):
            if c in seen:
                continue
            d = deepest(c, seen + (f,))
            if d[0] > best[0]:
                best = d
        res = (frames[f] + best[0], [(f, frames[f])] + best[1])
        for c in tails.get(f, []):
            if c in seen:
                continue
            d = deepest(c, seen + (f,))
            if d[0] > res[0]:
                res = (d[0], [(f + " (tail call)", 0)] + d[1])
        memo[f] = res
        return res

    return deepest(ROOT)


def kunit_part(objs):
    """(text, data) bytes of KUnit test symbols in the objects (read-only
    data counts as text, as in llvm-size's Berkeley format)."""
    t = d = 0
    for o in objs:
        for line in run(f"llvm-nm{LLVM}", "-S", "--defined-only", o).splitlines():
            f = line.split()
            if len(f) != 4 or not re.search(r"kunit|test_tree|KUNIT", f[3]):
                continue
            size = int(f[1], 16)
            if f[2] in "tTrR":
                t += size
            elif f[2] in "dDbB":
                d += size
    return t, d


def short(sym):
    """A readable name: Rust v0 symbols demangled, crate and hash dropped."""
    if not sym.startswith("_R"):
        return sym
    name = run(f"llvm-cxxfilt{LLVM}", sym).strip()
    return re.sub(r"\bnstree_rs::", "", name)


def main(argv):
    out_json = None
    kernels = []
    i = 0
    while i < len(argv):
        if argv[i] == "--json" and i + 1 < len(argv):
            out_json = argv[i + 1]
            i += 2
            continue
        k, _, b = argv[i].partition("=")
        kernels.append((k, b))
        i += 1
    res = {}
    for k, build in kernels:
        vmlinux = os.path.join(build, "vmlinux")
        kind, objs = tree_objects(build)
        t, d, b = berkeley([vmlinux])
        ot, od, ob = berkeley(objs)
        total, chain = stack(vmlinux, functions(objs))
        kt, kd = kunit_part(objs)
        res[k] = {
            "vmlinux": {"text": t, "data": d, "bss": b},
            "objects": [os.path.relpath(o, build) for o in objs],
            "tree_objects": {"text": ot, "data": od, "bss": ob},
            "listns_stack": total,
            "listns_chain": [(short(f), n) for f, n in chain],
            "kunit": {"text": kt, "data": kd},
        }
    print("memory: vmlinux and the namespace tree objects (bytes; llvm-size, Berkeley)")
    print(f"  {'kernel':<7} {'text':>9} {'data':>9} {'bss':>9}   {'tree text':>9} "
          f"{'tree data':>9} {'tree bss':>8}  objects")
    for k, r in res.items():
        v, o = r["vmlinux"], r["tree_objects"]
        print(f"  {k:<7} {v['text']:>9} {v['data']:>9} {v['bss']:>9}   {o['text']:>9} "
              f"{o['data']:>9} {o['bss']:>8}  {' '.join(r['objects'])}")
        if r["kunit"]["text"] or r["kunit"]["data"]:
            print(f"  {'':<7} {'':>9} {'':>9} {'':>9}   {r['kunit']['text']:>9} "
                  f"{r['kunit']['data']:>9} {'':>8}  of which KUnit tests (CONFIG_KUNIT=y)")
    base = next(iter(res.values()), None)
    if base:
        for k, r in list(res.items())[1:]:
            dv = {x: r["vmlinux"][x] - base["vmlinux"][x] for x in ("text", "data", "bss")}
            print(f"  {k} - {next(iter(res))}: text {dv['text']:+d}, data {dv['data']:+d}, "
                  f"bss {dv['bss']:+d}")
    print()
    print(f"listns() stack: deepest chain of namespace tree code from {ROOT} (bytes; each "
          "frame = return address + pushes + sub $N,%rsp)")
    for k, r in res.items():
        chain = " -> ".join(f"{f} {s}" if s else f for f, s in r["listns_chain"])
        print(f"  {k:<7} {r['listns_stack']:>5}  {chain}")
    if out_json:
        with open(out_json, "w") as f:
            json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
