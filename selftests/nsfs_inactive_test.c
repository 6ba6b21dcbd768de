// SPDX-License-Identifier: GPL-2.0
/*
 * nsfs and the active reference count, seen from user space.
 *
 * open_by_handle_at() of an nsfs handle (FD_NSFS_ROOT, or any nsfs fd as
 * the mount fd) looks the id up in the namespace tree and fails unless
 * the namespace is active (nsfs_fh_to_dentry() returns NULL), which
 * do_handle_to_path() turns into ESTALE: for an inactive namespace that
 * is still in the tree, one that is gone, an id never issued, and a
 * handle whose type or inode number does not match.
 *
 * Opening an nsfs inode takes an active reference and resurrects the
 * namespace and, up the owner chain, its inactive owners: NS_GET_PARENT
 * on a pid namespace whose parent is inactive, NS_GET_USERNS on a
 * namespace that is all that keeps its owner active, SIOCGSKNS on a
 * socket of an inactive network namespace. listns() follows: a namespace
 * is listed exactly while it is active.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/nsfs.h>
#include <linux/sockios.h>

#include "kselftest_harness.h"
#include "listns_helpers.h"

#ifndef SIOCGSKNS
#define SIOCGSKNS 0x894C
#endif

/* Whether a full listing (all namespaces, root) contains @id. */
static bool listed(__u64 id)
{
	static __u64 ids[MAX_NS];
	long n = list_ids(0, 0, 0, ids, MAX_NS);

	return n > 0 && ids_contain(ids, n, id);
}

/* open_by_handle_at() of @id succeeds (the fd is closed again). */
static bool opens(__u64 id)
{
	int fd = open_ns_id(id);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* An active namespace is listed and opens by its id. */
#define ASSERT_ACTIVE(id) do {						\
	ASSERT_TRUE(listed(id));					\
	ASSERT_TRUE(opens(id));						\
} while (0)

/* An inactive one is neither, and the handle is stale. */
#define ASSERT_INACTIVE(id) do {					\
	ASSERT_FALSE(listed(id));					\
	ASSERT_EQ(-ESTALE, open_ns_id(id));				\
} while (0)

/* File handles */

TEST(handle_of_active_ns_opens)
{
	__u64 id = 0;
	int held = make_fd_held_ns(CLONE_NEWNET, "net", &id), fd;
	struct stat st;

	ASSERT_GE(held, 0);
	ASSERT_EQ(0, fstat(held, &st));

	/* ns_type and ns_inum 0 (unified lookup), or both right. */
	fd = open_ns_handle(FD_NSFS_ROOT, id, 0, 0, 16);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(id, ns_id_of_fd(fd));
	close(fd);
	fd = open_ns_handle(FD_NSFS_ROOT, id, CLONE_NEWNET, st.st_ino, 16);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(id, ns_id_of_fd(fd));
	close(fd);
	/* Any nsfs fd works as the mount fd. */
	fd = open_ns_handle(held, id, 0, 0, 16);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(id, ns_id_of_fd(fd));
	close(fd);
	close(held);
}

TEST(handle_mismatch_estale)
{
	__u64 id = 0;
	int held = make_fd_held_ns(CLONE_NEWNET, "net", &id);
	struct stat st;

	ASSERT_GE(held, 0);
	ASSERT_EQ(0, fstat(held, &st));
	/* Right id, wrong type: the uts tree has no such id. */
	ASSERT_EQ(-ESTALE, open_ns_handle(FD_NSFS_ROOT, id, CLONE_NEWUTS,
					  st.st_ino, 16));
	/* Wrong inode number. */
	ASSERT_EQ(-ESTALE, open_ns_handle(FD_NSFS_ROOT, id, CLONE_NEWNET,
					  st.st_ino + 1, 16));
	/* Type and inode number must be both set or both unset. */
	ASSERT_EQ(-ESTALE, open_ns_handle(FD_NSFS_ROOT, id, CLONE_NEWNET,
					  0, 16));
	ASSERT_EQ(-ESTALE, open_ns_handle(FD_NSFS_ROOT, id, 0, st.st_ino,
					  16));
	/* ns_id 0, and a handle shorter than version 0. */
	ASSERT_EQ(-ESTALE, open_ns_handle(FD_NSFS_ROOT, 0, 0, 0, 16));
	ASSERT_EQ(-ESTALE, open_ns_handle(FD_NSFS_ROOT, id, 0, 0, 8));
	close(held);
}

