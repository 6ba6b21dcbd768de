#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rustdoc.sh: HTML documentation of the crate, rendered by rustdoc from the
# host build (rust/host), whose library compiles the nstree crate's
# cascade.rs, req.rs, listns.rs and tree.rs unchanged, next to the host
# stand-in of ns.rs and the host models. The nstree crate's items are
# pub(crate): rendered with --document-private-items. No kernel tree or
# kernel build is needed. Prints the path of index.html.
set -uo pipefail

log() { printf '[nstree-rs %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { log "error: $*"; exit 1; }

REPO=$(cd "$(dirname "$0")/.." && pwd)
cache=${NSTREE_CACHE:-$HOME/.cache/nstree-rs}
mkdir -p "$cache" || die "cannot create $cache"
. "$(dirname "$0")/host-cargo.sh"
export CARGO_TARGET_DIR="$cache/host-target/$(printf %s "$REPO" | sha256sum | cut -c1-12)"

log "toolchain: $("$CARGO" --version) ($CARGO)"
(cd "$REPO/rust/host" && "$CARGO" rustdoc --locked --lib -- --document-private-items) ||
	die "cargo rustdoc failed"
index="$CARGO_TARGET_DIR/doc/nstree_rs/index.html"
[ -f "$index" ] || die "no $index"
log "crate documentation: $index"
echo "$index"
