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
# Guests per kernel that run the tests at the same time (see below).
: "${NSTREE_SHARDS:=2}"
[ ${#flavours[@]} -gt 0 ] || flavours=(base debug)
t0=$(date +%s)
declare -A took busy cpu0
# busy_ticks: env.sh.
cpu_begin() { cpu0[$1]=$(busy_ticks); }
cpu_end() { busy[$1]=$((($(busy_ticks) - ${cpu0[$1]}) / $(getconf CLK_TCK))); }
step() { # step NAME CMD...: run a step, record its wall and host CPU time
	local name=$1 s
	shift
	s=$(date +%s)
	cpu_begin "$name"
	"$@"
	local rc=$?
	took[$name]=$(($(date +%s) - s))
	cpu_end "$name"
	return $rc
}
cpu_begin total

# guest_reached NAME PID ERE: wait until NAME's torture guest (PID) has
# printed a line that ERE matches (qemu/run-tests.sh), or has exited.
guest_reached() {
	while kill -0 "$2" 2>/dev/null; do
		! grep -aqE "$3" "$OUT/console-$1-test.shard-torture.log" 2>/dev/null || return 0
		sleep 1
	done
}

fatal=0
step selftests "$S/build-selftests.sh" || fatal=1
[ $fatal = 1 ] || step initramfs "$Q/mkinitramfs.sh" || fatal=1
[ $fatal = 0 ] || die "could not build the guest user space"

reports=()
host_out="$OUT/host-test.tap"
# The host tests (everything, the long loom scenarios too: make host-test
# skips those) run beside the first flavour's test shards, which leave
# part of the host's cores idle (a 2-vCPU guest waits, settles, sleeps),
# not beside a torture guest, which wants every CPU; started at the
# latest here, if no shard started them.  Their wall and CPU time are
# the step's own, overlapping the shards'.
hpid=
host_tests_start() {
	[ -z "$hpid" ] && [ -x "$S/host-test.sh" ] || return 0
	(step host-test "$S/host-test.sh" --all --tap "$host_out" || true
	 echo "${took[host-test]} ${busy[host-test]}" >"$OUT/took-host-test") &
	hpid=$!
	reports+=("host=$host_out")
}
host_tests_wait() {
	[ -n "$hpid" ] || return 0
	wait "$hpid" || true
	read -r "took[host-test]" "busy[host-test]" <"$OUT/took-host-test" || true
	rm -f "$OUT/took-host-test"
}
# CI (CI=true, which .ci/run sets) must finish in 90 minutes on a fresh
# 2-core machine.  There, before each configuration after the first,
# estimate what it still needs (a fresh debug build pair is the long
# pole) and skip it, reported as skipped with the reason, if it would not
# fit.  A user's run has no such limit: every configuration runs.
: "${NSTREE_TIME_BUDGET_MIN:=85}"
first=1
for fl in "${flavours[@]}"; do
	if [ "${CI:-}" = true ] && [ $first = 0 ]; then
		need=35
		[ -f "$(variant_build c "$fl")/vmlinux" ] || need=60
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
	# Both kernels first, then their guests: the torture suite, alone, on
	# each kernel in turn (it wants every CPU; below); then the other
	# tests, split into $NSTREE_SHARDS shards (qemu/run-tests.sh,
	# scripts/shard-plan.py), the shards of the C and of the Rust kernel
	# as separate guests, several at a time.  Each guest is an isolated
	# kernel, so the tests that count namespaces against a baseline stay
	# isolated.  Both kernels run the same difftest seeds (the flavour's
	# count, run.sh).
	built=()
	for v in c rust; do
		name=$v
		[ "$fl" = base ] || name="$v-$fl"
		rm -f "$OUT/console-$name-test".*log "$OUT/console-$name-test.log"
		if step "build $name" "$S/build-kernel.sh" "$v" "$fl"; then
			built+=("$name")
		else
			log "build of $name failed: its tests count as failed"
		fi
	done
	shards=()
	for k in $(seq 1 "$NSTREE_SHARDS"); do shards+=("$k/$NSTREE_SHARDS"); done
	# The debug kernels' fault-injection sweep (selftests/faultinject)
	# runs first in their shard 1, which boots with slub_debug=F (the
	# debug plan pins it there: qemu/mkinitramfs.sh, qemu/run.sh).
	# How many guests at once: the base kernels' tests leave the host's
	# cores idle half of the time (sleeps, waits), so all their shards run
	# together; a debug kernel's (one vCPU, qemu/run.sh) keeps a core busy,
	# so two at a time (a shard starts when another ends, C and Rust
	# interleaved).
	if [ "$fl" = base ]; then guests=${NSTREE_GUESTS_BASE:-4}; else guests=${NSTREE_GUESTS_DEBUG:-2}; fi
	# The accelerator is probed (and cached in $OUT/accel.env) once, here:
	# guests started together would all probe at once on a fresh $OUT, and
	# a probe that times out under that load would cache tcg-smp1.
	[ ${#built[@]} = 0 ] || "$Q/probe.sh" "$OUT/bzImage-${built[0]}" || true
	# Every guest of the flavour, torture and shards: its wall time and
	# how much of the host's cores it kept busy.
	g0=$(date +%s)
	cpu_begin "qemu $fl all guests"
	# The torture guests, one at a time, then the shards.  A guest's end
	# (a debug kernel's two kmemleak scans and the pause between them,
	# about 25 s on one vCPU) overlaps the next guest's boot: the next
	# torture guest starts when the previous one has ended its tests and
	# its first scan (from then on about 15 s are left, and a debug
	# kernel boots in 15-20 s: its torture does not share the CPUs); the
	# shards start when the last one has ended its tests.
	tpid=
	for name in "${built[@]}"; do
		[ -z "$tpid" ] || guest_reached "$name_prev" "$tpid" \
			'^(NSTREE-TESTS-DONE kmemleak=n|NSTREE-KMEMLEAK-FIRST-SCAN-DONE)'
		(NSTREE_SHARD=torture step "qemu $name torture" "$Q/run.sh" "$name" test
		 echo "${took["qemu $name torture"]}" >"$OUT/took-torture-$name") &
		tpid=$! name_prev=$name
	done
	[ -z "$tpid" ] || guest_reached "$name_prev" "$tpid" '^NSTREE-TESTS-DONE'
	host_tests_start
	s0=$(date +%s)
	# At most $guests guests: before starting one, wait until one of
	# those running has ended (by pid: `wait -n` alone returned at once
	# for a job that had long been waited for, starting a third debug
	# guest in one run).
	pids=()
	for sh in "${shards[@]}"; do
		for name in "${built[@]}"; do
			while [ ${#pids[@]} -ge "$guests" ]; do
				live=()
				for p in "${pids[@]}"; do
					if kill -0 "$p" 2>/dev/null; then live+=("$p"); else wait "$p" || true; fi
				done
				pids=("${live[@]}")
				[ ${#pids[@]} -lt "$guests" ] || sleep 1
			done
			NSTREE_SHARD=$sh NSTREE_PLAN=$fl "$Q/run.sh" "$name" test &
			pids+=($!)
		done
	done
	for p in "${pids[@]}"; do wait "$p" || true; done
	took["qemu $fl shards"]=$(($(date +%s) - s0))
	wait
	took["qemu $fl all guests"]=$(($(date +%s) - g0))
	cpu_end "qemu $fl all guests"
	for name in "${built[@]}"; do
		took["qemu $name torture"]=$(cat "$OUT/took-torture-$name" 2>/dev/null || echo '?')
		rm -f "$OUT/took-torture-$name"
	done
	# make shell's boot path, driven by a scripted session (base kernels).
	if [ "$fl" = base ]; then
		for v in c rust; do
			[ -f "$OUT/bzImage-$v" ] || continue
			step "shell $v" "$S/shell.sh" "$v" base --script "$REPO/qemu/shell-session.txt" \
				--tap "$OUT/shell-$v.tap" >"$LOGS/shell-$v.log" 2>&1 || true
			reports+=("shell-$v=$OUT/shell-$v.tap")
		done
	fi
	for v in c rust; do
		name=$v
		[ "$fl" = base ] || name="$v-$fl"
		logs=()
		for sh in "${shards[@]}" torture; do
			logs+=("$OUT/console-$name-test.shard-${sh//\//of}.log")
		done
		# One log per kernel too, for the trace comparisons.
		cat "${logs[@]}" >"$OUT/console-$name-test.log" 2>/dev/null || true
		reports+=("$name=$(IFS=,; echo "${logs[*]}")")
	done
	# The differential tester's traces, C against Rust, seed by seed.
	c=c rs=rust
	[ "$fl" = base ] || { c="c-$fl"; rs="rust-$fl"; }
	python3 "$S/difftest-compare.py" "$OUT/console-$c-test.log" "$OUT/console-$rs-test.log" \
		>"$OUT/difftest-$fl.tap" 2>&1
	reports+=("difftest-$fl=$OUT/difftest-$fl.tap")
	# The fault-injection sweeps (debug kernels: fail-nth), C against
	# Rust, operation by operation and step by step.
	if [ "$fl" = debug ]; then
		python3 "$S/faultinject-compare.py" "$OUT/console-$c-test.log" "$OUT/console-$rs-test.log" \
			>"$OUT/faultinject-$fl.tap" 2>&1
		reports+=("faultinject-$fl=$OUT/faultinject-$fl.tap")
	fi
done
host_tests_start
host_tests_wait

echo
echo "=== nstree-rs test results: C vs Rust ($(cat "$PRISTINE/.nstree-rs-version")) ==="
python3 "$S/report.py" --out "$OUT" "${reports[@]}" | tee "$OUT/report.txt"
rc=${PIPESTATUS[0]}

echo
echo "=== wall times ==="
# Host CPU: the core-seconds the whole machine was busy during the step
# (whatever ran, not only the step), and that as a share of its cores.
ncpu=$(nproc)
printf '%-26s %7s %9s %5s\n' step wall host-cpu busy
for k in "${!took[@]}"; do
	b=${busy[$k]:-}
	if [ -n "$b" ] && [ "${took[$k]}" -gt 0 ] 2>/dev/null; then
		printf '%-26s %6ss %8ss %4s%%\n' "$k" "${took[$k]}" "$b" $((100 * b / (ncpu * took[$k])))
	else
		printf '%-26s %6ss %9s %5s\n' "$k" "${took[$k]}" - -
	fi
done | sort
cpu_end total
wall=$(($(date +%s) - t0))
printf '%-26s %6ss %8ss %4s%%\n' total "$wall" "${busy[total]}" \
	$((100 * busy[total] / (ncpu * (wall > 0 ? wall : 1))))
echo "accelerator: $(. "$OUT/accel.env" 2>/dev/null && echo "$ACCEL_NAME")"
# The run's record, from which scripts/results.py (make results) writes
# docs/results.md: what ran, on what, how long each step took.
{
	echo "commit $(git -C "$REPO" rev-parse HEAD 2>/dev/null || echo unknown)"
	[ -z "$(git -C "$REPO" status --porcelain -- rust c-glue selftests qemu scripts configs peers 2>/dev/null)" ] ||
		echo "dirty yes"
	echo "date $(date -u +%Y-%m-%dT%H:%MZ)"
	echo "flavours ${flavours[*]}"
	# The series it tested, by the patch-ids check-series prints.
	echo "series $(for p in "$REPO"/patches/00*.patch; do git patch-id --stable <"$p"; done |
		awk '{ print substr($1, 1, 12) }' | tr '\n' ' ')"
	echo "kernel $(cat "$PRISTINE/.nstree-rs-version")"
	echo "machine $(nproc) cores, $(awk '/MemTotal/ { printf "%d GiB", $2 / 1048576 + 0.5 }' /proc/meminfo), $(. /etc/os-release && echo "$PRETTY_NAME")"
	echo "accelerator $(. "$OUT/accel.env" 2>/dev/null && echo "$ACCEL_NAME")"
	echo "toolchain $("$RUSTC" --version | cut -d' ' -f1-2), clang $(clang$LLVM_SUFFIX --version | sed -n 's/.*version \([0-9.]*\).*/\1/p;q'), $(qemu-system-x86_64 --version | head -1 | cut -d' ' -f1,4)"
	for k in "${!took[@]}"; do echo "step $k ${took[$k]} ${busy[$k]:--}"; done | sort
	echo "step total $wall ${busy[total]}"
	echo "summary $(tail -1 "$OUT/report.txt")"
} >"$OUT/run-record.txt"
# The summary line comes last.
tail -1 "$OUT/report.txt"
exit $rc
