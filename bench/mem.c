// SPDX-License-Identifier: GPL-2.0
/*
 * nsbench: slab memory per namespace, by type.
 *
 * For each type a child of the driver creates nr namespaces of that type
 * (a tenth of that for net), each kept alive by an open fd only, as the
 * population's holders do, and the driver reads Slab: and SUnreclaim: of
 * /proc/meminfo before (with the caches dropped) and after.  The
 * difference per namespace is what one namespace of that type costs in
 * slab memory, its fd (struct file, nsfs dentry and inode) included.
 * Struct ns_common has the same layout on every kernel, so the C and the
 * Rust kernel must agree.
 *
 *   NSBENCH-MEM kind=K n=N slab_kb=B:A sunreclaim_kb=B:A bytes_per_ns=X
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nsbench.h"

static const char proc_meminfo[] = "/proc/meminfo";

static void read_slab(long *slab, long *sunreclaim)
{
	char line[128];
	FILE *f = fopen(proc_meminfo, "re");
	long v;

	*slab = *sunreclaim = -1;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Slab: %ld kB", &v) == 1)
			*slab = v;
		else if (sscanf(line, "SUnreclaim: %ld kB", &v) == 1)
			*sunreclaim = v;
	}
	fclose(f);
}

/* Frees what can be freed: reclaimable slab and the RCU-deferred frees. */
static void settle(void)
{
	int fd;

	usleep(300000);
	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "3", 1) < 0)
			perror("drop_caches");
		close(fd);
	}
	usleep(300000);
}

static void mem_kind(enum ns_kind k, long n)
{
	long s0, u0, s1, u1;
	int pfd[2], err = 0, status;
	pid_t pid;
	long i;

	if (pipe2(pfd, O_CLOEXEC))
		fail("pipe: %s", strerror(errno));
	settle();
	read_slab(&s0, &u0);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (i = 0; i < n && !err; i++)
			err = pop_make_one(k);
		write_full(pfd[1], &err, sizeof(err));
		for (;;)
			pause();
	}
	track_child(pid);
	close(pfd[1]);
	if (read_full(pfd[0], &err, sizeof(err)))
		fail("mem %s: the child died", kinds[k].name);
	close(pfd[0]);
	if (err)
		fail("mem %s: creating namespace: %s", kinds[k].name, strerror(-err));
	read_slab(&s1, &u1);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	printf("%sNSBENCH-MEM kind=%s n=%ld slab_kb=%ld:%ld sunreclaim_kb=%ld:%ld bytes_per_ns=%ld\n",
	       opt_smoke ? "# " : "", kinds[k].name, n, s0, s1, u0, u1,
	       (s1 - s0) * 1024 / n);
}

void mem_phase(long nr)
{
	int k;

	if (nr <= 0)
		return;
	for (k = 0; k < NR_KINDS; k++)
		mem_kind(k, k == K_NET ? (nr + 9) / 10 : nr);
	settle();
}
