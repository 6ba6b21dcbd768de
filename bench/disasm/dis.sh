#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# dis.sh VARIANT SYMBOL [OUTDIR]: the disassembly of one function of a
# benchmark kernel ($NSTREE_CACHE/bench/VARIANT/.build/vmlinux, make bench)
# into OUTDIR/VARIANT.SYMBOL.s (default OUTDIR: .), for path.py.
set -eu
v=$1 s=$2 o=${3:-.}
vmlinux=${NSTREE_CACHE:-$HOME/.cache/nstree-rs}/bench/$v/.build/vmlinux
line=$(llvm-nm-22 -S "$vmlinux" | awk -v s="$s" '$4 == s { print $1, $2; exit }')
[ -n "$line" ] || { echo "no symbol $s in $vmlinux" >&2; exit 1; }
set -- $line
stop=$(python3 -c "print(hex(int('$1', 16) + int('$2', 16)))")
llvm-objdump-22 -d --no-show-raw-insn --symbolize-operands --start-address=0x"$1" \
	--stop-address="$stop" "$vmlinux" | sed 1,4d >"$o/$v.$s.s"
echo "$v $s: $(grep -cE '^ *ffffffff[0-9a-f]+:' "$o/$v.$s.s") instructions"
