// SPDX-License-Identifier: GPL-2.0
/*
 * nstorture writers: each builds and tears down "scenes", one at a time.
 * A scene is a child process that creates namespaces (unshare() at up to
 * 8 nested user namespace levels, or one clone3() with CLONE_NEW* flags),
 * keeps an nsfs fd of each, reports their ids and churns nsfs fds until it
 * is told to exit; optionally a socket in its network namespace (which
 * pins that namespace and its owners, inactive, after the child is gone)
 * and a child of its own as init of its pid namespace.  While the scene
 * lives the writer opens its namespaces by handle, bind-mounts them, and
 * has helpers setns() into them; then it releases everything in random
 * order, races SIOCGSKNS with the child's exit, and resurrects the pinned
 * network namespace (with its whole owner chain) and releases it again.
 *
 * Before each release the scene's namespaces are marked TRANSIT; after it
 * the writer recomputes which are still active (held directly, or owning
 * an active one) and marks them ACTIVE or INACTIVE (see nstorture.h).
 */
#include "nstorture.h"

#include <linux/sched.h>
#include <poll.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>

#define SCENE_NS 80
#define SCENE_FDS 12
#define SCENE_MOUNTS 4

struct rec {
	uint64_t id, owner, parent;
	uint32_t type, pad;
};

struct hdr {
	uint32_t n;
	uint32_t sock;
};

struct sns {
	uint64_t id, owner;
	uint32_t type;
	int own;		/* index of the owner in the scene, -1: outside */
	int fds;		/* the writer's nsfs fds */
	int mounts;		/* bind mounts */
	bool active;
	bool transit;		/* TRANSIT in the table until scene_publish() */
};

struct scene {
	pid_t child;
	int ctl;
	bool proc;		/* the child is alive: it holds all it made */
	int nns;
	struct sns ns[SCENE_NS];
	int sock, sock_ns;	/* a socket in one of its network namespaces */
	int nfd;
	int fd[SCENE_FDS], fd_ns[SCENE_FDS];
	int nmnt;
	int mnt_ns[SCENE_MOUNTS];
	bool mnt_used[SCENE_MOUNTS];
};

struct plan {
	int depth;			/* nested user namespaces */
	uint32_t mask[9];		/* what each level unshares */
	bool sock, pidinit;
	uint64_t clone3_flags;		/* or: one clone3() with these */
};

static int widx;

/*
 * The writer's journal: its last actions, printed when a namespace it
 * believes inactive turns out to be held (a hole in its bookkeeping, or
 * a kernel bug).
 */
#define JOURNAL 48
static char journal[JOURNAL][112];
static unsigned int jpos;
static atomic_int dump_asked;	/* set by SIGUSR1 */

static __printf(1, 2) void jlog(const char *fmt, ...)
{
	char *line = journal[jpos++ % JOURNAL];
	va_list ap;
	int n;

	n = snprintf(line, sizeof(journal[0]), "%llu ", (unsigned long long)clock_now());
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(journal[0]) - n, fmt, ap);
	va_end(ap);
}

static void journal_dump(void)
{
	dump_asked = 0;
	for (unsigned int i = jpos > JOURNAL ? jpos - JOURNAL : 0; i < jpos; i++)
		note("  journal: %s", journal[i % JOURNAL]);
}

static void dump_request(int sig)
{
	dump_asked = 1;
}
static struct rng wr;
static char mnt_path[SCENE_MOUNTS][64];

/* The scene child. */

static struct rec recs[SCENE_NS];
static int nrecs;
static int keep_fds[SCENE_NS];

/* Records the namespace of type index @ti the child is now in. */
static int child_record(int ti, uint64_t user_before)
{
	struct ns_info ni;
	int ret, fd = -1;

	if (nrecs >= SCENE_NS)
		return -ENOSPC;
	ret = ns_info_self(type_file[ti], &ni, &fd);
	if (ret) {
		fail(CK_ERRNO, "scene: /proc/self/ns/%s: %s", type_file[ti], strerror(-ret));
		return ret;
	}
	if (ni.type == CLONE_NEWUSER)
		ni.owner = ni.parent = user_before;
	tbl_publish(ni.id, ni.type, ni.owner, ni.parent, ST_ACTIVE);
	seen_id(ni.id);
	recs[nrecs] = (struct rec){ ni.id, ni.owner, ni.parent, ni.type, 0 };
	keep_fds[nrecs++] = fd;
	count_op(OP_NS, 1);
	return 0;
}

