#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# same-text.sh COMMIT [COMMIT...]: whether the Rust benchmark kernel built
# from each COMMIT has the same machine code as the one built from HEAD:
# builds it from a worktree of the commit (scripts/bench-kernels.sh rust,
# the crate and glue files of that commit) and prints the md5 of its
# vmlinux .text section (the build's time stamp is in data, not text),
# then the same for HEAD.  The figures of `make bench` at a commit hold for
# HEAD when its text is the same.  Leaves $OUT/bzImage-bench-rust built
# from HEAD.
set -eu
REPO=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${NSTREE_CACHE:-$HOME/.cache/nstree-rs}
vmlinux=$CACHE/bench/rust/.build/vmlinux
text() {
	t=$(mktemp)
	llvm-objcopy-22 -O binary --only-section=.text "$vmlinux" "$t"
	md5sum <"$t" | cut -d' ' -f1
	rm -f "$t"
}
for c in "$@" HEAD; do
	if [ "$c" = HEAD ]; then
		"$REPO/scripts/bench-kernels.sh" rust >/dev/null
	else
		wt=$(mktemp -d)
		git -C "$REPO" worktree add -q --detach "$wt" "$c"
		"$wt/scripts/bench-kernels.sh" rust >/dev/null
		git -C "$REPO" worktree remove --force "$wt"
	fi
	echo "$(git -C "$REPO" rev-parse --short "$c") .text md5 $(text)"
done
