// SPDX-License-Identifier: GPL-2.0
/*
 * nsbench: benchmark of listns(), namespace lookup by file handle and
 * namespace churn, for comparing the C and the Rust namespace tree on the
 * same population.
 *
 *   nsbench [--filter TOKENS]   the benchmark
 *   nsbench --smoke             100 namespaces, 1 rep, TAP "ok 1 nsbench smoke"
 *
 * TOKENS (comma separated; the guest passes nstree.filter= through):
 *   sizes=1000:10000:50000  population sizes (the population only grows)
 *   reps=7                  repetitions of every cell (bench.sh: 5 under icount)
 *   ms=30                   measured time per cell and repetition (icount: 10)
 *   churn_ms=150            the same for the churn_ workloads and listns_churn
 *                           (default 5 * ms: the async teardown of churned
 *                           namespaces makes their samples vary, longer
 *                           windows average it)
 *   calib=2000              TSC calibration time (coarse clocks only)
 *   only=listns:churn_uts   only workloads whose name starts with one of these
 *   mem=2000                namespaces per type for the slab memory figures
 *                           (mem.c; net: a tenth), 0 for none
 *   smoke                   the same as --smoke
 *
 * Output, between NSBENCH-BEGIN and NSBENCH-END (prefixed "# " in smoke
 * mode, to stay TAP):
 *   NSBENCH workload=W n=N rep=R ns_per_op=T iters=I count=C
 * NSBENCH-MEM lines (mem.c) and NSBENCH-INFO lines.  Times come from CLOCK_MONOTONIC, or from the TSC
 * calibrated against it when the clock is coarse (see util.c); under
 * QEMU -icount (scripts/bench.sh) both count guest instructions.
 *
 * Workloads: listns_all/_type/_owner (one call), walk_p1024/p16/p1 (the
 * full list page by page), fh_open (open_by_handle_at() by id + close),
 * diag_* (parts of a listns() call and a missed handle lookup, to locate
 * a difference), proc_scan (/proc/PID/ns/X, as lsns) and proc_scan_fd
 * (also /proc/PID/fd/N, which finds the fd-held namespaces), churn_TYPE
 * (vfork + unshare + exit + wait in U3; churn_none without unshare),
 * listns_churn (listns_all by the driver pinned to CPU 0 while the churn
 * server, pinned to CPU 1, creates and destroys UTS namespaces without
 * pause; it needs 2 CPUs).  After each listns_churn sample a line
 *   NSBENCH-INFO churn workload=listns_churn n=N rep=R churn_ops=K ...
 * tells how many namespaces were churned while it was measured; none
 * fails the run.  Under -icount the guest clock counts the instructions
 * of both CPUs, so listns_churn's ns/op is the listns() call plus the
 * churn that ran meanwhile (with both CPUs busy, about as much again).
 *
 * Before measuring each size every listing is checked against the exact
 * expected count, the walks against the single call, the file handles
 * against NS_GET_ID, an unprivileged listns() against the caller's own
 * namespaces and the /proc scan against listns(): a mismatch fails the
 * run (and the smoke test).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/nsfs.h>

#include "nsbench.h"
#include "workloads.h"

#define MAX_SIZES 8
#define MAX_ITERS 1000000L

static long sizes[MAX_SIZES] = { 1000, 10000, 50000 };
static int nr_sizes = 3;
static int reps = 7;
static long target_ms = 30;
static long churn_ms;	/* 0: 5 * target_ms */
static long calib_ms = 2000;
static long mem_nr = 2000;
static char only[256];

static const char *pfx(void)
{
	return opt_smoke ? "# " : "";
}

