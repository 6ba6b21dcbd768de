// SPDX-License-Identifier: GPL-2.0
/*
 * listns() resume points (req->ns_id), as of Linux 7.3: the walk starts at
 * the first namespace with an id strictly above ns_id in the tree it walks
 * (the type's tree for a single ns_type bit, the owner's tree for
 * user_ns_id, else the unified tree), found by lookup_ns_id_after() or
 * lookup_ns_owner_after(), and that namespace is filtered like any other:
 * an inactive or dying one is skipped and the walk goes on. ENOENT only
 * when the tree has no namespace above ns_id at all. Nothing is above
 * UINT64_MAX, so resuming after it is ENOENT.
 *
 * (Linux 7.2 looked up id >= ns_id + 1 and took a reference on it: an
 * inactive or dying first namespace ended the walk with ENOENT even when
 * active ones followed, and UINT64_MAX wrapped to a walk from the start.)
 *
 * So a destroyed namespace's id is not an error by itself: it is ENOENT
 * when nothing follows it, and a normal resume point otherwise. Run as
 * root in the initial namespaces.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <linux/nsfs.h>

#include "kselftest_harness.h"
#include "listns_helpers.h"

/* The walks a resume point is looked up in. */
struct walk {
	const char *name;
	__u32 ns_type;
	__u64 user_ns_id;
};

static const struct walk walks[] = {
	{ "unified", 0, 0 },
	{ "net tree", NET_NS, 0 },
	{ "uts tree", UTS_NS, 0 },
	{ "unified, two types", NET_NS | UTS_NS, 0 },
	{ "owner init", 0, USER_NS_INIT_ID },
	{ "owner current", 0, LISTNS_CURRENT_USER },
};

#define NR_WALKS ARRAY_SIZE(walks)

static long walk_list(const struct walk *w, __u64 ns_id, __u64 *out,
		      size_t max)
{
	return list_ids(ns_id, w->ns_type, w->user_ns_id, out, max);
}

/* ENOENT, and the guarded buffer untouched. */
static bool walk_enoent(const struct walk *w, __u64 ns_id)
{
	struct ns_id_req req = mkreq(ns_id, w->ns_type, w->user_ns_id);
	struct gbuf g = {};
	bool ok;
	long ret;

	if (gbuf_init(&g, 1))
		return false;
	ret = listns_ret(&req, g.data, 16, 0);
	ok = ret == -ENOENT && gbuf_untouched(&g);
	if (!ok)
		fprintf(stderr, "# %s walk, ns_id %llu: got %ld, want -ENOENT\n",
			w->name, (unsigned long long)ns_id, ret);
	gbuf_fini(&g);
	return ok;
}

TEST(resume_never_issued_id_enoent)
{
	for (size_t i = 0; i < NR_WALKS; i++)
		ASSERT_TRUE(walk_enoent(&walks[i], NEVER_ISSUED_ID));
}

/* ns_id + 1 == UINT64_MAX: nothing is that high. */
TEST(resume_u64_max_minus_1_enoent)
{
	for (size_t i = 0; i < NR_WALKS; i++)
		ASSERT_TRUE(walk_enoent(&walks[i], UINT64_MAX - 1));
}

/* Nothing is above UINT64_MAX (7.2 wrapped to a walk from the start). */
TEST(resume_u64_max_enoent)
{
	for (size_t i = 0; i < NR_WALKS; i++)
		ASSERT_TRUE(walk_enoent(&walks[i], UINT64_MAX));
}

/* Several ns_type bits filter the unified walk; one bit walks its tree. */
static bool walks_unified_filtered(const struct walk *w)
{
	return !w->user_ns_id && __builtin_popcount(w->ns_type) > 1;
}

/*
 * The last listed id has no active successor in the walked tree: ENOENT,
 * not an empty list. (Not so for a walk filtered by several types, see
 * resume_after_last_of_types_is_empty.)
 */
TEST(resume_after_last_enoent)
{
	static __u64 ref[MAX_NS];

	for (size_t i = 0; i < NR_WALKS; i++) {
		long nref = walk_list(&walks[i], 0, ref, MAX_NS);

		if (walks_unified_filtered(&walks[i]))
			continue;
		ASSERT_GE(nref, 1);
		ASSERT_TRUE(walk_enoent(&walks[i], ref[nref - 1]));
	}
}

/*
 * ns_type NET|UTS walks the unified tree: after the last net x, the next
 * namespace there is y, an active ipc namespace, so the resume point is
 * found and the filtered walk lists nothing: 0, not ENOENT. After y,
 * ENOENT.
 */
