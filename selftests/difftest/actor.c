// SPDX-License-Identifier: GPL-2.0
/*
 * ns_difftest: what runs inside an actor.  dt_do_cmd() executes one
 * command on the calling process (the driver calls it directly for its
 * own fds, a holder for every command the driver sends it) and reports
 * the raw result; all naming and printing is the driver's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/nsfs.h>

#include "dt.h"

/*
 * The effective ids this process had in the parent user namespace when
 * it last created a user namespace: what a one-line self map must name.
 */
uid_t dt_saved_euid;
gid_t dt_saved_egid;

/* Describe the namespace behind a fresh nsfs fd. */
static void fd_ns_info(int fd, struct dt_reply *r)
{
	struct stat st;
	__u64 id = 0;
	int type;

	if (ioctl(fd, NS_GET_ID, &id) < 0)
		return;
	type = ioctl(fd, NS_GET_NSTYPE);
	if (type < 0 || fstat(fd, &st) < 0)
		return;
	r->id = id;
	r->type = type;
	r->inum = st.st_ino;
	r->flags |= DT_HAVE_NS;
}

/* Run fn's result through errno capture: ret < 0 keeps its errno. */
#define CAPTURE(r, expr) do {				\
		(r)->ret = (expr);			\
		(r)->err = (r)->ret < 0 ? errno : 0;	\
	} while (0)

static void do_ioctl(const struct dt_cmd *c, struct dt_reply *r)
{
	__u64 id = 0;
	uid_t uid = 0;

	switch (c->arg) {
	case IO_GET_ID:
		CAPTURE(r, ioctl(c->fd, NS_GET_ID, &id));
		r->id = id;
		break;
	case IO_GET_USERNS:
		CAPTURE(r, ioctl(c->fd, NS_GET_USERNS));
		if (r->ret >= 0)
			fd_ns_info(r->ret, r);
		break;
	case IO_GET_PARENT:
		CAPTURE(r, ioctl(c->fd, NS_GET_PARENT));
		if (r->ret >= 0)
			fd_ns_info(r->ret, r);
		break;
	case IO_GET_NSTYPE:
		CAPTURE(r, ioctl(c->fd, NS_GET_NSTYPE));
		break;
	case IO_GET_OWNER_UID:
		CAPTURE(r, ioctl(c->fd, NS_GET_OWNER_UID, &uid));
		r->id = uid;
		break;
	default:
		r->ret = -1;
		r->err = EINVAL;
	}
}

static void do_handle(const struct dt_cmd *c, struct dt_reply *r)
{
	union {
		struct file_handle fh;
		char buf[sizeof(struct file_handle) + sizeof(struct nsfs_file_handle)];
	} h;
	struct nsfs_file_handle nh = {
		.ns_id = c->id,
		.ns_type = c->type,
		.ns_inum = c->inum,
	};

	memset(&h, 0, sizeof(h));
	h.fh.handle_bytes = sizeof(nh);
	h.fh.handle_type = FILEID_NSFS;
	memcpy(h.fh.f_handle, &nh, sizeof(nh));
	CAPTURE(r, open_by_handle_at(FD_NSFS_ROOT, &h.fh, O_RDONLY | O_CLOEXEC));
	if (r->ret >= 0)
		fd_ns_info(r->ret, r);
}

/*
 * A full paginated listns() walk: pages of c->arg ids from the cursor
 * c->id2 on, until a short page or an error.  The error (ENOENT when no
 * namespace at all follows the cursor in the walked tree) is the walk's
 * result, with the ids collected before it; r->id is the cursor of the
 * last call.  A last call with a cursor that lists nothing is flagged
 * (DT_WALK_EMPTY_AT_CURSOR): namespaces follow the cursor, none listable.
 */
