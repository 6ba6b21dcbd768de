#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh [FILTER]: the C vs Rust benchmark.
#
# Builds both kernels (as test.sh does; NSTREE_BENCH_NO_BUILD=1 takes the
# images in $OUT as they are) and the guest user space, then boots each
# kernel NSTREE_BENCH_BOOTS times (default 2) with identical QEMU
# settings via `qemu/run.sh c|rust bench FILTER`, in ABBA order
# (c rust rust c ...), and prints the table of scripts/bench-report.py.
# FILTER goes to nsbench after our defaults (bench/nsbench.c:
# sizes=,reps=,ms=,calib=,only=, or "smoke").
#
# Timing under TCG: the host is shared, and a TCG guest's clock is the
# host's wall clock, so every time another process takes the host CPU
# the guest's measurement grows (per-rep C/Rust ratios from 0.3 to 6 on
# a loaded 2-core host).  By default, when $OUT/accel.env names a TCG
# accelerator, the guests therefore run with -icount shift=0,sleep=off
# (single-threaded TCG; the guest uses one CPU either way): guest time,
# TSC included, advances by 1 ns per executed instruction, so what
# nsbench reports as ns/op is the guest instruction count per op,
# reproducible to a fraction of a percent and blind to host load.  That
# is a code-path-length metric (caches, atomics and branch prediction
# are not modelled, nor are they by TCG wall time).  NSTREE_BENCH_ICOUNT=0
# measures TCG wall time instead (then raise NSTREE_BENCH_BOOTS).
# About 10 minutes for the two boots of each kernel on a 2-core host.
# The icount settings live in a private accel.env in $OUT/bench/vm/
# (with links to the images), which run.sh reads as NSTREE_OUT.
#
# Results: $OUT/bench/{report.txt,nsbench.csv,summary.csv,nsbench.png}
# and the console logs $OUT/bench/console-KERNEL-bootN.log.
set -euo pipefail
. "$(dirname "$0")/env.sh"
REPO=$(cd "$(dirname "$0")/.." && pwd)
S="$REPO/scripts"
Q="$REPO/qemu"

filter=${1:-}
boots=${NSTREE_BENCH_BOOTS:-2}
: "${NSTREE_QEMU_TIMEOUT:=1800}"
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
"$Q/probe.sh" "$OUT/bzImage-c"
. "$OUT/accel.env"

vm_out=$OUT
case "$ACCEL_NAME" in
tcg*)
	if [ "${NSTREE_BENCH_ICOUNT:-1}" = 1 ]; then
		vm_out="$bdir/vm"
		mkdir -p "$vm_out"
		for f in bzImage-c bzImage-rust initramfs.cpio.gz; do
			ln -sf "$OUT/$f" "$vm_out/$f"
		done
		# The first line is probe.sh's cache key: keep it, or it re-probes.
		{
			head -1 "$OUT/accel.env"
			echo "ACCEL_NAME=$ACCEL_NAME-icount"
			echo "QEMU_ACCEL=-accel\\ tcg,thread=single\\ -cpu\\ max\\ -smp\\ 2\\ -icount\\ shift=0,sleep=off"
			echo "BASE_ACCEL_NAME=$ACCEL_NAME"
		} >"$vm_out/accel.env"
		# Deterministic: short windows suffice; the clock steps are exact.
		defaults="reps=5,ms=10,calib=200"
	else
		defaults="reps=7,ms=30"
	fi
	;;
*)
	defaults="reps=5,ms=100"
	;;
esac
case "$filter" in
smoke) boots=1 ;;
'') filter=$defaults ;;
*) filter="$defaults,$filter" ;;
esac
log "benchmark: $boots boot(s) per kernel, filter $filter, accelerator $(. "$vm_out/accel.env" && echo "$ACCEL_NAME")"

logs=()
for b in $(seq 1 "$boots"); do
	order="c rust"
	[ $((b % 2)) = 1 ] || order="rust c"
	for v in $order; do
		rm -f "$vm_out/console-$v-bench.log"
		NSTREE_OUT=$vm_out "$Q/run.sh" "$v" bench "$filter" ||
			log "$v boot $b did not finish (the report says so)"
		log="$bdir/console-$v-boot$b.log"
		cp "$vm_out/console-$v-bench.log" "$log" 2>/dev/null || : >"$log"
		logs+=("$v=$log")
	done
done

echo
echo "=== nstree-rs benchmark: C vs Rust ==="
set +e
python3 "$S/bench-report.py" --out "$bdir" --accel-env "$vm_out/accel.env" "${logs[@]}" |
	tee "$bdir/report.txt"
rc=${PIPESTATUS[0]}
set -e
echo "bench wall time: $(($(date +%s) - t0))s"
exit "$rc"
