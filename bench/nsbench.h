/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nsbench: listns() and namespace churn benchmark, shared declarations.
 *
 * The driver process stays in the initial user and pid namespace (so
 * listns() and open_by_handle_at() may see everything); the population
 * lives in holder processes inside a chain of nested user namespaces and
 * in sleeper processes; churn runs in a server inside the deepest one.
 */
#ifndef NSBENCH_H
#define NSBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>

/* The kernel's spellings (checkpatch asks for them). */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define __aligned(x) __attribute__((__aligned__(x)))
#define __noreturn __attribute__((__noreturn__))
#define __printf(a, b) __attribute__((__format__(printf, a, b)))

/* The namespace types, in the order of the population mix. */
enum ns_kind {
	K_UTS, K_IPC, K_CGROUP, K_TIME, K_MNT, K_USER, K_PID, K_NET,
	NR_KINDS
};

struct kind_info {
	const char *name;	/* workload suffix: churn_<name> */
	int clone_flag;		/* CLONE_NEW* */
	const char *ns_file;	/* /proc/self/ns/<ns_file> after unshare */
	int per_mille;		/* share of the population held by fds */
};

extern const struct kind_info kinds[NR_KINDS];

/* Nested user namespaces: init_user_ns -> U1 -> U2 -> U3. */
#define NR_LEVELS 3
/* listns_owner lists what this level's user namespace owns (U2). */
#define OWNER_LEVEL 1
/* Namespaces a sleeper process sits in (and /proc/PID/ns shows). */
#define SLEEPER_FLAGS (CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWCGROUP | CLONE_NEWNS)
#define SLEEPER_NS 4
/* Sleepers hold this share of the population (SLEEPER_NS each). */
#define SLEEPER_PER_MILLE 100

struct population {
	pid_t holder[NR_LEVELS];
	int cmd_fd[NR_LEVELS];		/* driver -> holder: struct grow_cmd */
	int resp_fd[NR_LEVELS];		/* holder -> driver: int errno */
	int userns_fd[NR_LEVELS];	/* the driver's fds on U1..U3 */
	__u64 userns_id[NR_LEVELS];
	long held[NR_LEVELS][NR_KINDS];	/* namespaces held by fds */
	long sleepers[NR_LEVELS];	/* sleeper processes per level */
	pid_t *sleeper_pid;
	long nr_sleepers, sleeper_cap;
	int ready_fd[2];		/* sleeper -> driver: int errno */
};

/* Namespaces the benchmark created and keeps alive. */
long pop_total(const struct population *p);
long pop_kind_total(const struct population *p, enum ns_kind k);
/* What U(level+1) owns directly: listns(user_ns_id) returns this many. */
long pop_owned_by(const struct population *p, int level);
int pop_init(struct population *p);
/* One more namespace of kind k held by an fd of the caller (which it may enter). */
int pop_make_one(enum ns_kind k);
int pop_grow(struct population *p, long n);
void pop_kill(struct population *p);

/* Slab memory per namespace of each kind (mem.c). */
void mem_phase(long nr);

/* The churn server: fork+unshare+exit+wait inside U3, diag_unpriv. */
int churn_start(const struct population *p);
int churn_run(int kind, long iters, uint64_t *elapsed_ns);
/* listns(all) by the server: root in U3, not in init_user_ns. */
int unpriv_listns(long iters, long nr_ids, uint64_t *elapsed_ns, long *count);
/*
 * listns_churn: the server churns UTS namespaces on CPU cpu until
 * churn_bg_stop(), which returns its ops and time; churn_bg_ops() counts
 * them meanwhile.  churn_bg_start() returns once the churn is under way.
 */
int churn_bg_start(int cpu);
long churn_bg_ops(void);
int churn_bg_stop(long *ops, uint64_t *elapsed_ns);
void churn_stop(void);

/* listns(2), nr 470 on x86_64. */
long sys_listns(__u32 ns_type, __u64 user_ns_id, __u64 after, __u64 *ids, size_t nr);

/* A set of inode numbers, for the /proc scans. */
struct idset {
	uint64_t *slot;
	size_t mask;
	long count;
};

int idset_init(struct idset *s, long expected);
void idset_clear(struct idset *s);
bool idset_add(struct idset *s, uint64_t id);

/* Helpers shared by the processes. */
extern bool opt_smoke;
const char *clock_setup(long calib_ms, long *res_ns);
uint64_t now_ns(void);
int write_full(int fd, const void *buf, size_t len);
int read_full(int fd, void *buf, size_t len);
void track_child(pid_t pid);
void keep_two(int *a, int *b);
__printf(1, 2) __noreturn void fail(const char *fmt, ...);

#endif /* NSBENCH_H */
