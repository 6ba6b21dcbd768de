// SPDX-License-Identifier: GPL-2.0
/*
 * nssettle: wait until the set of active namespaces stops changing.
 *
 * Namespace teardown is partly asynchronous (network namespaces are
 * cleaned up by a workqueue, files are released via task work and RCU),
 * so a test that compares listns() counts against a baseline can see the
 * previous test's namespaces going away.  The guest test runner calls this
 * between test binaries: it polls listns() until the list of ids has been
 * identical for STABLE_POLLS polls in a row, or gives up after TIMEOUT_MS.
 *
 * Exit status: 0 settled, 1 timed out, 2 listns() failed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/nsfs.h>
#include <linux/types.h>

#ifndef __NR_listns
#define __NR_listns 470
#endif

#define MAX_IDS		65536
#define POLL_MS		50
#define STABLE_POLLS	3
#define TIMEOUT_MS	20000

static __u64 ids_a[MAX_IDS], ids_b[MAX_IDS];

static long list_all(__u64 *ids)
{
	struct ns_id_req req = { .size = sizeof(req) };

	return syscall(__NR_listns, &req, ids, MAX_IDS, 0);
}

int main(void)
{
	__u64 *cur = ids_a, *prev = ids_b, *tmp;
	long n, prev_n = -1;
	int stable = 0, waited = 0;
	struct timespec ts = { 0, POLL_MS * 1000000L };

	while (waited < TIMEOUT_MS) {
		n = list_all(cur);
		if (n < 0) {
			fprintf(stderr, "nssettle: listns: %s\n", strerror(errno));
			return 2;
		}
		if (n == prev_n && !memcmp(cur, prev, n * sizeof(*cur)))
			stable++;
		else
			stable = 0;
		if (stable >= STABLE_POLLS)
			return 0;
		tmp = prev;
		prev = cur;
		cur = tmp;
		prev_n = n;
		nanosleep(&ts, NULL);
		waited += POLL_MS;
	}
	fprintf(stderr, "nssettle: namespaces still changing after %d ms\n", TIMEOUT_MS);
	return 1;
}
