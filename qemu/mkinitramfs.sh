#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build $OUT/initramfs.cpio.gz: busybox-static, our init and job scripts,
# and every static test binary under /tests/<suite>/.  One image serves
# both kernels, so C and Rust run byte-identical user space.
set -euo pipefail
. "$(dirname "$0")/../scripts/env.sh"
REPO=$(cd "$(dirname "$0")/.." && pwd)

root="$OUT/initramfs-root"
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,etc/nstree,proc,sys,dev,tmp,run,root,tests/namespaces,tests/nstree-rs,usr/bin}
cp /bin/busybox "$root/bin/busybox"
cp "$REPO/qemu/init" "$root/init"
for s in "$REPO"/qemu/*.sh; do
	case "$(basename "$s")" in mkinitramfs.sh|run.sh|probe.sh) continue ;; esac
	cp "$s" "$root/etc/nstree/"
done
cp "$OUT"/selftests/kselftest/namespaces/* "$root/tests/namespaces/"
if [ -d "$OUT/selftests/nstree-rs" ]; then
	find "$OUT/selftests/nstree-rs" -maxdepth 1 -type f -executable \
		-exec cp {} "$root/tests/nstree-rs/" \;
fi
if [ -d "$OUT/selftests/torture" ]; then
	mkdir -p "$root/tests/torture"
	find "$OUT/selftests/torture" -maxdepth 1 -type f -executable \
		-exec cp {} "$root/tests/torture/" \;
fi
mkdir -p "$root/tests/tools"
for extra in "$OUT"/guest-bin/*; do
	[ -f "$extra" ] || continue
	cp "$extra" "$root/usr/bin/"
	# Tools' own tests (NAME_test) run with the selftests, in /tests/tools/.
	case "$extra" in *_test) ln -s "/usr/bin/$(basename "$extra")" "$root/tests/tools/" ;; esac
done
# The peer suites and Debian user space (scripts/build-peers.sh).
[ ! -d "$OUT/peers-root" ] || cp -a "$OUT/peers-root/." "$root/"
cat >"$root/etc/passwd" <<PW
root:x:0:0:root:/root:/bin/sh
user:x:1000:1000:user:/tmp:/bin/sh
nobody:x:65534:65534:nobody:/:/bin/false
PW
cat >"$root/etc/group" <<GR
root:x:0:
user:x:1000:
nogroup:x:65534:
GR
# Shard plans (qemu/run-tests.sh, NSTREE_SHARD=K/N): the binaries split by
# the run times earlier runs recorded in their console logs, else by the
# committed weights of a run (qemu/shard-weights-*.txt).  One plan for
# the base and one for the debug kernels (NSTREE_PLAN=base|debug): a
# test's share of the time differs between them (ns_difftest is 43% of
# a base shard's time, 26% of a debug one's); shard-plan-N, from every
# log, is for a guest that names no flavour.
python3 "$REPO/scripts/shard-plan.py" --tests-root "$root/tests" --shards 2,3,4 \
	--out "$root/etc/nstree" --weights "$REPO/qemu/shard-weights-debug.txt" "$OUT"/console-*-test*.log
# The debug plan puts the fault-injection sweep first in shard 1 (a guest
# booted with slub_debug=F, qemu/run.sh; qemu/run-tests.sh runs it before
# the others): a guest, a boot and a kmemleak scan fewer per kernel than
# a guest of its own, and the shards balanced around it.
for fl in base debug; do
	pin=()
	case $fl in
	base) logs=("$OUT"/console-c-test*.log "$OUT"/console-rust-test*.log) ;;
	debug) logs=("$OUT"/console-*-debug-test*.log) pin=(--pin nstree-rs/faultinject=1) ;;
	esac
	python3 "$REPO/scripts/shard-plan.py" --tests-root "$root/tests" --shards 2,3,4 \
		--out "$root/etc/nstree" --name "shard-plan-$fl" "${pin[@]}" \
		--weights "$REPO/qemu/shard-weights-$fl.txt" "${logs[@]}"
	log "shard plan ($fl): $(head -1 "$root/etc/nstree/shard-plan-$fl-2" | sed 's/^# //')"
done
mknod -m 600 "$root/dev/console" c 5 1
mknod -m 666 "$root/dev/null" c 1 3
chmod +x "$root"/init "$root"/etc/nstree/*.sh
(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 >"$OUT/initramfs.cpio.gz"
log "initramfs: $(du -h "$OUT/initramfs.cpio.gz" | cut -f1), $(find "$root/tests" -type f | wc -l) test binaries"
