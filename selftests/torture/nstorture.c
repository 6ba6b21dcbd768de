// SPDX-License-Identifier: GPL-2.0
/*
 * nstorture: listns() and namespace teardown, concurrently (see
 * nstorture.h).  Usage:
 *
 *   nstorture [-d SECONDS] [-s SEED] [-r READERS] [-w WRITERS]
 *             [-c CHURNERS] [-m FOREIGN_MARGIN] [-S STORM_WALKERS]
 *             [-P PATH_WALKERS] [-x CHECKS] [-v]
 *
 * Defaults: the environment's NSTREE_TORTURE_S (else 60) seconds, seed
 * NSTREE_TORTURE_SEED (else 1), 3 readers, 2 writers, 2 churners; -v adds V_LOG to
 * NSTREE_TORTURE_VERBOSE (see nstorture.h).  Prints TAP: one
 * result per check family, with the operation counts per second and the
 * number of checks as diagnostics, and a NSTORTURE-STATS line; every
 * failure is printed as it happens (NSTORTURE-FAIL, with its time), at
 * most five per family.  Exits 1 if a check failed.
 *
 * -x CHECKS (or NSTREE_TORTURE_STOP_ON): check numbers, separated by
 * commas or spaces, or "all"; the first failure of one of them ends the
 * run there (make mutants: a run has caught its mutant then, and the
 * rest of the minute would tell nothing more).  The checks that the
 * shortened run never got to are skipped then, and so is the gate.
 */
#include "nstorture.h"

#include <poll.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>

static const char *const op_names[OP_NR] = {
	[OP_WALK] = "walks", [OP_PAGE] = "listns", [OP_ID] = "ids",
	[OP_CURUSER] = "curuser-walks", [OP_OPEN] = "opens",
	[OP_OPEN_FAIL] = "open-fails", [OP_IOCTL] = "ioctls",
	[OP_NS] = "ns-created", [OP_SCENE] = "scenes", [OP_CLONE3] = "clone3",
	[OP_CHAIN] = "chains8", [OP_SETNS] = "setns", [OP_NSFD] = "nsfs-fds",
	[OP_MOUNT] = "mounts", [OP_SKNS] = "siocgskns",
	[OP_RESURRECT] = "resurrections", [OP_CHURN] = "churns",
	[OP_STORM] = "storm-frees", [OP_STORM_WALK] = "storm-walks", [OP_STORM_ID] = "storm-ids",
	[OP_MNTWALK] = "mnt-steps", [OP_MNTID] = "listmounts", [OP_UFFD_WALK] = "uffd-walks",
	[OP_UFFD_STALL] = "uffd-stalls",
};

/* -x: "all" or check numbers (1..CK_NR) as a mask; -1 if malformed. */
static int64_t parse_checks(const char *list)
{
	uint64_t mask = 0;
	char *end;

	if (!strcmp(list, "all"))
		return (1ULL << CK_NR) - 1;
	while (*list) {
		unsigned long n;

		if (*list == ',' || *list == ' ') {
			list++;
			continue;
		}
		n = strtoul(list, &end, 10);
		if (end == list || n < 1 || n > CK_NR)
			return -1;
		mask |= 1ULL << (n - 1);
		list = end;
	}
	return mask;
}

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : def;
}

/* The kernel's log while the test runs: any report is a failure. */
static const char *const bad_klog[] = {
	"WARNING:", "BUG:", "Oops", "general protection fault", "KASAN:",
	"UBSAN:", "refcount_t:", "list_add corruption", "list_del corruption",
	"possible recursive locking", "possible circular locking",
	"inconsistent lock state", "suspicious RCU usage", "INFO: rcu",
	"detected stalls", "Call Trace:", "segfault at", "kernel BUG",
};

static void __attribute__((noreturn)) kmsg_main(void)
{
	char buf[8192];
	int fd, lines = 0;

	my_name = "kmsg";
	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		fail(CK_KLOG, "open /dev/kmsg: %s", strerror(errno));
		_exit(1);
	}
	lseek(fd, 0, SEEK_END);
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		/* Runs until the main process kills it, after everything. */
		poll(&pfd, 1, 200);
		while ((n = read(fd, buf, sizeof(buf) - 1)) > 0) {
			char *msg = memchr(buf, ';', n);

			buf[n] = 0;
			msg = msg ? msg + 1 : buf;
			msg[strcspn(msg, "\n")] = 0;
			lines++;
			for (size_t i = 0; i < ARRAY_SIZE(bad_klog); i++)
				if (strstr(msg, bad_klog[i])) {
					fail(CK_KLOG, "kernel: %.200s", msg);
					break;
				}
		}
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: read on */
	}
}

