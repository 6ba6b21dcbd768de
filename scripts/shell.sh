#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shell.sh VARIANT [FLAVOUR] [--script FILE [--tap FILE]]: boot $OUT/bzImage-VARIANT
# (-FLAVOUR) with the test initramfs to a shell on the serial console
# (nstree.mode=shell, qemu/guest-shell.sh): util-linux and iproute2 from
# Debian, tools/nstree, busybox, and every test binary under /tests.
#
# Interactive (make shell): QEMU on this terminal, `exit` or Ctrl-A X ends
# it.  With --script FILE: the same boot, driven through the same serial
# console by scripts/shell-session.py, which types FILE's commands one by
# one, checks each one's exit status and prints TAP (--tap FILE: also to
# FILE), for make test (see qemu/shell-session.txt).
#
# Builds what is missing (the kernel with `make kernel`, the initramfs
# with `make initramfs`); an existing image is used as it is, so rebuild
# with `make kernel` after changing the crate.  Under TCG (no usable KVM)
# a base kernel reaches the prompt in 15 to 45 seconds on two busy cores,
# a debug kernel in about 90.
#
#   NSTREE_OUT       where the images are (default $NSTREE_CACHE/out)
#   NSTREE_SHELL_MEM guest memory (default 2G, 4G for debug kernels)
set -euo pipefail
. "$(dirname "$0")/env.sh"
REPO=$(cd "$(dirname "$0")/.." && pwd)

variant=${1:?usage: shell.sh VARIANT [FLAVOUR] [--script FILE]}
flavour=base
script=
tap=
shift
while [ $# -gt 0 ]; do
	case "$1" in
	--script) script=${2:?--script needs a file}; shift 2 ;;
	--tap) tap=${2:?--tap needs a file}; shift 2 ;;
	base|debug) flavour=$1; shift ;;
	*) die "unknown argument '$1' (usage: shell.sh rust|c [base|debug] [--script FILE])" ;;
	esac
done
case "$variant" in rust|c) ;; *) die "VARIANT must be rust or c, not '$variant'" ;; esac
name=$variant
[ "$flavour" = base ] || name="$variant-$flavour"
image="$OUT/bzImage-$name"

if [ ! -f "$image" ]; then
	log "no $image: building it (make kernel VARIANT=$variant FLAVOUR=$flavour)"
	make -C "$REPO" --no-print-directory kernel VARIANT="$variant" FLAVOUR="$flavour"
fi
if [ ! -f "$OUT/initramfs.cpio.gz" ]; then
	log "no $OUT/initramfs.cpio.gz: building it (make initramfs)"
	make -C "$REPO" --no-print-directory initramfs
fi
# An initramfs from before `make shell` existed boots to busybox only.
if ! zcat "$OUT/initramfs.cpio.gz" | cpio -it --quiet 2>/dev/null | grep -x 'etc/nstree/guest-shell.sh' >/dev/null; then
	die "$OUT/initramfs.cpio.gz predates make shell: rebuild it with make initramfs"
fi
"$REPO/qemu/probe.sh" "$image"
. "$OUT/accel.env"

mem=2G
case "$flavour" in debug) mem=4G ;; esac
mem=${NSTREE_SHELL_MEM:-$mem}
# loglevel=5: warnings (a WARN_ON splat is KERN_WARNING) still reach the
# console, the boot chatter does not.  A scripted session keeps the whole
# boot log (its console log is what says where a boot stopped).
append="console=ttyS0 panic=-1 no_timer_check nstree.mode=shell"
[ -n "$script" ] || append="$append loglevel=5"
# shellcheck disable=SC2206
qemu=(qemu-system-x86_64 $QEMU_ACCEL -m "$mem" -nographic -no-reboot
      -kernel "$image" -initrd "$OUT/initramfs.cpio.gz" -append "$append")

if [ -n "$script" ]; then
	log "booting $name ($ACCEL_NAME) for a scripted session: $script"
	exec python3 "$REPO/scripts/shell-session.py" --name "$name" --script "$script" \
		--log "$OUT/console-$name-shell.log" ${tap:+--tap "$tap"} -- "${qemu[@]}"
fi
[ -t 0 ] || die "make shell needs a terminal (or use --script FILE)"
log "booting $name ($ACCEL_NAME, $(cat "$OUT/kernelrelease-$name" 2>/dev/null || echo '?')); exit or Ctrl-A X to quit"
exec "${qemu[@]}"
