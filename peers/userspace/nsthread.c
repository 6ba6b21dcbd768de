// SPDX-License-Identifier: GPL-2.0
/*
 * nsthread - a process one of whose threads is in other namespaces.
 *
 *   nsthread TYPE...
 *
 * A second thread unshare()s a new namespace of each TYPE (uts, ipc, net,
 * cgroup: the types a thread may unshare on its own) and sleeps; the main
 * thread stays where it was.  The new namespaces are reachable only
 * through /proc/PID/task/TID/ns/, not through /proc/PID/ns/.  Prints
 * "PID TID" once the thread is set up; runs until killed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int flags;
static int ready[2];

static void *thread(void *arg)
{
	char c = 0;
	pid_t tid = syscall(SYS_gettid);

	if (unshare(flags)) {
		fprintf(stderr, "nsthread: unshare: %s\n", strerror(errno));
		c = 1;
	}
	if (write(ready[1], &c, 1) != 1 || c)
		exit(1);
	printf("%d %d\n", getpid(), tid);
	fflush(stdout);
	for (;;)
		pause();
	return arg;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int flag;
	} kinds[] = {
		{ "uts", CLONE_NEWUTS }, { "ipc", CLONE_NEWIPC },
		{ "net", CLONE_NEWNET }, { "cgroup", CLONE_NEWCGROUP },
	};
	pthread_t t;
	char c;
	size_t j;
	int i;

	for (i = 1; i < argc; i++) {
		for (j = 0; j < ARRAY_SIZE(kinds); j++)
			if (!strcmp(argv[i], kinds[j].name))
				break;
		if (j == ARRAY_SIZE(kinds)) {
			fprintf(stderr, "usage: nsthread uts|ipc|net|cgroup...\n");
			return 1;
		}
		flags |= kinds[j].flag;
	}
	if (!flags || pipe(ready) || pthread_create(&t, NULL, thread, NULL))
		return 1;
	if (read(ready[0], &c, 1) != 1 || c)
		return 1;
	for (;;)
		pause();
}
