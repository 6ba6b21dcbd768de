#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# probe.sh BZIMAGE: find an accelerator that boots our kernel on this
# machine and prints "NSTREE-PROBE-OK".  Nested-virt hosts are known to
# abort with -cpu host, or to boot silently with KVM; TCG with several
# vCPUs has hit text-patching Oopses.  Candidates are tried in order and
# the first that works is written to $OUT/accel.env (ACCEL_NAME, QEMU_ACCEL).
#
# KVM is not tried where /dev/kvm is PVM (the kvm_pvm module): a normal
# guest kernel's kernel-mode code is emulated there, about 600x slower than
# TCG, and each probe would only burn its timeout.
#
# TCG guests get "-cpu max,la57=off": 4-level paging.  With LA57 (5-level
# paging, which -cpu max offers), KASAN kernels report a false
# "wild-memory-access" when an interrupt arrives while identify_boot_cpu()
# has cleared boot_cpu_data's capabilities: pgtable_l5_enabled() is
# cpu_feature_enabled(X86_FEATURE_LA57), which reads the cleared word
# before alternatives are patched, so KASAN briefly takes the 5-level
# direct map (0xff11...) for addresses without shadow (docs/results.md).
set -euo pipefail
. "$(dirname "$0")/../scripts/env.sh"

image=${1:?usage: probe.sh BZIMAGE}
kvm=n
if [ -w /dev/kvm ] && [ ! -d /sys/module/kvm_pvm ]; then
	kvm=y
fi
# Bump the probe version when the candidates change: a cached result of
# other candidates must not be reused.
key="probe=2 $(qemu-system-x86_64 --version | head -1) kvm=$kvm"
if [ -f "$OUT/accel.env" ] && grep -qxF "# $key" "$OUT/accel.env"; then
	. "$OUT/accel.env"
	log "accelerator (cached): $ACCEL_NAME"
	exit 0
fi

candidates=()
if [ $kvm = y ]; then
	candidates+=("kvm-host|-accel kvm -cpu host -smp 2"
		     "kvm-max|-accel kvm -cpu max -smp 2"
		     "kvm|-accel kvm -smp 2")
fi
# Multi-threaded TCG with 2 vCPUs hit text-patching Oopses on QEMU 7.2;
# QEMU >= 8 (bookworm-backports) runs it cleanly.  4 vCPUs, more than the
# host's 2 cores: what matters for races is interleavings, and idle vCPUs
# halt (the torture test needs readers and writers on distinct CPUs).
qemu_major=$(qemu-system-x86_64 --version | sed -n 's/^QEMU emulator version \([0-9]*\).*/\1/p')
if [ "${qemu_major:-0}" -ge 8 ] && [ "$(nproc)" -ge 2 ]; then
	candidates+=("tcg-smp4|-accel tcg,thread=multi -cpu max,la57=off -smp 4")
fi
candidates+=("tcg-smp1|-accel tcg -cpu max,la57=off -smp 1")

for c in "${candidates[@]}"; do
	name=${c%%|*} args=${c#*|}
	log "probing accelerator $name"
	# shellcheck disable=SC2086
	if timeout -s KILL 90 qemu-system-x86_64 $args -m 512M -display none -monitor none \
		-serial stdio -no-reboot -kernel "$image" -initrd "$OUT/initramfs.cpio.gz" \
		-append "console=ttyS0 panic=-1 no_timer_check nstree.mode=probe" </dev/null \
		>"$LOGS/probe-$name.log" 2>&1 &&
		grep -q NSTREE-PROBE-OK "$LOGS/probe-$name.log"; then
		printf '# %s\nACCEL_NAME=%q\nQEMU_ACCEL=%q\n' "$key" "$name" "$args" >"$OUT/accel.env"
		log "accelerator: $name ($args)"
		exit 0
	fi
	log "  $name does not work here (see $LOGS/probe-$name.log)"
done
die "no accelerator boots the kernel"