static void child_record_mask(uint32_t mask, uint64_t user_before)
{
	for (int ti = 0; ti < NR_TYPES; ti++)
		if (mask & type_bits[ti])
			child_record(ti, user_before);
}

static uint64_t self_id(const char *file)
{
	struct ns_info ni;

	return ns_info_self(file, &ni, NULL) ? 0 : ni.id;
}

static void __attribute__((noreturn))
child_main(const struct plan *p, int ctl, uint64_t stream)
{
	uint64_t user_before = sh->init_user;
	int sock = -1, gpipe[2] = { -1, -1 };
	struct hdr h = { 0 };
	struct rng r;
	pid_t g = -1;
	char c;

	my_name = "scene";
	rng_init(&r, sh->seed, stream);
	if (p->clone3_flags) {
		/* Created by clone3(): the user namespace first, it owns the rest. */
		if (p->clone3_flags & CLONE_NEWUSER)
			child_record(0, user_before);
		child_record_mask(p->clone3_flags & ~CLONE_NEWUSER, 0);
		creating(-1);
	} else {
		for (int k = 0; k <= p->depth; k++) {
			if (k) {
				int ret;

				creating(1);
				ret = enter_userns();
				if (ret) {
					creating(-1);
					fail(CK_ERRNO, "scene: user ns at depth %d: %s", k,
					     strerror(-ret));
					break;
				}
				child_record(0, user_before);
				creating(-1);
				user_before = recs[nrecs - 1].id;
				count_op(OP_CHAIN, k == 8);
			}
			if (!p->mask[k])
				continue;
			creating(1);
			if (unshare(p->mask[k]))
				fail(CK_ERRNO, "scene: unshare(%#x) at depth %d: %s", p->mask[k], k,
				     strerror(errno));
			else
				child_record_mask(p->mask[k], user_before);
			creating(-1);
		}
	}
	if (p->sock && self_id("net") != sh->init_ids[4]) {
		sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (sock < 0)
			fail(CK_ERRNO, "scene: socket: %s", strerror(errno));
	}
	if (p->pidinit && self_id("pid_for_children") != sh->init_ids[5] && !pipe2(gpipe, O_CLOEXEC)) {
		g = fork();
		if (g == 0) {
			/* Init of the new pid namespace: lives until told. */
			close(gpipe[1]);
			while (read(gpipe[0], &c, 1) < 0 && errno == EINTR)
				;
			_exit(0);
		}
		if (g < 0)
			fail(CK_ERRNO, "scene: fork into the new pid ns: %s", strerror(errno));
		close(gpipe[0]);
	}
	h.n = nrecs;
	h.sock = sock >= 0;
	if (write_all(ctl, &h, sizeof(h)) || (sock >= 0 && send_fd(ctl, sock)) ||
	    write_all(ctl, recs, nrecs * sizeof(recs[0])))
		_exit(2);
	if (sock >= 0)
		close(sock);
	/* Churn nsfs fds until told to go. */
	for (;;) {
		struct pollfd pfd = { .fd = ctl, .events = POLLIN };
		char path[64];
		int fd;

		if (poll(&pfd, 1, rnd(&r, 3)) > 0)
			break;
		snprintf(path, sizeof(path), "/proc/self/ns/%s", type_file[rnd(&r, NR_TYPES)]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fail(CK_ERRNO, "scene: open %s: %s", path, strerror(errno));
		} else {
			count_op(OP_NSFD, 1);
			close(fd);
		}
	}
	if (gpipe[1] >= 0)
		close(gpipe[1]);
	if (g > 0)
		waitpid_retry(g, NULL, 0);
	_exit(0);
}

/* The writer's side. */

static void scene_recompute(struct scene *sc)
{
	bool changed = true;

	for (int i = 0; i < sc->nns; i++)
		sc->ns[i].active = sc->proc || sc->ns[i].fds || sc->ns[i].mounts;
	/* An active namespace keeps its owner active, up the chain. */
	while (changed) {
		changed = false;
		for (int i = 0; i < sc->nns; i++) {
			int o = sc->ns[i].own;

			if (sc->ns[i].active && o >= 0 && !sc->ns[o].active) {
				sc->ns[o].active = true;
				changed = true;
			}
		}
	}
}

/*
 * Before a step that may change what is active: TRANSIT for what it may
 * change, no more, so that the rest keeps its stamp and stays in play
 * for the readers' checks 6 and 8 (a stamp newer than a walk's start
 * takes a namespace out of them).  A namespace is active while the scene
 * holds it (child, fd, mount) or an active namespace it owns
 * (scene_recompute()), so a step that changes the holds of namespace i
 * may change i and its owners up the chain, and nothing else;
 * scene_transit() is for a step that changes them all (the child exits).
 */
