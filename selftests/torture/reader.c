// SPDX-License-Identifier: GPL-2.0
/*
 * nstorture readers: listns() walks of every kind, checked page by page
 * and against what the writers hold, and open_by_handle_at() of what they
 * list with the nsfs ioctls on the result.  Reader 0 also runs sessions in
 * nested user namespaces, where a caller may see only its own namespaces.
 */
#include "nstorture.h"

#include <poll.h>
#include <signal.h>
#include <stddef.h>

/* A walk: the request's filters and where it starts. */
struct walkspec {
	uint32_t mask;
	uint64_t owner;		/* 0: any, LISTNS_CURRENT_USER, or an id */
	uint64_t start;
	const char *kind;
};

struct walkres {
	uint64_t c0;		/* the clock before the first call */
	long n;
	bool enoent;		/* ended with ENOENT */
	int err;		/* errno that ended it, other than ENOENT */
	bool truncated;
	uint64_t last_resume;
	int pages;
	uint64_t ids[WALK_MAX];	/* last: not cleared per walk */
};

/* Membership of the current walk: open addressing, cleared by epoch. */
#define SET_BITS 17
static struct {
	uint64_t id;
	uint32_t epoch;
} set[1 << SET_BITS];
static uint32_t set_epoch;

static void set_clear(void)
{
	if (++set_epoch == 0) {
		memset(set, 0, sizeof(set));
		set_epoch = 1;
	}
}

static size_t set_pos(uint64_t id)
{
	return (id * 0x9e3779b97f4a7c15ULL) >> (64 - SET_BITS);
}

static bool set_has(uint64_t id)
{
	for (size_t i = set_pos(id), k = 0; k < (1 << SET_BITS); k++, i = (i + 1) & ((1 << SET_BITS) - 1)) {
		if (set[i].epoch != set_epoch)
			return false;
		if (set[i].id == id)
			return true;
	}
	return false;
}

static void set_add(uint64_t id)
{
	for (size_t i = set_pos(id), k = 0; k < (1 << SET_BITS) / 2; k++, i = (i + 1) & ((1 << SET_BITS) - 1)) {
		if (set[i].epoch != set_epoch) {
			set[i].epoch = set_epoch;
			set[i].id = id;
			return;
		}
		if (set[i].id == id)
			return;
	}
}

static const char *owner_str(uint64_t owner, char *buf, size_t len)
{
	if (!owner)
		return "any";
	if (owner == LISTNS_CURRENT_USER)
		return "current";
	snprintf(buf, len, "%llu", (unsigned long long)owner);
	return buf;
}

static const char *spec_str(const struct walkspec *w, char *buf, size_t len)
{
	char ob[24];

	snprintf(buf, len, "%s walk (types %#x, owner %s, from %llu)", w->kind,
		 w->mask, owner_str(w->owner, ob, sizeof(ob)),
		 (unsigned long long)w->start);
	return buf;
}

/* Page sizes 1..1024, weighted to small pages and batch boundaries. */
static size_t pick_page(struct rng *r)
{
	static const size_t edges[] = { 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 512, 1023 };

	switch (rnd(r, 10)) {
	case 0: case 1: case 2:
		return 1 + rnd(r, 8);
	case 3: case 4:
		return edges[rnd(r, ARRAY_SIZE(edges))];
	case 5: case 6:
		return 9 + rnd(r, 92);
	case 7:
		return PAGE_MAX;
	default:
		return 100 + rnd(r, PAGE_MAX - 99);
	}
}

#define PAGE_GUARD 4

/*
 * One paginated walk; the page-level checks (order, bounds, zero, issued,
 * duplicates) on the way.  @page_fixed: one page size for the whole walk
 * (0: a new random size for every call).
 */
