#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# nstree_tool_test: TAP test of the nstree tool against the scene that
# nstree-scene builds (guest, root).  Every expected value comes from
# somewhere else than listns(): ids from NS_GET_ID on the namespace
# files (nstree --id-of, which does not use listns()), inodes from
# stat(1), owners from how the scene was built.
set -u
PLAN=34
D=/run/nstree-tool-test
T=$D.out		# our scratch files, outside the scene directory
NSTREE=$(command -v nstree)
n=0
failed=0

echo "TAP version 13"
echo "1..$PLAN"

ok() {
	n=$((n + 1))
	echo "ok $n $1"
}

not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n $1"
}

skip() {
	n=$((n + 1))
	echo "ok $n $1 # SKIP $2"
}

diag() {
	echo "$*" | sed 's/^/# /'
}

# check NAME COMMAND...: ok if COMMAND succeeds; COMMAND explains failures.
check() {
	name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

bail() {
	echo "Bail out! $*"
	[ -n "${NSTREE:-}" ] && nstree-scene teardown $D >/dev/null 2>&1
	exit 1
}

[ -n "$NSTREE" ] || bail "no nstree in PATH"
[ "$(id -u)" = 0 ] || bail "must run as root"
rm -rf "$T"
mkdir -p "$T"
nstree-scene setup $D >"$T/scene.log" 2>&1 || bail "scene setup: $(cat "$T/scene.log")"
. $D/scene.env
diag "$(cat $D/scene.env)"

# row FILE ID: the -l row of ID: ID TYPE INODE OWNER UID NPROCS [MARK]
row() {
	awk -v id="$2" '$1 == id' "$1"
}

# has_row FILE ID TYPE INODE OWNER UID PROCS
has_row() {
	f=$1 id=$2 type=$3 ino=$4 owner=$5 uid=$6 procs=$7
	r=$(row "$f" "$id")
	if [ -z "$r" ]; then
		diag "namespace $id ($type) is not listed"
		return 1
	fi
	set -- $r
	bad=
	[ "$2" = "$type" ] || bad="$bad type=$2 (want $type)"
	[ "$ino" = any ] || [ "$3" = "$ino" ] || bad="$bad inode=$3 (want $ino)"
	[ "$4" = "$owner" ] || bad="$bad owner=$4 (want $owner)"
	[ "$5" = "$uid" ] || bad="$bad uid=$5 (want $uid)"
	nprocs=$6
	shift 6
	mark="$*"
	case "$procs" in
	none) [ "$nprocs" = 0 ] && [ "$mark" = "[no process]" ] ||
		bad="$bad nprocs=$nprocs marker='$mark' (want 0 and [no process])" ;;
	some) [ "$nprocs" -ge 1 ] && [ -z "$mark" ] ||
		bad="$bad nprocs=$nprocs marker='$mark' (want >= 1, no marker)" ;;
	esac
	if [ -n "$bad" ]; then
		diag "namespace $id:$bad"
		diag "row: $r"
		return 1
	fi
	return 0
}

# ids FILE: the sorted ids of a -l listing
ids() {
	awk 'NR > 1 { print $1 }' "$1" | sort -n
}

same_ids() {
	if [ "$1" != "$2" ]; then
		diag "got:  $(echo $1)"
		diag "want: $(echo $2)"
		return 1
	fi
	return 0
}

# run FILE ARGS...: nstree ARGS >FILE, 2>FILE.err, remembering the status
run() {
	f=$1
	shift
	"$NSTREE" "$@" >"$f" 2>"$f.err"
	rc=$?
	if [ $rc != 0 ]; then
		diag "nstree $* exited $rc: $(cat "$f.err")"
	fi
	return $rc
}

# --- it runs
check "tree output exits 0" run "$T/tree" -p
check "flat list exits 0" run "$T/list" -l

