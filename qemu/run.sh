#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run.sh NAME MODE [FILTER]: boot $OUT/bzImage-NAME with the initramfs in
# MODE (test|demo|bench), log the serial console to $OUT/console-NAME-MODE.log
# and show progress.  Exits non-zero on timeout or if the guest never
# printed NSTREE-DONE; the verdict on the contents is report.py's.
set -euo pipefail
. "$(dirname "$0")/../scripts/env.sh"

name=${1:?usage: run.sh NAME MODE [FILTER]}
mode=${2:-test}
filter=${3:-}
image="$OUT/bzImage-$name"
[ -f "$image" ] || die "no kernel image $image"
"$(dirname "$0")/probe.sh" "$image"
. "$OUT/accel.env"

# 2 GiB for every kernel, the debug ones too (KASAN's shadow takes an
# eighth): with 4 GiB a debug guest's boot and each of its two kmemleak
# scans took longer (a 5 s torture run: 73 s against 51 s in all).
mem=2G
# no_timer_check: the kernel's check that IRQ 0 ticks within a few
# jiffies of enabling the IO-APIC fails on a loaded TCG host ("IO-APIC +
# timer doesn't work!", a panic at boot); it is the usual option for VMs.
append="console=ttyS0 panic=-1 no_timer_check nstree.mode=$mode"
# Debug kernels: a differential-test seed count that both kernels finish
# well within ns_difftest's time budget of 540 s (~2.5 s per seed there,
# against ~0.2 s on base kernels, which run all 250), so that the budget
# is a safety net, not the normal stop: both kernels run the same seeds,
# and a seed one of them missed fails the comparison.  The caller may set the count (NSTREE_DIFFTEST_TO).
case "$name" in *debug*) : "${NSTREE_DIFFTEST_TO:=60}" "${NSTREE_DIFFTEST_LARGE:=3}" ;; esac
[ -z "${NSTREE_DIFFTEST_TO:-}" ] || append="$append nstree.difftest_to=$NSTREE_DIFFTEST_TO"
# And its seeds of hundreds of namespaces (ns_difftest.c: 8 unless set).
[ -z "${NSTREE_DIFFTEST_LARGE:-}" ] || append="$append nstree.difftest_large=$NSTREE_DIFFTEST_LARGE"
# nstorture's run time (make test: a fixed 60 s; make torture sets it),
# and anything else a caller wants on the command line.
append="$append nstree.torture_s=${NSTREE_TORTURE_S:-60} ${NSTREE_APPEND:-}"
: "${NSTREE_QEMU_TIMEOUT:=2400}"
# The boot watchdog: a guest whose kernel has not started /init within
# NSTREE_BOOT_TIMEOUT seconds is stopped there (a debug kernel starts it
# after 26-42 s, a base one after 9; a boot that hung would otherwise sit
# until NSTREE_QEMU_TIMEOUT).  Before it stops QEMU, it keeps the vCPUs'
# registers and states (the monitor's info cpus and info registers -a) in
# $OUT/boot-hang-NAME-MODE[.shard-K].txt.  The guest fails: it is never
# booted again here.
# A benchmark kernel runs its microbenchmark before /init (a late
# initcall, under -icount): no watchdog there, unless asked (0: none).
[ "$mode" != bench ] || : "${NSTREE_BOOT_TIMEOUT:=0}"
: "${NSTREE_BOOT_TIMEOUT:=300}"
# A shard of the tests (qemu/run-tests.sh): "K/N" or "torture", with a
# console log of its own; NSTREE_PLAN (base|debug) picks the flavour's
# shard plan.
sfx=
if [ -n "${NSTREE_SHARD:-}" ]; then
	append="$append nstree.shard=$NSTREE_SHARD${NSTREE_PLAN:+ nstree.plan=$NSTREE_PLAN}"
	sfx=".shard-${NSTREE_SHARD//\//of}"
	# The fault-injection sweep's guest (selftests/faultinject): alone
	# (faultinject), or the shard the plan puts it in (the debug plan,
	# qemu/mkinitramfs.sh), the plan the guest will read: every slab cache
	# with a debug flag, so that none has per-CPU sheaves or is merged,
	# and a fault's index depends only on the call.
	fi_shard=
	case $NSTREE_SHARD in
	faultinject) fi_shard=y ;;
	*/*)
		p="$OUT/initramfs-root/etc/nstree/shard-plan${NSTREE_PLAN:+-$NSTREE_PLAN}-${NSTREE_SHARD#*/}"
		# (not a base kernel's: no fail-nth, the sweep only skips)
		[ "${NSTREE_PLAN:-}" = base ] || [ ! -f "$p" ] ||
			! grep -qx "nstree-rs/faultinject ${NSTREE_SHARD%/*}" "$p" || fi_shard=y
		;;
	esac
	[ -z "$fi_shard" ] || append="$append slub_debug=F"
	# A test shard (not the torture guest, which wants more vCPUs than
	# the host has cores) runs on $NSTREE_SHARD_SMP vCPUs: 2 for a base
	# kernel, 1 for a debug one (under TCG: it replaces the probe's
	# "-smp 4"; a KVM probe's "-smp 2" stays).  Two or four guests share
	# the host's two cores, and with more vCPUs each the guests spent
	# their time in cross-CPU work (IPIs, TLB shootdowns to descheduled
	# vCPU threads).  Measured on the debug kernels, two guests at once,
	# stress_test and crun_test: 197 s with 4 vCPUs and 4 GiB, 183 s with
	# 2 vCPUs, 153 s with 2 vCPUs and 2 GiB (374 -> 286 host
	# core-seconds); eight binaries of the debug plan's shard 2 (C and
	# Rust debug at once, scripts/guest-smp-compare.sh): 365 s with 2
	# vCPUs, 302 s with 1 (671 -> 557 core-seconds), the same results.
	# The base shards keep 2, so that every test runs its threads in
	# parallel once (without the debug checks); the torture guests keep 4
	# on both flavours (docs/results.md, "Wall times").
	case $name in *debug*) : "${NSTREE_SHARD_SMP:=1}" ;; *) : "${NSTREE_SHARD_SMP:=2}" ;; esac
	case $NSTREE_SHARD in
	*/*) QEMU_ACCEL=${QEMU_ACCEL/-smp 4/-smp $NSTREE_SHARD_SMP} ;;
	esac
fi
logf="$OUT/console-$name-$mode$sfx.log"
hangf="$OUT/boot-hang-$name-$mode$sfx.txt"
mon="$OUT/monitor-$name-$mode$sfx.sock"
# A UNIX socket's path has at most 107 bytes: a long one goes to /tmp.
[ ${#mon} -lt 108 ] || mon="${TMPDIR:-/tmp}/nstree-monitor-$(printf %s "$mon" | sha256sum | cut -c1-16).sock"
pidf="$OUT/qemu-$name-$mode$sfx.pid"
rm -f "$hangf" "$mon" "$pidf"
[ -z "$filter" ] || append="$append nstree.filter=$filter"
# Binaries to leave out (an ERE on suite/name, qemu/run-tests.sh).
[ -z "${NSTREE_EXCLUDE:-}" ] || append="$append nstree.exclude=$NSTREE_EXCLUDE"
# The caller may set the memory (scripts/bench.sh: the 200k population).
mem=${NSTREE_QEMU_MEM:-$mem}
smp=$(echo "$QEMU_ACCEL" | sed -n 's/.*-smp \([0-9]*\).*/\1/p')
log "booting $name ($mode${NSTREE_SHARD:+, shard $NSTREE_SHARD}) with $ACCEL_NAME, ${smp:-1} vCPUs, $mem, console -> $logf"
start=$(date +%s)
# boot_watchdog: in the background, until /init runs or QEMU is gone.
boot_watchdog() {
	local t=0 pid
	while [ "$t" -lt "$NSTREE_BOOT_TIMEOUT" ]; do
		sleep 2
		t=$((t + 2))
		grep -q 'Run /init as init process' "$logf" 2>/dev/null && return 0
		pid=$(cat "$pidf" 2>/dev/null) || continue
		kill -0 "$pid" 2>/dev/null || return 0
	done
	{
		echo "boot hang: no \"Run /init\" within ${NSTREE_BOOT_TIMEOUT}s; the console's last lines:"
		tail -5 "$logf" 2>/dev/null
		python3 "$(dirname "$0")/monitor.py" "$mon" "info cpus" "info registers -a" 2>&1
	} >"$hangf"
	kill -KILL "$(cat "$pidf")" 2>/dev/null
}
wpid=
if [ "$NSTREE_BOOT_TIMEOUT" -gt 0 ]; then
	boot_watchdog &
	wpid=$!