static void scene_transit_chain(struct scene *sc, int i)
{
	for (int depth = 0; i >= 0 && depth < SCENE_NS; depth++, i = sc->ns[i].own) {
		if (!sc->ns[i].transit)
			tbl_set(sc->ns[i].id, ST_TRANSIT);
		sc->ns[i].transit = true;
	}
}

static void scene_transit(struct scene *sc)
{
	for (int i = 0; i < sc->nns; i++)
		scene_transit_chain(sc, i);
}

static void scene_publish(struct scene *sc)
{
	bool was[SCENE_NS];
	char line[96];
	int n = 0;

	for (int i = 0; i < sc->nns; i++)
		was[i] = sc->ns[i].active;
	scene_recompute(sc);
	for (int i = 0; i < sc->nns && n < (int)sizeof(line) - 24; i++)
		n += snprintf(line + n, sizeof(line) - n, " %llu%c%d",
			      (unsigned long long)sc->ns[i].id, sc->ns[i].active ? '+' : '-',
			      sc->ns[i].fds);
	jlog("publish%s", line);
	if (dump_asked)
		journal_dump();
	for (int i = 0; i < sc->nns; i++) {
		if (!sc->ns[i].transit) {
			/* Outside the step's chain: the table is still right. */
			if (was[i] != sc->ns[i].active)
				fail(CK_PROCS, "writer: ns %llu went %s outside the chain of the step",
				     (unsigned long long)sc->ns[i].id,
				     sc->ns[i].active ? "active" : "inactive");
			else
				continue;
		}
		sc->ns[i].transit = false;
		tbl_set(sc->ns[i].id, sc->ns[i].active ? ST_ACTIVE : ST_INACTIVE);
		if (!sc->ns[i].active)
			recent_push(sc->ns[i].id);
	}
}

static int scene_find(struct scene *sc, uint64_t id)
{
	for (int i = 0; i < sc->nns; i++)
		if (sc->ns[i].id == id)
			return i;
	return -1;
}

static void plan_pick(struct plan *p)
{
	static const uint32_t others[] = {
		CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWNET, CLONE_NEWCGROUP,
	};
	uint64_t kind = rnd(&wr, 4);
	bool pid_done = false, time_done = false;

	memset(p, 0, sizeof(*p));
	if (kind == 0) {
		/* clone3() with a random set of CLONE_NEW* flags. */
		while (!p->clone3_flags)
			for (int i = 0; i < NR_TYPES; i++)
				if (chance(&wr, 40))
					p->clone3_flags |= type_bits[i];
		p->sock = chance(&wr, 50);
		return;
	}
	/* A chain 8 deep with a pinned network namespace at the bottom. */
	p->depth = kind == 1 ? 8 : rnd(&wr, 4);
	for (int k = 0; k <= p->depth; k++) {
		if (chance(&wr, 50))
			continue;
		for (size_t i = 0; i < ARRAY_SIZE(others); i++)
			if (chance(&wr, 35))
				p->mask[k] |= others[i];
		/* One new pid and time namespace per process at most. */
		if (!pid_done && chance(&wr, 20)) {
			p->mask[k] |= CLONE_NEWPID;
			pid_done = true;
		}
		if (!time_done && chance(&wr, 15)) {
			p->mask[k] |= CLONE_NEWTIME;
			time_done = true;
		}
	}
	if (kind == 1)
		p->mask[p->depth] |= CLONE_NEWNET;
	p->sock = kind == 1 || chance(&wr, 50);
	p->pidinit = chance(&wr, 60);
}

