/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nstorture: a seeded, time-bounded stress test of listns() and the
 * namespace tree against concurrent namespace teardown, in the spirit of
 * rcutorture.  Reader processes walk the tree with listns() (all, one type,
 * several types, by owner, LISTNS_CURRENT_USER from nested user
 * namespaces, pages of 1 to 1024 ids, resumed from random and from
 * just-destroyed ids) and open what they list by file handle; writer
 * processes build and tear down "scenes" of namespaces of all eight types
 * (unshare, clone3, nested user namespaces, setns, nsfs fds, bind mounts,
 * sockets and SIOCGSKNS resurrection).  Every process checks invariants
 * from user space; see enum check for the list.
 *
 * What the readers know about a namespace comes from a table in shared
 * memory, indexed by namespace id, that the writers keep up to date:
 *
 *   ACTIVE    the test holds an active reference (a process in it, an
 *             nsfs fd, a bind mount), or an active namespace it owns
 *   TRANSIT   the test is changing that (anything may happen)
 *   INACTIVE  the test holds no active reference and owns nothing active
 *
 * Each state change takes a fresh stamp from a global clock, after the
 * change it describes (INACTIVE) or before it (TRANSIT).  A reader that
 * read the clock (c0) before a walk and finds an entry ACTIVE with a stamp
 * <= c0 after the walk knows that the namespace was active during the whole
 * walk; INACTIVE with a stamp <= c0 (and no reader hold, see below): it was
 * inactive during the whole walk.  Readers that open a namespace register
 * a hold on it and on its owners first (an nsfs fd keeps them active).
 *
 * The id margin.  A listed id may exceed the highest id any test process
 * has recorded (NS_GET_ID after creating it) only by what is being created
 * right now: every creating syscall is bracketed by a shared "inflight"
 * counter, and one syscall creates at most IDS_PER_CREATION namespaces.
 * Other processes (not nstorture) may create namespaces too: the margin
 * allows --foreign-margin of them (default FOREIGN_MARGIN; nothing else
 * runs in the test guest).  Kernel pointers, 0, or ids from freed memory
 * are far outside it.
 */
#ifndef NSTORTURE_H
#define NSTORTURE_H

#include "../listns_helpers.h"

#include <stdarg.h>
#include <stdatomic.h>

#ifndef SIOCGSKNS
#define SIOCGSKNS 0x894C
#endif
#ifndef LISTNS_CURRENT_USER
#define LISTNS_CURRENT_USER 0xffffffffffffffffULL
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define __printf(a, b) __attribute__((__format__(__printf__, a, b)))

#define MAX_READERS 8
#define MAX_WRITERS 8
/* Process slots for operation counters: readers, writers, their children. */
#define MAX_SLOTS (MAX_READERS + MAX_WRITERS + 2)
#define SLOT_MAIN (MAX_SLOTS - 1)

/* The id table: a ring indexed by id; wide enough for minutes of churn. */
#define TBL_BITS 20
#define TBL_SIZE (1UL << TBL_BITS)

/* Ids a writer registers as its own at once (one scene). */
#define HELD_PER_WRITER 128
/* Recently deactivated ids, resume points for readers. */
#define RECENT_SLOTS 256

#define IDS_PER_CREATION 8
#define FOREIGN_MARGIN 64

/*
 * The gate (check CK_GATE): a run that did too little fails, whatever
 * its other checks say.  At least MIN_CPUS online CPUs (one CPU cannot
 * race a walk against a teardown), MIN_WALK_RATE walks per second, and
 * MIN_DEACT_RATE namespaces of each type made inactive per second.  The
 * floors are far below what the slowest kernel of make test does: the
 * debug kernels under TCG on 2 host cores, seed 1, 60 s, made 78-80
 * walks/s and 3.2-17.7 namespaces of each type inactive per second, and
 * 30-33 and 1.3-7.7 with a benchmark guest taking one of the two cores
 * (docs/torture.md): the floors leave a slower machine a factor of 6.
 */
#define MIN_CPUS 2
#define MIN_WALK_RATE 5.0
#define MIN_DEACT_RATE 0.2
/*
 * The storm (-S, storm.c): mount namespaces freed and storm walks per
 * second.  The debug kernels, seed 1, 60 s, with a kernel build beside
 * them: 4.7-4.8 frees/s and 14,409-18,452 storm walks/s; the base kernels
 * 55-57 frees/s.  Again a factor of about 5 below the slowest.
 */
#define MIN_STORM_RATE 1.0
#define MIN_STORM_WALK_RATE 50.0
/* Storm walkers by default (-S 0: no storm). */
#define STORM_DEFAULT 2
/*
 * The path walker (paths.c; -P 0: none) and its floor: NS_MNT_GET_NEXT/PREV
 * steps, listmount() calls and userfaultfd stalls per second, each.
 */
#define MIN_PATH_RATE 0.5
#define PATHS_DEFAULT 1