static void do_walk(struct rng *r, const struct walkspec *w, struct walkres *res,
		    size_t page_fixed)
{
	static uint64_t buf[PAGE_MAX + PAGE_GUARD];
	uint64_t resume = w->start;
	char sb[128];

	memset(res, 0, offsetof(struct walkres, ids));
	set_clear();
	res->c0 = clock_now();
	count_op(OP_WALK, 1);
	for (;;) {
		size_t page = page_fixed ? page_fixed : pick_page(r);
		struct ns_id_req req = mkreq(resume, w->mask, w->owner);
		uint64_t prev = resume, bound;
		long ret;

		for (size_t i = 0; i < page + PAGE_GUARD; i++)
			buf[i] = CANARY64;
		res->last_resume = resume;
		ret = listns_ret(&req, buf, page, 0);
		count_op(OP_PAGE, 1);
		res->pages++;
		if (ret < 0) {
			if (ret == -ENOENT)
				res->enoent = true;
			else
				res->err = -ret;
			break;
		}
		if ((size_t)ret > page) {
			fail(CK_BOUNDS, "%s: listns(page %zu) returned %ld",
			     spec_str(w, sb, sizeof(sb)), page, ret);
			ret = page;
		} else {
			size_t i;

			for (i = ret; i < page + PAGE_GUARD && buf[i] == CANARY64; i++)
				;
			if (i < page + PAGE_GUARD)
				fail(CK_BOUNDS, "%s: listns(page %zu) returned %ld ids but wrote slot %zu (%#llx)",
				     spec_str(w, sb, sizeof(sb)), page, ret, i,
				     (unsigned long long)buf[i]);
			else
				pass(CK_BOUNDS, 1);
		}
		bound = id_bound();
		for (long i = 0; i < ret; i++) {
			uint64_t id = buf[i];

			if (!id)
				fail(CK_ZERO, "%s: page of %zu from %llu: id 0 at index %ld of %ld",
				     spec_str(w, sb, sizeof(sb)), page,
				     (unsigned long long)resume, i, ret);
			else
				pass(CK_ZERO, 1);
			if (id <= prev)
				fail(CK_ORDER, i ? "%s: page of %zu from %llu: id %#llx at index %ld after %#llx" :
				     "%s: page of %zu from %llu: id %#llx at index %ld not after the resume id %#llx",
				     spec_str(w, sb, sizeof(sb)), page,
				     (unsigned long long)resume,
				     (unsigned long long)id, i, (unsigned long long)prev);
			else
				pass(CK_ORDER, 1);
			if (id > bound)
				fail(CK_ISSUED, "%s: page of %zu from %llu: id %#llx at index %ld, but no id above %llu was issued",
				     spec_str(w, sb, sizeof(sb)), page,
				     (unsigned long long)resume,
				     (unsigned long long)id, i, (unsigned long long)bound);
			else
				pass(CK_ISSUED, 1);
			if (set_has(id)) {
				fail(CK_DUP, "%s: id %llu listed twice (page of %zu from %llu, index %ld)",
				     spec_str(w, sb, sizeof(sb)), (unsigned long long)id,
				     page, (unsigned long long)resume, i);
			} else {
				pass(CK_DUP, 1);
				set_add(id);
				if (res->n < WALK_MAX)
					res->ids[res->n++] = id;
			}
			prev = id;
		}
		count_op(OP_ID, ret);
		if ((size_t)ret < page || !ret)
			break;
		if (buf[ret - 1] <= resume)
			break;	/* order already failed: do not loop */
		resume = buf[ret - 1];
		if (res->n >= WALK_MAX) {
			res->truncated = true;
			break;
		}
	}
}

static bool spec_matches(const struct walkspec *w, const struct ns_snap *s, uint64_t id)
{
	uint64_t owner = w->owner == LISTNS_CURRENT_USER ? sh->init_user : w->owner;

	if (id <= w->start)
		return false;
	if (w->mask && !(w->mask & s->type))
		return false;
	if (owner && s->owner != owner)
		return false;
	return true;
}

/* Every namespace held active for the whole walk must be in it. */
static void check_held(const struct walkspec *w, const struct walkres *res, uint64_t id)
{
	struct ns_snap s;
	char sb[128];

	if (!tbl_get(id, &s) || !active_since(&s, res->c0) || !spec_matches(w, &s, id))
		return;
	if (set_has(id)) {
		pass(CK_HELD, 1);
		return;
	}
	if (res->enoent && id > res->last_resume)
		fail(CK_HELD, "%s: ENOENT from resume id %llu, but held active %s ns %llu follows it",
		     spec_str(w, sb, sizeof(sb)), (unsigned long long)res->last_resume,
		     type_name(s.type), (unsigned long long)id);
	else
		fail(CK_HELD, "%s: %ld ids in %d pages, held active %s ns %llu (owner %llu) missing",
		     spec_str(w, sb, sizeof(sb)), res->n, res->pages, type_name(s.type),
		     (unsigned long long)id, (unsigned long long)s.owner);
}

