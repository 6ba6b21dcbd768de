#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bwrap_test: Debian's bubblewrap, unmodified: a bwrap --unshare-all
# sandbox inside another, each with its own user namespace (nested user
# namespaces), mount, pid, net, ipc, uts and cgroup namespaces.  While
# they run, listns() (nstree) must list both sandboxes' namespaces with
# their types and inodes: the outer user namespace owned by ours, the
# inner one by the outer one, and each sandbox's other namespaces by its
# own user namespace; listns() by owner (nstree -o) must list exactly the
# outer sandbox's namespaces and the inner user namespace below the
# outer user namespace; nsenter --TYPE=:ID must enter every one of them;
# and they must all leave listns() when the sandboxes exit.
set -u
. "$(dirname "$0")/.helpers/peers-lib.sh"
own_root "$0" "$@"
T=/run/bwrap-test.out
CMD="sleep 7654324"
BOX="cgroup ipc mnt net pid user uts"	# what --unshare-all makes (no time)

tap_begin 9
need_tools
need_bin "$BWRAP"
diag "$("$BWRAP" --version)"
rm -rf "$T"
mkdir -p "$T"
OUTER=
cleanup() {
	[ -z "$OUTER" ] || kill -KILL "$OUTER" 2>/dev/null
}

# The inner bwrap binds /proc: the outer sandbox's /proc has read-only
# bind mounts over parts of it (/proc/sys, ...), and the kernel refuses
# a new proc mount where an existing one is partly hidden
# (mount_too_revealing()).  --die-with-parent: killing the outer bwrap
# ends everything.
"$BWRAP" --unshare-all --unshare-user --die-with-parent \
	--bind / / --proc /proc --dev /dev -- \
	"$BWRAP" --unshare-all --unshare-user --die-with-parent \
	--bind / / --bind /proc /proc --dev /dev -- $CMD >"$T/bwrap.out" 2>&1 &
OUTER=$!

# The sandboxes' processes: S runs CMD in the inner sandbox; up its
# parents, the first in another user namespace is in the outer sandbox.
S=
O=
started() {
	S=$(find_cmd "$CMD")
	[ -n "$S" ] || return 1
	p=$S
	while [ "$p" -gt 1 ]; do
		p=$(awk '{ print $4 }' /proc/$p/stat 2>/dev/null) || return 1
		if [ "$(link_inode /proc/$p/ns/user)" != "$(link_inode /proc/$S/ns/user)" ]; then
			O=$p
			break
		fi
	done
	[ -n "$O" ] && [ "$(link_inode /proc/$O/ns/user)" != "$(link_inode /proc/self/ns/user)" ]
}
start() {
	wait_for started || { diag "no nested sandbox: $(cat "$T/bwrap.out")"; return 1; }
	diag "inner pid $S, outer pid $O"
}
check "bwrap --unshare-all runs in bwrap --unshare-all" start
[ -n "$O" ] || bail "no sandboxes"
ns_ids self "$T/ours" && ns_ids "$O" "$T/outer" && ns_ids "$S" "$T/inner" ||
	bail "NS_GET_ID failed"
OUSER=$(id_of "$T/outer" user)
IUSER=$(id_of "$T/inner" user)

check "the outer sandbox has 7 new namespaces, and our time namespace" \
	differ "$T/outer" "$T/ours" "$BOX" time
check "the inner sandbox has 7 new namespaces of its own" \
	differ "$T/inner" "$T/outer" "$BOX" time
listns "$T/listns" || bail "listns failed"
owners() {
	listed_as "$T/listns" "$T/outer" user "$(id_of "$T/ours" user)" &&
		listed_as "$T/listns" "$T/inner" user "$OUSER"
}
check "listns(): the outer user namespace is owned by ours, the inner by the outer" owners
others() {
	listed_as "$T/listns" "$T/outer" "cgroup ipc mnt net pid uts" "$OUSER" &&
		listed_as "$T/listns" "$T/inner" "cgroup ipc mnt net pid uts" "$IUSER"
}
check "listns(): each sandbox's other 6 namespaces are owned by its user namespace" others
by_owner() {
	listns "$T/owned" -o "$OUSER" || return 1
	got=$(awk '{ print $1 }' "$T/owned" | sort -n | paste -sd' ')
	want=$({ for t in cgroup ipc mnt net pid uts; do id_of "$T/outer" $t; done; echo "$IUSER"; } |
		sort -n | paste -sd' ')
	[ "$got" = "$want" ] || { diag "nstree -o $OUSER: $got, want $want"; return 1; }
}
check "listns() by owner: the outer user namespace owns its sandbox's 6 and the inner user namespace" by_owner
check "nsenter --TYPE=:ID enters each of the outer sandbox's namespaces" nsenter_all "$T/outer" "$BOX"
check "nsenter --TYPE=:ID enters each of the inner sandbox's namespaces" nsenter_all "$T/inner" "$BOX"
no_cmd() {
	[ -z "$(find_cmd "$CMD")" ]
}
gone() {
	kill -KILL "$OUTER"
	wait "$OUTER" 2>/dev/null
	wait_for no_cmd || { diag "'$CMD' still runs"; return 1; }
	gone_from_listns "$T/outer" "$BOX" && gone_from_listns "$T/inner" "$BOX"
}
check "killing the outer bwrap ends both sandboxes, and their namespaces leave listns()" gone
OUTER=

rm -rf "$T"
tap_end
