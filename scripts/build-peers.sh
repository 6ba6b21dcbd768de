#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build-peers.sh: the guest's "peers" of our own tests, staged in
# $OUT/peers-root, which mkinitramfs.sh copies into the image:
#
#  - the kernel tree's other selftests that reach the namespace tree
#    (pidfd, nsfs, clone3, pid namespaces, /proc, statmount/listmount,
#    mount namespaces, mount propagation, time namespaces), built static
#    from the Rust tree like the namespaces suite, one /tests/<suite>/
#    per collection;
#  - real user space: util-linux (lsns, nsenter, unshare, setpriv),
#    iproute2 (ip) and the container runtimes crun, bubblewrap and CRIU
#    from Debian, with the shared libraries and the loader they need,
#    under /opt/debian (guest-debs.sh), and our TAP tests of them in
#    /tests/userspace/.
set -euo pipefail
. "$(dirname "$0")/env.sh"
REPO=$(cd "$(dirname "$0")/.." && pwd)
hdr="$OUT/headers"
stage="$OUT/peers-root"

# COLLECTION[:TEST,TEST...]: the kselftest collections, and where only
# some of a collection's tests touch namespaces, those tests.  proc/:
# the tests of /proc in new pid, net, ipc and mount namespaces (the rest,
# and proc-pid-vm, whose unshare(CLONE_NEWNS) only gives it a private
# /tmp for its /proc/PID/maps checks, test /proc itself).  A TEST may be
# a program the collection builds without listing it as a test
# (TEST_GEN_FILES): move_mount_set_group's only program is one.
# mount_cycle: mnt_ns_loop() compares mount namespace ids, which the
# namespace tree hands out (nsfs_rbind_loop_test, overmount_ns_file_test,
# unmounted_tree_test); umount_propagation and move_mount_set_group:
# propagation between the mount namespaces of peers and slaves.
PEER_SUITES=(
	pidfd
	filesystems/nsfs
	clone3
	pid_namespace
	proc:proc-loadavg-001,proc-net-dev-lseek,proc-pidns,proc-subset-pid,setns-dcache,setns-sysvipc
	filesystems/statmount
	filesystems/open_tree_ns
	mount_setattr
	timens
	filesystems/empty_mntns
	filesystems/fsmount_ns
	filesystems/fscontext_ns
	filesystems/mntns_unbindable
	filesystems/mount-notify
	filesystems/mount_cycle
	filesystems/umount_propagation
	move_mount_set_group:move_mount_set_group_test
)

# The tree to build from: the overlay of the Rust tree with
# peers/selftest-fixes/ applied (scripts/selftests-src.sh).
src=$("$REPO/scripts/selftests-src.sh")

inst="$OUT/selftests/peers-install"
targets=$(printf '%s\n' "${PEER_SUITES[@]}" | cut -d: -f1 | tr '\n' ' ')
log "building peer selftests: $targets"
rm -rf "$inst"
# CC carries -static too: some collections link with their own rules,
# which leave out LDFLAGS.
make -s -C "$src/tools/testing/selftests" TARGETS="$targets" \
	O="$OUT/selftests/peers" KHDR_INCLUDES="-isystem $hdr/include" \
	LDFLAGS=-static CC="gcc -static" install INSTALL_PATH="$inst" \
	>"$LOGS/peers-build.log" 2>&1 ||
	{ tail -30 "$LOGS/peers-build.log"; die "peer selftests build failed"; }

rm -rf "$stage"
# /mnt: mount_setattr_test mounts a tmpfs there.
mkdir -p "$stage/tests" "$stage/mnt"
n=0
for s in "${PEER_SUITES[@]}"; do
	coll=${s%%:*}
	only=
	[ "$coll" = "$s" ] || only=",${s#*:},"
	suite=$(basename "$coll")
	dst="$stage/tests/$suite"
	mkdir -p "$dst/.helpers"
	# The collection's tests, as kselftest-list.txt names them, or the
	# programs named after the colon (listed or not).
	if [ -n "$only" ]; then
		tests=$(echo "${s#*:}" | tr , ' ')
	else
		tests=$(sed -n "s|^$coll:||p" "$inst/kselftest-list.txt")
	fi
	for t in $tests; do
		[ -f "$inst/$coll/$t" ] || continue	# checked below
		cp "$inst/$coll/$t" "$dst/"
		n=$((n + 1))
	done
	# Whatever else the collection installs (helper binaries that tests
	# exec from their working directory) goes to .helpers, which
	# run-tests.sh links into the working directory of each test.
	for f in "$inst/$coll"/*; do
		b=$(basename "$f")
		grep -qxF "$coll:$b" "$inst/kselftest-list.txt" && continue
		[ -e "$dst/$b" ] && continue
		case "$b" in config | settings) continue ;; esac
		cp -r "$f" "$dst/.helpers/"
	done
	rmdir "$dst/.helpers" 2>/dev/null || true
done
# wrap SUITE TEST WHY COMMAND: TEST runs as COMMAND, in which $BIN is the
# test binary (moved to .helpers).  For tests whose default set-up takes
# minutes under TCG (explained in WHY); the runner sees a plain program.
wrap() {
	local dst="$stage/tests/$1"
	mkdir -p "$dst/.helpers"
	mv "$dst/$2" "$dst/.helpers/$2"
	printf '#!/bin/sh\n# nstree-rs (scripts/build-peers.sh): %s\nBIN="$(dirname "$0")/.helpers/%s"\n%s\n' \
		"$3" "$2" "$4" >"$dst/$2"
	chmod 0755 "$dst/$2"
}
# pidfd_poll_test: 100 fork/poll rounds instead of 10000 (30 s under
# TCG on a base kernel, minutes on a debug one; it touches no namespace).
# It reports its one result without a TAP plan (it never calls
# ksft_set_plan(); kselftest's runner goes by the exit status): the
# wrapper prints the plan, so a run that bails out before its result
# still counts as a failure ("1 of 1 results missing").
wrap pidfd pidfd_poll_test "100 iterations instead of 10000; the plan of its one result" \
	'echo 1..1; exec "$BIN" 100'

for s in "${PEER_SUITES[@]}"; do
	case "$s" in *:*) for t in $(echo "${s#*:}" | tr , ' '); do
		[ -f "$stage/tests/$(basename "${s%%:*}")/$t" ] || die "peer test $s: $t not built"
	done ;; esac
done
for f in $(find "$stage/tests" -type f -executable); do
	# an ELF file with a program interpreter is dynamic
	! readelf -l "$f" 2>/dev/null | grep -q 'INTERP' || die "peer selftest not static: $f"
done
log "staged $n peer selftests in $(ls "$stage/tests" | wc -l) suites"

# Real user space from Debian, and our tests of it.
"$REPO/scripts/guest-debs.sh" "$stage"
mkdir -p "$stage/tests/userspace/.helpers" "$stage/usr/bin"
for t in "$REPO"/peers/userspace/*_test.sh; do
	install -m 0755 "$t" "$stage/tests/userspace/$(basename "$t" .sh)"
done
install -m 0644 "$REPO/peers/userspace/lib.sh" "$stage/tests/userspace/.helpers/peers-lib.sh"
gcc -O2 -Wall -Wextra -static -pthread -o "$stage/usr/bin/nsthread" "$REPO/peers/userspace/nsthread.c" ||
	die "building nsthread failed"
log "staged $(ls "$stage/tests/userspace" | wc -l) user-space peer tests"
