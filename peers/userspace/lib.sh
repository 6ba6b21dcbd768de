# SPDX-License-Identifier: GPL-2.0
# Shared by the user-space peer tests (guest, root, busybox sh): TAP
# output, the Debian binaries, and listns() through nstree.  Sourced.

# Debian's util-linux and iproute2 (scripts/guest-debs.sh); busybox has
# applets of the same names in PATH, these are called by full path.
U=/opt/debian/usr/bin
LSNS=$U/lsns
NSENTER=$U/nsenter
UNSHARE=$U/unshare
IP=$U/ip
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
