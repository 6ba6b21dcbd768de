// SPDX-License-Identifier: GPL-2.0
/*
 * listns() on large populations, across the boundaries of the Rust walk.
 *
 * The C walk (kernel/nstree.c, do_listns() and do_listns_userns()) leaves
 * RCU to write each id as it goes. The Rust walk (rust/listns.rs, Walk::run())
 * collects up to 64 ids (BATCH) under one RCU read-side section, writes
 * them, holds the last one by a counted reference and resumes from its
 * successor; and after every 256 skipped candidates (RESCHED_BATCH) it
 * pauses the same way if a reschedule is pending. A test that lists at
 * most 64 ids in a call, or never skips 256 in a row, passes whatever
 * happens at those boundaries: here every walk crosses them, many times.
 *
 * The population, built for every test: about 1,200 namespaces held by
 * nsfs fds, of five types, owned by init_user_ns and by three user
 * namespaces that forked children create (each ending in a chain of
 * nested user namespaces), with runs of hundreds of uts namespaces
 * between the others: NET_NS | IPC_NS skips 520 of them at once in the
 * unified tree, and 300 in an owner's tree. Ids come from one counter in
 * creation order, and nothing in the guest creates namespaces while a
 * test runs, so every namespace above the baseline id (a uts namespace
 * created and destroyed first) is one of the test's, and the test knows
 * the exact list each walk must return from its own records (NS_GET_ID
 * of each fd), never from listns(). Walks start after the baseline id,
 * or from 0 where nothing below it can be listed (an unprivileged caller
 * sees only its own namespaces) or the guest's part was listed first.
 *
 * Every result is compared exactly, including the end: the last page, then
 * 0, or ENOENT when the walked tree has nothing at all after the resume id.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <linux/nsfs.h>

#include "kselftest_harness.h"
#include "listns_helpers.h"

/* The population */

/* Who creates a segment: the test (owned by init_user_ns) or owner k. */
#define SELF 0
#define NR_OWNERS 3

struct seg {
	int who;
	/* CLONE_NEWUSER: a chain, each nested in the one before. */
	__u32 type;
	int count;
	/* The member the unprivileged walker joins, or -1. */
	int joined;
};

/*
 * Sized for the debug kernels, where each namespace costs milliseconds
 * to make and to free, and every test makes them all: every type's list
 * but net's and cgroup's crosses a batch of 64, the unified list, the uts
 * tree and U1's tree cross 256, and the NET_NS | IPC_NS walk skips runs
 * of 530 and 300.
 */
static const struct seg plan[] = {
	{ SELF, CLONE_NEWNET, 1, -1 },
	{ SELF, CLONE_NEWIPC, 40, -1 },
	{ SELF, CLONE_NEWCGROUP, 10, -1 },
	/* The run NET_NS | IPC_NS skips in the unified tree: two pauses. */
	{ SELF, CLONE_NEWUTS, 520, -1 },
	{ SELF, CLONE_NEWNET, 1, 0 },
	{ SELF, CLONE_NEWIPC, 70, 30 },
	{ SELF, CLONE_NEWUTS, 40, -1 },
	/* U1: a run of 300 in its tree, the walker's uts 260 into it. */
	{ 1, CLONE_NEWIPC, 35, -1 },
	{ 1, CLONE_NEWUTS, 300, 260 },
	{ 1, CLONE_NEWNET, 1, -1 },
	{ 1, CLONE_NEWIPC, 35, -1 },
	{ 1, CLONE_NEWCGROUP, 10, -1 },
	{ 1, CLONE_NEWUSER, 30, -1 },
	{ 2, CLONE_NEWUTS, 30, -1 },
	{ 2, CLONE_NEWIPC, 10, -1 },
	{ 2, CLONE_NEWUSER, 25, -1 },
	{ 3, CLONE_NEWIPC, 5, -1 },
	{ 3, CLONE_NEWUTS, 10, -1 },
	{ 3, CLONE_NEWUSER, 15, -1 },
	{ SELF, CLONE_NEWIPC, 5, -1 },
	{ SELF, CLONE_NEWUTS, 3, -1 },
};

/* What the plan makes: every segment plus the owners. */
static long planned_ns(void)
{
	long n = NR_OWNERS;

	for (size_t i = 0; i < ARRAY_SIZE(plan); i++)
		n += plan[i].count;
	return n;
}

/* One namespace the test knows. */
struct rec {
	__u64 id;
	/* The owning user namespace's id; 0: none (init_user_ns itself). */
	__u64 owner;
	__u32 type;
	/* Its plan segment and index there; -1 if not from the plan. */
	int seg;
	int idx;
	/* The nsfs fd that keeps it active; -1: the test's own. */
	int fd;
	/* Dropped while the churn test walks. */
	bool vol;
};

/* The population and the test's own namespaces, 8 more. */
#define MAX_RECS 2048

struct pop {
	struct rec recs[MAX_RECS];
	long n;
	/* Every namespace of the population has a larger id. */
	__u64 base;
	__u64 owner[NR_OWNERS];
	/* The unified list before the population was built. */
	__u64 baseline[MAX_NS];
	long nbaseline;
};

static const char *const ns_names[] = {
	"cgroup", "ipc", "mnt", "net", "pid", "time", "user", "uts",
};

static const char *ns_name(__u32 type)
{
	switch (type) {
	case CLONE_NEWCGROUP:
		return "cgroup";
	case CLONE_NEWIPC:
		return "ipc";
	case CLONE_NEWNET:
		return "net";
	case CLONE_NEWUSER:
		return "user";
	case CLONE_NEWUTS:
		return "uts";
	}
	return "none";
}