TEST(resume_after_last_of_types_is_empty)
{
	__u64 x = 0, y = 0, got[16];
	int xfd, yfd;

	xfd = make_fd_held_ns(CLONE_NEWNET, "net", &x);
	ASSERT_GE(xfd, 0);
	yfd = make_fd_held_ns(CLONE_NEWIPC, "ipc", &y);
	ASSERT_GE(yfd, 0);
	ASSERT_GT(y, x);

	ASSERT_EQ(1, list_ids(x - 1, NET_NS | UTS_NS, 0, got, 16));
	ASSERT_EQ(x, got[0]);
	ASSERT_EQ(0, list_ids(x, NET_NS | UTS_NS, 0, got, 16));
	ASSERT_EQ(-ENOENT, list_ids(y, NET_NS | UTS_NS, 0, got, 16));
	/* The net tree has nothing after x. */
	ASSERT_EQ(-ENOENT, list_ids(x, NET_NS, 0, got, 16));
	close(yfd);
	close(xfd);
}

/*
 * Resuming after each listed id gives exactly the rest of the list, and
 * pages of one, two and three ids put the whole list back together.
 */
TEST(resume_paginates_exactly)
{
	static __u64 ref[MAX_NS], got[MAX_NS], page[3];

	for (size_t i = 0; i < NR_WALKS; i++) {
		const struct walk *w = &walks[i];
		long nref = walk_list(w, 0, ref, MAX_NS);

		ASSERT_GE(nref, 1);
		for (long k = 0; k + 1 < nref; k++) {
			long n = walk_list(w, ref[k], got, MAX_NS);

			ASSERT_TRUE(ids_equal(w->name, got, n, ref + k + 1,
					      nref - k - 1));
		}
		for (size_t per = 1; per <= 3; per++) {
			long have = 0, n;
			__u64 last = 0;

			for (;;) {
				n = walk_list(w, last, page, per);
				/*
				 * The end: ENOENT, or for a walk filtered by
				 * several types also 0 when the namespace
				 * after the last one listed is active.
				 */
				if (have == nref && (n == -ENOENT ||
				    (!n && walks_unified_filtered(w))))
					break;
				ASSERT_GT(n, 0);
				ASSERT_LE(n, per);
				ASSERT_LE(have + n, nref);
				ASSERT_TRUE(ids_equal(w->name, page, n,
						      ref + have, n));
				have += n;
				last = page[n - 1];
			}
		}
	}
}

/* A resume point of another type: the type tree is entered at its id. */
TEST(resume_point_of_other_type)
{
	static __u64 nets[MAX_NS], got[MAX_NS];
	long n_nets = list_ids(0, NET_NS, 0, nets, MAX_NS), n;

	ASSERT_GE(n_nets, 1);
	ASSERT_EQ(NET_NS_INIT_ID, nets[0]);
	/* The uts ns 2 sorts before init_net (7): all nets follow it. */
	n = list_ids(UTS_NS_INIT_ID, NET_NS, 0, got, MAX_NS);
	ASSERT_TRUE(ids_equal("nets after uts 2", got, n, nets, n_nets));
	/* mnt 8 sorts after init_net: only the nets created later. */
	if (n_nets > 1) {
		n = list_ids(MNT_NS_INIT_ID, NET_NS, 0, got, MAX_NS);
		ASSERT_TRUE(ids_equal("nets after mnt 8", got, n, nets + 1,
				      n_nets - 1));
	}
}

/* The newest namespace, destroyed: nothing follows its id. */
TEST(resume_destroyed_newest_enoent)
{
	__u64 x = make_destroyed_ns(CLONE_NEWUTS, "uts");

	ASSERT_NE(0, x);
	for (size_t i = 0; i < NR_WALKS; i++)
		ASSERT_TRUE(walk_enoent(&walks[i], x));
}

/* A destroyed namespace followed by an active one resumes normally. */
TEST(resume_destroyed_then_active)
{
	__u64 x, y = 0, got[16];
	int yfd;
	long n;

	x = make_destroyed_ns(CLONE_NEWUTS, "uts");
	ASSERT_NE(0, x);
	yfd = make_fd_held_ns(CLONE_NEWNET, "net", &y);
	ASSERT_GE(yfd, 0);
	ASSERT_GT(y, x);

	for (size_t i = 0; i < NR_WALKS; i++) {
		const struct walk *w = &walks[i];

		if (w->ns_type == UTS_NS) {
			/* Nothing in the uts tree after x. */
			ASSERT_TRUE(walk_enoent(w, x));
			continue;
		}
		n = walk_list(w, x, got, 16);
		ASSERT_TRUE(ids_equal(w->name, got, n, &y, 1));
	}
	close(yfd);
}

/*
 * x destroyed, y inactive but still in the tree (a socket holds it), z
 * active: the first namespace after x in the unified, net and owner trees
 * is y, which is skipped like any inactive namespace, and the walk goes on
 * to z. The net tree has nothing active after x: an empty list, not
 * ENOENT, since y is there. The uts tree has z right after x.
 * (On 7.2 the inactive first namespace ended the walk with ENOENT.)
 */