static void parse_filter(char *s)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "smoke") || !strcmp(tok, "all") || !*tok) {
			opt_smoke |= !strcmp(tok, "smoke");
		} else if (!strncmp(tok, "sizes=", 6)) {
			char *v, *vs = NULL;

			nr_sizes = 0;
			for (v = strtok_r(tok + 6, ":", &vs); v && nr_sizes < MAX_SIZES;
			     v = strtok_r(NULL, ":", &vs))
				sizes[nr_sizes++] = atol(v);
		} else if (!strncmp(tok, "reps=", 5)) {
			reps = atoi(tok + 5);
		} else if (!strncmp(tok, "ms=", 3)) {
			target_ms = atol(tok + 3);
		} else if (!strncmp(tok, "churn_ms=", 9)) {
			churn_ms = atol(tok + 9);
		} else if (!strncmp(tok, "calib=", 6)) {
			calib_ms = atol(tok + 6);
		} else if (!strncmp(tok, "mem=", 4)) {
			mem_nr = atol(tok + 4);
		} else if (!strncmp(tok, "only=", 5)) {
			snprintf(only, sizeof(only), "%s", tok + 5);
		} else {
			fail("unknown filter token '%s'", tok);
		}
	}
}

static bool selected(const char *name)
{
	char buf[256], *tok, *save = NULL;

	if (!only[0])
		return true;
	snprintf(buf, sizeof(buf), "%s", only);
	for (tok = strtok_r(buf, ":", &save); tok; tok = strtok_r(NULL, ":", &save))
		if (!strncmp(name, tok, strlen(tok)))
			return true;
	return false;
}

static void write_sysctl(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, val, strlen(val)) < 0)
		fail("writing %s to %s: %s", val, path, strerror(errno));
	close(fd);
}

/*
 * The default per-type namespace limits scale with memory (max_threads /
 * 2, about 8k in a 2 GiB guest); each holder needs an fd per namespace.
 */
static void raise_limits(void)
{
	static const char *const types[] = {
		"cgroup", "ipc", "mnt", "net", "pid", "time", "user", "uts",
	};
	struct rlimit rl = { 1 << 20, 1 << 20 };
	char path[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		snprintf(path, sizeof(path), "/proc/sys/user/max_%s_namespaces", types[i]);
		write_sysctl(path, "1000000");
	}
	write_sysctl("/proc/sys/fs/nr_open", "1048576");
	write_sysctl("/proc/sys/fs/file-max", "4000000");
	if (setrlimit(RLIMIT_NOFILE, &rl))
		fail("RLIMIT_NOFILE: %s", strerror(errno));
}

static long mem_available_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static long count_listns(__u32 type, __u64 owner, struct ctx *c)
{
	long r = sys_listns(type, owner, 0, c->ids, c->ids_cap);

	if (r < 0)
		fail("listns(type=%#x, owner=%llu): %s", type, (unsigned long long)owner,
		     strerror(errno));
	return r;
}

struct baseline {
	long all, uts;
};

/*
 * The exact expectations at population size n, and the material of
 * fh_open (a sample of ids from the full list).
 */
