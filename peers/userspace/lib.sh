# SPDX-License-Identifier: GPL-2.0
# Shared by the user-space peer tests (guest, root, busybox sh): TAP
# output, the Debian binaries, and listns() through nstree.  Sourced.

# Debian's util-linux and iproute2 (scripts/guest-debs.sh); busybox has
# applets of the same names in PATH, these are called by full path.
U=/opt/debian/usr/bin
LSNS=$U/lsns
NSENTER=$U/nsenter
UNSHARE=$U/unshare
SETPRIV=$U/setpriv
IP=$U/ip
# The container runtimes (also from Debian, unmodified).
CRUN=$U/crun
BWRAP=$U/bwrap
CRIU=/opt/debian/usr/sbin/criu
NSTREE=$(command -v nstree)
TYPES="cgroup ipc mnt net pid time user uts"
n=0
failed=0

tap_begin() {
	echo "TAP version 13"
	echo "1..$1"
	PLAN=$1
}

ok() {
	n=$((n + 1))
	echo "ok $n $1"
}

not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n $1"
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

# skip NAME REASON: a TAP skip
skip() {
	n=$((n + 1))
	echo "ok $n $1 # SKIP $2"
}

bail() {
	echo "Bail out! $*"
	! command -v cleanup >/dev/null || cleanup
	exit 1
}

tap_end() {
	[ $n = "$PLAN" ] || { echo "# planned $PLAN tests, ran $n"; exit 1; }
	[ $failed = 0 ]
}

# need_tools: the Debian binaries run (loader and libraries in place).
need_tools() {
	[ -n "$NSTREE" ] || bail "no nstree in PATH"
	[ "$(id -u)" = 0 ] || bail "must run as root"
	for b in "$LSNS" "$NSENTER" "$UNSHARE" "$IP"; do
		"$b" -V >/dev/null 2>&1 || bail "$b does not run: $("$b" -V 2>&1 | head -1)"
	done
	diag "$("$LSNS" -V); $("$IP" -V | head -1)"
}

# need_bin BINARY...: each runs (--version), else bail with why
need_bin() {
	for b in "$@"; do
		"$b" --version >/dev/null 2>&1 ||
			bail "$b does not run: $("$b" --version 2>&1 | head -1)"
	done
}

# own_root SCRIPT ARGS...: run SCRIPT again, in a mount namespace of its
# own whose root is a bind mount of / moved over / (as switch_root does),
# with a devpts instance on /dev/pts and cgroup2 on /sys/fs/cgroup.
# The guest's root is the initramfs, the rootfs mount, which has no
# parent: pivot_root(2) refuses to move it (EINVAL), and crun, bwrap and
# CRIU's restore all pivot_root.  crun wants a cgroup file system on
# /sys/fs/cgroup even without a cgroup manager, CRIU's check opens a pty.
# The namespaces the tests look at are those of this shell: only the
# mount namespace differs.
own_root() {
	[ -z "${NSTREE_OWN_ROOT:-}" ] || return 0
	NSTREE_OWN_ROOT=1 exec "$UNSHARE" -m --propagation private /bin/sh -c '
		R=/run/.own-root
		mkdir -p $R && mount -o rbind / $R || exit 1
		mounted() { awk -v d="$1" '"'"'$5 == d { f = 1 } END { exit !f }'"'"' /proc/self/mountinfo; }
		mounted $R/dev/pts ||
			mount -t devpts -o newinstance,ptmxmode=0666 devpts $R/dev/pts
		mounted $R/sys/fs/cgroup ||
			mount -t cgroup2 cgroup2 $R/sys/fs/cgroup
		cd $R && mount -o move $R / && exec chroot . "$@"' own-root "$@"
}

# ns_ids PID FILE: "TYPE ID INODE" of each of PID's namespaces, into FILE
ns_ids() {
	: >"$2"
	for _t in $TYPES; do
		_i=$("$NSTREE" --id-of /proc/$1/ns/$_t 2>/dev/null) || return 1
		echo "$_t $_i $(link_inode /proc/$1/ns/$_t)" >>"$2"
	done
}

# id_of FILE TYPE: the id of TYPE in an ns_ids FILE
id_of() {
	awk -v t="$2" '$1 == t { print $2 }' "$1"
}

# listed_as LISTNS IDS TYPES OWNER: each namespace of TYPES in the ns_ids
# file IDS is in the listns rows LISTNS with its type and inode, and the
# user namespace with id OWNER owns it
listed_as() {
	awk -v types=" $3 " -v owner="$4" '
	NR == FNR { row[$1] = $0; type[$1] = $2; ino[$1] = $3; own[$1] = $4; next }
	index(types, " " $1 " ") {
		if (!($2 in row)) { print "# " $1 " " $2 " (inode " $3 "): not listed"; bad = 1; next }
		if (type[$2] != $1 || ino[$2] != $3) { print "# " $1 " " $2 " (inode " $3 "): listed as " row[$2]; bad = 1 }
		if (own[$2] != owner) { print "# " $1 " " $2 ": owner " own[$2] ", want " owner; bad = 1 }
	}
	END { exit bad }' "$1" "$2"
}

