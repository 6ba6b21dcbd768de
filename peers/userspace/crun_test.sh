#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# crun_test: Debian's crun, unmodified, runs an OCI bundle (a busybox
# root file system) in all 8 namespace types: a user namespace with uid
# and gid mappings, a time namespace with monotonic and boottime offsets,
# no cgroup manager.  crun run, exec, kill and delete drive it.  While
# the container runs, listns() (nstree) must list its 8 namespaces with
# their types and inodes, the user namespace owned by ours and the 7
# others by the container's user namespace, and nsenter --TYPE=:ID with
# those ids must enter each; after crun delete they must be gone.
set -u
. "$(dirname "$0")/.helpers/peers-lib.sh"
own_root "$0" "$@"
T=/run/crun-test.out
B=$T/bundle
ID=nstree-crun-test
# a unique command line, to find the container's process
CMD="sleep 7654323"
# crun's state outside the default /run/crun, and no cgroup manager
crun() { "$CRUN" --cgroup-manager=disabled --root "$T/state" "$@"; }

tap_begin 12
need_tools
need_bin "$CRUN"
diag "$("$CRUN" --version | head -1)"
rm -rf "$T"
mkdir -p "$B/rootfs/bin" "$B/rootfs/proc" "$B/rootfs/dev" "$B/rootfs/tmp"
cleanup() {
	crun delete -f $ID >/dev/null 2>&1
}
cp /bin/busybox "$B/rootfs/bin/"
for a in sh sleep readlink cat hostname; do ln -s busybox "$B/rootfs/bin/$a"; done
# Container root is the global root (0 0 1): crun writes the time
# namespace's offsets to /proc/self/timens_offsets from inside the new
# user namespace, and a task that is not dumpable there sees its own
# /proc files owned by global root, which only a mapping of global root
# lets it open.  The rest of the ids map to an unprivileged range.
cat >"$B/config.json" <<JSON
{
	"ociVersion": "1.0.2",
	"process": {
		"terminal": false,
		"user": { "uid": 0, "gid": 0 },
		"args": [ "sleep", "7654323" ],
		"env": [ "PATH=/bin" ],
		"cwd": "/"
	},
	"root": { "path": "rootfs", "readonly": false },
	"hostname": "crun-test",
	"mounts": [
		{ "destination": "/proc", "type": "proc", "source": "proc" },
		{ "destination": "/dev", "type": "tmpfs", "source": "tmpfs",
		  "options": [ "nosuid", "mode=755" ] },
		{ "destination": "/tmp", "type": "tmpfs", "source": "tmpfs" }
	],
	"linux": {
		"uidMappings": [
			{ "containerID": 0, "hostID": 0, "size": 1 },
			{ "containerID": 1, "hostID": 100001, "size": 65535 }
		],
		"gidMappings": [
			{ "containerID": 0, "hostID": 0, "size": 1 },
			{ "containerID": 1, "hostID": 100001, "size": 65535 }
		],
		"namespaces": [
			{ "type": "pid" }, { "type": "network" }, { "type": "ipc" },
			{ "type": "uts" }, { "type": "mount" }, { "type": "user" },
			{ "type": "cgroup" }, { "type": "time" }
		],
		"timeOffsets": {
			"monotonic": { "secs": 86400, "nanosecs": 0 },
			"boottime": { "secs": 172800, "nanosecs": 0 }
		}
	}
}
JSON

# state FIELD: a field of crun state's JSON
state() {
	crun state $ID 2>/dev/null | sed -n "s/^ *\"$1\": *\"*\([^\",]*\)\"*,*\$/\1/p"
}

P=
run() {
	crun run -d -b "$B" $ID </dev/null >"$T/run.out" 2>&1 ||
		{ diag "crun run: $(cat "$T/run.out")"; return 1; }
	P=$(state pid)
	[ "$(state status)" = running ] && [ -n "$P" ] ||
		{ diag "crun state: $(crun state $ID 2>&1)"; return 1; }
	[ "$(find_cmd "$CMD")" = "$P" ] || { diag "pid $P is not '$CMD': $(find_cmd "$CMD")"; return 1; }
}
check "crun run -d: the container runs" run
[ -n "$P" ] || bail "no container"
ns_ids self "$T/ours" || bail "NS_GET_ID of our namespaces failed"
ns_ids "$P" "$T/ct" || bail "NS_GET_ID of the container's namespaces failed"
USERNS=$(id_of "$T/ct" user)
diag "container pid $P:" "$(cat "$T/ct")"