fi
set +e
# shellcheck disable=SC2086
timeout -s KILL "$NSTREE_QEMU_TIMEOUT" qemu-system-x86_64 $QEMU_ACCEL -m $mem \
	-display none -monitor "unix:$mon,server,nowait" -pidfile "$pidf" -serial stdio -no-reboot \
	-kernel "$image" -initrd "$OUT/initramfs.cpio.gz" -append "$append" </dev/null 2>&1 |
	tee "$logf" | grep --line-buffered -E '^NSTREE-TEST-BEGIN|^NSTREE-DONE|^# (PASSED|FAILED|Totals)|WARNING:|BUG:|Oops' |
	sed -u "s/^/  [$name$sfx] /"
rc=${PIPESTATUS[0]}
set -e
if [ -n "$wpid" ]; then
	kill "$wpid" 2>/dev/null || true
	wait "$wpid" 2>/dev/null || true
fi
rm -f "$mon" "$pidf"
secs=$(($(date +%s) - start))
echo "$secs" >"$OUT/walltime-$name-$mode$sfx"
if [ -s "$hangf" ]; then
	log "$name ($mode${NSTREE_SHARD:+, shard $NSTREE_SHARD}): the boot hung, stopped after ${NSTREE_BOOT_TIMEOUT}s: $hangf"
	head -7 "$hangf" >&2
	exit 1
fi
if ! grep -q '^NSTREE-DONE' "$logf"; then
	log "$name ($mode): guest did not finish (qemu rc=$rc after ${secs}s)"
	exit 1
fi
log "$name ($mode): finished in ${secs}s"
