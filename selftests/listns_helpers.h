/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers of the nstree-rs listns() selftests: the raw syscall,
 * guarded buffers that show every byte the kernel wrote, namespace ids,
 * nsfs file handles, and ways to leave a namespace destroyed, inactive
 * but still in the tree, or active only through an nsfs fd.
 *
 * The functions return plain values (-errno on failure) so that child
 * processes, which must not use the harness' ASSERT_*(), can use them too.
 */
#ifndef NSTREE_RS_LISTNS_HELPERS_H
#define NSTREE_RS_LISTNS_HELPERS_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/nsfs.h>
#include <linux/types.h>

#ifndef __NR_listns
#define __NR_listns 470
#endif

#ifndef FD_NSFS_ROOT
#define FD_NSFS_ROOT -10003
#endif

#ifndef FILEID_NSFS
#define FILEID_NSFS 0xf1
#endif

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

/* The known ns_type bits; everything else is EOPNOTSUPP. */
#define NS_ALL_TYPES (TIME_NS | MNT_NS | CGROUP_NS | UTS_NS | IPC_NS | \
		      USER_NS | PID_NS | NET_NS)

/* listns() caps nr_ns_ids here (EOVERFLOW above). */
#define LISTNS_MAX_IDS 1000000UL

/* More ids than a test guest ever has namespaces. */
#define MAX_NS 4096

/* What guarded buffers are filled with: any other byte was written. */
#define CANARY 0xa5

/* An id that the namespace id counter never reaches in a test run. */
#define NEVER_ISSUED_ID (1ULL << 60)

static inline long sys_listns(const void *req, void *ids, size_t nr,
			      unsigned int flags)
{
	return syscall(__NR_listns, req, ids, nr, flags);
}

/* listns() as one number: the count of ids written, or -errno. */
static inline long listns_ret(const void *req, void *ids, size_t nr,
			      unsigned int flags)
{
	long ret = sys_listns(req, ids, nr, flags);

	return ret < 0 ? -errno : ret;
}

static inline struct ns_id_req mkreq(__u64 ns_id, __u32 ns_type,
				     __u64 user_ns_id)
{
	struct ns_id_req req = {
		.size = NS_ID_REQ_SIZE_VER0,
		.ns_id = ns_id,
		.ns_type = ns_type,
		.user_ns_id = user_ns_id,
	};

	return req;
}

/* One listns() call into an ordinary buffer of @max ids. */
static inline long list_ids(__u64 ns_id, __u32 ns_type, __u64 user_ns_id,
			    __u64 *out, size_t max)
{
	struct ns_id_req req = mkreq(ns_id, ns_type, user_ns_id);

	return listns_ret(&req, out, max, 0);
}

