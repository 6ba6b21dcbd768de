/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ns_difftest: a differential tester of the namespace tree.  The same
 * seeded random sequence of namespace operations runs on the C and on
 * the Rust kernel; each prints a canonical trace that must not depend on
 * anything but the kernel's semantics (no pids, fds, inode numbers, raw
 * namespace ids or times), and scripts/difftest-compare.py diffs them.
 *
 * Processes: the top process runs one seed driver per seed.  The driver
 * stays in the initial namespaces (so that listns() may see everything)
 * and is the only process that decides; "holders" are its children that
 * sit in namespaces and run the commands it sends them over a
 * SOCK_SEQPACKET socketpair.  The driver is an actor itself (for opening,
 * closing and querying nsfs fds) but never changes its own namespaces.
 */
#ifndef NS_DIFFTEST_DT_H
#define NS_DIFFTEST_DT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
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
#ifndef SIOCGSKNS
#define SIOCGSKNS 0x894C
#endif

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
#ifndef __printf
#define __printf(a, b)	__attribute__((__format__(__printf__, a, b)))
#endif
#ifndef __noreturn
#define __noreturn	__attribute__((__noreturn__))
#endif

#define DT_MAX_ALIVE	10	/* holders alive at once */
#define DT_MAX_ACTORS	64	/* driver + holders created in one seed */
#define DT_MAX_FDS	16	/* fds one actor keeps */
#define DT_MAX_NS	1536	/* namespaces learned in one seed */
#define DT_MAX_WALK	1024	/* ids one listns() walk may collect */
#define DT_MAX_PAGE	1000	/* ids one listns() call may return */
/* Seeds from here build populations of hundreds of namespaces at once. */
#define DT_LARGE_FROM	1000000ULL
#define DT_MAX_MOUNTS	48	/* bind mounts made in one seed */
#define DT_NR_NSF	10	/* the files in /proc/<pid>/ns */

/* Where dt_child_fds() puts a child's command socket and second fd. */
#define DT_CMD_FD	3
#define DT_AUX_FD	4

/* The files of /proc/<pid>/ns, in the order the trace prints them. */
enum dt_nsf {
	NSF_USER, NSF_MNT, NSF_UTS, NSF_IPC, NSF_NET,
	NSF_PID, NSF_PIDC, NSF_CGROUP, NSF_TIME, NSF_TIMEC,
};

extern const char *const dt_nsf_file[DT_NR_NSF];
extern const unsigned int dt_nsf_type[DT_NR_NSF];

/* The eight CLONE_NEW* types in a fixed order, and their short names. */
#define DT_NR_TYPES	8
extern const unsigned int dt_types[DT_NR_TYPES];
const char *dt_type_name(unsigned int type);

/* What a command asks an actor to do (dt_do_cmd()). */
enum dt_op {
	OP_OPEN = 1,	/* path: open an nsfs file, reply with its ns */
	OP_CLOSE,	/* fd */
	OP_IOCTL,	/* fd, arg: an index into dt_ioctls[] */
	OP_SOCKET,	/* an AF_UNIX socket in the actor's net ns */
	OP_SKNS,	/* fd: SIOCGSKNS on a socket */
	OP_HANDLE,	/* id, type, inum: open_by_handle_at(FD_NSFS_ROOT) */
	OP_LISTNS,	/* id: user_ns_id, id2: first cursor, type, arg: page */
	OP_UNSHARE,	/* arg: CLONE_NEW* flags */
	OP_SETNS,	/* fd, arg: nstype */
	OP_SELFMAP,	/* write one-line uid/gid maps of the own user ns */
	OP_SETID,	/* arg: the id, arg2: 0 setresuid, 1 setresgid */
	OP_BIND,	/* path: source, path2: target in the private tmpfs */
	OP_UMOUNT,	/* path2: target, arg: umount2() flags */
	OP_EXIT,	/* no reply */
	OP_PASS,	/* fd: send it to the driver (SCM_RIGHTS); arg: then close */
	OP_RECV,	/* take the fd that comes with the command */
	OP_BULK,	/* arg: make that many namespaces of type (uts if 0), each kept by an fd */
};

/* The ioctls OP_IOCTL can issue, by index. */
enum dt_ioctl {
	IO_GET_ID, IO_GET_USERNS, IO_GET_PARENT, IO_GET_NSTYPE,
	IO_GET_OWNER_UID, DT_NR_IOCTLS,
};
extern const char *const dt_ioctl_name[DT_NR_IOCTLS];

struct dt_cmd {
	int op;
	int fd;
	int arg;
	int arg2;
	__u64 id;
	__u64 id2;
	__u32 type;
	__u32 inum;
	char path[96];
	char path2[96];
};

/* Flags in dt_reply.flags */
#define DT_WALK_OVERFLOW	0x1	/* more ids than DT_MAX_WALK */
#define DT_WALK_UNSORTED	0x2	/* ids not strictly ascending */
#define DT_WALK_TOOMANY		0x4	/* a call returned more than asked */
#define DT_WALK_EMPTY_AT_CURSOR	0x8	/* ended: a call with a cursor listed 0 */
#define DT_WALK_BIG_CALL	0x10	/* a call returned more than 64 ids */
#define DT_HAVE_NS		0x8	/* id/type/inum describe the ret fd */

struct dt_reply {
	int ret;	/* the syscall's return value */
	int err;	/* its errno when ret < 0 */
	int flags;
	int calls;	/* listns(): calls made */
	__u64 id;	/* NS_GET_ID of the fd in ret, or a plain value */
	__u32 type;	/* NS_GET_NSTYPE of that fd */
	__u32 inum;
	int nids;
	__u64 ids[DT_MAX_WALK];
};

/* actor.c */
extern uid_t dt_saved_euid;
extern gid_t dt_saved_egid;
void dt_do_cmd(const struct dt_cmd *c, struct dt_reply *r);
__noreturn void dt_holder_loop(void);
void dt_child_fds(int keep, int keep2);
int dt_join(pid_t target);
int dt_send_msg(int sock, const void *buf, size_t len, int fd);
ssize_t dt_recv_msg(int sock, void *buf, size_t len, int *fd);
int dt_send_reply(int sock, const struct dt_reply *r, int fd);

/* driver.c: runs one seed in the calling process; returns 0 if it ran. */
int dt_run_seed(uint64_t seed, int steps);

/* Deterministic randomness: splitmix64. */
static inline uint64_t dt_rand64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline unsigned int dt_rand(uint64_t *state, unsigned int n)
{
	return n ? (unsigned int)(dt_rand64(state) % n) : 0;
}

/* Monotonic milliseconds: only for waiting, never printed in a trace. */
uint64_t dt_now_ms(void);
void dt_sleep_ms(unsigned int ms);

/* The errno's name ("EPERM"), or "E<number>" for unknown ones. */
const char *dt_errname(int err);

#endif /* NS_DIFFTEST_DT_H */
