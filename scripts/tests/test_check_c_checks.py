#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/check-c-checks.py on a small synthetic C source and crate: a complete table
passes; a C check without a row, and a row whose Rust check is gone, fail.
Prints "N passed, N failed".
"""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "check-c-checks.py")

NSTREE = "void add(struct ns_common *ns)\n{\n\tVFS_WARN_ON_ONCE(!ns->ns_id);\n}\n"
NSCOMMON = ("int init(void)\n{\n\tWARN_ON(1);\n}\n\n"
            "void ns_owner(struct ns_common *ns)\n{\n\tVFS_WARN_ON_ONCE(!ns->ops);\n}\n")
RUST = "fn add(ns: &Ns) {\n    vfs_warn_on_once!(ns.id() == 0);\n}\n\nfn owner() {\n    check(ops);\n}\n"
TABLE = ("kernel/nstree.c\tadd\tVFS_WARN_ON_ONCE\t!ns->ns_id\trust x.rs add ns.id() == 0\n"
         "kernel/nscommon.c\tns_owner\tVFS_WARN_ON_ONCE\t!ns->ops\trust x.rs owner check(ops)\n")


def run(table, rust):
    with tempfile.TemporaryDirectory() as d:
        for path, text in {"linux/kernel/nstree.c": NSTREE, "linux/kernel/nscommon.c": NSCOMMON,
                           "repo/rust/x.rs": rust, "repo/c-glue/c-checks.txt": table}.items():
            os.makedirs(os.path.dirname(os.path.join(d, path)), exist_ok=True)
            open(os.path.join(d, path), "w").write(text)
        p = subprocess.run([sys.executable, TOOL, f"{d}/linux", f"{d}/repo"],
                           capture_output=True, text=True)
        return p.returncode, p.stdout


def main():
    cases = [("complete table", TABLE, RUST, 0, "0 findings"),
             ("a C check without a row", TABLE.split("\n")[0] + "\n", RUST, 1, "not in c-glue"),
             ("a Rust check gone", TABLE, RUST.replace("check(ops)", "ops"), 1, "has no check")]
    passed = failed = 0
    for name, table, rust, rc_want, text in cases:
        rc, out = run(table, rust)
        if rc == rc_want and text in out:
            passed += 1
        else:
            failed += 1
            print(f"not ok: {name}: rc {rc}\n{out}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
