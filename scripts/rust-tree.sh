#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Make $RUST_TREE: a git copy of the pristine tree (tag "base") with the
# series in patches/ applied by git am.  The series is applied in a
# separate worktree and then checked out here, so that only files the
# series changes get new mtimes and Kbuild rebuilds only what it must.
set -euo pipefail
. "$(dirname "$0")/env.sh"
REPO=$(cd "$(dirname "$0")/.." && pwd)
WORK="$NSTREE_CACHE/trees/work"

git_q() { git -c user.name=nstree-rs -c user.email=nstree-rs@localhost "$@"; }

if [ ! -d "$RUST_TREE/.git" ]; then
	log "copying the pristine tree to $RUST_TREE (mtimes preserved)"
	rm -rf "$RUST_TREE" "$WORK"
	mkdir -p "$RUST_TREE"
	rsync -a --exclude='/.build-*' --exclude='/.nstree-rs-version' --exclude='/.nstree-fixes.patch' \
		"$PRISTINE/" "$RUST_TREE/"
	# The base is the tree as Debian ships it: without the upstream fixes
	# the C kernel's build applied (apply_fixes: env.sh); the Rust tree
	# gets them from its own stack.
	if [ -s "$PRISTINE/.nstree-fixes.patch" ]; then
		patch -s -R -p1 --no-backup-if-mismatch -d "$RUST_TREE" <"$PRISTINE/.nstree-fixes.patch" ||
			die "could not revert the upstream fixes in the copy"
	fi
	log "committing the base tree (takes a minute)"
	git_q -C "$RUST_TREE" init -q -b base-branch
	printf '/.build-*\n' >>"$RUST_TREE/.git/info/exclude"
	git_q -C "$RUST_TREE" add -A -f
	git_q -C "$RUST_TREE" commit -q -m "base: $(cat "$PRISTINE/.nstree-rs-version")"
	git_q -C "$RUST_TREE" tag base
fi
if [ ! -d "$WORK" ]; then
	git_q -C "$RUST_TREE" worktree add -q --detach "$WORK" base
fi
[ "${1:-}" != --base-only ] || exit 0

mapfile -t patches < <(series_patches "$REPO")
[ -e "${patches[0]}" ] || die "no patches in $REPO/patches"
sum=$(cat "${patches[@]}" | sha256sum | cut -c1-16)
if [ "$(cat "$RUST_TREE/.git/nstree-series" 2>/dev/null)" = "$sum" ]; then
	log "rust tree up to date with patches/ ($(git -C "$RUST_TREE" log --oneline base..HEAD | wc -l) patches)"
	exit 0
fi
log "applying ${#patches[@]} patches with git am"
git_q -C "$WORK" checkout -q --detach base
git_q -C "$WORK" reset -q --hard base
if ! git_q -C "$WORK" am -q --whitespace=error-all "${patches[@]}"; then
	git_q -C "$WORK" am --abort || true
	die "the series does not apply to $(cat "$PRISTINE/.nstree-rs-version")"
fi
head=$(git -C "$WORK" rev-parse HEAD)
git_q -C "$WORK" checkout -q --detach base
git_q -C "$RUST_TREE" checkout -q --detach "$head"
echo "$sum" >"$RUST_TREE/.git/nstree-series"
git -C "$RUST_TREE" log --oneline base..HEAD | sed 's/^/  /' >&2