static inline bool ids_contain(const __u64 *ids, long n, __u64 id)
{
	for (long i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/*
 * Compares a result with what was expected; prints both on a mismatch
 * (as TAP comments) so that a failing case says what the kernel did.
 */
static inline bool ids_equal(const char *what, const __u64 *got, long ngot,
			     const __u64 *want, long nwant)
{
	long i = 0;

	if (ngot == nwant) {
		while (i < ngot && got[i] == want[i])
			i++;
		if (i >= ngot)
			return true;
	}
	fprintf(stderr, "# %s: got %ld ids:", what, ngot);
	for (i = 0; i < ngot && i < 64; i++)
		fprintf(stderr, " %llu", (unsigned long long)got[i]);
	fprintf(stderr, "\n# %s: want %ld ids:", what, nwant);
	for (i = 0; i < nwant && i < 64; i++)
		fprintf(stderr, " %llu", (unsigned long long)want[i]);
	fprintf(stderr, "\n");
	return false;
}

static inline size_t page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/*
 * A guarded buffer: @len usable bytes at @data, filled with CANARY, with
 * a PROT_NONE page on either side, so that the kernel can neither write
 * nor read past it without faulting.
 */
struct gbuf {
	unsigned char *map;
	size_t map_len;
	unsigned char *data;
	size_t len;
};

static inline int gbuf_init(struct gbuf *g, size_t pages)
{
	size_t ps = page_size();

	g->map_len = (pages + 2) * ps;
	g->map = mmap(NULL, g->map_len, PROT_NONE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->map == MAP_FAILED) {
		g->map = NULL;
		return -errno;
	}
	g->data = g->map + ps;
	g->len = pages * ps;
	if (mprotect(g->data, g->len, PROT_READ | PROT_WRITE))
		return -errno;
	memset(g->data, CANARY, g->len);
	return 0;
}

static inline void gbuf_fini(struct gbuf *g)
{
	if (g->map)
		munmap(g->map, g->map_len);
	g->map = NULL;
}

/* The end of the usable part: the first byte of the trailing guard. */
static inline unsigned char *gbuf_end(const struct gbuf *g)
{
	return g->data + g->len;
}

/*
 * Checks that @n ids equal to @want sit at @at (which need not be
 * aligned) and that every other usable byte still holds CANARY. Returns
 * true if so, else prints the first difference.
 */
static inline bool gbuf_holds(const struct gbuf *g, const unsigned char *at,
			      const __u64 *want, long n)
{
	size_t from = at - g->data, to = from + n * sizeof(__u64);

	for (long i = 0; i < n; i++) {
		__u64 v;

		memcpy(&v, at + i * sizeof(v), sizeof(v));
		if (v != want[i]) {
			fprintf(stderr, "# id %ld is %#llx, want %llu\n", i,
				(unsigned long long)v,
				(unsigned long long)want[i]);
			return false;
		}
	}
	for (size_t off = 0; off < g->len; off++) {
		if (off >= from && off < to)
			continue;
		if (g->data[off] != CANARY) {
			fprintf(stderr,
				"# buffer byte %zu (%zu before its end) is %#x: written outside the %ld ids expected at byte %zu\n",
				off, g->len - off, g->data[off], n, from);
			return false;
		}
	}
	return true;
}

/* Nothing at all written into the buffer. */
static inline bool gbuf_untouched(const struct gbuf *g)
{
	return gbuf_holds(g, g->data, NULL, 0);
}

/* Namespace ids and types through nsfs. */

static inline __u64 ns_id_of_fd(int fd)
{
	__u64 id = 0;

	if (ioctl(fd, NS_GET_ID, &id))
		return 0;
	return id;
}

/* The id of the caller's namespace /proc/self/ns/@name, 0 on error. */
static inline __u64 self_ns_id(const char *name)
{
	char path[64];
	__u64 id;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/ns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	id = ns_id_of_fd(fd);
	close(fd);
	return id;
}

/*
 * open_by_handle_at() of an nsfs handle built from an id, as
 * ns_active_ref_test.c does: @type and @inum may be 0 (unknown).
 * Returns the fd or -errno.
 */
static inline int open_ns_handle(int mount_fd, __u64 id, __u32 type,
				 __u32 inum, unsigned int bytes)
{
	char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ] = {};
	struct file_handle *fh = (struct file_handle *)buf;
	struct nsfs_file_handle *nfh = (struct nsfs_file_handle *)fh->f_handle;
	int fd;

	fh->handle_bytes = bytes;
	fh->handle_type = FILEID_NSFS;
	nfh->ns_id = id;
	nfh->ns_type = type;
	nfh->ns_inum = inum;
	fd = open_by_handle_at(mount_fd, fh, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static inline int open_ns_id(__u64 id)
{
	return open_ns_handle(FD_NSFS_ROOT, id, 0, 0,
			      sizeof(struct nsfs_file_handle));
}

/* CLONE_NEW* type of the active namespace @id, or -errno. */
static inline long ns_type_of_id(__u64 id)
{
	int fd = open_ns_id(id);
	long type;

	if (fd < 0)
		return fd;
	type = ioctl(fd, NS_GET_NSTYPE);
	if (type < 0)
		type = -errno;
	close(fd);
	return type;
}

/* Id of the owning user namespace of @id; 0 for the initial user ns. */
static inline long long ns_owner_of_id(__u64 id)
{
	long long owner;
	int fd, ufd;

	fd = open_ns_id(id);
	if (fd < 0)
		return fd;
	ufd = ioctl(fd, NS_GET_USERNS);
	if (ufd < 0) {
		owner = errno == EPERM ? 0 : -errno;
	} else {
		owner = ns_id_of_fd(ufd);
		close(ufd);
	}
	close(fd);
	return owner;
}

/* Ways to make namespaces in the calling (root, initial) process. */

/*
 * Creates a namespace of @type, leaves it again and returns its id: with
 * nothing else referencing it, it is inactive and on its way out of the
 * tree (a uts or ipc namespace is gone at once).
 */
static inline __u64 make_destroyed_ns(int type, const char *name)
{
	char path[64];
	__u64 id = 0;
	int self;

	snprintf(path, sizeof(path), "/proc/self/ns/%s", name);
	self = open(path, O_RDONLY | O_CLOEXEC);
	if (self < 0)
		return 0;
	if (!unshare(type))
		id = self_ns_id(name);
	if (setns(self, type))
		id = 0;
	close(self);
	return id;
}

/*
 * Creates a namespace of @type, leaves it again and returns an nsfs fd
 * that keeps it active (the nsfs inode holds an active reference).
 */
static inline int make_fd_held_ns(int type, const char *name, __u64 *id)
{
	char path[64];
	int self, fd = -1;

	snprintf(path, sizeof(path), "/proc/self/ns/%s", name);
	self = open(path, O_RDONLY | O_CLOEXEC);
	if (self < 0)
		return -errno;
	if (!unshare(type)) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		*id = fd < 0 ? 0 : ns_id_of_fd(fd);
	}
	if (setns(self, type) && fd >= 0) {
		close(fd);
		fd = -1;
	}
	close(self);
	return fd;
}

/*
 * A network namespace that stays in the tree but is inactive: only a
 * socket created in it keeps it (sockets hold a passive reference). Returns
 * the socket.
 */
static inline int make_socket_pinned_netns(__u64 *id)
{
	int self, sock = -1;

	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0)
		return -errno;
	if (!unshare(CLONE_NEWNET)) {
		*id = self_ns_id("net");
		sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	}
	if (setns(self, CLONE_NEWNET) && sock >= 0) {
		close(sock);
		sock = -1;
	}
	close(self);
	return sock;
}

static inline int write_file(const char *path, const char *buf)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t len = strlen(buf), ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, buf, len);
	close(fd);
	return ret == len ? 0 : -EIO;
}

