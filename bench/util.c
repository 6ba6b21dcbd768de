// SPDX-License-Identifier: GPL-2.0
/*
 * nsbench: small helpers (clock, pipes, child tracking, the listns()
 * wrapper and an inode set for the /proc scans).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/nsfs.h>

#include "nsbench.h"

#ifndef __NR_listns
#define __NR_listns 470
#endif

bool opt_smoke;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * Without ACPI the guest finds no HPET or PM timer to calibrate the TSC
 * against, marks it unstable and keeps time in jiffies: CLOCK_MONOTONIC
 * then moves in 4 ms steps.  Under TCG the guest TSC is the host's, so
 * when the clock is that coarse we count TSC cycles and convert them
 * with a rate measured against CLOCK_MONOTONIC between two of its steps.
 */
static bool use_tsc;
static double tsc_per_ns;
static uint64_t tsc_base;

static uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/* The TSC at the moment CLOCK_MONOTONIC steps past after; the new time. */
static uint64_t tsc_at_step(uint64_t after, uint64_t *mono)
{
	uint64_t t;

	while ((t = mono_ns()) <= after)
		;
	*mono = t;
	return rdtsc();
}

const char *clock_setup(long calib_ms, long *res_ns)
{
	static char desc[96];
	struct timespec res;
	uint64_t m0, m1, c0, c1;

	clock_getres(CLOCK_MONOTONIC, &res);
	*res_ns = res.tv_sec * 1000000000L + res.tv_nsec;
	if (*res_ns <= 1000)
		return "clock_monotonic";
	c0 = tsc_at_step(mono_ns(), &m0);
	usleep(calib_ms * 1000);
	c1 = tsc_at_step(mono_ns(), &m1);
	tsc_per_ns = (double)(c1 - c0) / (m1 - m0);
	tsc_base = c0;
	use_tsc = true;
	snprintf(desc, sizeof(desc), "tsc tsc_mhz=%.3f calib_ms=%llu", tsc_per_ns * 1000,
		 (unsigned long long)(m1 - m0) / 1000000);
	return desc;
}

uint64_t now_ns(void)
{
	if (use_tsc)
		return (uint64_t)((rdtsc() - tsc_base) / tsc_per_ns);
	return mono_ns();
}

int write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* 0 if all len bytes arrived, -1 on EOF or error. */
int read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* Keeps fds a and b (as 1000 and 1001) and 0-2, closes everything else. */
void keep_two(int *a, int *b)
{
	if (dup2(*a, 1000) < 0 || dup2(*b, 1001) < 0)
		_exit(2);
	*a = 1000;
	*b = 1001;
	close_range(3, 999, 0);
	close_range(1002, ~0U, 0);
}

static pid_t *children;
static long nr_children, children_cap;

void track_child(pid_t pid)
{
	if (nr_children == children_cap) {
		long cap = children_cap ? 2 * children_cap : 64;
		pid_t *n = realloc(children, cap * sizeof(*n));

		if (!n)
			return;	/* PR_SET_PDEATHSIG still ends it with us */
		children = n;
		children_cap = cap;
	}
	children[nr_children++] = pid;
}

void fail(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	long i;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fflush(stdout);
	printf("%sNSBENCH-ERROR %s\n", opt_smoke ? "# " : "", msg);
	if (opt_smoke)
		printf("not ok 1 nsbench smoke # %s\n", msg);
	fflush(stdout);
	for (i = 0; i < nr_children; i++)
		kill(children[i], SIGKILL);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	exit(1);
}

long sys_listns(__u32 ns_type, __u64 user_ns_id, __u64 after, __u64 *ids, size_t nr)
{
	struct ns_id_req req = {
		.size = NS_ID_REQ_SIZE_VER0,
		.ns_id = after,
		.ns_type = ns_type,
		.user_ns_id = user_ns_id,
	};

	return syscall(__NR_listns, &req, ids, nr, 0);
}

int idset_init(struct idset *s, long expected)
{
	size_t cap = 1024;

	while (cap < (size_t)expected * 4)
		cap *= 2;
	s->slot = calloc(cap, sizeof(*s->slot));
	if (!s->slot)
		return -ENOMEM;
	s->mask = cap - 1;
	s->count = 0;
	return 0;
}

void idset_clear(struct idset *s)
{
	memset(s->slot, 0, (s->mask + 1) * sizeof(*s->slot));
	s->count = 0;
}

/* Open addressing; 0 is never an inode number.  true if id was new. */
bool idset_add(struct idset *s, uint64_t id)
{
	size_t i = (id * 0x9e3779b97f4a7c15ull) >> 20 & s->mask;

	while (s->slot[i]) {
		if (s->slot[i] == id)
			return false;
		i = (i + 1) & s->mask;
	}
	s->slot[i] = id;
	s->count++;
	return true;
}
