#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# account-35c3e22.sh [WORKDIR]: re-derive every count of the static account
# "Round 2, at 35c3e22" in docs/bench-disasm.md from the benchmark kernels
# that `make bench` builds at commit 35c3e22 ($NSTREE_CACHE/bench/{c-opt,rust}).
# The decision lists name branch addresses of those builds: another commit
# (or toolchain) moves them, and path.py then stops at an unknown address.
set -e
D=$(cd "$(dirname "$0")" && pwd)
W=${1:-/tmp/nstree-disasm}
mkdir -p "$W"
cd "$W"
cp "$D/path.py" .
WALK=_RINvNtCsbI6LEvAh49d_9nstree_rs6listns4walkNtNtNtB4_3ffi4tree7UnifiedEB4_
for s in __x64_sys_listns nstree_rs_listns __ns_ref_active_get __ns_ref_active_put __ns_tree_remove $WALK; do "$D/dis.sh" rust $s "$W" >/dev/null; done
mv "rust.$WALK.s" rust.walk_Unified.s
for s in __x64_sys_listns __ns_ref_active_get __ns_ref_active_put __ns_tree_remove may_see_all_namespaces; do "$D/dis.sh" c-opt $s "$W" >/dev/null; done
P="python3 path.py"
CPRE="79483=N,79494=N,794ba=N,794c3=N,794d8=N,794e6=N,794f4=N,7951d=T,79552=N,7955e=N,7956f=T,79594=T,795e6=T"
RLIST="fdb7=N,fdc4=N,fdd9=T,fdf8=N,fe0b=N,fe10=N,fe32=T,fe4a=N,fe58=N,fe7d=T,febe=T,fee1=N,fee5=N,feea=T,ff53=N,ff58=N,ff63=T,80088=N"
echo "== diag_zero";  $P c-opt.__x64_sys_listns.s "$CPRE,79bcc=T,79c50=N,79c73=T,7a279=T" | awk 'NR==1'
$P rust.__x64_sys_listns.s "" | awk 'NR==1'; $P rust.nstree_rs_listns.s "$RLIST" | awk 'NR==1'; $P rust.walk_Unified.s "8019b=T" | awk 'NR==1'
echo "== diag_one";   $P c-opt.__x64_sys_listns.s "$CPRE,79bcc=T,79c50=N,79c73=N,79c92=N,79ca6=T,79cbb=N,79cef=N,79d0b=T,79e66=N,79e79=T,79e95=N,79eaf=N,79ebf=N,79ecc=T" | awk 'NR==1'
$P rust.walk_Unified.s "8019b=N,801c7=N,801ce=T,8028c=N,80295=N,802e6=T,8036a=N,8037b=T,803d2=N,803e0=N,803f6=T,804d0=N,804f0=N,8050f=N,8051b=N,8053b=N,80544=N,8054a=T,8061d=T" | awk 'NR==1'
echo "== diag_resume, d=1 (lookup loop decision 79c28 / 8021c: T^(d-1) N)"
$P c-opt.__x64_sys_listns.s "$CPRE,79bcc=N,79bd8=N,79bf0=N,79c28=N,79c3d=N,79c46=T,79c73=N,79c92=N,79ca6=T,79cbb=T,79ccf=N,79ce5=N,79cef=N,79d0b=T,79e66=N,79e79=T,79e95=N,79eaf=N,79ebf=N,79ecc=T" | awk 'NR==1'
$P c-opt.may_see_all_namespaces.s "4e3=T" | awk 'NR==1'
$P rust.walk_Unified.s "8019b=N,801c7=N,801ce=N,801f1=N,8021c=N,80221=N,8028c=N,80295=N,802e6=T,8036a=N,8037b=N,80383=N,8038c=N,8039c=T,803c7=N,803d2=N,803e0=N,803f6=T,804d0=N,804f0=N,8050f=N,8051b=N,8053b=N,80544=N,8054a=T,8061d=T" | awk 'NR==1'
echo "== kb_active_hot (get, put)"
$P c-opt.__ns_ref_active_get.s "485=N,493=N" | awk 'NR==1'; $P c-opt.__ns_ref_active_put.s "445=N,44b=T" | awk 'NR==1'
$P rust.__ns_ref_active_get.s "3db=T,3ea=T" | awk 'NR==1';   $P rust.__ns_ref_active_put.s "41b=T,422=T" | awk 'NR==1'
echo "== kb_active_d1 (get, put)"
$P c-opt.__ns_ref_active_get.s "485=N,493=T,49d=N,4a5=N,4ad=T" | awk 'NR==1'; $P c-opt.__ns_ref_active_put.s "445=N,44b=N,454=N,45c=N,464=T" | awk 'NR==1'
$P rust.__ns_ref_active_get.s "3db=T,3ea=N,3f3=N,3fb=N,40a=N" | awk 'NR==1'; $P rust.__ns_ref_active_put.s "41b=T,422=N,42b=N,433=N,442=N" | awk 'NR==1'
echo "== kb_remove"
$P c-opt.__ns_tree_remove.s "230=N,23d=N" | awk 'NR==1'; $P rust.__ns_tree_remove.s "9d4=N,a04=N,a35=N,a62=N,a72=N" | awk 'NR==1'
