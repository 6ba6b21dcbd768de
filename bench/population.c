// SPDX-License-Identifier: GPL-2.0
/*
 * nsbench: the namespace population.
 *
 * Three holder processes sit in a chain of nested user namespaces
 * (init_user_ns -> U1 -> U2 -> U3, one holder in each).  A holder creates
 * namespaces owned by its user namespace and keeps each alive with an
 * open nsfs fd only: unshare() + open(/proc/self/ns/X) for the types a
 * process can unshare again and again, a short-lived CLONE_VM|CLONE_VFORK
 * child that opens its new namespace into the shared fd table for user
 * and pid namespaces (a user namespace cannot be left again, a second
 * unshare(CLONE_NEWPID) fails).
 *
 * Namespaces held by fds alone are invisible to a /proc/PID/ns scan, so a
 * tenth of the population is held by sleeper processes instead: each
 * joins one of U1..U3, unshares SLEEPER_FLAGS and sleeps in them.
 *
 * The population only grows (1k -> 10k -> 50k), so no teardown sits
 * between the measured sizes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/nsfs.h>

#include "nsbench.h"

/*
 * The fd-held mix (per mille of the population; with the sleepers'
 * SLEEPER_PER_MILLE it adds up to 1000).  Cheap types dominate; net
 * namespaces cost milliseconds and a lot of memory each under TCG.
 */
const struct kind_info kinds[NR_KINDS] = {
	[K_UTS]    = { "uts",    CLONE_NEWUTS,    "uts",               170 },
	[K_IPC]    = { "ipc",    CLONE_NEWIPC,    "ipc",               150 },
	[K_CGROUP] = { "cgroup", CLONE_NEWCGROUP, "cgroup",            150 },
	[K_TIME]   = { "time",   CLONE_NEWTIME,   "time_for_children", 150 },
	[K_MNT]    = { "mnt",    CLONE_NEWNS,     "mnt",               110 },
	[K_USER]   = { "user",   CLONE_NEWUSER,   "user",              140 },
	[K_PID]    = { "pid",    CLONE_NEWPID,    "pid_for_children",   20 },
	[K_NET]    = { "net",    CLONE_NEWNET,    "net",                10 },
};

struct grow_cmd {
	long count[NR_KINDS];
};

struct grow_resp {
	int err;
	int kind;
};

long pop_kind_total(const struct population *p, enum ns_kind k)
{
	long n = 0;
	int l;

	for (l = 0; l < NR_LEVELS; l++) {
		n += p->held[l][k];
		if (SLEEPER_FLAGS & kinds[k].clone_flag)
			n += p->sleepers[l];
	}
	if (k == K_USER)
		n += NR_LEVELS;	/* the chain U1..U3 itself */
	return n;
}

long pop_total(const struct population *p)
{
	long n = 0;
	int k;

	for (k = 0; k < NR_KINDS; k++)
		n += pop_kind_total(p, k);
	return n;
}

long pop_owned_by(const struct population *p, int level)
{
	long n = SLEEPER_NS * p->sleepers[level];
	int k;

	for (k = 0; k < NR_KINDS; k++)
		n += p->held[level][k];
	if (level + 1 < NR_LEVELS)
		n++;	/* the next user namespace of the chain */
	return n;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		ret = errno ? -errno : -EIO;
	close(fd);
	return ret;
}

/*
 * Maps root of the new user namespace to our own uid/gid (0) in the
 * parent, the one mapping a process may write for itself: nested user
 * namespaces and setns() into them need the creator's ids mapped.
 */
static int map_self_root(void)
{
	int err;

	err = write_str("/proc/self/setgroups", "deny");
	if (!err)
		err = write_str("/proc/self/uid_map", "0 0 1");
	if (!err)
		err = write_str("/proc/self/gid_map", "0 0 1");
	return err;
}

struct child_arg {
	const char *path;
	int unshare_flag;
	int fd;
	int err;
};

static char child_stack[64 * 1024] __aligned(16);

/* Runs in a CLONE_VM|CLONE_FILES child: the fd lands in our table. */
static int child_open(void *arg)
{
	struct child_arg *a = arg;

	if (a->unshare_flag && unshare(a->unshare_flag)) {
		a->err = -errno;
		return 1;
	}
	a->fd = open(a->path, O_RDONLY | O_CLOEXEC);
	if (a->fd < 0)
		a->err = -errno;
	return 0;
}

static int make_in_child(int clone_flag, int unshare_flag, const char *path)
{
	struct child_arg a = { path, unshare_flag, -1, 0 };
	int status;
	pid_t pid;

	pid = clone(child_open, child_stack + sizeof(child_stack),
		    CLONE_VM | CLONE_VFORK | CLONE_FILES | clone_flag | SIGCHLD, &a);
	if (pid < 0)
		return -errno;
	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	if (a.err)
		return a.err;
	return (WIFEXITED(status) && !WEXITSTATUS(status)) ? 0 : -ECHILD;
}

/* One more namespace of type k, owned by our user namespace. */
int pop_make_one(enum ns_kind k)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/self/ns/%s", kinds[k].ns_file);
	switch (k) {
	case K_USER:
		return make_in_child(CLONE_NEWUSER, 0, path);
	case K_PID:
		return make_in_child(0, CLONE_NEWPID, path);
	default:
		if (unshare(kinds[k].clone_flag))
			return -errno;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		return fd < 0 ? -errno : 0;
	}
}

static __noreturn void holder_loop(int cmd, int resp)
{
	struct grow_cmd c;

	while (read_full(cmd, &c, sizeof(c)) == 0) {
		struct grow_resp r = { 0, 0 };
		int k;
		long i;

		for (k = 0; k < NR_KINDS && !r.err; k++) {
			for (i = 0; i < c.count[k] && !r.err; i++) {
				r.err = pop_make_one(k);
				r.kind = k;
			}
		}
		if (write_full(resp, &r, sizeof(r)))
			break;
	}
	_exit(0);
}

