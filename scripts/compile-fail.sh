#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# compile-fail.sh [TREE BUILD]: the compile-fail proofs of the rust/kernel abstractions
# (c-glue/rust/kernel/compile-fail/*.rs) against the real kernel crate of a Rust kernel build
# (default: the base Rust kernel, make kernel VARIANT=rust).  Each file's first line names the
# error it must fail with ("// E0505: why"); each is compiled as a crate of its own with the
# flags the kernel gives kernel/nstree_rs/, and passes only if rustc rejects it with that error
# and no other.
# Prints one line per proof and "N passed, N failed"; exits 1 if any failed.
set -uo pipefail
. "$(dirname "$0")/env.sh"
REPO=$(cd "$(dirname "$0")/.." && pwd)
tree=${1:-$RUST_TREE}
build=${2:-$(variant_build rust base)}
cmd="$build/kernel/nstree_rs/.nstree_rs.o.cmd"
[ -f "$cmd" ] || die "no $cmd: build the Rust kernel first (make kernel VARIANT=rust)"
# The rustc command line of the crate, up to its source file: its flags, without its outputs.
flags=$(sed -n 's/^savedcmd_[^ ]* := //p' "$cmd" | sed 's/ ;.*//' |
	sed -e 's/ --out-dir [^ ]*//' -e 's/ --emit=[^ ]*//g' -e 's/ [^ ]*nstree_rs\.rs$//' \
	    -e 's/^OBJTREE=[^ ]* RUST_MODFILE=[^ ]* //')
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
pass=0 failn=0
for f in "$REPO"/c-glue/rust/kernel/compile-fail/*.rs; do
	name=$(basename "$f" .rs)
	want=$(head -1 "$f" | sed -n 's|^// \(E[0-9]*\):.*|\1|p')
	got=$(cd "$build" && RUSTC_BOOTSTRAP=1 OBJTREE=$build RUST_MODFILE=$name eval "$flags" \
		--crate-name "${name//-/_}" --emit=metadata --out-dir "$out" "$f" 2>&1)
	rc=$?
	codes=$(grep -oE '^error\[E[0-9]+\]' <<<"$got" | grep -oE 'E[0-9]+' | sort -u | tr '\n' ' ')
	# Rejected with that error and no other, so that the proof fails for the reason it states.
	if [ $rc != 0 ] && [ -n "$want" ] && [ "$codes" = "$want " ] &&
		[ -z "$(grep -E '^error(: |$)' <<<"$got" | grep -v '^error: aborting')" ]; then
		pass=$((pass + 1))
		printf 'ok   %-40s %s\n' "$name" "$want"
	else
		failn=$((failn + 1))
		printf 'FAIL %-40s want %s, got: %s\n' "$name" "${want:-?}" "${codes:-$([ $rc = 0 ] && echo compiled || echo "no error code")}"
		grep -E '^error' <<<"$got" | head -3 | sed 's/^/     /'
	fi
done
echo "$pass passed, $failn failed"
[ $failn = 0 ]
