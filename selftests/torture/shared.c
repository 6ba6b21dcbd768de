// SPDX-License-Identifier: GPL-2.0
/*
 * nstorture: what all processes share: the id table, the clock, checks
 * and their reporting, random numbers, namespace information.
 */
#include "nstorture.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

struct shared *sh;
int my_slot = SLOT_MAIN;
const char *my_name = "main";

const uint32_t type_bits[NR_TYPES] = {
	CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC,
	CLONE_NEWNET, CLONE_NEWPID, CLONE_NEWCGROUP, CLONE_NEWTIME,
};

/* The file of the namespace a process creates with unshare(). */
const char *const type_file[NR_TYPES] = {
	"user", "mnt", "uts", "ipc", "net", "pid_for_children", "cgroup",
	"time_for_children",
};

static const char *const type_names[NR_TYPES] = {
	"user", "mnt", "uts", "ipc", "net", "pid", "cgroup", "time",
};

int type_index(uint32_t type)
{
	for (int i = 0; i < NR_TYPES; i++)
		if (type_bits[i] == type)
			return i;
	return -1;
}

const char *type_name(uint32_t type)
{
	int i = type_index(type);

	return i < 0 ? "?" : type_names[i];
}

static const char *const check_names[CK_NR] = {
	[CK_ORDER] = "listns pages ascending and after their resume id",
	[CK_BOUNDS] = "listns writes only the ids it returns",
	[CK_ZERO] = "listns never returns id 0",
	[CK_ISSUED] = "listns returns only issued ids",
	[CK_DUP] = "listns walk never returns an id twice",
	[CK_HELD] = "held active namespaces appear in matching walks",
	[CK_OPEN] = "listed ids open unless being torn down",
	[CK_INACTIVE] = "no namespace listed while known inactive",
	[CK_IOCTL] = "nsfs ioctls agree with what was listed and created",
	[CK_CURUSER] = "nested user namespace callers see exactly their own",
	[CK_ERRNO] = "syscalls fail only as documented",
	[CK_PROCS] = "test processes neither crash nor hang",
	[CK_KLOG] = "no kernel warning during the run",
	[CK_QUIESCE] = "nothing the test made is active after it",
	[CK_GATE] = "the run did enough: CPUs, walks and teardowns per second",
	[CK_MNTWALK] = "NS_MNT_GET_NEXT/PREV step in order to mount namespaces",
	[CK_MNTID] = "listmount/statmount by mnt_ns_id find that namespace or none",
	[CK_UFFD] = "listns into a userfaultfd-stalled buffer returns a valid page",
};

const char *check_name(enum check c)
{
	return check_names[c];
}

void rng_init(struct rng *r, uint64_t seed, uint64_t stream)
{
	r->s = seed * 0x9e3779b97f4a7c15ULL + stream * 0xbf58476d1ce4e5b9ULL + 1;
	for (int i = 0; i < 4; i++)
		rng_next(r);
}

/* splitmix64 */
uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

static uint64_t run_ms(void)
{
	return now_ms() - sh->start_ns / 1000000;
}

/* One write(2) per line, so that lines of concurrent processes stay whole. */
static void emit(const char *buf)
{
	size_t len = strlen(buf);

	while (len) {
		ssize_t n = write(STDOUT_FILENO, buf, len);

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			return;
		}
		buf += n;
		len -= n;
	}
}

void note(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), "# [%7.3fs %s] ", run_ms() / 1000.0, my_name);
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	va_end(ap);
	strcat(buf, "\n");
	emit(buf);
}

void pass(enum check c, uint64_t n)
{
	atomic_fetch_add_explicit(&sh->ck[c].count, n, memory_order_relaxed);
}

/* Failures: counted, the first kept with its time, a few printed. */
void fail(enum check c, const char *fmt, ...)
{
	struct check_state *k = &sh->ck[c];
	uint64_t t = run_ms(), zero = 0;
	char msg[300], line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	atomic_fetch_add(&k->count, 1);
	atomic_fetch_add(&k->fails, 1);
	if (atomic_compare_exchange_strong(&k->first_ms, &zero, t + 1))
		snprintf(k->first, sizeof(k->first), "%s: %s", my_name, msg);
	if (atomic_fetch_add(&k->printed, 1) < 5) {
		snprintf(line, sizeof(line), "# NSTORTURE-FAIL t=%.3fs check=%d (%s) %s: %s\n",
			 t / 1000.0, c + 1, check_names[c], my_name, msg);
		emit(line);
	}
	if (sh->stop_on & (1ULL << c)) {
		int none = 0;

		atomic_compare_exchange_strong(&sh->stopped_by, &none, c + 1);
	}
}

/* The table. */

uint64_t clock_tick(void)
{
	return atomic_fetch_add(&sh->clock, 1) + 1;
}

