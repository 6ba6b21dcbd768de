// SPDX-License-Identifier: GPL-2.0
/*
 * nstorture's storm (-S N, nstree.torture_storm=N; N = 2 unless told):
 * a targeted mode for the window between a namespace's removal from the
 * tree and the end of its RCU grace period.
 *
 * One stormer, pinned to CPU 0, creates and frees mount namespaces as fast
 * as it can: unshare(CLONE_NEWNS), NS_GET_ID of the new one, setns() back
 * to the one it started in.  The setns() drops the new namespace's last
 * reference: it leaves the tree and its memory is handed to RCU
 * (7.3 fs/namespace.c free_mnt_ns(): mnt_ns_tree_remove(), then
 * call_rcu()).  N storm walkers, pinned to the other CPUs, list mount
 * namespaces with back-to-back listns() calls of 1 to 4 ids from just
 * below the newest id the stormer made, so that nearly every walk passes
 * the namespaces being freed, and open nothing.  A walker the host
 * deschedules in the middle of a walk (TCG: each vCPU is a host thread,
 * and a torture guest has more vCPUs than the host has cores) stands on a
 * node while the stormer frees it.
 *
 * What a walker checks is what the other walkers check on every page
 * (CK_ZERO, CK_ORDER, CK_ISSUED, CK_BOUNDS, CK_ERRNO): a namespace whose
 * id or active count an RCU callback overwrote too early (the 7.2 layout,
 * where ns_rcu shared a union with ns_id and __ns_ref_active) lists as 0,
 * as a kernel pointer, or out of order.
 */
#include "nstorture.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/nsfs.h>

#define STORM_PAGE_MAX 4
#define STORM_GUARD 4

static void pin(int cpu)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	if (cpus < 1)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu % cpus, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		note("%s: sched_setaffinity(%d): %s", my_name, cpu, strerror(errno));
}

static uint64_t mnt_id_self(void)
{
	int fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	uint64_t id = 0;

	if (fd < 0) {
		fail(CK_ERRNO, "%s: open /proc/self/ns/mnt: %s", my_name, strerror(errno));
		return 0;
	}
	if (ioctl(fd, NS_GET_ID, &id))
		fail(CK_IOCTL, "%s: NS_GET_ID of its mount namespace: %s", my_name,
		     strerror(errno));
	else if (!id)
		fail(CK_IOCTL, "%s: NS_GET_ID of its mount namespace: id 0", my_name);
	else
		pass(CK_IOCTL, 1);
	close(fd);
	return id;
}

void stormer_main(int idx, int slot)
{
	int home;

	my_name = "stormer";
	my_slot = slot;
	pin(0);
	home = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	if (home < 0) {
		fail(CK_ERRNO, "stormer: open /proc/self/ns/mnt: %s", strerror(errno));
		_exit(1);
	}
	while (!stopping()) {
		uint64_t id;

		creating(1);
		if (unshare(CLONE_NEWNS)) {
			creating(-1);
			fail(CK_ERRNO, "stormer: unshare(CLONE_NEWNS): %s", strerror(errno));
			break;
		}
		pass(CK_ERRNO, 1);
		id = mnt_id_self();
		seen_id(id);
		creating(-1);
		if (id)
			atomic_store_explicit(&sh->storm_last, id, memory_order_relaxed);
		/* Its last reference: off the tree, to RCU. */
		if (setns(home, CLONE_NEWNS)) {
			fail(CK_ERRNO, "stormer: setns back: %s", strerror(errno));
			break;
		}
		count_op(OP_STORM, 1);
	}
	close(home);
	(void)idx;
	_exit(0);
}

/*
 * A resume id just below the newest mount namespace the stormer made (up
 * to 8 below), so that a walk from it passes the namespaces being freed;
 * 0 (from the start) before the storm has made any.
 */
uint64_t storm_resume(struct rng *r)
{
	uint64_t last = atomic_load_explicit(&sh->storm_last, memory_order_relaxed);

	return last > 8 ? last - 1 - rnd(r, 8) : 0;
}

void storm_walker_main(int idx, int slot)
{
	static uint64_t buf[STORM_PAGE_MAX + STORM_GUARD];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct rng r;
	char name[24];

	snprintf(name, sizeof(name), "storm-walker%d", idx);
	my_name = strdup(name);
	my_slot = slot;
	rng_init(&r, sh->seed, 3000 + idx);
	pin(cpus > 1 ? 1 + idx % (cpus - 1) : 0);
	while (!stopping()) {
		uint64_t resume = storm_resume(&r), prev = resume, bound;
		size_t page = 1 + rnd(&r, STORM_PAGE_MAX);
		struct ns_id_req req = mkreq(resume, CLONE_NEWNS, 0);
		bool bad;
		long ret;

		for (size_t i = 0; i < page + STORM_GUARD; i++)
			buf[i] = CANARY64;
		ret = listns_ret(&req, buf, page, 0);
		count_op(OP_STORM_WALK, 1);
		if (ret < 0) {
			/* ENOENT: nothing after the resume id (7.3 returns 0). */
			if (ret != -ENOENT)
				fail(CK_ERRNO, "%s: listns(mnt, from %llu, %zu): %s", my_name,
				     (unsigned long long)resume, page, strerror(-ret));
			continue;
		}
		if ((size_t)ret > page) {
			fail(CK_BOUNDS, "%s: listns(page %zu) returned %ld", my_name, page, ret);
			continue;
		}
		for (size_t i = ret; i < page + STORM_GUARD; i++)
			if (buf[i] != CANARY64) {
				fail(CK_BOUNDS, "%s: listns(page %zu) returned %ld ids but wrote slot %zu (%#llx)",
				     my_name, page, ret, i, (unsigned long long)buf[i]);
				break;
			}
		pass(CK_BOUNDS, 1);
		bound = id_bound();
		bad = false;
		for (long i = 0; i < ret; i++) {
			uint64_t id = buf[i];

			bad = true;
			if (!id)
				fail(CK_ZERO, "%s: mount namespaces from %llu, page of %zu: id 0 at index %ld of %ld",
				     my_name, (unsigned long long)resume, page, i, ret);
			else if (id <= prev)
				fail(CK_ORDER, "%s: mount namespaces from %llu, page of %zu: id %#llx at index %ld after %#llx",
				     my_name, (unsigned long long)resume, page,
				     (unsigned long long)id, i, (unsigned long long)prev);
			else if (id > bound)
				fail(CK_ISSUED, "%s: mount namespaces from %llu, page of %zu: id %#llx at index %ld, but no id above %llu was issued",
				     my_name, (unsigned long long)resume, page,
				     (unsigned long long)id, i, (unsigned long long)bound);
			else
				bad = false;
			if (bad)
				break;
			prev = id;
		}
		if (!bad && ret) {
			pass(CK_ZERO, ret);
			pass(CK_ORDER, ret);
			pass(CK_ISSUED, ret);
		}
		count_op(OP_STORM_ID, ret);
	}
	_exit(0);
}