static pid_t spawn(void (*fn)(int, int), int a, int b)
{
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		fn(a, b);
		_exit(0);
	}
	if (pid < 0)
		fail(CK_PROCS, "fork: %s", strerror(errno));
	return pid;
}

static void writer_entry(int idx, int unused)
{
	writer_main(idx);
}

static void churn_entry(int idx, int slot)
{
	churn_main(idx, slot);
}

static void path_walker_entry(int idx, int slot)
{
	path_walker_main(idx, slot);
}

static void stormer_entry(int idx, int slot)
{
	stormer_main(idx, slot);
}

static void storm_walker_entry(int idx, int slot)
{
	storm_walker_main(idx, slot);
}

/* The namespaces the test starts in: always active, always listed. */
static void record_initial(void)
{
	for (int i = 0; i < NR_TYPES; i++) {
		static const char *const files[NR_TYPES] = {
			"user", "mnt", "uts", "ipc", "net", "pid", "cgroup", "time",
		};
		struct ns_info ni;

		if (ns_info_self(files[i], &ni, NULL)) {
			fail(CK_ERRNO, "/proc/self/ns/%s: %s", files[i], strerror(errno));
			continue;
		}
		sh->init_ids[i] = ni.id;
		tbl_publish(ni.id, ni.type, ni.owner, ni.parent, ST_ACTIVE);
		seen_id(ni.id);
	}
	sh->init_user = sh->init_ids[0];
}

/*
 * The ids issued before the test: everything listed now, and one
 * namespace made and dropped at once (newer than anything before).
 */
static void record_baseline(void)
{
	static uint64_t ids[PAGE_MAX];
	uint64_t resume = 0;
	int p[2];
	pid_t pid;
	long n;

	do {
		struct ns_id_req req = mkreq(resume, 0, 0);

		n = listns_ret(&req, ids, PAGE_MAX, 0);
		for (long i = 0; i < n; i++)
			seen_id(ids[i]);
		if (n > 0)
			resume = ids[n - 1];
	} while (n == PAGE_MAX);
	if (n < 0 && n != -ENOENT)
		fail(CK_ERRNO, "listns: %s", strerror(-n));
	if (pipe(p))
		return;
	pid = fork();
	if (pid == 0) {
		uint64_t id = 0;

		if (!unshare(CLONE_NEWUTS))
			id = self_ns_id("uts");
		write_all(p[1], &id, sizeof(id));
		_exit(0);
	}
	close(p[1]);
	if (pid > 0) {
		uint64_t id = 0;

		read_full(p[0], &id, sizeof(id));
		waitpid_retry(pid, NULL, 0);
		if (id)
			seen_id(id);
		else
			fail(CK_ERRNO, "a first namespace could not be made");
	}
	close(p[0]);
}

static void unmount_leftovers(void)
{
	char line[512], path[256];
	FILE *f = fopen("/proc/self/mounts", "r");
	int n = 0;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %255s", path) == 1 && !strncmp(path, "/run/nstorture/", 15)) {
			umount2(path, MNT_DETACH);
			n++;
		}
	fclose(f);
	if (n)
		fail(CK_PROCS, "%d bind mounts left behind", n);
}

/* After everything: nothing the test made may still be listed. */
static void check_quiescent(void)
{
	static uint64_t ids[PAGE_MAX];
	uint64_t resume = 0;
	struct ns_snap s;
	long n;

	do {
		struct ns_id_req req = mkreq(resume, 0, 0);

		n = listns_ret(&req, ids, PAGE_MAX, 0);
		for (long i = 0; i < n; i++) {
			bool initial = false;

			for (int k = 0; k < NR_TYPES; k++)
				initial |= ids[i] == sh->init_ids[k];
			if (initial || !tbl_get(ids[i], &s)) {
				pass(CK_QUIESCE, 1);
				continue;
			}
			fail(CK_QUIESCE, "%s ns %llu (owner %llu) still listed after every test process, fd and mount is gone",
			     type_name(s.type), (unsigned long long)ids[i],
			     (unsigned long long)s.owner);
			who_holds(ids[i]);
		}
		if (n > 0)
			resume = ids[n - 1];
	} while (n == PAGE_MAX);
	if (n < 0 && n != -ENOENT)
		fail(CK_QUIESCE, "final listns: %s", strerror(-n));
}

/* The role processes, and the kmsg watcher, for reap(). */
static pid_t pids[MAX_READERS + MAX_WRITERS], kmsg;
static const char *role[MAX_READERS + MAX_WRITERS];
static int nprocs, alive;

