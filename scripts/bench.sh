#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh [FILTER]: the C vs Rust benchmark.  Builds both kernels (as
# test.sh does; NSTREE_BENCH_NO_BUILD=1 uses the images in $OUT as they
# are) and the guest user space, then boots each kernel
# NSTREE_BENCH_BOOTS times (default 2) with identical QEMU settings via
# `qemu/run.sh c|rust bench FILTER`, in ABBA order (c rust rust c ...) so
# that slow drift of the shared host hits both alike.  FILTER is passed
# to nsbench (see bench/nsbench.c: sizes=,reps=,ms=,only=, or smoke).
# The console logs, the raw CSV, the summary and the plot go to
# $OUT/bench/; the table is printed and saved as $OUT/bench/report.txt.
set -euo pipefail
. "$(dirname "$0")/env.sh"
REPO=$(cd "$(dirname "$0")/.." && pwd)
S="$REPO/scripts"
Q="$REPO/qemu"

filter=${1:-}
boots=${NSTREE_BENCH_BOOTS:-2}
[ "$filter" != smoke ] || boots=1
: "${NSTREE_QEMU_TIMEOUT:=1200}"
export NSTREE_QEMU_TIMEOUT
bdir="$OUT/bench"
mkdir -p "$bdir"
t0=$(date +%s)

if [ "${NSTREE_BENCH_NO_BUILD:-0}" != 1 ]; then
	for v in c rust; do
		"$S/build-kernel.sh" "$v" base
	done
fi
for v in c rust; do
	[ -f "$OUT/bzImage-$v" ] || die "no kernel image $OUT/bzImage-$v"
done
"$S/build-selftests.sh"
"$Q/mkinitramfs.sh"

logs=()
for b in $(seq 1 "$boots"); do
	order="c rust"
	[ $((b % 2)) = 1 ] || order="rust c"
	for v in $order; do
		rm -f "$OUT/console-$v-bench.log"
		"$Q/run.sh" "$v" bench "$filter" || log "$v boot $b did not finish (the report says so)"
		log="$bdir/console-$v-boot$b.log"
		cp "$OUT/console-$v-bench.log" "$log" 2>/dev/null || : >"$log"
		logs+=("$v=$log")
	done
done

echo
echo "=== nstree-rs benchmark: C vs Rust ==="
set +e
python3 "$S/bench-report.py" --out "$bdir" --accel-env "$OUT/accel.env" "${logs[@]}" |
	tee "$bdir/report.txt"
rc=${PIPESTATUS[0]}
set -e
echo "bench wall time: $(($(date +%s) - t0))s"
exit "$rc"
