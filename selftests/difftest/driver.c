// SPDX-License-Identifier: GPL-2.0
/*
 * ns_difftest: the seed driver.  It draws the operations from the seed,
 * has actors execute them, names every namespace by the order in which
 * the run first learned its id (n1, n2, ...), and prints one canonical
 * line per step.
 *
 * The operations (weights in ops[]): spawn a holder (fork + unshare, or
 * clone3 by a positioner that joined a template holder's namespaces),
 * unshare, setns into a held fd, open /proc/<pid>/ns files, close fds,
 * NS_GET_ID/USERNS/PARENT/NSTYPE/OWNER_UID, AF_UNIX sockets and
 * SIOCGSKNS on them, open_by_handle_at() by id, listns() walks, uid/gid
 * maps, setresuid/setresgid, bind mounts of nsfs files in a private
 * tmpfs and umount, holder exits (a pid namespace's init takes its
 * namespace's processes with it), passing fds between holders and the
 * driver (SCM_RIGHTS: fds and sockets that outlive their holder, setns
 * into other holders' namespaces) and, rarely, ~300 namespaces at once.
 *
 * What is synchronous and what is not (why the trace is reproducible):
 *
 *  - A namespace's *active* count drops synchronously with the event that
 *    drops it: a process's namespaces when it exits (before it becomes a
 *    zombie), its user and pid namespace when it is reaped (the driver
 *    always reaps at once, by waitpid()), an nsfs file when its fd is
 *    closed or its bind mount unmounted (task work, run before the
 *    syscall returns).  listns() lists only active namespaces, so what it
 *    lists never depends on timing.
 *
 *  - Removal from the tree is asynchronous for user namespaces
 *    (free_user_ns() is a work item, reached through RCU-freed creds),
 *    pid namespaces (a work item, reached through RCU-freed struct pids)
 *    and net namespaces (cleanup_net() runs on the ordered netns
 *    workqueue, after RCU grace periods).  An inactive namespace that is
 *    still in the tree matters in one place: the end of a paginated walk.
 *    A call at a cursor followed only by inactive namespaces lists
 *    nothing (0); once they have left the tree, the same call fails with
 *    ENOENT (Linux 7.3: ENOENT means that nothing at all follows the
 *    cursor in the walked tree).  Which of the two a walk sees depends on
 *    when the kernel's work items run, so when no active namespace
 *    follows the cursor in the walked tree, both are printed as "END".
 *    When an active one follows, the walk must end with an empty page: an
 *    ENOENT there is printed as such (a bug).  Whether an inactive
 *    namespace after the cursor gives 0 rather than ENOENT is a
 *    deterministic question for the selftests (listns_resume_test).
 *
 *  - Namespaces outside the run: every walk starts at a baseline id (a
 *    namespace made and destroyed when the seed starts, so every id of
 *    the run is larger), or at 0 only in an owner tree that holds nothing
 *    but the run's namespaces; ids the run did not learn are only
 *    counted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/nsfs.h>

#include "dt.h"
#include "stats.h"

/* Labels that are not an index into the learned table. */
#define L_NONE	-1	/* no namespace (error) */
#define L_INIT	-2	/* an initial namespace (ids 1..8) */
#define L_SYS	-3	/* another namespace that predates the run */

/* How long a holder may take to answer before the seed is given up. */
#define RPC_TIMEOUT_MS	20000
/* After this long without an operation, no tree removal is pending. */
/* How long the seed's end waits for the tree to forget the run. */
#define END_SETTLE_MS	15000

enum { FDK_NS, FDK_SOCK };

struct fdent {
	int fd;		/* in the actor */
	int kind;
	int ns;		/* label: the namespace, or a socket's net ns */
};

struct actor {
	char name[8];
	pid_t pid;	/* 0: the driver itself */
	int sock;
	bool alive;
	int nfds;
	struct fdent fds[DT_MAX_FDS];
	int cur[DT_NR_NSF];	/* labels of its namespaces */
};

struct nsent {
	__u64 id;
	__u32 type;
	__u32 inum;
	int owner;	/* label of the owning user namespace, L_NONE unknown */
	int parent;	/* user/pid: label of the parent, L_NONE unknown */
};

struct mountent {
	int mntns;	/* label of the mount namespace it was made in */
	int ns;		/* label of the namespace bound */
	int num;	/* /tmp/nsdiff/b<num> */
	bool gone;
};

struct seed {
	uint64_t rng;
	__u64 baseline;
	int step;
	int nactors;
	struct actor a[DT_MAX_ACTORS];
	int nns;
	struct nsent ns[DT_MAX_NS];
	int nmounts;
	struct mountent m[DT_MAX_MOUNTS];
	int nbulk;
	bool large;	/* a seed of DT_LARGE_FROM on: bulks, big pages */
	int len;
	char line[8192];
};

static struct seed S;
static struct dt_reply R;

/* ---- output ------------------------------------------------------------ */

static __printf(1, 2) void out(const char *fmt, ...);
static void out(const char *fmt, ...)
{
	va_list ap;
	int room = sizeof(S.line) - S.len;

	if (room <= 1)
		return;
	va_start(ap, fmt);
	S.len += vsnprintf(S.line + S.len, room, fmt, ap);
	va_end(ap);
	if (S.len >= (int)sizeof(S.line))
		S.len = sizeof(S.line) - 1;
}

static void flush_line(void)
{
	const char *p = S.line;
	ssize_t n;

	out("\n");
	while (S.len > 0) {
		n = write(STDOUT_FILENO, p, S.len);
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			break;
		}
		p += n;
		S.len -= n;
	}
	S.len = 0;
}

static void out_label(int l)
{
	if (l >= 0)
		out("n%d", l + 1);
	else if (l == L_INIT)
		out("I");
	else if (l == L_SYS)
		out("S");
	else
		out("?");
}