/*
 * Reaps what has ended, without waiting: a role process that ends before
 * the stop, or by a signal (an Oops in a syscall kills its task), fails
 * at once, with its time.
 */
static void reap(void)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		bool mine = false;

		for (int i = 0; i < nprocs; i++) {
			if (pids[i] != pid)
				continue;
			mine = true;
			alive--;
			pids[i] = 0;
			if (WIFSIGNALED(status))
				fail(CK_PROCS, "a %s was killed by signal %d", role[i],
				     WTERMSIG(status));
			else if (!stopping())
				fail(CK_PROCS, "a %s ended before the stop, status %#x", role[i],
				     status);
		}
		/* An orphan the subreaper inherited. */
		if (!mine && pid != kmsg && WIFSIGNALED(status))
			fail(CK_PROCS, "process %d killed by signal %d", pid, WTERMSIG(status));
	}
}

static uint64_t total_op(enum op op)
{
	uint64_t sum = 0;

	for (int i = 0; i < MAX_SLOTS; i++)
		sum += __atomic_load_n(&sh->ops[i][op], __ATOMIC_RELAXED);
	return sum;
}

static void print_rates(const char *prefix, double secs)
{
	char line[1024];
	int n = snprintf(line, sizeof(line), "%s", prefix);

	for (int op = 0; op < OP_NR; op++)
		n += snprintf(line + n, sizeof(line) - n, " %s/s=%.1f", op_names[op],
			      total_op(op) / secs);
	printf("%s\n", line);
	fflush(stdout);
}

/*
 * CK_GATE: a run that did too little fails (nstorture.h: MIN_CPUS,
 * MIN_WALK_RATE, MIN_DEACT_RATE), with the rates it reached.
 */
static void gate(double secs, int storm, int paths)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	double walks = total_op(OP_WALK) / secs;
	char line[512];
	int n, low = 0;

	n = snprintf(line, sizeof(line), "# NSTORTURE-GATE cpus=%ld (min %d) walks/s=%.1f (min %.1f) deactivated/s (min %.2f each):",
		     cpus, MIN_CPUS, walks, MIN_WALK_RATE, MIN_DEACT_RATE);
	for (int i = 0; i < NR_TYPES; i++) {
		double r = atomic_load(&sh->deactivated[i]) / secs;

		n += snprintf(line + n, sizeof(line) - n, " %s=%.2f", type_name(type_bits[i]), r);
		if (r < MIN_DEACT_RATE) {
			fail(CK_GATE, "%s namespaces made inactive: %.2f/s, below %.2f/s",
			     type_name(type_bits[i]), r, MIN_DEACT_RATE);
			low++;
		}
	}
	printf("%s\n", line);
	if (cpus < MIN_CPUS) {
		fail(CK_GATE, "%ld CPU(s) online: one CPU cannot race a walk against a teardown", cpus);
		low++;
	}
	if (walks < MIN_WALK_RATE) {
		fail(CK_GATE, "%.1f walks/s, below %.1f", walks, MIN_WALK_RATE);
		low++;
	}
	if (storm) {
		double frees = total_op(OP_STORM) / secs, swalks = total_op(OP_STORM_WALK) / secs;

		printf("# NSTORTURE-GATE storm: mount namespaces freed/s=%.1f (min %.1f) storm walks/s=%.1f (min %.1f)\n",
		       frees, MIN_STORM_RATE, swalks, MIN_STORM_WALK_RATE);
		if (frees < MIN_STORM_RATE) {
			fail(CK_GATE, "storm: %.1f mount namespaces freed/s, below %.1f", frees,
			     MIN_STORM_RATE);
			low++;
		}
		if (swalks < MIN_STORM_WALK_RATE) {
			fail(CK_GATE, "storm: %.1f walks/s, below %.1f", swalks, MIN_STORM_WALK_RATE);
			low++;
		}
	}
	if (paths) {
		double steps = total_op(OP_MNTWALK) / secs, ids = total_op(OP_MNTID) / secs;
		double uf = total_op(OP_UFFD_WALK) / secs, stalls = total_op(OP_UFFD_STALL) / secs;

		printf("# NSTORTURE-GATE paths: mnt steps/s=%.1f (min %.1f) listmounts/s=%.1f (min %.1f) uffd walks/s=%.1f uffd stalls/s=%.1f (min %.1f)\n",
		       steps, MIN_PATH_RATE, ids, MIN_PATH_RATE, uf, stalls, MIN_PATH_RATE);
		if (steps < MIN_PATH_RATE || ids < MIN_PATH_RATE || stalls < MIN_PATH_RATE) {
			fail(CK_GATE, "paths: %.1f mnt steps/s, %.1f listmounts/s, %.1f uffd stalls/s, below %.1f",
			     steps, ids, stalls, MIN_PATH_RATE);
			low++;
		}
	}
	if (!low)
		pass(CK_GATE, 1);
}

