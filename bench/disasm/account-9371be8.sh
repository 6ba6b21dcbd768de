#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# account-9371be8.sh [WORKDIR]: re-derive the counts of the static account
# "Round 3, at 9371be8" in docs/bench-disasm.md from the benchmark kernels
# that `make bench` builds at commit 9371be8 ($NSTREE_CACHE/bench/{c-opt,rust}).
# C-opt is the same binary as at 35c3e22 (same vmlinux md5), so its
# decision lists are those of account-35c3e22.sh. The Rust lists name
# branch addresses of the 9371be8 build: another commit (or toolchain)
# moves them, and path.py then stops at an unknown address.
set -e
D=$(cd "$(dirname "$0")" && pwd)
W=${1:-/tmp/nstree-disasm-9371be8}
mkdir -p "$W"
cd "$W"
cp "$D/path.py" .
WALK=_RINvNtCsbI6LEvAh49d_9nstree_rs6listns4walkNtNtNtB4_3ffi4tree7UnifiedEB4_
for s in __x64_sys_listns nstree_rs_listns __ns_tree_remove $WALK; do "$D/dis.sh" rust $s "$W" >/dev/null; done
mv "rust.$WALK.s" rust.walk_Unified.s
for s in __x64_sys_listns __ns_tree_remove may_see_all_namespaces; do "$D/dis.sh" c-opt $s "$W" >/dev/null; done
P="python3 path.py"
n() { $P "$@" | awk 'NR==1 { print $2 }'; }
CPRE="79483=N,79494=N,794ba=N,794c3=N,794d8=N,794e6=N,794f4=N,7951d=T,79552=N,7955e=N,7956f=T,79594=T,795e6=T"
# nstree_rs_listns up to the choice of the unified walk (nr_ns_ids, flags,
# size 32, spare, ns_type 0, user_ns_id 0), then "nothing to list" (80042).
RLIST="fd87=N,fd94=N,fdab=T,fdca=N,fddd=N,fde2=N,fdf1=T,fe0b=N,fe14=N,fe41=T,fe84=T,fea9=N,feb0=N,feb5=T,ff16=N,ff1b=N,ff28=T"
# The walk after its first candidate is listed: the batch has room, the
# buffer is full (80331), one id written, no question pending (8055c),
# nothing held (805f3, 80710).
WTAIL="80331=T,804e9=N,80504=N,8051c=N,80528=N,80540=N,8055c=N,805f3=T,80710=T"
stub=$(n rust.__x64_sys_listns.s "")
echo "== diag_zero (C-opt; Rust stub + listns, no walk)"
echo "c-opt $(n c-opt.__x64_sys_listns.s "$CPRE,79bcc=T,79c50=N,79c73=T,7a279=T") +1 (popcnt pad)"
echo "rust  $stub + $(n rust.nstree_rs_listns.s "$RLIST,80042=T")"
echo "== diag_one (C-opt; Rust stub + listns + walk)"
echo "c-opt $(n c-opt.__x64_sys_listns.s "$CPRE,79bcc=T,79c50=N,79c73=N,79c92=N,79ca6=T,79cbb=N,79cef=N,79d0b=T,79e66=N,79e79=T,79e95=N,79eaf=N,79ebf=N,79ecc=T") +1"
echo "rust  $stub + $(n rust.nstree_rs_listns.s "$RLIST,80042=N,80076=N") + $(n rust.walk_Unified.s "80178=T,80211=N,80296=T,802b5=N,802cd=T,8030b=N,80322=N,$WTAIL")"
for d in 1 2; do
	lc=N; lr=N; [ $d = 2 ] && { lc=TN; lr=TN; }
	echo "== diag_resume / walk_p1, d=$d lookup levels (C-opt + may_see_all_namespaces; Rust stub + listns + walk)"
	echo "c-opt $(n c-opt.__x64_sys_listns.s "$CPRE,79bcc=N,79bd8=N,79bf0=N,79c28=$lc,79c3d=N,79c46=T,79c73=N,79c92=N,79ca6=T,79cbb=T,79ccf=N,79ce5=N,79cef=N,79d0b=T,79e66=N,79e79=T,79e95=N,79eaf=N,79ebf=N,79ecc=T") +1 + $(n c-opt.may_see_all_namespaces.s "4e3=T")"
	echo "rust  $stub + $(n rust.nstree_rs_listns.s "$RLIST,80042=N,80076=N") + $(n rust.walk_Unified.s "80178=N,80197=N,801b5=$lr,801ba=N,801ce=T,80296=T,802b5=N,802cd=N,802d2=N,802df=N,802e4=N,802f8=T,8043a=N,80441=N,$WTAIL")"
done
echo "== kb_remove"
echo "c-opt $(n c-opt.__ns_tree_remove.s "230=N,23d=N")"
echo "rust  $(n rust.__ns_tree_remove.s "9cb=N,9fc=N,a2d=N,a38=N,a48=N")"
