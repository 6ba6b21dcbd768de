#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the upstream tools/testing/selftests/namespaces suite (and our own
# selftests/) as static binaries for the initramfs; both kernels run the
# same binaries.  The upstream suite is built from the Rust tree, i.e.
# with the series' selftest fix (patch 0003: a race that made eight
# ns_active_ref_test cases skip at random); the uapi headers come from the
# pristine tree: the series does not change the uapi.
set -euo pipefail
. "$(dirname "$0")/env.sh"
REPO=$(cd "$(dirname "$0")/.." && pwd)

hdr="$OUT/headers"
if [ ! -f "$hdr/include/linux/nsfs.h" ]; then
	log "installing uapi headers into $hdr"
	make -s -C "$PRISTINE" O="$OUT/headers-build" headers_install \
		INSTALL_HDR_PATH="$hdr" >"$LOGS/headers.log" 2>&1
fi

ns_out="$OUT/selftests/kselftest/namespaces"
[ -d "$RUST_TREE/tools/testing/selftests" ] || die "no $RUST_TREE (make rust-tree)"
# Every kselftest is built from the overlay with peers/selftest-fixes/
# applied: among them the harness's timeouts scaled for TCG and debug
# kernels (0000-*).
ksrc=$("$REPO/scripts/selftests-src.sh")
log "building upstream namespaces selftests"
make -s -C "$ksrc/tools/testing/selftests" TARGETS=namespaces O="$OUT/selftests" \
	KHDR_INCLUDES="-isystem $hdr/include" LDFLAGS=-static \
	>"$LOGS/selftests-build.log" 2>&1 ||
	{ tail -30 "$LOGS/selftests-build.log"; die "selftests build failed"; }
n=$(find "$ns_out" -maxdepth 1 -type f -executable | wc -l)
[ "$n" -ge 12 ] || die "expected 12 namespaces selftests, built $n"
log "built $n upstream namespaces selftests into $ns_out"

# Guest tools (tools/*/, bench/): each directory with a Makefile builds
# static binaries into O=$OUT/guest-bin, installed as /usr/bin in the guest.
mkdir -p "$OUT/guest-bin"
for d in "$REPO"/tools/*/ "$REPO"/bench/; do
	[ -f "$d/Makefile" ] || continue
	log "building guest tool $(basename "$d")"
	make -s -C "$d" O="$OUT/guest-bin" KHDR_INCLUDES="-isystem $hdr/include" \
		>"$LOGS/tool-$(basename "$d").log" 2>&1 ||
		{ tail -30 "$LOGS/tool-$(basename "$d").log"; die "building $d failed"; }
done

if [ -f "$REPO/selftests/Makefile" ]; then
	log "building nstree-rs selftests"
	make -s -C "$REPO/selftests" O="$OUT/selftests/nstree-rs" \
		KSFT="$ksrc/tools/testing/selftests" \
		KHDR_INCLUDES="-isystem $hdr/include" >"$LOGS/own-selftests-build.log" 2>&1 ||
		{ tail -30 "$LOGS/own-selftests-build.log"; die "nstree-rs selftests build failed"; }
fi

# nstorture, the concurrency torture test: a suite of its own (/tests/torture).
if [ -f "$REPO/selftests/torture/Makefile" ]; then
	log "building nstorture"
	make -s -C "$REPO/selftests/torture" O="$OUT/selftests/torture" \
		KHDR_INCLUDES="-isystem $hdr/include" >"$LOGS/torture-build.log" 2>&1 ||
		{ tail -30 "$LOGS/torture-build.log"; die "nstorture build failed"; }
fi

# The kernel's other namespace-touching selftests and real user space.
"$REPO/scripts/build-peers.sh"

# Every binary built with the kselftest harness must carry the overlay's
# patched harness (its timeouts scaled, "NSTREE-TIMEOUT" printed): one
# built against the tree's own header would die at 30 s on a debug kernel.
unpatched=$(find "$ns_out" "$OUT/selftests/nstree-rs" "$OUT/peers-root/tests" \
	-type f -perm -u+x 2>/dev/null | while read -r f; do
	grep -qaF 'Test terminated by timeout' "$f" || continue
	grep -qaF 'NSTREE-TIMEOUT' "$f" || echo "${f#"$OUT"/}"
done)
[ -z "$unpatched" ] ||
	die "built without the patched kselftest harness (scripts/selftests-src.sh):" $unpatched
log "every kselftest harness binary has the scaled timeouts (NSTREE-TIMEOUT)"