int main(int argc, char **argv)
{
	uint64_t duration = env_u64("NSTREE_TORTURE_S", 60);
	uint64_t seed = env_u64("NSTREE_TORTURE_SEED", 1);
	uint64_t margin = FOREIGN_MARGIN, checks = 0, t_end, next_progress;
	int readers = 3, writers = 2, churners = 2, opt, failed = 0, stopped_by;
	int storm = env_u64("NSTREE_TORTURE_STORM", STORM_DEFAULT);
	int paths = env_u64("NSTREE_TORTURE_PATHS", PATHS_DEFAULT);
	int verbose = env_u64("NSTREE_TORTURE_VERBOSE", 0);
	const char *stop_list = getenv("NSTREE_TORTURE_STOP_ON");
	int64_t stop_on = 0;
	struct timespec ts;
	double secs;

	while ((opt = getopt(argc, argv, "d:s:r:w:c:m:S:P:x:v")) != -1) {
		switch (opt) {
		case 'd':
			duration = strtoull(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			readers = atoi(optarg);
			break;
		case 'w':
			writers = atoi(optarg);
			break;
		case 'c':
			churners = atoi(optarg);
			break;
		case 'm':
			margin = strtoull(optarg, NULL, 0);
			break;
		case 'S':
			storm = atoi(optarg);
			break;
		case 'P':
			paths = atoi(optarg);
			break;
		case 'x':
			stop_list = optarg;
			break;
		case 'v':
			verbose |= V_LOG;
			break;
		default:
			fprintf(stderr, "usage: %s [-d secs] [-s seed] [-r readers] [-w writers] [-c churners] [-m margin] [-S storm-walkers] [-P path-walkers] [-x checks] [-v]\n",
				argv[0]);
			return 2;
		}
	}
	if (readers < 1 || storm < 0 || paths < 0 || paths > 1 ||
	    readers + storm + paths > MAX_READERS || writers < 1 || churners < 0 ||
	    writers + churners + !!storm > MAX_WRITERS) {
		fprintf(stderr, "1..%d readers, storm walkers and the path walker (-P 0 or 1), 1..%d writers, churners and the stormer\n",
			MAX_READERS, MAX_WRITERS);
		return 2;
	}
	if (stop_list && *stop_list) {
		stop_on = parse_checks(stop_list);
		if (stop_on < 0) {
			fprintf(stderr, "-x: \"all\" or check numbers 1..%d, not \"%s\"\n", CK_NR,
				stop_list);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..%d\n", CK_NR);
	printf("# nstorture: seed=%llu duration=%llus readers=%d writers=%d churners=%d storm=%d paths=%d foreign-margin=%llu cpus=%ld\n",
	       (unsigned long long)seed, (unsigned long long)duration, readers, writers, churners,
	       storm, paths, (unsigned long long)margin, sysconf(_SC_NPROCESSORS_ONLN));

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (sh == MAP_FAILED) {
		printf("Bail out! mmap of %zu bytes: %s\n", sizeof(*sh), strerror(errno));
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	sh->start_ns = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	sh->seed = seed;
	sh->foreign_margin = margin;
	sh->verbose = verbose;
	sh->stop_on = stop_on;
	if (stop_on)
		note("-x: the first failure of check(s) %s ends the run", stop_list);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	signal(SIGPIPE, SIG_IGN);
	mkdir("/run/nstorture", 0700);

	record_initial();
	record_baseline();
	sh->baseline = atomic_load(&sh->max_seen);
	note("baseline: initial user ns %llu, highest id before the run %llu",
	     (unsigned long long)sh->init_user, (unsigned long long)atomic_load(&sh->max_seen));

	kmsg = fork();
	if (kmsg == 0)
		kmsg_main();
	for (int i = 0; i < writers; i++) {
		role[nprocs] = "writer";
		pids[nprocs++] = spawn(writer_entry, i, 0);
	}
	for (int i = 0; i < churners; i++) {
		role[nprocs] = "churner";
		pids[nprocs++] = spawn(churn_entry, i, writers + i);
	}
	for (int i = 0; i < readers; i++) {
		role[nprocs] = "reader";
		pids[nprocs++] = spawn(reader_main, i, readers);
	}
	/* The storm (storm.c): slots after the churners' and the readers'. */
	if (storm) {
		role[nprocs] = "stormer";
		pids[nprocs] = spawn(stormer_entry, 0, writers + churners);
		atomic_store(&sh->stormer_pid, pids[nprocs++]);
	}
	for (int i = 0; i < storm; i++) {
		role[nprocs] = "storm walker";
		pids[nprocs++] = spawn(storm_walker_entry, i, MAX_WRITERS + readers + i);
	}
	/* The path walker (paths.c): the slot after the storm walkers'. */
	for (int i = 0; i < paths; i++) {
		role[nprocs] = "path walker";
		pids[nprocs++] = spawn(path_walker_entry, i, MAX_WRITERS + readers + storm + i);
	}

	t_end = now_ms() + duration * 1000;
	next_progress = now_ms() + 10000;
	alive = nprocs;
	while (now_ms() < t_end && !atomic_load(&sh->stopped_by)) {
		usleep(100000);
		reap();
		if (now_ms() >= next_progress && duration > 30) {
			char prefix[64];

			snprintf(prefix, sizeof(prefix), "# progress t=%llus:",
				 (unsigned long long)(now_ms() - sh->start_ns / 1000000) / 1000);
			print_rates(prefix, (now_ms() - sh->start_ns / 1000000) / 1000.0);
			next_progress += 10000;
		}
	}
	secs = (now_ms() - sh->start_ns / 1000000) / 1000.0;
	atomic_store(&sh->stop, 1);
	stopped_by = atomic_load(&sh->stopped_by);
	if (stopped_by)
		printf("# nstorture: stopped at %.1f s by the first failure of check %d (-x)\n",
		       secs, stopped_by);

	/* Everyone finishes their scene and goes; 120 s for slow kernels. */
	for (uint64_t deadline = now_ms() + 120000; alive && now_ms() < deadline;) {
		usleep(20000);
		reap();
	}
	for (int i = 0; i < nprocs; i++)
		if (pids[i] > 0) {
			fail(CK_PROCS, "a %s did not stop within 120 s", role[i]);
			kill(pids[i], SIGKILL);
		}
	/* Orphans (the subreaper's) too. */
	kill(kmsg, SIGKILL);
	for (int tries = 0; tries < 600; tries++) {
		if (waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD)
			break;
		usleep(50000);
	}
	pass(CK_PROCS, 1);
	for (int i = 0; i < writers; i++)
		tbl_set(sh->writer_mnt[i], ST_INACTIVE);
	unmount_leftovers();
	check_quiescent();
	/* Late kernel reports of the teardown. */
	kmsg = fork();
	if (kmsg == 0)
		kmsg_main();
	usleep(1500000);
	kill(kmsg, SIGKILL);
	waitpid(kmsg, NULL, 0);
	pass(CK_KLOG, 1);
	/* A run that -x ended early did little by design: no gate. */
	if (!stopped_by)
		gate(secs, storm, paths);

	for (int c = 0; c < CK_NR; c++) {
		struct check_state *k = &sh->ck[c];
		uint64_t count = atomic_load(&k->count), fails = atomic_load(&k->fails);
		uint64_t first = atomic_load(&k->first_ms);

		checks += count;
		if (fails) {
			failed++;
			printf("not ok %d %s\n", c + 1, check_name(c));
			printf("# %llu of %llu checks failed; first at %.3fs: %s\n",
			       (unsigned long long)fails, (unsigned long long)count,
			       (first - 1) / 1000.0, k->first);
		} else if (!count && !paths &&
			   (c == CK_MNTWALK || c == CK_MNTID || c == CK_UFFD)) {
			printf("ok %d %s # SKIP no path walker (-P 0)\n", c + 1, check_name(c));
		} else if (!count && stopped_by) {
			printf("ok %d %s # SKIP the run ended at the first failure (-x)\n", c + 1,
			       check_name(c));
		} else if (!count) {
			failed++;
			printf("not ok %d %s\n", c + 1, check_name(c));
			printf("# never exercised\n");
		} else {
			printf("ok %d %s\n", c + 1, check_name(c));
			printf("# %llu checks\n", (unsigned long long)count);
		}
	}
	printf("# nstorture: seed=%llu, %.1f s, %llu checks, %d of %d families failed; %.1f s to stop and check\n",
	       (unsigned long long)seed, secs, (unsigned long long)checks, failed, CK_NR,
	       (now_ms() - sh->start_ns / 1000000) / 1000.0 - secs);
	print_rates("# NSTORTURE-STATS", secs);
	return failed ? 1 : 0;
}