/*
 * A list of labels, runs of consecutive ones as "nA..nB" (bulk
 * namespaces come in runs of hundreds).
 */
static void out_labels(const int *l, int n)
{
	int i, j;

	out("[");
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && l[i] >= 0 && l[j] == l[j - 1] + 1; j++)
			;
		if (i)
			out(" ");
		out_label(l[i]);
		if (j - i > 2) {
			out("..");
			out_label(l[j - 1]);
		} else {
			j = i + 1;
		}
	}
	out("]");
}

static void out_flags(unsigned int flags)
{
	const char *sep = "";
	int i;

	if (!flags) {
		out("none");
		return;
	}
	for (i = 0; i < DT_NR_TYPES; i++) {
		if (flags & dt_types[i]) {
			out("%s%s", sep, dt_type_name(dt_types[i]));
			sep = "|";
		}
	}
}

static void out_err(int err)
{
	out("%s", dt_errname(err));
}

/* ---- namespaces and their labels --------------------------------------- */

static int label_of_id(__u64 id, __u32 type, __u32 inum, bool *fresh)
{
	int i;

	if (fresh)
		*fresh = false;
	if (!id)
		return L_NONE;
	if (id <= 8)
		return L_INIT;
	if (id <= S.baseline)
		return L_SYS;
	for (i = 0; i < S.nns; i++)
		if (S.ns[i].id == id)
			return i;
	if (S.nns == DT_MAX_NS)
		return L_NONE;
	S.ns[S.nns] = (struct nsent){ id, type, inum, L_NONE, L_NONE };
	if (fresh)
		*fresh = true;
	return S.nns++;
}

/* A label from an id the run does not learn new ids from (listns). */
static int known_label(__u64 id)
{
	int i;

	if (id <= 8)
		return L_INIT;
	if (id <= S.baseline)
		return L_SYS;
	for (i = 0; i < S.nns; i++)
		if (S.ns[i].id == id)
			return i;
	return L_NONE;
}

static int learn_fd(int fd);

/* The label of the namespace an ioctl on fd opens, learning it. */
static int learn_related(int fd, unsigned long req)
{
	int rel = ioctl(fd, req);
	int l;

	if (rel < 0)
		return L_NONE;
	l = learn_fd(rel);
	close(rel);
	return l;
}

/*
 * The label of the namespace behind a driver fd.  A namespace seen for
 * the first time also gets its owner and (user, pid) parent recorded:
 * the driver is in the initial user namespace, so it may open both.
 */
static int learn_fd(int fd)
{
	struct stat st;
	__u64 id = 0;
	bool fresh;
	int type, l;

	if (ioctl(fd, NS_GET_ID, &id) < 0)
		return L_NONE;
	type = ioctl(fd, NS_GET_NSTYPE);
	if (type < 0 || fstat(fd, &st) < 0)
		return L_NONE;
	l = label_of_id(id, type, st.st_ino, &fresh);
	if (!fresh)
		return l;
	S.ns[l].owner = learn_related(fd, NS_GET_USERNS);
	if (type == CLONE_NEWUSER || type == CLONE_NEWPID)
		S.ns[l].parent = learn_related(fd, NS_GET_PARENT);
	return l;
}

/* Learn what namespaces holder a is in now. */
static void learn_actor(struct actor *a)
{
	char path[64];
	int f, fd;

	for (f = 0; f < DT_NR_NSF; f++) {
		if (a->pid)
			snprintf(path, sizeof(path), "/proc/%d/ns/%s", a->pid, dt_nsf_file[f]);
		else
			snprintf(path, sizeof(path), "/proc/self/ns/%s", dt_nsf_file[f]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		a->cur[f] = fd < 0 ? L_NONE : learn_fd(fd);
		if (fd >= 0)
			close(fd);
	}
}

static void out_ns_of(const struct actor *a)
{
	int f;

	out(" ns=");
	for (f = 0; f < DT_NR_NSF; f++) {
		if (f)
			out(",");
		out_label(a->cur[f]);
	}
}

/* A label from what an actor reported about an fd it got. */
static int reply_label(const struct dt_reply *r)
{
	if (!(r->flags & DT_HAVE_NS))
		return L_NONE;
	return label_of_id(r->id, r->type, r->inum, NULL);
}

/* ---- actors -------------------------------------------------------------- */

static __noreturn void abort_seed(const char *why);

/* An fd that came with the last reply, or -1. */
static int rpc_fd = -1;

static int rpc_wait(int sock, struct dt_reply *r)
{
	struct pollfd p = { .fd = sock, .events = POLLIN };
	ssize_t n;
	int ret;

	do {
		ret = poll(&p, 1, RPC_TIMEOUT_MS);
	} while (ret < 0 && errno == EINTR);
	if (ret == 0)
		abort_seed("RPC-TIMEOUT");
	if (ret < 0)
		abort_seed("RPC-POLL");
	n = dt_recv_msg(sock, r, sizeof(*r), &rpc_fd);
	if (n < (ssize_t)offsetof(struct dt_reply, ids))
		abort_seed("RPC-LOST");
	return 0;
}

/* Have actor a execute c, sending fd along if fd >= 0. */
static void rpc_with(struct actor *a, const struct dt_cmd *c, struct dt_reply *r, int fd)
{
	if (!a->pid) {
		dt_do_cmd(c, r);
		return;
	}
	if (dt_send_msg(a->sock, c, sizeof(*c), fd))
		abort_seed("RPC-SEND");
	rpc_wait(a->sock, r);
}

static void rpc(struct actor *a, const struct dt_cmd *c, struct dt_reply *r)
{
	rpc_with(a, c, r, -1);
}

static struct actor *actor_of_pid(pid_t pid)
{
	int i;

	for (i = 1; i < S.nactors; i++)
		if (S.a[i].alive && S.a[i].pid == pid)
			return &S.a[i];
	return NULL;
}

static int nalive(void)
{
	int i, n = 0;

	for (i = 1; i < S.nactors; i++)
		n += S.a[i].alive;
	return n;
}

/* A random alive holder, or NULL. */
static struct actor *pick_holder(void)
{
	int n = nalive(), k, i;

	if (!n)
		return NULL;
	k = dt_rand(&S.rng, n);
	for (i = 1; i < S.nactors; i++)
		if (S.a[i].alive && !k--)
			return &S.a[i];
	return NULL;
}

/* The driver (one time in three) or a holder. */
static struct actor *pick_actor(void)
{
	if (!nalive() || !dt_rand(&S.rng, 3))
		return &S.a[0];
	return pick_holder();
}

static void mark_dead(struct actor *a)
{
	a->alive = false;
	a->nfds = 0;
	if (a->sock >= 0)
		close(a->sock);
	a->sock = -1;
}

/* Kill every holder and reap until the driver has no children left. */
static void kill_all(void)
{
	struct actor *a;
	pid_t pid;
	int i;

	for (i = 1; i < S.nactors; i++)
		if (S.a[i].alive)
			kill(S.a[i].pid, SIGKILL);
	while ((pid = waitpid(-1, NULL, 0)) > 0 || (pid < 0 && errno == EINTR)) {
		a = pid > 0 ? actor_of_pid(pid) : NULL;
		if (a)
			mark_dead(a);
	}
}

static void abort_seed(const char *why)
{
	out(" -> %s", why);
	flush_line();
	kill_all();
	_exit(2);
}

/* A plain child of the driver in the initial namespaces plus flags. */
static pid_t helper_spawn(unsigned int flags, int *sock)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -1;
	pid = fork();
	if (pid == 0) {
		R.ret = 0;
		dt_child_fds(sv[1], -1);
		if (flags && unshare(flags)) {
			R.ret = -1;
			R.err = errno;
		}
		dt_send_reply(DT_CMD_FD, &R, -1);
		if (R.ret)
			_exit(0);
		dt_holder_loop();
	}
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		return -1;
	}
	*sock = sv[0];
	rpc_wait(sv[0], &R);
	if (R.ret) {
		close(sv[0]);
		waitpid(pid, NULL, 0);
		errno = R.err;
		return -1;
	}
	return pid;
}

