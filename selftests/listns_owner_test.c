// SPDX-License-Identifier: GPL-2.0
/*
 * listns() by owner (req->user_ns_id) and what a caller may see.
 *
 * user_ns_id must name an active user namespace (lookup_ns_id() in the
 * user tree), or be LISTNS_CURRENT_USER; anything else is EINVAL. The
 * walk then lists the namespaces that user namespace owns directly.
 *
 * may_list_ns(): a caller sees every namespace only if it is in the
 * initial pid namespace with CAP_SYS_ADMIN in the initial user namespace
 * (may_see_all_namespaces()); anyone else sees exactly the namespaces it
 * is in (is_current_namespace()): not ones it created and left, not ones
 * it holds an fd to, not a sibling's, even when it has CAP_SYS_ADMIN
 * over their owner.
 *
 * The expected lists are exact: namespace ids grow with creation, and
 * the tests say which namespaces they create, in which order.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <linux/nsfs.h>

#include "kselftest_harness.h"
#include "listns_helpers.h"

#define ASSERT_LIST(want, nwant, ns_id, type, owner) do {		\
	static __u64 _got[MAX_NS];					\
	long _n = list_ids(ns_id, type, owner, _got, MAX_NS);		\
	if (!ids_equal(#want, _got, _n, want, nwant))			\
		TH_LOG("ns_id %llu ns_type %#x user_ns_id %#llx",	\
		       (unsigned long long)(ns_id), (unsigned int)(type),\
		       (unsigned long long)(owner));			\
	ASSERT_TRUE(ids_equal(#want, _got, _n, want, nwant));		\
} while (0)

#define ASSERT_LIST_ERR(err, ns_id, type, owner) do {			\
	__u64 _got[4];							\
	ASSERT_EQ(-(err), list_ids(ns_id, type, owner, _got, 4));	\
} while (0)

/* The initial namespaces, by id (enum init_ns_id). */
static const __u64 initial_ids[] = {
	IPC_NS_INIT_ID, UTS_NS_INIT_ID, USER_NS_INIT_ID, PID_NS_INIT_ID,
	CGROUP_NS_INIT_ID, TIME_NS_INIT_ID, NET_NS_INIT_ID, MNT_NS_INIT_ID,
};

/* user_ns_id that is not an active user namespace */

TEST(owner_initial_non_user_ns_einval)
{
	for (size_t i = 0; i < ARRAY_SIZE(initial_ids); i++) {
		if (initial_ids[i] == USER_NS_INIT_ID)
			continue;
		ASSERT_LIST_ERR(EINVAL, 0, 0, initial_ids[i]);
		ASSERT_LIST_ERR(EINVAL, 0, NET_NS, initial_ids[i]);
	}
}

TEST(owner_active_net_ns_einval)
{
	__u64 id = 0;
	int fd = make_fd_held_ns(CLONE_NEWNET, "net", &id);

	ASSERT_GE(fd, 0);
	ASSERT_LIST_ERR(EINVAL, 0, 0, id);
	close(fd);
}

TEST(owner_never_issued_einval)
{
	ASSERT_LIST_ERR(EINVAL, 0, 0, NEVER_ISSUED_ID);
	ASSERT_LIST_ERR(EINVAL, 0, 0, UINT64_MAX - 1);
}

/* A user namespace whose last task exited and was reaped. */
TEST(owner_destroyed_userns_einval)
{
	__u64 id = 0;
	int pipefd[2];
	pid_t pid;

	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(pipefd[0]);
		if (enter_userns())
			_exit(1);
		id = self_ns_id("user");
		_exit(write_all(pipefd[1], &id, sizeof(id)) ? 2 : 0);
	}
	close(pipefd[1]);
	ASSERT_EQ(0, read_all(pipefd[0], &id, sizeof(id)));
	close(pipefd[0]);
	ASSERT_EQ(0, wait_child(pid));
	ASSERT_NE(0, id);
	ASSERT_LIST_ERR(EINVAL, 0, 0, id);
	ASSERT_LIST_ERR(EINVAL, id - 1, 0, id);
}

/* Inactive but still in the tree (held by a socket): EINVAL too. */
TEST(owner_inactive_userns_in_tree_einval)
{
	__u64 user = 0, net = 0, ref[MAX_NS];
	int sock = make_socket_pinned_userns_netns(&user, &net);
	long n;

	ASSERT_GE(sock, 0);
	ASSERT_GT(net, user);
	ASSERT_LIST_ERR(EINVAL, 0, 0, user);
	n = list_ids(0, 0, 0, ref, MAX_NS);
	ASSERT_GE(n, 8);
	ASSERT_FALSE(ids_contain(ref, n, user));
	ASSERT_FALSE(ids_contain(ref, n, net));
	close(sock);
}

