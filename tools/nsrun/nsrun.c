// SPDX-License-Identifier: GPL-2.0
/*
 * nsrun: run one test and wait until every process it started is gone.
 *
 *   nsrun [-n] LIMIT_S LEFTOVER_S COMMAND [ARG...]
 *
 * The guest test runner (qemu/run-tests.sh) runs each test through it.
 * nsrun makes itself a child subreaper (PR_SET_CHILD_SUBREAPER), runs
 * COMMAND as its child and kills it (SIGKILL) after LIMIT_S seconds, as
 * `timeout -s KILL` did.  A process the test leaves behind (an orphan
 * asleep in its namespaces, an autoreaped child still exiting) is
 * reparented to nsrun, not to init, so nsrun can wait for it exactly:
 * it reaps until wait() says it has no children left, up to LEFTOVER_S
 * seconds, and then names those still alive on stdout ("# nstree-rs:
 * processes left behind: PID...").  A zombie's cred keeps its user
 * namespace active until it is reaped (release_task() ->
 * exit_cred_namespaces(), kernel/exit.c), so reaping is the end of a
 * test's footprint on listns(), not its exit.
 *
 * -n: do not wait for leftovers (the mutant of
 * scripts/runner-settle-power.sh: the runner before it waited).
 *
 * Exit status: COMMAND's, or 128 + the signal that ended it (137 for
 * the limit's SIGKILL, as timeout(1) reports it); 125 if nsrun failed.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

/* Our children still alive, from /proc/PID/stat's ppid field. */
static void print_leftovers(void)
{
	pid_t self = getpid();
	struct dirent *de;
	DIR *d = opendir("/proc");

	printf("# nstree-rs: processes left behind:");
	while (d && (de = readdir(d))) {
		char path[300], buf[512], *p;
		FILE *f;
		int ppid;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
		fclose(f);
		if (p && sscanf(p + 1, " %*c %d", &ppid) == 1 && ppid == self)
			printf(" %s", de->d_name);
	}
	if (d)
		closedir(d);
	printf("\n");
	fflush(stdout);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int status, child_status = 0, nowait = 0, child_done = 0;
	double deadline;
	sigset_t chld;
	pid_t child, pid;

	if (argc > 1 && !strcmp(argv[1], "-n")) {
		nowait = 1;
		argv++;
		argc--;
	}
	if (argc < 4) {
		fprintf(stderr, "usage: nsrun [-n] LIMIT_S LEFTOVER_S COMMAND [ARG...]\n");
		return 125;
	}
	if (!nowait && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) {
		perror("nsrun: PR_SET_CHILD_SUBREAPER");
		return 125;
	}
	/*
	 * SIGCHLD blocked and waited for with sigtimedwait(): no handler.
	 * An ignored SIGCHLD (inherited across exec) would autoreap.
	 */
	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);

	child = fork();
	if (child < 0) {
		perror("nsrun: fork");
		return 125;
	}
	if (child == 0) {
		sigprocmask(SIG_UNBLOCK, &chld, NULL);
		execvp(argv[3], argv + 3);
		perror("nsrun: exec");
		_exit(126);
	}

	deadline = now() + strtoul(argv[1], NULL, 10);
	for (;;) {
		struct timespec ts;
		double left;

		while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
			if (pid == child) {
				child_status = status;
				child_done = 1;
				/* Now the leftovers' time. */
				deadline = now() + strtoul(argv[2], NULL, 10);
			}
		}
		/* ECHILD: nothing left to reap. */
		if (child_done && (nowait || (pid < 0 && errno == ECHILD)))
			break;
		left = deadline - now();
		if (left <= 0) {
			if (child_done) {
				print_leftovers();
				break;
			}
			kill(child, SIGKILL);
			deadline = now() + 3600;
			continue;
		}
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - ts.tv_sec) * 1e9);
		sigtimedwait(&chld, NULL, &ts);
	}

	if (WIFSIGNALED(child_status))
		return 128 + WTERMSIG(child_status);
	return WEXITSTATUS(child_status);
}