# --- the initial namespaces, id and inode from the namespace files
init_ns() {
	bad=0
	for t in cgroup ipc mnt net pid time user uts; do
		id=$("$NSTREE" --id-of /proc/1/ns/$t) || { bad=1; continue; }
		ino=$(stat -L -c %i /proc/1/ns/$t)
		uid=-
		owner=$INIT_USER
		[ $t = user ] && uid=0 owner=-
		has_row "$T/list" "$id" $t "$ino" "$owner" "$uid" some || bad=1
	done
	return $bad
}
check "initial namespaces listed with NS_GET_ID ids and inodes" init_ns

# --- the container
check "user A: owned by the initial user ns, uid 1000, in use" \
	has_row "$T/list" "$USER_A" user "$USER_A_INODE" "$INIT_USER" 1000 some
check "user B: owned by user A, uid 1000, in use" \
	has_row "$T/list" "$USER_B" user any "$USER_A" 1000 some
container_ns() {
	bad=0
	for t in uts net mnt ipc; do
		eval id=\$$(echo $t | tr a-z A-Z)_A
		has_row "$T/list" "$id" $t "$(stat -L -c %i /proc/$PID_A/ns/$t)" \
			"$USER_A" - some || bad=1
	done
	return $bad
}
check "container uts/net/mnt/ipc owned by user A, in use" container_ns
check "B's net namespace owned by user B, in use" \
	has_row "$T/list" "$NET_B" net "$(stat -L -c %i /proc/$PID_B/ns/net)" "$USER_B" - some
comm_of_a() {
	grep -q "^.*user .* $USER_A .*[ ,]$PID_A(sleep)" "$T/tree" && return 0
	diag "no $PID_A(sleep) on the tree line of user A:"
	diag "$(grep -E "user +$USER_A " "$T/tree")"
	return 1
}
check "-p shows user A's process" comm_of_a

# --- the namespaces no process is in
fd_net() {
	id=$("$NSTREE" --id-of "$FD_NET_PATH") || return 1
	[ "$id" = "$FD_NET" ] || { diag "--id-of $FD_NET_PATH: $id, nsholder said $FD_NET"; return 1; }
	has_row "$T/list" "$FD_NET" net "$(stat -L -c %i "$FD_NET_PATH")" "$USER_A" - none
}
check "fd-held net ns: listed, owned by user A, [no process]" fd_net
check "bind-mounted uts ns: listed, owned by the initial user ns, [no process]" \
	has_row "$T/list" "$BIND_UTS" uts "$BIND_UTS_INODE" "$INIT_USER" - none
sock_net() {
	if row "$T/list" "$SOCK_NET" | grep -q .; then
		diag "inactive namespace $SOCK_NET listed: $(row "$T/list" "$SOCK_NET")"
		return 1
	fi
	return 0
}
check "socket-held (inactive) net ns is not listed" sock_net