#ifndef PIDFD_GET_CGROUP_NAMESPACE
#define PIDFS_IOCTL_MAGIC 0xFF
#define PIDFD_GET_CGROUP_NAMESPACE _IO(PIDFS_IOCTL_MAGIC, 1)
#define PIDFD_GET_IPC_NAMESPACE _IO(PIDFS_IOCTL_MAGIC, 2)
#define PIDFD_GET_NET_NAMESPACE _IO(PIDFS_IOCTL_MAGIC, 4)
#define PIDFD_GET_USER_NAMESPACE _IO(PIDFS_IOCTL_MAGIC, 9)
#define PIDFD_GET_UTS_NAMESPACE _IO(PIDFS_IOCTL_MAGIC, 10)
#endif

static unsigned long pidfd_ns_ioctl(__u32 type)
{
	switch (type) {
	case CLONE_NEWCGROUP:
		return PIDFD_GET_CGROUP_NAMESPACE;
	case CLONE_NEWIPC:
		return PIDFD_GET_IPC_NAMESPACE;
	case CLONE_NEWNET:
		return PIDFD_GET_NET_NAMESPACE;
	case CLONE_NEWUSER:
		return PIDFD_GET_USER_NAMESPACE;
	}
	return PIDFD_GET_UTS_NAMESPACE;
}

/*
 * An nsfs fd for the caller's namespace of @type, or -errno: through a
 * pidfd of its own, which walks no path in /proc (on a debug kernel that
 * halves what a uts namespace costs to make), else /proc/self/ns.
 */
static int own_ns_fd(__u32 type)
{
	static int pidfd = -1;
	static pid_t pid;
	char path[64];
	int fd = -1;

	/* A forked child has a pidfd of its parent's: take its own. */
	if (pid != getpid()) {
		pid = getpid();
		pidfd = syscall(SYS_pidfd_open, pid, 0);
	}
	if (pidfd >= 0)
		fd = ioctl(pidfd, pidfd_ns_ioctl(type), 0);
	if (fd >= 0)
		return fd;
	snprintf(path, sizeof(path), "/proc/self/ns/%s", ns_name(type));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * A new namespace of @type, held by the nsfs fd returned (or -errno). A
 * user namespace is entered, nested in the caller's; any other replaces
 * the caller's, which the fd taken when it was made still holds.
 */
static int new_ns_fd(__u32 type)
{
	if (type == CLONE_NEWUSER) {
		int ret = enter_userns();

		if (ret)
			return ret;
	} else if (unshare(type)) {
		return -errno;
	}
	return own_ns_fd(type);
}

/* A record with the fd that holds it, over a SOCK_SEQPACKET socket. */
static int send_rec(int sock, const struct rec *r, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {};
	struct iovec iov = { .iov_base = (void *)r, .iov_len = sizeof(*r) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cmsg;

	if (fd >= 0) {
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	}
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == sizeof(*r) ? 0 : -EIO;
}

/* The record and its fd; an id of 0, without fd, ends the stream. */
static int recv_rec(int sock, struct rec *r)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {};
	struct iovec iov = { .iov_base = r, .iov_len = sizeof(*r) };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != sizeof(*r))
		return -EIO;
	r->fd = -1;
	cmsg = CMSG_FIRSTHDR(&msg);
	if (cmsg && cmsg->cmsg_type == SCM_RIGHTS)
		memcpy(&r->fd, CMSG_DATA(cmsg), sizeof(int));
	return r->id && r->fd < 0 ? -EBADMSG : 0;
}

/* Where a builder puts its records: the population, or a socket. */
struct sink {
	struct pop *p;
	int sock;
};

static int emit(struct sink *k, const struct rec *r)
{
	int ret;

	if (!k->p) {
		ret = send_rec(k->sock, r, r->fd);
		close(r->fd);
		return ret;
	}
	if (k->p->n >= MAX_RECS)
		return -ENOSPC;
	k->p->recs[k->p->n++] = *r;
	return 0;
}

/*
 * Segment @s of the plan, made by the caller, owned by *@owner (a chain
 * of user namespaces moves it down).
 */
static int build_seg(struct sink *k, int s, __u64 *owner)
{
	const struct seg *g = &plan[s];

	for (int i = 0; i < g->count; i++) {
		struct rec r = {
			.owner = *owner,
			.type = g->type,
			.seg = s,
			.idx = i,
		};
		int ret;

		r.fd = new_ns_fd(g->type);
		if (r.fd < 0)
			return r.fd;
		r.id = ns_id_of_fd(r.fd);
		if (!r.id)
			return -EIO;
		/* Every seventh uts and ipc, the walker's excepted. */
		r.vol = (g->type == CLONE_NEWUTS || g->type == CLONE_NEWIPC) &&
			i % 7 == 3 && i != g->joined;
		if (g->type == CLONE_NEWUSER)
			*owner = r.id;
		ret = emit(k, &r);
		if (ret)
			return ret;
	}
	return 0;
}

/* The types the test makes in itself, restored after each run of them. */
static const __u32 own_types[] = {
	CLONE_NEWNET, CLONE_NEWIPC, CLONE_NEWUTS, CLONE_NEWCGROUP,
};

/* Segments [@from, @to) of the plan, made by the test itself. */
static int build_here(struct pop *p, int from, int to)
{
	int orig[ARRAY_SIZE(own_types)], ret = 0;
	struct sink k = { .p = p, .sock = -1 };
	__u64 owner = USER_NS_INIT_ID;
	char path[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(own_types); i++) {
		snprintf(path, sizeof(path), "/proc/self/ns/%s",
			 ns_name(own_types[i]));
		orig[i] = open(path, O_RDONLY | O_CLOEXEC);
		if (orig[i] < 0)
			return -errno;
	}
	for (int s = from; s < to && !ret; s++)
		ret = build_seg(&k, s, &owner);
	for (i = 0; i < ARRAY_SIZE(own_types); i++) {
		if (setns(orig[i], own_types[i]) && !ret)
			ret = -errno;
		close(orig[i]);
	}
	return ret;
}

