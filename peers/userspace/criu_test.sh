#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# criu_test: Debian's CRIU, unmodified.  criu check first; then a process
# tree that unshare -fpmuiC --mount-proc makes (new pid, mount, uts, ipc
# and cgroup namespaces, its init the session leader) is dumped and
# restored.  listns() (nstree) must list the tree's namespaces, owned by
# our user namespace, before the dump; none of them after it; the
# restored tree's afterwards, with the same structure: the same types of
# its own and shared with us, its init pid 1 of a pid namespace one
# level below ours, the same mounts and host name; plus the time
# namespace in which CRIU restores the dumped monotonic and boottime
# clocks (it does so whenever it dumped the clocks of a time namespace
# it shares, timens.c prepare_timens()).  nsenter --TYPE=:ID must enter
# the namespaces before the dump and after the restore.
#
# CRIU needs kernel options that the test kernels may not have: what
# criu check reports missing is the reason of the skips then.
set -u
. "$(dirname "$0")/.helpers/peers-lib.sh"
own_root "$0" "$@"
T=/run/criu-test.out
CMD="sleep 7654322"
OWN="cgroup ipc mnt pid uts"	# what unshare -fpmuiC makes

tap_begin 10
need_tools
need_bin "$CRIU"
diag "criu $("$CRIU" --version | sed -n 's/^Version: //p')"
rm -rf "$T"
mkdir -p "$T/img"
INIT=
cleanup() {
	[ -z "$INIT" ] || kill -KILL "$INIT" 2>/dev/null
	# shellcheck disable=SC2046
	[ -z "$(find_cmd "$CMD")" ] || kill -KILL $(find_cmd "$CMD") 2>/dev/null
}

# --- criu check
# The kernel options behind what criu check (4.2) reports missing.
config_hint() {
	case "$1" in
	*pagemap*) echo "CONFIG_PROC_PAGE_MONITOR=y (/proc/PID/pagemap)" ;;
	*"Diag module"*) echo "CONFIG_UNIX_DIAG, CONFIG_INET_DIAG, CONFIG_NETLINK_DIAG, CONFIG_PACKET_DIAG (for trees with sockets)" ;;
	*inotify*) echo "CONFIG_INOTIFY_USER=y" ;;
	*map_files*) echo "CONFIG_CHECKPOINT_RESTORE=y (/proc/PID/map_files)" ;;
	*kcmp* | *KCMP*) echo "CONFIG_KCMP=y" ;;
	*ptmx* | *pty*) echo "CONFIG_UNIX98_PTYS=y and devpts on /dev/pts" ;;
	*) echo "see criu check" ;;
	esac
}
"$CRIU" check >"$T/check.out" 2>&1
check_rc=$?
MISSING=
if [ $check_rc = 0 ] && grep -qx 'Looks good.' "$T/check.out"; then
	ok "criu check: looks good"
else
	# What stopped it: the last error before the summary ("Could not
	# initialize ..." or "Looks good but ..."); the socket diag errors
	# criu check also prints do not stop a dump of a tree without
	# sockets.
	err=$(grep -i 'error' "$T/check.out" | grep -v 'Diag module\|Could not initialize\|check_.* failed when' |
		tail -1 | sed 's/^.*): //')
	[ -n "$err" ] || err=$(tail -1 "$T/check.out")
	MISSING="criu check: $err: $(config_hint "$err")"
	diag "$(cat "$T/check.out")"
	skip "criu check: looks good" "$MISSING"
fi

# later NAME REASON...: skip NAME if the dump cannot happen (criu check
# reported what is missing), else fail it with the reason
cannot() {
	if [ -n "$MISSING" ]; then
		skip "$1" "$MISSING"
	else
		not_ok "$1"
		shift
		diag "$*"
	fi
}

# --- the tree.  Its fds 0-2 are opened inside its own mount namespace,
# the rest closed: CRIU cannot dump a file of a mount it does not see.
"$UNSHARE" -fpmuiC --mount-proc /bin/sh -c \
	'for f in $(ls /proc/$$/fd); do [ $f -gt 2 ] && eval "exec $f>&-"; done
	exec setsid '"$CMD"' </dev/null >/dev/null 2>&1' </dev/null >/dev/null 2>&1 &