# --- the tree
# subtree FILE ID: the ids below ID in a tree listing (by indentation)
subtree() {
	awk -v id="$2" '
	NR == 1 { next }
	{
		match($0, /[a-z(]/)
		depth = RSTART
		nid = $2
	}
	inside && depth <= top { exit }
	inside { print nid }
	nid == id && !inside { inside = 1; top = depth }
	' "$1"
}
tree_shape() {
	a=$(subtree "$T/tree" "$USER_A")
	b=$(subtree "$T/tree" "$USER_B")
	bad=0
	for id in "$UTS_A" "$NET_A" "$MNT_A" "$IPC_A" "$FD_NET" "$USER_B" "$NET_B"; do
		echo "$a" | grep -qx "$id" || { diag "$id not below user A"; bad=1; }
	done
	echo "$b" | grep -qx "$NET_B" || { diag "$NET_B not below user B"; bad=1; }
	[ "$(echo "$b" | grep -c .)" = 1 ] || { diag "below B: $(echo $b)"; bad=1; }
	echo "$a" | grep -qx "$BIND_UTS" && { diag "$BIND_UTS below user A"; bad=1; }
	[ $bad = 0 ] || diag "$(cat "$T/tree")"
	return $bad
}
check "tree nests user B and A's namespaces below user A" tree_shape
tree_ids() {
	same_ids "$(awk 'NR > 1 { print $2 }' "$T/tree" | sort -n)" "$(ids "$T/list")"
}
check "tree and list show the same namespaces" tree_ids

# --- type filter
only_types() {
	f=$1
	shift
	other=$(awk -v want=" $* " 'NR > 1 && index(want, " " $2 " ") == 0' "$f")
	[ -z "$other" ] || { diag "unexpected types: $other"; return 1; }
	return 0
}
type_filter() {
	run "$T/netuts" -l -t net,uts || return 1
	only_types "$T/netuts" net uts || return 1
	same_ids "$(ids "$T/netuts")" \
		"$(awk 'NR > 1 && ($2 == "net" || $2 == "uts") { print $1 }' "$T/list" | sort -n)"
}
check "-t net,uts lists exactly the net and uts namespaces" type_filter
user_filter() {
	run "$T/user" -l -t user || return 1
	only_types "$T/user" user || return 1
	same_ids "$(ids "$T/user")" \
		"$(awk 'NR > 1 && $2 == "user" { print $1 }' "$T/list" | sort -n)"
}
check "-t user lists exactly the user namespaces" user_filter
tree_context() {
	run "$T/netuts-tree" -t net,uts || return 1
	# listed entries are net/uts; owners appear as "(user) ID"
	bad=$(awk 'NR > 1 { t = $1; gsub(/[|`-]/, "", t) } NR > 1 && t != "net" && t != "uts" && t != "(user)"' "$T/netuts-tree")
	[ -z "$bad" ] || { diag "unexpected lines: $bad"; return 1; }
	for id in "$INIT_USER" "$USER_A" "$USER_B"; do
		grep -qE "\(user\) +$id\$" "$T/netuts-tree" ||
			{ diag "no context line for user $id"; diag "$(cat "$T/netuts-tree")"; return 1; }
	done
	subtree "$T/netuts-tree" "$USER_A" | grep -qx "$FD_NET" ||
		{ diag "$FD_NET not below (user) $USER_A"; return 1; }
	return 0
}
check "-t net,uts tree keeps the owners as (user) context lines" tree_context
pid_filter() {
	run "$T/pid" -l -t pid || return 1
	same_ids "$(ids "$T/pid")" "$("$NSTREE" --id-of /proc/1/ns/pid)"
}
check "-t pid lists only the initial pid namespace" pid_filter

# --- owner filter
owner_a() {
	run "$T/owner-a" -l -o "$USER_A" || return 1
	same_ids "$(ids "$T/owner-a")" \
		"$(printf '%s\n' "$UTS_A" "$NET_A" "$MNT_A" "$IPC_A" "$FD_NET" "$USER_B" | sort -n)"
}
check "-o A lists exactly what user A owns" owner_a
owner_b() {
	run "$T/owner-b" -l -t net -o "$USER_B" || return 1
	same_ids "$(ids "$T/owner-b")" "$NET_B"
}
check "-t net -o B lists B's net namespace" owner_b
owner_current() {
	run "$T/owner-cur" -l -o current || return 1
	same_ids "$(ids "$T/owner-cur")" \
		"$(awk -v o="$INIT_USER" 'NR > 1 && $4 == o { print $1 }' "$T/list" | sort -n)"
}
check "-o current lists what the initial user ns owns" owner_current
owner_missing() {
	"$NSTREE" -l -o 999999999 >/dev/null 2>"$T/err"
	rc=$?
	[ $rc = 4 ] && grep -q "no active user namespace" "$T/err" && return 0
	diag "rc=$rc: $(cat "$T/err")"
	return 1
}
check "-o with an unknown id exits 4" owner_missing

# --- JSON
# A JSON grammar check in awk: no python in the guest.
json_valid() {
	awk '
	function ch() { return substr(s, pos, 1) }
	function ws() { while (pos <= n && index(" \t\r\n", ch()) > 0) pos++ }
	function str() {
		if (ch() != "\"") return 0
		for (pos++; pos <= n; pos++) {
			c = ch()
			if (c == "\"") { pos++; return 1 }
			if (c == "\\") pos++
			else if (c == "\n") return 0
		}
		return 0
	}
	function num() {
		if (!match(substr(s, pos), /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/))
			return 0
		pos += RLENGTH
		return 1
	}
	function value(  c) {
		ws()
		c = ch()
		if (c == "{") return obj()
		if (c == "[") return arr()
		if (c == "\"") return str()
		if (c ~ /[-0-9]/) return num()
		if (substr(s, pos, 4) == "true" || substr(s, pos, 4) == "null") { pos += 4; return 1 }
		if (substr(s, pos, 5) == "false") { pos += 5; return 1 }
		return 0
	}
	function obj() {
		pos++
		ws()
		if (ch() == "}") { pos++; return 1 }
		for (;;) {
			ws()
			if (!str()) return 0
			ws()
			if (ch() != ":") return 0
			pos++
			if (!value()) return 0
			ws()
			if (ch() == ",") { pos++; continue }
			if (ch() == "}") { pos++; return 1 }
			return 0
		}
	}
	function arr() {
		pos++
		ws()
		if (ch() == "]") { pos++; return 1 }
		for (;;) {
			if (!value()) return 0
			ws()
			if (ch() == ",") { pos++; continue }
			if (ch() == "]") { pos++; return 1 }
			return 0
		}
	}
	{ s = s $0 "\n" }
	END {
		n = length(s)
		pos = 1
		if (!value()) { print "syntax error at offset " pos; exit 1 }
		ws()
		if (pos <= n) { print "trailing data at offset " pos; exit 1 }
	}' "$1" >"$T/json.err" && return 0
	diag "$1: $(cat "$T/json.err")"
	return 1
}
# json_shape FILE PIDS: the lsns-like layout, one object per line
json_shape() {
	bad=$(awk -v pids="$2" '
	NR == 1 { if ($0 != "{") print "line 1: " $0; next }
	NR == 2 { if ($0 != "   \"namespaces\": [") print "line 2: " $0; next }
	/^   \]$/ { closed = NR; next }
	closed { if (NR != closed + 1 || $0 != "}") print "after ]: " $0; next }
	{
		re = "^      \\{\"id\": [0-9]+, \"type\": \"[a-z]+\", \"inode\": [0-9]+, \"owner\": ([0-9]+|null), \"uid\": ([0-9]+|null), \"nprocs\": [0-9]+"
		if (pids) re = re ", \"pids\": \\[([0-9]+(, [0-9]+)*)?\\]"
		re = re "\\},?$"
		if ($0 !~ re) print "line " NR ": " $0
	}
	END { if (!closed) print "no closing ]" }' "$1")
	[ -z "$bad" ] && return 0
	diag "$bad"
	return 1
}
json_ids() {
	sed -n 's/^ *{"id": \([0-9]*\),.*/\1/p' "$1" | sort -n
}
# json_obj FILE ID: the object line of ID
json_obj() {
	grep "^ *{\"id\": $2," "$1"
}
json_basic() {
	run "$T/json" -J && json_valid "$T/json" && json_shape "$T/json" ""
}
check "-J is valid JSON of the documented shape" json_basic
json_same() {
	same_ids "$(json_ids "$T/json")" "$(ids "$T/list")" || return 1
	o=$(json_obj "$T/json" "$FD_NET")
	case "$o" in
	*"\"type\": \"net\", \"inode\": $FD_NET_INODE, \"owner\": $USER_A, \"uid\": null, \"nprocs\": 0}"*) ;;
	*) diag "fd-held net: $o"; return 1 ;;
	esac
	o=$(json_obj "$T/json" "$USER_A")
	case "$o" in
	*"\"type\": \"user\", \"inode\": $USER_A_INODE, \"owner\": $INIT_USER, \"uid\": 1000, "*) ;;
	*) diag "user A: $o"; return 1 ;;
	esac
	o=$(json_obj "$T/json" "$INIT_USER")
	case "$o" in
	*"\"owner\": null, \"uid\": 0, "*) ;;
	*) diag "initial user ns: $o"; return 1 ;;
	esac
}
check "-J has the ids, owners and counts of the text output" json_same
json_pids() {
	run "$T/jsonp" -J -p && json_valid "$T/jsonp" && json_shape "$T/jsonp" 1 || return 1
	o=$(json_obj "$T/jsonp" "$USER_A")
	echo "$o" | grep -qE "\"pids\": \[([0-9]+, )*$PID_A(, [0-9]+)*\]" ||
		{ diag "user A: $o"; return 1; }
	o=$(json_obj "$T/jsonp" "$BIND_UTS")
	echo "$o" | grep -q '"nprocs": 0, "pids": \[\]}' ||
		{ diag "bind uts: $o"; return 1; }
}
check "-J -p lists the pids" json_pids
json_filtered() {
	run "$T/json-netuts" -J -t net,uts && json_valid "$T/json-netuts" || return 1
	same_ids "$(json_ids "$T/json-netuts")" "$(ids "$T/netuts")"
}
check "-J -t net,uts has the ids of -l -t net,uts" json_filtered

