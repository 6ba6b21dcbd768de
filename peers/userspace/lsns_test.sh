#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# lsns_test: util-linux's lsns against listns() (through nstree) on the
# demo scene (tools/nstree/nstree-scene.sh) plus three namespaces that
# only some of lsns' scans can reach:
#   - a pid namespace only in a process's pid_for_children link (busybox
#     unshare -p without fork: the process stays in its pid namespace);
#   - a uts and an ipc namespace only in a second thread's
#     /proc/PID/task/TID/ns/ links (nsthread);
#   - a user namespace no process, fd or mount is in, kept only as the
#     owner of a net namespace that this shell holds by an fd;
#   - a uts namespace kept only by a bind mount of its nsfs file in
#     another mount namespace (the scene's container A's).
# lsns finds namespaces through /proc/PID/ns/, open nsfs fds, nsfs bind
# mounts, sockets (SIOCGSKNS) and the owners and parents of those
# (NS_GET_USERNS, NS_GET_PARENT); listns() lists every active namespace.
# Every namespace lsns reports must be listed by listns() with the same
# type and inode, unless it is inactive; every namespace listns() lists
# must be in lsns' output or be one lsns cannot see, for a reason the test
# establishes from /proc (which link or mount reaches it); both tools must
# draw the same owner tree.
set -u
. "$(dirname "$0")/.helpers/peers-lib.sh"
D=/run/lsns-test
T=$D.out

tap_begin 13
need_tools
rm -rf "$T"
mkdir -p "$T"
nstree-scene setup $D >"$T/scene.log" 2>&1 || bail "scene setup: $(cat "$T/scene.log")"
. $D/scene.env

cleanup() {
	kill $E_PFC $E_THR 2>/dev/null
	nsenter -t "$PID_A" -m umount "$D/uts-in-a" 2>/dev/null
	exec 7<&-
	nstree-scene teardown $D >/dev/null 2>&1
}

# The extras.
unshare -p sleep 1000000 &
E_PFC=$!
nsthread uts ipc >"$T/nsthread" &
E_THR=$!
unshare -U -n sleep 1000000 &
x=$!
me_net=$(link_inode /proc/self/ns/net)
me_pfc=$(link_inode /proc/self/ns/pid_for_children)
wait_for ns_changed /proc/$x/ns/net "$me_net" || bail "unshare -U -n did not happen"
wait_for ns_changed /proc/$E_PFC/ns/pid_for_children "$me_pfc" || bail "unshare -p did not happen"
wait_for test -s "$T/nsthread" || bail "nsthread did not start"
read -r _ THR_TID <"$T/nsthread"
OWNED_NET_INODE=$(link_inode /proc/$x/ns/net)
OWNER_ONLY_INODE=$(link_inode /proc/$x/ns/user)
exec 7</proc/$x/ns/net
kill $x
wait $x 2>/dev/null
# a uts namespace bind-mounted in A's mount namespace only
unshare -u sleep 1000000 &
y=$!
wait_for ns_changed /proc/$y/ns/uts "$(link_inode /proc/self/ns/uts)" || bail "unshare -u did not happen"
MNT_A_UTS_INODE=$(link_inode /proc/$y/ns/uts)
touch "$D/uts-in-a"
nsenter -t "$PID_A" -m mount --bind /proc/$y/ns/uts "$D/uts-in-a" ||
	bail "bind mount in A's mount namespace failed"
kill $y
wait $y 2>/dev/null
PFC_INODE=$(link_inode /proc/$E_PFC/ns/pid_for_children)
THR_UTS_INODE=$(link_inode /proc/$E_THR/task/$THR_TID/ns/uts)
THR_IPC_INODE=$(link_inode /proc/$E_THR/task/$THR_TID/ns/ipc)
diag "extras: pid_for_children $PFC_INODE, thread uts $THR_UTS_INODE ipc $THR_IPC_INODE," \
	"owner-only user $OWNER_ONLY_INODE of fd-held net $OWNED_NET_INODE," \
	"uts $MNT_A_UTS_INODE bind-mounted in A's mount namespace"