static void check_walk(const struct walkspec *w, const struct walkres *res)
{
	struct ns_snap s;
	char sb[128];

	if (res->err) {
		if (res->err == EINVAL && w->owner && w->owner != LISTNS_CURRENT_USER) {
			/* An owner that is not an active user namespace. */
			if (tbl_get(w->owner, &s) && s.type == CLONE_NEWUSER &&
			    active_since(&s, res->c0))
				fail(CK_HELD, "%s: EINVAL, but user ns %llu is held active",
				     spec_str(w, sb, sizeof(sb)), (unsigned long long)w->owner);
			else
				pass(CK_ERRNO, 1);
		} else {
			fail(CK_ERRNO, "%s: listns: %s", spec_str(w, sb, sizeof(sb)),
			     strerror(res->err));
		}
		return;
	}
	pass(CK_ERRNO, 1);
	for (long i = 0; i < res->n; i++) {
		if (!tbl_get(res->ids[i], &s) || !inactive_since(&s, res->c0)) {
			pass(CK_INACTIVE, 1);
			continue;
		}
		fail(CK_INACTIVE, "%s: listed %s ns %llu (owner %llu), inactive since before the walk (stamp %llu, last hold %llu, walk %llu)",
		     spec_str(w, sb, sizeof(sb)), type_name(s.type),
		     (unsigned long long)res->ids[i], (unsigned long long)s.owner,
		     (unsigned long long)s.stamp, (unsigned long long)s.hstamp,
		     (unsigned long long)res->c0);
		who_holds(res->ids[i]);
	}
	if (res->truncated)
		return;
	for (int i = 0; i < NR_TYPES; i++)
		check_held(w, res, sh->init_ids[i]);
	for (int slot = 0; slot < MAX_WRITERS + MAX_READERS; slot++)
		for (int i = 0; i < HELD_PER_WRITER; i++) {
			uint64_t id = atomic_load_explicit(&sh->held[slot][i], memory_order_relaxed);

			if (id)
				check_held(w, res, id);
		}
}

/* An nsfs ioctl that returns an fd: the id behind it, 0 on error (errno). */
static uint64_t ioctl_id(int fd, unsigned long req, int *err)
{
	int nfd = ioctl(fd, req);
	uint64_t id;

	if (nfd < 0) {
		*err = errno;
		return 0;
	}
	*err = 0;
	id = ns_id_of_fd(nfd);
	close(nfd);
	return id;
}

/*
 * open_by_handle_at() of a listed id, and the ioctls on what it opened.
 * A failure to open is fine if the namespace was being torn down; not if
 * it was held active from before the open until after it.  And the other
 * way: an open that succeeds is wrong if the namespace was inactive, with
 * no other reader's hold, from before this reader's hold until after the
 * open (only active namespaces may be opened by file handle).
 */
