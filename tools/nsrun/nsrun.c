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

static volatile sig_atomic_t alarmed;

static void on_alarm(int sig)
{
	(void)sig;
	alarmed = 1;
}

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

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	int status = 0, child_status = 0, nowait = 0;
	unsigned int limit, leftover;
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
	limit = strtoul(argv[1], NULL, 10);
	leftover = strtoul(argv[2], NULL, 10);
	if (!nowait && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) {
		perror("nsrun: PR_SET_CHILD_SUBREAPER");
		return 125;
	}
	/* No SA_RESTART: the alarm interrupts waitpid(). */
	sigaction(SIGALRM, &sa, NULL);

	child = fork();
	if (child < 0) {
		perror("nsrun: fork");
		return 125;
	}
	if (child == 0) {
		execvp(argv[3], argv + 3);
		perror("nsrun: exec");
		_exit(126);
	}

	alarm(limit);
	for (;;) {
		pid = waitpid(child, &child_status, 0);
		if (pid == child)
			break;
		if (pid < 0 && errno == EINTR && alarmed) {
			kill(child, SIGKILL);
			alarmed = 0;
		} else if (pid < 0 && errno != EINTR) {
			perror("nsrun: waitpid");
			return 125;
		}
	}
	alarm(0);

	if (!nowait) {
		alarmed = 0;
		alarm(leftover);
		for (;;) {
			pid = waitpid(-1, &status, 0);
			if (pid > 0)
				continue;
			if (errno == ECHILD)
				break;
			if (errno == EINTR && alarmed) {
				print_leftovers();
				break;
			}
		}
		alarm(0);
	}

	if (WIFSIGNALED(child_status))
		return 128 + WTERMSIG(child_status);
	return WEXITSTATUS(child_status);
}