# none_listed LISTNS IDS TYPES: no namespace of TYPES in IDS is listed
none_listed() {
	awk -v types=" $3 " '
	NR == FNR { row[$1] = $0; next }
	index(types, " " $1 " ") && ($2 in row) { print "# still listed: " row[$2]; bad = 1 }
	END { exit bad }' "$1" "$2"
}

# gone_from_listns IDS TYPES: wait (10 s at most) until listns() lists
# none of the namespaces of TYPES in the ns_ids file IDS
gone_from_listns() {
	_g=0
	until listns "$T/lib.gone" && none_listed "$T/lib.gone" "$1" "$2" >/dev/null; do
		_g=$((_g + 1))
		[ $_g -lt 100 ] || { none_listed "$T/lib.gone" "$1" "$2"; return 1; }
		usleep 100000
	done
}

# nsenter_all IDS TYPES: nsenter --TYPE=:ID into each namespace of TYPES
# in IDS runs a program there (its /proc/self/ns link shows the inode).
# Into a mount namespace, nsenter enters the pid namespace of IDS too:
# the /proc mounted there may be that pid namespace's, in which
# /proc/self of a process outside it does not resolve.
nsenter_all() {
	_bad=0
	for _t in $2; do
		_id=$(id_of "$1" $_t)
		_ino=$(awk -v t=$_t '$1 == t { print $3 }' "$1")
		_also=
		[ $_t != mnt ] || _also=--pid=:$(id_of "$1" pid)
		# shellcheck disable=SC2086
		_got=$("$NSENTER" "$(nsenter_opt $_t)=:$_id" $_also readlink /proc/self/ns/$_t 2>"$T/lib.err")
		[ "$_got" = "$_t:[$_ino]" ] ||
			{ diag "nsenter $(nsenter_opt $_t)=:$_id $_also: got '$_got', want '$_t:[$_ino]': $(cat "$T/lib.err")"; _bad=1; }
	done
	return $_bad
}

# differ A B TYPES SAME: A's namespaces of TYPES are not B's, those of SAME are
differ() {
	bad=0
	for t in $3; do
		[ "$(id_of "$1" $t)" != "$(id_of "$2" $t)" ] || { diag "$t: the same namespace"; bad=1; }
	done
	for t in $4; do
		[ "$(id_of "$1" $t)" = "$(id_of "$2" $t)" ] || { diag "$t: a new namespace"; bad=1; }
	done
	return $bad
}

# refused_with ID MESSAGE: nsenter could not open namespace ID, for the
# errno whose strerror() is MESSAGE.  The kernel opens a namespace by id
# through an nsfs file handle: nsfs_fh_to_dentry() finds no namespace
# for an unknown id, refuses an inactive one (ns_get_unless_inactive())
# and, with EPERM, one the caller is not in without
# may_see_all_namespaces(); do_handle_to_path() (fs/fhandle.c) returns
# every decoding error but ENOMEM as ESTALE.
refused_with() {
	grep -qF "cannot open namespace of id $1: $2" "$T/err" && return 0
	diag "nsenter said: $(cat "$T/err")" "want: cannot open namespace of id $1: $2"
	return 1
}
# find_cmd CMDLINE: the pids whose command line is CMDLINE (words)
find_cmd() {
	for _p in /proc/[0-9]*; do
		[ "$(tr '\0' ' ' <"$_p/cmdline" 2>/dev/null)" = "$1 " ] && echo "${_p#/proc/}"
	done
}

# listns FILE [ARGS]: nstree -l (listns(), one namespace a line:
# ID TYPE INODE OWNER UID NPROCS [MARK]), without the header.
listns() {
	f=$1
	shift
	"$NSTREE" -l "$@" >"$f.tmp" 2>"$f.err" || { diag "nstree -l $*: $(cat "$f.err")"; return 1; }
	awk 'NR > 1' "$f.tmp" >"$f"
}

# ns_row FILE INODE: the listns() row of the namespace with this inode
ns_row() {
	awk -v ino="$2" '$3 == ino' "$1"
}

# new_ids BEFORE AFTER: ids in AFTER (listns rows) that BEFORE does not have
new_ids() {
	awk 'NR == FNR { seen[$1] = 1; next } !seen[$1] { print $1 }' "$1" "$2"
}

# wait_for COMMAND...: until COMMAND succeeds, 10 s at most
wait_for() {
	_w=0
	until "$@"; do
		_w=$((_w + 1))
		[ $_w -lt 100 ] || return 1
		usleep 100000
	done
}

link_inode() {
	readlink "$1" 2>/dev/null | sed -n 's/.*:\[\([0-9]*\)\]$/\1/p'
}

# nsenter's option for a namespace type
nsenter_opt() {
	case "$1" in mnt) echo --mount ;; *) echo "--$1" ;; esac
}

# ns_changed LINK INODE: LINK exists and no longer points to INODE
ns_changed() {
	_l=$(link_inode "$1")
	[ -n "$_l" ] && [ "$_l" != "$2" ]
}

# children PID: the pids of PID's children (busybox has no pgrep)
children() {
	cat /proc/[0-9]*/stat 2>/dev/null | awk -v p="$1" '$4 == p { print $1 }'
}

has_children() {
	[ -n "$(children "$1")" ]
}
