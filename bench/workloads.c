// SPDX-License-Identifier: GPL-2.0
/*
 * nsbench: the measured operations.  Each run() does iters ops and
 * reports the elapsed CLOCK_MONOTONIC time and what one op found.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/nsfs.h>

#include "nsbench.h"
#include "workloads.h"

#ifndef FD_NSFS_ROOT
#define FD_NSFS_ROOT -10003 /* linux/fcntl.h, which clashes with glibc */
#endif

/* A listns() of the whole selection into one buffer. */
static int run_listns(struct ctx *c, const struct workload *w, long iters,
		      uint64_t *el, long *count)
{
	__u64 owner = w->arg == ARG_OWNER ? c->pop->userns_id[OWNER_LEVEL] : 0;
	__u32 type = w->arg == ARG_OWNER ? 0 : w->arg;
	uint64_t t0 = now_ns();
	long i, r = 0;

	for (i = 0; i < iters; i++) {
		r = sys_listns(type, owner, 0, c->ids, c->ids_cap);
		if (r < 0)
			return -errno;
	}
	*el = now_ns() - t0;
	*count = r;
	return 0;
}

/*
 * listns() of all namespaces, one call, by the driver pinned to CPU 0,
 * while the churn server, pinned to CPU 1, creates and destroys UTS
 * namespaces (churn.c).  The churner is started before and stopped after
 * the timed calls; c->churn_ops is how many namespaces it churned during
 * them (the caller reports it, and fails the run if it is 0).
 */
static int run_listns_churn(struct ctx *c, const struct workload *w, long iters,
			    uint64_t *el, long *count)
{
	cpu_set_t old, cpu0;
	long i, r = 0, ops0, ops1, total;
	uint64_t t0, bg_el;
	int err, err2;

	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (sched_getaffinity(0, sizeof(old), &old) || sched_setaffinity(0, sizeof(cpu0), &cpu0))
		return -errno;
	err = churn_bg_start(1);
	if (!err) {
		ops0 = churn_bg_ops();
		t0 = now_ns();
		for (i = 0; i < iters; i++) {
			r = sys_listns(0, 0, 0, c->ids, c->ids_cap);
			if (r < 0) {
				err = -errno;
				break;
			}
		}
		*el = now_ns() - t0;
		ops1 = churn_bg_ops();
		err2 = churn_bg_stop(&total, &bg_el);
		if (!err)
			err = err2;
		c->churn_ops = ops1 - ops0;
	}
	if (sched_setaffinity(0, sizeof(old), &old) && !err)
		err = -errno;
	*count = r;
	return err;
}

/*
 * The whole list, page by page, each call resuming after the last id of
 * the previous page.  Resuming after the very last namespace is ENOENT:
 * that is the end too.
 */
long walk_all(long page, __u64 *buf, __u64 *out, long out_cap)
{
	long total = 0, r;
	__u64 after = 0;

	for (;;) {
		r = sys_listns(0, 0, after, buf, page);
		if (r < 0 && errno == ENOENT && after)
			break;
		if (r < 0)
			return -errno;
		if (out && total + r <= out_cap)
			memcpy(out + total, buf, r * sizeof(*buf));
		total += r;
		if (r < page)
			break;
		after = buf[r - 1];
	}
	return total;
}

static int run_walk(struct ctx *c, const struct workload *w, long iters,
		    uint64_t *el, long *count)
{
	uint64_t t0 = now_ns();
	long i, r = 0;

	for (i = 0; i < iters; i++) {
		r = walk_all(w->arg, c->page, NULL, 0);
		if (r < 0)
			return r;
	}
	*el = now_ns() - t0;
	*count = r;
	return 0;
}

int fh_open(__u64 id)
{
	struct {
		unsigned int handle_bytes;
		int handle_type;
		struct nsfs_file_handle h;
	} fh = {
		.handle_bytes = sizeof(struct nsfs_file_handle),
		.handle_type = FILEID_NSFS,
		.h = { .ns_id = id },	/* no type, no inode: by id alone */
	};

	return open_by_handle_at(FD_NSFS_ROOT, (struct file_handle *)&fh, O_RDONLY | O_CLOEXEC);
}

/* One op: open a namespace by id (a pseudo-random one) and close it. */
static int run_fh(struct ctx *c, const struct workload *w, long iters,
		  uint64_t *el, long *count)
{
	uint64_t t0 = now_ns();
	long i;

	for (i = 0; i < iters; i++) {
		int fd = fh_open(c->sample[i % NR_SAMPLE]);

		if (fd < 0)
			return -errno;
		close(fd);
	}
	*el = now_ns() - t0;
	*count = 1;
	return 0;
}

/*
 * Diagnostics: the parts of a listns() call, to tell where a difference
 * between the kernels comes from (the report derives per-part costs).
 *   diag_zero    nr_ns_ids = 0: syscall, request checks, no walk
 *   diag_one     the first namespace only: + one listed entry
 *   diag_resume  one namespace after an id mid-list: + the tree lookup
 *   diag_skip    ns_type = net|pid over the unified list: mostly skipped
 *   diag_unpriv  all types, by a caller that may see only its own
 *                namespaces: nearly all rejected as not visible
 */