new_all() {
	bad=0
	for t in $TYPES; do
		[ "$(id_of "$T/ct" $t)" != "$(id_of "$T/ours" $t)" ] || { diag "$t: not a new namespace"; bad=1; }
	done
	return $bad
}
check "the container is in a new namespace of each of the 8 types" new_all
listns "$T/listns" || bail "listns failed"
check "listns() lists the container's user namespace, owned by ours" \
	listed_as "$T/listns" "$T/ct" user "$(id_of "$T/ours" user)"
check "listns() lists its 7 other namespaces, owned by its user namespace" \
	listed_as "$T/listns" "$T/ct" "cgroup ipc mnt net pid time uts" "$USERNS"
mappings() {
	got=$(awk '{ print $1, $2, $3 }' /proc/$P/uid_map | paste -sd,)
	want="0 0 1,1 100001 65535"
	[ "$got" = "$want" ] && [ "$(awk '{ print $1, $2, $3 }' /proc/$P/gid_map | paste -sd,)" = "$want" ] ||
		{ diag "uid_map $got, gid_map $(paste -sd, /proc/$P/gid_map), want $want"; return 1; }
	# listns()'s UID column: the uid that created the user namespace
	r=$(ns_row "$T/listns" "$(awk '$1 == "user" { print $3 }' "$T/ct")")
	[ "$(echo "$r" | awk '{ print $5 }')" = 0 ] || { diag "user namespace row: $r"; return 1; }
}
check "the user namespace has the bundle's uid and gid mappings" mappings
offsets() {
	got=$(awk '{ print $1, $2, $3 }' /proc/$P/timens_offsets | paste -sd,)
	[ "$got" = "monotonic 86400 0,boottime 172800 0" ] || { diag "timens_offsets: $got"; return 1; }
}
check "the time namespace has the bundle's offsets" offsets
exec_in() {
	out=$(crun exec $ID sh -c 'for t in cgroup ipc mnt net pid time user uts; do readlink /proc/self/ns/$t; done; hostname' 2>&1) ||
		{ diag "crun exec: $out"; return 1; }
	want=$(for t in $TYPES; do echo "$t:[$(awk -v t=$t '$1 == t { print $3 }' "$T/ct")]"; done; echo crun-test)
	[ "$out" = "$want" ] || { diag "crun exec saw:" "$out" "want:" "$want"; return 1; }
}
check "crun exec runs a process in the container's 8 namespaces" exec_in
check "nsenter --TYPE=:ID enters each of the container's namespaces" nsenter_all "$T/ct" "$TYPES"
stopped() {
	[ "$(state status)" = stopped ]
}
kill_it() {
	crun kill $ID KILL 2>"$T/err" || { diag "crun kill: $(cat "$T/err")"; return 1; }
	wait_for stopped || { diag "still $(state status) after crun kill"; return 1; }
	[ -z "$(find_cmd "$CMD")" ] || { diag "'$CMD' still runs"; return 1; }
}
check "crun kill KILL stops the container" kill_it
delete() {
	crun delete $ID 2>"$T/err" || { diag "crun delete: $(cat "$T/err")"; return 1; }
	! crun state $ID >/dev/null 2>&1 || { diag "crun state still knows $ID"; return 1; }
}
check "crun delete removes it" delete
check "the container's 8 namespaces leave listns()" gone_from_listns "$T/ct" "$TYPES"
check "our namespaces are still listed, unchanged" \
	listed_as "$T/lib.gone" "$T/ours" "cgroup ipc mnt net pid time uts" "$(id_of "$T/ours" user)"

cleanup
rm -rf "$T"
tap_end
