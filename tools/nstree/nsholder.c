// SPDX-License-Identifier: GPL-2.0
/*
 * nsholder - create namespaces that no process is in.
 *
 *   nsholder [-s] TYPE...
 *
 * A background process unshare()s a new namespace of each TYPE (net, uts,
 * ipc, cgroup, mnt), opens it, and setns()es back into the namespaces it
 * came from.  Afterwards it holds each new namespace only by that open
 * nsfs fd: listns() lists it, /proc/PID/ns/ shows it nowhere.
 *
 * With -s (net only) it holds a socket created inside the namespace
 * instead and closes the nsfs fd: a namespace held by a socket alone
 * is inactive, so listns() does not list it, but it still exists and
 * keeps its id.
 *
 * For each namespace one line "PID TYPE ID INODE FD" goes to stdout: the
 * holder's pid, the namespace, and the fd that holds it (readable as
 * /proc/PID/fd/FD for an nsfs fd).  The holder runs until killed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nstree.h"

#define MAX_NS 8

static const struct {
	const char *name;
	int flag;
} kinds[] = {
	{ "net",	CLONE_NEWNET },
	{ "uts",	CLONE_NEWUTS },
	{ "ipc",	CLONE_NEWIPC },
	{ "cgroup",	CLONE_NEWCGROUP },
	{ "mnt",	CLONE_NEWNS },
};

struct held {
	const char *name;
	int flag;
	int orig_fd;	/* the namespace to return to */
	int fd;		/* what holds the new one */
};

static void die(const char *what)
{
	fprintf(stderr, "nsholder: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int ns_fd(const char *name)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/self/ns/%s", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		die(path);
	return fd;
}

/* Runs in the holder; writes the report lines to @out. */
static void hold(struct held *h, int n, bool sock, FILE *out)
{
	int flags = 0, i;
	struct stat st;
	__u64 id;

	for (i = 0; i < n; i++) {
		h[i].orig_fd = ns_fd(h[i].name);
		flags |= h[i].flag;
	}
	if (unshare(flags))
		die("unshare");
	for (i = 0; i < n; i++) {
		h[i].fd = ns_fd(h[i].name);
		if (ioctl(h[i].fd, NS_GET_ID, &id) || fstat(h[i].fd, &st))
			die("NS_GET_ID");
		if (sock) {
			/* The socket keeps a reference, but not an active one. */
			int s = socket(AF_UNIX, SOCK_STREAM, 0);

			if (s < 0)
				die("socket");
			close(h[i].fd);
			h[i].fd = s;
		}
		if (setns(h[i].orig_fd, h[i].flag))
			die("setns");
		close(h[i].orig_fd);
		fprintf(out, "%d %s %llu %llu %d\n", getpid(), h[i].name,
			(unsigned long long)id, (unsigned long long)st.st_ino,
			h[i].fd);
	}
}

int main(int argc, char **argv)
{
	struct held h[MAX_NS];
	bool sock = false;
	int pipefd[2], n = 0, i, k;
	char buf[4096];
	ssize_t len;
	pid_t pid;
	FILE *out;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-s")) {
			sock = true;
			continue;
		}
		for (k = 0; k < (int)ARRAY_SIZE(kinds); k++)
			if (!strcmp(argv[i], kinds[k].name))
				break;
		if (k == (int)ARRAY_SIZE(kinds) || n == MAX_NS) {
			fprintf(stderr, "usage: nsholder [-s] net|uts|ipc|cgroup|mnt...\n");
			return 1;
		}
		h[n].name = kinds[k].name;
		h[n].flag = kinds[k].flag;
		n++;
	}
	if (!n || (sock && (n != 1 || h[0].flag != CLONE_NEWNET))) {
		fprintf(stderr, "usage: nsholder [-s] net|uts|ipc|cgroup|mnt...  (-s: net only)\n");
		return 1;
	}

	/* The report travels through a pipe: the caller gets it only once
	 * the holder is set up, and the holder's stdout is not kept open.
	 */
	if (pipe(pipefd))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(pipefd[0]);
		setsid();
		out = fdopen(pipefd[1], "w");
		if (!out)
			die("fdopen");
		hold(h, n, sock, out);
		fclose(out);
		if (chdir("/"))
			die("chdir");
		i = open("/dev/null", O_RDWR);
		if (i >= 0) {
			dup2(i, 0);
			dup2(i, 1);
			dup2(i, 2);
			if (i > 2)
				close(i);
		}
		signal(SIGHUP, SIG_IGN);
		for (;;)
			pause();
	}
	close(pipefd[1]);
	k = 0;
	while ((len = read(pipefd[0], buf, sizeof(buf))) > 0) {
		if (fwrite(buf, 1, len, stdout) != (size_t)len)
			return 1;
		k = 1;
	}
	/* No report: the holder failed and said why on stderr. */
	return k ? 0 : 1;
}
