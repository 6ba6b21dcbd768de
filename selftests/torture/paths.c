// SPDX-License-Identifier: GPL-2.0
/*
 * nstorture's path walker (-P N, nstree.torture_paths=N; one unless
 * told): the kernel paths into the namespace tree that listns() does
 * not take, while the storm (storm.c) frees mount namespaces around them.
 * Each has a check family of its own:
 *
 * CK_MNTWALK: NS_MNT_GET_NEXT and NS_MNT_GET_PREV.  From the stormer's
 * newest mount namespace (/proc/STORMER/ns/mnt; its own without a
 * storm), a few steps back and a few forward.  Each step is
 * get_sequential_mnt_ns() (7.3 fs/namespace.c): ns_tree_adjoined_rcu()
 * from the current node, which may be one the storm is freeing, skipping
 * the dying, and an fd of the first namespace it can take a reference
 * on.  The ids must move strictly in the walk's direction, never be 0 or
 * above what was issued, and the fd must be of that mount namespace
 * (NS_GET_ID, NS_GET_NSTYPE); the only error is ENOENT, the end of the
 * tree.  The fd brings a namespace the writers made inactive back to life
 * (nsfs_init_inode(): __ns_ref_active_get(), up its owners), so while a
 * step is in flight, mount and user namespaces are not "provably
 * inactive" for the other checks (sh->wild_*, inactive_since()); the
 * walker takes its next steps four times as long after as they took, and
 * does the rest meanwhile, so that most walks keep those checks whole.
 *
 * CK_MNTID: listmount() and statmount() by mnt_ns_id (7.3 fs/namespace.c
 * lookup_mnt_ns(): ns_tree_lookup_rcu(), then a passive reference, no
 * resurrection) of mount namespaces just listed near the storm's newest,
 * or of the ids there, whatever they are now: either there is no such
 * mount namespace (ENOENT) or listmount() returns at most the slots given
 * and statmount() of its first mount says the same mnt_ns_id.
 *
 * CK_UFFD: listns() into a buffer whose tail is a userfaultfd-registered
 * page not yet present: the kernel's copy of the ids to user space
 * faults and waits for this process's handler thread, which lets the
 * storm run for 0 to 3 ms before it supplies the page (a page of
 * canaries).  The walk holds its place across that copy: the C walk a
 * reference on the namespace it stands on, for every id; the Rust walk,
 * which copies 64 ids at a time, its Held cursor when more than 64 are
 * asked (two of the three kinds of these walks).  The ids must be what
 * any page must be (ascending after the resume id, no 0, issued), and no
 * slot past the returned count written.
 */
#include "nstorture.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/mount.h>
#include <linux/nsfs.h>
#include <linux/userfaultfd.h>

#define PAGE 4096UL

/* A window in which this walker's fds may hold namespaces active. */
static void wild_begin(void)
{
	atomic_fetch_add(&sh->wild_open, 1);
}

static void wild_end(void)
{
	atomic_store(&sh->wild_end, clock_tick());
	atomic_fetch_sub(&sh->wild_open, 1);
}