TEST(handle_of_never_issued_id_estale)
{
	ASSERT_EQ(-ESTALE, open_ns_id(NEVER_ISSUED_ID));
	ASSERT_EQ(-ESTALE, open_ns_handle(FD_NSFS_ROOT, NEVER_ISSUED_ID,
					  CLONE_NEWNET, 1, 16));
}

/* A uts namespace is freed, and leaves the tree, as soon as it is left. */
TEST(handle_of_destroyed_ns_estale)
{
	__u64 id = make_destroyed_ns(CLONE_NEWUTS, "uts");

	ASSERT_NE(0, id);
	ASSERT_INACTIVE(id);
}

/* Still in the tree, held by a socket, but inactive. */
TEST(handle_of_inactive_ns_in_tree_estale)
{
	__u64 id = 0;
	int sock = make_socket_pinned_netns(&id), nsfd;

	ASSERT_GE(sock, 0);
	ASSERT_INACTIVE(id);
	/* The same through an nsfs fd as the mount fd. */
	nsfd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	ASSERT_GE(nsfd, 0);
	ASSERT_EQ(-ESTALE, open_ns_handle(nsfd, id, 0, 0, 16));
	close(nsfd);
	close(sock);
}

/* A handle from name_to_handle_at() goes stale when the fd is closed. */
TEST(real_handle_stale_after_close)
{
	char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	struct file_handle *fh = (struct file_handle *)buf;
	__u64 id = 0;
	int held = make_fd_held_ns(CLONE_NEWUTS, "uts", &id), fd, mnt_id;

	ASSERT_GE(held, 0);
	fh->handle_bytes = MAX_HANDLE_SZ;
	ASSERT_EQ(0, name_to_handle_at(held, "", fh, &mnt_id, AT_EMPTY_PATH));
	ASSERT_EQ(FILEID_NSFS, fh->handle_type);
	fd = open_by_handle_at(FD_NSFS_ROOT, fh, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(id, ns_id_of_fd(fd));
	close(fd);
	close(held);
	ASSERT_EQ(-1, open_by_handle_at(FD_NSFS_ROOT, fh, O_RDONLY));
	ASSERT_EQ(ESTALE, errno);
	ASSERT_FALSE(listed(id));
}

/* Resurrection through nsfs */

/*
 * P1 is a pid namespace whose init exited and was reaped, so it is
 * inactive, but its child P2 (held by an fd) still references it.
 * NS_GET_PARENT on P2 opens P1, which makes it active again for as long
 * as that fd lives.
 */
TEST(pidns_get_parent_resurrects_inactive_parent)
{
	int init_pid, p2fd, parent, sync[2], hold[2];
	__u64 p1, p2;
	char path[64], c;
	pid_t pid;

	init_pid = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
	ASSERT_GE(init_pid, 0);
	ASSERT_EQ(0, pipe(sync));
	ASSERT_EQ(0, pipe(hold));
	ASSERT_EQ(0, unshare(CLONE_NEWPID));
	p1 = self_ns_id("pid_for_children");
	ASSERT_NE(0, p1);

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		/* pid 1 of P1: make P2 and wait. */
		close(sync[0]);
		close(hold[1]);
		if (unshare(CLONE_NEWPID))
			_exit(1);
		if (write(sync[1], "r", 1) != 1)
			_exit(2);
		read(hold[0], &c, 1);
		_exit(0);
	}
	close(sync[1]);
	close(hold[0]);
	ASSERT_EQ(1, read(sync[0], &c, 1));
	snprintf(path, sizeof(path), "/proc/%d/ns/pid_for_children", pid);
	p2fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(p2fd, 0);
	p2 = ns_id_of_fd(p2fd);
	ASSERT_GT(p2, p1);

	/* Drop every active reference to P1: our nsproxy, its only task. */
	ASSERT_EQ(0, setns(init_pid, CLONE_NEWPID));
	close(hold[1]);
	ASSERT_EQ(0, wait_child(pid));
	ASSERT_INACTIVE(p1);
	ASSERT_ACTIVE(p2);

	parent = ioctl(p2fd, NS_GET_PARENT);
	ASSERT_GE(parent, 0);
	ASSERT_EQ(p1, ns_id_of_fd(parent));
	ASSERT_ACTIVE(p1);
	{
		__u64 pids[MAX_NS];
		long n = list_ids(p1 - 1, PID_NS, 0, pids, MAX_NS);

		/* P1 and P2, in the pid tree, in that order. */
		ASSERT_GE(n, 2);
		ASSERT_EQ(p1, pids[0]);
		ASSERT_TRUE(ids_contain(pids, n, p2));
	}
	close(parent);
	ASSERT_INACTIVE(p1);

	/* P2's owner is init_user_ns. */
	parent = ioctl(p2fd, NS_GET_USERNS);
	ASSERT_GE(parent, 0);
	ASSERT_EQ(USER_NS_INIT_ID, ns_id_of_fd(parent));
	close(parent);
	close(p2fd);
	ASSERT_INACTIVE(p2);
	close(init_pid);
}