/* Root in the initial namespaces */

/* Owned by init_user_ns: every listed namespace whose NS_GET_USERNS is 3. */
TEST(owner_init_userns_lists_what_it_owns)
{
	static __u64 ref[MAX_NS], want[MAX_NS];
	long nref, m = 0;

	nref = list_ids(0, 0, 0, ref, MAX_NS);
	ASSERT_GE(nref, 8);
	for (long i = 0; i < nref; i++) {
		long long owner = ns_owner_of_id(ref[i]);

		ASSERT_GE(owner, 0);
		if (owner == USER_NS_INIT_ID)
			want[m++] = ref[i];
	}
	/* All initial namespaces but init_user_ns itself. */
	ASSERT_GE(m, 7);
	ASSERT_LIST(want, m, 0, 0, USER_NS_INIT_ID);
	ASSERT_LIST(want, m, 0, 0, LISTNS_CURRENT_USER);
}

/* The initial user namespace is nobody's: it is not in its own list. */
TEST(owner_init_userns_not_listed_under_itself)
{
	__u64 got[MAX_NS];
	long n = list_ids(0, USER_NS, USER_NS_INIT_ID, got, MAX_NS);

	ASSERT_GE(n, 0);
	ASSERT_FALSE(ids_contain(got, n, USER_NS_INIT_ID));
}

/* Nested user namespaces */

/*
 * U1 (owner init) owns N1 (net) and T1 (uts); U2 (owner U1) owns I2
 * (ipc). Each list is what the owner owns and the caller is in: without
 * CAP_SYS_ADMIN in init_user_ns, only current namespaces are visible.
 */
TEST(nested_userns_owner_lists)
{
	__u64 u1, n1, t1, u2, i2;

	ASSERT_EQ(0, enter_userns());
	u1 = self_ns_id("user");
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	n1 = self_ns_id("net");
	ASSERT_EQ(0, unshare(CLONE_NEWUTS));
	t1 = self_ns_id("uts");
	ASSERT_GT(n1, u1);
	ASSERT_GT(t1, n1);

	/* In U1. */
	__u64 u1_owns[] = { n1, t1 };
	__u64 init_owns_in_u1[] = { IPC_NS_INIT_ID, PID_NS_INIT_ID,
				    CGROUP_NS_INIT_ID, TIME_NS_INIT_ID,
				    MNT_NS_INIT_ID, u1 };
	__u64 all_in_u1[] = { IPC_NS_INIT_ID, PID_NS_INIT_ID,
			      CGROUP_NS_INIT_ID, TIME_NS_INIT_ID,
			      MNT_NS_INIT_ID, u1, n1, t1 };

	ASSERT_LIST(u1_owns, 2, 0, 0, LISTNS_CURRENT_USER);
	ASSERT_LIST(u1_owns, 2, 0, 0, u1);
	ASSERT_LIST(init_owns_in_u1, 6, 0, 0, USER_NS_INIT_ID);
	ASSERT_LIST(all_in_u1, 8, 0, 0, 0);

	ASSERT_EQ(0, enter_userns());
	u2 = self_ns_id("user");
	ASSERT_EQ(0, unshare(CLONE_NEWIPC));
	i2 = self_ns_id("ipc");
	ASSERT_GT(u2, t1);
	ASSERT_GT(i2, u2);

	/* In U2, a child of U1. */
	__u64 u2_owns[] = { i2 };
	__u64 u1_owns_seen[] = { n1, t1, u2 };
	__u64 init_owns_in_u2[] = { PID_NS_INIT_ID, CGROUP_NS_INIT_ID,
				    TIME_NS_INIT_ID, MNT_NS_INIT_ID };
	__u64 all_in_u2[] = { PID_NS_INIT_ID, CGROUP_NS_INIT_ID,
			      TIME_NS_INIT_ID, MNT_NS_INIT_ID,
			      n1, t1, u2, i2 };

	ASSERT_LIST(u2_owns, 1, 0, 0, LISTNS_CURRENT_USER);
	ASSERT_LIST(u2_owns, 1, 0, 0, u2);
	/* U1 is an ancestor now: U2 is listed under it, U1 is not. */
	ASSERT_LIST(u1_owns_seen, 3, 0, 0, u1);
	ASSERT_LIST(init_owns_in_u2, 4, 0, 0, USER_NS_INIT_ID);
	ASSERT_LIST(all_in_u2, 8, 0, 0, 0);

	/* Type filters within the owner walk. */
	ASSERT_LIST(&t1, 1, 0, UTS_NS, u1);
	ASSERT_LIST(&u2, 1, 0, USER_NS, u1);
	ASSERT_LIST(NULL, 0, 0, PID_NS, u1);
	ASSERT_LIST(NULL, 0, 0, USER_NS, LISTNS_CURRENT_USER);

	/* Resume points within the owner walk. */
	ASSERT_LIST(u1_owns_seen, 3, u1, 0, u1);
	ASSERT_LIST(u1_owns_seen, 3, USER_NS_INIT_ID, 0, u1);
	ASSERT_LIST(u1_owns_seen + 1, 2, n1, 0, u1);
	ASSERT_LIST(u1_owns_seen + 2, 1, t1, 0, u1);
	ASSERT_LIST_ERR(ENOENT, u2, 0, u1);
	ASSERT_LIST_ERR(ENOENT, i2, 0, LISTNS_CURRENT_USER);
	/* Nothing is above UINT64_MAX (7.2 wrapped to the start). */
	ASSERT_LIST_ERR(ENOENT, UINT64_MAX, 0, u1);
}