# --- pagination
paging() {
	for s in 1 2 7; do
		run "$T/page$s" -l -s $s || return 1
		same_ids "$(ids "$T/page$s")" "$(ids "$T/list")" || { diag "page size $s"; return 1; }
	done
	for s in 1 3; do
		run "$T/page-net$s" -l -t net -s $s || return 1
		same_ids "$(ids "$T/page-net$s")" \
			"$(awk 'NR > 1 && $2 == "net" { print $1 }' "$T/list" | sort -n)" ||
			{ diag "-t net, page size $s"; return 1; }
	done
}
check "page sizes 1, 2, 7 give the same listing" paging
# listns() (7.3) starts after the cursor at the first namespace in the
# tree and skips inactive ones like any other: a cursor right before the
# inactive socket-held namespace lists the active namespaces after it.
# (7.2 gave ENOENT there.)  Both kernels must show it.
paging_inactive() {
	"$NSTREE" -D -l -s 1 >"$T/dbg" 2>"$T/dbg.err" || { diag "$(cat "$T/dbg.err")"; return 1; }
	# the cursor of the call that passes SOCK_NET: the last id listed before it
	cur=$(ids "$T/list" | awk -v s="$SOCK_NET" '$1 < s { c = $1 } END { print c }')
	grep -q "listns(ns_id=$cur ns_type=0 .*) = 1\$" "$T/dbg.err" ||
		{ diag "cursor $cur (before inactive $SOCK_NET) did not list one id:"; diag "$(grep "ns_id=$cur " "$T/dbg.err")"; return 1; }
	max=$(ids "$T/dbg" | tail -1)
	[ "$max" -gt "$SOCK_NET" ] || { diag "nothing listed after $SOCK_NET"; return 1; }
	same_ids "$(ids "$T/dbg")" "$(ids "$T/list")"
}
check "cursor before an inactive ns continues past it; nstree lists all" paging_inactive