static struct ns_entry *slot_of(uint64_t id)
{
	return &sh->tbl[id & (TBL_SIZE - 1)];
}

void tbl_publish(uint64_t id, uint32_t type, uint64_t owner, uint64_t parent,
		 enum ns_state st)
{
	struct ns_entry *e = slot_of(id);

	if (!id)
		return;
	__atomic_store_n(&e->id, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&e->type, type, __ATOMIC_RELAXED);
	__atomic_store_n(&e->owner, owner, __ATOMIC_RELAXED);
	__atomic_store_n(&e->parent, parent, __ATOMIC_RELAXED);
	__atomic_store_n(&e->hword, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&e->sword, st | clock_tick() << 2, __ATOMIC_SEQ_CST);
	__atomic_store_n(&e->id, id, __ATOMIC_SEQ_CST);
}

/* Only the process that owns a namespace's state changes it. */
void tbl_set(uint64_t id, enum ns_state st)
{
	struct ns_entry *e = slot_of(id);
	uint64_t stamp = clock_tick();

	uint64_t old;
	int ti;

	if (__atomic_load_n(&e->id, __ATOMIC_SEQ_CST) != id)
		return;
	old = __atomic_exchange_n(&e->sword, st | stamp << 2, __ATOMIC_SEQ_CST);
	ti = type_index(e->type);
	if (st == ST_INACTIVE && (old & 3) != ST_INACTIVE && ti >= 0)
		atomic_fetch_add_explicit(&sh->deactivated[ti], 1, memory_order_relaxed);
}