static bool scene_start(struct scene *sc, const struct plan *p)
{
	uint64_t stream = rng_next(&wr);
	struct rec rv[SCENE_NS];
	struct pollfd pfd;
	int sv[2], ret;
	struct hdr h;

	memset(sc, 0, sizeof(*sc));
	sc->sock = -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		fail(CK_ERRNO, "socketpair: %s", strerror(errno));
		return false;
	}
	if (p->clone3_flags) {
		struct clone_args ca = {
			.flags = p->clone3_flags,
			.exit_signal = SIGCHLD,
		};

		creating(1);
		sc->child = syscall(SYS_clone3, &ca, sizeof(ca));
		if (sc->child < 0)
			creating(-1);
		count_op(OP_CLONE3, 1);
	} else {
		sc->child = fork();
	}
	if (sc->child == 0) {
		close(sv[0]);
		child_main(p, sv[1], stream);
	}
	close(sv[1]);
	sc->ctl = sv[0];
	if (sc->child < 0) {
		fail(CK_ERRNO, "%s: %s", p->clone3_flags ? "clone3" : "fork", strerror(errno));
		close(sc->ctl);
		return false;
	}
	sc->proc = true;
	pfd = (struct pollfd){ .fd = sc->ctl, .events = POLLIN };
	while ((ret = poll(&pfd, 1, 60000)) < 0 && errno == EINTR)
		;
	if (ret != 1 || read_full(sc->ctl, &h, sizeof(h)) != sizeof(h) ||
	    h.n > SCENE_NS) {
		fail(CK_PROCS, "scene child %d did not report", sc->child);
		return true;	/* torn down as usual */
	}
	if (h.sock) {
		sc->sock = recv_fd(sc->ctl);
		if (sc->sock < 0)
			fail(CK_ERRNO, "receiving the scene's socket: %s", strerror(-sc->sock));
	}
	if (read_full(sc->ctl, rv, h.n * sizeof(rv[0])) != (ssize_t)(h.n * sizeof(rv[0]))) {
		fail(CK_PROCS, "scene child %d: short report", sc->child);
		return true;
	}
	for (uint32_t i = 0; i < h.n; i++) {
		struct sns *s = &sc->ns[sc->nns++];

		*s = (struct sns){ .id = rv[i].id, .owner = rv[i].owner, .type = rv[i].type };
		held_add(widx, s->id);
	}
	for (int i = 0; i < sc->nns; i++)
		sc->ns[i].own = scene_find(sc, sc->ns[i].owner);
	if (sh->verbose & V_LOG) {
		char line[2048];
		int n = 0;

		for (int i = 0; i < sc->nns && n < (int)sizeof(line) - 40; i++)
			n += snprintf(line + n, sizeof(line) - n, " %s:%llu<%llu",
				      type_name(sc->ns[i].type), (unsigned long long)sc->ns[i].id,
				      (unsigned long long)sc->ns[i].owner);
		note("scene %s%#llx sock %d:%s", p->clone3_flags ? "clone3 " : "depth ",
		     (unsigned long long)(p->clone3_flags ?: p->depth), h.sock, line);
	}
	if (sc->sock >= 0) {
		/* The socket's network namespace: the child's last one. */
		sc->sock_ns = -1;
		for (int i = 0; i < sc->nns; i++)
			if (sc->ns[i].type == CLONE_NEWNET)
				sc->sock_ns = i;
		if (sc->sock_ns < 0) {
			close(sc->sock);
			sc->sock = -1;
		}
	}
	count_op(OP_SCENE, 1);
	{
		char line[96];
		int n = 0;

		for (int i = 0; i < sc->nns && n < (int)sizeof(line) - 24; i++)
			n += snprintf(line + n, sizeof(line) - n, " %s:%llu<%llu",
				      type_name(sc->ns[i].type), (unsigned long long)sc->ns[i].id,
				      (unsigned long long)sc->ns[i].owner);
		jlog("scene%s", line);
	}
	return true;
}

static void add_fd(struct scene *sc, int fd, int ns)
{
	jlog("fd %d -> %llu", fd, (unsigned long long)sc->ns[ns].id);
	if (sc->nfd >= SCENE_FDS) {
		close(fd);
		return;
	}
	sc->fd[sc->nfd] = fd;
	sc->fd_ns[sc->nfd++] = ns;
	sc->ns[ns].fds++;
}

/* Opens a namespace of the scene by handle; it is active, so that works. */
/*
 * Opens a namespace of the scene by handle.  One the scene no longer
 * holds may open too, while a reader holds it: the writer's fd then keeps
 * it active after the reader is done, so that open is framed like a
 * release, TRANSIT before and the recomputed state after.
 */
static void open_one(struct scene *sc)
{
	bool was_active;
	int i, fd;

	if (!sc->nns || sc->nfd >= SCENE_FDS)
		return;
	i = rnd(&wr, sc->nns);
	was_active = sc->ns[i].active;
	if (!was_active)
		scene_transit_chain(sc, i);
	fd = open_ns_id(sc->ns[i].id);
	count_op(OP_NSFD, 1);
	jlog("open %llu: fd %d (%s)", (unsigned long long)sc->ns[i].id, fd,
	     was_active ? "active" : "inactive");
	if (fd < 0) {
		if (was_active)
			fail(CK_OPEN, "writer: cannot open its active %s ns %llu: %s",
			     type_name(sc->ns[i].type), (unsigned long long)sc->ns[i].id,
			     strerror(-fd));
	} else {
		if (was_active)
			pass(CK_OPEN, 1);
		if (ns_id_of_fd(fd) != sc->ns[i].id)
			fail(CK_IOCTL, "writer: handle of %llu opened ns %llu",
			     (unsigned long long)sc->ns[i].id,
			     (unsigned long long)ns_id_of_fd(fd));
		add_fd(sc, fd, i);
	}
	if (!was_active)
		scene_publish(sc);
}

