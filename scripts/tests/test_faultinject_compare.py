#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/faultinject-compare.py on synthetic console logs.

test_faultinject_compare.py

Each case writes two console logs with a fault-injection sweep (kernel
messages interleaved, as on a serial console) and checks the exit status
and the TAP: equal sweeps pass; a different result at one n, a kernel
message only one kernel printed, an operation only one kernel swept and
a log that ends without its end marker each fail, the first three naming
the operation.  Prints "N passed, N failed".
"""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "faultinject-compare.py")

STEPS = [
    "FI unshare(net) n=1 ENOMEM fault",
    "FI-LOG unshare(net) n=1 sysctl could not get directory: /net -12",
    "FI unshare(net) n=2 ok fault",
    "FI unshare(net) n=3 ok nofault",
    "FI setns(fd,uts) n=1 ENOMEM fault",
    "FI setns(fd,uts) n=2 ok nofault",
]


def sweep(steps, end=True, totals="operations=2 steps=5 faults=3 failed=0"):
    lines = ["[    1.000000] booting", "NSTREE-FI-BEGIN ops=2 baseline=17 caches=158",
             "TAP version 13", "1..2"]
    for i, s in enumerate(steps):
        lines.append(s)
        if i == 1:
            lines.append("[   12.345678] random: a kernel message on the console")
    if end:
        lines += ["NSTREE-FI-END", f"# NSTREE-FI-TOTALS {totals}"]
    return "\n".join(lines) + "\n"


def run(a, b):
    with tempfile.TemporaryDirectory() as d:
        pa, pb = os.path.join(d, "c.log"), os.path.join(d, "rust.log")
        open(pa, "w").write(a)
        open(pb, "w").write(b)
        p = subprocess.run([sys.executable, TOOL, pa, pb], capture_output=True, text=True)
        return p.returncode, p.stdout


def case_equal():
    rc, out = run(sweep(STEPS), sweep(STEPS))
    assert rc == 0, out
    assert "ok 1 unshare(net) steps=3 faults=2" in out, out
    assert "ok 3 totals" in out, out


def case_result_differs():
    other = list(STEPS)
    other[2] = "FI unshare(net) n=2 ENOMEM fault"
    rc, out = run(sweep(STEPS), sweep(other))
    assert rc == 1, out
    assert "not ok 1 unshare(net)" in out and "ok 2 setns(fd,uts)" in out, out
    assert "n=2 ok fault" in out and "n=2 ENOMEM fault" in out, out


def case_log_differs():
    other = [s for s in STEPS if not s.startswith("FI-LOG")]
    rc, out = run(sweep(STEPS), sweep(other))
    assert rc == 1 and "not ok 1 unshare(net)" in out, out


def case_missing_operation():
    other = STEPS[:4]
    rc, out = run(sweep(STEPS), sweep(other))
    assert rc == 1, out
    assert "not ok 2 setns(fd,uts)" in out and "missing from the Rust log" in out, out


def case_truncated():
    rc, out = run(sweep(STEPS), sweep(STEPS, end=False))
    assert rc == 1, out
    assert "not ok 3 totals" in out and "no end marker" in out, out


def case_empty_sweep():
    # Both kernels swept nothing (e.g. a filter left on): not a pass.
    rc, out = run(sweep([]), sweep([]))
    assert rc == 1 and "not ok 1 totals" in out and "the header announces 2" in out, out


def case_fewer_operations_than_announced():
    rc, out = run(sweep(STEPS[:4]), sweep(STEPS[:4]))
    assert rc == 1 and "1 operations swept, the header announces 2" in out, out


def case_console_interleaving():
    # A kernel message the serial console wrote into a step line: at its
    # end, or in its middle (the rest of the step line on the next line).
    other = list(STEPS)
    other[1] = other[1] + "[   28.631538] sysctl could not get directory: /net -12"
    rc, out = run(sweep(STEPS), sweep(other))
    assert rc == 0, out
    text = sweep(STEPS).replace("FI unshare(net) n=2 ok fault",
                                "FI unshare(net) n=2 o[   12.1] random: late\nk fault")
    rc, out = run(sweep(STEPS), text)
    assert rc == 0, out
    rc, out = run(sweep(STEPS), text.replace("k fault", "k nofault"))
    assert rc == 1, out
    # Split before the step's n= (seen on the Rust debug kernel at
    # fc03570's successor: "FI clone3(pid) n[  216.408382] sysctl ..."
    # then "=11 ENOMEM fault"): the step must not be lost.
    text = sweep(STEPS).replace("FI unshare(net) n=2 ok fault",
                                "FI unshare(net) n[  216.408382] sysctl: late\n=2 ok fault")
    rc, out = run(sweep(STEPS), text)
    assert rc == 0, out
    text = sweep(STEPS).replace("FI unshare(net) n=2 ok fault",
                                "F[  216.408382] sysctl: late\nI unshare(net) n=2 ok fault")
    rc, out = run(sweep(STEPS), text)
    assert rc == 0, out


def case_no_sweep():
    rc, out = run(sweep(STEPS), "[    1.000000] no sweep here\n")
    assert rc == 2 and "Bail out!" in out, out


def main():
    cases = [v for k, v in sorted(globals().items()) if k.startswith("case_")]
    failed = 0
    for c in cases:
        try:
            c()
            print(f"ok {c.__name__}")
        except AssertionError as e:
            failed += 1
            print(f"not ok {c.__name__}: {e}")
    print(f"{len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
