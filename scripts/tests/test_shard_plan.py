#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/shard-plan.py on synthetic test trees and console logs.

test_shard_plan.py

Each case makes a tests root with a few binaries, console logs with
"NSTREE-TEST-END" lines and a committed weights file, runs the planner
and checks the plan: the heaviest binaries spread over the shards, the
logs' times before the weights' and the weights' before the default, a
flavour's plan from its own logs only, the torture suite never in a
plan, the fault-injection sweep only where pinned, in its shard.  Prints "N passed, N failed".
"""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "shard-plan.py")
NAMES = ["a/big", "a/small1", "b/mid", "b/small2", "c/small3", "torture/nstorture",
         "nstree-rs/faultinject"]


def tree(root):
    for n in NAMES:
        p = os.path.join(root, "tests", n)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write("")
    os.makedirs(os.path.join(root, "etc"), exist_ok=True)


def log(root, name, secs):
    p = os.path.join(root, name)
    with open(p, "w") as f:
        for n, s in secs.items():
            f.write(f"NSTREE-TEST-END {n} rc=0 secs={s}\n")
    return p


def plan(root, *args):
    subprocess.run([sys.executable, TOOL, "--tests-root", os.path.join(root, "tests"),
                    "--shards", "2", "--out", os.path.join(root, "etc"), *args],
                   check=True, capture_output=True)


def read(root, name="shard-plan-2"):
    with open(os.path.join(root, "etc", name)) as f:
        lines = f.read().splitlines()
    return lines[0], dict(line.split() for line in lines[1:])


def expected(header):
    return [int(x) for x in header.split("expected seconds: ")[1].split()]


def case_logs_balance(root):
    base = log(root, "console-c-test.log", {"a/big": 100, "b/mid": 60, "a/small1": 30,
                                            "b/small2": 20, "c/small3": 10})
    plan(root, base)
    head, p = read(root)
    assert p["a/big"] != p["b/mid"], p
    assert expected(head) == [110, 110], head
    assert "torture/nstorture" not in p, p
    assert "nstree-rs/faultinject" not in p, p


def case_pin(root):
    debug = log(root, "console-c-debug-test.log", {"nstree-rs/faultinject": 200, "a/big": 150,
                                                   "b/mid": 40, "a/small1": 30,
                                                   "b/small2": 20, "c/small3": 10})
    plan(root, "--pin", "nstree-rs/faultinject=1", debug)
    head, p = read(root)
    # Pinned to shard 1 whatever its weight, and counted there: the
    # heaviest of the others goes to shard 2, the rest around them.
    assert p["nstree-rs/faultinject"] == "1", p
    assert p["a/big"] == "2", p
    assert expected(head) == [230, 220], head
    assert "torture/nstorture" not in p, p
    # A pin to a binary the tree does not have is an error, not a no-op.
    r = subprocess.run([sys.executable, TOOL, "--tests-root", os.path.join(root, "tests"),
                        "--shards", "2", "--out", os.path.join(root, "etc"),
                        "--pin", "x/missing=1"], capture_output=True, text=True)
    assert r.returncode != 0 and "no such binary" in r.stderr, r


def case_weights_fill_in(root):
    w = os.path.join(root, "weights")
    with open(w, "w") as f:
        f.write("# comment\na/big 100\nb/mid 90\n")
    # No logs: the weights, and the 10 s default for the rest.
    plan(root, "--weights", w)
    head, p = read(root)
    assert "0 timed by earlier runs, 2 by committed weights" in head, head
    assert p["a/big"] != p["b/mid"], p
    assert sorted(expected(head)) == [110, 110], head
    # A log's time wins over the weight.
    base = log(root, "console.log", {"a/big": 5})
    plan(root, "--weights", w, base)
    head, p = read(root)
    assert sorted(expected(head)) == [35, 90], head


def case_flavour_plans(root):
    base = log(root, "console-c-test.log", {"a/big": 100, "b/mid": 100, "a/small1": 1,
                                            "b/small2": 1, "c/small3": 1})
    debug = log(root, "console-c-debug-test.log", {"a/big": 10, "b/mid": 10, "a/small1": 200,
                                                   "b/small2": 10, "c/small3": 10})
    plan(root, "--name", "shard-plan-base", base)
    plan(root, "--name", "shard-plan-debug", debug)
    _, pb = read(root, "shard-plan-base-2")
    _, pd = read(root, "shard-plan-debug-2")
    assert pb["a/big"] != pb["b/mid"], pb
    # By the debug times, a/small1 alone is a shard.
    assert all(pd[n] != pd["a/small1"] for n in pd if n != "a/small1"), pd


def case_dump_weights(root):
    base = log(root, "console.log", {"a/big": 12.34, "b/mid": 5})
    out = subprocess.run([sys.executable, TOOL, "--dump-weights", base], check=True,
                         capture_output=True, text=True).stdout.split("\n")
    assert out[:2] == ["a/big 12.3", "b/mid 5.0"], out


def main():
    cases = [case_logs_balance, case_weights_fill_in, case_flavour_plans, case_pin,
             case_dump_weights]
    passed = failed = 0
    for case in cases:
        with tempfile.TemporaryDirectory() as root:
            tree(root)
            try:
                case(root)
                passed += 1
                print(f"ok {case.__name__}")
            except (AssertionError, subprocess.CalledProcessError) as e:
                failed += 1
                print(f"not ok {case.__name__}: {e!r}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