static void mount_one(struct scene *sc)
{
	char src[64];
	int k, f;

	if (!sc->nfd)
		return;
	for (k = 0; k < SCENE_MOUNTS && sc->mnt_used[k]; k++)
		;
	if (k == SCENE_MOUNTS)
		return;
	f = rnd(&wr, sc->nfd);
	snprintf(src, sizeof(src), "/proc/self/fd/%d", sc->fd[f]);
	if (mount(src, mnt_path[k], NULL, MS_BIND, NULL)) {
		fail(CK_ERRNO, "bind mount of %s ns %llu: %s",
		     type_name(sc->ns[sc->fd_ns[f]].type),
		     (unsigned long long)sc->ns[sc->fd_ns[f]].id, strerror(errno));
		return;
	}
	count_op(OP_MOUNT, 1);
	sc->mnt_used[k] = true;
	sc->mnt_ns[k] = sc->fd_ns[f];
	sc->ns[sc->fd_ns[f]].mounts++;
	sc->nmnt++;
}

static const char *setns_file(uint32_t type)
{
	switch (type) {
	case CLONE_NEWPID:
		return "pid_for_children";
	default:
		return type_file[type_index(type)];
	}
}

/*
 * A helper joins some of the scene's namespaces with setns() (by nsfs fd,
 * or by pidfd of the scene child) and checks where it landed.  The writer
 * waits for it: it never outlives what holds the namespaces anyway.
 */
static void setns_helper(struct scene *sc)
{
	int pidfd = -1, status;
	pid_t h;

	if (sc->proc && chance(&wr, 40))
		pidfd = syscall(SYS_pidfd_open, sc->child, 0);
	if (pidfd < 0 && !sc->nfd)
		return;
	h = fork();
	if (h == 0) {
		struct rng r;
		int order[SCENE_FDS], n = 0;

		my_name = "setns";
		rng_init(&r, sh->seed, rng_next(&wr));
		if (pidfd >= 0) {
			static const uint32_t types[] = {
				CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWNET, CLONE_NEWCGROUP,
			};
			uint64_t want[4];
			char path[64];
			uint32_t flags = 0;

			for (int i = 0; i < 4; i++) {
				snprintf(path, sizeof(path), "/proc/%d/ns/%s", sc->child,
					 type_file[type_index(types[i])]);
				int fd = open(path, O_RDONLY | O_CLOEXEC);

				want[i] = fd < 0 ? 0 : ns_id_of_fd(fd);
				if (fd >= 0)
					close(fd);
				if (want[i])
					flags |= types[i];
			}
			if (setns(pidfd, flags)) {
				fail(CK_ERRNO, "setns(pidfd, %#x): %s", flags, strerror(errno));
				_exit(1);
			}
			for (int i = 0; i < 4; i++) {
				uint64_t got = self_ns_id(type_file[type_index(types[i])]);

				if (want[i] && got != want[i])
					fail(CK_IOCTL, "setns(pidfd): %s ns is %llu, not %llu",
					     type_name(types[i]), (unsigned long long)got,
					     (unsigned long long)want[i]);
				else
					pass(CK_IOCTL, 1);
			}
			_exit(0);
		}
		/* Non-user namespaces first: joining a user ns drops init caps. */
		for (int pass_user = 0; pass_user < 2; pass_user++)
			for (int i = 0; i < sc->nfd; i++)
				if ((sc->ns[sc->fd_ns[i]].type == CLONE_NEWUSER) == pass_user &&
				    chance(&r, 50))
					order[n++] = i;
		for (int k = 0, joined_user = 0; k < n && k < 3; k++) {
			struct sns *s = &sc->ns[sc->fd_ns[order[k]]];
			uint64_t got;

			if (setns(sc->fd[order[k]], 0)) {
				int err = errno;
				/*
				 * The helper is a single-threaded root process of
				 * the initial namespaces with an fs_struct of its
				 * own: the other types' install() cannot refuse it
				 * (7.3: mntns_install(), pidns_install() ...).  A
				 * user namespace: userns_install() refuses the
				 * caller's own (EINVAL) and, once the helper has
				 * joined another, one it has no CAP_SYS_ADMIN in
				 * (EPERM).
				 */
				bool documented = s->type == CLONE_NEWUSER &&
					((err == EINVAL && self_ns_id("user") == s->id) ||
					 (err == EPERM && joined_user));

				if (!documented)
					fail(CK_ERRNO, "setns into %s ns %llu%s: %s",
					     type_name(s->type), (unsigned long long)s->id,
					     joined_user ? " (after joining a user ns)" : "",
					     strerror(err));
				else
					pass(CK_ERRNO, 1);
				continue;
			}
			joined_user |= s->type == CLONE_NEWUSER;
			got = self_ns_id(setns_file(s->type));
			if (got != s->id)
				fail(CK_IOCTL, "setns into %s ns %llu: now in %llu",
				     type_name(s->type), (unsigned long long)s->id,
				     (unsigned long long)got);
			else
				pass(CK_IOCTL, 1);
		}
		_exit(0);
	}
	if (pidfd >= 0)
		close(pidfd);
	if (h < 0) {
		fail(CK_ERRNO, "fork: %s", strerror(errno));
		return;
	}
	count_op(OP_SETNS, 1);
	if (waitpid_retry(h, &status, 0) == h && WIFSIGNALED(status))
		fail(CK_PROCS, "setns helper killed by signal %d", WTERMSIG(status));
}