/*
 * unshare(CLONE_NEWUSER) and map the caller's ids to 0, as
 * setup_userns() in filesystems/utils.c, but without a new mount
 * namespace (the tests want to know exactly what they created).
 */
static inline int enter_userns(void)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char buf[64];
	int ret;

	if (unshare(CLONE_NEWUSER))
		return -errno;
	snprintf(buf, sizeof(buf), "0 %d 1", uid);
	ret = write_file("/proc/self/uid_map", buf);
	if (ret)
		return ret;
	ret = write_file("/proc/self/setgroups", "deny");
	if (ret)
		return ret;
	snprintf(buf, sizeof(buf), "0 %d 1", gid);
	return write_file("/proc/self/gid_map", buf);
}

/* File descriptor passing over a unix socket. */

static inline int send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {};
	char c = 'F';
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);

	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -errno;
}

static inline int recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {};
	char c;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg;
	int fd;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
		return -errno;
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg || cmsg->cmsg_type != SCM_RIGHTS)
		return -EBADMSG;
	memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
	return fd;
}

/* Reads exactly @len bytes (a child's report); 0 or -1. */
static inline int read_all(int fd, void *buf, size_t len)
{
	while (len) {
		ssize_t n = read(fd, buf, len);

		if (n <= 0)
			return -1;
		buf = (char *)buf + n;
		len -= n;
	}
	return 0;
}

static inline int write_all(int fd, const void *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n <= 0)
			return -1;
		buf = (const char *)buf + n;
		len -= n;
	}
	return 0;
}

/* Exit status of a child (0-255), or -1 if it did not exit normally. */
static inline int wait_child(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * In a child process: a new user namespace owning a new network
 * namespace; the child sends back a socket created in that network
 * namespace and exits. Then both namespaces are inactive but stay in the
 * tree: the socket holds the network namespace, which holds its owner, with
 * passive references only. Returns the socket or -errno.
 */
static inline int make_socket_pinned_userns_netns(__u64 *user_id,
						  __u64 *net_id)
{
	__u64 ids[2] = {};
	int sv[2], sock;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		close(sv[0]);
		if (enter_userns() || unshare(CLONE_NEWNET))
			_exit(1);
		ids[0] = self_ns_id("user");
		ids[1] = self_ns_id("net");
		sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (sock < 0 || send_fd(sv[1], sock) ||
		    write_all(sv[1], ids, sizeof(ids)))
			_exit(2);
		_exit(0);
	}
	close(sv[1]);
	sock = recv_fd(sv[0]);
	if (sock >= 0 && read_all(sv[0], ids, sizeof(ids))) {
		close(sock);
		sock = -EIO;
	}
	close(sv[0]);
	if (wait_child(pid) != 0 && sock >= 0) {
		close(sock);
		sock = -ECHILD;
	}
	*user_id = ids[0];
	*net_id = ids[1];
	return sock;
}

/* Sorts ids ascending, the order listns() returns them in. */
static inline int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

static inline void sort_ids(__u64 *ids, long n)
{
	qsort(ids, n, sizeof(*ids), cmp_u64);
}

#endif /* NSTREE_RS_LISTNS_HELPERS_H */
