#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# demo.sh: build the Rust kernel, boot it with a small container-like
# scene (nested user namespaces, a net namespace held only by an fd, a
# uts namespace held by a bind mount) and show what tools/nstree, built
# on listns(), sees of it.
set -euo pipefail
. "$(dirname "$0")/env.sh"
REPO=$(cd "$(dirname "$0")/.." && pwd)

"$REPO/scripts/build-selftests.sh"
"$REPO/qemu/mkinitramfs.sh"
"$REPO/scripts/build-kernel.sh" rust base
"$REPO/qemu/run.sh" rust demo >/dev/null
logf="$OUT/console-rust-demo.log"
echo
echo "=== nstree-rs demo: $(grep -o 'nstree_rs: Rust nstree in use.*' "$logf" | head -1) ==="
sed -n '/^NSTREE-DEMO/,$p' "$logf" | grep -v '^\[ *[0-9.]*\]' | grep -v '^NSTREE-DONE' |
	sed -e 's/^NSTREE-DEMO-BEGIN /\n$ /' -e '/^NSTREE-DEMO-END/d' -e 's/^NSTREE-DEMO //'
grep -qE 'WARNING:|BUG:|Oops' "$logf" && die "the kernel log has a WARNING/BUG/Oops: see $logf"
grep -q '^NSTREE-DEMO-END nstree ' "$logf" || die "the demo did not complete: see $logf"
echo
log "demo done; full console log: $logf"
