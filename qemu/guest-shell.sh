#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# nstree-rs guest: the shell of `make shell` (nstree.mode=shell), run by
# init on the serial console.  Debian's util-linux and iproute2 come first
# in PATH (unshare, nsenter, lsns, ip: the real tools, not busybox's
# applets), then tools/nstree, then busybox.  Exiting the shell powers the
# guest off.
impl=$1
D=/opt/debian/usr
export PATH=$D/bin:$D/sbin:/usr/bin:/bin:/sbin:/usr/sbin
export PS1="[$impl] \w # "
export HOME=/root
# busybox ash runs its own applet of a name (nsenter, unshare, ip) before
# looking at PATH; an alias comes first.  Aliases, not functions: `unshare
# ... &` must put unshare itself in the background, so that $! is its pid
# (a function would run in a forked shell).  The interactive shell reads
# them from $ENV; a script it runs is another shell: call
# /opt/debian/usr/bin/... there.
rc=/tmp/.nstree-shellrc
: >"$rc"
for t in nsenter unshare lsns setpriv ip; do
	[ -x "$D/bin/$t" ] && echo "alias $t=$D/bin/$t" >>"$rc"
done
export ENV=$rc
cd /root || exit 1
cat <<MOTD
nstree-rs shell: Linux $(uname -r), the $impl namespace tree (NSTREE-IMPL $impl)
  nstree            the namespaces as listns() sees them (nstree -h)
  nstree -l -t net  listns() of one type, with ids and owners
  unshare, nsenter  Debian's util-linux: nsenter --net=:ID enters by listns() id
  lsns, ip netns    util-linux, iproute2
  /tests/           the test binaries (namespaces/, nstree-rs/, torture/, ...)
  exit              power off (or Ctrl-A X, QEMU's escape)
MOTD
echo "NSTREE-SHELL-READY"
setsid cttyhack sh
