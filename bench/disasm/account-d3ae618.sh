#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# account-d3ae618.sh [WORKDIR]: re-derive the counts of the static account
# "Round 4, at d3ae618" in docs/bench-disasm.md from the benchmark kernels
# that `make bench` builds at commit d3ae618 ($NSTREE_CACHE/bench/{c-opt,rust}).
# C-opt is the same binary as at 35c3e22 and 9371be8 (vmlinux md5
# 8aee5a71f76a73103a8ea79fa2247ffd), so its decision lists are those of
# account-9371be8.sh. The Rust lists name branch addresses of the d3ae618
# build (vmlinux md5 7209141407cc353520b96c6cfcfd4c73): another commit
# (or toolchain) moves them, and path.py then stops at an unknown address.
set -e
D=$(cd "$(dirname "$0")" && pwd)
W=${1:-/tmp/nstree-disasm-d3ae618}
mkdir -p "$W"
cd "$W"
cp "$D/path.py" .
WALK=_RINvNtCsbI6LEvAh49d_9nstree_rs6listns4walkNtNtNtB4_3ffi4tree7UnifiedEB4_
for s in __x64_sys_listns nstree_rs_listns __ns_tree_remove __ns_ref_active_get __ns_ref_active_put $WALK; do
	"$D/dis.sh" rust $s "$W" >/dev/null
done
mv "rust.$WALK.s" rust.walk_Unified.s
for s in __x64_sys_listns __ns_tree_remove may_see_all_namespaces __ns_ref_active_get __ns_ref_active_put; do
	"$D/dis.sh" c-opt $s "$W" >/dev/null
done
P="python3 path.py"
n() { $P "$@" | awk 'NR==1 { print $2 }'; }
CPRE="79483=N,79494=N,794ba=N,794c3=N,794d8=N,794e6=N,794f4=N,7951d=T,79552=N,7955e=N,7956f=T,79594=T,795e6=T"
# nstree_rs_listns up to the choice of the unified walk (nr_ns_ids and
# flags in one test, size 32, spare and ns_type in one test, user_ns_id 0,
# ns_type 0), then "nothing to list" (8013a).
RLIST="7fde5=N,7fded=N,7fe09=N,7fe12=N,7fe25=N,7fe31=N,7fe3f=N,7fe68=T,7feab=T,7fedc=N,7fefa=N,7feff=N,7ff11=T"
# The walk after its first candidate is listed: the batch has room, the
# buffer is full (80481), one id written, no question pending (806ac),
# nothing held (80743, 80860).
WTAIL="80481=T,80639=N,80654=N,8066c=N,80678=N,80690=N,806ac=N,80743=T,80860=T"
stub=$(n rust.__x64_sys_listns.s "")
echo "== diag_zero (C-opt; Rust stub + listns, no walk)"
echo "c-opt $(n c-opt.__x64_sys_listns.s "$CPRE,79bcc=T,79c50=N,79c73=T,7a279=T") +1 (popcnt pad)"
echo "rust  $stub + $(n rust.nstree_rs_listns.s "$RLIST,8013a=T")"
echo "== diag_one (C-opt; Rust stub + listns + walk)"
echo "c-opt $(n c-opt.__x64_sys_listns.s "$CPRE,79bcc=T,79c50=N,79c73=N,79c92=N,79ca6=T,79cbb=N,79cef=N,79d0b=T,79e66=N,79e79=T,79e95=N,79eaf=N,79ebf=N,79ecc=T") +1"
echo "rust  $stub + $(n rust.nstree_rs_listns.s "$RLIST,8013a=N,8016c=N") + $(n rust.walk_Unified.s "802c8=T,80361=N,803e6=T,80405=N,8041d=T,8045b=N,80472=N,$WTAIL")"
for d in 1 2; do
	lc=N; lr=N; [ $d = 2 ] && { lc=TN; lr=TN; }
	echo "== diag_resume / walk_p1, d=$d lookup levels (C-opt + may_see_all_namespaces; Rust stub + listns + walk)"
	echo "c-opt $(n c-opt.__x64_sys_listns.s "$CPRE,79bcc=N,79bd8=N,79bf0=N,79c28=$lc,79c3d=N,79c46=T,79c73=N,79c92=N,79ca6=T,79cbb=T,79ccf=N,79ce5=N,79cef=N,79d0b=T,79e66=N,79e79=T,79e95=N,79eaf=N,79ebf=N,79ecc=T") +1 + $(n c-opt.may_see_all_namespaces.s "4e3=T")"
	echo "rust  $stub + $(n rust.nstree_rs_listns.s "$RLIST,8013a=N,8016c=N") + $(n rust.walk_Unified.s "802c8=N,802e7=N,80305=$lr,8030a=N,8031e=T,803e6=T,80405=N,8041d=N,80422=N,8042f=N,80434=N,80448=T,8058a=N,80591=N,$WTAIL")"
done
echo "== kb_active_hot: get 1 -> 2, put 2 -> 1"
echo "c-opt $(n c-opt.__ns_ref_active_get.s "485=N,493=N") + $(n c-opt.__ns_ref_active_put.s "445=N,44b=T")"
echo "rust  $(n rust.__ns_ref_active_get.s "3e8=T,408=T") + $(n rust.__ns_ref_active_put.s "438=T,450=T")"
echo "== kb_active_d1: get 0 -> 1, put 1 -> 0, owner init_user_ns (ops->owner() not counted)"
echo "c-opt $(n c-opt.__ns_ref_active_get.s "485=N,493=T,49d=N,4a5=N,4ad=T") + $(n c-opt.__ns_ref_active_put.s "445=N,44b=N,454=N,45c=N,464=T")"
echo "rust  $(n rust.__ns_ref_active_get.s "3e8=T,408=N,411=N,419=N,428=T") + $(n rust.__ns_ref_active_put.s "438=T,450=N,459=N,461=N,470=T")"
echo "== kb_remove"
echo "c-opt $(n c-opt.__ns_tree_remove.s "230=N,23d=N")"
echo "rust  $(n rust.__ns_tree_remove.s "a1b=N,a4c=N,a7d=N,a88=N,a98=N")"
