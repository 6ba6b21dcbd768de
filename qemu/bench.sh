#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of the benchmark (nstree.mode=bench): runs nsbench, whose
# NSBENCH lines scripts/bench-report.py parses from the console.
# $1 is nstree.filter=: "smoke" for the quick self-check, else nsbench
# filter tokens (sizes=1000:10000,reps=5,ms=100,only=listns).
filter=$1
cd /tmp || exit 1
echo "NSBENCH-GUEST cpus=$(nproc) mem_total_kb=$(awk '/^MemTotal/ {print $2}' /proc/meminfo)"
start=$(date +%s)
if [ "$filter" = smoke ]; then
	/usr/bin/nsbench --smoke </dev/null 2>&1
else
	/usr/bin/nsbench --filter "${filter:-all}" </dev/null 2>&1
fi
rc=$?
echo "NSBENCH-RC rc=$rc seconds=$(($(date +%s) - start))"