/*
 * U owns N; the task in them exited, and only our fd to N remains. N's
 * active reference keeps U active (it is listed and opens); NS_GET_USERNS
 * gives U. Closing N's fd leaves U active through the fd to U only;
 * closing that makes U inactive and no longer a valid user_ns_id.
 */
TEST(userns_kept_active_by_owned_ns)
{
	int sync[2], hold[2], nfd, ufd, pfd;
	__u64 ids[2], u, n, got[4];
	char path[64], c;
	pid_t pid;

	ASSERT_EQ(0, pipe(sync));
	ASSERT_EQ(0, pipe(hold));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(sync[0]);
		close(hold[1]);
		if (enter_userns() || unshare(CLONE_NEWNET))
			_exit(1);
		ids[0] = self_ns_id("user");
		ids[1] = self_ns_id("net");
		if (write_all(sync[1], ids, sizeof(ids)))
			_exit(2);
		read(hold[0], &c, 1);
		_exit(0);
	}
	close(sync[1]);
	close(hold[0]);
	ASSERT_EQ(0, read_all(sync[0], ids, sizeof(ids)));
	u = ids[0];
	n = ids[1];
	snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
	nfd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(nfd, 0);
	ASSERT_EQ(n, ns_id_of_fd(nfd));
	close(hold[1]);
	ASSERT_EQ(0, wait_child(pid));

	ASSERT_ACTIVE(n);
	ASSERT_ACTIVE(u);
	ASSERT_EQ(1, list_ids(0, 0, u, got, 4));
	ASSERT_EQ(n, got[0]);

	ufd = ioctl(nfd, NS_GET_USERNS);
	ASSERT_GE(ufd, 0);
	ASSERT_EQ(u, ns_id_of_fd(ufd));
	/* U's parent is init_user_ns, which we are in. */
	pfd = ioctl(ufd, NS_GET_PARENT);
	ASSERT_GE(pfd, 0);
	ASSERT_EQ(USER_NS_INIT_ID, ns_id_of_fd(pfd));
	close(pfd);
	/* init_user_ns has no owner. */
	pfd = open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC);
	ASSERT_GE(pfd, 0);
	ASSERT_EQ(-1, ioctl(pfd, NS_GET_USERNS));
	ASSERT_EQ(EPERM, errno);
	ASSERT_EQ(-1, ioctl(pfd, NS_GET_PARENT));
	ASSERT_EQ(EPERM, errno);
	close(pfd);

	close(nfd);
	ASSERT_INACTIVE(n);
	ASSERT_ACTIVE(u);
	ASSERT_EQ(0, list_ids(0, 0, u, got, 4));

	close(ufd);
	ASSERT_INACTIVE(u);
	ASSERT_EQ(-EINVAL, list_ids(0, 0, u, got, 4));
}

/*
 * N (owned by U) is held by a socket only: both inactive. SIOCGSKNS
 * opens N, which resurrects N and, through the owner chain, U.
 */
TEST(siocgskns_resurrects_netns_and_owner)
{
	__u64 u = 0, n = 0, got[4];
	int sock, nfd, ufd;

	sock = make_socket_pinned_userns_netns(&u, &n);
	ASSERT_GE(sock, 0);
	ASSERT_INACTIVE(n);
	ASSERT_INACTIVE(u);
	ASSERT_EQ(-EINVAL, list_ids(0, 0, u, got, 4));

	nfd = ioctl(sock, SIOCGSKNS);
	ASSERT_GE(nfd, 0);
	ASSERT_EQ(n, ns_id_of_fd(nfd));
	ASSERT_ACTIVE(n);
	ASSERT_ACTIVE(u);
	ASSERT_EQ(1, list_ids(0, 0, u, got, 4));
	ASSERT_EQ(n, got[0]);
	ufd = ioctl(nfd, NS_GET_USERNS);
	ASSERT_GE(ufd, 0);
	ASSERT_EQ(u, ns_id_of_fd(ufd));

	close(ufd);
	ASSERT_ACTIVE(u);
	close(nfd);
	ASSERT_INACTIVE(n);
	ASSERT_INACTIVE(u);
	ASSERT_EQ(-EINVAL, list_ids(0, 0, u, got, 4));
	close(sock);
}

TEST_HARNESS_MAIN