static void check_population(struct ctx *c, const struct baseline *b, long n)
{
	static const long pages[] = { 1, 16, 1024 };
	long all, r, i, links, fds, owned;
	uint64_t el;
	__u64 *walk;
	size_t p;
	int err;

	all = count_listns(0, 0, c);
	if (all != b->all + n)
		fail("n=%ld: listns(all) listed %ld, expected %ld + %ld", n, all, b->all, n);
	for (i = 1; i < all; i++)
		if (c->ids[i] <= c->ids[i - 1])
			fail("n=%ld: listns(all) ids not ascending at %ld", n, i);
	for (i = 0; i < NR_SAMPLE; i++)
		c->sample[i] = c->ids[(i * 2654435761u) % all];
	c->mid_id = c->ids[all / 2];
	c->miss_id = c->ids[all - 1] + (1ull << 32);

	walk = malloc(c->ids_cap * sizeof(*walk));
	if (!walk)
		fail("out of memory");
	for (p = 0; p < ARRAY_SIZE(pages); p++) {
		r = walk_all(pages[p], c->page, walk, c->ids_cap);
		if (r != all || memcmp(walk, c->ids, all * sizeof(*walk)))
			fail("n=%ld: walk with pages of %ld listed %ld ids, not the %ld of one call",
			     n, pages[p], r, all);
	}
	free(walk);

	for (i = 0; i < 64; i++) {
		__u64 id = c->sample[i], got = 0;
		int fd = fh_open(id);

		if (fd < 0)
			fail("n=%ld: open_by_handle_at(ns_id=%llu): %s", n,
			     (unsigned long long)id, strerror(errno));
		if (ioctl(fd, NS_GET_ID, &got) || got != id)
			fail("n=%ld: handle for %llu opened %llu", n, (unsigned long long)id,
			     (unsigned long long)got);
		close(fd);
	}
	r = fh_open(c->miss_id);
	if (r >= 0 || errno != ESTALE)
		fail("n=%ld: open_by_handle_at(unused id) = %ld (%s), expected ESTALE", n, r,
		     r >= 0 ? "opened" : strerror(errno));
	r = sys_listns(0, 0, c->mid_id, c->ids, 1);
	if (r != 1 || c->ids[0] <= c->mid_id)
		fail("n=%ld: listns(after %llu, 1) = %ld", n, (unsigned long long)c->mid_id, r);

	/*
	 * Root in U3 only: it may list just the namespaces it is in, those
	 * of init (it only joined U3) but init_user_ns, and U3.
	 */
	err = unpriv_listns(1, c->ids_cap, &el, &r);
	if (err || r != NR_KINDS)
		fail("n=%ld: listns(all) from inside U3 listed %ld (%s), expected %d", n, r,
		     strerror(-err), NR_KINDS);

	r = count_listns(CLONE_NEWUTS, 0, c);
	if (r != b->uts + pop_kind_total(c->pop, K_UTS))
		fail("n=%ld: listns(uts) listed %ld, expected %ld + %ld", n, r, b->uts,
		     pop_kind_total(c->pop, K_UTS));
	owned = pop_owned_by(c->pop, OWNER_LEVEL);
	r = count_listns(0, c->pop->userns_id[OWNER_LEVEL], c);
	if (r != owned)
		fail("n=%ld: listns(owner U%d) listed %ld, expected %ld", n, OWNER_LEVEL + 1,
		     r, owned);

	/*
	 * Every active namespace is in some process or open fd: the full
	 * /proc scan must find exactly what listns() lists.  The ns links
	 * alone find at least the sleepers' namespaces.
	 */
	links = proc_scan_count(c, false);
	fds = proc_scan_count(c, true);
	if (fds != all)
		fail("n=%ld: /proc/*/{ns,fd} scan found %ld namespaces, listns %ld", n, fds, all);
	r = 0;
	for (i = 0; i < NR_LEVELS; i++)
		r += SLEEPER_NS * c->pop->sleepers[i];
	if (links < r)
		fail("n=%ld: /proc/*/ns scan found %ld namespaces, the sleepers hold %ld",
		     n, links, r);
	printf("%sNSBENCH-INFO n=%ld listed=%ld owned=%ld proc_ns_found=%ld proc_fd_found=%ld\n",
	       pfx(), n, all, owned, links, fds);
}

static void grow_buffers(struct ctx *c, long n)
{
	long cap = n + 4096;

	if (cap <= c->ids_cap)
		return;
	free(c->ids);
	c->ids = malloc(cap * sizeof(*c->ids));
	if (!c->ids)
		fail("out of memory");
	c->ids_cap = cap;
	free(c->set_links.slot);
	free(c->set_all.slot);
	if (idset_init(&c->set_links, n / 4 + 1024) || idset_init(&c->set_all, cap))
		fail("out of memory");
}

/* Idle and total jiffies of all CPUs, from /proc/stat. */
static void cpu_jiffies(unsigned long long *idle, unsigned long long *total)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "re");
	int i;

	*idle = *total = 0;
	if (!f)
		return;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		   &v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
		for (i = 0; i < 8; i++)
			*total += v[i];
		*idle = v[3] + v[4];
	}
	fclose(f);
}