static int run_diag(struct ctx *c, const struct workload *w, long iters,
		    uint64_t *el, long *count)
{
	__u32 type = w->arg == DIAG_SKIP ? CLONE_NEWNET | CLONE_NEWPID : 0;
	__u64 after = w->arg == DIAG_RESUME ? c->mid_id : 0;
	size_t nr = w->arg == DIAG_ZERO ? 0 : w->arg == DIAG_SKIP ? c->ids_cap : 1;
	uint64_t t0 = now_ns();
	long i, r = 0;

	for (i = 0; i < iters; i++) {
		r = sys_listns(type, 0, after, c->ids, nr);
		if (r < 0)
			return -errno;
	}
	*el = now_ns() - t0;
	*count = r;
	return 0;
}

static int run_unpriv(struct ctx *c, const struct workload *w, long iters,
		      uint64_t *el, long *count)
{
	return unpriv_listns(iters, c->ids_cap, el, count);
}

/* A file handle for an id no namespace has: the lookup misses (ESTALE). */
static int run_fh_miss(struct ctx *c, const struct workload *w, long iters,
		       uint64_t *el, long *count)
{
	uint64_t t0 = now_ns();
	long i;

	for (i = 0; i < iters; i++) {
		int fd = fh_open(c->miss_id);

		if (fd >= 0 || errno != ESTALE)
			return fd >= 0 ? -EEXIST : -errno;
	}
	*el = now_ns() - t0;
	*count = 0;
	return 0;
}

static const char *const ns_links[] = {
	"ns/cgroup", "ns/ipc", "ns/mnt", "ns/net", "ns/pid", "ns/pid_for_children",
	"ns/time", "ns/time_for_children", "ns/user", "ns/uts",
};

/* The nsfs fds of one process: stat() each of /proc/PID/fd/. */
static void scan_fds(struct ctx *c, int pid_dir, struct idset *set)
{
	struct dirent *de;
	struct stat st;
	int fd_dir;
	DIR *d;

	fd_dir = openat(pid_dir, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd_dir < 0)
		return;
	d = fdopendir(fd_dir);
	if (!d) {
		close(fd_dir);
		return;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (!fstatat(fd_dir, de->d_name, &st, 0) && st.st_dev == c->nsfs_dev)
			idset_add(set, st.st_ino);
	}
	closedir(d);
}

/*
 * What lsns does: every /proc/PID/ns/X, deduplicated by inode number;
 * with w->arg also every open fd (what finds the fd-held namespaces).
 */
static long proc_scan(struct ctx *c, bool fds, struct idset *set)
{
	struct dirent *de;
	struct stat st;
	size_t i;
	DIR *d;

	idset_clear(set);
	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		int pid_dir;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		pid_dir = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (pid_dir < 0)
			continue;	/* exited meanwhile */
		for (i = 0; i < ARRAY_SIZE(ns_links); i++)
			if (!fstatat(pid_dir, ns_links[i], &st, 0))
				idset_add(set, st.st_ino);
		if (fds)
			scan_fds(c, pid_dir, set);
		close(pid_dir);
	}
	closedir(d);
	return set->count;
}

long proc_scan_count(struct ctx *c, bool fds)
{
	return proc_scan(c, fds, fds ? &c->set_all : &c->set_links);
}

static int run_proc(struct ctx *c, const struct workload *w, long iters,
		    uint64_t *el, long *count)
{
	uint64_t t0 = now_ns();
	long i, r = 0;

	for (i = 0; i < iters; i++) {
		r = proc_scan_count(c, w->arg);
		if (r < 0)
			return r;
	}
	*el = now_ns() - t0;
	*count = r;
	return 0;
}

static int run_churn(struct ctx *c, const struct workload *w, long iters,
		     uint64_t *el, long *count)
{
	*count = 1;
	return churn_run(w->arg, iters, el);
}

const struct workload workloads[] = {
	{ "listns_all",   run_listns, 0 },
	{ "listns_type",  run_listns, CLONE_NEWUTS },
	{ "listns_owner", run_listns, ARG_OWNER },
	{ "walk_p1024",   run_walk,   1024 },
	{ "walk_p16",     run_walk,   16 },
	{ "walk_p1",      run_walk,   1 },
	{ "fh_open",      run_fh,     0 },
	{ "diag_zero",    run_diag,   DIAG_ZERO },
	{ "diag_one",     run_diag,   DIAG_ONE },
	{ "diag_resume",  run_diag,   DIAG_RESUME },
	{ "diag_skip",    run_diag,   DIAG_SKIP },
	{ "diag_unpriv",  run_unpriv, 0 },
	{ "diag_fh_miss", run_fh_miss, 0 },
	{ "proc_scan",    run_proc,   0 },
	{ "proc_scan_fd", run_proc,   1 },
	{ "churn_none",   run_churn,  NR_KINDS },
	{ "churn_uts",    run_churn,  K_UTS },
	{ "churn_ipc",    run_churn,  K_IPC },
	{ "churn_cgroup", run_churn,  K_CGROUP },
	{ "churn_time",   run_churn,  K_TIME },
	{ "churn_mnt",    run_churn,  K_MNT },
	{ "churn_user",   run_churn,  K_USER },
	{ "churn_pid",    run_churn,  K_PID },
	{ "churn_net",    run_churn,  K_NET },
	{ "listns_churn", run_listns_churn, 0 },
	{ NULL, NULL, 0 },
};