# --- the command line
help_text() {
	"$NSTREE" -h >"$T/help" 2>&1 || { diag "-h failed"; return 1; }
	for s in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" EXAMPLES; do
		grep -qx "$s" "$T/help" || { diag "no section $s"; return 1; }
	done
	cmp -s "$T/help" /dev/null && return 1
	"$NSTREE" --help | cmp -s - "$T/help"
}
check "-h and --help print the manual sections" help_text
usage_errors() {
	bad=0
	for args in "-x" "-t bogus" "-t net,bogus" "-s 0" "-s 1000001" "-s x" "-o 0" \
		    "-o foo" "-l -J" "extra"; do
		# shellcheck disable=SC2086
		"$NSTREE" $args >/dev/null 2>&1
		rc=$?
		[ $rc = 1 ] || { diag "nstree $args: rc=$rc, want 1"; bad=1; }
	done
	return $bad
}
check "usage errors exit 1" usage_errors
id_of_errors() {
	"$NSTREE" --id-of /proc/self/status >/dev/null 2>"$T/err"
	rc=$?
	[ $rc = 4 ] && grep -q "not a namespace file" "$T/err" && return 0
	diag "rc=$rc: $(cat "$T/err")"
	return 1
}
check "--id-of a non-namespace file exits 4" id_of_errors
unprivileged() {
	su -s /bin/sh user -c "$NSTREE -l" >"$T/unpriv" 2>"$T/unpriv.err"
	rc=$?
	[ $rc = 0 ] || { diag "rc=$rc: $(cat "$T/unpriv.err")"; return 1; }
	# listns() shows an unprivileged caller only its own namespaces
	want=$(su -s /bin/sh user -c \
		"for t in cgroup ipc mnt net pid time user uts; do $NSTREE --id-of /proc/self/ns/\$t; done" |
		sort -n)
	same_ids "$(ids "$T/unpriv")" "$want" || return 1
	grep -q "not readable" "$T/unpriv.err" ||
		{ diag "no warning about unreadable /proc links"; return 1; }
}
check "unprivileged: only the caller's own namespaces" unprivileged

