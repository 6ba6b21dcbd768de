// SPDX-License-Identifier: GPL-2.0
/*
 * nsbench: namespace churn, the hot path of the active reference count.
 *
 * One op: a child is created, unshare()s one namespace type, exits, and
 * is reaped.  Its exit drops the last active reference of the new
 * namespace, which puts one on the owner (U3, since the server runs
 * there) and takes the namespace off the trees.
 *
 * The child is a vfork-style clone (CLONE_VM | CLONE_VFORK): copying the
 * address space would only add cost that is the same on both kernels
 * and dilute the difference.  churn_none (no unshare) is that baseline.
 *
 * The server is forked early (small fd table, small address space) and
 * times the ops itself; the driver only sends the requests.
 *
 * The server also runs diag_unpriv: a listns() of everything by a caller
 * without CAP_SYS_ADMIN over init_user_ns (it is root in U3 only), which
 * lists just the namespaces it is in and rejects all others at the
 * visibility check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nsbench.h"

struct churn_req {
	int kind;	/* enum ns_kind, NR_KINDS for none, LISTNS_ALL */
	long iters;
	long nr_ids;	/* LISTNS_ALL: buffer size */
};

#define LISTNS_ALL (-1)

struct churn_resp {
	int err;
	long count;
	uint64_t elapsed_ns;
};

static int req_fd = -1, resp_fd = -1;
static pid_t server;

static char churn_stack[64 * 1024] __aligned(16);

static int churn_child(void *arg)
{
	int flag = *(int *)arg;

	return flag && unshare(flag) ? 1 : 0;
}

static int churn_loop(int kind, long iters, uint64_t *elapsed)
{
	int flag = kind < NR_KINDS ? kinds[kind].clone_flag : 0;
	uint64_t t0 = now_ns();
	int status;
	long i;

	for (i = 0; i < iters; i++) {
		pid_t pid = clone(churn_child, churn_stack + sizeof(churn_stack),
				  CLONE_VM | CLONE_VFORK | SIGCHLD, &flag);

		if (pid < 0)
			return -errno;
		if (waitpid(pid, &status, 0) != pid)
			return -errno;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			return -EPERM;	/* unshare() failed in the child */
	}
	*elapsed = now_ns() - t0;
	return 0;
}

static int listns_loop(long iters, long nr, long *count, uint64_t *elapsed)
{
	__u64 *ids = malloc(nr * sizeof(*ids));
	uint64_t t0 = now_ns();
	long i, r = 0;

	if (!ids)
		return -ENOMEM;
	for (i = 0; i < iters; i++) {
		r = sys_listns(0, 0, 0, ids, nr);
		if (r < 0) {
			free(ids);
			return -errno;
		}
	}
	*elapsed = now_ns() - t0;
	*count = r;
	free(ids);
	return 0;
}

static __noreturn void churn_server(int userns_fd, int rq, int rs)
{
	struct churn_req q;
	int err = 0;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (setns(userns_fd, CLONE_NEWUSER))
		err = -errno;
	keep_two(&rq, &rs);
	if (write_full(rs, &err, sizeof(err)) || err)
		_exit(1);
	while (read_full(rq, &q, sizeof(q)) == 0) {
		struct churn_resp r = { 0, 1, 0 };

		if (q.kind == LISTNS_ALL)
			r.err = listns_loop(q.iters, q.nr_ids, &r.count, &r.elapsed_ns);
		else
			r.err = churn_loop(q.kind, q.iters, &r.elapsed_ns);
		if (write_full(rs, &r, sizeof(r)))
			break;
	}
	_exit(0);
}

int churn_start(const struct population *p)
{
	int rq[2], rs[2], err;

	if (pipe2(rq, O_CLOEXEC) || pipe2(rs, O_CLOEXEC))
		return -errno;
	fflush(stdout);
	server = fork();
	if (server < 0)
		return -errno;
	if (server == 0) {
		close(rq[1]);
		close(rs[0]);
		churn_server(p->userns_fd[NR_LEVELS - 1], rq[0], rs[1]);
	}
	track_child(server);
	close(rq[0]);
	close(rs[1]);
	req_fd = rq[1];
	resp_fd = rs[0];
	if (read_full(resp_fd, &err, sizeof(err)))
		return -EPIPE;
	return err;
}

static int server_run(const struct churn_req *q, uint64_t *elapsed_ns, long *count)
{
	struct churn_resp r;

	if (write_full(req_fd, q, sizeof(*q)) || read_full(resp_fd, &r, sizeof(r)))
		return -EPIPE;
	*elapsed_ns = r.elapsed_ns;
	*count = r.count;
	return r.err;
}

int churn_run(int kind, long iters, uint64_t *elapsed_ns)
{
	struct churn_req q = { kind, iters, 0 };
	long count;

	return server_run(&q, elapsed_ns, &count);
}

int unpriv_listns(long iters, long nr_ids, uint64_t *elapsed_ns, long *count)
{
	struct churn_req q = { LISTNS_ALL, iters, nr_ids };

	return server_run(&q, elapsed_ns, count);
}

void churn_stop(void)
{
	if (server > 0) {
		close(req_fd);
		waitpid(server, NULL, 0);
		server = 0;
	}
}