TEST(resume_next_inactive_skipped)
{
	__u64 x, y = 0, z = 0, got[16], ref[MAX_NS];
	int ysock, zfd;
	long n;

	x = make_destroyed_ns(CLONE_NEWUTS, "uts");
	ASSERT_NE(0, x);
	ysock = make_socket_pinned_netns(&y);
	ASSERT_GE(ysock, 0);
	zfd = make_fd_held_ns(CLONE_NEWUTS, "uts", &z);
	ASSERT_GE(zfd, 0);
	ASSERT_GT(y, x);
	ASSERT_GT(z, y);

	/* Without a resume point: z listed, y not. */
	n = list_ids(0, 0, 0, ref, MAX_NS);
	ASSERT_GE(n, 2);
	ASSERT_EQ(z, ref[n - 1]);
	ASSERT_FALSE(ids_contain(ref, n, y));

	for (size_t i = 0; i < NR_WALKS; i++) {
		const struct walk *w = &walks[i];

		if (w->ns_type == NET_NS) {
			/* y is the only net after x, and inactive. */
			ASSERT_EQ(0, walk_list(w, x, got, 16));
			/* Nothing at all after y in the net tree. */
			ASSERT_TRUE(walk_enoent(w, y));
			continue;
		}
		n = walk_list(w, x, got, 16);
		ASSERT_TRUE(ids_equal(w->name, got, n, &z, 1));
		if (w->ns_type == UTS_NS)
			continue;
		/* After y itself, z is next. */
		n = walk_list(w, y, got, 16);
		ASSERT_TRUE(ids_equal(w->name, got, n, &z, 1));
	}
	close(zfd);
	close(ysock);
}

/*
 * The first namespace after the resume point is dying: x and z are held
 * by nsfs fds, y is a net namespace whose last reference has just been
 * dropped. A net namespace leaves the trees only in cleanup_net(), from a
 * workqueue, so for a while y is on the trees with no reference at all.
 * 7.3 skips it like any inactive namespace (7.2 failed to take a
 * reference on it and returned ENOENT). Repeated, so that some rounds
 * resume while y is dying; every round must list exactly z.
 */
TEST(resume_next_dying_skipped)
{
	__u64 x = 0, y = 0, z = 0, got[16];
	int xfd, yfd, zfd;
	long n;

	for (int round = 0; round < 50; round++) {
		xfd = make_fd_held_ns(CLONE_NEWUTS, "uts", &x);
		ASSERT_GE(xfd, 0);
		yfd = make_fd_held_ns(CLONE_NEWNET, "net", &y);
		ASSERT_GE(yfd, 0);
		zfd = make_fd_held_ns(CLONE_NEWUTS, "uts", &z);
		ASSERT_GE(zfd, 0);
		ASSERT_GT(y, x);
		ASSERT_GT(z, y);

		close(yfd);	/* y's last reference: cleanup_net() queued */
		n = list_ids(x, 0, 0, got, 16);
		ASSERT_TRUE(ids_equal("unified after x", got, n, &z, 1));
		n = list_ids(x, NET_NS | UTS_NS, 0, got, 16);
		ASSERT_TRUE(ids_equal("net|uts after x", got, n, &z, 1));
		n = list_ids(x, 0, USER_NS_INIT_ID, got, 16);
		ASSERT_TRUE(ids_equal("owner init after x", got, n, &z, 1));
		close(zfd);
		close(xfd);
	}
}

/* Several namespaces of one type, paginated in that type's tree. */
TEST(resume_type_tree_pagination)
{
	__u64 made[3], got[16];
	int fds[3];
	long n;

	for (int i = 0; i < 3; i++) {
		fds[i] = make_fd_held_ns(CLONE_NEWIPC, "ipc", &made[i]);
		ASSERT_GE(fds[i], 0);
	}
	/* ipc 1 is the first of its tree; ours follow in creation order. */
	n = list_ids(IPC_NS_INIT_ID, IPC_NS, 0, got, 16);
	ASSERT_GE(n, 3);
	ASSERT_TRUE(ids_equal("last ipcs", got + n - 3, 3, made, 3));
	for (int i = 0; i < 2; i++) {
		n = list_ids(made[i], IPC_NS, 0, got, 1);
		ASSERT_TRUE(ids_equal("next ipc", got, n, &made[i + 1], 1));
	}
	ASSERT_EQ(-ENOENT, list_ids(made[2], IPC_NS, 0, got, 1));
	for (int i = 0; i < 3; i++)
		close(fds[i]);
}

TEST_HARNESS_MAIN
