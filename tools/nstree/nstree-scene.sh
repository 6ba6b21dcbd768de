#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# nstree-scene setup|teardown DIR: a small container-like scene for the
# nstree demo and test (guest, root, busybox).
#
#   user A      created by uid 1000 ("user"), with its own uts, net, mnt
#               and ipc namespaces; a process (sleep) lives in all of them
#   user B      owned by A, with its own net namespace; a sleep lives in it
#   net (fd)    owned by A, no process in it: nsholder keeps an nsfs fd
#   uts (bind)  owned by the initial user namespace, no process in it:
#               kept alive by a bind mount of its /proc/PID/ns/uts file
#   net (sock)  no process, no nsfs file: only a socket holds it, so it is
#               inactive and listns() must not list it
#
# setup writes DIR/scene.env (sourced by the callers): the pids, and the
# ids (NS_GET_ID via nstree --id-of) and inodes of those namespaces.
set -u
cmd=${1:?usage: nstree-scene setup|teardown DIR}
D=${2:?usage: nstree-scene setup|teardown DIR}
NSTREE=$(command -v nstree) || { echo "nstree-scene: no nstree" >&2; exit 1; }
NSHOLDER=$(command -v nsholder) || { echo "nstree-scene: no nsholder" >&2; exit 1; }

fail() {
	echo "nstree-scene: $*" >&2
	exit 1
}

# wait_ns PID TYPE: until PID is in another TYPE namespace than we are.
wait_ns() {
	i=0
	mine=$(readlink /proc/$$/ns/$2)
	while :; do
		theirs=$(readlink /proc/$1/ns/$2 2>/dev/null) || return 1
		[ "$theirs" != "$mine" ] && return 0
		i=$((i + 1))
		[ $i -lt 200 ] || return 1
		usleep 50000
	done
}

# wait_file FILE: until FILE has content (5 s at most).
wait_file() {
	i=0
	until [ -s "$1" ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || return 1
		usleep 50000
	done
}

id_of() {
	"$NSTREE" --id-of "$1"
}

ino_of() {
	stat -L -c %i "$1"
}

setup() {
	mkdir -p "$D" || fail "mkdir $D"
	chmod 0777 "$D"

	# net (sock): created before the container, so that active
	# namespaces with higher ids follow it.
	"$NSHOLDER" -s net >"$D/sock-holder" || fail "nsholder -s net"

	# The container: user A as uid 1000, nsholder inside it (net owned
	# by A, held by an fd), user B below A.
	cat >"$D/container.sh" <<-'EOF'
	D=$1
	hostname container-a
	"$2" net >"$D/fd-holder.tmp" && mv "$D/fd-holder.tmp" "$D/fd-holder"
	unshare -r -n sleep 1000000 &
	echo $! >"$D/pid-b"
	echo $$ >"$D/pid-a"
	exec sleep 1000000
	EOF
	su -s /bin/sh user -c \
		"exec unshare -r -u -n -m -i sh $D/container.sh $D $NSHOLDER" \
		</dev/null >"$D/container.log" 2>&1 &
	wait_file "$D/pid-a" || fail "container did not start: $(cat "$D/container.log")"
	wait_file "$D/fd-holder" || fail "nsholder in the container failed: $(cat "$D/container.log")"
	pa=$(cat "$D/pid-a")
	pb=$(cat "$D/pid-b")
	# B exists once pb is in another user namespace than A.
	i=0
	while [ "$(readlink /proc/$pb/ns/user)" = "$(readlink /proc/$pa/ns/user)" ] ||
	      [ "$(readlink /proc/$pb/ns/net)" = "$(readlink /proc/$pa/ns/net)" ]; do
		i=$((i + 1))
		[ $i -lt 200 ] || fail "user B was not created"
		usleep 50000
	done
	# and A's pid is the sleep, not the sh any more
	i=0
	until [ "$(cat /proc/$pa/comm 2>/dev/null)" = sleep ]; do
		i=$((i + 1))
		[ $i -lt 200 ] || fail "container process did not settle"
		usleep 50000
	done

	# uts (bind): the process that unshared it goes away, the bind
	# mount stays.  After the container, so that its mount namespace
	# has no copy of the bind mount.
	unshare -u sleep 1000000 &
	x=$!
	wait_ns $x uts || fail "unshare -u did not happen"
	touch "$D/uts-ns"
	mount --bind /proc/$x/ns/uts "$D/uts-ns" || fail "bind mount"
	kill $x
	wait $x 2>/dev/null

	read -r fd_pid _ fd_net fd_ino fd_fd <"$D/fd-holder"
	read -r sock_pid _ sock_net sock_ino _ <"$D/sock-holder"
	{
		echo "SCENE_DIR=$D"
		echo "INIT_USER=$(id_of /proc/1/ns/user)"
		echo "PID_A=$pa"
		echo "USER_A=$(id_of /proc/$pa/ns/user)"
		echo "USER_A_INODE=$(ino_of /proc/$pa/ns/user)"
		for t in uts net mnt ipc; do
			T=$(echo $t | tr a-z A-Z)
			echo "${T}_A=$(id_of /proc/$pa/ns/$t)"
		done
		echo "PID_B=$pb"
		echo "USER_B=$(id_of /proc/$pb/ns/user)"
		echo "NET_B=$(id_of /proc/$pb/ns/net)"
		echo "FD_HOLDER=$fd_pid"
		echo "FD_NET=$fd_net"
		echo "FD_NET_INODE=$fd_ino"
		echo "FD_NET_PATH=/proc/$fd_pid/fd/$fd_fd"
		echo "BIND_UTS_PATH=$D/uts-ns"
		echo "BIND_UTS=$(id_of "$D/uts-ns")"
		echo "BIND_UTS_INODE=$(ino_of "$D/uts-ns")"
		echo "SOCK_HOLDER=$sock_pid"
		echo "SOCK_NET=$sock_net"
		echo "SOCK_NET_INODE=$sock_ino"
	} >"$D/scene.env"
}

teardown() {
	[ -f "$D/scene.env" ] || exit 0
	. "$D/scene.env"
	kill "$FD_HOLDER" "$SOCK_HOLDER" "$PID_B" "$PID_A" 2>/dev/null
	umount "$D/uts-ns" 2>/dev/null
	rm -rf "$D"
}

case "$cmd" in
setup) setup ;;
teardown) teardown ;;
*) fail "unknown command $cmd" ;;
esac