bool tbl_hold(uint64_t id, int delta)
{
	struct ns_entry *e = slot_of(id);
	uint64_t old, new;

	if (!id || __atomic_load_n(&e->id, __ATOMIC_SEQ_CST) != id)
		return false;
	old = __atomic_load_n(&e->hword, __ATOMIC_SEQ_CST);
	do {
		uint64_t h = (old & 0xffff) + delta;

		new = (h & 0xffff) | clock_tick() << 16;
	} while (!__atomic_compare_exchange_n(&e->hword, &old, new, false,
					      __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
	return true;
}

bool tbl_get(uint64_t id, struct ns_snap *s)
{
	struct ns_entry *e = slot_of(id);
	uint64_t sw, hw;

	memset(s, 0, sizeof(*s));
	if (!id || __atomic_load_n(&e->id, __ATOMIC_SEQ_CST) != id)
		return false;
	sw = __atomic_load_n(&e->sword, __ATOMIC_SEQ_CST);
	hw = __atomic_load_n(&e->hword, __ATOMIC_SEQ_CST);
	s->owner = __atomic_load_n(&e->owner, __ATOMIC_RELAXED);
	s->parent = __atomic_load_n(&e->parent, __ATOMIC_RELAXED);
	s->type = __atomic_load_n(&e->type, __ATOMIC_RELAXED);
	if (__atomic_load_n(&e->id, __ATOMIC_SEQ_CST) != id)
		return false;
	s->known = true;
	s->state = sw & 3;
	s->stamp = sw >> 2;
	s->holders = hw & 0xffff;
	s->hstamp = hw >> 16;
	return true;
}

/*
 * Registers holds on @id and its owners, as far as the table knows them;
 * false if it does not know @id.  A namespace is published once, by its
 * creator, so a hold on a known id is never lost.
 */
bool hold_chain(struct holds *h, uint64_t id)
{
	struct ns_snap s;
	bool first = true, known = false;

	for (int depth = 0; id && depth < 12 && h->n < (int)ARRAY_SIZE(h->ids); depth++) {
		if (!tbl_hold(id, 1))
			break;
		h->ids[h->n++] = id;
		known |= first;
		first = false;
		if (!tbl_get(id, &s))
			break;
		id = s.owner;
	}
	return known;
}

void unhold(struct holds *h)
{
	while (h->n)
		tbl_hold(h->ids[--h->n], -1);
}

void creating(int delta)
{
	atomic_fetch_add(&sh->inflight, delta);
}

void seen_id(uint64_t id)
{
	uint64_t cur = atomic_load(&sh->max_seen);

	while (id > cur && !atomic_compare_exchange_weak(&sh->max_seen, &cur, id))
		;
}

/*
 * The highest id a listns() that returned before this call may have
 * seen: read inflight first, then the maximum (see nstorture.h).
 */
uint64_t id_bound(void)
{
	int64_t inflight = atomic_load(&sh->inflight);
	uint64_t max = atomic_load(&sh->max_seen);

	if (inflight < 0)
		inflight = 0;
	return max + IDS_PER_CREATION * inflight + sh->foreign_margin;
}

void recent_push(uint64_t id)
{
	uint64_t pos = atomic_fetch_add(&sh->recent_pos, 1);

	atomic_store(&sh->recent[pos % RECENT_SLOTS], id);
}

uint64_t recent_pick(struct rng *r)
{
	uint64_t pos = atomic_load(&sh->recent_pos);

	if (!pos)
		return 0;
	/* Mostly the newest ones: those are the just-destroyed ones. */
	return atomic_load(&sh->recent[(pos - 1 - rnd(r, pos < 8 ? pos : 8)) % RECENT_SLOTS]);
}

void held_add(int slot, uint64_t id)
{
	for (int i = 0; i < HELD_PER_WRITER; i++) {
		uint64_t zero = 0;

		if (atomic_compare_exchange_strong(&sh->held[slot][i], &zero, id))
			return;
	}
}

void held_del(int slot, uint64_t id)
{
	for (int i = 0; i < HELD_PER_WRITER; i++) {
		uint64_t want = id;

		if (atomic_compare_exchange_strong(&sh->held[slot][i], &want, 0))
			return;
	}
}

void held_clear(int slot)
{
	for (int i = 0; i < HELD_PER_WRITER; i++)
		atomic_store(&sh->held[slot][i], 0);
}

/* Id, type, owner and parent of the namespace behind an nsfs fd. */
/*
 * Whether NS_GET_USERNS (@what "user") or NS_GET_PARENT (@what "pid" or
 * "user", the type's hierarchy) of namespace @ni may fail with @err:
 * only EPERM, and only when the answer lies outside the caller's
 * namespace of that hierarchy (fs/nsfs.c: ns_get_owner() and
 * pidns_get_parent() walk up from it to the caller's and return -EPERM
 * at the top).  A caller in the initial namespace sees everything but
 * the initial namespace's own owner or parent, which do not exist.
 */
static bool ns_link_may_fail(const struct ns_info *ni, const char *what, int err)
{
	uint64_t init = strcmp(what, "pid") ? sh->init_user : sh->init_ids[5];

	if (err != EPERM)
		return false;
	/* Before record_initial() knows the initial ids, or the initial one. */
	if (!init || ni->id == init || ni->id == sh->init_user)
		return true;
	return self_ns_id(what) != init;
}

/*
 * What the nsfs ioctls say about the namespace of @fd.  A failure of
 * NS_GET_ID or NS_GET_NSTYPE, an id 0 (the 7.2 union layout read a freed
 * or reused id as 0), and a failed NS_GET_USERNS or NS_GET_PARENT that
 * the caller's place does not explain are CK_IOCTL failures: the caller
 * gets -EIO (never 0 with an owner or parent silently left 0).
 */
int ns_info_fd(int fd, struct ns_info *ni)
{
	int t, o, err;

	memset(ni, 0, sizeof(*ni));
	if (ioctl(fd, NS_GET_ID, &ni->id))
		return -errno;
	if (!ni->id) {
		fail(CK_IOCTL, "NS_GET_ID of an nsfs fd returned id 0");
		errno = EIO;
		return -EIO;
	}
	t = ioctl(fd, NS_GET_NSTYPE);
	if (t < 0)
		return -errno;
	ni->type = t;
	o = ioctl(fd, NS_GET_USERNS);
	err = errno;
	if (o >= 0) {
		ni->owner = ns_id_of_fd(o);
		close(o);
		if (!ni->owner) {
			fail(CK_IOCTL, "%s ns %llu: its owner's NS_GET_ID failed or gave 0",
			     type_name(ni->type), (unsigned long long)ni->id);
			errno = EIO;
			return -EIO;
		}
	} else if (!ns_link_may_fail(ni, "user", err)) {
		fail(CK_IOCTL, "%s ns %llu: NS_GET_USERNS: %s", type_name(ni->type),
		     (unsigned long long)ni->id, strerror(err));
		errno = EIO;
		return -EIO;
	}
	if (ni->type == CLONE_NEWPID || ni->type == CLONE_NEWUSER) {
		const char *what = ni->type == CLONE_NEWPID ? "pid" : "user";

		o = ioctl(fd, NS_GET_PARENT);
		err = errno;
		if (o >= 0) {
			ni->parent = ns_id_of_fd(o);
			close(o);
			if (!ni->parent) {
				fail(CK_IOCTL, "%s ns %llu: its parent's NS_GET_ID failed or gave 0",
				     what, (unsigned long long)ni->id);
				errno = EIO;
				return -EIO;
			}
		} else if (!ns_link_may_fail(ni, what, err)) {
			fail(CK_IOCTL, "%s ns %llu: NS_GET_PARENT: %s", what,
			     (unsigned long long)ni->id, strerror(err));
			errno = EIO;
			return -EIO;
		}
	}
	return 0;
}

/* The same for /proc/self/ns/@file; keeps the fd in *keep_fd if asked. */
int ns_info_self(const char *file, struct ns_info *ni, int *keep_fd)
{
	char path[64];
	int fd, ret;

	snprintf(path, sizeof(path), "/proc/self/ns/%s", file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = ns_info_fd(fd, ni);
	if (keep_fd && !ret)
		*keep_fd = fd;
	else
		close(fd);
	return ret;
}

/* Prints the processes whose nsfs fds or namespaces show @ino. */
static void holders_in(const char *pid, const char *dir, const char *want, int own_fd)
{
	char path[128], link[128];
	struct dirent *f;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%.20s/%s", pid, dir);
	d = opendir(path);
	while (d && (f = readdir(d))) {
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/%.20s/%s/%.64s", pid, dir, f->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		if (!strstr(link, want))
			continue;
		if (atoi(pid) == getpid() && !strcmp(dir, "fd") && atoi(f->d_name) == own_fd)
			continue;
		note("  held by pid %s: %s/%s -> %s", pid, dir, f->d_name, link);
		for (int w = 0; w < MAX_WRITERS; w++)
			if (sh->writer_pid[w] == atoi(pid))
				kill(sh->writer_pid[w], SIGUSR1);
	}
	if (d)
		closedir(d);
}

/*
 * For a namespace listed although nothing the test knows holds it: what
 * the kernel and the table say about @id, and which processes hold it by
 * an nsfs fd, as a namespace of theirs, or by a mount of this mount
 * namespace.  The first three times in a process only.
 */
void who_holds(uint64_t id)
{
	char want[48], line[512];
	struct holds h = { 0 };
	static int reports;
	struct ns_snap s;
	struct dirent *p;
	struct stat st;
	DIR *proc;
	FILE *mi;
	int fd;

	if (++reports > 3)
		return;
	tbl_get(id, &s);
	/* Its fd keeps the namespace active, as a reader's does. */
	hold_chain(&h, id);
	fd = open_ns_id(id);
	if (fd < 0) {
		note("ns %llu: cannot open: %s", (unsigned long long)id, strerror(-fd));
		unhold(&h);
		return;
	}
	fstat(fd, &st);
	note("ns %llu: inode %lu, %s, owner %llu; state %d since %llu, %u holds since %llu; clock %llu",
	     (unsigned long long)id, (unsigned long)st.st_ino, type_name(s.type),
	     (unsigned long long)s.owner, s.state, (unsigned long long)s.stamp,
	     s.holders, (unsigned long long)s.hstamp, (unsigned long long)clock_now());
	snprintf(want, sizeof(want), ":[%lu]", (unsigned long)st.st_ino);
	proc = opendir("/proc");
	while (proc && (p = readdir(proc))) {
		if (p->d_name[0] < '0' || p->d_name[0] > '9')
			continue;
		holders_in(p->d_name, "fd", want, fd);
		holders_in(p->d_name, "ns", want, fd);
	}
	if (proc)
		closedir(proc);
	/* Every process: what it is, and its user and time namespaces. */
	proc = opendir("/proc");
	while (proc && (p = readdir(proc))) {
		char path[64], stat[160] = "", links[3][48] = { "", "", "" };
		static const char *const which[] = { "user", "time", "time_for_children" };
		FILE *f;

		if (p->d_name[0] < '0' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.20s/stat", p->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(stat, sizeof(stat), f))
			stat[0] = 0;
		fclose(f);
		if (strstr(stat, "(kworker") || strstr(stat, " 2 0 0 0 -1"))
			continue;	/* kernel threads */
		stat[strcspn(stat, "\n")] = 0;
		stat[48] = 0;
		for (int i = 0; i < 3; i++) {
			ssize_t n;

			snprintf(path, sizeof(path), "/proc/%.20s/ns/%s", p->d_name, which[i]);
			n = readlink(path, links[i], sizeof(links[i]) - 1);
			links[i][n > 0 ? n : 0] = 0;
		}
		note("  process %s | %s %s %s", stat, links[0], links[1], links[2]);
	}
	if (proc)
		closedir(proc);
	mi = fopen("/proc/self/mountinfo", "r");
	while (mi && fgets(line, sizeof(line), mi))
		if (strstr(line, want))
			note("  mounted: %s", line);
	if (mi)
		fclose(mi);
	close(fd);
	unhold(&h);
}

pid_t waitpid_retry(pid_t pid, int *status, int flags)
{
	pid_t r;

	do {
		r = waitpid(pid, status, flags);
	} while (r < 0 && errno == EINTR);
	return r;
}

ssize_t read_full(int fd, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, (char *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return done ? (ssize_t)done : n;
		done += n;
	}
	return done;
}