/* The newest mount namespace the storm made, or our own, as an fd. */
static int start_fd(void)
{
	char path[64];
	pid_t pid = atomic_load(&sh->stormer_pid);
	int fd = -1;

	if (pid > 0) {
		snprintf(path, sizeof(path), "/proc/%d/ns/mnt", pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	return fd;
}

/* One step: NS_MNT_GET_NEXT/PREV from @fd; the new fd, or -1 at the end. */
static int mnt_step(int fd, bool previous, uint64_t *prev_id)
{
	struct mnt_ns_info info;
	const char *dir = previous ? "NS_MNT_GET_PREV" : "NS_MNT_GET_NEXT";
	uint64_t got, bound;
	int nfd, type;

	memset(&info, 0xa5, sizeof(info));
	nfd = ioctl(fd, previous ? NS_MNT_GET_PREV : NS_MNT_GET_NEXT, &info);
	count_op(OP_MNTWALK, 1);
	if (nfd < 0) {
		if (errno != ENOENT)
			fail(CK_MNTWALK, "%s from mount ns %llu: %s", dir,
			     (unsigned long long)*prev_id, strerror(errno));
		else
			pass(CK_MNTWALK, 1);
		return -1;
	}
	bound = id_bound();
	got = ns_id_of_fd(nfd);
	type = ioctl(nfd, NS_GET_NSTYPE);
	if (info.size != sizeof(info))
		fail(CK_MNTWALK, "%s from %llu: info.size %u, not %zu", dir,
		     (unsigned long long)*prev_id, info.size, sizeof(info));
	else if (!info.mnt_ns_id)
		fail(CK_MNTWALK, "%s from %llu: mnt_ns_id 0", dir,
		     (unsigned long long)*prev_id);
	else if (previous ? info.mnt_ns_id >= *prev_id : info.mnt_ns_id <= *prev_id)
		fail(CK_MNTWALK, "%s from %llu: mnt_ns_id %#llx, not %s", dir,
		     (unsigned long long)*prev_id, (unsigned long long)info.mnt_ns_id,
		     previous ? "below" : "above");
	else if (info.mnt_ns_id > bound)
		fail(CK_MNTWALK, "%s from %llu: mnt_ns_id %#llx, but no id above %llu was issued",
		     dir, (unsigned long long)*prev_id, (unsigned long long)info.mnt_ns_id,
		     (unsigned long long)bound);
	else if (got != info.mnt_ns_id || type != CLONE_NEWNS)
		fail(CK_MNTWALK, "%s from %llu: mnt_ns_id %llu, but its fd is of ns %llu, type %#x",
		     dir, (unsigned long long)*prev_id, (unsigned long long)info.mnt_ns_id,
		     (unsigned long long)got, type);
	else
		pass(CK_MNTWALK, 1);
	*prev_id = info.mnt_ns_id;
	return nfd;
}

/* A few steps back from the start, then a few forward from there. */
static void mnt_walk(struct rng *r)
{
	uint64_t id;
	int fd, back = 1 + rnd(r, 6), fwd = 1 + rnd(r, 6);

	wild_begin();
	fd = start_fd();
	if (fd < 0) {
		fail(CK_ERRNO, "path walker: open a mount namespace: %s", strerror(errno));
		wild_end();
		return;
	}
	id = ns_id_of_fd(fd);
	if (!id) {
		fail(CK_IOCTL, "path walker: NS_GET_ID of the start: %s", strerror(errno));
		close(fd);
		wild_end();
		return;
	}
	for (int dir = 0; dir < 2 && fd >= 0; dir++) {
		uint64_t prev = id;

		for (int i = 0; i < (dir ? fwd : back); i++) {
			int nfd = mnt_step(fd, !dir, &prev);

			if (nfd < 0)
				break;
			close(fd);
			fd = nfd;
		}
		id = prev;
	}
	if (fd >= 0)
		close(fd);
	wild_end();
}

/* Mount namespaces near the storm's newest (or all of them), up to @nr. */
static long near_storm(struct rng *r, uint64_t *ids, size_t nr, uint64_t *resume)
{
	struct ns_id_req req;

	*resume = storm_resume(r);
	req = mkreq(*resume, CLONE_NEWNS, 0);
	return listns_ret(&req, ids, nr, 0);
}

/*
 * Half of the time the mount namespaces just listed near the storm's
 * newest; else the ids right after a point just below it, whatever they
 * are now: mostly mount namespaces the storm has freed (ENOENT), or
 * namespaces of other types (ENOENT: a lookup in the mount namespace
 * tree), or live mount namespaces.
 */
static void mntid_check(struct rng *r)
{
	uint64_t ids[4], list[32], resume;
	long n;

	if (chance(r, 50)) {
		n = near_storm(r, ids, ARRAY_SIZE(ids), &resume);
		if (n < 0) {
			if (n != -ENOENT)
				fail(CK_ERRNO, "path walker: listns(mnt, from %llu): %s",
				     (unsigned long long)resume, strerror(-n));
			return;
		}
	} else {
		resume = storm_resume(r);
		n = ARRAY_SIZE(ids);
		for (long i = 0; i < n; i++)
			ids[i] = resume + 1 + i;
	}
	for (long i = 0; i < n; i++) {
		struct mnt_id_req req = {
			.size = MNT_ID_REQ_SIZE_VER1,
			.mnt_id = LSMT_ROOT,
			.mnt_ns_id = ids[i],
		};
		union {
			struct statmount sm;
			char buf[512];
		} u;
		long k;

		for (size_t j = 0; j < ARRAY_SIZE(list); j++)
			list[j] = CANARY64;
		k = syscall(__NR_listmount, &req, list, ARRAY_SIZE(list) - 2, 0);
		count_op(OP_MNTID, 1);
		if (k < 0) {
			if (errno != ENOENT)
				fail(CK_MNTID, "listmount(mnt_ns_id %llu): %s",
				     (unsigned long long)ids[i], strerror(errno));
			else
				pass(CK_MNTID, 1);
			continue;
		}
		if ((size_t)k > ARRAY_SIZE(list) - 2 || list[ARRAY_SIZE(list) - 2] != CANARY64 ||
		    list[ARRAY_SIZE(list) - 1] != CANARY64) {
			fail(CK_MNTID, "listmount(mnt_ns_id %llu, %zu slots): %ld, or wrote past them",
			     (unsigned long long)ids[i], ARRAY_SIZE(list) - 2, k);
			continue;
		}
		pass(CK_MNTID, 1);
		if (!k)
			continue;
		req.mnt_id = list[0];
		req.param = STATMOUNT_MNT_NS_ID;
		memset(&u, 0, sizeof(u));
		if (syscall(__NR_statmount, &req, &u.sm, sizeof(u), 0)) {
			if (errno != ENOENT)
				fail(CK_MNTID, "statmount(mount %llu, mnt_ns_id %llu): %s",
				     (unsigned long long)list[0], (unsigned long long)ids[i],
				     strerror(errno));
			else
				pass(CK_MNTID, 1);
		} else if (!(u.sm.mask & STATMOUNT_MNT_NS_ID) || u.sm.mnt_ns_id != ids[i]) {
			fail(CK_MNTID, "statmount(mount %llu, mnt_ns_id %llu): mask %#llx, mnt_ns_id %llu",
			     (unsigned long long)list[0], (unsigned long long)ids[i],
			     (unsigned long long)u.sm.mask, (unsigned long long)u.sm.mnt_ns_id);
		} else {
			pass(CK_MNTID, 1);
		}
	}
}

/* The userfaultfd area: page 0 present, page 1 registered, missing. */
static uint64_t *uf_area;
static int uffd = -1;
static _Atomic unsigned int uf_stall_us;

static void *uffd_handler(void *arg)
{
	static uint64_t canaries[PAGE / sizeof(uint64_t)] __attribute__((aligned(4096)));

	for (size_t i = 0; i < ARRAY_SIZE(canaries); i++)
		canaries[i] = CANARY64;
	for (;;) {
		struct pollfd p = { .fd = uffd, .events = POLLIN };
		struct uffd_msg msg;
		struct uffdio_copy copy;

		if (poll(&p, 1, -1) < 0 || read(uffd, &msg, sizeof(msg)) != sizeof(msg))
			continue;
		if (msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		/* The kernel waits in its copy to user space: let the storm run. */
		usleep(atomic_load(&uf_stall_us));
		count_op(OP_UFFD_STALL, 1);
		copy = (struct uffdio_copy){
			.dst = msg.arg.pagefault.address & ~(PAGE - 1),
			.src = (unsigned long)canaries,
			.len = PAGE,
		};
		if (ioctl(uffd, UFFDIO_COPY, &copy) && errno != EEXIST)
			fail(CK_UFFD, "UFFDIO_COPY: %s", strerror(errno));
	}
	return arg;
}

static bool uffd_setup(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	pthread_t t;

	uf_area = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (uf_area == MAP_FAILED) {
		fail(CK_ERRNO, "path walker: mmap: %s", strerror(errno));
		return false;
	}
	uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api)) {
		fail(CK_ERRNO, "path walker: userfaultfd: %s", strerror(errno));
		return false;
	}
	reg = (struct uffdio_register){
		.range = { .start = (unsigned long)uf_area + PAGE, .len = PAGE },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	if (ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		fail(CK_ERRNO, "path walker: UFFDIO_REGISTER: %s", strerror(errno));
		return false;
	}
	errno = pthread_create(&t, NULL, uffd_handler, NULL);
	if (errno) {
		fail(CK_ERRNO, "path walker: pthread_create: %s", strerror(errno));
		return false;
	}
	return true;
}

/*
 * Three kinds: all namespaces, or all mount namespaces, from the start,
 * with more than the Rust walk's batch of 64 ids asked and the fault
 * within the first 64 (the walk holds its place, Held, while the copy of
 * its first batch waits); and mount namespaces from just below the
 * storm's newest, a few ids, the fault within the first four.
 */
static void uffd_walk(struct rng *r)
{
	const size_t slots = PAGE / sizeof(uint64_t), guard = 4;
	int kind = rnd(r, 3);
	size_t k = kind == 2 ? rnd(r, 4) : rnd(r, 64);
	size_t nr = kind == 2 ? k + 1 + rnd(r, 8) : 65 + rnd(r, 64);
	uint64_t *buf = uf_area + slots - k, resume = 0, prev, bound;
	const char *what = kind == 0 ? "all" : "mnt";
	struct ns_id_req req;
	long ret;

	/* Page 1 missing again: the copy of id k faults. */
	if (madvise(uf_area + slots, PAGE, MADV_DONTNEED))
		fail(CK_ERRNO, "path walker: madvise: %s", strerror(errno));
	for (size_t i = 0; i < k; i++)
		buf[i] = CANARY64;
	atomic_store(&uf_stall_us, rnd(r, 3000));
	if (kind == 2)
		resume = storm_resume(r);
	req = mkreq(resume, kind == 0 ? 0 : CLONE_NEWNS, 0);
	ret = listns_ret(&req, buf, nr, 0);
	count_op(OP_UFFD_WALK, 1);
	if (ret < 0) {
		/* ENOENT: nothing after the resume id. */
		if (ret != -ENOENT || !resume)
			fail(CK_UFFD, "listns(%s, from %llu, %zu slots, from slot %zu on a userfaultfd page): %s",
			     what, (unsigned long long)resume, nr, k, strerror(-ret));
		else
			pass(CK_UFFD, 1);
		return;
	}
	if ((size_t)ret > nr) {
		fail(CK_UFFD, "listns(%zu slots) into a userfaultfd page returned %ld", nr, ret);
		return;
	}
	/*
	 * The slots after the returned ones: canaries (reading one on a page
	 * the kernel did not reach faults it in, with canaries, here).
	 */
	for (size_t i = ret; i < nr + guard; i++)
		if (buf[i] != CANARY64) {
			fail(CK_UFFD, "listns(%zu slots) into a userfaultfd page returned %ld ids but slot %zu is %#llx",
			     nr, ret, i, (unsigned long long)buf[i]);
			return;
		}
	bound = id_bound();
	prev = resume;
	for (long i = 0; i < ret; i++) {
		if (!buf[i] || buf[i] <= prev || buf[i] > bound) {
			fail(CK_UFFD, "listns(%s, from %llu) into a userfaultfd page (from slot %zu): id %#llx at index %ld of %ld after %#llx (highest issued %llu)",
			     what, (unsigned long long)resume, k, (unsigned long long)buf[i], i,
			     ret, (unsigned long long)prev, (unsigned long long)bound);
			return;
		}
		prev = buf[i];
	}
	pass(CK_UFFD, 1);
}

void path_walker_main(int idx, int slot)
{
	uint64_t next_mnt = 0;
	struct rng r;
	bool uf;

	my_name = "path-walker";
	my_slot = slot;
	rng_init(&r, sh->seed, 4000 + idx);
	uf = uffd_setup();
	while (!stopping()) {
		/*
		 * The NS_MNT_GET_NEXT/PREV steps at most a fifth of the time
		 * (see above): the next ones four times their time later.
		 */
		if (now_ms() >= next_mnt) {
			uint64_t t0 = now_ms();

			mnt_walk(&r);
			next_mnt = now_ms() + 4 * (now_ms() - t0) + 1;
		} else {
			uint64_t t0 = now_ms();

			if (!uf || chance(&r, 50))
				mntid_check(&r);
			else
				uffd_walk(&r);
			/*
			 * Half of the time: the walker takes a vCPU from the
			 * storm otherwise (at seed 1 on the 7.3 C base kernel,
			 * always busy, it cost the readers and storm walkers
			 * 40% of their walks).
			 */
			usleep(1000 * (now_ms() - t0) + 100);
		}
	}
	_exit(0);
}