/* What the walkers put after the slots they give listns(). */
#define CANARY64 0xa5a5a5a5a5a5a5a5ULL

/* Longest walk a reader collects before it stops checking the rest. */
#define WALK_MAX 65536
#define PAGE_MAX 1024

enum ns_state { ST_NONE, ST_ACTIVE, ST_TRANSIT, ST_INACTIVE };

/*
 * -v, NSTREE_TORTURE_VERBOSE: log scenes and releases; the other bits
 * leave out an activity (to find which one a failure needs).
 */
enum {
	V_LOG = 1,
	V_NO_OPEN = 2,		/* readers do not open what they list */
	V_NO_SETNS = 4,		/* writers start no setns() helpers */
	V_NO_MOUNT = 8,		/* writers bind-mount nothing */
};

/* The check families, one TAP result each. */
enum check {
	CK_ORDER,	/* pages ascending, after the resume id */
	CK_BOUNDS,	/* nothing written past the returned ids, ret <= nr */
	CK_ZERO,	/* no id 0 */
	CK_ISSUED,	/* no id above the highest issued + margin */
	CK_DUP,		/* no id twice within one walk */
	CK_HELD,	/* held active namespaces appear in matching walks */
	CK_OPEN,	/* a listed id opens, or was being torn down */
	CK_INACTIVE,	/* no namespace listed while known inactive */
	CK_IOCTL,	/* NS_GET_ID/NSTYPE/USERNS/PARENT agree */
	CK_CURUSER,	/* nested user namespace callers see their own */
	CK_ERRNO,	/* syscalls fail only as documented */
	CK_PROCS,	/* test processes neither crash nor hang */
	CK_KLOG,	/* no kernel warning during the run */
	CK_QUIESCE,	/* nothing the test made is active at the end */
	CK_GATE,	/* the run did enough: CPUs, walk and teardown rates */
	CK_MNTWALK,	/* NS_MNT_GET_NEXT/PREV (paths.c) */
	CK_MNTID,	/* listmount/statmount by mnt_ns_id (paths.c) */
	CK_UFFD,	/* listns into a userfaultfd-stalled buffer (paths.c) */
	CK_NR
};

enum op {
	OP_WALK, OP_PAGE, OP_ID, OP_CURUSER, OP_OPEN, OP_OPEN_FAIL, OP_IOCTL,
	OP_NS, OP_SCENE, OP_CLONE3, OP_CHAIN, OP_SETNS, OP_NSFD, OP_MOUNT,
	OP_SKNS, OP_RESURRECT, OP_CHURN, OP_STORM, OP_STORM_WALK, OP_STORM_ID,
	OP_MNTWALK, OP_MNTID, OP_UFFD_WALK, OP_UFFD_STALL, OP_NR
};

struct ns_entry {
	uint64_t id;		/* the id this slot describes, 0: none */
	uint64_t sword;		/* state (low 2 bits) | stamp << 2 */
	uint64_t hword;		/* reader holds (low 16 bits) | stamp << 16 */
	uint64_t owner;		/* owning user namespace id, 0: none known */
	uint64_t parent;	/* parent pid/user namespace id, 0: none */
	uint32_t type;		/* CLONE_NEW* */
	uint32_t pad;
};

struct check_state {
	_Atomic uint64_t count;
	_Atomic uint64_t fails;
	_Atomic uint64_t first_ms;	/* 0: none yet (stored as ms + 1) */
	_Atomic int printed;
	char first[320];
};

struct shared {
	_Atomic uint64_t clock;
	_Atomic uint64_t max_seen;
	_Atomic int64_t inflight;
	_Atomic int stop;
	/*
	 * -x: the checks (bit c for check c + 1) whose first failure ends
	 * the run, and the check that ended it (+ 1; 0: none).
	 */
	uint64_t stop_on;
	_Atomic int stopped_by;
	uint64_t start_ns;
	uint64_t foreign_margin;
	uint64_t seed;
	int verbose;		/* V_* */
	/* The initial namespaces: always active. */
	uint64_t init_ids[8];
	uint64_t init_user;
	/* The highest id issued before the run. */
	uint64_t baseline;
	/* Each writer's private mount namespace (made inactive by main). */
	uint64_t writer_mnt[MAX_WRITERS];
	/* Writers' pids: who_holds() asks a holding writer for its journal. */
	pid_t writer_pid[MAX_WRITERS];
	struct check_state ck[CK_NR];
	uint64_t ops[MAX_SLOTS][OP_NR];
	_Atomic uint64_t held[MAX_WRITERS + MAX_READERS][HELD_PER_WRITER];
	_Atomic uint64_t recent[RECENT_SLOTS];
	_Atomic uint64_t recent_pos;
	/* The newest mount namespace the stormer made (storm.c). */
	_Atomic uint64_t storm_last;
	_Atomic pid_t stormer_pid;
	/*
	 * The path walker's NS_MNT_GET_NEXT/PREV steps (paths.c) in flight,
	 * and the clock when the last ended: its fds may have brought mount
	 * and user namespaces back to life meanwhile.
	 */
	_Atomic int wild_open;
	_Atomic uint64_t wild_end;
	/* Namespaces the test made inactive, per type (tbl_set()). */
	_Atomic uint64_t deactivated[8];
	struct ns_entry tbl[TBL_SIZE];
};

