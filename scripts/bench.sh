#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh [FILTER]: the benchmark of the C, C-opt, Rust and Rust-noinline kernels.
#
# Kernels (NSTREE_BENCH_KERNELS, default "c c-opt rust rust-noinline";
# scripts/bench-kernels.sh, private trees under $NSTREE_CACHE/bench;
# NSTREE_BENCH_NO_BUILD=1 takes the images in $OUT as they are):
#   c              upstream C (the pristine tree)
#   c-opt          upstream C + bench/c-opt/*.patch: the same two
#                  algorithmic changes the Rust listns() walk makes, in C
#   rust           the tree with our series (CONFIG_RUST_INLINE_HELPERS=y)
#   rust-noinline  the same without inline helpers
#                  (configs/bench-noinline.config)
# all with the boot-time microbenchmark of the tree API
# (bench/kernel/*.patch, CONFIG_NSTREE_BENCH), same config otherwise.
# Each kernel boots NSTREE_BENCH_BOOTS times (default 2) with identical
# QEMU settings via `qemu/run.sh KERNEL bench FILTER`, in ABC-CBA order
# (c c-opt rust rust-noinline, then the reverse, ...); every boot runs the kernel
# microbenchmark at boot (nstree_bench.sizes=$NSTREE_KBENCH_SIZES) and
# then nsbench in user space, and scripts/bench-report.py prints the
# table.  FILTER goes to nsbench after our defaults (bench/nsbench.c:
# sizes=,reps=,ms=,calib=,only=,mem=, or "smoke").
#
# Timing under TCG: the host is shared, and a TCG guest's clock is the
# host's wall clock, so every time another process takes the host CPU
# the guest's measurement grows (per-rep ratios from 0.3 to 6 on a
# loaded 2-core host).  By default, when $OUT/accel.env names a TCG
# accelerator (here: always, /dev/kvm is PVM, see qemu/probe.sh), the
# guests therefore run with -icount shift=0,sleep=off (single-threaded
# TCG): guest time, TSC included, advances by 1 ns per executed
# instruction, so what nsbench and the kernel microbenchmark report as
# ns/op is the guest instruction count per op, reproducible to a
# fraction of a percent and blind to host load.  That is a
# code-path-length metric (caches, atomics and branch prediction are not
# modelled, nor are they by TCG wall time).  NSTREE_BENCH_ICOUNT=0
# measures TCG wall time instead (then raise NSTREE_BENCH_BOOTS).
# The icount settings live in a private accel.env in $OUT/bench/vm/
# (with links to the images), which run.sh reads as NSTREE_OUT.
#
# Results: a full run (no FILTER) writes docs/bench/ in the repository:
# report.txt (header: the full commit hash, each kernel's release and the
# sha256 of its .config, toolchain, QEMU, accelerator; the tables),
# nsbench.csv (every sample), summary.csv, nsbench.png, memory.json;
# a filtered run writes them to $OUT/bench/ only.  The console logs stay
# in $OUT/bench/console-KERNEL-bootN.log.
set -euo pipefail
. "$(dirname "$0")/env.sh"
REPO=$(cd "$(dirname "$0")/.." && pwd)
S="$REPO/scripts"
Q="$REPO/qemu"

filter=${1:-}
boots=${NSTREE_BENCH_BOOTS:-2}
read -r -a kernels <<<"${NSTREE_BENCH_KERNELS:-c c-opt rust rust-noinline}"
: "${NSTREE_KBENCH_SIZES:=1000,10000,50000,200000}"
: "${NSTREE_KBENCH_REPS:=5}"
# The guest's memory: the 200k population needs about 1.2 GiB.
: "${NSTREE_BENCH_MEM:=4G}"
: "${NSTREE_QEMU_TIMEOUT:=5400}"
export NSTREE_QEMU_TIMEOUT
bdir="$OUT/bench"
mkdir -p "$bdir"
t0=$(date +%s)

if [ "${NSTREE_BENCH_NO_BUILD:-0}" != 1 ]; then
	"$S/bench-kernels.sh" "${kernels[@]}"
fi
for v in "${kernels[@]}"; do
	[ -f "$OUT/bzImage-bench-$v" ] || die "no kernel image $OUT/bzImage-bench-$v"
done
"$S/build-selftests.sh"
"$Q/mkinitramfs.sh"
"$Q/probe.sh" "$OUT/bzImage-bench-c"
. "$OUT/accel.env"

vm_out="$bdir/vm"
mkdir -p "$vm_out"
for v in "${kernels[@]}"; do
	ln -sf "$OUT/bzImage-bench-$v" "$vm_out/bzImage-$v"
done
ln -sf "$OUT/initramfs.cpio.gz" "$vm_out/initramfs.cpio.gz"
case "$ACCEL_NAME" in
tcg*)
	if [ "${NSTREE_BENCH_ICOUNT:-1}" = 1 ]; then
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
		cp "$OUT/accel.env" "$vm_out/accel.env"
		defaults="reps=7,ms=30"
	fi
	;;
*)
	cp "$OUT/accel.env" "$vm_out/accel.env"
	defaults="reps=5,ms=100"
	;;