static void helper_end(pid_t pid, int sock)
{
	close(sock);	/* the helper's recv() returns 0: it exits */
	waitpid(pid, NULL, 0);
}

/* The id of a fresh namespace: every namespace of the run is newer. */
static __u64 fresh_id(unsigned int flags, const char *file, pid_t *keep, int *keep_sock)
{
	char path[64];
	__u64 id = 0;
	int sock, fd;
	pid_t pid;

	pid = helper_spawn(flags, &sock);
	if (pid < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/ns/%s", pid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (ioctl(fd, NS_GET_ID, &id))
			id = 0;
		close(fd);
	}
	if (keep) {
		*keep = pid;
		*keep_sock = sock;
	} else {
		helper_end(pid, sock);
	}
	return id;
}

/* ---- the operations ------------------------------------------------------ */

static unsigned int rand_flags(unsigned int one_in)
{
	unsigned int flags = 0;
	int i;

	for (i = 0; i < DT_NR_TYPES; i++)
		if (!dt_rand(&S.rng, one_in))
			flags |= dt_types[i];
	return flags;
}

static struct fdent *add_fd(struct actor *a, int fd, int kind, int ns)
{
	struct fdent *e;

	if (a->nfds == DT_MAX_FDS)
		return NULL;
	e = &a->fds[a->nfds++];
	*e = (struct fdent){ fd, kind, ns };
	return e;
}

/* Keep an fd an actor got, or close it again when it has no room. */
static void keep_fd(struct actor *a, int fd, int kind, int ns)
{
	struct dt_cmd c = { .op = OP_CLOSE, .fd = fd };

	if (add_fd(a, fd, kind, ns))
		return;
	rpc(a, &c, &R);
	out(" (closed)");
}

static struct fdent *pick_fd(struct actor *a, int kind)
{
	int n = 0, k, i;

	for (i = 0; i < a->nfds; i++)
		n += kind < 0 || a->fds[i].kind == kind;
	if (!n)
		return NULL;
	k = dt_rand(&S.rng, n);
	for (i = 0; i < a->nfds; i++)
		if ((kind < 0 || a->fds[i].kind == kind) && !k--)
			return &a->fds[i];
	return NULL;
}

static void out_fd(const struct fdent *e)
{
	out(e->kind == FDK_SOCK ? "sock(" : "fd(");
	out_label(e->ns);
	out(")");
}

static void out_result(const struct dt_reply *r)
{
	if (r->ret < 0)
		out_err(r->err);
	else
		out("ok");
}