extern struct shared *sh;
extern int my_slot;
extern const char *my_name;

/* The eight types, the nsfs file that shows each, and short names. */
#define NR_TYPES 8
extern const uint32_t type_bits[NR_TYPES];
extern const char *const type_file[NR_TYPES];
const char *type_name(uint32_t type);
int type_index(uint32_t type);

/* Random numbers: each process has its own, derived from the seed. */
struct rng {
	uint64_t s;
};
void rng_init(struct rng *r, uint64_t seed, uint64_t stream);
uint64_t rng_next(struct rng *r);
static inline uint64_t rnd(struct rng *r, uint64_t n)
{
	return n ? rng_next(r) % n : 0;
}
static inline bool chance(struct rng *r, unsigned int percent)
{
	return rnd(r, 100) < percent;
}

uint64_t now_ms(void);
static inline bool stopping(void)
{
	return atomic_load_explicit(&sh->stop, memory_order_relaxed);
}
static inline void count_op(enum op op, uint64_t n)
{
	__atomic_fetch_add(&sh->ops[my_slot][op], n, __ATOMIC_RELAXED);
}

/* Checks: record a pass (n checks) or a failure with its message. */
void pass(enum check c, uint64_t n);
__printf(2, 3) void fail(enum check c, const char *fmt, ...);
void note(const char *fmt, ...) __printf(1, 2);
const char *check_name(enum check c);

/* The id table. */
uint64_t clock_tick(void);
static inline uint64_t clock_now(void)
{
	return atomic_load(&sh->clock);
}
void tbl_publish(uint64_t id, uint32_t type, uint64_t owner, uint64_t parent,
		 enum ns_state st);
void tbl_set(uint64_t id, enum ns_state st);
bool tbl_hold(uint64_t id, int delta);

struct ns_snap {
	bool known;
	enum ns_state state;
	uint64_t stamp;		/* of the state */
	unsigned int holders;
	uint64_t hstamp;	/* of the last hold change */
	uint64_t owner, parent;
	uint32_t type;
};
bool tbl_get(uint64_t id, struct ns_snap *s);

/* Active since (at most) c: for the whole interval from c to now. */
static inline bool active_since(const struct ns_snap *s, uint64_t c)
{
	return s->known && s->state == ST_ACTIVE && s->stamp <= c;
}

/*
 * A mount or user namespace the path walker (paths.c) may have held
 * active at some time from c to now: NS_MNT_GET_NEXT/PREV open the
 * namespace they step to, whatever its state, and the open brings it and
 * its owners back to life until the fd is closed.
 */
static inline bool maybe_resurrected(const struct ns_snap *s, uint64_t c)
{
	return (s->type == CLONE_NEWNS || s->type == CLONE_NEWUSER) &&
	       (atomic_load(&sh->wild_open) || atomic_load(&sh->wild_end) > c);
}

/* Inactive, and not held by a reader, from c to now. */
static inline bool inactive_since(const struct ns_snap *s, uint64_t c)
{
	return s->known && s->state == ST_INACTIVE && s->stamp <= c &&
	       !s->holders && s->hstamp <= c && !maybe_resurrected(s, c);
}

/* Holds on a namespace and its owners (what an nsfs fd keeps active). */
struct holds {
	int n;
	uint64_t ids[24];
};
bool hold_chain(struct holds *h, uint64_t id);
void unhold(struct holds *h);

/* Creation bracket and the highest recorded id. */
void creating(int delta);
void seen_id(uint64_t id);
uint64_t id_bound(void);

void recent_push(uint64_t id);
uint64_t recent_pick(struct rng *r);

/* Held ids of a writer slot (readers check them in walks). */
void held_add(int slot, uint64_t id);
void held_del(int slot, uint64_t id);
void held_clear(int slot);

/*
 * A namespace of the calling process, by nsfs file name ("uts",
 * "pid_for_children", ...): its id, type, owner and parent, or 0.
 */
struct ns_info {
	uint64_t id, owner, parent;
	uint32_t type;
};
int ns_info_fd(int fd, struct ns_info *ni);
int ns_info_self(const char *file, struct ns_info *ni, int *keep_fd);

void who_holds(uint64_t id);
pid_t waitpid_retry(pid_t pid, int *status, int flags);
ssize_t read_full(int fd, void *buf, size_t len);

/* The roles. */
void reader_main(int idx, int readers);
void writer_main(int idx);
void churn_main(int idx, int slot);
void stormer_main(int idx, int slot);
void storm_walker_main(int idx, int slot);
uint64_t storm_resume(struct rng *r);
void path_walker_main(int idx, int slot);

#endif /* NSTORTURE_H */