/*
 * Waits (at most 3 s) until the guest has been idle for 100 ms: freeing
 * churned namespaces (cleanup_net(), free_ipc(), RCU callbacks) runs in
 * the background and would otherwise be billed to the next cell.
 */
static void quiesce(void)
{
	unsigned long long i0, t0, i1, t1;
	int tries;

	for (tries = 0; tries < 30; tries++) {
		cpu_jiffies(&i0, &t0);
		usleep(100000);
		cpu_jiffies(&i1, &t1);
		if (t1 > t0 && (i1 - i0) * 100 >= (t1 - t0) * 95)
			return;
	}
}

/*
 * Iterations for about target_ms (churn_ms for churn_) of measured time
 * (at least one).  The
 * host is shared, so a trial can be slowed down arbitrarily but never
 * sped up: the estimate is the fastest of three trials.
 */
static long calibrate(struct ctx *c, const struct workload *w, long n)
{
	long ms = !strstr(w->name, "churn") ? target_ms : churn_ms ? churn_ms : 5 * target_ms;
	uint64_t target = ms * 1000000ull, el, best;
	long iters = 1, count;
	int err, t;

	for (;;) {
		best = UINT64_MAX;
		for (t = 0; t < 3; t++) {
			err = w->run(c, w, iters, &el, &count);
			if (err)
				fail("%s n=%ld: %s", w->name, n, strerror(-err));
			if (el < best)
				best = el;
			if (el >= target)
				break;	/* expensive: one trial is enough */
		}
		if (best >= target / 4 || iters >= MAX_ITERS)
			break;
		iters *= best && target / 4 / best < 16 ? 4 : 16;
	}
	iters = best ? (long)((double)iters * target / best) : iters;
	if (iters < 1)
		iters = 1;
	return iters > MAX_ITERS ? MAX_ITERS : iters;
}

/* Selected, and (listns_churn) a second CPU for the churner. */
static bool runnable(const struct workload *w)
{
	if (!selected(w->name))
		return false;
	return strcmp(w->name, "listns_churn") || sysconf(_SC_NPROCESSORS_ONLN) >= 2;
}

/*
 * How much churn listns_churn measured under: the namespaces the churner
 * created and destroyed meanwhile, per call and per ms (of guest time:
 * under -icount, per million guest instructions).  A sample without
 * churn measured nothing of what it is for.
 */
static void report_churn(struct ctx *c, const struct workload *w, long n, int rep,
			 long iters, uint64_t el)
{
	printf("%sNSBENCH-INFO churn workload=%s n=%ld rep=%d churn_ops=%ld churn_per_call=%.3f churn_per_ms=%.2f churn_type=uts\n",
	       pfx(), w->name, n, rep, c->churn_ops, (double)c->churn_ops / iters,
	       el ? c->churn_ops * 1e6 / el : 0.0);
	if (c->churn_ops <= 0)
		fail("%s n=%ld rep=%d: the churner churned no namespace while listns() was measured",
		     w->name, n, rep);
}

