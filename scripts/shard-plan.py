#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Split the guest's test binaries into shards of about equal run time.

shard-plan.py --tests-root DIR --shards N[,N...] --out DIR [--name NAME]
              [--weights FILE] [--pin SUITE/BINARY=K]... [LOG...]
shard-plan.py --dump-weights LOG...

DIR/<suite>/<binary> are the test binaries of the initramfs.  Each LOG is
a guest console log of an earlier run (qemu/run-tests.sh prints
"NSTREE-TEST-END suite/binary rc=N secs=S" after every binary): a
binary's weight is the largest time any LOG records for it, else the
time FILE gives it (lines "suite/binary secs", the committed weights of
a run: a fresh machine has no logs yet), else DEFAULT_SECS.  For each
N, the binaries go, heaviest first, to the shard with the least weight
so far (longest-processing-time first), and OUT/NAME-N (NAME defaults
to shard-plan) lists "suite/binary shard" per line, with a comment
giving each shard's expected seconds.  The base and the debug kernels
get plans of their own (qemu/mkinitramfs.sh): their times differ by
test, not by one factor.  The torture suite is never in a plan: it runs
in a guest of its own (NSTREE_SHARD=torture).  Nor is the fault-injection
sweep, unless pinned: --pin SUITE/BINARY=K puts a binary in shard K
before the others are placed, its weight in that shard's load.  The
debug plan pins nstree-rs/faultinject to shard 1 (qemu/mkinitramfs.sh):
qemu/run-tests.sh runs it there first, in a guest booted with
slub_debug=F (qemu/run.sh); alone, it runs as NSTREE_SHARD=faultinject
(make mutants).

--dump-weights prints the weights the LOGs give, in FILE's format.
"""

import argparse
import os
import re
import sys

DEFAULT_SECS = 10.0
END = re.compile(r"NSTREE-TEST-END (\S+) rc=-?\d+ secs=([\d.]+)")


PINNABLE = ("nstree-rs/faultinject",)


def binaries(root, pinned=()):
    for suite in sorted(os.listdir(root)):
        d = os.path.join(root, suite)
        if not os.path.isdir(d) or suite == "torture":
            continue
        for b in sorted(os.listdir(d)):
            p = os.path.join(d, b)
            if b.startswith(".") or os.path.isdir(p):
                continue
            if f"{suite}/{b}" in PINNABLE and f"{suite}/{b}" not in pinned:
                continue
            yield f"{suite}/{b}"


def logged_secs(logs):
    """The largest time each binary took in any of `logs`."""
    secs = {}
    for log in logs:
        try:
            with open(log, errors="replace") as f:
                for line in f:
                    m = END.search(line)
                    if m:
                        secs[m.group(1)] = max(secs.get(m.group(1), 0.0), float(m.group(2)))
        except OSError:
            continue
    return secs


def read_weights(path):
    weights = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if len(line) == 2:
                weights[line[0]] = float(line[1])
    return weights


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tests-root")
    ap.add_argument("--shards")
    ap.add_argument("--out")
    ap.add_argument("--name", default="shard-plan")
    ap.add_argument("--weights")
    ap.add_argument("--pin", action="append", default=[],
                    help="SUITE/BINARY=K: that binary in shard K")
    ap.add_argument("--dump-weights", action="store_true")
    ap.add_argument("logs", nargs="*")
    a = ap.parse_args()
    secs = logged_secs(a.logs)
    if a.dump_weights:
        for name in sorted(secs):
            print(f"{name} {secs[name]:.1f}")
        return 0
    if not (a.tests_root and a.shards and a.out):
        ap.error("--tests-root, --shards and --out are required")
    committed = read_weights(a.weights) if a.weights else {}
    pins = {}
    for p in a.pin:
        name, _, k = p.rpartition("=")
        if not name or not k.isdigit() or int(k) < 1:
            ap.error(f"--pin {p}: want SUITE/BINARY=K, K >= 1")
        pins[name] = int(k)
    names = list(binaries(a.tests_root, pins))
    missing = sorted(set(pins) - set(names))
    if missing:
        ap.error(f"--pin: no such binary under {a.tests_root}: {' '.join(missing)}")
    weight = {n: secs.get(n, committed.get(n, DEFAULT_SECS)) for n in names}
    known = sum(1 for n in names if n in secs)
    from_file = sum(1 for n in names if n not in secs and n in committed)
    for n_shards in (int(x) for x in a.shards.split(",")):
        load = [0.0] * n_shards
        plan = {}
        for name, k in pins.items():
            i = min(k, n_shards) - 1
            plan[name] = i + 1
            load[i] += weight[name]
        for name in sorted(names, key=lambda n: (-weight[n], n)):
            if name in plan:
                continue
            i = min(range(n_shards), key=lambda k: (load[k], k))
            plan[name] = i + 1
            load[i] += weight[name]
        path = os.path.join(a.out, f"{a.name}-{n_shards}")
        with open(path, "w") as f:
            f.write(f"# {len(names)} binaries ({known} timed by earlier runs, "
                    f"{from_file} by committed weights), "
                    f"{n_shards} shards, expected seconds: "
                    + " ".join(f"{x:.0f}" for x in load) + "\n")
            for name in names:
                f.write(f"{name} {plan[name]}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