/* In a child: a user namespace owned by init, and segments it owns. */
static void __attribute__((noreturn)) owner_child(int sock, int from, int to)
{
	struct sink k = { .p = NULL, .sock = sock };
	struct rec r = {
		.owner = USER_NS_INIT_ID,
		.type = CLONE_NEWUSER,
		.seg = -1,
		.idx = -1,
	};
	__u64 owner;

	r.fd = new_ns_fd(CLONE_NEWUSER);
	if (r.fd < 0)
		_exit(1);
	r.id = ns_id_of_fd(r.fd);
	owner = r.id;
	if (!r.id || emit(&k, &r))
		_exit(2);
	for (int s = from; s < to; s++)
		if (build_seg(&k, s, &owner))
			_exit(3);
	memset(&r, 0, sizeof(r));
	_exit(send_rec(sock, &r, -1) ? 4 : 0);
}

/* Segments [@from, @to), made by owner @who in a child of its own. */
static int build_in_child(struct pop *p, int who, int from, int to)
{
	struct rec r;
	int sv[2], ret;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		close(sv[0]);
		owner_child(sv[1], from, to);
	}
	close(sv[1]);
	for (;;) {
		ret = recv_rec(sv[0], &r);
		if (ret || !r.id)
			break;
		/* The first is the owner itself. */
		if (!p->owner[who - 1])
			p->owner[who - 1] = r.id;
		if (p->n >= MAX_RECS) {
			close(r.fd);
			ret = -ENOSPC;
			break;
		}
		p->recs[p->n++] = r;
	}
	close(sv[0]);
	if (wait_child(pid) != 0 && !ret)
		ret = -ECHILD;
	return ret;
}

/*
 * The test's own namespaces (the initial ones, or whatever the runner
 * gave it): an unprivileged walker forked from it is in four of them, so
 * they are in what it may see.
 */