static void bench_size(struct ctx *c, const struct baseline *b, long n)
{
	long iters[64], count;
	uint64_t t0, el;
	int i, rep, err;

	t0 = now_ns();
	err = pop_grow(c->pop, n);
	if (err)
		fail("growing the population to %ld: %s", n, strerror(-err));
	printf("%sNSBENCH-INFO n=%ld build_ms=%llu sleepers=%ld mem_available_kb=%ld\n",
	       pfx(), n, (unsigned long long)(now_ns() - t0) / 1000000, c->pop->nr_sleepers,
	       mem_available_kb());
	if (pop_total(c->pop) != n)
		fail("population is %ld, not %ld", pop_total(c->pop), n);
	grow_buffers(c, b->all + n);
	check_population(c, b, n);
	quiesce();

	t0 = now_ns();
	for (i = 0; workloads[i].name; i++)
		if (runnable(&workloads[i]))
			iters[i] = calibrate(c, &workloads[i], n);
	printf("%sNSBENCH-INFO n=%ld calibrate_ms=%llu\n", pfx(), n,
	       (unsigned long long)(now_ns() - t0) / 1000000);

	/* Repetitions outermost: slow drift spreads over all workloads. */
	for (rep = 1; rep <= reps; rep++) {
		quiesce();
		for (i = 0; workloads[i].name; i++) {
			const struct workload *w = &workloads[i];

			if (!runnable(w))
				continue;
			c->churn_ops = -1;
			err = w->run(c, w, iters[i], &el, &count);
			if (err)
				fail("%s n=%ld rep=%d: %s", w->name, n, rep, strerror(-err));
			printf("%sNSBENCH workload=%s n=%ld rep=%d ns_per_op=%llu iters=%ld count=%ld\n",
			       pfx(), w->name, n, rep, (unsigned long long)(el / iters[i]),
			       iters[i], count);
			if (c->churn_ops >= 0)
				report_churn(c, w, n, rep, iters[i], el);
		}
	}
}

int main(int argc, char **argv)
{
	struct population pop;
	struct baseline b;
	struct ctx c = { .pop = &pop, .churn_ops = -1 };
	struct utsname u;
	const char *clock;
	struct stat st;
	long res_ns;
	uint64_t t0;
	int i, err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--smoke"))
			parse_filter((char[]){ "smoke" });
		else if (!strcmp(argv[i], "--filter") && i + 1 < argc)
			parse_filter(argv[++i]);
		else
			fail("usage: nsbench [--smoke] [--filter TOKENS]");
	}
	if (opt_smoke) {
		sizes[0] = 100;
		nr_sizes = 1;
		reps = 1;
		target_ms = 2;
		mem_nr = 20;
		printf("1..1\n");
	}
	/* listns_churn's churner runs on CPU 1: smoke skips it without. */
	if (selected("listns_churn") && sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		if (!opt_smoke)
			fail("listns_churn needs 2 CPUs, this system has %ld (only= can leave it out)",
			     sysconf(_SC_NPROCESSORS_ONLN));
		printf("%sNSBENCH-INFO listns_churn skipped: 1 CPU\n", pfx());
	}

	raise_limits();
	mem_phase(mem_nr);
	grow_buffers(&c, 1024);
	c.page = malloc(1024 * sizeof(*c.page));
	if (!c.page)
		fail("out of memory");
	if (stat("/proc/self/ns/uts", &st))
		fail("stat /proc/self/ns/uts: %s", strerror(errno));
	c.nsfs_dev = st.st_dev;
	b.all = count_listns(0, 0, &c);
	b.uts = count_listns(CLONE_NEWUTS, 0, &c);

	/* Before any fork: the churn server times with the same clock. */
	clock = clock_setup(opt_smoke ? 100 : calib_ms, &res_ns);
	err = pop_init(&pop);
	if (err)
		fail("setting up the user namespace chain: %s", strerror(-err));
	err = churn_start(&pop);
	if (err)
		fail("starting the churn server: %s", strerror(-err));

	uname(&u);
	printf("%sNSBENCH-BEGIN release=%s cpus=%ld levels=%d reps=%d ms=%ld baseline=%ld clock_res_ns=%ld clock=%s\n",
	       pfx(), u.release, sysconf(_SC_NPROCESSORS_ONLN), NR_LEVELS, reps, target_ms,
	       b.all, res_ns, clock);
	for (i = 0; i < nr_sizes; i++)
		bench_size(&c, &b, sizes[i]);
	printf("%sNSBENCH-END\n", pfx());

	t0 = now_ns();
	churn_stop();
	pop_kill(&pop);
	printf("%sNSBENCH-INFO teardown_ms=%llu\n", pfx(),
	       (unsigned long long)(now_ns() - t0) / 1000000);
	if (opt_smoke)
		printf("ok 1 nsbench smoke\n");
	return 0;
}
