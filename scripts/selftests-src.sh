#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# selftests-src.sh: print the source tree every kselftest is built from:
# an overlay of the Rust tree in which the files peers/selftest-fixes/
# patches are patched copies and everything else is a symlink into the
# tree (read only).  0000-* patches the kselftest harness itself (every
# test's timeout scaled for emulated and debug kernels, and printed), so
# the upstream namespaces suite, the peer suites and our own selftests
# are all built from the overlay.  Rebuilt when a fix or a file it patches
# changes.
set -euo pipefail
. "$(dirname "$0")/env.sh"
REPO=$(cd "$(dirname "$0")/.." && pwd)

src="$OUT/selftests/src"
fixes=("$REPO"/peers/selftest-fixes/*.patch)
[ -e "${fixes[0]}" ] || { echo "$RUST_TREE"; exit 0; }
files=$(sed -n 's|^+++ b/\([^[:space:]]*\).*$|\1|p' "${fixes[@]}" | sort -u)
# This script is part of the sum: a change in how the overlay is laid
# out rebuilds it (and the binaries built from the old one).
sum=$(cat "$0" "${fixes[@]}" $(for f in $files; do echo "$RUST_TREE/$f"; done) |
	sha256sum | cut -c1-16)
if [ "$(cat "$src/.nstree-fixes" 2>/dev/null)" != "$sum" ]; then
	log "applying ${#fixes[@]} selftest fixes (peers/selftest-fixes) in an overlay"
	# realdir REL: $src/REL becomes a directory of symlinks to the entries
	# of the tree's REL (once).
	realdir() {
		[ -d "$src/$1" ] && [ ! -L "$src/$1" ] && return 0
		rm -f "$src/$1"
		mkdir -p "$src/$1"
		for e in "$RUST_TREE/$1"/* "$RUST_TREE/$1"/.[!.]*; do
			[ -e "$e" ] && ln -s "$e" "$src/$1/"
		done
		return 0
	}
	rm -rf "$src"
	realdir .
	# tools/testing/selftests is mirrored whole, every directory a real
	# one: make -C DIR chdir()s, and through a symlinked DIR the tests'
	# "../kselftest_harness.h" and "../lib.mk" would resolve in the tree,
	# not in the overlay (pid_namespace's pid_max once ran with the
	# unpatched 30 s harness that way).  build-selftests.sh checks every
	# harness binary for the patched harness.
	realdir tools
	realdir tools/testing
	rm -f "$src/tools/testing/selftests"
	cp -as "$RUST_TREE/tools/testing/selftests" "$src/tools/testing/selftests"
	for f in $files; do
		cur=.
		for c in $(dirname "$f" | tr / ' '); do
			cur=${cur#./}${cur:+/}$c
			cur=${cur#/}
			realdir "$cur"
		done
		# The patched file itself: a copy, never the tree's file.
		rm -f "$src/$f"
		cp "$RUST_TREE/$f" "$src/$f"
	done
	for p in "${fixes[@]}"; do
		patch -s -p1 -d "$src" <"$p" >&2 || die "$(basename "$p") does not apply"
	done
	echo "$sum" >"$src/.nstree-fixes"
	# The kselftest makefiles do not track header dependencies: binaries
	# built against the previous overlay (an older harness) would stay.
	rm -rf "$OUT/selftests/kselftest" "$OUT/selftests/peers" "$OUT/selftests/nstree-rs" \
		"$OUT/selftests/torture"
fi
echo "$src"