started() {
	INIT=$(find_cmd "$CMD")
	[ -n "$INIT" ]
}
# snapshot PID NAME: its namespaces, NSpid, mounts and host name
snapshot() {
	ns_ids "$1" "$T/$2" || return 1
	sed -n 's/^NSpid:[[:space:]]*//p' /proc/$1/status | awk '{ print NF, $NF }' >"$T/$2.nspid"
	awk '{ for (i = 7; $i != "-"; i++); print $5, $(i + 1) }' /proc/$1/mountinfo | sort >"$T/$2.mounts"
	"$NSENTER" -t "$1" -u hostname >"$T/$2.hostname" 2>&1
}
ns_ids self "$T/ours" || bail "NS_GET_ID of our namespaces failed"
ME=$(id_of "$T/ours" user)
tree() {
	wait_for started || { diag "no '$CMD'"; return 1; }
	snapshot "$INIT" before || return 1
	[ "$(cat "$T/before.nspid")" = "2 1" ] || { diag "NSpid levels and pid: $(cat "$T/before.nspid")"; return 1; }
	listns "$T/listns.before" || return 1
	differ "$T/before" "$T/ours" "$OWN" "net time user" &&
		listed_as "$T/listns.before" "$T/before" "$OWN" "$ME"
}
check "unshare -fpmuiC --mount-proc: listns() lists the tree's 5 new namespaces, owned by ours" tree
[ -n "$INIT" ] || bail "no tree"
diag "tree init pid $INIT:" "$(cat "$T/before")"
check "nsenter --TYPE=:ID enters each of the tree's namespaces" nsenter_all "$T/before" "$OWN"

# --- dump (the tree is killed once dumped)
no_cmd() {
	[ -z "$(find_cmd "$CMD")" ]
}
if "$CRIU" dump -t "$INIT" -D "$T/img" -o dump.log -v4 --external 'mnt[]' >"$T/dump.out" 2>&1 &&
   wait_for no_cmd; then
	ok "criu dump"
	DUMPED=1
else
	cannot "criu dump" "$(cat "$T/dump.out")" "$(grep -E 'Error|Warn' "$T/img/dump.log" 2>/dev/null | head -20)"
	DUMPED=
	kill -KILL "$INIT" 2>/dev/null
fi
INIT=
check "the dumped tree's namespaces leave listns()" gone_from_listns "$T/before" "$OWN"

# --- restore: a new mount namespace needs --root; the mounts the tree
# shared with us (proc, sysfs, devtmpfs, ...) are external
restored() {
	[ -n "$DUMPED" ] || return 1
	"$CRIU" restore -D "$T/img" -o restore.log -v4 -d --root / --ext-mount-map auto \
		>"$T/restore.out" 2>&1 || return 1
	wait_for started
}
if restored; then
	ok "criu restore"
else
	cannot "criu restore" "$(cat "$T/restore.out" 2>/dev/null)" \
		"$(grep -E 'Error|Warn' "$T/img/restore.log" 2>/dev/null | head -20)"
fi
same() {
	snapshot "$INIT" after || return 1
	bad=0
	differ "$T/after" "$T/ours" "$OWN time" "net user" || bad=1
	for t in $OWN; do
		[ "$(id_of "$T/after" $t)" != "$(id_of "$T/before" $t)" ] || { diag "$t: the dumped namespace"; bad=1; }
	done
	for f in nspid mounts hostname; do
		cmp -s "$T/before.$f" "$T/after.$f" ||
			{ diag "$f before:" "$(cat "$T/before.$f")" "after:" "$(cat "$T/after.$f")"; bad=1; }
	done
	return $bad
}
restored_listed() {
	listns "$T/listns.after" && listed_as "$T/listns.after" "$T/after" "$OWN time" "$ME"
}
if [ -n "$INIT" ]; then
	check "the restored tree has the dumped structure of namespaces, pids and mounts (and a time namespace)" same
	check "listns() lists the restored tree's 6 new namespaces, owned by ours" restored_listed
	check "nsenter --TYPE=:ID enters each of the restored tree's namespaces" nsenter_all "$T/after" "$OWN time"
	ending() {
		kill -KILL "$INIT"
		wait_for no_cmd && gone_from_listns "$T/after" "$OWN time"
	}
	check "the restored tree's namespaces leave listns() when it is killed" ending
	INIT=
else
	for name in "the restored tree has the dumped structure of namespaces, pids and mounts (and a time namespace)" \
		"listns() lists the restored tree's 6 new namespaces, owned by ours" \
		"nsenter --TYPE=:ID enters each of the restored tree's namespaces" \
		"the restored tree's namespaces leave listns() when it is killed"; do
		cannot "$name" "no restored tree"
	done
fi

cleanup
rm -rf "$T"
tap_end