# Both views, taken back to back.
listns "$T/listns" || bail "listns failed"
"$LSNS" -J -l -o NS,TYPE,NPROCS,ONS,PNS,NSFS >"$T/lsns.json" 2>"$T/lsns.err"
lsns_rc=$?
"$LSNS" -r -n -o NS,TYPE >"$T/lsns.raw" 2>>"$T/lsns.err"
"$LSNS" --tree=owner -n -o NS,TYPE >"$T/lsns.tree" 2>>"$T/lsns.err"
"$NSTREE" >"$T/nstree.tree" 2>"$T/nstree.err"
# What /proc links reach: leaders' ns/ (what lsns reads), the
# *_for_children links, and every thread's.
links() { # GLOB-DIR NAMES: the inodes of the namespace links NAMES in them
	# shellcheck disable=SC2086
	ls -l $1 2>/dev/null | sed -nE "s/.* ($2) -> [a-z]+:\[([0-9]+)\]\$/\2/p" | sort -u
}
ALL=$(echo $TYPES | tr ' ' '|')
links "/proc/[0-9]*/ns/" "$ALL" >"$T/leader-links"
links "/proc/[0-9]*/ns/" "pid_for_children|time_for_children" >"$T/for-children-links"
links "/proc/[0-9]*/task/[0-9]*/ns/" "$ALL" >"$T/task-links"
# nsfs mounts: the inodes in lsns' own mount namespace's mountinfo, and in
# any process's (field 4, the mount's root, is "TYPE:[INODE]")
nsfs_mounts() {
	# shellcheck disable=SC2086
	cat $1 2>/dev/null | awk '$0 ~ / - nsfs / { print $4 }' |
		sed -nE 's/^[a-z]+:\[([0-9]+)\]$/\1/p' | sort -u
}
# Per namespace inode: how many processes have a leader's link to it
# (what lsns counts as NPROCS: it reads /proc/PID/ns/), and how many have
# any link to it, a thread's or a *_for_children one included (what
# nstree counts).  "INODE LEADER-COUNT ANY-COUNT"
# shellcheck disable=SC2012
ls -l /proc/[0-9]*/ns/ /proc/[0-9]*/task/[0-9]*/ns/ 2>/dev/null | awk '
	/^\/proc\/[0-9]+\/(task\/[0-9]+\/)?ns\/?:$/ {
		split($0, a, "/"); pid = a[3]; leader = (a[4] != "task"); next
	}
	match($0, / [a-z_]+ -> [a-z]+:\[[0-9]+\]$/) {
		split(substr($0, RSTART + 1), f, " ")
		ino = f[3]; sub(/^[a-z]+:\[/, "", ino); sub(/\]$/, "", ino)
		if (leader && f[1] !~ /_for_children$/ && !((ino, pid) in L)) { L[ino, pid] = 1; lead[ino]++ }
		if (!((ino, pid) in A)) { A[ino, pid] = 1; any[ino]++ }
		seen[ino] = 1
	}
	END { for (i in seen) print i, lead[i] + 0, any[i] + 0 }' >"$T/proc-counts"
links /proc/self/ns/ "$ALL|pid_for_children|time_for_children" >"$T/self-links"
nsfs_mounts /proc/self/mountinfo >"$T/own-mounts"
nsfs_mounts "/proc/[0-9]*/mountinfo" >"$T/any-mounts"
[ -s "$T/leader-links" ] && [ -s "$T/task-links" ] || bail "no namespace links read from /proc"