static void open_check(const struct walkspec *w, uint64_t id)
{
	struct holds h = { 0 };
	struct ns_snap s, pre;
	uint64_t c0, c1, got;
	bool was_inactive;
	int fd, err;
	long type;

	c0 = clock_now();
	tbl_get(id, &s);
	was_inactive = inactive_since(&s, c0);
	pre = s;
	/*
	 * A namespace made during the run that its creator has not published
	 * yet: an fd of it would keep it active unbeknownst to the checks.
	 */
	if (!hold_chain(&h, id) && id > sh->baseline) {
		unhold(&h);
		return;
	}
	if (s.known && s.type == CLONE_NEWPID && s.parent)
		hold_chain(&h, s.parent);
	c1 = clock_now();
	fd = open_ns_id(id);
	count_op(OP_OPEN, 1);
	if (fd >= 0 && was_inactive) {
		/*
		 * Still inactive with the same stamp (no writer started to
		 * change it: TRANSIT is stamped before a change), and this
		 * reader's hold the only one, taken before c1 (another
		 * reader's hold and release in between would have a later
		 * hold stamp): inactive for the whole open.
		 */
		tbl_get(id, &s);
		if (s.state == ST_INACTIVE && s.stamp == pre.stamp && s.holders == 1 &&
		    s.hstamp <= c1 && !maybe_resurrected(&s, c0)) {
			fail(CK_OPEN, "%s ns %llu opened by file handle, inactive since before the open (stamp %llu, walk clock %llu)",
			     type_name(s.type), (unsigned long long)id,
			     (unsigned long long)s.stamp, (unsigned long long)c0);
			who_holds(id);
		} else {
			pass(CK_OPEN, 1);
		}
	}
	if (fd < 0) {
		count_op(OP_OPEN_FAIL, 1);
		tbl_get(id, &s);
		if (fd != -ESTALE && fd != -ENOENT)
			fail(CK_ERRNO, "open_by_handle_at(listed id %llu): %s",
			     (unsigned long long)id, strerror(-fd));
		else if (active_since(&s, c1))
			fail(CK_OPEN, "listed %s ns %llu, held active since before the open, cannot be opened: %s",
			     type_name(s.type), (unsigned long long)id, strerror(-fd));
		else
			pass(CK_OPEN, 1);
		unhold(&h);
		return;
	}
	pass(CK_OPEN, 1);
	tbl_get(id, &s);
	count_op(OP_IOCTL, 4);
	got = ns_id_of_fd(fd);
	if (got != id)
		fail(CK_IOCTL, "NS_GET_ID of the handle of %llu is %llu",
		     (unsigned long long)id, (unsigned long long)got);
	else
		pass(CK_IOCTL, 1);
	type = ioctl(fd, NS_GET_NSTYPE);
	if (type < 0 || type_index(type) < 0 || (s.known && type != s.type) ||
	    (w && w->mask && !(w->mask & type)))
		fail(CK_IOCTL, "ns %llu: NS_GET_NSTYPE %#lx, created as %#x, listed by a walk of types %#x",
		     (unsigned long long)id, type, s.type, w ? w->mask : 0);
	else
		pass(CK_IOCTL, 1);
	got = ioctl_id(fd, NS_GET_USERNS, &err);
	if (err) {
		/* Only init_user_ns has no owner. */
		if (err != EPERM || type != CLONE_NEWUSER || id != sh->init_user)
			fail(CK_IOCTL, "%s ns %llu: NS_GET_USERNS: %s", type_name(type),
			     (unsigned long long)id, strerror(err));
		else
			pass(CK_IOCTL, 1);
	} else if ((s.known && s.owner && got != s.owner) ||
		   (w && w->owner && w->owner != LISTNS_CURRENT_USER && got != w->owner)) {
		fail(CK_IOCTL, "%s ns %llu: NS_GET_USERNS is %llu, created with owner %llu, listed by owner %llu",
		     type_name(type), (unsigned long long)id, (unsigned long long)got,
		     (unsigned long long)s.owner, (unsigned long long)(w ? w->owner : 0));
	} else {
		pass(CK_IOCTL, 1);
	}
	got = ioctl_id(fd, NS_GET_PARENT, &err);
	if (type == CLONE_NEWUSER || type == CLONE_NEWPID) {
		bool initial = false;

		for (int i = 0; i < NR_TYPES; i++)
			initial |= sh->init_ids[i] == id;
		if (err ? !(err == EPERM && initial) : (s.known && s.parent && got != s.parent))
			fail(CK_IOCTL, "%s ns %llu: NS_GET_PARENT is %llu (%s), created with parent %llu",
			     type_name(type), (unsigned long long)id, (unsigned long long)got,
			     err ? strerror(err) : "ok", (unsigned long long)s.parent);
		else
			pass(CK_IOCTL, 1);
	} else if (err != EINVAL) {
		fail(CK_IOCTL, "%s ns %llu: NS_GET_PARENT: %s, not EINVAL", type_name(type),
		     (unsigned long long)id, err ? strerror(err) : "an fd");
	} else {
		pass(CK_IOCTL, 1);
	}
	close(fd);
	unhold(&h);
}