/* SIOCGSKNS: an nsfs fd of the socket's network namespace, resurrecting it. */
static void skns(struct scene *sc)
{
	int fd;

	if (sc->sock < 0)
		return;
	fd = ioctl(sc->sock, SIOCGSKNS);
	count_op(OP_SKNS, 1);
	if (fd < 0) {
		fail(CK_ERRNO, "SIOCGSKNS: %s", strerror(errno));
		return;
	}
	if (ns_id_of_fd(fd) != sc->ns[sc->sock_ns].id)
		fail(CK_IOCTL, "SIOCGSKNS of a socket made in net ns %llu gave %llu",
		     (unsigned long long)sc->ns[sc->sock_ns].id,
		     (unsigned long long)ns_id_of_fd(fd));
	add_fd(sc, fd, sc->sock_ns);
}

/* The releases: each one framed by TRANSIT and a recomputed state. */
enum rel { REL_FD, REL_MOUNT, REL_CHILD, REL_SOCK };

static void release(struct scene *sc, enum rel what, int k)
{
	static const char *const names[] = { "fd", "mount", "child", "sock" };
	int status;

	jlog("releasing %s %d (fd %d)", names[what], k, what == REL_FD ? sc->fd[k] : -1);
	if (sh->verbose & V_LOG)
		note("releasing %s %d (ns %llu)", names[what], k,
		     (unsigned long long)(what == REL_FD ? sc->ns[sc->fd_ns[k]].id :
					  what == REL_MOUNT ? sc->ns[sc->mnt_ns[k]].id : 0));

	if (what == REL_FD)
		scene_transit_chain(sc, sc->fd_ns[k]);
	else if (what == REL_MOUNT)
		scene_transit_chain(sc, sc->mnt_ns[k]);
	else if (what == REL_SOCK && sc->sock_ns >= 0)
		scene_transit_chain(sc, sc->sock_ns);
	else
		scene_transit(sc);
	switch (what) {
	case REL_FD:
		close(sc->fd[k]);
		sc->ns[sc->fd_ns[k]].fds--;
		sc->fd[k] = sc->fd[sc->nfd - 1];
		sc->fd_ns[k] = sc->fd_ns[sc->nfd - 1];
		sc->nfd--;
		break;
	case REL_MOUNT:
		if (umount2(mnt_path[k], 0))
			fail(CK_ERRNO, "umount %s: %s", mnt_path[k], strerror(errno));
		sc->mnt_used[k] = false;
		sc->ns[sc->mnt_ns[k]].mounts--;
		sc->nmnt--;
		break;
	case REL_CHILD:
		/* It may be gone already: waitpid() tells. */
		(void)!write(sc->ctl, "x", 1);
		/* SIOCGSKNS on the socket while its last task exits. */
		if (sc->sock >= 0 && chance(&wr, 50))
			for (int i = 1 + rnd(&wr, 3); i > 0; i--)
				skns(sc);
		if (waitpid_retry(sc->child, &status, 0) != sc->child)
			fail(CK_PROCS, "scene child %d: waitpid: %s", sc->child, strerror(errno));
		else if (WIFSIGNALED(status) || WEXITSTATUS(status))
			fail(CK_PROCS, "scene child %d ended with status %#x", sc->child, status);
		close(sc->ctl);
		sc->proc = false;
		break;
	case REL_SOCK:
		close(sc->sock);
		sc->sock = -1;
		break;
	}
	scene_publish(sc);
}

