#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of `make demo` (nstree.mode=demo): build a small
# container-like scene and show it with nstree, which lists namespaces
# through listns().  Every command's output is framed by
#   NSTREE-DEMO-BEGIN <command> ... NSTREE-DEMO-END <command> rc=N
# The scene (see /usr/bin/nstree-scene):
#   user A (uid 1000) with its own uts/net/mnt/ipc, and user B below it;
#   a net namespace owned by A that only an open fd holds (nsholder);
#   a uts namespace that only a bind mount holds;
#   a net namespace that only a socket holds: inactive, so not listed.
scene=/run/nstree-demo

show() {
	echo "NSTREE-DEMO-BEGIN $*"
	"$@" 2>&1
	rc=$?
	echo "NSTREE-DEMO-END $* rc=$rc"
}

echo "NSTREE-DEMO kernel $(uname -r)"
if ! nstree-scene setup $scene; then
	echo "NSTREE-DEMO-ERROR scene setup failed"
	exit 1
fi
. $scene/scene.env
cat <<EOF
NSTREE-DEMO scene:
  initial user namespace       id $INIT_USER
  user A (uid 1000), pid $PID_A   id $USER_A  (uts $UTS_A, net $NET_A, mnt $MNT_A, ipc $IPC_A)
  user B in A, pid $PID_B        id $USER_B  (net $NET_B)
  net held by an fd ($FD_NET_PATH)  id $FD_NET
  uts held by a bind mount ($BIND_UTS_PATH)  id $BIND_UTS
  net held by a socket only (inactive, not listed)  id $SOCK_NET
EOF

show nstree
show nstree -p
show nstree -t net,uts
show nstree -J
# what lsns would be blind to: the namespaces no process is in
show nstree -l -o "$USER_A"

nstree-scene teardown $scene