static uint32_t pick_mask(struct rng *r)
{
	uint32_t m;

	switch (rnd(r, 4)) {
	case 0:
		return 0;
	case 1: case 2:
		return type_bits[rnd(r, NR_TYPES)];
	default:
		do {
			m = 0;
			for (int i = 0; i < NR_TYPES; i++)
				if (chance(r, 40))
					m |= type_bits[i];
		} while (__builtin_popcount(m) < 2);
		return m;
	}
}

/* A user namespace some writer holds, or another user namespace id. */
static uint64_t pick_owner(struct rng *r)
{
	struct ns_snap s;

	switch (rnd(r, 6)) {
	case 0:
		return sh->init_user;
	case 1:
		return LISTNS_CURRENT_USER;
	case 2:
		return recent_pick(r);
	default:
		for (int tries = 0; tries < 64; tries++) {
			int slot = rnd(r, MAX_WRITERS + MAX_READERS);
			uint64_t id = atomic_load(&sh->held[slot][rnd(r, HELD_PER_WRITER)]);

			if (id && tbl_get(id, &s) && s.type == CLONE_NEWUSER)
				return id;
		}
		return sh->init_user;
	}
}

static uint64_t pick_start(struct rng *r)
{
	uint64_t max = atomic_load(&sh->max_seen);

	switch (rnd(r, 8)) {
	case 0:
		return rnd(r, max + 2);
	case 1: case 2:
		return recent_pick(r);
	default:
		return 0;
	}
}

static void reader_walk(struct rng *r, struct walkres *res)
{
	struct walkspec w = { 0 };
	size_t page_fixed = 0;

	switch (rnd(r, 5)) {
	case 0:
		w.kind = "all";
		break;
	case 1:
		/*
		 * One type: mostly those freed through their rcu_head (mnt
		 * always, uts/ipc/cgroup/user/time when kfree_rcu() falls
		 * back to it), whose short lists put a walker on a dying
		 * namespace more often.
		 */
		w.kind = "type";
		w.mask = chance(r, 50) ? CLONE_NEWNS : type_bits[rnd(r, NR_TYPES)];
		break;
	case 2:
		w.kind = "types";
		w.mask = pick_mask(r);
		break;
	default:
		w.kind = "owner";
		w.owner = pick_owner(r);
		w.mask = chance(r, 50) ? 0 : pick_mask(r);
		break;
	}
	w.start = pick_start(r);
	if (chance(r, 50))
		page_fixed = pick_page(r);
	do_walk(r, &w, res, page_fixed);
	check_walk(&w, res);
	/* Open some of what it listed. */
	if (res->n && !res->err && !(sh->verbose & V_NO_OPEN)) {
		int k = res->n <= 6 ? res->n : 6;

		for (int i = 0; i < k && !stopping(); i++)
			open_check(&w, res->ids[res->n <= 6 ? i : rnd(r, res->n)]);
	}
}

/*
 * A session in nested user namespaces (a child process): from there,
 * listns() shows only the caller's own namespaces.  The child enters 1..3
 * user namespaces, unshares uts, ipc, net, mnt and cgroup in the last one,
 * and walks: LISTNS_CURRENT_USER, by the owner of its user namespace, and
 * all namespaces.  Each must list exactly its own namespaces of the
 * matching types and owner.
 */
/* What the session child made: reported to its parent as it goes. */
static uint64_t cu_made[16];
static int cu_nmade, cu_fd;

static void curuser_made(int hslot, uint64_t id)
{
	held_add(hslot, id);
	cu_made[cu_nmade++] = id;
	count_op(OP_NS, 1);
	if (write_all(cu_fd, &id, sizeof(id)))
		fail(CK_ERRNO, "curuser: reporting to the reader: %s", strerror(errno));
}

static void __attribute__((noreturn)) curuser_exit(int code)
{
	for (int i = 0; i < cu_nmade; i++)
		tbl_set(cu_made[i], ST_TRANSIT);
	_exit(code);
}

