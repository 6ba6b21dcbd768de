#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check.sh: style and lint gates.  rustfmt (kernel .rustfmt.toml) and
# clippy (the kernel's CLIPPY=1 build of our crate) for the Rust code,
# checkpatch.pl for the series and for our C files, and the unit tests of
# the report (scripts/tests/test_report.py, synthetic console logs).
set -uo pipefail
. "$(dirname "$0")/env.sh"
REPO=$(cd "$(dirname "$0")/.." && pwd)
fail=0
declare -A verdict

# The nstree crate and the rust/kernel abstractions the series adds.
rs=("$REPO"/rust/*.rs $(find "$REPO/c-glue/rust/kernel" -name '*.rs' | sort))
if rustfmt --edition 2021 --config-path "$PRISTINE/.rustfmt.toml" --check "${rs[@]}" >"$LOGS/rustfmt.log" 2>&1; then
	verdict[rustfmt]=clean
else
	verdict[rustfmt]="diffs (see $LOGS/rustfmt.log)"; fail=1
fi

build=$(variant_build rust base)
if [ -f "$build/vmlinux" ]; then
	# The abstractions are part of the kernel crate: touch them so that
	# it is linted again too.
	(cd "$RUST_TREE" && touch rust/kernel/sync/seqlock.rs rust/kernel/rbtree/rcu.rs \
		rust/kernel/uaccess/*.rs kernel/nstree_rs/*.rs)
	kmake "$RUST_TREE" "$build" CLIPPY=1 CLIPPY_DRIVER=/usr/bin/clippy-driver \
		kernel/nstree_rs/ >"$LOGS/clippy.log" 2>&1
	n=$(grep -cE '^(warning|error)' "$LOGS/clippy.log")
	if [ "$n" = 0 ]; then verdict[clippy]=clean; else verdict[clippy]="$n findings (see $LOGS/clippy.log)"; fail=1; fi
	# Rebuild without clippy so the tree's objects match a normal build.
	kmake "$RUST_TREE" "$build" kernel/nstree_rs/ >/dev/null 2>&1
	# The compile-fail proofs of the abstractions, against this kernel crate.
	if "$REPO/scripts/compile-fail.sh" >"$LOGS/compile-fail.log" 2>&1; then
		verdict[compile-fail]=$(tail -1 "$LOGS/compile-fail.log")
	else
		verdict[compile-fail]="$(tail -1 "$LOGS/compile-fail.log") (see $LOGS/compile-fail.log)"; fail=1
	fi
else
	verdict[clippy]="skipped: no Rust build yet (make kernel VARIANT=rust)"
	verdict[compile-fail]=${verdict[clippy]}
fi

cp=("$PRISTINE/scripts/checkpatch.pl" --no-tree --quiet --show-types)
# The series: checkpatch in git mode on the applied commits (on mbox
# files its hunk tracking runs past the last hunk into the signature).
WORK="$NSTREE_CACHE/trees/work"
if [ -d "$WORK/.git" ] || [ -f "$WORK/.git" ]; then
	git -C "$WORK" checkout -q --detach base
	mapfile -t series < <(series_patches "$REPO")
	git -C "$WORK" -c user.name=nstree-rs -c user.email=nstree-rs@localhost am -q "${series[@]}"
	# spdxcheck.py needs python3-ply: use the system python3, not a
	# python earlier in PATH (pyenv) that lacks it.
	# FILE_PATH_CHANGES ("does MAINTAINERS need updating?") fires on every
	# patch that adds files without touching MAINTAINERS; the entry that
	# patch 0006 adds covers everything the later ones add.
	out=$(cd "$WORK" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --quiet --show-types \
		--ignore FILE_PATH_CHANGES -g base..HEAD 2>&1)
	git -C "$WORK" checkout -q --detach base
else
	out="no work tree: run make rust-tree first"
fi
if [ -z "$out" ]; then verdict[checkpatch-series]=clean; rm -f "$LOGS/checkpatch-series.log"; else
	echo "$out" >"$LOGS/checkpatch-series.log"
	verdict[checkpatch-series]="findings (see $LOGS/checkpatch-series.log)"; fail=1
fi
# Kernel C (the glue) strictly; user-space C (tests, tools, benchmark)
# without two kernel-only rules: it has no <linux/compiler_attributes.h>,
# so it defines __printf() and friends itself, and the viewer reports a
# kernel without listns() by its ENOSYS.
kfiles=$(find "$REPO/c-glue" -name '*.[ch]')
ufiles=$(find "$REPO/selftests" "$REPO/tools" "$REPO/bench" "$REPO/peers" -name '*.[ch]')
out=$({ "${cp[@]}" -f $kfiles 2>&1
      "${cp[@]}" --ignore PREFER_DEFINED_ATTRIBUTE_MACRO,ENOSYS -f $ufiles 2>&1; } |
	filter_accepted)
if [ -z "$out" ]; then verdict[checkpatch-c]=clean; rm -f "$LOGS/checkpatch-c.log"; else
	echo "$out" >"$LOGS/checkpatch-c.log"
	verdict[checkpatch-c]="$(grep -cE '^(ERROR|WARNING|CHECK)' <<<"$out") findings (see $LOGS/checkpatch-c.log)"; fail=1
fi

# py_tests NAME FILE: a test file of scripts/tests, which ends with
# "N passed, N failed"; its last line is the verdict, the whole output
# kept in $LOGS/NAME-test.log when it fails.
py_tests() {
	local out
	if out=$(python3 "$REPO/scripts/tests/$2" 2>&1); then
		verdict[$1]="$(tail -1 <<<"$out")"
	else
		echo "$out" >"$LOGS/$1-test.log"
		verdict[$1]="$(tail -1 <<<"$out") (see $LOGS/$1-test.log)"; fail=1
	fi
}

# scripts/bench-report.py on synthetic console logs of the four
# benchmark kernels: units, columns, "cells above 1.02", failures.
py_tests bench-report test_bench_report.py
# scripts/shard-plan.py (make test's shard plans) on synthetic logs.
py_tests shard-plan test_shard_plan.py
# scripts/compare-objects.py (make check-series' C-identical step) on two
# small synthetic builds: stamps, link order, the Rust-helper rule.
py_tests compare-objects test_compare_objects.py
# scripts/faultinject-compare.py (make test's C/Rust sweep comparison) on
# synthetic console logs.
py_tests faultinject-compare test_faultinject_compare.py

# The tables of docs/bench.md are what docs/bench/ gives (make bench
# writes both; scripts/bench-tables.py).
if tables_out=$(python3 "$REPO/scripts/bench-tables.py" "$REPO/docs/bench" --check "$REPO/docs/bench.md" 2>&1); then
	verdict[bench-tables]="match docs/bench/summary.csv"
else
	verdict[bench-tables]="$tables_out"; fail=1
fi

# Every unsafe block/impl with a SAFETY comment, every unsafe fn with a
# Safety section, no safe fn with a duty.
unsafe_out=$(python3 "$REPO/scripts/check-unsafe.py" "${rs[@]}")
[ $? = 0 ] || fail=1
# The shape of the kernel sources: unsafe only in rust/ns.rs, no host cfg,
# no line citations, no references to the project's docs, no process
# words anywhere; the measures (unsafe lines, comments per code line, the
# crate's size) against their limits.
shape_out=$(python3 "$REPO/scripts/check-shape.py" "$REPO")
[ $? = 0 ] || fail=1
# docs/results.md was written by make results from a run of HEAD's code.
results_out=$(python3 "$REPO/scripts/results.py" --check "$REPO/docs/results.md" "$REPO")
[ $? = 0 ] || fail=1
# The cover letter's results are those of the series in patches/.
cover_out=$(python3 "$REPO/scripts/results.py" --check-cover "$REPO")
[ $? = 0 ] || fail=1
# check-shape.py's own test: each rule catches a planted case.
py_tests check-shape test_check_shape.py
# Every check of the C the crate replaces has its Rust counterpart or is a
# listed difference (c-glue/c-checks.txt).
if cchecks_out=$(python3 "$REPO/scripts/check-c-checks.py" "$PRISTINE" "$REPO" 2>&1); then
	cchecks_out=$(tail -1 <<<"$cchecks_out")
else
	echo "$cchecks_out" >"$LOGS/c-checks.log"
	cchecks_out="$(tail -1 <<<"$cchecks_out") (see $LOGS/c-checks.log)"; fail=1
fi
py_tests c-checks test_check_c_checks.py

# The report's own tests: TAP in the log, the count in the verdict.
if python3 "$REPO/scripts/tests/test_report.py" --tap >"$LOGS/report-tests.tap" 2>&1; then
	verdict[report-tests]="$(tail -1 "$LOGS/report-tests.tap")"
else
	verdict[report-tests]="$(tail -1 "$LOGS/report-tests.tap") (see $LOGS/report-tests.tap)"; fail=1
fi

# Every code excerpt in the docs matches the file it quotes (ours, or the
# base kernel tree's; the previous tree's side of a diff where present).
# Upstream C behaviour the crate deliberately does not copy, shown on the
# upstream functions themselves (docs/walkthrough.md).
if "$REPO/scripts/upstream-c/run.sh" "$PRISTINE" "$OUT/upstream-c" >"$LOGS/upstream-c.tap" 2>&1; then
	verdict[upstream-c]="$(grep -c '^ok' "$LOGS/upstream-c.tap") checks of upstream's C behaviour hold"
else
	verdict[upstream-c]="failed (see $LOGS/upstream-c.tap)"; fail=1
fi

excerpt_out=$(python3 "$REPO/scripts/check-excerpts.py" --linux "$PRISTINE" \
	--linux-old "$NSTREE_CACHE/src/linux-source-7.2" "$REPO"/README.md "$REPO"/docs/*.md)
[ $? = 0 ] || fail=1
echo
echo "=== check ==="
for k in rustfmt clippy compile-fail checkpatch-series checkpatch-c report-tests upstream-c; do printf '%-18s %s\n' "$k" "${verdict[$k]}"; done
echo "$unsafe_out"
echo "$shape_out"
printf '%-18s %s\n' check-shape "${verdict[check-shape]}"
echo "$results_out"
echo "$cover_out"
printf '%-18s %s\n' c-checks "$cchecks_out (test: ${verdict[c-checks]})"
echo "$excerpt_out"
printf '%-18s %s\n' bench-report "${verdict[bench-report]}"
printf '%-18s %s\n' compare-objects "${verdict[compare-objects]}"
printf '%-18s %s\n' bench-tables "${verdict[bench-tables]}"
printf '%-18s %s\n' shard-plan "${verdict[shard-plan]}"
printf '%-18s %s\n' fi-compare "${verdict[faultinject-compare]}"
exit $fail
