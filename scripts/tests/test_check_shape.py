#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/check-shape.py: a small clean tree passes, and each rule and limit catches
one case planted in it.  Prints "N passed, N failed".
"""

import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "check-shape.py")

CLEAN = {
    "rust/ns.rs": "// SAFETY: none needed.\nunsafe impl Send for X {}\nstruct X;\nfn a() {}\n",
    "rust/listns.rs": "//! The walk.\n\n#![forbid(unsafe_code)]\n\nfn walk() {}\nfn more() {}\n",
    "rust/nstree_rs.rs": "mod listns;\nmod ns;\n",
    "c-glue/rust/kernel/sync/seqlock.rs": "//! A lock.\n\npub struct SeqLock;\n",
    "c-glue/kernel/nstree_rs/nstree_glue.c": "/* The glue. */\nint x;\n",
    "README.md": "nstree-rs\n",
}

PLANTS = {
    "host cfg": ("rust/listns.rs", "#[cfg(nstree_host)]\nfn host() {}\n", "host-build cfg"),
    "unreachable_pub": ("rust/listns.rs", "#![allow(unreachable_pub)]\n", "unreachable_pub"),
    "line citation": ("c-glue/kernel/nstree_rs/nstree_glue.c", "/* as kernel/nstree.c:204 */\n",
                      "line citation"),
    "docs reference": ("rust/listns.rs", "// See docs/walkthrough.md.\nfn a() {}\n", "docs or make"),
    "make target": ("c-glue/rust/kernel/sync/seqlock.rs", "// Run make host-test.\n",
                    "docs or make"),
    "process words": ("README.md", "Measured in st" + "op 38.\n", "process vocabulary"),
    "unsafe outside ns.rs": ("rust/listns.rs", "fn f() { unsafe { g() } }\n", "outside the embedding"),
    "forbid missing": ("rust/tree.rs", "fn t() {}\n", "no #![forbid(unsafe_code)]"),
    "comment ratio": ("rust/listns.rs", "// a\n" * 20, "comment lines per code line"),
    "unsafe lines": ("rust/ns.rs", "// SAFETY: x.\nunsafe impl Sync for X {}\n" * 46,
                     "lines open unsafe code"),
}


def tree(files):
    d = tempfile.mkdtemp()
    for path, text in files.items():
        p = os.path.join(d, path)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)
    subprocess.run(["git", "init", "-q", d], check=True)
    subprocess.run(["git", "-C", d, "add", "-A"], check=True)
    return d


def run(d):
    p = subprocess.run([sys.executable, TOOL, d], capture_output=True, text=True)
    return p.returncode, p.stdout


def main():
    passed = failed = 0
    d = tree(CLEAN)
    rc, out = run(d)
    shutil.rmtree(d)
    if rc == 0:
        passed += 1
    else:
        failed += 1
        print(f"not ok: the clean tree has findings:\n{out}")
    for name, (path, text, expect) in PLANTS.items():
        files = dict(CLEAN)
        files[path] = files.get(path, "") + text
        d = tree(files)
        rc, out = run(d)
        shutil.rmtree(d)
        if rc == 1 and expect in out:
            passed += 1
        else:
            failed += 1
            print(f"not ok: {name}: rc {rc}, no finding with '{expect}':\n{out}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