# lsns -J as "NS TYPE NPROCS ONS PNS NSFS" lines
awk '
function flush() {
	if (ns != "")
		print ns, type, nprocs, ons, pns, (nsfs == "" || nsfs == "null" ? "-" : nsfs)
	ns = type = nprocs = ons = pns = nsfs = ""
}
match($0, /"[a-z]+": /) {
	key = substr($0, RSTART + 1, RLENGTH - 4)
	val = substr($0, RSTART + RLENGTH)
	sub(/,$/, "", val)
	gsub(/"/, "", val)
	if (key == "ns") { flush(); ns = val }
	else if (key == "type") type = val
	else if (key == "nprocs") nprocs = val
	else if (key == "ons") ons = val
	else if (key == "pns") pns = val
	else if (key == "nsfs") nsfs = val
}
END { flush() }' "$T/lsns.json" >"$T/lsns"

lsns_has() { # INODE [TYPE]
	awk -v ino="$1" -v type="${2:-}" '$1 == ino && (type == "" || $2 == type) { f = 1 } END { exit !f }' "$T/lsns"
}

# --- lsns runs and sees the scene
lsns_runs() {
	[ $lsns_rc = 0 ] || { diag "lsns -J exited $lsns_rc: $(cat "$T/lsns.err")"; return 1; }
	[ -s "$T/lsns" ] || { diag "no namespaces parsed from lsns -J:"; diag "$(head -20 "$T/lsns.json")"; return 1; }
	bad=0
	for t in $TYPES; do
		lsns_has "$(link_inode /proc/1/ns/$t)" $t || { diag "initial $t namespace missing"; bad=1; }
	done
	return $bad
}
check "lsns -J runs and lists the initial namespaces" lsns_runs
lsns_json_raw() {
	a=$(awk '{ print $1, $2 }' "$T/lsns" | sort)
	b=$(sort "$T/lsns.raw")
	[ "$a" = "$b" ] && return 0
	diag "lsns -J and lsns -r differ:"
	diag "$(echo "$a" >"$T/a"; echo "$b" >"$T/b"; diff "$T/a" "$T/b")"
	return 1
}
check "lsns -J and lsns -r list the same namespaces" lsns_json_raw
scene_seen() {
	bad=0
	for t in user uts net mnt ipc; do
		lsns_has "$(link_inode /proc/$PID_A/ns/$t)" $t || { diag "A's $t missing"; bad=1; }
	done
	lsns_has "$(link_inode /proc/$PID_B/ns/user)" user || { diag "B's user missing"; bad=1; }
	lsns_has "$FD_NET_INODE" net || { diag "fd-held net $FD_NET_INODE missing (fd scan)"; bad=1; }
	awk -v ino="$BIND_UTS_INODE" -v p="$BIND_UTS_PATH" '$1 == ino && $2 == "uts" && $6 == p { f = 1 } END { exit !f }' \
		"$T/lsns" || { diag "bind-mounted uts $BIND_UTS_INODE missing or NSFS is not $BIND_UTS_PATH"; bad=1; }
	lsns_has "$OWNER_ONLY_INODE" user ||
		{ diag "owner-only user $OWNER_ONLY_INODE missing (owner walk)"; bad=1; }
	[ $bad = 0 ] || diag "$(cat "$T/lsns")"
	return $bad
}
check "lsns sees the scene's process, fd, bind-mount and owner-only namespaces" scene_seen

# --- every namespace lsns reports is listed by listns()
# The only namespace lsns may report and listns() not: the net namespace
# that only a socket pins, which is inactive (lsns reaches it through
# SIOCGSKNS on the socket; the nsfs file it gets lives only as long as
# lsns holds it).
# (One awk pass per check: a shell loop forking awk per namespace costs
# seconds on the debug kernels.)
lsns_in_listns() {
	awk -v sock="$SOCK_NET_INODE" '
	NR == FNR { type[$3] = $2; next }
	!($1 in type) {
		if ($1 == sock && $2 == "net")
			print "# lsns sees the socket-pinned net " $1 ", listns() does not: inactive"
		else { print "# lsns sees " $2 " " $1 ", listns() does not list it"; bad = 1 }
		next
	}
	type[$1] != $2 { print "# " $1 ": lsns says " $2 ", listns() " type[$1]; bad = 1 }
	END { exit bad }' "$T/listns" "$T/lsns"
}
check "every namespace lsns reports is listed by listns() with its type and inode (but the inactive)" lsns_in_listns
sock_inactive() {
	lsns_has "$SOCK_NET_INODE" net || { diag "lsns does not see the socket-pinned net $SOCK_NET_INODE"; return 1; }
	[ -z "$(ns_row "$T/listns" "$SOCK_NET_INODE")" ] ||
		{ diag "listns() lists the socket-pinned net: $(ns_row "$T/listns" "$SOCK_NET_INODE")"; return 1; }
}
check "the socket-pinned net: lsns sees it (socket scan), listns() does not (inactive)" sock_inactive

# --- every namespace listns() lists is in lsns, or lsns cannot see it
listns_in_lsns() {
	awk '
	FILENAME ~ /\/lsns$/ { seen[$1 " " $2] = 1; next }
	FILENAME ~ /leader-links$/ { leader[$1] = 1; next }
	FILENAME ~ /for-children-links$/ { forch[$1] = 1; next }
	FILENAME ~ /task-links$/ { task[$1] = 1; next }
	FILENAME ~ /own-mounts$/ { own[$1] = 1; next }
	FILENAME ~ /any-mounts$/ { any[$1] = 1; next }
	{
		id = $1; type = $2; ino = $3
		if ((ino " " type) in seen)
			next
		what = type " " ino " (id " id ")"
		if (ino in leader) {
			print "# listns() " what ": a process'"'"'s /proc/PID/ns link reaches it, lsns misses it"
			bad = 1
		} else if (ino in forch)
			print "# lsns cannot see " what ": only a pid_for_children/time_for_children link reaches it; lsns reads /proc/PID/ns/{pid,time}"
		else if (ino in task)
			print "# lsns cannot see " what ": only a thread'"'"'s /proc/PID/task/TID/ns link reaches it; lsns reads the thread group leader'"'"'s /proc/PID/ns"
		else if ((ino in any) && !(ino in own))
			print "# lsns cannot see " what ": only an nsfs bind mount in another mount namespace keeps it; lsns reads its own /proc/self/mountinfo"
		else {
			print "# listns() " what ": lsns misses it, and no /proc link or mount reaches it"
			bad = 1
		}
	}
	END { exit bad }' "$T/lsns" "$T/leader-links" "$T/for-children-links" "$T/task-links" \
		"$T/own-mounts" "$T/any-mounts" "$T/listns"
}
check "every namespace listns() lists is in lsns, or lsns cannot see it (reason from /proc)" listns_in_lsns
pfc_ns() {
	id=$("$NSTREE" --id-of /proc/$E_PFC/ns/pid_for_children) || return 1
	r=$(ns_row "$T/listns" "$PFC_INODE")
	set -- $r
	[ "${1:-}" = "$id" ] && [ "${2:-}" = pid ] || { diag "pid_for_children $PFC_INODE ($id): '$r'"; return 1; }
}
check "listns() lists the pid namespace only a pid_for_children link reaches" pfc_ns
thread_ns() {
	bad=0
	for t in uts ipc; do
		id=$("$NSTREE" --id-of /proc/$E_THR/task/$THR_TID/ns/$t) || return 1
		eval ino=\$THR_$(echo $t | tr a-z A-Z)_INODE
		r=$(ns_row "$T/listns" "$ino")
		set -- $r
		[ "${1:-}" = "$id" ] && [ "${2:-}" = $t ] || { diag "thread $t $ino ($id): '$r'"; bad=1; }
		[ "$(link_inode /proc/$E_THR/ns/$t)" != "$ino" ] || { diag "the leader is in $ino too"; bad=1; }
	done
	return $bad
}
check "listns() lists the uts and ipc namespaces only a thread is in" thread_ns
other_mntns() {
	id=$(nsenter -t "$PID_A" -m "$NSTREE" --id-of "$D/uts-in-a") || return 1
	r=$(ns_row "$T/listns" "$MNT_A_UTS_INODE")
	set -- $r
	[ "${1:-}" = "$id" ] && [ "${2:-}" = uts ] && [ "${6:-}" = 0 ] ||
		{ diag "uts $MNT_A_UTS_INODE ($id) bind-mounted in A's mount namespace: '$r'"; return 1; }
	grep -qx "$MNT_A_UTS_INODE" "$T/own-mounts" && { diag "the bind mount is in our mount namespace too"; return 1; }
	return 0
}
check "listns() lists the uts namespace only a bind mount in another mount namespace keeps" other_mntns
owner_only() {
	r=$(ns_row "$T/listns" "$OWNER_ONLY_INODE")
	[ -n "$r" ] || { diag "owner-only user $OWNER_ONLY_INODE not listed"; return 1; }
	set -- $r
	[ "$2" = user ] && [ "$6" = 0 ] || { diag "owner-only user: $r"; return 1; }
	o=$(ns_row "$T/listns" "$OWNED_NET_INODE")
	[ -n "$o" ] || { diag "fd-held net $OWNED_NET_INODE not listed"; return 1; }
	set -- $o
	[ "$4" = "$(echo "$r" | awk '{ print $1 }')" ] || { diag "net $o not owned by $r"; return 1; }
}
check "listns() lists the user namespace that only owns an fd-held net" owner_only

# --- NPROCS: lsns counts the processes whose /proc/PID/ns/ link names
# a namespace, nstree every process any of whose threads' links or
# *_for_children links does; both must say what /proc says.  Not for our
# own namespaces, where the processes of the test's pipelines come and go
# between the snapshots.
nprocs_agree() {
	awk '
	FILENAME ~ /proc-counts$/ { lead[$1] = $2; any[$1] = $3; next }
	FILENAME ~ /self-links$/ { self[$1] = 1; next }
	FILENAME ~ /listns$/ { np[$3] = $6; next }
	{
		if (($1 in self) || !($1 in np))
			next
		both++
		if ($3 != lead[$1] + 0) { print "# " $2 " " $1 ": lsns NPROCS " $3 ", processes whose /proc/PID/ns link names it " lead[$1] + 0; bad = 1 }
		if (np[$1] != any[$1] + 0) { print "# " $2 " " $1 ": nstree NPROCS " np[$1] ", processes with any link to it " any[$1] + 0; bad = 1 }
		if (lead[$1] == any[$1] && $3 != np[$1]) { print "# " $2 " " $1 ": lsns NPROCS " $3 ", nstree " np[$1]; bad = 1 }
	}
	END {
		if (both < 10) { print "# only " both " namespaces compared"; bad = 1 }
		exit bad
	}' "$T/proc-counts" "$T/self-links" "$T/listns" "$T/lsns"
}
check "NPROCS: lsns and listns() (nstree) count the processes /proc shows in each namespace" nprocs_agree

# --- owners
owners_agree() {
	awk '
	FILENAME ~ /listns$/ { ino[$1] = $3; owner[$3] = $4; next }
	{
		if (!($1 in owner))
			next
		want = (owner[$1] in ino) ? ino[owner[$1]] : 0
		if ($4 != want) { print "# " $2 " " $1 ": lsns ONS " $4 ", listns() owner inode " want; bad = 1 }
		if ($2 == "user" && $5 != want) { print "# user " $1 ": lsns PNS " $5 ", listns() owner inode " want; bad = 1 }
	}
	END { exit bad }' "$T/listns" "$T/lsns"
}
check "lsns' ONS (and PNS of user namespaces) is the owner listns() reports" owners_agree

# --- the owner tree: lsns --tree=owner against nstree's tree
# tree_parents FILE COLUMN: "INODE PARENT-INODE" (0 at the top) from a
# tree drawn with two columns of indentation per level; COLUMN is the
# field holding the inode once the drawing is stripped.
tree_parents() {
	awk -v col="$2" '
	NR == 1 && col == 3 { next }	# nstree header
	{
		line = $0
		match(line, /[0-9a-z(]/)
		depth = (RSTART - 1) / 2
		sub(/^[-|`+ ]*/, "", line)
		split(line, f, " ")
		ino = f[col]
		up[depth] = ino
		print ino, (depth ? up[depth - 1] : 0)
	}' "$1" | sort
}
trees_agree() {
	tree_parents "$T/lsns.tree" 1 >"$T/parents.lsns"
	tree_parents "$T/nstree.tree" 3 >"$T/parents.nstree"
	[ -s "$T/parents.lsns" ] || { diag "empty lsns tree"; return 1; }
	# Namespaces listns() does not list are left out; lsns puts one whose
	# owner it does not know at the top.
	if ! awk '
	NR == FNR { want[$1] = $2; next }
	$1 in want {
		both++
		if ($2 != want[$1]) { print "# " $1 ": lsns tree parent " $2 ", nstree " want[$1]; bad = 1 }
	}
	END {
		if (both < 20) { print "# only " both " namespaces in both trees"; bad = 1 }
		exit bad
	}' "$T/parents.nstree" "$T/parents.lsns"; then
		diag "lsns --tree=owner:"; diag "$(cat "$T/lsns.tree")"
		diag "nstree:"; diag "$(cat "$T/nstree.tree")"
		return 1
	fi
}
check "lsns --tree=owner and nstree draw the same owner tree" trees_agree

cleanup
rm -rf "$T"
tap_end