/* Releases everything but the socket, in random order. */
static void release_all(struct scene *sc)
{
	while (sc->nfd || sc->nmnt || sc->proc) {
		int what = rnd(&wr, 3);

		if (what == 0 && sc->nfd) {
			release(sc, REL_FD, rnd(&wr, sc->nfd));
		} else if (what == 1 && sc->nmnt) {
			int k;

			do {
				k = rnd(&wr, SCENE_MOUNTS);
			} while (!sc->mnt_used[k]);
			release(sc, REL_MOUNT, k);
		} else if (what == 2 && sc->proc) {
			release(sc, REL_CHILD, 0);
		}
	}
}

static void linger(void)
{
	/* Give the readers a look at the scene as it is. */
	if (chance(&wr, 50))
		usleep(rnd(&wr, 5000));
}

static void scene_activity(struct scene *sc)
{
	for (int n = rnd(&wr, 7); n > 0 && !stopping(); n--) {
		switch (rnd(&wr, 5)) {
		case 0: case 1:
			open_one(sc);
			break;
		case 2:
			if (!(sh->verbose & V_NO_MOUNT))
				mount_one(sc);
			break;
		case 3:
			if (!(sh->verbose & V_NO_SETNS))
				setns_helper(sc);
			break;
		default:
			linger();
			break;
		}
	}
}

static void scene_run(void)
{
	struct scene sc;
	struct plan p;

	plan_pick(&p);
	if (!scene_start(&sc, &p))
		return;
	scene_recompute(&sc);
	scene_activity(&sc);
	release_all(&sc);
	/* The network namespace the socket pins, and its owners: resurrect. */
	for (int round = 0; sc.sock >= 0 && round < 2 && chance(&wr, 70); round++) {
		scene_transit_chain(&sc, sc.sock_ns);
		skns(&sc);
		scene_publish(&sc);
		count_op(OP_RESURRECT, 1);
		scene_activity(&sc);
		release_all(&sc);
	}
	if (sc.sock >= 0)
		release(&sc, REL_SOCK, 0);
	for (int i = 0; i < sc.nns; i++)
		held_del(widx, sc.ns[i].id);
}

/*
 * A churner: children that unshare a random set of namespaces, publish
 * them, linger a moment and exit, as fast as it goes.  Where scenes are
 * rich, this is many teardowns (and frees) per second.
 */
static void churn_child(struct rng *r, uint32_t mask, int out)
{
	uint64_t ids[NR_TYPES], user = sh->init_user;
	int n = 0;

	creating(1);
	if (unshare(mask)) {
		creating(-1);
		fail(CK_ERRNO, "churn: unshare(%#x): %s", mask, strerror(errno));
		_exit(1);
	}
	if (mask & CLONE_NEWUSER)
		user = self_ns_id("user");
	for (int ti = 0; ti < NR_TYPES; ti++) {
		uint64_t owner = type_bits[ti] == CLONE_NEWUSER ? sh->init_user : user;
		uint64_t parent = 0;

		if (!(mask & type_bits[ti]))
			continue;
		ids[n] = self_ns_id(type_file[ti]);
		if (!ids[n]) {
			fail(CK_ERRNO, "churn: /proc/self/ns/%s: %s", type_file[ti], strerror(errno));
			continue;
		}
		if (type_bits[ti] == CLONE_NEWUSER)
			parent = sh->init_user;
		else if (type_bits[ti] == CLONE_NEWPID)
			parent = sh->init_ids[5];
		tbl_publish(ids[n], type_bits[ti], owner, parent, ST_ACTIVE);
		seen_id(ids[n++]);
	}
	creating(-1);
	count_op(OP_NS, n);
	/*
	 * While it lingers, the child's namespaces are held active: every
	 * matching walk must list them (check 6), as a scene's are.
	 * my_slot is the churner's own row of held[] (one child at a time).
	 */
	for (int i = 0; i < n; i++)
		held_add(my_slot, ids[i]);
	if (chance(r, 50))
		usleep(rnd(r, 2000));
	for (int i = 0; i < n; i++) {
		held_del(my_slot, ids[i]);
		tbl_set(ids[i], ST_TRANSIT);
	}
	write_all(out, ids, n * sizeof(ids[0]));
	_exit(0);
}

