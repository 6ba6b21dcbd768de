#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ip_netns_test: iproute2's ip netns against listns().  "ip netns add"
# makes a net namespace that no process is in, kept by a bind mount of
# its nsfs file on /run/netns/NAME: listns() must list it (inode of the
# mount, id NS_GET_ID gives), lsns must show it with that NSFS path, a
# program run by "ip netns exec" and by nsenter --net=:ID (the id from
# listns()) must be in it, "ip netns identify" must name it, and after
# "ip netns del" it must leave listns().
set -u
. "$(dirname "$0")/.helpers/peers-lib.sh"
T=/run/ip-netns-test.out
NAMES="nstree-a nstree-b"
cleanup() {
	for nm in $NAMES; do "$IP" netns del $nm 2>/dev/null; done
}

tap_begin 9
need_tools
rm -rf "$T"
mkdir -p "$T"
listns "$T/before" -t net || bail "listns failed"

adds() {
	for nm in $NAMES; do
		"$IP" netns add $nm 2>"$T/err" || { diag "ip netns add $nm: $(cat "$T/err")"; return 1; }
	done
}
check "ip netns add (two namespaces)" adds
for nm in $NAMES; do
	eval "INO_$(echo $nm | tr -d -)=\$(stat -L -c %i /run/netns/$nm 2>/dev/null)"
	eval "ID_$(echo $nm | tr -d -)=\$(\"\$NSTREE\" --id-of /run/netns/$nm 2>/dev/null)"
done
ino_of() { eval echo "\${INO_$(echo $1 | tr -d -):-}"; }
id_of() { eval echo "\${ID_$(echo $1 | tr -d -):-}"; }

listed() {
	listns "$T/after" -t net || return 1
	new=$(new_ids "$T/before" "$T/after" | sort -n)
	want=$(for nm in $NAMES; do id_of $nm; done | sort -n)
	[ "$(echo $new)" = "$(echo $want)" ] || { diag "new ids: $(echo $new); NS_GET_ID of /run/netns/*: $(echo $want)"; return 1; }
	bad=0
	for nm in $NAMES; do
		set -- $(ns_row "$T/after" "$(ino_of $nm)")
		[ "${1:-}" = "$(id_of $nm)" ] && [ "${2:-}" = net ] && [ "${6:-}" = 0 ] ||
			{ diag "$nm (inode $(ino_of $nm)): row '$*'"; bad=1; }
	done
	return $bad
}
check "listns() lists them: inode of /run/netns/NAME, NS_GET_ID id, no process" listed
lsns_nsfs() {
	"$LSNS" -r -n -t net -o NS,NSFS >"$T/lsns" 2>"$T/err" || { diag "lsns: $(cat "$T/err")"; return 1; }
	bad=0
	for nm in $NAMES; do
		grep -qx "$(ino_of $nm) /run/netns/$nm" "$T/lsns" || { diag "lsns has no '$(ino_of $nm) /run/netns/$nm'"; bad=1; }
	done
	[ $bad = 0 ] || diag "$(cat "$T/lsns")"
	return $bad
}
check "lsns shows them with their /run/netns path (NSFS)" lsns_nsfs
exec_in() {
	bad=0
	for nm in $NAMES; do
		got=$("$IP" netns exec $nm readlink /proc/self/ns/net 2>"$T/err")
		[ "$got" = "net:[$(ino_of $nm)]" ] || { diag "ip netns exec $nm: '$got' $(cat "$T/err")"; bad=1; }
		got=$("$IP" netns exec $nm nstree --id-of /proc/self/ns/net 2>"$T/err")
		[ "$got" = "$(id_of $nm)" ] || { diag "ip netns exec $nm nstree --id-of: '$got' $(cat "$T/err")"; bad=1; }
	done
	return $bad
}
check "ip netns exec runs in the namespace (its link and NS_GET_ID)" exec_in
nsenter_in() {
	bad=0
	for nm in $NAMES; do
		id=$(ns_row "$T/after" "$(ino_of $nm)" | awk '{ print $1 }')
		got=$("$NSENTER" --net=:"${id:-0}" readlink /proc/self/ns/net 2>"$T/err")
		[ "$got" = "net:[$(ino_of $nm)]" ] || { diag "nsenter --net=:$id: '$got' $(cat "$T/err")"; bad=1; }
	done
	"$NSENTER" --net=:"$(id_of nstree-a)" "$IP" -o link show lo >"$T/lo" 2>&1 ||
		{ diag "ip link in nstree-a: $(cat "$T/lo")"; bad=1; }
	return $bad
}
check "nsenter --net=:ID with listns() ids enters them" nsenter_in
is_sleep() {
	[ "$(cat /proc/$1/comm 2>/dev/null)" = sleep ]
}
identify() {
	"$IP" netns exec nstree-b sleep 1000000 >/dev/null 2>&1 &
	p=$!
	wait_for ns_changed /proc/$p/ns/net "$(link_inode /proc/self/ns/net)"
	wait_for is_sleep $p
	got=$("$IP" netns identify $p 2>"$T/err")
	listns "$T/with-proc" -t net
	set -- $(ns_row "$T/with-proc" "$(ino_of nstree-b)")
	kill $p
	wait $p 2>/dev/null
	[ "$got" = nstree-b ] || { diag "ip netns identify $p: '$got' $(cat "$T/err")"; return 1; }
	[ "${6:-}" = 1 ] || { diag "nstree-b with a process: row '$*'"; return 1; }
}
check "ip netns identify names a process's namespace; listns() sees the process" identify
dels() {
	for nm in $NAMES; do
		"$IP" netns del $nm 2>"$T/err" || { diag "ip netns del $nm: $(cat "$T/err")"; return 1; }
	done
	[ -z "$("$IP" netns list)" ] || { diag "ip netns list: $("$IP" netns list)"; return 1; }
}
check "ip netns del" dels
gone() {
	still() {
		listns "$T/end" -t net || return 0
		left=
		for nm in $NAMES; do
			[ -z "$(ns_row "$T/end" "$(ino_of $nm)")" ] || left="$left $nm"
		done
		[ -n "$left" ]
	}
	i=0
	while still; do
		i=$((i + 1))
		[ $i -lt 100 ] || { diag "still listed:$left"; return 1; }
		usleep 100000
	done
}
check "they leave listns() after ip netns del" gone
back() {
	# no net namespace that was not there before is left
	left=$(new_ids "$T/before" "$T/end")
	[ -z "$left" ] || { diag "new net namespaces left: $(echo $left)"; return 1; }
}
check "no new net namespace is left in listns()" back

rm -rf "$T"
tap_end