static void curuser_child(struct rng *r, struct walkres *res, int hslot, int idsfd)
{
	static const char *const files[NR_TYPES] = {
		"user", "mnt", "uts", "ipc", "net", "pid", "cgroup", "time",
	};
	const uint32_t unshared = CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET |
				  CLONE_NEWNS | CLONE_NEWCGROUP;
	uint64_t user_before = sh->init_user, users[4] = { sh->init_user };
	struct ns_info own[NR_TYPES];
	int depth = 1 + rnd(r, 3);
	char sb[128];

	cu_fd = idsfd;

	for (int k = 1; k <= depth; k++) {
		struct ns_info ni;
		int ret;

		creating(1);
		ret = enter_userns();
		if (!ret)
			ret = ns_info_self("user", &ni, NULL);
		if (ret) {
			creating(-1);
			fail(CK_ERRNO, "curuser: entering user ns %d: %s", k, strerror(-ret));
			curuser_exit(1);
		}
		ni.owner = ni.parent = user_before;
		tbl_publish(ni.id, ni.type, ni.owner, ni.parent, ST_ACTIVE);
		seen_id(ni.id);
		creating(-1);
		curuser_made(hslot, ni.id);
		users[k] = user_before = ni.id;
	}
	creating(1);
	if (unshare(unshared)) {
		creating(-1);
		fail(CK_ERRNO, "curuser: unshare: %s", strerror(errno));
		curuser_exit(1);
	}
	for (int i = 0; i < NR_TYPES; i++) {
		if (!(type_bits[i] & unshared))
			continue;
		if (ns_info_self(type_file[i], &own[i], NULL)) {
			fail(CK_ERRNO, "curuser: %s ns: %s", type_file[i], strerror(errno));
			continue;
		}
		tbl_publish(own[i].id, own[i].type, own[i].owner, 0, ST_ACTIVE);
		seen_id(own[i].id);
		curuser_made(hslot, own[i].id);
	}
	creating(-1);
	/* Its current namespaces: what it may see. */
	for (int i = 0; i < NR_TYPES; i++) {
		if (ns_info_self(files[i], &own[i], NULL))
			fail(CK_ERRNO, "curuser: /proc/self/ns/%s: %s", files[i], strerror(errno));
	}
	own[0].owner = users[depth - 1];
	own[5].owner = sh->init_user;	/* pid, time: the initial ones */
	own[7].owner = sh->init_user;

	for (int j = 0; j < 6 && !stopping(); j++) {
		struct walkspec w = { .mask = pick_mask(r) };
		int kind = rnd(r, 3);

		switch (kind) {
		case 0:
			w.kind = "curuser";
			w.owner = LISTNS_CURRENT_USER;
			break;
		case 1:
			w.kind = "curuser-parent";
			w.owner = users[depth - 1];
			break;
		default:
			w.kind = "curuser-all";
			break;
		}
		if (chance(r, 25))
			w.start = own[rnd(r, NR_TYPES)].id - 1;
		do_walk(r, &w, res, 0);
		count_op(OP_CURUSER, 1);
		if (res->err) {
			fail(CK_CURUSER, "%s: listns: %s", spec_str(&w, sb, sizeof(sb)),
			     strerror(res->err));
			continue;
		}
		/* Its own namespaces of the matching types and owner, no more. */
		for (int i = 0; i < NR_TYPES; i++) {
			uint64_t want_owner = kind == 0 ? users[depth] : w.owner;
			bool match = own[i].id > w.start &&
				     (!w.mask || (w.mask & own[i].type)) &&
				     (kind == 2 || own[i].owner == want_owner);

			if (match && !set_has(own[i].id))
				fail(CK_CURUSER, "%s at depth %d: own %s ns %llu (owner %llu) missing, %ld listed",
				     spec_str(&w, sb, sizeof(sb)), depth, files[i],
				     (unsigned long long)own[i].id,
				     (unsigned long long)own[i].owner, res->n);
			else
				pass(CK_CURUSER, 1);
		}
		for (long k = 0; k < res->n; k++) {
			bool mine = false;

			for (int i = 0; i < NR_TYPES; i++)
				mine |= own[i].id == res->ids[k];
			if (!mine)
				fail(CK_CURUSER, "%s at depth %d: listed ns %llu, not one of its own",
				     spec_str(&w, sb, sizeof(sb)), depth,
				     (unsigned long long)res->ids[k]);
			else
				pass(CK_CURUSER, 1);
		}
	}
	curuser_exit(0);
}

