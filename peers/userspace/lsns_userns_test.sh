#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# lsns_userns_test: lsns, nsenter and listns() (nstree) once more, run
# by an unprivileged user (uid 1000, setpriv) inside a user namespace of
# its own (unshare --user --map-root-user, with a uts namespace of its
# own too), which has every capability there and none over the initial
# namespaces.  In 7.3 such a caller may see through listns() only the
# namespaces it is in (kernel/nstree.c may_list_ns():
# is_current_namespace(), else may_see_all_namespaces(), which asks for
# CAP_SYS_ADMIN over the initial namespaces), and may open by id only
# those (fs/nsfs.c nsfs_fh_to_dentry(): EPERM for another, which
# fs/fhandle.c do_handle_to_path() returns as ESTALE).  lsns sees
# what /proc shows it: its own processes' namespaces.  So:
#   - listns() lists exactly the 8 namespaces we are in: the owner of
#     our uts namespace is our user namespace, the other owners (the
#     initial user namespace) are outside ours, which NS_GET_USERNS does
#     not reveal;
#   - lsns lists those 8 too, and the namespaces of our processes that
#     are elsewhere (two holders in a net and an ipc namespace we made),
#     which listns() does not list;
#   - nsenter --net=:ID of the holder's net namespace is refused when it
#     opens it, ESTALE; of our own uts namespace it enters; of the initial
#     net namespace, which we are in, it opens it and setns(2) refuses,
#     EPERM (no CAP_SYS_ADMIN over the initial user namespace); of an id
#     no namespace has, ESTALE;
#   - lsns and nstree count the same processes (those whose links we may
#     read) in each of our namespaces: NPROCS agrees.
set -u
. "$(dirname "$0")/.helpers/peers-lib.sh"
T=/run/lsns-userns-test.out
if [ -z "${NSTREE_UNPRIV:-}" ]; then
	# root: check the tools, make the scratch directory, and become uid
	# 1000 in a new user namespace (setpriv drops every capability with
	# the uid)
	need_tools
	need_bin "$SETPRIV"
	rm -rf "$T"
	mkdir -p "$T"
	chown 1000:1000 "$T"
	NSTREE_UNPRIV=1 exec "$SETPRIV" --reuid=1000 --regid=1000 --clear-groups -- \
		"$UNSHARE" --user --map-root-user --uts -- /bin/sh "$0" "$@"
fi

tap_begin 9
HOLDERS=
cleanup() {
	# shellcheck disable=SC2086
	[ -z "$HOLDERS" ] || kill -KILL $HOLDERS 2>/dev/null
}
diag "uid $(id -u) in a user namespace mapped $(awk '{ print $1 "->" $2 }' /proc/self/uid_map)," \
	"capabilities $(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)"
"$UNSHARE" --net sleep 7654325 &
HOLDERS="$!"
HNET=$!
"$UNSHARE" --ipc sleep 7654326 &
HOLDERS="$HOLDERS $!"
HIPC=$!
wait_for ns_changed /proc/$HNET/ns/net "$(link_inode /proc/self/ns/net)" &&
	wait_for ns_changed /proc/$HIPC/ns/ipc "$(link_inode /proc/self/ns/ipc)" ||
	bail "unshare --net/--ipc did not happen"
ns_ids self "$T/ours" || bail "NS_GET_ID of our namespaces failed"
HNET_ID=$("$NSTREE" --id-of /proc/$HNET/ns/net) || bail "NS_GET_ID failed"

# Both views, back to back.
listns "$T/listns" || bail "listns failed"
"$LSNS" -r -n -o NS,TYPE,NPROCS >"$T/lsns" 2>"$T/lsns.err" || bail "lsns: $(cat "$T/lsns.err")"

only_ours() {
	got=$(awk '{ print $2, $3 }' "$T/listns" | sort)
	want=$(awk '{ print $1, $3 }' "$T/ours" | sort)
	[ "$got" = "$want" ] && return 0
	diag "listns() (type inode):" "$got" "our namespaces:" "$want"
	return 1
}
check "listns() lists exactly the 8 namespaces we are in" only_ours
US=$(id_of "$T/ours" user)
# NS_GET_USERNS (kernel/user_namespace.c ns_get_owner()) answers only with an
# owner inside the caller's user namespace: nstree shows "-" for the
# others
owners() {
	listed_as "$T/listns" "$T/ours" uts "$US" &&
		listed_as "$T/listns" "$T/ours" "cgroup ipc mnt net pid time user" -
}
check "listns(): our uts namespace owned by our user namespace, the others' owners not ours to see" owners
lsns_ours() {
	awk 'NR == FNR { have[$1 " " $2] = 1; next }
	!(($3 " " $1) in have) { print "# lsns does not list our " $1 " " $3; bad = 1 }
	END { exit bad }' "$T/lsns" "$T/ours"
}
check "lsns lists the 8 namespaces we are in" lsns_ours
holders_seen() {
	bad=0
	for h in "$HNET net" "$HIPC ipc"; do
		set -- $h
		ino=$(link_inode /proc/$1/ns/$2)
		awk -v i="$ino" -v t=$2 '$1 == i && $2 == t { f = 1 } END { exit !f }' "$T/lsns" ||
			{ diag "lsns does not list the holder's $2 $ino"; bad=1; }
		[ -z "$(ns_row "$T/listns" "$ino")" ] ||
			{ diag "listns() lists the holder's $2: $(ns_row "$T/listns" "$ino")"; bad=1; }
	done
	return $bad
}
check "lsns lists our holders' net and ipc namespaces, listns() does not" holders_seen
holder_refused() {
	if "$NSENTER" --net=:"$HNET_ID" true 2>"$T/err"; then
		diag "nsenter --net=:$HNET_ID entered the holder's net namespace"
		return 1
	fi
	refused_with "$HNET_ID" "Stale file handle"
}
check "nsenter --net=:ID of a namespace we are not in is refused at open: ESTALE" holder_refused
check "nsenter --uts=:ID of our own uts namespace enters it" nsenter_all "$T/ours" uts
initial_net() {
	id=$(id_of "$T/ours" net)
	if "$NSENTER" --net=:"$id" true 2>"$T/err"; then
		diag "nsenter --net=:$id: setns into the initial net namespace succeeded"
		return 1
	fi
	grep -q "reassociate to namespace.* failed: Operation not permitted" "$T/err" && return 0
	diag "nsenter --net=:$id: $(cat "$T/err")" "want: reassociate to namespace ... failed: Operation not permitted"
	return 1
}
check "nsenter --net=:ID of the initial net namespace: opened, setns refused: EPERM" initial_net
unknown() {
	max=$(awk '$1 > m { m = $1 } END { print m }' "$T/listns")
	id=$((max + 1000000))
	if "$NSENTER" --net=:$id true 2>"$T/err"; then
		diag "nsenter --net=:$id succeeded"
		return 1
	fi
	refused_with $id "Stale file handle"
}
check "nsenter --net=:ID of an id no namespace has: ESTALE" unknown
nprocs() {
	awk 'NR == FNR { np[$3] = $6; next }
	($1 in np) {
		if ($3 != np[$1]) { print "# " $2 " " $1 ": lsns NPROCS " $3 ", nstree " np[$1]; bad = 1 }
		n++
	}
	END { if (n != 8) { print "# compared " n " namespaces, not 8"; bad = 1 } exit bad }' "$T/listns" "$T/lsns"
}
check "NPROCS: lsns and listns() (nstree) count the same processes in our 8 namespaces" nprocs

cleanup
rm -rf "$T" 2>/dev/null
tap_end