static int add_own(struct pop *p)
{
	for (size_t i = 0; i < ARRAY_SIZE(ns_names); i++) {
		struct rec r = { .seg = -1, .idx = -1, .fd = -1 };
		char path[64];
		int fd, ufd;
		long type;

		snprintf(path, sizeof(path), "/proc/self/ns/%s", ns_names[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		r.id = ns_id_of_fd(fd);
		type = ioctl(fd, NS_GET_NSTYPE);
		/* init_user_ns has no owner: EPERM. */
		ufd = ioctl(fd, NS_GET_USERNS);
		if (ufd >= 0) {
			r.owner = ns_id_of_fd(ufd);
			close(ufd);
		}
		close(fd);
		if (!r.id || type < 0 || p->n >= MAX_RECS)
			return -EIO;
		r.type = type;
		p->recs[p->n++] = r;
	}
	return 0;
}

static int cmp_rec(const void *a, const void *b)
{
	return cmp_u64(&((const struct rec *)a)->id,
		       &((const struct rec *)b)->id);
}

static int build(struct pop *p)
{
	struct rlimit rl = { .rlim_cur = 8192, .rlim_max = 8192 };
	int ret, i, j;

	if (setrlimit(RLIMIT_NOFILE, &rl))
		return -errno;
	p->nbaseline = list_ids(0, 0, 0, p->baseline, MAX_NS);
	p->base = make_destroyed_ns(CLONE_NEWUTS, "uts");
	if (p->nbaseline < 8 || !p->base)
		return -EIO;
	ret = add_own(p);
	for (i = 0; i < (int)ARRAY_SIZE(plan) && !ret; i = j) {
		for (j = i; j < (int)ARRAY_SIZE(plan); j++)
			if (plan[j].who != plan[i].who)
				break;
		if (plan[i].who == SELF)
			ret = build_here(p, i, j);
		else
			ret = build_in_child(p, plan[i].who, i, j);
	}
	qsort(p->recs, p->n, sizeof(p->recs[0]), cmp_rec);
	return ret;
}

/* The record of @id, or NULL. */
static const struct rec *find_rec(const struct pop *p, __u64 id)
{
	struct rec key = { .id = id };

	return bsearch(&key, p->recs, p->n, sizeof(key), cmp_rec);
}

/* The index of the first record with an id above @from. */
static long first_after(const struct pop *p, __u64 from)
{
	long lo = 0, hi = p->n;

	while (lo < hi) {
		long mid = (lo + hi) / 2;

		if (p->recs[mid].id > from)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* The model: which walk lists what */

struct walk {
	const char *name;
	__u32 types;
	/* user_ns_id as passed to listns() */
	__u64 req_owner;
	/* the user namespace whose tree that walks; 0: none */
	__u64 owner;
};

/* What the caller may see: everything (NULL), or its own namespaces. */
struct vis {
	__u64 ids[ARRAY_SIZE(ns_names)];
	long n;
};

/* The tree listns() walks: the owner's, the type's, or the unified one. */
static bool in_tree(const struct walk *w, const struct rec *r)
{
	if (w->owner)
		return r->owner == w->owner;
	if (__builtin_popcount(w->types) == 1)
		return r->type == w->types;
	return true;
}

static bool listed(const struct walk *w, const struct vis *v,
		   const struct rec *r)
{
	if (!in_tree(w, r) || (w->types && !(w->types & r->type)))
		return false;
	return !v || ids_contain(v->ids, v->n, r->id);
}

/*
 * The ids @w lists after @from, at most @max; only the ones that stay
 * if @stable.
 */
static long model(const struct pop *p, const struct walk *w,
		  const struct vis *v, __u64 from, __u64 *out, long max,
		  bool stable)
{
	long n = 0;

	for (long i = first_after(p, from); i < p->n && n < max; i++) {
		const struct rec *r = &p->recs[i];

		if (listed(w, v, r) && !(stable && r->vol))
			out[n++] = r->id;
	}
	return n;
}

/*
 * What a walk that lists nothing after @from returns: ENOENT only if its
 * tree has nothing at all after @from (lookup_ns_id_after()), else 0.
 * Exact above the baseline id, where the test knows every namespace, and
 * wherever one of its namespaces follows.
 */
static long end_after(const struct pop *p, const struct walk *w, __u64 from)
{
	for (long i = first_after(p, from); i < p->n; i++)
		if (in_tree(w, &p->recs[i]))
			return 0;
	return -ENOENT;
}

/* Checking listns() against the model */

/* The most ids a call asks for. */
#define MAX_PAGE 1000

static const long page_sizes[] = {
	1, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000,
};

static const long resume_sizes[] = { 1, 64, 65, 1000 };

/* Guarded: the ids end at a PROT_NONE page, and nothing else is written. */
static struct gbuf page;

static void show_mismatch(const struct walk *w, __u64 from, long nr,
			  long got, const unsigned char *at,
			  const __u64 *want, long n, long end)
{
	static __u64 ids[MAX_PAGE];
	long k = got > 0 && got <= nr ? got : 0;

	memcpy(ids, at, k * sizeof(ids[0]));
	fprintf(stderr, "# %s walk after %llu, nr %ld: returned %ld, want %ld\n",
		w->name, (unsigned long long)from, nr, got, n ? n : end);
	ids_equal(w->name, ids, k, want, n);
}

/* One call: exactly the @n ids @want, or @end (0 or -ENOENT) if none. */
static bool check_call(const struct walk *w, __u64 from, long nr,
		       const __u64 *want, long n, long end)
{
	unsigned char *at = gbuf_end(&page) - nr * sizeof(__u64);
	struct ns_id_req req = mkreq(from, w->types, w->req_owner);
	long got;

	memset(page.data, CANARY, page.len);
	got = listns_ret(&req, at, nr, 0);
	if (got == (n ? n : end) && gbuf_holds(&page, at, want, n))
		return true;
	show_mismatch(w, from, nr, got, at, want, n, end);
	return false;
}

/* One call from @from, checked against the model. */
static bool check_model(const struct pop *p, const struct walk *w,
			const struct vis *v, __u64 from, long nr)
{
	static __u64 want[MAX_PAGE];
	long n = model(p, w, v, from, want, nr, false);

	return check_call(w, from, nr, want, n, n ? 0 : end_after(p, w, from));
}

/*
 * Pages of @nr ids, each resuming after the last id of the one before,
 * give exactly @e, then @end (a short last page ends nothing by itself:
 * the call after it must still find nothing).
 */
static bool paginate(const struct walk *w, __u64 from, long nr,
		     const __u64 *e, long ne, long end)
{
	__u64 last = from;
	long have = 0;

	for (;;) {
		long n = ne - have < nr ? ne - have : nr;

		if (!check_call(w, last, nr, e + have, n, end))
			return false;
		if (!n)
			return true;
		have += n;
		last = e[have - 1];
	}
}

/* The whole list of @w from @from in pages of every size. */
static bool paginate_model(const struct pop *p, const struct walk *w,
			   const struct vis *v, __u64 from)
{
	static __u64 e[MAX_RECS];
	long ne = model(p, w, v, from, e, MAX_RECS, false);
	long end = end_after(p, w, ne ? e[ne - 1] : from);

	for (size_t i = 0; i < ARRAY_SIZE(page_sizes); i++)
		if (!paginate(w, from, page_sizes[i], e, ne, end))
			return false;
	return true;
}

/* Indices into a walk's list where a batch or a page boundary falls. */
static const long boundaries[] = {
	0, 1, 63, 64, 65, 127, 128, 129, 255, 256, 257,
};

/*
 * Resuming at and around the @k-th id of the list @e: after the one
 * before it, right before it, after it and one past it.
 */
static bool resume_around(const struct pop *p, const struct walk *w,
			  const struct vis *v, const __u64 *e, long ne, long k)
{
	__u64 pts[5];
	int np = 0;

	if (k > ne)
		return true;
	if (k > 0) {
		pts[np++] = e[k - 1];
		pts[np++] = e[k - 1] + 1;
	}
	if (k < ne) {
		pts[np++] = e[k] - 1;
		pts[np++] = e[k];
		pts[np++] = e[k] + 1;
	}
	for (int i = 0; i < np; i++)
		for (size_t j = 0; j < ARRAY_SIZE(resume_sizes); j++)
			if (!check_model(p, w, v, pts[i], resume_sizes[j]))
				return false;
	return true;
}

static bool resume_all_around(const struct pop *p, const struct walk *w,
			      const struct vis *v, __u64 from)
{
	static __u64 e[MAX_RECS];
	long ne = model(p, w, v, from, e, MAX_RECS, false);

	for (size_t i = 0; i < ARRAY_SIZE(boundaries); i++)
		if (!resume_around(p, w, v, e, ne, boundaries[i]))
			return false;
	return resume_around(p, w, v, e, ne, ne - 1) &&
	       resume_around(p, w, v, e, ne, ne);
}

/* Exactly how many rejected candidates a walk skips before a listed one. */
static const long skip_depths[] = { 255, 256, 257, 512 };

#define MAX_POINTS 256

/*
 * Resume points after which @w skips exactly d rejected namespaces of its
 * tree, then lists one: a pause after the 256th skip holds the namespace
 * right before it. Above the baseline id, where the test knows the tree.
 */
static long skip_points(const struct pop *p, const struct walk *w,
			const struct vis *v, __u64 *pts)
{
	static long tree[MAX_RECS];
	long m = 0, run = 0, np = 0;

	for (long i = first_after(p, p->base); i < p->n; i++)
		if (in_tree(w, &p->recs[i]))
			tree[m++] = i;
	for (long j = 0; j < m; j++) {
		if (!listed(w, v, &p->recs[tree[j]])) {
			run++;
			continue;
		}
		for (size_t i = 0; i < ARRAY_SIZE(skip_depths); i++) {
			long d = skip_depths[i], at = j - d - 1;

			if (run < d || np >= MAX_POINTS)
				continue;
			pts[np++] = at < 0 ? p->base : p->recs[tree[at]].id;
		}
		run = 0;
	}
	return np;
}

/* The walks */

#define MAX_WALKS 24

/* What root in the initial namespaces walks, from the baseline id. */
static long root_walks(const struct pop *p, struct walk *w)
{
	const __u64 u1 = p->owner[0], u2 = p->owner[1], u3 = p->owner[2];
	const struct walk walks[] = {
		{ "unfiltered", 0, 0, 0 },
		{ "uts", UTS_NS, 0, 0 },
		{ "ipc", IPC_NS, 0, 0 },
		{ "net", NET_NS, 0, 0 },
		{ "user", USER_NS, 0, 0 },
		{ "cgroup", CGROUP_NS, 0, 0 },
		{ "net|ipc", NET_NS | IPC_NS, 0, 0 },
		{ "ipc|user", IPC_NS | USER_NS, 0, 0 },
		{ "uts|cgroup", UTS_NS | CGROUP_NS, 0, 0 },
		{ "net|cgroup|user", NET_NS | CGROUP_NS | USER_NS, 0, 0 },
		{ "owner init", 0, USER_NS_INIT_ID, USER_NS_INIT_ID },
		{ "owner current", 0, LISTNS_CURRENT_USER, USER_NS_INIT_ID },
		{ "owner init net|ipc", NET_NS | IPC_NS, USER_NS_INIT_ID,
		  USER_NS_INIT_ID },
		{ "owner U1", 0, u1, u1 },
		{ "owner U1 net|ipc", NET_NS | IPC_NS, u1, u1 },
		{ "owner U1 uts", UTS_NS, u1, u1 },
		{ "owner U2", 0, u2, u2 },
		{ "owner U3 ipc|user", IPC_NS | USER_NS, u3, u3 },
	};

	memcpy(w, walks, sizeof(walks));
	return ARRAY_SIZE(walks);
}

/*
 * What the unprivileged walker walks, from 0: only trees in which one of
 * the population follows everything it may see.
 */
static long unpriv_walks(const struct pop *p, struct walk *w)
{
	const __u64 u1 = p->owner[0];
	const struct walk walks[] = {
		{ "unfiltered", 0, 0, 0 },
		{ "net|ipc", NET_NS | IPC_NS, 0, 0 },
		{ "uts", UTS_NS, 0, 0 },
		{ "ipc", IPC_NS, 0, 0 },
		{ "net", NET_NS, 0, 0 },
		{ "user", USER_NS, 0, 0 },
		{ "owner U1", 0, u1, u1 },
		{ "owner current", 0, LISTNS_CURRENT_USER, u1 },
		{ "owner current uts|ipc", UTS_NS | IPC_NS,
		  LISTNS_CURRENT_USER, u1 },
		{ "owner init", 0, USER_NS_INIT_ID, USER_NS_INIT_ID },
	};

	memcpy(w, walks, sizeof(walks));
	return ARRAY_SIZE(walks);
}

/* The unprivileged walker */

/* The population's namespace the walker joins, of @type. */
static int joined_fd(const struct pop *p, __u32 type)
{
	for (long i = 0; i < p->n; i++) {
		const struct rec *r = &p->recs[i];

		if (r->type == type && r->seg >= 0 &&
		    r->idx == plan[r->seg].joined)
			return r->fd;
	}
	return -1;
}

static int owner_fd(const struct pop *p, int k)
{
	const struct rec *r = find_rec(p, p->owner[k]);

	return r ? r->fd : -1;
}

/*
 * Join a net and an ipc namespace of init's, then U1 (no CAP_SYS_ADMIN
 * in init_user_ns any more: only its own namespaces are visible), then a
 * uts namespace U1 owns, 260 into the run of 300. Each visible one
 * follows a run of hundreds the walker may not see.
 */
static int join_walker_namespaces(const struct pop *p)
{
	if (setns(joined_fd(p, CLONE_NEWNET), CLONE_NEWNET) ||
	    setns(joined_fd(p, CLONE_NEWIPC), CLONE_NEWIPC) ||
	    setns(owner_fd(p, 0), CLONE_NEWUSER) ||
	    setns(joined_fd(p, CLONE_NEWUTS), CLONE_NEWUTS))
		return -errno;
	return 0;
}

/* The caller's namespaces, all of them known to the test. */
static int own_visible(const struct pop *p, struct vis *v)
{
	v->n = 0;
	for (size_t i = 0; i < ARRAY_SIZE(ns_names); i++) {
		__u64 id = self_ns_id(ns_names[i]);

		if (!id)
			continue;
		if (!find_rec(p, id)) {
			fprintf(stderr, "# current %s namespace %llu unknown\n",
				ns_names[i], (unsigned long long)id);
			return -1;
		}
		v->ids[v->n++] = id;
	}
	return 0;
}

typedef int (*walker_fn)(const struct pop *p, const struct vis *v);

/* @fn in a child that joined the walker's namespaces: its exit status. */
static int run_unprivileged(const struct pop *p, walker_fn fn)
{
	pid_t pid = fork();
	struct vis v;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (join_walker_namespaces(p))
			_exit(90);
		if (own_visible(p, &v))
			_exit(91);
		_exit(fn(p, &v));
	}
	return wait_child(pid);
}

static bool resume_before_skips(const struct pop *p, const struct walk *w,
				const struct vis *v, long *total)
{
	__u64 pts[MAX_POINTS];
	long np = skip_points(p, w, v, pts);

	*total += np;
	for (long i = 0; i < np; i++)
		for (size_t j = 0; j < ARRAY_SIZE(resume_sizes); j++)
			if (!check_model(p, w, v, pts[i], resume_sizes[j]))
				return false;
	return true;
}

static int unpriv_walks_exact(const struct pop *p, const struct vis *v)
{
	struct walk w[MAX_WALKS];
	long nw = unpriv_walks(p, w), total = 0;

	for (long i = 0; i < nw; i++) {
		if (!paginate_model(p, &w[i], v, 0))
			return 1;
		if (!resume_all_around(p, &w[i], v, 0))
			return 2;
		if (!resume_before_skips(p, &w[i], v, &total))
			return 3;
	}
	/* The design puts runs of 256 and more before visible ones. */
	return total ? 0 : 4;
}

/* The concurrent churn */

#define MAX_CHURN 32768
/* Namespaces the churner keeps for a while before it drops them. */
#define CHURN_RING 16
#define CHURN_SECS 1.5

struct churn {
	int done;
	long n;
	__u64 ids[MAX_CHURN];
};

static double secs_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * A new uts (or, every fourth time, ipc) namespace, its id recorded; at
 * most MAX_CHURN of them (a fast machine then only drops the others).
 */
static int churn_one(struct churn *c, int *ring, long it)
{
	__u32 type = it % 4 == 3 ? CLONE_NEWIPC : CLONE_NEWUTS;
	struct timespec pause = { .tv_nsec = 1000000 };
	int slot = it % CHURN_RING;
	__u64 id;

	if (c->n >= MAX_CHURN)
		return nanosleep(&pause, NULL) ? -errno : 0;
	if (unshare(type))
		return -errno;
	id = self_ns_id(ns_name(type));
	if (!id)
		return -EIO;
	c->ids[c->n] = id;
	__atomic_store_n(&c->n, c->n + 1, __ATOMIC_RELEASE);
	/* Every other one stays for a while. */
	if (it % 2) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/self/ns/%s", ns_name(type));
		if (ring[slot] >= 0)
			close(ring[slot]);
		ring[slot] = open(path, O_RDONLY | O_CLOEXEC);
	}
	return 0;
}

static long gcd(long a, long b)
{
	while (b) {
		long t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * The churner, a child: drops the volatile namespaces (it holds the
 * only fds to them), spread over most of its time and over the trees,
 * while it makes and drops uts and ipc namespaces of its own.
 */
static void __attribute__((noreturn)) churner(const struct pop *p,
					      struct churn *c)
{
	static int vfd[MAX_RECS];
	int ring[CHURN_RING];
	long nv = 0, closed = 0, it = 0, stride = 97;
	struct timespec t0;
	double t;
	int ret = 0;

	for (long i = 0; i < p->n; i++)
		if (p->recs[i].vol)
			vfd[nv++] = p->recs[i].fd;
	while (nv && gcd(nv, stride) != 1)
		stride++;
	memset(ring, -1, sizeof(ring));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!ret && (t = secs_since(&t0)) < CHURN_SECS) {
		while (closed < nv && closed < nv * t / (CHURN_SECS * 0.8))
			close(vfd[closed++ * stride % nv]);
		ret = churn_one(c, ring, it++);
	}
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
	_exit(ret ? 1 : 0);
}

/* Ids a walk under churn listed, as bits above the baseline id. */
#define SEEN_SPAN 1048576UL

static unsigned long seen[SEEN_SPAN / (8 * sizeof(unsigned long))];

static bool mark_seen(const struct pop *p, __u64 id)
{
	__u64 bit = id - p->base;
	const size_t per = 8 * sizeof(seen[0]);

	if (id <= p->base || bit >= SEEN_SPAN) {
		fprintf(stderr, "# id %llu listed out of range\n",
			(unsigned long long)id);
		return false;
	}
	seen[bit / per] |= 1UL << (bit % per);
	return true;
}

/*
 * One listed page under churn: strictly increasing, and no stable id
 * of @s (the next one expected at *@si) passed over.
 */
static bool churn_page(const struct pop *p, const struct walk *w,
		       const __u64 *ids, long n, __u64 *prev,
		       const __u64 *s, long ns, long *si)
{
	for (long i = 0; i < n; i++) {
		if (ids[i] <= *prev || !mark_seen(p, ids[i])) {
			fprintf(stderr, "# %s walk: %llu after %llu\n", w->name,
				(unsigned long long)ids[i],
				(unsigned long long)*prev);
			return false;
		}
		if (*si < ns && s[*si] < ids[i]) {
			fprintf(stderr, "# %s walk: stable %llu missing\n",
				w->name, (unsigned long long)s[*si]);
			return false;
		}
		if (*si < ns && s[*si] == ids[i])
			++*si;
		*prev = ids[i];
	}
	return true;
}

/* Pages of @nr under churn, until a call lists nothing (0 or ENOENT). */
static bool churn_paginate(const struct pop *p, const struct walk *w,
			   long nr)
{
	static __u64 s[MAX_RECS], ids[MAX_PAGE];
	long ns = model(p, w, NULL, p->base, s, MAX_RECS, true), si = 0, n;
	__u64 last = p->base, prev = p->base;

	for (;;) {
		n = list_ids(last, w->types, w->req_owner, ids, nr);
		if (n == 0 || n == -ENOENT)
			break;
		if (n < 0 || n > nr) {
			fprintf(stderr, "# %s walk after %llu, nr %ld: %ld\n",
				w->name, (unsigned long long)last, nr, n);
			return false;
		}
		if (!churn_page(p, w, ids, n, &prev, s, ns, &si))
			return false;
		last = ids[n - 1];
	}
	if (si < ns)
		fprintf(stderr, "# %s walk, nr %ld: stable %llu missing\n",
			w->name, nr, (unsigned long long)s[si]);
	return si == ns;
}

static bool churn_round(const struct pop *p)
{
	static const long sizes[] = { 63, 64, 65, 1000 };
	static const char *const names[] = {
		"unfiltered", "net|ipc", "uts", "ipc", "owner U1",
		"owner U1 net|ipc", "owner init",
	};
	struct walk w[MAX_WALKS];
	long nw = root_walks(p, w);

	for (long i = 0; i < nw; i++) {
		bool used = false;

		for (size_t k = 0; k < ARRAY_SIZE(names); k++)
			used |= !strcmp(w[i].name, names[k]);
		for (size_t j = 0; used && j < ARRAY_SIZE(sizes); j++)
			if (!churn_paginate(p, &w[i], sizes[j]))
				return false;
	}
	return true;
}

/* Every id listed under churn is the population's or the churner's. */
static bool seen_known(const struct pop *p, struct churn *c)
{
	const size_t per = 8 * sizeof(seen[0]);

	sort_ids(c->ids, c->n);
	for (__u64 bit = 0; bit < SEEN_SPAN; bit++) {
		__u64 id = p->base + bit;

		if (!(seen[bit / per] & (1UL << (bit % per))))
			continue;
		if (find_rec(p, id) ||
		    bsearch(&id, c->ids, c->n, sizeof(id), cmp_u64))
			continue;
		fprintf(stderr, "# listed %llu, neither the population's nor the churner's\n",
			(unsigned long long)id);
		return false;
	}
	return true;
}

/* The scheduler's pause */

#define RESCHED_SECS 1.5
/* The FIFO ticker's period. */
#define TICK_NS 100000

struct ticker {
	pid_t pid;
	int *stop;
};

static void __attribute__((noreturn)) tick(const int *stop)
{
	struct timespec t0, period = { .tv_nsec = TICK_NS };

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* A bound of its own, should the test never stop it. */
	while (!__atomic_load_n(stop, __ATOMIC_ACQUIRE) &&
	       secs_since(&t0) < 10 * RESCHED_SECS)
		clock_nanosleep(CLOCK_MONOTONIC, 0, &period, NULL);
	_exit(0);
}

/*
 * Pins the caller (and so the walkers it forks) to its CPU, and starts
 * there a SCHED_FIFO process that wakes every TICK_NS: each wakeup marks
 * the walker for a reschedule, and within a walk's RCU read-side section
 * (not preemptible here) the mark stays while it skips. Returns -EPERM
 * if the scheduling policy is not permitted.
 */
static int start_ticker(struct ticker *t)
{
	struct sched_param sp = { .sched_priority = 10 };
	cpu_set_t set;
	int cpu = sched_getcpu(), ret;

	if (cpu < 0)
		return -errno;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;
	t->stop = mmap(NULL, sizeof(*t->stop), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (t->stop == MAP_FAILED)
		return -errno;
	*t->stop = 0;
	t->pid = fork();
	if (t->pid < 0)
		return -errno;
	if (t->pid == 0)
		tick(t->stop);
	if (!sched_setscheduler(t->pid, SCHED_FIFO, &sp))
		return 0;
	ret = -errno;
	kill(t->pid, SIGKILL);
	wait_child(t->pid);
	return ret;
}

static int stop_ticker(struct ticker *t)
{
	__atomic_store_n(t->stop, 1, __ATOMIC_RELEASE);
	return wait_child(t->pid);
}

/*
 * For RESCHED_SECS, again and again: the whole list of each walk of @w
 * from @from in one call (hundreds of skips), and its tail after each of
 * its skip points, each exact.
 */
static bool resched_walks(const struct pop *p, const struct vis *v,
			  const struct walk *w, long nw, __u64 from)
{
	static __u64 pts[MAX_WALKS][MAX_POINTS + 1];
	long np[MAX_WALKS];
	struct timespec t0;

	for (long i = 0; i < nw; i++) {
		pts[i][0] = from;
		np[i] = 1 + skip_points(p, &w[i], v, pts[i] + 1);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (secs_since(&t0) < RESCHED_SECS)
		for (long i = 0; i < nw; i++)
			for (long k = 0; k < np[i]; k++)
				if (!check_model(p, &w[i], v, pts[i][k],
						 MAX_PAGE))
					return false;
	return true;
}

/*
 * The walks with long runs of rejected namespaces: filtered by types
 * other than uts (in the unified or an owner's tree, not a type's).
 */
static long skipping_walks(struct walk *w, long nw)
{
	long m = 0;

	for (long i = 0; i < nw; i++)
		if (w[i].types && !(w[i].types & UTS_NS) &&
		    (w[i].owner || __builtin_popcount(w[i].types) > 1))
			w[m++] = w[i];
	return m;
}

static int unpriv_resched(const struct pop *p, const struct vis *v)
{
	struct walk w[MAX_WALKS];
	long nw = unpriv_walks(p, w);

	return resched_walks(p, v, w, nw, 0) ? 0 : 1;
}

/* The tests */

FIXTURE(scale) {
	struct pop *p;
};

FIXTURE_SETUP(scale)
{
	struct pop *p = calloc(1, sizeof(*p));

	ASSERT_NE(NULL, p);
	self->p = p;
	ASSERT_EQ(0, gbuf_init(&page, 2));
	ASSERT_EQ(0, build(p));
	ASSERT_EQ(planned_ns() + (long)ARRAY_SIZE(ns_names), p->n);
	/* Ids are unique and, but the test's own, above the baseline id. */
	for (long i = 1; i < p->n; i++) {
		ASSERT_LT(p->recs[i - 1].id, p->recs[i].id);
		if (p->recs[i].fd >= 0)
			ASSERT_LT(p->base, p->recs[i].id);
	}
	for (int k = 0; k < NR_OWNERS; k++)
		ASSERT_NE(0, p->owner[k]);
}

FIXTURE_TEARDOWN(scale)
{
	if (!self->p)
		return;
	for (long i = 0; i < self->p->n; i++)
		if (self->p->recs[i].fd >= 0)
			close(self->p->recs[i].fd);
	free(self->p);
	gbuf_fini(&page);
}

/*
 * Every walk root has (unfiltered, each type's tree, several types in the
 * unified tree, owners' trees with and without types) in pages of every
 * size from the baseline id; and the unfiltered one from 0: what the
 * guest had when the test started (listed then, so also checked to be
 * unchanged), then the population.
 */
TEST_F(scale, pages_every_walk)
{
	static __u64 e[MAX_NS];
	struct walk w[MAX_WALKS];
	struct pop *p = self->p;
	long nw = root_walks(p, w), ne = p->nbaseline, end;

	for (long i = 0; i < nw; i++) {
		ASSERT_TRUE(paginate_model(p, &w[i], NULL, p->base))
			TH_LOG("%s walk", w[i].name);
	}
	memcpy(e, p->baseline, ne * sizeof(e[0]));
	ne += model(p, &w[0], NULL, p->base, e + ne, MAX_NS - ne, false);
	end = end_after(p, &w[0], e[ne - 1]);
	for (size_t i = 0; i < ARRAY_SIZE(page_sizes); i++) {
		ASSERT_TRUE(paginate(&w[0], 0, page_sizes[i], e, ne, end))
			TH_LOG("from 0 in pages of %ld", page_sizes[i]);
	}
}

/*
 * Resuming at and around each batch and page boundary of every walk, and
 * 255, 256, 257 and 512 rejected namespaces before a listed one.
 */
TEST_F(scale, resume_points)
{
	struct walk w[MAX_WALKS];
	long nw = root_walks(self->p, w), total = 0;

	for (long i = 0; i < nw; i++) {
		ASSERT_TRUE(resume_all_around(self->p, &w[i], NULL,
					      self->p->base))
			TH_LOG("%s walk", w[i].name);
		ASSERT_TRUE(resume_before_skips(self->p, &w[i], NULL, &total))
			TH_LOG("%s walk", w[i].name);
	}
	ASSERT_GT(total, 0);
}

/*
 * In U1, without CAP_SYS_ADMIN in init_user_ns: nearly everything is
 * skipped. Pages of every size and every resume point of each walk.
 */
TEST_F(scale, unprivileged_in_owner)
{
	ASSERT_EQ(0, run_unprivileged(self->p, unpriv_walks_exact));
}

/*
 * A churner drops every seventh uts and ipc namespace of the population
 * and makes and drops its own while the test paginates again and again:
 * each listing is strictly increasing, misses no namespace that stayed,
 * and lists nothing but the population's and the churner's.
 */
TEST_F(scale, churn_while_paginating)
{
	struct pop *p = self->p;
	struct churn *c;
	long rounds = 0;
	bool ok = true;
	pid_t pid;

	c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, c);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		churner(p, c);
	/* The churner holds the only fds to the volatile ones now. */
	for (long i = 0; i < p->n; i++) {
		if (p->recs[i].vol) {
			close(p->recs[i].fd);
			p->recs[i].fd = -1;
		}
	}
	while (ok && (!rounds || !__atomic_load_n(&c->done, __ATOMIC_ACQUIRE))) {
		ok = churn_round(p);
		rounds++;
	}
	ASSERT_EQ(0, wait_child(pid));
	ASSERT_TRUE(ok);
	ASSERT_GT(c->n, 0);
	ASSERT_TRUE(seen_known(p, c));
}

/*
 * Walks that skip hundreds while a SCHED_FIFO process on the same CPU
 * wakes every 100 us: the Rust walk pauses at a 256th skip when a
 * reschedule is pending, and must go on after the namespace it held.
 * Root and the unprivileged walker at once, every result exact.
 */
TEST_F(scale, resched_during_skip_runs)
{
	struct pop *p = self->p;
	struct walk w[MAX_WALKS];
	struct ticker t = {};
	long nw;
	bool ok;
	pid_t pid;
	int ret;

	ret = start_ticker(&t);
	if (ret == -EPERM)
		SKIP(return, "SCHED_FIFO not permitted");
	ASSERT_EQ(0, ret);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(run_unprivileged(p, unpriv_resched));
	nw = skipping_walks(w, root_walks(p, w));
	ok = resched_walks(p, NULL, w, nw, p->base);
	ASSERT_EQ(0, stop_ticker(&t));
	ASSERT_EQ(0, wait_child(pid));
	ASSERT_TRUE(ok);
}

TEST_HARNESS_MAIN
