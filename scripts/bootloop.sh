#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bootloop.sh NAME COUNT [QEMU CPU/ACCEL ARGS...]: boot $OUT/bzImage-NAME
# COUNT times to the end of its init (nstree.mode=probe) and count the
# boots whose kernel log has a report that the test runner would fail on
# (scripts/report.py's pattern).  Used to measure rare early-boot reports:
#
#   scripts/bootloop.sh c-debug 40                       # the runner's settings
#   scripts/bootloop.sh c-debug 40 -accel tcg,thread=multi -cpu max -smp 2
#
# Without ARGS the accelerator settings of $OUT/accel.env are used; memory
# is what qemu/run.sh gives the kernel (4G for debug kernels).  Logs go to
# $LOGS/bootloop-NAME-TAG/; prints one line per boot and a summary.
set -euo pipefail
. "$(dirname "$0")/env.sh"
REPO=$(cd "$(dirname "$0")/.." && pwd)

name=${1:?usage: bootloop.sh NAME COUNT [QEMU ARGS...]}
count=${2:?usage: bootloop.sh NAME COUNT [QEMU ARGS...]}
shift 2
image="$OUT/bzImage-$name"
[ -f "$image" ] || die "no kernel image $image"
[ -f "$OUT/initramfs.cpio.gz" ] || die "no initramfs (make initramfs)"
if [ $# -gt 0 ]; then
	args=("$@")
else
	"$REPO/qemu/probe.sh" "$image"
	. "$OUT/accel.env"
	read -r -a args <<<"$QEMU_ACCEL"
fi
mem=2G
case "$name" in *debug*) mem=4G ;; esac
tag=$(echo "${args[*]}" | tr -c 'a-zA-Z0-9=,.\n-' '_' | tr -s '_')
dir="$LOGS/bootloop-$name-$tag"
mkdir -p "$dir"
bad_re=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import report; print(report.BAD.pattern)' "$REPO/scripts")

log "booting $name $count times with: ${args[*]} -m $mem"
bad=0 ok=0 hung=0
for i in $(seq 1 "$count"); do
	f="$dir/boot-$i.log"
	s=$(date +%s)
	timeout -s KILL 300 qemu-system-x86_64 "${args[@]}" -m "$mem" -display none \
		-monitor none -serial stdio -no-reboot -kernel "$image" \
		-initrd "$OUT/initramfs.cpio.gz" \
		-append "console=ttyS0 panic=-1 nstree.mode=probe" </dev/null >"$f" 2>&1 || true
	t=$(($(date +%s) - s))
	if ! grep -q NSTREE-PROBE-OK "$f"; then
		hung=$((hung + 1))
		echo "boot $i: did not finish (${t}s)"
	elif grep -qE "$bad_re" "$f"; then
		bad=$((bad + 1))
		echo "boot $i: REPORT (${t}s): $(grep -m1 -E "$bad_re" "$f")"
	else
		ok=$((ok + 1))
		echo "boot $i: clean (${t}s)"
	fi
done
echo "BOOTLOOP $name [${args[*]} -m $mem]: $count boots, $ok clean, $bad with a report, $hung unfinished (logs: $dir)"
