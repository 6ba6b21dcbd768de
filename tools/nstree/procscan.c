// SPDX-License-Identifier: GPL-2.0
/*
 * Which processes use a namespace: the inode numbers behind every
 * /proc/PID/task/TID/ns/ link.  A listed namespace no process links to
 * is held by something else: an open nsfs fd, a bind mount, or a child
 * namespace.  Those are the namespaces lsns(8), which only looks at
 * /proc, cannot show.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nstree.h"

/* *_for_children count: a task holds them through its nsproxy. */
static const char *const ns_links[] = {
	"cgroup", "ipc", "mnt", "net", "pid", "pid_for_children",
	"time", "time_for_children", "user", "uts",
};

static int scan_add(struct proc_scan *scan, __u64 inode, pid_t pid)
{
	if (scan->nr == scan->cap) {
		size_t cap = scan->cap ? scan->cap * 2 : 1024;
		struct proc_link *v = realloc(scan->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		scan->v = v;
		scan->cap = cap;
	}
	scan->v[scan->nr].inode = inode;
	scan->v[scan->nr].pid = pid;
	scan->nr++;
	return 0;
}

static bool is_number(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* Threads can sit in other namespaces than their group leader. */
static int scan_task_dir(struct proc_scan *scan, pid_t pid)
{
	char path[320];
	struct dirent *d;
	struct stat st;
	size_t i;
	DIR *dir;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return 0;	/* exited meanwhile */
	while (!err && (d = readdir(dir))) {
		if (!is_number(d->d_name))
			continue;
		for (i = 0; i < ARRAY_SIZE(ns_links); i++) {
			snprintf(path, sizeof(path), "/proc/%d/task/%s/ns/%s",
				 pid, d->d_name, ns_links[i]);
			if (stat(path, &st)) {
				/* ENOENT: gone, or the kernel lacks the type */
				if (errno == EACCES || errno == EPERM)
					scan->complete = false;
				continue;
			}
			if (st.st_dev != scan->nsfs_dev)
				continue;
			err = scan_add(scan, st.st_ino, pid);
			if (err)
				break;
		}
	}
	closedir(dir);
	return err;
}

static int cmp_link(const void *a, const void *b)
{
	const struct proc_link *x = a, *y = b;

	if (x->inode != y->inode)
		return x->inode < y->inode ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

int proc_scan(struct proc_scan *scan)
{
	struct dirent *d;
	struct stat st;
	size_t i, j;
	DIR *proc;
	int err = 0;

	memset(scan, 0, sizeof(*scan));
	scan->complete = true;
	if (stat("/proc/self/ns/user", &st))
		return -errno;
	scan->nsfs_dev = st.st_dev;
	proc = opendir("/proc");
	if (!proc)
		return -errno;
	while (!err && (d = readdir(proc)))
		if (is_number(d->d_name))
			err = scan_task_dir(scan, atoi(d->d_name));
	closedir(proc);
	if (err)
		return err;

	qsort(scan->v, scan->nr, sizeof(*scan->v), cmp_link);
	for (i = j = 0; i < scan->nr; i++)
		if (!j || cmp_link(&scan->v[j - 1], &scan->v[i]))
			scan->v[j++] = scan->v[i];
	scan->nr = j;
	return 0;
}

/* Give every entry the sorted pids whose links name its inode. */
int proc_scan_attach(const struct proc_scan *scan, struct ns_set *set)
{
	size_t i, lo, hi, k;

	for (i = 0; i < set->nr; i++) {
		struct ns_entry *e = &set->v[i];

		if (!e->inode)
			continue;
		lo = 0;
		hi = scan->nr;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (scan->v[mid].inode < e->inode)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (hi = lo; hi < scan->nr && scan->v[hi].inode == e->inode; hi++)
			;
		if (hi == lo)
			continue;
		e->pids = malloc((hi - lo) * sizeof(*e->pids));
		if (!e->pids)
			return -ENOMEM;
		for (k = lo; k < hi; k++)
			e->pids[e->nr_pids++] = scan->v[k].pid;
	}
	return 0;
}

void proc_scan_free(struct proc_scan *scan)
{
	free(scan->v);
	memset(scan, 0, sizeof(*scan));
}