void churn_main(int idx, int slot)
{
	static const uint32_t kinds[] = {
		CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWCGROUP, CLONE_NEWNS, CLONE_NEWUSER,
		CLONE_NEWTIME, CLONE_NEWPID, CLONE_NEWNET,
	};
	struct rng r;
	char name[16];

	my_slot = slot;
	snprintf(name, sizeof(name), "churn%d", idx);
	my_name = strdup(name);
	rng_init(&r, sh->seed, 500 + idx);
	while (!stopping()) {
		uint64_t ids[NR_TYPES], stream = rng_next(&r);
		uint32_t mask = 0;
		int p[2], status;
		ssize_t n;
		pid_t pid;

		/*
		 * Mostly mount namespaces, which call_rcu() frees through the
		 * ns_rcu of their ns_common, and the types kfree_rcu() frees;
		 * net is slow to make and free.
		 */
		while (!mask)
			for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
				if (chance(&r, kinds[i] == CLONE_NEWNET ? 5 :
					       kinds[i] == CLONE_NEWNS ? 60 : 30))
					mask |= kinds[i];
		if (pipe2(p, O_CLOEXEC)) {
			fail(CK_ERRNO, "pipe: %s", strerror(errno));
			break;
		}
		pid = fork();
		if (pid == 0) {
			struct rng cr;

			close(p[0]);
			rng_init(&cr, sh->seed, stream);
			churn_child(&cr, mask, p[1]);
		}
		close(p[1]);
		if (pid < 0) {
			fail(CK_ERRNO, "fork: %s", strerror(errno));
			close(p[0]);
			break;
		}
		n = read_full(p[0], ids, sizeof(ids));
		close(p[0]);
		if (waitpid_retry(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			fail(CK_PROCS, "churn child ended with status %#x", status);
		for (ssize_t i = 0; n > 0 && i < n / (ssize_t)sizeof(ids[0]); i++) {
			tbl_set(ids[i], ST_INACTIVE);
			recent_push(ids[i]);
		}
		count_op(OP_CHURN, 1);
	}
	_exit(0);
}

/*
 * A mount namespace of the writer's own for its bind mounts: a process
 * that unshares CLONE_NEWNS copies its mount namespace, bind mounts of
 * nsfs files included, and such a copy keeps the bind-mounted namespace
 * active for as long as it lives.  Scene children of this writer copy it
 * before the writer mounts anything, and nobody else copies it.
 */
static void writer_mntns(int idx)
{
	struct ns_info ni;

	creating(1);
	if (unshare(CLONE_NEWNS) || ns_info_self("mnt", &ni, NULL)) {
		creating(-1);
		fail(CK_ERRNO, "writer: unshare(CLONE_NEWNS): %s", strerror(errno));
		return;
	}
	tbl_publish(ni.id, ni.type, ni.owner, 0, ST_ACTIVE);
	seen_id(ni.id);
	creating(-1);
	count_op(OP_NS, 1);
	held_add(idx, ni.id);
	sh->writer_mnt[idx] = ni.id;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		fail(CK_ERRNO, "writer: making its mounts private: %s", strerror(errno));
}

void writer_main(int idx)
{
	char name[16];

	widx = idx;
	my_slot = idx;
	sh->writer_pid[idx] = getpid();
	sigaction(SIGUSR1, &(struct sigaction){ .sa_handler = dump_request,
						.sa_flags = SA_RESTART }, NULL);
	snprintf(name, sizeof(name), "writer%d", idx);
	my_name = strdup(name);
	rng_init(&wr, sh->seed, 1 + idx);
	writer_mntns(idx);
	for (int k = 0; k < SCENE_MOUNTS; k++) {
		int fd;

		snprintf(mnt_path[k], sizeof(mnt_path[k]), "/run/nstorture/w%d.%d", idx, k);
		fd = open(mnt_path[k], O_CREAT | O_RDONLY | O_CLOEXEC, 0600);
		if (fd < 0)
			fail(CK_ERRNO, "creating %s: %s", mnt_path[k], strerror(errno));
		else
			close(fd);
	}
	while (!stopping())
		scene_run();
	/* main marks it inactive once this process is gone. */
	tbl_set(sh->writer_mnt[idx], ST_TRANSIT);
	held_del(idx, sh->writer_mnt[idx]);
	_exit(0);
}
