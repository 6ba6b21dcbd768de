#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# nsenter_test: util-linux's unshare and nsenter against listns().
# For each namespace type, unshare(1) makes a new namespace with a
# process in it; listns() (nstree) must list exactly one new namespace of
# that type, with the inode of the process's link and the id NS_GET_ID
# gives; then nsenter --TYPE=:ID, with the id listns() returned, must run
# a program in that namespace (its own /proc/self/ns link shows the
# inode).  nsenter must fail for the id of an inactive namespace (only a
# socket pins it, listns() does not list it: the kernel does not open it
# by id) and for an id no namespace has, both with ESTALE; and the
# namespaces must leave listns() with their processes.
set -u
. "$(dirname "$0")/.helpers/peers-lib.sh"
T=/run/nsenter-test.out

tap_begin 19
need_tools
rm -rf "$T"
mkdir -p "$T"
holders=
ids=
cleanup() {
	# shellcheck disable=SC2086
	kill -KILL $holders 2>/dev/null
}

# holder TYPE: start unshare(1) making a TYPE namespace; H is the pid
# of the process that is in it.
holder() {
	case $1 in
	pid) "$UNSHARE" --pid --fork sleep 1000000 >/dev/null 2>&1 & ;;
	user) "$UNSHARE" --user --map-root-user sleep 1000000 >/dev/null 2>&1 & ;;
	*) "$UNSHARE" "$(nsenter_opt "$1")" sleep 1000000 >/dev/null 2>&1 & ;;
	esac
	H=$!
	holders="$holders $H"
	if [ "$1" = pid ]; then
		# the forked child is the one in the new pid namespace
		wait_for has_children $H || return 1
		H=$(children $H)
		holders="$holders $H"
	fi
}

# One namespace of each type, then one listns() before and one after.
listns "$T/before" || bail "listns failed"
for t in $TYPES; do
	mine=$(link_inode /proc/self/ns/$t)
	eval "H_$t="
	holder $t && wait_for ns_changed /proc/$H/ns/$t "$mine" && eval "H_$t=$H"
done
listns "$T/after" || bail "listns failed"
for t in $TYPES; do
	eval h=\$H_$t
	if [ -z "$h" ]; then
		diag "no process of unshare $(nsenter_opt $t) is in a new $t namespace"
		not_ok "unshare $(nsenter_opt $t): listns() lists the new $t namespace"
		not_ok "nsenter $(nsenter_opt $t)=:ID enters it"
		continue
	fi
	ino=$(link_inode /proc/$h/ns/$t)
	id=$("$NSTREE" --id-of /proc/$h/ns/$t)
	new=$(awk -v t=$t 'NR == FNR { seen[$1] = 1; next } !seen[$1] && $2 == t { print $1 }' \
		"$T/before" "$T/after")
	r=$(ns_row "$T/after" "$ino")
	if [ "$(echo $new)" = "$id" ] && [ "$(echo "$r" | awk '{ print $1, $2 }')" = "$id $t" ]; then
		diag "$t: id $id, inode $ino"
		ok "unshare $(nsenter_opt $t): listns() lists the new $t namespace"
		ids="$ids $id"
	else
		not_ok "unshare $(nsenter_opt $t): listns() lists the new $t namespace"
		diag "new $t ids: $(echo $new); NS_GET_ID: $id; row of inode $ino: '$r'"
	fi
	# nsenter by the id listns() returned
	lid=$(echo "$r" | awk '{ print $1 }')
	got=$("$NSENTER" "$(nsenter_opt $t)=:${lid:-0}" readlink /proc/self/ns/$t 2>"$T/err")
	if [ -n "$lid" ] && [ "$got" = "$t:[$ino]" ]; then
		ok "nsenter $(nsenter_opt $t)=:ID enters it"
	else
		not_ok "nsenter $(nsenter_opt $t)=:ID enters it"
		diag "id '$lid': got '$got', want '$t:[$ino]': $(cat "$T/err")"
	fi
done

inactive() {
	nsholder -s net >"$T/sock" 2>"$T/sock.err" || { diag "nsholder -s net: $(cat "$T/sock.err")"; return 1; }
	read -r spid _ sid sino _ <"$T/sock"
	holders="$holders $spid"
	listns "$T/sock-list" -t net || return 1
	[ -z "$(ns_row "$T/sock-list" "$sino")" ] || { diag "listns() lists the socket-pinned net $sino"; return 1; }
	if "$NSENTER" --net=:"$sid" true 2>"$T/err"; then
		diag "nsenter --net=:$sid entered the inactive net namespace $sino"
		return 1
	fi
	diag "nsenter --net=:$sid: $(cat "$T/err")"
	refused_with "$sid" "Stale file handle"
}
check "nsenter --net=:ID of an inactive (socket-pinned) namespace fails: ESTALE" inactive
unknown() {
	max=$("$NSTREE" -l | awk 'NR > 1 && $1 > m { m = $1 } END { print m }')
	if "$NSENTER" --net=:$((max + 1000)) true 2>"$T/err"; then
		diag "nsenter --net=:$((max + 1000)) succeeded"
		return 1
	fi
	diag "nsenter --net=:$((max + 1000)): $(cat "$T/err")"
	refused_with $((max + 1000)) "Stale file handle"
}
check "nsenter --net=:ID of an id no namespace has fails: ESTALE" unknown
gone() {
	# SIGKILL: the init of a pid namespace ignores other signals from
	# outside it when it has no handler for them.
	# shellcheck disable=SC2086
	kill -KILL $holders 2>/dev/null
	still() {
		listns "$T/end" || return 0
		left=
		for id in $ids; do
			awk -v id="$id" '$1 == id { f = 1 } END { exit !f }' "$T/end" && left="$left $id"
		done
		[ -n "$left" ]
	}
	i=0
	while still; do
		i=$((i + 1))
		[ $i -lt 100 ] || { diag "still listed:$left"; return 1; }
		usleep 100000
	done
	[ -n "$ids" ]
}
check "the namespaces leave listns() with their processes" gone

rm -rf "$T"
tap_end