# Root in user A, not in the initial user namespace: listns() shows
# only the caller's own namespaces, even those A owns but the caller is
# not in (the fd-held net, user B) stay hidden, also with -o current.
in_user_a() {
	nsenter -t "$PID_A" -U -u -n -m -i -- "$NSTREE" -l >"$T/in-a" 2>"$T/in-a.err" ||
		{ diag "nsenter nstree -l: $(cat "$T/in-a.err")"; return 1; }
	want=$(printf '%s\n' "$USER_A" "$UTS_A" "$NET_A" "$MNT_A" "$IPC_A" \
		"$("$NSTREE" --id-of /proc/1/ns/cgroup)" \
		"$("$NSTREE" --id-of /proc/1/ns/pid)" \
		"$("$NSTREE" --id-of /proc/1/ns/time)" | sort -n)
	same_ids "$(ids "$T/in-a")" "$want" || return 1
	# A's parent is outside the caller's user namespace: no owner
	has_row "$T/in-a" "$USER_A" user "$USER_A_INODE" - 0 any || return 1
	nsenter -t "$PID_A" -U -u -n -m -i -- "$NSTREE" -l -o current >"$T/in-a-cur" 2>"$T/in-a-cur.err" ||
		{ diag "nsenter nstree -l -o current: $(cat "$T/in-a-cur.err")"; return 1; }
	same_ids "$(ids "$T/in-a-cur")" \
		"$(printf '%s\n' "$UTS_A" "$NET_A" "$MNT_A" "$IPC_A" | sort -n)"
}
check "root in user A: only its current namespaces, also with -o current" in_user_a

skip "ENOSYS exits 2" "this kernel has listns(); only a kernel without it can show exit 2"

# --- teardown: what held the namespaces goes, so do they
gone() {
	i=0
	while :; do
		"$NSTREE" -l >"$T/after" 2>/dev/null || return 1
		left=
		for id in "$@"; do
			row "$T/after" "$id" | grep -q . && left="$left $id"
		done
		[ -z "$left" ] && return 0
		i=$((i + 1))
		[ $i -lt 50 ] || { diag "still listed:$left"; return 1; }
		usleep 100000
	done
}
teardown() {
	kill "$FD_HOLDER"
	umount "$BIND_UTS_PATH"
	gone "$FD_NET" "$BIND_UTS" || return 1
	kill "$PID_B" "$PID_A"
	gone "$USER_A" "$USER_B" "$UTS_A" "$NET_A" "$MNT_A" "$IPC_A" "$NET_B"
}
check "namespaces disappear with their last holder" teardown

nstree-scene teardown $D >/dev/null 2>&1
rm -rf "$T"
[ $n = $PLAN ] || { echo "# planned $PLAN tests, ran $n"; exit 1; }
[ $failed = 0 ]