esac
defaults="$defaults,sizes=${NSTREE_BENCH_SIZES:-1000:10000:50000:200000}"
docs=0
case "$filter" in
smoke) boots=1 ;;
'') filter=$defaults docs=1 ;;
*) filter="$defaults,$filter" ;;
esac
log "benchmark: ${kernels[*]}, $boots boot(s) each, filter $filter, kernel microbenchmark" \
	"sizes $NSTREE_KBENCH_SIZES, accelerator $(. "$vm_out/accel.env" && echo "$ACCEL_NAME")"

logs=()
for b in $(seq 1 "$boots"); do
	order=("${kernels[@]}")
	if [ $((b % 2)) = 0 ]; then
		order=()
		for ((i = ${#kernels[@]} - 1; i >= 0; i--)); do order+=("${kernels[i]}"); done
	fi
	for v in "${order[@]}"; do
		rm -f "$vm_out/console-$v-bench.log"
		NSTREE_OUT=$vm_out NSTREE_QEMU_MEM=$NSTREE_BENCH_MEM \
			NSTREE_APPEND="nstree_bench.sizes=$NSTREE_KBENCH_SIZES nstree_bench.reps=$NSTREE_KBENCH_REPS" \
			"$Q/run.sh" "$v" bench "$filter" ||
			log "$v boot $b did not finish (the report says so)"
		log="$bdir/console-$v-boot$b.log"
		cp "$vm_out/console-$v-bench.log" "$log" 2>/dev/null || : >"$log"
		logs+=("$v=$log")
	done
done

# What produced these numbers.
rdir=$bdir
[ "$docs" = 0 ] || rdir="$REPO/docs/bench"
mkdir -p "$rdir"
commit=$(git -C "$REPO" rev-parse HEAD 2>/dev/null || echo unknown)
git -C "$REPO" diff --quiet HEAD 2>/dev/null || commit="$commit (with uncommitted changes)"
{
	echo "nstree-rs benchmark: ${kernels[*]}, $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "commit:    $commit"
	echo "kernel:    $(cat "$PRISTINE/.nstree-rs-version" 2>/dev/null || echo "$LINUX_SERIES")"
	# Each kernel: its release and its .config (first 16 hex digits of the sha256).
	for v in "${kernels[@]}"; do
		kb="$NSTREE_CACHE/bench/$v/.build"
		if [ -f "$kb/.config" ]; then
			printf '  %-15s release %s, .config sha256 %s\n' "$v:" \
				"$(cat "$kb/include/config/kernel.release" 2>/dev/null || echo unknown)" \
				"$(sha256sum "$kb/.config" | cut -c1-16)"
		else
			printf '  %-15s no build directory %s\n' "$v:" "$kb"
		fi
	done
	echo "toolchain: $($RUSTC --version); $(clang$LLVM_SUFFIX --version | head -1);" \
		"bindgen $("$BINDGEN" --version 2>/dev/null | awk '{print $2}')"
	echo "qemu:      $(qemu-system-x86_64 --version | head -1)"
	echo "host:      $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
		"KVM $([ -d /sys/module/kvm_pvm ] && echo 'is PVM (not usable)' || { [ -w /dev/kvm ] && echo present || echo absent; })"
	echo "guest:     -m $NSTREE_BENCH_MEM; nsbench filter $filter;" \
		"kernel microbenchmark nstree_bench.sizes=$NSTREE_KBENCH_SIZES reps=$NSTREE_KBENCH_REPS"
} >"$rdir/header.txt"
builds=()
for v in "${kernels[@]}"; do
	[ ! -f "$NSTREE_CACHE/bench/$v/.build/vmlinux" ] || builds+=("$v=$NSTREE_CACHE/bench/$v/.build")
done
python3 "$S/bench-mem.py" --json "$rdir/memory.json" "${builds[@]}" >/dev/null ||
	log "bench-mem.py failed: no static memory figures"

# The summary this run replaces, for the "before" column of docs/bench.md
# (kept as docs/bench/summary-before.csv, its first line naming its commit).
if [ "$docs" = 1 ] && [ -f "$rdir/summary.csv" ]; then
	{
		echo "# commit $(sed -n 's/^commit: *\([0-9a-f]\{7\}\).*/\1/p' "$rdir/report.txt" 2>/dev/null | head -1)"
		grep -v '^#' "$rdir/summary.csv"
	} >"$rdir/summary-before.csv.new"
	mv "$rdir/summary-before.csv.new" "$rdir/summary-before.csv"
fi

echo
echo "=== nstree-rs benchmark: ${kernels[*]} ==="
set +e
python3 "$S/bench-report.py" --out "$rdir" --accel-env "$vm_out/accel.env" \
	--header "$rdir/header.txt" --memory "$rdir/memory.json" "${logs[@]}" |
	tee "$rdir/report.txt"
rc=${PIPESTATUS[0]}
set -e
rm -f "$rdir/header.txt"
# A full run: the tables of docs/bench.md are this run's (scripts/bench-tables.py).
if [ "$docs" = 1 ]; then
	python3 "$S/bench-tables.py" "$rdir" --update "$REPO/docs/bench.md" "$REPO/README.md" "$REPO/docs/results.md" || rc=1
fi
[ "$rdir" = "$bdir" ] || cp "$rdir/report.txt" "$bdir/report.txt"
echo "bench wall time: $(($(date +%s) - t0))s"
exit "$rc"
