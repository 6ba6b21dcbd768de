// SPDX-License-Identifier: GPL-2.0
/*
 * The guest runner's settle step, tested: qemu/run-tests.sh runs each
 * kselftest-harness test on its own, waits until the processes it left
 * behind are reaped (tools/nsrun) and, before the next, until listns()
 * is stable.
 * Upstream tests that compare listns() with a baseline depend on it
 * (namespaces/stress_test after regression_pidfd_setns_test, whose
 * simple_pidfd_setns_clone leaves a child asleep for 2 s in four new
 * namespaces).
 *
 * The first test leaves such an orphan behind: asleep for ORPHAN_S in a
 * new user namespace, whose id it writes to ID_FILE.  The second, run
 * after the runner settled, fails if that namespace is still listed.
 * A runner that does not wait for the orphan (as before: its process
 * list tested "[ -s /proc/PID/cmdline ]", false for every process in
 * procfs) fails the second test; one that waits passes it.
 */
#define _GNU_SOURCE
#include <signal.h>

#include "kselftest_harness.h"
#include "listns_helpers.h"

#define ID_FILE "/tmp/nstree-runner-settle-id"
#define ORPHAN_S 5

TEST(leave_an_orphan)
{
	int pfd[2];
	__u64 id = 0;
	pid_t pid;

	ASSERT_EQ(pipe(pfd), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(pfd[0]);
		if (unshare(CLONE_NEWUSER))
			_exit(1);
		id = self_ns_id("user");
		if (write_all(pfd[1], &id, sizeof(id)))
			_exit(1);
		close(pfd[1]);
		sleep(ORPHAN_S);
		_exit(0);
	}
	close(pfd[1]);
	ASSERT_EQ(read_all(pfd[0], &id, sizeof(id)), 0);
	close(pfd[0]);
	ASSERT_NE(id, 0);
	{
		FILE *f = fopen(ID_FILE, "w");

		ASSERT_NE(f, NULL);
		fprintf(f, "%llu\n", (unsigned long long)id);
		ASSERT_EQ(fclose(f), 0);
	}
	TH_LOG("left pid %d asleep for %d s in user namespace %llu", pid,
	       ORPHAN_S, (unsigned long long)id);
	/* Return without waiting: the child is the next test's problem. */
}

TEST(the_orphan_is_gone)
{
	unsigned long long id = 0;
	__u64 ids[MAX_NS];
	FILE *f;
	long n;

	f = fopen(ID_FILE, "r");
	ASSERT_NE(f, NULL)
		TH_LOG("no %s: leave_an_orphan did not run first", ID_FILE);
	ASSERT_EQ(fscanf(f, "%llu", &id), 1);
	fclose(f);
	unlink(ID_FILE);

	n = list_ids(0, USER_NS, 0, ids, MAX_NS);
	ASSERT_GE(n, 0);
	EXPECT_FALSE(ids_contain(ids, n, id))
		TH_LOG("the orphan's user namespace %llu is still listed", id);
}

TEST_HARNESS_MAIN