/*
 * Siblings: A (user ns UA, net NA) stays alive; B, the test, makes UB,
 * then NB1 which it keeps an fd to, then NB2, its current net. Root sees
 * A's namespaces; B does not, nor NB1 which it created but left.
 */
TEST(sibling_userns_sees_only_own_current)
{
	__u64 a[2] = {}, ua, na, ub, nb1, nb2, ref[MAX_NS];
	int report[2], hold[2], nb1_fd;
	pid_t pid;
	long n;

	ASSERT_EQ(0, pipe(report));
	ASSERT_EQ(0, pipe(hold));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		char c;

		close(report[0]);
		close(hold[1]);
		if (enter_userns() || unshare(CLONE_NEWNET))
			_exit(1);
		a[0] = self_ns_id("user");
		a[1] = self_ns_id("net");
		if (write_all(report[1], a, sizeof(a)))
			_exit(2);
		/* Keep UA and NA active until the test is done. */
		read(hold[0], &c, 1);
		_exit(0);
	}
	close(report[1]);
	close(hold[0]);
	ASSERT_EQ(0, read_all(report[0], a, sizeof(a)));
	close(report[0]);
	ua = a[0];
	na = a[1];

	/* Root in the initial namespaces sees A's. */
	n = list_ids(0, 0, 0, ref, MAX_NS);
	ASSERT_TRUE(ids_contain(ref, n, ua));
	ASSERT_TRUE(ids_contain(ref, n, na));
	ASSERT_LIST(&na, 1, 0, 0, ua);

	ASSERT_EQ(0, enter_userns());
	ub = self_ns_id("user");
	/* B may not setns() back to init_net: leave NB1 for NB2 instead. */
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	nb1_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	ASSERT_GE(nb1_fd, 0);
	nb1 = ns_id_of_fd(nb1_fd);
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	nb2 = self_ns_id("net");
	ASSERT_GT(ub, na);
	ASSERT_GT(nb1, ub);
	ASSERT_GT(nb2, nb1);

	__u64 all[] = { IPC_NS_INIT_ID, UTS_NS_INIT_ID, PID_NS_INIT_ID,
			CGROUP_NS_INIT_ID, TIME_NS_INIT_ID, MNT_NS_INIT_ID,
			ub, nb2 };
	__u64 after_na[] = { ub, nb2 };

	ASSERT_LIST(&nb2, 1, 0, NET_NS, 0);
	ASSERT_LIST(all, 8, 0, 0, 0);
	ASSERT_LIST(&nb2, 1, 0, 0, LISTNS_CURRENT_USER);
	ASSERT_LIST(&nb2, 1, 0, 0, ub);
	/* UA is active and owns NA, but B may not see NA. */
	ASSERT_LIST(NULL, 0, 0, 0, ua);
	ASSERT_LIST_ERR(EINVAL, 0, 0, na);
	/* A sibling's id works as a resume point. */
	ASSERT_LIST(after_na, 2, na, 0, 0);

	close(nb1_fd);
	close(hold[1]);
	ASSERT_EQ(0, wait_child(pid));
}

/* Unprivileged callers */

/*
 * uid 65534 in the initial namespaces: exactly the eight initial ones,
 * not the network namespace it holds an fd to.
 */