static void curuser_session(struct rng *r, struct walkres *res, int hslot)
{
	uint64_t made[16];
	int p[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC)) {
		fail(CK_ERRNO, "pipe: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid < 0) {
		fail(CK_ERRNO, "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid == 0) {
		struct rng cr;

		close(p[0]);
		my_name = "curuser";
		rng_init(&cr, sh->seed, rng_next(r));
		curuser_child(&cr, res, hslot, p[1]);
	}
	close(p[1]);
	n = read_full(p[0], made, sizeof(made));
	close(p[0]);
	if (waitpid_retry(pid, &status, 0) == pid && WIFSIGNALED(status))
		fail(CK_PROCS, "curuser session child killed by signal %d", WTERMSIG(status));
	rng_next(r);
	for (ssize_t i = 0; n > 0 && i < n / (ssize_t)sizeof(made[0]); i++) {
		tbl_set(made[i], ST_INACTIVE);
		recent_push(made[i]);
		held_del(hslot, made[i]);
	}
}

/*
 * listns() of all namespaces into a buffer whose first k slots are
 * writable and whose next one is on a PROT_NONE page: the walk has the 8
 * initial namespaces to write, more than k, so it must fail with EFAULT
 * (7.3's do_listns(): put_user() of the id, -EFAULT when it faults),
 * after writing slots 0..k-1 in order; and nr = 0 into that page must
 * return 0 and touch nothing.  The kernel's walk holds its place across
 * the faulting user copy: check 13 sees any report from that path.
 */
static void fault_walk(struct rng *r)
{
	static uint64_t *area;
	const size_t slots = 4096 / sizeof(uint64_t);
	size_t k = rnd(r, 5), nr = k + 1 + rnd(r, 8);
	struct ns_id_req req = mkreq(0, 0, 0);
	uint64_t *buf;
	long ret;

	if (!area) {
		area = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (area == MAP_FAILED || mprotect(area + slots, 4096, PROT_NONE)) {
			fail(CK_ERRNO, "fault walk: mmap/mprotect: %s", strerror(errno));
			area = NULL;
			return;
		}
	}
	buf = area + slots - k;
	for (size_t i = 0; i < k; i++)
		buf[i] = CANARY64;
	count_op(OP_PAGE, 2);
	ret = listns_ret(&req, buf, nr, 0);
	if (ret != -EFAULT) {
		fail(CK_ERRNO, "listns(all, %zu slots, the first %zu writable): %ld, not -EFAULT",
		     nr, k, ret);
	} else {
		pass(CK_ERRNO, 1);
		for (size_t i = 0; i < k; i++)
			if (!buf[i] || buf[i] == CANARY64 || (i && buf[i] <= buf[i - 1]))
				fail(CK_ORDER, "listns into a faulting buffer: slot %zu of the %zu written before the fault is %#llx",
				     i, k, (unsigned long long)buf[i]);
			else
				pass(CK_ORDER, 1);
	}
	ret = listns_ret(&req, area + slots, 0, 0);
	if (ret)
		fail(CK_BOUNDS, "listns(all, nr 0, into a PROT_NONE page): %ld, not 0", ret);
	else
		pass(CK_BOUNDS, 1);
}

void reader_main(int idx, int readers)
{
	static struct walkres res;
	struct rng r;
	uint64_t walks = 0;
	char name[16];

	snprintf(name, sizeof(name), "reader%d", idx);
	my_name = strdup(name);
	my_slot = MAX_WRITERS + idx;
	rng_init(&r, sh->seed, 1000 + idx);
	while (!stopping()) {
		if (idx == 0 && walks % 8 == 7)
			curuser_session(&r, &res, MAX_WRITERS + idx);
		else if (chance(&r, 2))
			fault_walk(&r);
		else if (chance(&r, 3) && !(sh->verbose & V_NO_OPEN))
			/* An id nobody listed: opening it must not crash. */
			open_check(NULL, rnd(&r, atomic_load(&sh->max_seen) + 64) + 1);
		else
			reader_walk(&r, &res);
		walks++;
	}
	(void)readers;
	_exit(0);
}
