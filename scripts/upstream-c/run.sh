#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run.sh LINUX_TREE OUTDIR: build and run the user-space checks of
# upstream C behaviour that the Rust crate deliberately does not copy
# (docs/walkthrough.md, "Deliberate differences"), with the functions
# cut out of LINUX_TREE.  Prints TAP.
set -euo pipefail
linux=${1:?usage: run.sh LINUX_TREE OUTDIR}
out=${2:?usage: run.sh LINUX_TREE OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
# ns_tree_node_add(), from its first line to the closing brace in column 0.
awk '/^struct rb_node \*ns_tree_node_add\(/ { on = 1 } on { print } on && /^}/ { exit }' \
	"$linux/kernel/nstree.c" >"$out/ns_tree_node_add.inc"
grep -q 'rb_find_add_rcu' "$out/ns_tree_node_add.inc" ||
	{ echo "Bail out! ns_tree_node_add() not found in $linux/kernel/nstree.c"; exit 1; }
gcc -O1 -Wall -I"$linux/tools/include" -I"$out" -o "$out/ns_tree_node_add_dup" \
	"$here/ns_tree_node_add_dup.c" "$linux/tools/lib/rbtree.c"
"$out/ns_tree_node_add_dup"