static void do_walk(const struct dt_cmd *c, struct dt_reply *r)
{
	struct ns_id_req req = {
		.size = NS_ID_REQ_SIZE_VER0,
		.ns_id = c->id2,
		.ns_type = c->type,
		.user_ns_id = c->id,
	};
	static __u64 page[DT_MAX_PAGE];
	unsigned int want = c->arg;
	long n;
	int i;

	r->ret = 0;
	if (want < 1 || want > DT_MAX_PAGE) {
		r->ret = -1;
		r->err = EINVAL;
		return;
	}
	for (;;) {
		if (r->calls >= 4096) {
			r->ret = -1;
			r->err = ELOOP;
			return;
		}
		r->id = req.ns_id;
		n = syscall(__NR_listns, &req, page, want, 0);
		r->calls++;
		if (n < 0) {
			r->ret = -1;
			r->err = errno;
			return;
		}
		if (n > want) {
			r->flags |= DT_WALK_TOOMANY;
			n = want;
		}
		if (n > 64)
			r->flags |= DT_WALK_BIG_CALL;
		for (i = 0; i < n; i++) {
			if (r->nids && page[i] <= r->ids[r->nids - 1])
				r->flags |= DT_WALK_UNSORTED;
			if (r->nids < DT_MAX_WALK)
				r->ids[r->nids++] = page[i];
			else
				r->flags |= DT_WALK_OVERFLOW;
		}
		if (n < want) {
			if (!n && req.ns_id)
				r->flags |= DT_WALK_EMPTY_AT_CURSOR;
			return;
		}
		if (page[n - 1] <= req.ns_id) {
			/* No progress: the kernel would loop us forever. */
			r->flags |= DT_WALK_UNSORTED;
			return;
		}
		req.ns_id = page[n - 1];
	}
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	err = errno;
	close(fd);
	errno = err;
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/* One-line maps of the ids this process had when it made its user ns. */
static int self_map(void)
{
	char buf[64];

	if (write_file("/proc/self/setgroups", "deny"))
		return -1;
	snprintf(buf, sizeof(buf), "0 %u 1", (unsigned int)dt_saved_euid);
	if (write_file("/proc/self/uid_map", buf))
		return -1;
	snprintf(buf, sizeof(buf), "0 %u 1", (unsigned int)dt_saved_egid);
	return write_file("/proc/self/gid_map", buf);
}

/*
 * Bind-mount an nsfs file onto a file in a tmpfs private to this mount
 * namespace.  The driver only asks holders whose mount namespace is one
 * of the run's, so the initial mount namespace is never touched; the
 * tmpfs is mounted on first use in each mount namespace (copies made by
 * unshare(CLONE_NEWNS) inherit it).
 */
static int do_bind(const struct dt_cmd *c)
{
	struct stat dir, tmp;
	int fd;

	if (stat("/tmp/nsdiff", &dir) || stat("/tmp", &tmp))
		return -1;
	if (dir.st_dev == tmp.st_dev) {
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
			return -1;
		if (mount("nsdiff", "/tmp/nsdiff", "tmpfs", 0, "size=64k,mode=0777"))
			return -1;
	}
	fd = open(c->path2, O_CREAT | O_RDONLY | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	close(fd);
	return mount(c->path, c->path2, NULL, MS_BIND, NULL);
}

/*
 * Many namespaces at once, for walks that skip or page through hundreds:
 * unshare(CLONE_NEWUTS) c->arg times, keeping each one active by an fd
 * (they live until the holder exits).  Replies with their ids.
 */
static void do_bulk(const struct dt_cmd *c, struct dt_reply *r)
{
	unsigned int type = c->type ? c->type : CLONE_NEWUTS;
	char path[64];
	__u64 id;
	int i, fd;

	snprintf(path, sizeof(path), "/proc/self/ns/%s", dt_type_name(type));
	for (i = 0; i < c->arg && i < DT_MAX_WALK; i++) {
		if (unshare(type))
			break;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			break;
		if (ioctl(fd, NS_GET_ID, &id))
			break;
		r->ids[r->nids++] = id;
	}
	r->ret = i == c->arg ? i : -1;
	r->err = r->ret < 0 ? errno : 0;
}

void dt_do_cmd(const struct dt_cmd *c, struct dt_reply *r)
{
	uid_t euid;
	gid_t egid;

	memset(r, 0, offsetof(struct dt_reply, ids));
	switch (c->op) {
	case OP_OPEN:
		CAPTURE(r, open(c->path, O_RDONLY | O_CLOEXEC));
		if (r->ret >= 0)
			fd_ns_info(r->ret, r);
		break;
	case OP_CLOSE:
		CAPTURE(r, close(c->fd));
		break;
	case OP_IOCTL:
		do_ioctl(c, r);
		break;
	case OP_SOCKET:
		CAPTURE(r, socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
		break;
	case OP_SKNS:
		CAPTURE(r, ioctl(c->fd, SIOCGSKNS));
		if (r->ret >= 0)
			fd_ns_info(r->ret, r);
		break;
	case OP_HANDLE:
		do_handle(c, r);
		break;
	case OP_LISTNS:
		do_walk(c, r);
		break;
	case OP_UNSHARE:
		euid = geteuid();
		egid = getegid();
		CAPTURE(r, unshare(c->arg));
		if (r->ret == 0 && (c->arg & CLONE_NEWUSER)) {
			dt_saved_euid = euid;
			dt_saved_egid = egid;
		}
		break;
	case OP_SETNS:
		CAPTURE(r, setns(c->fd, c->arg));
		break;
	case OP_SELFMAP:
		CAPTURE(r, self_map());
		break;
	case OP_SETID:
		if (c->arg2)
			CAPTURE(r, setresgid(c->arg, c->arg, c->arg));
		else
			CAPTURE(r, setresuid(c->arg, c->arg, c->arg));
		break;
	case OP_BIND:
		CAPTURE(r, do_bind(c));
		break;
	case OP_UMOUNT:
		CAPTURE(r, umount2(c->path2, c->arg));
		break;
	case OP_BULK:
		do_bulk(c, r);
		break;
	default:
		r->ret = -1;
		r->err = EINVAL;
	}
}

/* Send one message, with fd as SCM_RIGHTS if fd >= 0. */
int dt_send_msg(int sock, const void *buf, size_t len, int fd)
{
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (fd >= 0) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

/* Receive one message; *fd gets a passed fd or -1. */
ssize_t dt_recv_msg(int sock, void *buf, size_t len, int *fd)
{
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
	};
	struct cmsghdr *cm;
	ssize_t n;

	*fd = -1;
	do {
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	for (cm = n >= 0 ? CMSG_FIRSTHDR(&msg) : NULL; cm; cm = CMSG_NXTHDR(&msg, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
			memcpy(fd, CMSG_DATA(cm), sizeof(int));
	return n;
}

int dt_send_reply(int sock, const struct dt_reply *r, int fd)
{
	size_t len = offsetof(struct dt_reply, ids) + r->nids * sizeof(r->ids[0]);

	return dt_send_msg(sock, r, len, fd);
}

/* A holder: execute the driver's commands until told to exit. */
void dt_holder_loop(void)
{
	static struct dt_cmd c;
	static struct dt_reply r;
	int fd, pass;
	ssize_t n;

	for (;;) {
		n = dt_recv_msg(DT_CMD_FD, &c, sizeof(c), &fd);
		/* The driver is gone (n == 0) or broke the protocol. */
		if (n != sizeof(c))
			_exit(n ? 1 : 0);
		if (c.op == OP_EXIT)
			_exit(0);
		pass = -1;
		if (c.op == OP_RECV) {
			memset(&r, 0, offsetof(struct dt_reply, ids));
			r.ret = fd;
			r.err = fd < 0 ? EBADF : 0;
		} else {
			if (fd >= 0)
				close(fd);
			if (c.op == OP_PASS) {
				memset(&r, 0, offsetof(struct dt_reply, ids));
				pass = c.fd;
			} else {
				dt_do_cmd(&c, &r);
			}
		}
		if (dt_send_reply(DT_CMD_FD, &r, pass))
			_exit(1);
		if (pass >= 0 && c.arg)
			close(pass);
	}
}

/*
 * In a new child: keep only stdio, the command socket (as DT_CMD_FD) and
 * optionally one more fd (as DT_AUX_FD, keep2 >= 0).  Inherited nsfs fds
 * or sockets of the driver would otherwise keep its namespaces active
 * for as long as the child lives.
 */
void dt_child_fds(int keep, int keep2)
{
	int first = DT_CMD_FD + 1;

	/* Move both out of the way first: either may sit on 3 or 4. */
	keep = fcntl(keep, F_DUPFD_CLOEXEC, 16);
	if (keep2 >= 0)
		keep2 = fcntl(keep2, F_DUPFD_CLOEXEC, 16);
	dup2(keep, DT_CMD_FD);
	if (keep2 >= 0) {
		dup2(keep2, DT_AUX_FD);
		first = DT_AUX_FD + 1;
	}
	syscall(SYS_close_range, first, ~0U, 0);
}

/*
 * setns() into every namespace of target that the caller is not in
 * already: first all but the user namespace (the caller still has every
 * capability of the initial user namespace), then the user namespace.
 * pid and time follow target's *_for_children namespaces, so that
 * processes forked afterwards land where target's children would.
 * Returns 0 or -1 with errno of the first failure.
 */
int dt_join(pid_t target)
{
	static const int order[] = {
		NSF_MNT, NSF_UTS, NSF_IPC, NSF_NET, NSF_PIDC, NSF_CGROUP,
		NSF_TIMEC, NSF_USER,
	};
	char path[64];
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(order); i++) {
		const char *file = dt_nsf_file[order[i]];
		__u64 want = 0, have = 0;
		int fd, self;

		snprintf(path, sizeof(path), "/proc/%d/ns/%s", target, file);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -1;
		snprintf(path, sizeof(path), "/proc/self/ns/%s", file);
		self = open(path, O_RDONLY | O_CLOEXEC);
		if (self < 0 || ioctl(fd, NS_GET_ID, &want) ||
		    ioctl(self, NS_GET_ID, &have)) {
			err = errno;
			close(fd);
			if (self >= 0)
				close(self);
			errno = err;
			return -1;
		}
		close(self);
		if (want != have && setns(fd, 0)) {
			err = errno;
			close(fd);
			errno = err;
			return -1;
		}
		close(fd);
	}
	return 0;
}
