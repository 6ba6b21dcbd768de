// SPDX-License-Identifier: GPL-2.0
/*
 * ns_difftest SEED_FROM SEED_TO STEPS
 * ns_difftest			(the default range, for the guest's test runner)
 *
 * Runs, for each seed, STEPS random namespace operations in a fresh
 * process tree (see driver.c) and prints the canonical trace between
 * NSTREE-DIFF-BEGIN and NSTREE-DIFF-END, one "SEED s" block per seed.
 * The verdict is scripts/difftest-compare.py's, which diffs the traces
 * of the C and the Rust kernel; the TAP line at the end only says that
 * the trace was printed.  Must run as root in the initial namespaces.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <linux/nsfs.h>

#include "dt.h"
#include "stats.h"

/*
 * The default run: what the guest's runner executes (it kills a binary
 * after 600 s of guest time).  300 seeds x 50 steps took 38-45 s under
 * TCG (2 vCPUs) on either kernel, but the guest clock under TCG is not
 * reliable (one boot calibrated the TSC low and its clock ran ~4x fast:
 * 224 s for the same run), hence 250 seeds and a time budget that stops
 * cleanly before the runner's kill, a safety net: both kernels of a
 * flavour run the same seeds, and a seed one of them did not run is a
 * failure of the comparison (scripts/difftest-compare.py).  Debug kernels
 * (KASAN, lockdep) run ~5x slower: there the runner sets
 * NSTREE_DIFFTEST_TO (see qemu/run.sh) to 60 seeds.
 */
#ifndef DEFAULT_TO	/* -DDEFAULT_TO=... for quicker experiments */
#define DEFAULT_TO	250
#endif
#ifndef DEFAULT_FROM
#define DEFAULT_FROM	1
#endif
#ifndef DEFAULT_STEPS
#define DEFAULT_STEPS	50
#endif
/*
 * Then seeds that build hundreds of namespaces and page through them
 * across the kernel's batch and pause sizes (DT_LARGE_FROM + 1 on):
 * NSTREE_DIFFTEST_LARGE of them, 8 by default, fewer on debug kernels.
 */
#define DEFAULT_LARGE	8
#define DEFAULT_BUDGET_S	540
/* One seed may not take longer than this. */
#define SEED_TIMEOUT_S	60

struct dt_stats *dt_stats;

static __printf(1, 2) void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

/*
 * Run one seed in a child (its own process group, so that a hung seed
 * can be killed with every holder it made).  SIGCHLD is blocked in the
 * top process and waited for with a timeout.  Returns the child's exit
 * status, -1 on timeout.
 */
static int run_one(uint64_t seed, int steps, const sigset_t *chld)
{
	uint64_t deadline = dt_now_ms() + SEED_TIMEOUT_S * 1000ULL, now;
	struct timespec ts;
	int status = 0;
	pid_t pid, w;

	pid = fork();
	if (pid < 0)
		return -2;
	if (pid == 0) {
		setpgid(0, 0);
		sigprocmask(SIG_UNBLOCK, chld, NULL);
		_exit(dt_run_seed(seed, steps));
	}
	setpgid(pid, pid);
	for (;;) {
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		now = dt_now_ms();
		if (w < 0 || now >= deadline) {
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			status = -1;
			break;
		}
		ts.tv_sec = (deadline - now) / 1000;
		ts.tv_nsec = (deadline - now) % 1000 * 1000000L;
		sigtimedwait(chld, NULL, &ts);
	}
	/* Orphans of the seed are ours (child subreaper): kill and reap. */
	kill(-pid, SIGKILL);
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	if (status == -1)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int listns_works(void)
{
	struct ns_id_req req = { .size = NS_ID_REQ_SIZE_VER0 };
	__u64 id;

	return syscall(__NR_listns, &req, &id, 1, 0) >= 0;
}

int main(int argc, char **argv)
{
	unsigned long long from = DEFAULT_FROM, to = DEFAULT_TO, large = DEFAULT_LARGE, s, i;
	int steps = DEFAULT_STEPS, ret, failed = 0;
	uint64_t budget_ms = 0, t0, ts, slowest = 0;
	const char *env_to;
	bool cut = false;
	sigset_t chld;

	if (argc == 4) {
		from = strtoull(argv[1], NULL, 0);
		to = strtoull(argv[2], NULL, 0);
		steps = atoi(argv[3]);
		large = 0;
	} else if (argc == 1) {
		budget_ms = DEFAULT_BUDGET_S * 1000ULL;
		/*
		 * The runner's seed count for this kernel (debug kernels run
		 * ~5x slower): both kernels of a flavour run the same seeds,
		 * so the budget stays a safety net that never cuts.
		 */
		env_to = getenv("NSTREE_DIFFTEST_TO");
		if (env_to)
			to = strtoull(env_to, NULL, 0);
		env_to = getenv("NSTREE_DIFFTEST_LARGE");
		if (env_to)
			large = strtoull(env_to, NULL, 0);
	} else {
		fprintf(stderr, "usage: %s [SEED_FROM SEED_TO STEPS]\n", argv[0]);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	dt_stats = mmap(NULL, sizeof(*dt_stats), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (dt_stats == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	if (geteuid() != 0 || !listns_works()) {
		say("1..0 # SKIP needs root and listns() (%s)\n", strerror(errno));
		return 0;
	}
	/* The mount point of the holders' private tmpfs, in every mount ns. */
	if (mkdir("/tmp/nsdiff", 0755) && errno != EEXIST) {
		say("1..0 # SKIP cannot make /tmp/nsdiff: %s\n", strerror(errno));
		return 0;
	}

	say("NSTREE-DIFF-BEGIN seeds=%llu..%llu steps=%d large=%llu\n", from, to, steps, large);
	t0 = dt_now_ms();
	for (i = 0; i < to - from + 1 + large; i++) {
		/* The ordinary seeds, then the large ones. */
		s = i <= to - from ? from + i : DT_LARGE_FROM + 1 + i - (to - from + 1);
		if (budget_ms && dt_now_ms() - t0 > budget_ms) {
			cut = true;
			break;
		}
		ts = dt_now_ms();
		ret = run_one(s, steps, &chld);
		ts = dt_now_ms() - ts;
		if (ts > slowest)
			slowest = ts;
		if (ret == -1)
			say("TIMEOUT\n");
		else if (ret)
			say("ABORT status=%d\n", ret);
		failed += ret != 0;
	}
	say("NSTREE-DIFF-END\n");
	say("# difftest: %llu seeds x %d steps in %llu ms (slowest seed %llu ms)%s\n",
	    (unsigned long long)dt_stats->seeds, steps,
	    (unsigned long long)(dt_now_ms() - t0), (unsigned long long)slowest,
	    cut ? ", stopped by the time budget" : "");
	say("# difftest: %llu large seeds, %llu walks with a listns() call of more than 64 ids\n",
	    (unsigned long long)dt_stats->large_seeds, (unsigned long long)dt_stats->big_walks);
	say("# difftest: %llu walks, %llu ended at a cursor (END), %llu ENOENT with an active namespace after the cursor\n",
	    (unsigned long long)dt_stats->walks, (unsigned long long)dt_stats->walk_end,
	    (unsigned long long)dt_stats->walk_enoent);
	say("# difftest: seed ends waited %llu ms for the tree (max %llu ms), %llu unsettled; %d seeds aborted or timed out\n",
	    (unsigned long long)dt_stats->end_wait_ms,
	    (unsigned long long)dt_stats->max_end_ms,
	    (unsigned long long)dt_stats->end_unsettled, failed);
	say("1..1\nok 1 difftest trace printed (compare on host)\n");
	return 0;
}
