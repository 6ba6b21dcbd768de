#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shard-merge-check.sh [FLAVOUR]: whether the report of a sharded run says
# what an unsharded run says (make shard-merge-check).
#
# After a make test (its shard console logs in $OUT), boots each kernel of
# FLAVOUR (base, the default, or debug) once more with every test in one
# guest (no NSTREE_SHARD: the torture suite, the fault-injection sweep on
# a debug kernel, and all other binaries, one after another; the debug
# guest boots with slub_debug=F, as the sweep's shard does), C and Rust
# side by side, into $NSTREE_CACHE/out-merge.  Then report.py builds the
# C/Rust table from the sharded logs (every shard and the torture
# guest, merged) and from the unsharded ones, and the two tables must be
# the same: the same tests, the same result on each kernel, the same
# C/Rust comparison, the same health checks, the same skip reasons.
# Only the lines that carry times and rates (the "slowest tests" table,
# nstorture's rates and check count) are left out.  Exits non-zero on
# any difference and prints it.
set -euo pipefail
. "$(dirname "$0")/env.sh"
REPO=$(cd "$(dirname "$0")/.." && pwd)

fl=${1:-base}
case $fl in
base) names=(c rust) ;;
debug) names=(c-debug rust-debug) ;;
*) die "usage: shard-merge-check.sh [base|debug]" ;;
esac
M=$NSTREE_CACHE/out-merge
mkdir -p "$M"
for f in accel.env initramfs.cpio.gz "${names[@]/#/bzImage-}"; do
	[ -f "$OUT/$f" ] || die "no $OUT/$f: run make test first"
	ln -sf "$OUT/$f" "$M/$f"
done
sharded=()
for n in "${names[@]}"; do
	# Every guest of the last run (test.sh removes a kernel's old logs
	# before its run): its $NSTREE_SHARDS shards and the torture guest
	# (not a guest run by hand, such as NSTREE_SHARD=faultinject).
	logs=("$OUT/console-$n-test.shard-"*of*.log "$OUT/console-$n-test.shard-torture.log")
	for f in "${logs[@]}"; do
		[ -f "$f" ] || die "no $f: run make test first"
	done
	sharded+=("$n=$(IFS=,; echo "${logs[*]}")")
done

append=
[ "$fl" = base ] || append=slub_debug=F
pids=()
for n in "${names[@]}"; do
	NSTREE_OUT=$M NSTREE_APPEND=$append "$REPO/qemu/run.sh" "$n" test &
	pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
[ $rc = 0 ] || log "a guest did not finish (the tables below show it)"

# The table without the lines that carry times or rates: the "slowest
# tests" table and nstorture's rates and check counts.
table() {
	sed -e '/^slowest tests/,/^$/d' \
		-e '/^  [a-z0-9-]*\/s  /d' -e '/^  checks  /d' "$1"
}
mkdir -p "$M/sharded" "$M/unsharded"
python3 "$REPO/scripts/report.py" --out "$M/sharded" "${sharded[@]}" >"$M/report-sharded.txt" || true
unsharded=()
for n in "${names[@]}"; do unsharded+=("$n=$M/console-$n-test.log"); done
python3 "$REPO/scripts/report.py" --out "$M/unsharded" "${unsharded[@]}" >"$M/report-unsharded.txt" || true
if diff -u <(table "$M/report-sharded.txt") <(table "$M/report-unsharded.txt"); then
	log "$fl: the merged report of the shards and the unsharded report are the same:" \
		"$(grep -cE ' (pass|fail|skip) +(pass|fail|skip) *$' "$M/report-sharded.txt") rows," \
		"$(tail -1 "$M/report-sharded.txt")"
else
	log "$fl: the merged report of the shards and the unsharded report differ (above)"
	exit 1
fi
