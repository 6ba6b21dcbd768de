/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nstree: list the namespaces visible through listns(2) as a tree of
 * owning user namespaces.  Shared declarations and the uapi definitions
 * that older <linux/nsfs.h> headers (before Linux 6.19) lack.
 */
#ifndef NSTREE_H
#define NSTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>
#include <linux/ioctl.h>
#include <linux/nsfs.h>

#ifndef __NR_listns
#define __NR_listns 470
#endif

#ifndef NS_GET_ID
#define NS_GET_ID _IOR(NSIO, 13, __u64)
#endif

/* struct ns_id_req and LISTNS_CURRENT_USER came with listns() itself. */
#ifndef NS_ID_REQ_SIZE_VER0
#define NS_ID_REQ_SIZE_VER0 32
struct ns_id_req {
	__u32 size;
	__u32 spare;
	__u64 ns_id;
	struct {
		__u32 ns_type;
		__u32 spare2;
		__u64 user_ns_id;
	};
};
#endif

#ifndef LISTNS_CURRENT_USER
#define LISTNS_CURRENT_USER 0xffffffffffffffffULL
#endif

#ifndef NSFS_FILE_HANDLE_SIZE_VER0
#define NSFS_FILE_HANDLE_SIZE_VER0 16
struct nsfs_file_handle {
	__u64 ns_id;
	__u32 ns_type;
	__u32 ns_inum;
};
#endif

#ifndef FD_NSFS_ROOT
#define FD_NSFS_ROOT -10003
#endif

/* include/linux/exportfs.h, not uapi */
#ifndef FILEID_NSFS
#define FILEID_NSFS 0xf1
#endif

/*
 * The ns_type bits of listns() are the CLONE_NEW* flags; spell them out
 * so that an old <sched.h> (no CLONE_NEWTIME) does not matter.
 */
#define NST_TIME	0x00000080U
#define NST_MNT		0x00020000U
#define NST_CGROUP	0x02000000U
#define NST_UTS		0x04000000U
#define NST_IPC		0x08000000U
#define NST_USER	0x10000000U
#define NST_PID		0x20000000U
#define NST_NET		0x40000000U
#define NST_ALL		(NST_TIME | NST_MNT | NST_CGROUP | NST_UTS | \
			 NST_IPC | NST_USER | NST_PID | NST_NET)

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* Exit codes, documented in --help. */
enum {
	EXIT_OK		= 0,
	EXIT_USAGE	= 1,
	EXIT_NOSYS	= 2,
	EXIT_PERM	= 3,
	EXIT_ERROR	= 4,
};

struct ns_entry {
	__u64 id;
	__u32 type;		/* CLONE_NEW* bit, 0 if it could not be read */
	__u64 inode;		/* 0 if unknown */
	__u64 owner;		/* owning user namespace id, 0: none visible */
	long long uid;		/* owner uid of a user namespace, -1 if n/a */
	bool opened;		/* type, inode and owner are valid */
	bool context;		/* not listed, shown to connect the tree */
	size_t nr_pids;
	pid_t *pids;		/* sorted, unique thread-group ids */
};

struct ns_set {
	struct ns_entry *v;
	size_t nr, cap;
};

struct proc_scan {
	struct proc_link {
		__u64 inode;
		pid_t pid;
	} *v;
	size_t nr, cap;
	dev_t nsfs_dev;
	bool complete;		/* every /proc/PID/ns/ link could be read */
};

/* types.c */
const char *ns_type_name(__u32 type);
int parse_type_list(const char *list, __u32 *mask);

/* listns.c */
extern int nstree_debug;
int listns_ids(__u32 ns_type, __u64 user_ns_id, size_t page,
	       __u64 **ids, size_t *nr);
int ns_open_by_id(__u64 id);
int ns_fill_entry(struct ns_entry *e, int fd);
int ns_id_of_fd(int fd, __u64 *id);
struct ns_entry *ns_set_add(struct ns_set *set, __u64 id);
struct ns_entry *ns_set_find(const struct ns_set *set, __u64 id);
void ns_set_free(struct ns_set *set);

/* procscan.c */
int proc_scan(struct proc_scan *scan);
int proc_scan_attach(const struct proc_scan *scan, struct ns_set *set);
void proc_scan_free(struct proc_scan *scan);

/* output.c */
struct out_opts {
	bool pids;
	bool scan_complete;
};
void print_tree(const struct ns_set *set, const struct out_opts *o);
void print_list(const struct ns_set *set, const struct out_opts *o);
void print_json(const struct ns_set *set, const struct out_opts *o);

#endif /* NSTREE_H */
