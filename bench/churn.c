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
 *
 * And it is listns_churn's churner (churn_bg_start()/churn_bg_stop()):
 * pinned to one CPU, it repeats the churn_uts op (a new UTS namespace,
 * created and destroyed: one tree add, one tree remove, an active get
 * and put) until the driver stops it, and counts the ops in memory the
 * driver reads, so that the driver knows how many namespaces came and
 * went while it measured.  UTS alone: its teardown is synchronous in the
 * exiting child (free_uts_ns(), then kfree_rcu()), so the churn rate is
 * steady; IPC and network namespaces are torn down by workqueues, in
 * bursts, on either CPU.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nsbench.h"

struct churn_req {
	int kind;	/* enum ns_kind, NR_KINDS for none, LISTNS_ALL, BG_CHURN */
	long iters;
	long nr_ids;	/* LISTNS_ALL: buffer size; BG_CHURN: the CPU */
};

#define LISTNS_ALL (-1)
/* Churn until told to stop: one response when started, one when stopped. */
#define BG_CHURN (-2)
/* What the background churner unshares. */
#define BG_CHURN_FLAGS CLONE_NEWUTS
/* Ops the churner completes before the driver measures. */
#define BG_WARMUP 4
/* How long the driver waits for them (guest time). */
#define BG_WARMUP_NS (10 * 1000000000ull)

/* Shared between the driver and the server (MAP_SHARED). */
struct churn_shared {
	long ops;	/* BG_CHURN ops done since the start */
	int stop;	/* the driver: stop churning */
	int err;	/* the server: churning failed (-errno) */
};

static struct churn_shared *shared;

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

/*
 * BG_CHURN: pinned to cpu, churn_loop()'s op until shared->stop, each
 * counted in shared->ops.  Acks the start (or its failure), then reports
 * the ops and the time when stopped.
 */
static void bg_churn(int rs, int cpu)
{
	struct churn_resp r = { 0, 0, 0 };
	int flag = BG_CHURN_FLAGS, status;
	cpu_set_t old, one;
	uint64_t t0;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_getaffinity(0, sizeof(old), &old) ||
	    sched_setaffinity(0, sizeof(one), &one))
		r.err = -errno;
	if (write_full(rs, &r, sizeof(r)) || r.err)
		return;
	t0 = now_ns();
	while (!__atomic_load_n(&shared->stop, __ATOMIC_ACQUIRE)) {
		pid_t pid = clone(churn_child, churn_stack + sizeof(churn_stack),
				  CLONE_VM | CLONE_VFORK | SIGCHLD, &flag);

		if (pid < 0) {
			r.err = -errno;
			break;
		}
		if (waitpid(pid, &status, 0) != pid) {
			r.err = -errno;
			break;
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			r.err = -EPERM;	/* unshare() failed in the child */
			break;
		}
		__atomic_add_fetch(&shared->ops, 1, __ATOMIC_RELEASE);
	}
	r.elapsed_ns = now_ns() - t0;
	r.count = __atomic_load_n(&shared->ops, __ATOMIC_ACQUIRE);
	__atomic_store_n(&shared->err, r.err, __ATOMIC_RELEASE);
	sched_setaffinity(0, sizeof(old), &old);
	write_full(rs, &r, sizeof(r));
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

		if (q.kind == BG_CHURN) {
			bg_churn(rs, q.nr_ids);
			continue;
		}
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

	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED) {
		shared = NULL;
		return -errno;
	}
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

int churn_bg_start(int cpu)
{
	struct churn_req q = { BG_CHURN, 0, cpu };
	struct churn_resp r;
	uint64_t t0, el;
	long ops;
	int err;

	__atomic_store_n(&shared->ops, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&shared->err, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&shared->stop, 0, __ATOMIC_RELEASE);
	if (write_full(req_fd, &q, sizeof(q)) || read_full(resp_fd, &r, sizeof(r)))
		return -EPIPE;
	if (r.err)
		return r.err;
	/* The churn is under way before anything is measured. */
	t0 = now_ns();
	while (churn_bg_ops() < BG_WARMUP && !__atomic_load_n(&shared->err, __ATOMIC_ACQUIRE) &&
	       now_ns() - t0 < BG_WARMUP_NS)
		usleep(1000);
	if (churn_bg_ops() >= BG_WARMUP)
		return 0;
	err = churn_bg_stop(&ops, &el);
	return err ? err : -ETIMEDOUT;
}

long churn_bg_ops(void)
{
	return __atomic_load_n(&shared->ops, __ATOMIC_ACQUIRE);
}

int churn_bg_stop(long *ops, uint64_t *elapsed_ns)
{
	struct churn_resp r;

	__atomic_store_n(&shared->stop, 1, __ATOMIC_RELEASE);
	if (read_full(resp_fd, &r, sizeof(r)))
		return -EPIPE;
	*ops = r.count;
	*elapsed_ns = r.elapsed_ns;
	return r.err;
}

void churn_stop(void)
{
	if (server > 0) {
		close(req_fd);
		waitpid(server, NULL, 0);
		server = 0;
	}
}
