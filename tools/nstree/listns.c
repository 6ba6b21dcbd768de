// SPDX-License-Identifier: GPL-2.0
/*
 * listns(2) with pagination, and opening a listed namespace by its id
 * through an nsfs file handle (open_by_handle_at(FD_NSFS_ROOT, ...)).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "nstree.h"

int nstree_debug;

static long sys_listns(struct ns_id_req *req, __u64 *ids, size_t nr)
{
	long ret = syscall(__NR_listns, req, ids, nr, 0);

	if (nstree_debug)
		fprintf(stderr, "nstree: listns(ns_id=%llu ns_type=%#x user_ns_id=%#llx nr=%zu) = %ld%s%s\n",
			(unsigned long long)req->ns_id, req->ns_type,
			(unsigned long long)req->user_ns_id, nr, ret,
			ret < 0 ? " " : "", ret < 0 ? strerror(errno) : "");
	return ret;
}

static int grow(__u64 **v, size_t *cap, size_t need)
{
	__u64 *p;
	size_t n = *cap ? *cap : 64;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*v, n * sizeof(**v));
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = n;
	return 0;
}

/*
 * All namespace ids matching @ns_type (0: any) and owned by @user_ns_id
 * (0: any owner), fetched @page ids per call.  The cursor of the next
 * page is the last id returned.
 *
 * listns() (Linux 7.3) fails with ENOENT when no namespace at all
 * follows the cursor in the walked tree: after a full page, that is the
 * end of the walk.  (Linux 7.2 also failed when the first namespace
 * after the cursor was inactive, even with active ones after it.)
 */
int listns_ids(__u32 ns_type, __u64 user_ns_id, size_t page,
	       __u64 **ids, size_t *nr)
{
	struct ns_id_req req = {
		.size = NS_ID_REQ_SIZE_VER0,
		.ns_type = ns_type,
		.user_ns_id = user_ns_id,
	};
	size_t n = 0, cap = 0;
	__u64 *v = NULL;
	long ret;
	int err;

	for (;;) {
		err = grow(&v, &cap, n + page);
		if (err)
			goto fail;
		ret = sys_listns(&req, v + n, page);
		if (ret < 0) {
			err = -errno;
			if (err == -ENOENT && req.ns_id)
				break;
			goto fail;
		}
		n += ret;
		if ((size_t)ret < page)
			break;
		req.ns_id = v[n - 1];
	}
	*ids = v;
	*nr = n;
	return 0;
fail:
	free(v);
	return err;
}

int ns_open_by_id(__u64 id)
{
	struct {
		struct file_handle fh;
		struct nsfs_file_handle ns;
	} h;

	memset(&h, 0, sizeof(h));
	h.fh.handle_bytes = sizeof(h.ns);
	h.fh.handle_type = FILEID_NSFS;
	h.ns.ns_id = id;
	/*
	 * nsfs wants ns_type and ns_inum both set or both zero; zero lets
	 * the id alone name the namespace.
	 */
	return open_by_handle_at(FD_NSFS_ROOT, &h.fh, O_RDONLY | O_CLOEXEC);
}

int ns_id_of_fd(int fd, __u64 *id)
{
	return ioctl(fd, NS_GET_ID, id) ? -errno : 0;
}

/*
 * Type, inode, owner and owner uid of the namespace open on @fd.  The
 * owner of a user namespace is its parent; NS_GET_USERNS fails with
 * EPERM for the initial user namespace and for owners outside the
 * caller's user namespace, which leaves owner 0 ("none visible").
 */
int ns_fill_entry(struct ns_entry *e, int fd)
{
	struct stat st;
	uid_t uid;
	int type, ofd;

	type = ioctl(fd, NS_GET_NSTYPE);
	if (type < 0 || fstat(fd, &st))
		return -errno;
	e->type = type;
	e->inode = st.st_ino;
	e->owner = 0;
	e->uid = -1;
	ofd = ioctl(fd, NS_GET_USERNS);
	if (ofd >= 0) {
		if (ns_id_of_fd(ofd, &e->owner))
			e->owner = 0;
		close(ofd);
	}
	if (e->type == NST_USER && !ioctl(fd, NS_GET_OWNER_UID, &uid))
		e->uid = uid;
	e->opened = true;
	return 0;
}

/* The set is kept sorted by id: listns() returns ids in ascending order. */
static size_t ns_set_pos(const struct ns_set *set, __u64 id)
{
	size_t lo = 0, hi = set->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (set->v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct ns_entry *ns_set_find(const struct ns_set *set, __u64 id)
{
	size_t i = ns_set_pos(set, id);

	return i < set->nr && set->v[i].id == id ? &set->v[i] : NULL;
}

/* Returns the entry for @id, a new zeroed one if it was not there. */
struct ns_entry *ns_set_add(struct ns_set *set, __u64 id)
{
	struct ns_entry *e;
	size_t i = ns_set_pos(set, id);

	if (i < set->nr && set->v[i].id == id)
		return &set->v[i];
	if (set->nr == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 64;

		e = realloc(set->v, cap * sizeof(*e));
		if (!e)
			return NULL;
		set->v = e;
		set->cap = cap;
	}
	memmove(&set->v[i + 1], &set->v[i], (set->nr - i) * sizeof(*e));
	set->nr++;
	e = &set->v[i];
	memset(e, 0, sizeof(*e));
	e->id = id;
	e->uid = -1;
	return e;
}

void ns_set_free(struct ns_set *set)
{
	size_t i;

	for (i = 0; i < set->nr; i++)
		free(set->v[i].pids);
	free(set->v);
	memset(set, 0, sizeof(*set));
}