/* Read exactly len bytes (with the RPC timeout); 0 on success. */
static int read_full(int fd, void *buf, size_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	while (len) {
		if (poll(&p, 1, RPC_TIMEOUT_MS) <= 0)
			return -1;
		n = read(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf = (char *)buf + n;
		len -= n;
	}
	return 0;
}

/*
 * The positioner of a cloned holder: join the template, clone3() with
 * flags, report the child's pid (in the driver's pid namespace, which is
 * the positioner's) or -errno on DT_AUX_FD, and exit.  The child becomes
 * the holder; with the positioner gone it is reparented to the driver.
 */
static void positioner(const struct actor *t, unsigned int flags, int sock, int pipe_w)
{
	struct {
		__u64 flags, pidfd, child_tid, parent_tid;
		__u64 exit_signal, stack, stack_size, tls;
	} ca = { .flags = flags, .exit_signal = SIGCHLD };
	int res = 0;
	long child;

	dt_child_fds(sock, pipe_w);
	if (t && dt_join(t->pid))
		res = -errno;
	if (!res) {
		dt_saved_euid = geteuid();
		dt_saved_egid = getegid();
		child = syscall(SYS_clone3, &ca, sizeof(ca));
		if (child == 0) {
			close(DT_AUX_FD);
			R.ret = 0;
			dt_send_reply(DT_CMD_FD, &R, -1);
			dt_holder_loop();
		}
		res = child < 0 ? -errno : (int)child;
	}
	if (write(DT_AUX_FD, &res, sizeof(res)) != sizeof(res))
		_exit(1);
	_exit(0);
}

/*
 * spawn: a new holder, optionally joining all namespaces of a template
 * holder first, then either forked by the driver and unsharing flags, or
 * cloned with flags (clone3) by a short-lived positioner that joined the
 * template and exits at once, so that the holder is reparented to the
 * driver (a child subreaper).  Only a cloned holder can live in a pid
 * namespace other than the driver's.
 */
static bool op_spawn(void)
{
	struct actor *t = NULL, *a;
	bool clone_it;
	unsigned int flags;
	int sv[2], pp[2];
	pid_t pid, pos;
	int status, res;

	if (nalive() >= DT_MAX_ALIVE || S.nactors >= DT_MAX_ACTORS)
		return false;
	if (nalive() && dt_rand(&S.rng, 3))
		t = pick_holder();
	clone_it = dt_rand(&S.rng, 2);
	flags = rand_flags(4);
	a = &S.a[S.nactors];
	memset(a, 0, sizeof(*a));
	snprintf(a->name, sizeof(a->name), "h%d", S.nactors);
	a->sock = -1;
	S.nactors++;
	out("spawn %s from=%s %s flags=", a->name, t ? t->name : "d",
	    clone_it ? "clone" : "fork");
	out_flags(flags);
	out(" ->");

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		abort_seed("SOCKETPAIR");
	if (!clone_it) {
		pid = fork();
		if (pid == 0) {
			dt_child_fds(sv[1], -1);
			R.ret = 0;
			if (t && dt_join(t->pid))
				R.ret = -1;
			if (!R.ret && flags) {
				uid_t euid = geteuid();
				gid_t egid = getegid();

				if (unshare(flags))
					R.ret = -1;
				dt_saved_euid = euid;
				dt_saved_egid = egid;
			}
			R.err = R.ret ? errno : 0;
			dt_send_reply(DT_CMD_FD, &R, -1);
			if (R.ret)
				_exit(0);
			dt_holder_loop();
		}
		close(sv[1]);
		if (pid < 0)
			abort_seed("FORK");
		a->sock = sv[0];
		rpc_wait(a->sock, &R);
		if (R.ret) {
			waitpid(pid, NULL, 0);
			mark_dead(a);
			out(" ");
			out_err(R.err);
			return true;
		}
	} else {
		if (pipe2(pp, O_CLOEXEC))
			abort_seed("PIPE");
		pos = fork();
		if (pos == 0)
			positioner(t, flags, sv[1], pp[1]);
		close(sv[1]);
		close(pp[1]);
		if (pos < 0)
			abort_seed("FORK");
		a->sock = sv[0];
		/* The positioner writes the holder's pid or -errno, then exits. */
		if (read_full(pp[0], &res, sizeof(res)))
			res = -EPIPE;
		close(pp[0]);
		while (waitpid(pos, &status, 0) < 0)
			if (errno != EINTR)
				abort_seed("WAITPID");
		if (res < 0) {
			mark_dead(a);
			out(" ");
			out_err(-res);
			return true;
		}
		pid = res;
		rpc_wait(a->sock, &R);
	}
	a->pid = pid;
	a->alive = true;
	learn_actor(a);
	out(" ok");
	out_ns_of(a);
	return true;
}

/* A holder in a namespace of the run of file f (not an initial one). */
static struct actor *pick_holder_in_run(int f)
{
	int n = 0, k, i;

	for (i = 1; i < S.nactors; i++)
		n += S.a[i].alive && S.a[i].cur[f] >= 0;
	if (!n)
		return NULL;
	k = dt_rand(&S.rng, n);
	for (i = 1; i < S.nactors; i++)
		if (S.a[i].alive && S.a[i].cur[f] >= 0 && !k--)
			return &S.a[i];
	return NULL;
}

static bool op_unshare(void)
{
	struct dt_cmd c = { .op = OP_UNSHARE };
	struct actor *h = pick_holder();

	if (!h)
		return false;
	do {
		c.arg = rand_flags(4);
	} while (!c.arg);
	out("unshare %s flags=", h->name);
	out_flags(c.arg);
	out(" -> ");
	rpc(h, &c, &R);
	out_result(&R);
	if (R.ret == 0) {
		learn_actor(h);
		out_ns_of(h);
	}
	return true;
}

static bool op_setns(void)
{
	struct dt_cmd c = { .op = OP_SETNS };
	struct actor *h = pick_holder();
	struct fdent *e = h ? pick_fd(h, FDK_NS) : NULL;

	if (!e)
		return false;
	c.fd = e->fd;
	/* Mostly any type; sometimes a named one, which may not match. */
	if (!dt_rand(&S.rng, 4))
		c.arg = dt_types[dt_rand(&S.rng, DT_NR_TYPES)];
	out("setns %s ", h->name);
	out_fd(e);
	out(" type=%s -> ", c.arg ? dt_type_name(c.arg) : "any");
	rpc(h, &c, &R);
	out_result(&R);
	if (R.ret == 0) {
		learn_actor(h);
		out_ns_of(h);
	}
	return true;
}

static bool op_open(void)
{
	struct dt_cmd c = { .op = OP_OPEN };
	struct actor *x = pick_actor(), *t;
	int f = dt_rand(&S.rng, DT_NR_NSF), l;

	if (x->nfds == DT_MAX_FDS)
		return false;
	/* A holder mostly opens its own files, the driver anybody's. */
	t = x->pid && dt_rand(&S.rng, 3) ? x : pick_holder();
	if (!t)
		t = x;
	if (t == x)
		snprintf(c.path, sizeof(c.path), "/proc/self/ns/%s", dt_nsf_file[f]);
	else
		snprintf(c.path, sizeof(c.path), "/proc/%d/ns/%s", t->pid, dt_nsf_file[f]);
	out("open %s %s/%s -> ", x->name, t == x ? "self" : t->name, dt_nsf_file[f]);
	rpc(x, &c, &R);
	out_result(&R);
	if (R.ret >= 0) {
		l = reply_label(&R);
		out(" ");
		out_label(l);
		keep_fd(x, R.ret, FDK_NS, l);
	}
	return true;
}

static void drop_fd(struct actor *a, struct fdent *e)
{
	*e = a->fds[--a->nfds];
}

static bool op_close(void)
{
	struct dt_cmd c = { .op = OP_CLOSE };
	struct actor *x = pick_actor();
	struct fdent *e = pick_fd(x, -1);

	if (!e)
		return false;
	c.fd = e->fd;
	out("close %s ", x->name);
	out_fd(e);
	out(" -> ");
	rpc(x, &c, &R);
	out_result(&R);
	drop_fd(x, e);
	return true;
}

static bool op_ioctl(void)
{
	/* Weights of GET_ID, GET_USERNS, GET_PARENT, GET_NSTYPE, GET_OWNER_UID */
	static const unsigned int w[DT_NR_IOCTLS] = { 2, 3, 3, 1, 1 };
	struct dt_cmd c = { .op = OP_IOCTL };
	struct actor *x = pick_actor();
	struct fdent *e = pick_fd(x, FDK_NS);
	unsigned int k;
	int l;

	if (!e)
		return false;
	k = dt_rand(&S.rng, 10);
	for (c.arg = 0; k >= w[c.arg]; c.arg++)
		k -= w[c.arg];
	c.fd = e->fd;
	out("ioctl %s ", x->name);
	out_fd(e);
	out(" %s -> ", dt_ioctl_name[c.arg]);
	rpc(x, &c, &R);
	out_result(&R);
	if (R.ret < 0)
		return true;
	switch (c.arg) {
	case IO_GET_ID:
		out(" ");
		out_label(label_of_id(R.id, 0, 0, NULL));
		break;
	case IO_GET_USERNS:
	case IO_GET_PARENT:
		l = reply_label(&R);
		out(" ");
		out_label(l);
		keep_fd(x, R.ret, FDK_NS, l);
		break;
	case IO_GET_NSTYPE:
		out(" %s", dt_type_name(R.ret));
		break;
	case IO_GET_OWNER_UID:
		out(" uid=%llu", (unsigned long long)R.id);
		break;
	}
	return true;
}

static bool op_socket(void)
{
	struct dt_cmd c = { .op = OP_SOCKET };
	struct actor *x = pick_actor();

	if (x->nfds == DT_MAX_FDS)
		return false;
	out("socket %s -> ", x->name);
	rpc(x, &c, &R);
	out_result(&R);
	if (R.ret >= 0) {
		out(" net=");
		out_label(x->cur[NSF_NET]);
		keep_fd(x, R.ret, FDK_SOCK, x->cur[NSF_NET]);
	}
	return true;
}

static bool op_skns(void)
{
	struct dt_cmd c = { .op = OP_SKNS };
	struct actor *x = pick_actor();
	struct fdent *e = pick_fd(x, FDK_SOCK);
	int l;

	if (!e)
		return false;
	c.fd = e->fd;
	out("SIOCGSKNS %s ", x->name);
	out_fd(e);
	out(" -> ");
	rpc(x, &c, &R);
	out_result(&R);
	if (R.ret >= 0) {
		l = reply_label(&R);
		out(" ");
		out_label(l);
		keep_fd(x, R.ret, FDK_NS, l);
	}
	return true;
}

/*
 * open_by_handle_at() of a learned namespace (active, inactive or gone):
 * with type and inode number, with neither, or with a wrong type.
 */
static bool op_handle(void)
{
	static const char *const mode_name[] = { "full", "id-only", "wrong-type" };
	struct dt_cmd c = { .op = OP_HANDLE };
	struct actor *x = pick_actor();
	int mode, n, l;

	if (!S.nns || x->nfds == DT_MAX_FDS)
		return false;
	n = dt_rand(&S.rng, S.nns);
	mode = dt_rand(&S.rng, 3);
	if (!S.ns[n].inum)	/* a bulk one: its inode number is not known */
		mode = 1;
	c.id = S.ns[n].id;
	if (mode != 1) {
		c.type = S.ns[n].type;
		c.inum = S.ns[n].inum;
	}
	if (mode == 2)
		c.type = c.type == CLONE_NEWNET ? CLONE_NEWUTS : CLONE_NEWNET;
	out("handle %s ", x->name);
	out_label(n);
	out(" %s -> ", mode_name[mode]);
	rpc(x, &c, &R);
	out_result(&R);
	if (R.ret >= 0) {
		l = reply_label(&R);
		out(" ");
		out_label(l);
		keep_fd(x, R.ret, FDK_NS, l);
	}
	return true;
}

/*
 * Does an active namespace follow @cursor in the tree the walk uses (the
 * owner's, the type's or the unified one)?  Then an empty page at the
 * cursor is final: that namespace is not going away.  Otherwise only
 * inactive namespaces follow it, which pending removals may still take
 * out of the tree, turning the empty page into ENOENT.  The driver may
 * see all namespaces, so one unpaginated listns() from 0 (no cursor, no
 * lookup) gives it the exact active set.  An active namespace whose type
 * or owner the run never learned cannot be placed in a tree: it does
 * not count.
 */
static bool active_follows(const struct dt_cmd *c, int owner, __u64 cursor)
{
	static __u64 active[DT_MAX_WALK];
	struct ns_id_req req = { .size = NS_ID_REQ_SIZE_VER0 };
	long n, i;
	int l;

	n = syscall(__NR_listns, &req, active, DT_MAX_WALK, 0);
	for (i = 0; i < n; i++) {
		if (active[i] <= cursor)
			continue;
		l = known_label(active[i]);
		if (l == L_NONE)	/* not learned: type and owner unknown */
			continue;
		if (l < 0) {	/* predates the run: not in a run owner's tree */
			if (c->id && owner >= 0)
				continue;
			return true;
		}
		if (c->id && (owner == L_NONE || S.ns[l].owner != owner))
			continue;
		if (!c->id && __builtin_popcount(c->type) == 1 && S.ns[l].type != c->type)
			continue;
		return true;
	}
	return false;
}

/*
 * listns(): a full paginated walk with random filters, page size and
 * caller.  Printed: the learned ids it returned, by label, the count of
 * ids above the baseline the run never learned, and the error the walk
 * ended with, if any.
 */
/* Page sizes around 64 and 256, and one larger than any of them. */
static const int big_pages[] = { 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000 };

static bool op_listns(void)
{
	struct dt_cmd c = { .op = OP_LISTNS };
	struct actor *x = pick_actor();
	int mode = dt_rand(&S.rng, 4), owner = L_NONE, nuser = 0;
	static int labels[DT_MAX_WALK];
	int i, k, unknown = 0;
	bool end;

	if (dt_rand(&S.rng, 3)) {
		k = 1 + dt_rand(&S.rng, 3);
		while (k--)
			c.type |= dt_types[dt_rand(&S.rng, DT_NR_TYPES)];
	}
	/* Small pages half of the time: cursors are what the walk tests. */
	c.arg = 1 + dt_rand(&S.rng, dt_rand(&S.rng, 2) ? 4 : 64);
	/* Large seeds: pages around the kernel's batch and pause sizes. */
	if (S.large && dt_rand(&S.rng, 4))
		c.arg = big_pages[dt_rand(&S.rng, ARRAY_SIZE(big_pages))];
	if (mode == 1) {
		c.id = LISTNS_CURRENT_USER;
		owner = x->cur[NSF_USER];
	} else if (mode >= 2) {
		for (i = 0; i < S.nns; i++)
			nuser += S.ns[i].type == CLONE_NEWUSER;
		k = dt_rand(&S.rng, nuser + 1);
		owner = L_INIT;
		c.id = 3;	/* USER_NS_INIT_ID */
		for (i = 0; i < S.nns; i++) {
			if (S.ns[i].type == CLONE_NEWUSER && !k--) {
				owner = i;
				c.id = S.ns[i].id;
				break;
			}
		}
	}
	/* From 0 only where the tree holds nothing but the run's. */
	c.id2 = S.baseline;
	if (c.id && owner >= 0 && dt_rand(&S.rng, 2))
		c.id2 = 0;

	out("listns by=%s type=", x->name);
	if (c.type)
		out_flags(c.type);
	else
		out("all");
	out(" owner=");
	if (mode == 0)
		out("any");
	else if (mode == 1)
		out("current");
	else
		out_label(owner);
	out(" page=%d from=%s ->", c.arg, c.id2 ? "base" : "0");

	rpc(x, &c, &R);
	dt_stats->walks++;
	dt_stats->big_walks += !!(R.flags & DT_WALK_BIG_CALL);
	/*
	 * The end at a cursor: ENOENT or an empty page.  Without an active
	 * namespace after the cursor in the walked tree, which one it is
	 * depends on pending removals (see the top of this file): "END".
	 */
	end = (R.ret < 0 && R.err == ENOENT) ||
	      (R.ret == 0 && (R.flags & DT_WALK_EMPTY_AT_CURSOR));
	if (end && !active_follows(&c, owner, R.id)) {
		dt_stats->walk_end++;
	} else {
		end = false;
		if (R.ret < 0 && R.err == ENOENT)
			dt_stats->walk_enoent++;
	}

	for (i = 0, k = 0; i < R.nids; i++) {
		int l = known_label(R.ids[i]);

		if (l == L_NONE)
			unknown++;
		else
			labels[k++] = l;
	}
	out(" ");
	out_labels(labels, k);
	if (unknown)
		out(" +%d?", unknown);
	if (end) {
		out(" END");
	} else if (R.ret < 0) {
		out(" ");
		out_err(R.err);
	}
	out(" calls=%d", R.calls);
	if (R.flags & DT_WALK_UNSORTED)
		out(" !unsorted");
	if (R.flags & DT_WALK_TOOMANY)
		out(" !toomany");
	if (R.flags & DT_WALK_OVERFLOW)
		out(" !overflow");
	return true;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	err = errno;
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -err;
}

/*
 * Write the uid/gid maps of a holder's user namespace: the driver maps
 * 0-65535 onto the same ids when the namespace is a child of the initial
 * one, else the holder writes one-line maps of its own creator ids.
 */
static bool op_map(void)
{
	struct dt_cmd c = { .op = OP_SELFMAP };
	struct actor *h = pick_holder_in_run(NSF_USER);
	char path[64];
	int ret;

	if (!h)
		return false;
	if (S.ns[h->cur[NSF_USER]].parent == L_INIT) {
		out("map %s by=d -> ", h->name);
		snprintf(path, sizeof(path), "/proc/%d/uid_map", h->pid);
		ret = write_str(path, "0 0 65536");
		if (!ret) {
			snprintf(path, sizeof(path), "/proc/%d/gid_map", h->pid);
			ret = write_str(path, "0 0 65536");
		}
		if (ret)
			out_err(-ret);
		else
			out("ok");
		return true;
	}
	out("map %s by=self -> ", h->name);
	rpc(h, &c, &R);
	out_result(&R);
	return true;
}

static bool op_setid(void)
{
	static const int ids[] = { 0, 1, 1000, 65534 };
	struct dt_cmd c = { .op = OP_SETID };
	struct actor *h = pick_holder();

	if (!h)
		return false;
	c.arg2 = dt_rand(&S.rng, 2);
	c.arg = ids[dt_rand(&S.rng, 4)];
	out("%s %s %d -> ", c.arg2 ? "setgid" : "setuid", h->name, c.arg);
	rpc(h, &c, &R);
	out_result(&R);
	return true;
}

static bool op_bind(void)
{
	struct dt_cmd c = { .op = OP_BIND };
	struct actor *h = pick_holder_in_run(NSF_MNT);
	struct fdent *e = NULL;
	struct mountent *m;
	int f, l;

	if (!h || S.nmounts == DT_MAX_MOUNTS)
		return false;
	if (dt_rand(&S.rng, 2))
		e = pick_fd(h, FDK_NS);
	if (e) {
		snprintf(c.path, sizeof(c.path), "/proc/self/fd/%d", e->fd);
		l = e->ns;
	} else {
		f = dt_rand(&S.rng, DT_NR_NSF);
		snprintf(c.path, sizeof(c.path), "/proc/self/ns/%s", dt_nsf_file[f]);
		l = h->cur[f];
	}
	m = &S.m[S.nmounts];
	*m = (struct mountent){ h->cur[NSF_MNT], l, S.nmounts + 1, false };
	snprintf(c.path2, sizeof(c.path2), "/tmp/nsdiff/b%d", m->num);
	out("bind %s ", h->name);
	if (e)
		out_fd(e);
	else {
		out("%s(", dt_nsf_file[f]);
		out_label(l);
		out(")");
	}
	out(" on b%d -> ", m->num);
	rpc(h, &c, &R);
	out_result(&R);
	if (R.ret == 0)
		S.nmounts++;
	return true;
}

static bool op_umount(void)
{
	struct dt_cmd c = { .op = OP_UMOUNT };
	struct actor *h = pick_holder_in_run(NSF_MNT);
	int n = 0, k, i;
	struct mountent *m = NULL;

	if (!h)
		return false;
	for (i = 0; i < S.nmounts; i++)
		n += !S.m[i].gone && S.m[i].mntns == h->cur[NSF_MNT];
	if (!n)
		return false;
	k = dt_rand(&S.rng, n);
	for (i = 0; i < S.nmounts; i++) {
		if (!S.m[i].gone && S.m[i].mntns == h->cur[NSF_MNT] && !k--) {
			m = &S.m[i];
			break;
		}
	}
	if (!dt_rand(&S.rng, 4))
		c.arg = MNT_DETACH;
	snprintf(c.path2, sizeof(c.path2), "/tmp/nsdiff/b%d", m->num);
	out("umount %s b%d%s -> ", h->name, m->num, c.arg ? " detach" : "");
	rpc(h, &c, &R);
	out_result(&R);
	if (R.ret == 0)
		m->gone = true;
	return true;
}

/*
 * A holder exits.  If it was the init of a pid namespace, every process
 * in that namespace is killed with it: the driver reaps until the holder
 * itself is reaped (its exit waits for the others to be reaped first)
 * and prints who died, in creation order.
 */
static bool op_exit(void)
{
	struct dt_cmd c = { .op = OP_EXIT };
	struct actor *h = pick_holder(), *a;
	bool died[DT_MAX_ACTORS] = { false };
	const char *sep = "";
	pid_t pid;
	int i;

	if (!h)
		return false;
	out("exit %s -> ", h->name);
	if (dt_send_msg(h->sock, &c, sizeof(c), -1))
		abort_seed("RPC-SEND");
	for (;;) {
		pid = waitpid(-1, NULL, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			abort_seed("WAITPID");
		}
		a = actor_of_pid(pid);
		if (!a)
			continue;
		died[a - S.a] = true;
		mark_dead(a);
		if (a == h)
			break;
	}
	out("died=");
	for (i = 1; i < S.nactors; i++) {
		if (died[i]) {
			out("%s%s", sep, S.a[i].name);
			sep = ",";
		}
	}
	return true;
}

/*
 * pass: a holder sends one of its fds to the driver (SCM_RIGHTS) and
 * keeps or closes its own copy: nsfs files then keep their namespace
 * active, and sockets their net namespace in the tree, after the holder
 * is gone.
 */
static bool op_pass(void)
{
	struct dt_cmd c = { .op = OP_PASS };
	struct actor *h = pick_holder(), *d = &S.a[0];
	struct fdent *e = h ? pick_fd(h, -1) : NULL;

	if (!e || d->nfds == DT_MAX_FDS)
		return false;
	c.fd = e->fd;
	c.arg = dt_rand(&S.rng, 2);
	out("pass %s ", h->name);
	out_fd(e);
	out(" to d %s -> ", c.arg ? "move" : "copy");
	rpc(h, &c, &R);
	if (rpc_fd < 0)
		abort_seed("NO-FD");
	out("ok");
	add_fd(d, rpc_fd, e->kind, e->ns);
	if (c.arg)
		drop_fd(h, e);
	return true;
}

/*
 * give: the driver sends one of its fds to a holder, which may then
 * setns() into it, bind-mount it or ask it; the driver keeps or closes
 * its own copy.
 */
static bool op_give(void)
{
	struct dt_cmd c = { .op = OP_RECV };
	struct actor *h = pick_holder(), *d = &S.a[0];
	struct fdent *e = pick_fd(d, -1);
	bool move;

	if (!h || !e || h->nfds == DT_MAX_FDS)
		return false;
	move = dt_rand(&S.rng, 2);
	out("give d ");
	out_fd(e);
	out(" to %s %s -> ", h->name, move ? "move" : "copy");
	rpc_with(h, &c, &R, e->fd);
	out_result(&R);
	if (R.ret >= 0)
		add_fd(h, R.ret, e->kind, e->ns);
	if (move) {
		close(e->fd);
		drop_fd(d, e);
	}
	return true;
}

/*
 * bulk: a holder makes some 300 uts namespaces (at most twice a seed); in a
 * large seed uts or cgroup ones, on every sixth step until it has two.
 */
static bool op_bulk(void)
{
	static int labels[DT_MAX_WALK];
	struct dt_cmd c = { .op = OP_BULK, .type = CLONE_NEWUTS };
	struct actor *h = pick_holder();
	int i, n = 0;

	if (!h || S.nbulk == 2 || S.nns + DT_MAX_WALK > DT_MAX_NS)
		return false;
	S.nbulk++;
	c.arg = 260 + dt_rand(&S.rng, 81);
	if (S.large && dt_rand(&S.rng, 2))
		c.type = CLONE_NEWCGROUP;
	out("bulk %s %s x%d -> ", h->name, dt_type_name(c.type), c.arg);
	rpc(h, &c, &R);
	out_result(&R);
	for (i = 0; i < R.nids; i++)
		labels[n++] = label_of_id(R.ids[i], c.type, 0, NULL);
	out(" ");
	out_labels(labels, n);
	learn_actor(h);
	return true;
}

static const struct {
	bool (*fn)(void);
	unsigned int weight;
} ops[] = {
	{ op_spawn, 14 }, { op_unshare, 7 }, { op_setns, 6 }, { op_open, 9 },
	{ op_close, 7 }, { op_ioctl, 9 }, { op_socket, 4 }, { op_skns, 5 },
	{ op_handle, 7 }, { op_listns, 14 }, { op_map, 5 }, { op_setid, 4 },
	{ op_bind, 5 }, { op_umount, 3 }, { op_exit, 8 }, { op_pass, 5 },
	{ op_give, 5 }, { op_bulk, 1 },
};

static void do_step(void)
{
	unsigned int total = 0, k, i;

	for (i = 0; i < ARRAY_SIZE(ops); i++)
		total += ops[i].weight;
	if (S.large && S.step % 6 == 0 && S.nbulk < 2) {
		S.len = 0;
		out("%d ", S.step);
		if (op_bulk()) {
			flush_line();
			dt_stats->steps++;
			return;
		}
	}
	for (;;) {
		k = dt_rand(&S.rng, total);
		for (i = 0; k >= ops[i].weight; i++)
			k -= ops[i].weight;
		S.len = 0;
		out("%d ", S.step);
		if (ops[i].fn())
			break;
	}
	flush_line();
	dt_stats->steps++;
}

/*
 * The seed's end: every holder is killed and reaped and the driver's fds
 * closed, so nothing of the run may stay active, and, once the
 * asynchronous frees are done, nothing of it may stay in the tree.  The
 * latter is checked against a sentinel namespace made afterwards: a walk
 * from the baseline must find it first.
 */
static void seed_end(void)
{
	struct ns_id_req req = { .size = NS_ID_REQ_SIZE_VER0 };
	int killed = nalive(), i, k = 0, sock = -1, ninit = 0;
	static int labels[DT_MAX_WALK];
	bool clean = false;
	uint64_t t0, waited;
	__u64 sentinel, id;
	pid_t spid = -1;
	long n;

	kill_all();
	for (i = 0; i < S.a[0].nfds; i++)
		close(S.a[0].fds[i].fd);
	S.a[0].nfds = 0;
	S.len = 0;
	out("END killed=%d active=", killed);
	n = syscall(__NR_listns, &req, R.ids, DT_MAX_WALK, 0);
	for (i = 0; i < n; i++) {
		if (R.ids[i] <= 8)
			ninit++;
		else if (R.ids[i] > S.baseline)
			labels[k++] = known_label(R.ids[i]);
	}
	out_labels(labels, k);
	/* The initial namespaces are always active (and always listed). */
	out(" init=%d", ninit);
	if (n < 0) {
		out(" ");
		out_err(errno);
	}

	t0 = dt_now_ms();
	sentinel = fresh_id(CLONE_NEWUTS, "uts", &spid, &sock);
	req.ns_id = S.baseline;
	while (sentinel) {
		n = syscall(__NR_listns, &req, &id, 1, 0);
		if (n == 1 && id == sentinel) {
			clean = true;
			break;
		}
		if (dt_now_ms() - t0 > END_SETTLE_MS)
			break;
		dt_sleep_ms(10);
	}
	waited = dt_now_ms() - t0;
	dt_stats->end_wait_ms += waited;
	if (waited > dt_stats->max_end_ms)
		dt_stats->max_end_ms = waited;
	if (!clean)
		dt_stats->end_unsettled++;
	out(" tree=%s", clean ? "clean" : sentinel ? "pending" : "no-sentinel");
	if (spid > 0)
		helper_end(spid, sock);
	flush_line();
}

int dt_run_seed(uint64_t seed, int steps)
{
	memset(&S, 0, sizeof(S));
	S.rng = seed * 0x2545f4914f6cdd1dULL + 0x5851f42d4c957f2dULL;
	S.large = seed >= DT_LARGE_FROM;
	dt_stats->large_seeds += S.large;
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	S.a[0] = (struct actor){ .name = "d", .pid = 0, .sock = -1, .alive = true };
	S.nactors = 1;
	out("SEED %llu", (unsigned long long)seed);
	flush_line();
	S.baseline = fresh_id(CLONE_NEWUTS, "uts", NULL, NULL);
	if (!S.baseline) {
		out("0 baseline -> ");
		out_err(errno);
		flush_line();
		return 1;
	}
	learn_actor(&S.a[0]);
	for (S.step = 1; S.step <= steps; S.step++)
		do_step();
	seed_end();
	dt_stats->seeds++;
	return 0;
}
