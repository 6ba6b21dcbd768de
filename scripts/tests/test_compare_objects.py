#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/compare-objects.py on two small synthetic builds.

test_compare_objects.py

Each case builds a build directory A ("pristine") and B ("with the
series") from a few C files with clang -c, links them into a thin
vmlinux.a as Kbuild does (ar cDPrST, run from the build directory), and
checks compare-objects.py's exit status and findings.  Prints
"N passed, N failed".
"""

import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "compare-objects.py")
CC = shutil.which("clang-22") or shutil.which("clang") or "cc"

# A warning's line number in __bug_table, as WARN_ON() records it.
NSCOMMON = """int ns_a(int x) {{ return x + 3; }}
{pad}
static const int line __attribute__((section("__bug_table"), used)) = __LINE__;
"""

BASE = {
    "kernel/nstree.c": "int ns_tree_a(int x) { return x + 1; }\n",
    "kernel/sys.c": 'const char *release(void) { return "7.3.4-nstree"; }\n',
    "rust/helpers/helpers.c": "int rust_helper_one(int x) { return x * 2; }\n",
    "init/version.c": "int build_no = 1;\n",
    "kernel/nscommon.c": NSCOMMON.format(pad=""),
}
ORDER = ["init/version.c", "kernel/nscommon.c", "kernel/nstree.c", "kernel/sys.c",
         "rust/helpers/helpers.c"]


def build(root, files, order=ORDER):
    for rel, text in files.items():
        src = os.path.join(root, "src", rel)
        os.makedirs(os.path.dirname(src), exist_ok=True)
        with open(src, "w") as f:
            f.write(text)
        obj = os.path.join(root, rel[:-2] + ".o")
        os.makedirs(os.path.dirname(obj), exist_ok=True)
        subprocess.run([CC, "-O2", "-c", "-o", obj, src], check=True)
    objs = [rel[:-2] + ".o" for rel in order]
    subprocess.run(["ar", "cDPrST", "vmlinux.a"] + objs, cwd=root, check=True)


def run(a, b, *opts):
    p = subprocess.run([sys.executable, TOOL, *opts, a, b], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def main():
    passed = failed = 0

    def check(what, ok, detail=""):
        nonlocal passed, failed
        if ok:
            passed += 1
            print(f"ok {passed + failed} {what}")
        else:
            failed += 1
            print(f"not ok {passed + failed} {what}")
            for line in detail.splitlines():
                print(f"# {line}")

    cases = [
        # (name, B's changes, B's link order, expected exit, text expected)
        ("the same sources: identical", {}, ORDER, 0, "0 differences"),
        ("a build stamp differs: not counted", {"init/version.c": "int build_no = 2;\n"},
         ORDER, 0, "build stamp"),
        ("a kernel object differs: fails",
         {"kernel/sys.c": 'const char *release(void) { return "7.3.4-nstree+"; }\n'},
         ORDER, 1, "differs: kernel/sys.o"),
        ("the link order differs: fails", {},
         ["init/version.c", "kernel/nscommon.c", "kernel/sys.c", "kernel/nstree.c",
          "rust/helpers/helpers.c"],
         1, "link order"),
        ("kernel/nscommon.o shifted by a line: allowed and listed",
         {"kernel/nscommon.c": NSCOMMON.format(pad="#ifdef X\n#endif\n")},
         ORDER, 0, "line numbers of its warnings only: kernel/nscommon.o"),
        ("kernel/nscommon.o with other code: fails",
         {"kernel/nscommon.c": NSCOMMON.format(pad="").replace("x + 3", "x + 4")},
         ORDER, 1, "differs: kernel/nscommon.o: section .text differs"),
        ("an added Rust helper: allowed and listed",
         {"rust/helpers/helpers.c": BASE["rust/helpers/helpers.c"] +
          "int rust_helper_two(int x) { return x - 2; }\n"},
         ORDER, 0, "+ rust_helper_two"),
        ("a changed Rust helper: fails",
         {"rust/helpers/helpers.c": "int rust_helper_one(int x) { return x * x * x + 3; }\n"},
         ORDER, 1, "rust_helper_one changed"),
        ("an added symbol that is not a Rust helper: fails",
         {"rust/helpers/helpers.c": BASE["rust/helpers/helpers.c"] +
          "int not_a_helper(int x) { return x - 2; }\n"},
         ORDER, 1, "not_a_helper is added"),
    ]
    with tempfile.TemporaryDirectory() as d:
        for i, (name, change, order, rc_want, text) in enumerate(cases):
            a, b = os.path.join(d, f"{i}a"), os.path.join(d, f"{i}b")
            os.makedirs(a)
            os.makedirs(b)
            build(a, BASE)
            build(b, {**BASE, **change}, order)
            rc, out = run(a, b)
            check(name, rc == rc_want and text in out, f"exit {rc}\n{out}")
            if "added Rust helper" in name:
                # CONFIG_RUST=n builds are compared with --strict.
                rc, out = run(a, b, "--strict")
                check(f"{name}, --strict: fails", rc == 1 and "differs: rust/helpers/helpers.o" in out,
                      f"exit {rc}\n{out}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
