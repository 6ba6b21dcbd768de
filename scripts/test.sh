#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test.sh [FLAVOUR...]: the whole test run, for each flavour (default:
# base and debug): host tests of the crate, both kernels built from one
# tree, every selftest booted on each in QEMU, then one side-by-side table
# and the line "N passed, N failed, N skipped" over everything.
set -uo pipefail
. "$(dirname "$0")/env.sh"
REPO=$(cd "$(dirname "$0")/.." && pwd)
S="$REPO/scripts"
Q="$REPO/qemu"

flavours=("$@")
[ ${#flavours[@]} -gt 0 ] || flavours=(base debug)
t0=$(date +%s)
declare -A took
step() { # step NAME CMD...: run a step, record its wall time
	local name=$1 s
	shift
	s=$(date +%s)
	"$@"
	local rc=$?
	took[$name]=$(($(date +%s) - s))
	return $rc
}

fatal=0
step selftests "$S/build-selftests.sh" || fatal=1
[ $fatal = 1 ] || step initramfs "$Q/mkinitramfs.sh" || fatal=1
[ $fatal = 0 ] || die "could not build the guest user space"

reports=()
host_out="$OUT/host-test.tap"
if [ -x "$S/host-test.sh" ]; then
	step host-test "$S/host-test.sh" --tap "$host_out" || true
	reports+=("host=$host_out")
fi
# CI must finish in 90 minutes on a fresh 2-core machine.  Before each
# configuration after the first, estimate what it still needs (a fresh
# debug build pair is the long pole) and skip it, reported as skipped with
# the reason, if it would not fit.
: "${NSTREE_TIME_BUDGET_MIN:=85}"
first=1
for fl in "${flavours[@]}"; do
	if [ $first = 0 ]; then
		need=30
		[ -f "$(variant_build c "$fl")/vmlinux" ] || need=55
		used=$((($(date +%s) - t0) / 60))
		if [ $((used + need)) -gt "$NSTREE_TIME_BUDGET_MIN" ]; then
			log "skipping the $fl configuration: ${used} min used, about $need more needed, budget $NSTREE_TIME_BUDGET_MIN"
			printf 'TAP version 13\n1..1\nok 1 %s configuration, both kernels # SKIP time budget: %s min used, ~%s min needed, budget %s min\n' \
				"$fl" "$used" "$need" "$NSTREE_TIME_BUDGET_MIN" >"$OUT/skipped-$fl.tap"
			reports+=("difftest-skipped-$fl=$OUT/skipped-$fl.tap")
			continue
		fi
	fi
	first=0
	seeds=
	for v in c rust; do
		name=$v
		[ "$fl" = base ] || name="$v-$fl"
		rm -f "$OUT/console-$name-test.log"
		if step "build $name" "$S/build-kernel.sh" "$v" "$fl"; then
			# The Rust kernel runs the difftest seeds the C kernel
			# completed (all of them unless its time budget cut it).
			NSTREE_DIFFTEST_TO=$seeds step "qemu $name" "$Q/run.sh" "$name" test || true
			if [ "$v" = c ]; then
				seeds=$(python3 "$S/difftest-compare.py" --last-seed "$OUT/console-$name-test.log")
				[ "$seeds" != 0 ] || seeds=
			fi
		else
			log "build of $name failed: its tests count as failed"
		fi
		reports+=("$name=$OUT/console-$name-test.log")
	done
	# The differential tester's traces, C against Rust, seed by seed.
	c=c rs=rust
	[ "$fl" = base ] || { c="c-$fl"; rs="rust-$fl"; }
	python3 "$S/difftest-compare.py" "$OUT/console-$c-test.log" "$OUT/console-$rs-test.log" \
		>"$OUT/difftest-$fl.tap" 2>&1
	reports+=("difftest-$fl=$OUT/difftest-$fl.tap")
done

echo
echo "=== nstree-rs test results: C vs Rust ($(cat "$PRISTINE/.nstree-rs-version")) ==="
python3 "$S/report.py" --out "$OUT" "${reports[@]}" | tee "$OUT/report.txt"
rc=${PIPESTATUS[0]}

echo
echo "=== wall times ==="
for k in "${!took[@]}"; do printf '%-24s %5ss\n' "$k" "${took[$k]}"; done | sort
printf '%-24s %5ss\n' total $(($(date +%s) - t0))
echo "accelerator: $(. "$OUT/accel.env" 2>/dev/null && echo "$ACCEL_NAME")"
# The summary line comes last.
tail -1 "$OUT/report.txt"
exit $rc