/* Holder of level l: lives in U(l+1), a child of U(l) (U0 = init). */
static int spawn_holder(struct population *p, int l)
{
	int cmd[2], resp[2], err = 0;
	char path[64];
	pid_t pid;

	if (pipe2(cmd, O_CLOEXEC) || pipe2(resp, O_CLOEXEC))
		return -errno;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (l > 0 && setns(p->userns_fd[l - 1], CLONE_NEWUSER))
			err = -errno;
		if (!err && unshare(CLONE_NEWUSER))
			err = -errno;
		if (!err)
			err = map_self_root();
		close(cmd[1]);
		close(resp[0]);
		keep_two(&cmd[0], &resp[1]);
		write_full(resp[1], &err, sizeof(err));
		if (err)
			_exit(1);
		holder_loop(cmd[0], resp[1]);
	}
	track_child(pid);
	close(cmd[0]);
	close(resp[1]);
	p->holder[l] = pid;
	p->cmd_fd[l] = cmd[1];
	p->resp_fd[l] = resp[0];
	if (read_full(resp[0], &err, sizeof(err)))
		return -EPIPE;
	if (err)
		return err;
	snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
	p->userns_fd[l] = open(path, O_RDONLY | O_CLOEXEC);
	if (p->userns_fd[l] < 0)
		return -errno;
	if (ioctl(p->userns_fd[l], NS_GET_ID, &p->userns_id[l]))
		return -errno;
	return 0;
}

int pop_init(struct population *p)
{
	int l, err;

	memset(p, 0, sizeof(*p));
	if (pipe2(p->ready_fd, O_CLOEXEC))
		return -errno;
	for (l = 0; l < NR_LEVELS; l++) {
		err = spawn_holder(p, l);
		if (err)
			return err;
	}
	return 0;
}

static int spawn_sleeper(struct population *p, int l)
{
	int err = 0;
	pid_t pid;

	if (p->nr_sleepers == p->sleeper_cap) {
		long cap = p->sleeper_cap ? 2 * p->sleeper_cap : 256;
		pid_t *n = realloc(p->sleeper_pid, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->sleeper_pid = n;
		p->sleeper_cap = cap;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (setns(p->userns_fd[l], CLONE_NEWUSER) || unshare(SLEEPER_FLAGS))
			err = -errno;
		write_full(p->ready_fd[1], &err, sizeof(err));
		close_range(3, ~0U, 0);
		for (;;)
			pause();
	}
	track_child(pid);
	p->sleeper_pid[p->nr_sleepers++] = pid;
	if (read_full(p->ready_fd[0], &err, sizeof(err)))
		return -EPIPE;
	if (!err)
		p->sleepers[l]++;
	return err;
}

/*
 * Grows the population to n namespaces: computes the target per type,
 * starts the holders on their shares in parallel, spawns the sleepers
 * meanwhile and waits for the holders.
 */
int pop_grow(struct population *p, long n)
{
	long want[NR_KINDS], sum, sleepers, have = 0;
	struct grow_cmd cmd[NR_LEVELS];
	int k, l, err = 0;

	sleepers = n * SLEEPER_PER_MILLE / 1000 / SLEEPER_NS;
	if (sleepers < NR_LEVELS)
		sleepers = NR_LEVELS;
	sum = sleepers * SLEEPER_NS + NR_LEVELS;
	for (k = 0; k < NR_KINDS; k++) {
		want[k] = n * kinds[k].per_mille / 1000;
		if (k == K_USER)
			want[k] = want[k] > NR_LEVELS ? want[k] - NR_LEVELS : 0;
		sum += want[k];
	}
	/* Rounding: uts takes up the slack so that the total is exactly n. */
	want[K_UTS] += n - sum;
	if (want[K_UTS] < 0)
		return -EINVAL;

	memset(cmd, 0, sizeof(cmd));
	for (l = 0; l < NR_LEVELS; l++) {
		for (k = 0; k < NR_KINDS; k++) {
			long share = want[k] / NR_LEVELS + (l < want[k] % NR_LEVELS);

			if (share < p->held[l][k])
				return -EINVAL;	/* the population only grows */
			cmd[l].count[k] = share - p->held[l][k];
		}
		if (write_full(p->cmd_fd[l], &cmd[l], sizeof(cmd[l])))
			return -EPIPE;
	}
	for (l = 0; l < NR_LEVELS; l++)
		have += p->sleepers[l];
	for (; have < sleepers && !err; have++)
		err = spawn_sleeper(p, have % NR_LEVELS);
	for (l = 0; l < NR_LEVELS; l++) {
		struct grow_resp r;

		if (read_full(p->resp_fd[l], &r, sizeof(r)))
			return -EPIPE;
		if (r.err) {
			fprintf(stderr, "holder %d: creating a %s namespace: %s\n",
				l, kinds[r.kind].name, strerror(-r.err));
			err = err ? err : r.err;
			continue;
		}
		for (k = 0; k < NR_KINDS; k++)
			p->held[l][k] += cmd[l].count[k];
	}
	return err;
}

void pop_kill(struct population *p)
{
	long i;
	int l;

	for (i = 0; i < p->nr_sleepers; i++)
		kill(p->sleeper_pid[i], SIGKILL);
	for (l = 0; l < NR_LEVELS; l++)
		if (p->holder[l] > 0)
			kill(p->holder[l], SIGKILL);
	while (wait(NULL) > 0 || errno == EINTR)
		;
}