TEST(unprivileged_uid_sees_initial_only)
{
	__u64 held = 0, owned_by_init[7], init_net = NET_NS_INIT_ID;
	int fd = make_fd_held_ns(CLONE_NEWNET, "net", &held), k = 0;

	ASSERT_GE(fd, 0);
	for (size_t i = 0; i < ARRAY_SIZE(initial_ids); i++)
		if (initial_ids[i] != USER_NS_INIT_ID)
			owned_by_init[k++] = initial_ids[i];

	ASSERT_EQ(0, setresgid(65534, 65534, 65534));
	ASSERT_EQ(0, setresuid(65534, 65534, 65534));

	ASSERT_LIST(initial_ids, 8, 0, 0, 0);
	ASSERT_LIST(owned_by_init, 7, 0, 0, USER_NS_INIT_ID);
	ASSERT_LIST(owned_by_init, 7, 0, 0, LISTNS_CURRENT_USER);
	ASSERT_LIST(&init_net, 1, 0, NET_NS, 0);
	ASSERT_LIST(initial_ids + 1, 7, IPC_NS_INIT_ID, 0, 0);
	close(fd);
}

/*
 * Root (CAP_SYS_ADMIN in init_user_ns) but in a child pid namespace:
 * may_see_all_namespaces() is false, so only current namespaces.
 * The check runs in the child (pid 1 of the new pid namespace).
 */
TEST(root_in_child_pidns_sees_current_only)
{
	pid_t pid;

	ASSERT_EQ(0, unshare(CLONE_NEWPID));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		__u64 p = self_ns_id("pid"), got[MAX_NS];
		__u64 all[] = { IPC_NS_INIT_ID, UTS_NS_INIT_ID,
				USER_NS_INIT_ID, CGROUP_NS_INIT_ID,
				TIME_NS_INIT_ID, NET_NS_INIT_ID,
				MNT_NS_INIT_ID, p };
		__u64 owned[] = { IPC_NS_INIT_ID, UTS_NS_INIT_ID,
				  CGROUP_NS_INIT_ID, TIME_NS_INIT_ID,
				  NET_NS_INIT_ID, MNT_NS_INIT_ID, p };
		long n;

		n = list_ids(0, 0, 0, got, MAX_NS);
		if (!ids_equal("global", got, n, all, 8))
			_exit(1);
		/* init_user_ns owns all of them but itself. */
		n = list_ids(0, 0, USER_NS_INIT_ID, got, MAX_NS);
		if (!ids_equal("owned by init", got, n, owned, 7))
			_exit(2);
		n = list_ids(0, PID_NS, 0, got, MAX_NS);
		if (!ids_equal("pid", got, n, &p, 1))
			_exit(3);
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));
}

/* When the capability is asked */

/* PF_SUPERPRIV (include/linux/sched.h): the task used a capability. */
#define PF_SUPERPRIV_FLAG 0x00000100UL

/* The flags field of /proc/self/stat (the 9th), or -1. */
static long self_task_flags(void)
{
	char buf[1024], *p;
	unsigned long flags;
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* After "pid (comm) ": state ppid pgrp session tty_nr tpgid flags. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return -1;
	return flags;
}

static int superpriv(void)
{
	long flags = self_task_flags();

	return flags < 0 ? -1 : !!(flags & PF_SUPERPRIV_FLAG);
}

/*
 * may_list_ns() asks may_see_all_namespaces() only for a candidate that
 * is not one of the caller's own, and the C walk writes each id before
 * it looks at the next candidate. Asking leaves a mark when it is granted:
 * ns_capable_noaudit() sets PF_SUPERPRIV (shown in /proc/<pid>/stat and by
 * process accounting), which fork() clears. So, for root in the initial
 * namespaces, with a network namespace held by an fd (not its own):
 *  - listing the eight initial namespaces (all its own) never asks;
 *  - listing everything into an unmapped buffer faults on the first id,
 *    before any candidate that is not its own: never asks either;
 *  - listing everything into a good buffer asks (the control).
 * A walk that collects ids before it writes them must write them before
 * it asks, or the second case marks the task where C does not.
 */
TEST(see_all_asked_where_c_asks_it)
{
	__u64 held = 0;
	int fd = make_fd_held_ns(CLONE_NEWNET, "net", &held);
	pid_t pid;

	ASSERT_GE(fd, 0);
	ASSERT_NE(0, held);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		static __u64 got[MAX_NS];
		struct ns_id_req req = mkreq(0, 0, 0);
		void *none = mmap(NULL, page_size(), PROT_NONE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		long n;

		if (none == MAP_FAILED || superpriv() != 0)
			_exit(10);
		n = list_ids(0, 0, 0, got, 8);
		if (!ids_equal("own only", got, n, initial_ids, 8))
			_exit(11);
		if (superpriv() != 0)
			_exit(12);
		if (listns_ret(&req, none, 100, 0) != -EFAULT)
			_exit(13);
		if (superpriv() != 0)
			_exit(14);
		n = list_ids(0, 0, 0, got, MAX_NS);
		if (n <= 8 || !ids_contain(got, n, held))
			_exit(15);
		if (superpriv() != 1)
			_exit(16);
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));
	close(fd);
}

TEST_HARNESS_MAIN
