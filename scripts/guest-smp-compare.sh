#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# guest-smp-compare.sh [SMP...]: how a debug test shard's vCPU count
# (qemu/run.sh, NSTREE_SHARD_SMP) changes its wall and host CPU time.
# For each SMP (default: 2 1), boots the C and the Rust debug kernels of
# the last make test at once, as shard 2 of the debug plan, running the
# binaries that match $NSTREE_SMP_FILTER (eight of that shard, about
# 300 s each), in $NSTREE_CACHE/out-smp (links to $OUT's kernels and
# initramfs), and prints each kernel's summed test seconds, its "not ok"
# and SKIP counts, and the pair's wall and host CPU seconds.  Run it
# alone on the machine: the host's load is in the figures.
set -uo pipefail
. "$(dirname "$0")/env.sh"
REPO=$(cd "$(dirname "$0")/.." && pwd)
: "${NSTREE_SMP_FILTER:=locked_handle|pid_max|nstree_tool|criu|crun|ip_netns|lsns_userns|listns_badinput}"
X=$NSTREE_CACHE/out-smp
mkdir -p "$X"
for f in bzImage-c-debug bzImage-rust-debug initramfs.cpio.gz initramfs-root accel.env; do
	[ -e "$OUT/$f" ] || die "no $OUT/$f: run make test first"
	ln -sfn "$OUT/$f" "$X/$f"
done
[ $# -gt 0 ] || set -- 2 1
for smp in "$@"; do
	b0=$(busy_ticks) t0=$(date +%s)
	for n in c-debug rust-debug; do
		NSTREE_OUT=$X NSTREE_SHARD_SMP=$smp NSTREE_PLAN=debug NSTREE_SHARD=2/2 \
			"$REPO/qemu/run.sh" "$n" test "$NSTREE_SMP_FILTER" >"$X/run-$n-smp$smp.out" 2>&1 &
	done
	wait
	b1=$(busy_ticks) t1=$(date +%s)
	for n in c-debug rust-debug; do
		l=$X/console-$n-test.shard-2of2.log
		s=$(python3 "$REPO/scripts/shard-plan.py" --dump-weights "$l" |
			awk '{ s += $2 } END { print s }')
		printf 'smp=%s %-10s tests %6s s  not-ok %s  skip %s  done %s\n' "$smp" "$n" "$s" \
			"$(grep -ac '^not ok' "$l")" "$(grep -ac '# SKIP' "$l")" "$(grep -ac '^NSTREE-DONE' "$l")"
		cp "$l" "$X/console-$n-smp$smp.log"
	done
	printf 'smp=%s pair: wall %s s, host CPU %s core-s\n' "$smp" $((t1 - t0)) \
		$(((b1 - b0) / $(getconf CLK_TCK)))
done
