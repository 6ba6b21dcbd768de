// SPDX-License-Identifier: GPL-2.0
/*
 * faultinject: the namespace paths' error handling under allocation
 * failures, one call at a time, as syzkaller reaches it.
 *
 * For each operation (unshare and clone3 of every namespace type and of
 * the combinations containers use, setns by fd and by pidfd, nsfs file
 * handles, the NS_GET_* and NS_MNT_GET_* ioctls, SIOCGSKNS, listns() with
 * each filter, a bind mount of an nsfs file) it sweeps n = 1, 2, 3, ...:
 * a fresh worker process writes n to /proc/thread-self/fail-nth, makes
 * that one call, and reads fail-nth back (0: the n-th fault-injection
 * point of the call failed; more: the call made fewer than n, and the
 * sweep of that operation ends).  After every step:
 *   - the call's errno, if it failed, is one its manual page documents,
 *     or one of upstream_errnos[]: errnos 7.3 returns from a failed
 *     allocation on that path, each with its source;
 *   - listns() is back to the baseline taken before the sweep (no active
 *     namespace leaked, none missing), waited for up to SETTLE_MS since
 *     teardown is partly asynchronous (file release, RCU);
 *   - the namespaces this program holds still answer NS_GET_ID with
 *     their ids;
 *   - the kernel log is silent (/dev/kmsg): a record fails the step
 *     unless it is one of expected_log[], the pr_err()s upstream prints
 *     on these allocation failures (printed as FI-LOG lines, compared);
 *   - at the end, kmemleak (the runner's two scans after the program).
 *
 * The points counted are failslab's, and only where the count is the
 * same at every run: the guest boots with slub_debug=F (run.sh, for the
 * "faultinject" shard), which takes every cache off the per-CPU sheaves
 * (7.3 mm/slub.c calculate_sheaf_capacity(): no sheaves with
 * SLAB_DEBUG_FLAGS) and off cache merging; a sheaf's own kmalloc would
 * otherwise be counted whenever this CPU's sheaf ran empty.  Then
 * failslab's cache-filter limits faults to the caches marked failslab=1:
 * all but those whose allocations depend on state other than the call's
 * (xarray and maple tree nodes, vmap areas, kmemleak's and debugobjects'
 * own objects, which fall back to or refill a pool).  GFP_KERNEL allocations count
 * (ignore-gfp-wait=N); the page allocator does not (fail_page_alloc's
 * min-order above the largest order): a slab refilling its page, or the
 * stack depot's pool, would shift n depending on the allocator's state.
 * clone3 runs with CLONE_VM | CLONE_VFORK, so that its sweep is the
 * namespace paths, not a copy of the worker's address space.
 *
 * Diagnosis (not in make test): NSTREE_FI_ONLY=SUBSTRING sweeps only the
 * operations whose names contain it; NSTREE_FI_TRACE=OP@N[,OP@N...] turns
 * failslab's verbose on for those steps, so that the kernel log shows the
 * stack of the allocation that failed (kernel command line: nstree.fi_only=,
 * nstree.fi_trace=, qemu/init).
 *
 * Output: one line per step between NSTREE-FI-BEGIN and NSTREE-FI-END,
 *   FI <operation> n=<n> <result> <fault|nofault>
 *   FI-LOG <operation> n=<n> <kernel message>
 * (result: "ok", a return value class, or the errno's name), with a TAP
 * result after each operation's steps, then the totals.  A kernel without
 * fail-nth (the base kernels) skips the whole program.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/nsfs.h>
#include <linux/sched.h>
#include <linux/sockios.h>
#include <linux/types.h>

#ifndef __NR_listns
#define __NR_listns 470
#endif
#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef FD_NSFS_ROOT
#define FD_NSFS_ROOT -10003
#endif

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_IDS		4096
#define MAX_STEPS	20000	/* an operation's sweep that goes on is a failure */
#define SETTLE_MS	10000
#define FAIL_NTH	"/proc/thread-self/fail-nth"

/* The eight types: clone flag, /proc/PID/ns name of the holder's. */
static const struct nstype {
	const char *name;
	int flag;
	const char *link;
} types[] = {
	{ "user", CLONE_NEWUSER, "user" },
	{ "uts", CLONE_NEWUTS, "uts" },
	{ "ipc", CLONE_NEWIPC, "ipc" },
	{ "mnt", CLONE_NEWNS, "mnt" },
	{ "pid", CLONE_NEWPID, "pid_for_children" },
	{ "net", CLONE_NEWNET, "net" },
	{ "cgroup", CLONE_NEWCGROUP, "cgroup" },
	{ "time", CLONE_NEWTIME, "time_for_children" },
};
#define NTYPES ARRAY_SIZE(types)

/* What the sweep holds: a process in a namespace of each type. */
static pid_t holder;
static int holder_pipe = -1;	/* closing it ends the holder */
static int holder_fd[NTYPES];
static __u64 holder_id[NTYPES];
static int holder_pidfd = -1;
static int holder_sock = -1;	/* a socket of the holder's network namespace */
static struct file_handle *holder_fh[NTYPES];

static __u64 baseline[MAX_IDS], base0[MAX_IDS];
static long nbaseline, nbase0;
static int kmsg = -1;

enum kind {
	K_UNSHARE, K_CLONE3, K_SETNS_FD, K_SETNS_PIDFD, K_HANDLE, K_IOCTL,
	K_SIOCGSKNS, K_LISTNS, K_BIND,
};

struct op {
	char name[48];
	enum kind kind;
	unsigned long arg;	/* flags, a type index, an ioctl, a filter */
	int type;		/* the type index the call works on */
	const int *allowed;	/* the errnos its manual page documents */
	int needs;		/* which upstream_errnos[] it may see */
};

/* Documented errnos (man 2 unshare, clone, setns, open_by_handle_at,
 * ioctl_nsfs, mount; listns: its kernel-doc in 7.3 kernel/nstree.c).
 */
static const int e_unshare[] = { EINVAL, ENOMEM, ENOSPC, EPERM, EUSERS, 0 };
static const int e_clone[] = { EAGAIN, EINVAL, ENOMEM, ENOSPC, EPERM, EUSERS, 0 };
static const int e_setns[] = { EBADF, EINVAL, ENOMEM, EPERM, EUSERS, ESRCH, 0 };
static const int e_handle[] = { EBADF, EFAULT, EINVAL, ELOOP, ENOMEM, EPERM,
				ESTALE, ENFILE, EMFILE, 0 };
static const int e_ioctl[] = { ENOTTY, EPERM, ENOENT, ESRCH, EINVAL, ENOMEM,
			       ENFILE, EMFILE, 0 };
static const int e_listns[] = { EINVAL, EFAULT, ENOENT, EOPNOTSUPP, EPERM,
				ENOMEM, 0 };
static const int e_bind[] = { EINVAL, ENOMEM, EPERM, ENOENT, 0 };

/*
 * Errnos that 7.3 returns for a failed allocation where the manual pages
 * do not list them (found with NSTREE_FI_TRACE, below): accepted only for
 * the calls that reach that code, the same on both kernels (the step
 * lists are compared), and counted in the operation's summary line.
 */
#define NEEDS_CRED	1	/* the call builds new credentials */
#define NEEDS_NET	2	/* the call creates a network namespace */
static const struct upstream_errno {
	int err, needs;
	const char *where;
} upstream_errnos[] = {
	{ EAGAIN, NEEDS_CRED,
	  "kernel/cred.c set_cred_ucounts(): alloc_ucounts() failed" },
	{ EEXIST, NEEDS_NET,
	  "fs/proc/proc_net.c proc_net_ns_init(): proc_net_mkdir(\"stat\") failed" },
	{ ENODEV, NEEDS_NET,
	  "lib/kobject_uevent.c uevent_net_init(): netlink_kernel_create() failed" },
	{ ENFILE, NEEDS_NET,
	  "net/socket.c __sock_create(): sock_alloc() failed" },
	{ ENOBUFS, NEEDS_NET,
	  "net/ipv6/af_inet6.c inet6_create(): sk_alloc() failed (the control sockets)" },
	{ EAFNOSUPPORT, NEEDS_NET,
	  "net/ipv4/fib_frontend.c nl_fib_lookup_init(): netlink_kernel_create() failed" },
};
#define N_UPSTREAM ARRAY_SIZE(upstream_errnos)

static struct op ops[128];
static int nops;

static void add(enum kind kind, unsigned long arg, int type,
		const int *allowed, const char *fmt, ...)
{
	struct op *op = &ops[nops++];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(op->name, sizeof(op->name), fmt, ap);
	va_end(ap);
	op->kind = kind;
	op->arg = arg;
	op->type = type;
	op->allowed = allowed;
	op->needs = 0;
	if (kind == K_UNSHARE || kind == K_CLONE3) {
		if (arg & CLONE_NEWUSER)
			op->needs |= NEEDS_CRED;
		if (arg & CLONE_NEWNET)
			op->needs |= NEEDS_NET;
	}
	if ((kind == K_SETNS_FD && type == 0) ||
	    (kind == K_SETNS_PIDFD && (arg & CLONE_NEWUSER)))
		op->needs |= NEEDS_CRED;
}

static void die(const char *what)
{
	printf("Bail out! %s: %s\n", what, strerror(errno));
	fflush(stdout);
	exit(1);
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

static long list_all(__u64 *ids)
{
	struct ns_id_req req = { .size = NS_ID_REQ_SIZE_VER0 };

	return syscall(__NR_listns, &req, ids, MAX_IDS, 0);
}

static double secs_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Settled: listns() back to the baseline.  Returns 0, or -1 with the
 * difference in @why.
 */
static int check_baseline(char *why, size_t len)
{
	static __u64 cur[MAX_IDS];
	long n = -1;
	int waited;

	for (waited = 0; waited <= SETTLE_MS; waited += 10) {
		n = list_all(cur);
		if (n == nbaseline && !memcmp(cur, baseline, n * sizeof(*cur)))
			return 0;
		sleep_ms(10);
	}
	if (n < 0) {
		snprintf(why, len, "listns: %s", strerror(errno));
	} else {
		long i = 0, j = 0;

		/* Both lists are sorted by id: the first difference. */
		while (i < n && j < nbaseline && cur[i] == baseline[j])
			i++, j++;
		if (j < nbaseline && (i >= n || baseline[j] < cur[i]))
			snprintf(why, len, "listns: %ld ids, baseline %ld; id %llu missing",
				 n, nbaseline, (unsigned long long)baseline[j]);
		else
			snprintf(why, len, "listns: %ld ids, baseline %ld; id %llu leaked",
				 n, nbaseline, (unsigned long long)cur[i]);
	}
	return -1;
}

static int check_held(char *why, size_t len)
{
	for (size_t t = 0; t < NTYPES; t++) {
		__u64 id = 0;

		if (ioctl(holder_fd[t], NS_GET_ID, &id) || id != holder_id[t]) {
			snprintf(why, len, "held %s namespace: NS_GET_ID %s, id %llu, expected %llu",
				 types[t].name, strerror(errno),
				 (unsigned long long)id,
				 (unsigned long long)holder_id[t]);
			return -1;
		}
	}
	return 0;
}

/*
 * Kernel log records that upstream prints on an allocation failure by
 * design (pr_err, not a WARN): they are part of the step's result, printed
 * and compared between the kernels, but do not fail it.
 */
static const struct {
	const char *prefix, *also;	/* the record starts with, and has */
} expected_log[] = {
	/* fs/proc/proc_sysctl.c get_subdir(): insert_header() or new_dir()
	 * failed
	 */
	{ "sysctl could not get directory: ", " -12" },
	/* net/socket.c __sock_create(): sock_alloc() failed (-ENFILE) */
	{ "socket: no more sockets", "" },
	/* lib/kobject_uevent.c uevent_net_init(): netlink_kernel_create() */
	{ "kobject_uevent: unable to create netlink socket!", "" },
	/* lib/kobject.c kobject_add_internal(): kobject_add() failed (the
	 * netdev's sysfs directories of the loopback device)
	 */
	{ "kobject: kobject_add_internal failed for ", "(error: -12 parent: " },
	/* lib/kobject.c kobject_add_varg(): kobject_set_name_vargs() failed */
	{ "kobject: can not set name properly!", "" },
	/* net/ipv6/mcast.c igmp6_net_init(), net/ipv6/ndisc.c
	 * ndisc_net_init(): inet_ctl_sock_create() failed, with sk_alloc()'s
	 * -ENOBUFS or sock_alloc()'s -ENFILE
	 */
	{ "Failed to initialize the IGMP6 control socket (err ", "" },
	{ "Failed to initialize the IGMP6 autojoin socket (err ", "" },
	{ "ICMPv6: NDISC: Failed to initialize the control socket (err ", "" },
};

/* Every kernel log record since the last call: printed as FI-LOG lines
 * (the message only: no sequence number, no time stamp).  Returns the
 * number of records not in expected_log[].
 */
static int drain_kmsg(const struct op *op, unsigned int n)
{
	char buf[8192];
	int unexpected = 0;
	ssize_t len;

	for (;;) {
		const char *msg;
		size_t e;
		char *nl;

		len = read(kmsg, buf, sizeof(buf) - 1);
		if (len < 0 && errno == EAGAIN)
			break;
		if (len <= 0) {
			/* EPIPE: records were overwritten before we read them;
			 * anything else: a record we cannot read.  Either way
			 * the log was not what it should be.
			 */
			printf("FI-LOG %s n=%u UNEXPECTED /dev/kmsg: %s\n", op->name, n,
			       len < 0 ? strerror(errno) : "end of file");
			unexpected++;
			if (len < 0 && errno == EPIPE)
				continue;
			break;
		}
		buf[len] = 0;
		/* "prio,seq,usec,flags;message\n continuation lines" */
		msg = strchr(buf, ';');
		msg = msg ? msg + 1 : buf;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = 0;
		for (e = 0; e < ARRAY_SIZE(expected_log); e++)
			if (!strncmp(msg, expected_log[e].prefix, strlen(expected_log[e].prefix)) &&
			    strstr(msg, expected_log[e].also))
				break;
		printf("FI-LOG %s n=%u %s%s\n", op->name, n,
		       e < ARRAY_SIZE(expected_log) ? "" : "UNEXPECTED ", msg);
		if (e == ARRAY_SIZE(expected_log))
			unexpected++;
	}
	return unexpected;
}

/*
 * clone3(CLONE_VM | CLONE_VFORK | FLAGS): the child runs on a stack of its
 * own and exits at once, without touching memory (so no libc wrapper: it
 * would return through the parent's stack); the parent sleeps until then.
 * Returns 1 (a child was created) or -1 with errno.
 */
static long clone3_vfork(unsigned long flags)
{
	static char stack[4096] __attribute__((aligned(16)));
	struct clone_args args = {
		.flags = flags | CLONE_VM | CLONE_VFORK,
		.exit_signal = SIGCHLD,
		.stack = (__u64)(uintptr_t)stack,
		.stack_size = sizeof(stack),
	};
	long ret;

	asm volatile("syscall\n\t"
		     "test %%rax, %%rax\n\t"
		     "jnz 1f\n\t"
		     "mov $60, %%eax\n\t"	/* the child: exit(0) */
		     "xor %%edi, %%edi\n\t"
		     "syscall\n\t"
		     "1:"
		     : "=a"(ret)
		     : "0"((long)__NR_clone3), "D"(&args), "S"(sizeof(args))
		     : "rcx", "r11", "rdx", "r10", "r8", "r9", "memory");
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return 1;
}

/* The call itself, in the worker.  Returns the system call's result. */
static long do_call(const struct op *op)
{
	switch (op->kind) {
	case K_UNSHARE:
		return unshare(op->arg);
	case K_CLONE3:
		return clone3_vfork(op->arg);
	case K_SETNS_FD:
		return setns(holder_fd[op->type], 0);
	case K_SETNS_PIDFD:
		return setns(holder_pidfd, op->arg);
	case K_HANDLE:
		return open_by_handle_at(FD_NSFS_ROOT, holder_fh[op->type], O_RDONLY);
	case K_IOCTL: {
		struct mnt_ns_info info = { 0 };
		__u64 id;
		uid_t uid;

		switch (op->arg) {
		case NS_GET_ID:
		case NS_GET_MNTNS_ID:
			return ioctl(holder_fd[op->type], op->arg, &id);
		case NS_GET_OWNER_UID:
			return ioctl(holder_fd[op->type], op->arg, &uid);
		case NS_MNT_GET_INFO:
		case NS_MNT_GET_NEXT:
		case NS_MNT_GET_PREV:
			return ioctl(holder_fd[op->type], op->arg, &info);
		default:
			return ioctl(holder_fd[op->type], op->arg);
		}
	}
	case K_SIOCGSKNS:
		return ioctl(holder_sock, SIOCGSKNS);
	case K_LISTNS: {
		static __u64 ids[MAX_IDS];
		struct ns_id_req req = { .size = NS_ID_REQ_SIZE_VER0 };

		if (op->arg & 1)
			req.ns_type = NET_NS;
		if (op->arg & 2)
			req.user_ns_id = holder_id[0];
		if (op->arg & 4)
			req.user_ns_id = LISTNS_CURRENT_USER;
		return syscall(__NR_listns, &req, ids, MAX_IDS, 0);
	}
	case K_BIND: {
		char src[64];

		snprintf(src, sizeof(src), "/proc/%d/ns/net", holder);
		return mount(src, "/run/faultinject-bind", NULL, MS_BIND, NULL);
	}
	}
	return -1;
}

/* What a worker reports back. */
struct res {
	long ret;
	int err;
	unsigned int left;	/* fail-nth after the call: 0 = its fault fired */
};

/* One step: a worker makes the call with its n-th point failing. */
static int step(const struct op *op, unsigned int n, struct res *r)
{
	int p[2], status;
	pid_t pid;

	if (pipe(p))
		die("pipe");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		char buf[16];
		int fd = open(FAIL_NTH, O_RDWR);
		ssize_t len;

		close(p[0]);
		memset(r, 0, sizeof(*r));
		if (fd < 0)
			_exit(3);
		len = snprintf(buf, sizeof(buf), "%u", n);
		if (write(fd, buf, len) != len)
			_exit(3);
		r->ret = do_call(op);
		r->err = r->ret < 0 ? errno : 0;
		len = pread(fd, buf, sizeof(buf) - 1, 0);
		if (write(fd, "0", 1) != 1 || len <= 0)
			_exit(4);
		buf[len] = 0;
		r->left = strtoul(buf, NULL, 10);
		if (op->kind == K_BIND && r->ret == 0)
			umount2("/run/faultinject-bind", MNT_DETACH);
		if (write(p[1], r, sizeof(*r)) != sizeof(*r))
			_exit(5);
		/* The clone3 child, if there was one. */
		while (wait(NULL) > 0)
			;
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], r, sizeof(*r)) != sizeof(*r))
		memset(r, 0xff, sizeof(*r));
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static const struct {
	int e;
	const char *name;
} errnames[] = {
	{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { ESRCH, "ESRCH" },
	{ EINTR, "EINTR" }, { EBADF, "EBADF" }, { EAGAIN, "EAGAIN" },
	{ ENOMEM, "ENOMEM" }, { EFAULT, "EFAULT" }, { EBUSY, "EBUSY" },
	{ EINVAL, "EINVAL" }, { ENFILE, "ENFILE" }, { EMFILE, "EMFILE" },
	{ ENOTTY, "ENOTTY" }, { ENOSPC, "ENOSPC" }, { ELOOP, "ELOOP" },
	{ EUSERS, "EUSERS" }, { EOPNOTSUPP, "EOPNOTSUPP" }, { ESTALE, "ESTALE" },
	{ EOVERFLOW, "EOVERFLOW" }, { EEXIST, "EEXIST" }, { ENODEV, "ENODEV" },
	{ ENOBUFS, "ENOBUFS" }, { EAFNOSUPPORT, "EAFNOSUPPORT" },
};

static const char *errname(int e)
{
	static char buf[16];

	for (size_t i = 0; i < ARRAY_SIZE(errnames); i++)
		if (errnames[i].e == e)
			return errnames[i].name;
	snprintf(buf, sizeof(buf), "E%d", e);
	return buf;
}

static void build_ops(void)
{
	static const struct {
		const char *name;
		int flags;
	} combos[] = {
		/* runc/Docker: a new namespace of every type but user and time */
		{ "docker", CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC |
			    CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWCGROUP },
		/* bubblewrap and Flatpak (--unshare-all --share-net): all but
		 * net and time, in a user namespace (the combinations with
		 * net share its allocations with "docker": one is enough)
		 */
		{ "sandbox", CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID |
			     CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWCGROUP },
	};
	static const struct {
		const char *name;
		unsigned long cmd;
		int type;
	} ioctls[] = {
		{ "NS_GET_USERNS", NS_GET_USERNS, 1 },
		{ "NS_GET_PARENT(user)", NS_GET_PARENT, 0 },
		{ "NS_GET_PARENT(pid)", NS_GET_PARENT, 4 },
		{ "NS_GET_NSTYPE", NS_GET_NSTYPE, 5 },
		{ "NS_GET_OWNER_UID", NS_GET_OWNER_UID, 0 },
		{ "NS_GET_ID", NS_GET_ID, 2 },
		{ "NS_GET_MNTNS_ID", NS_GET_MNTNS_ID, 3 },
		{ "NS_MNT_GET_INFO", NS_MNT_GET_INFO, 3 },
		{ "NS_MNT_GET_NEXT", NS_MNT_GET_NEXT, 3 },
		{ "NS_MNT_GET_PREV", NS_MNT_GET_PREV, 3 },
	};
	static const char *const filters[] = {
		"all", "net", "owner", "current-user", "net+owner",
	};
	static const unsigned long filter_bits[] = { 0, 1, 2, 4, 3 };
	size_t i;

	for (i = 0; i < NTYPES; i++)
		add(K_UNSHARE, types[i].flag, i, e_unshare, "unshare(%s)", types[i].name);
	for (i = 0; i < ARRAY_SIZE(combos); i++)
		add(K_UNSHARE, combos[i].flags, 0, e_unshare, "unshare(%s)", combos[i].name);
	for (i = 0; i < NTYPES; i++)
		add(K_CLONE3, types[i].flag, i, e_clone, "clone3(%s)", types[i].name);
	for (i = 0; i < ARRAY_SIZE(combos); i++)
		add(K_CLONE3, combos[i].flags, 0, e_clone, "clone3(%s)", combos[i].name);
	for (i = 0; i < NTYPES; i++)
		add(K_SETNS_FD, 0, i, e_setns, "setns(fd,%s)", types[i].name);
	add(K_SETNS_PIDFD, CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWUTS |
	    CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWCGROUP, 0, e_setns,
	    "setns(pidfd,all)");
	add(K_SETNS_PIDFD, CLONE_NEWNS | CLONE_NEWNET, 0, e_setns,
	    "setns(pidfd,mnt+net)");
	for (i = 0; i < NTYPES; i++)
		add(K_HANDLE, 0, i, e_handle, "open_by_handle_at(%s)", types[i].name);
	for (i = 0; i < ARRAY_SIZE(ioctls); i++)
		add(K_IOCTL, ioctls[i].cmd, ioctls[i].type, e_ioctl, "ioctl(%s)", ioctls[i].name);
	add(K_SIOCGSKNS, 0, 5, e_ioctl, "ioctl(SIOCGSKNS)");
	for (i = 0; i < ARRAY_SIZE(filters); i++)
		add(K_LISTNS, filter_bits[i], 0, e_listns, "listns(%s)", filters[i]);
	add(K_BIND, 0, 5, e_bind, "mount(MS_BIND,nsfs-net)");
}

/*
 * Caches whose allocations in a call depend on more than the call: tree
 * nodes allocated when a node fills up (xarray: ids, inode numbers; maple:
 * VMAs), vmalloc's areas (a per-CPU preload), and kmemleak's own objects.
 */
static const char *const unmarked[] = {
	"radix_tree_node", "maple_node", "vmap_area", "kmemleak_object",
	/* CONFIG_DEBUG_OBJECTS refills its pool when it runs low (7.3
	 * lib/debugobjects.c fill_pool()), and a failure there is absorbed
	 */
	"debug_objects_cache", NULL,
};

#define DBG "/sys/kernel/debug/"

/* failslab for the marked caches only, page allocator out (see the top).
 * Returns the number of caches marked, or dies.
 */
static int setup_faults(int on)
{
	DIR *d = opendir("/sys/kernel/slab");
	struct dirent *e;
	int marked = 0, sheaves = 0;
	char path[512], first[256] = "";

	if (!d)
		die("/sys/kernel/slab");
	while ((e = readdir(d))) {
		const char *const *u;
		struct stat st;
		char buf[32] = "";
		int fd;

		snprintf(path, sizeof(path), "/sys/kernel/slab/%s", e->d_name);
		/* Aliases of a merged cache are symlinks. */
		if (e->d_name[0] == '.' || lstat(path, &st) || !S_ISDIR(st.st_mode))
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/sheaf_capacity", e->d_name);
		fd = open(path, O_RDONLY);
		if (fd >= 0) {
			if (read(fd, buf, sizeof(buf) - 1) > 0 && atoi(buf) != 0 && !sheaves++)
				snprintf(first, sizeof(first), "%s", e->d_name);
			close(fd);
		}
		for (u = unmarked; *u && strcmp(*u, e->d_name); u++)
			;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/failslab", e->d_name);
		if (write_str(path, on && !*u ? "1" : "0")) {
			printf("Bail out! %s: %s (a merged cache: slub_debug=F missing?)\n",
			       path, strerror(errno));
			exit(1);
		}
		marked += on && !*u;
	}
	closedir(d);
	if (on && sheaves) {
		printf("Bail out! %d caches have per-CPU sheaves (%s first): the guest must boot with slub_debug=F\n",
		       sheaves, first);
		exit(1);
	}
	if (write_str(DBG "failslab/cache-filter", on ? "Y" : "N") ||
	    write_str(DBG "failslab/ignore-gfp-wait", on ? "N" : "Y") ||
	    write_str(DBG "failslab/verbose", on ? "0" : "2") ||
	    write_str(DBG "fail_page_alloc/min-order", on ? "11" : "1") ||
	    write_str(DBG "fail_page_alloc/verbose", on ? "0" : "2"))
		die(DBG "failslab");
	return marked;
}

/* The holder: a process in a new namespace of each type (pid and time
 * for its children), sleeping until the sweep is done.
 */
static void make_holder(void)
{
	int p[2], q[2];
	char c;

	if (pipe(p) || pipe(q))
		die("pipe");
	holder = fork();
	if (holder < 0)
		die("fork");
	if (holder == 0) {
		int all = 0;

		for (size_t t = 0; t < NTYPES; t++)
			all |= types[t].flag;
		close(p[1]);
		close(q[0]);
		if (unshare(all))
			_exit(1);
		/* A socket of this network namespace for SIOCGSKNS. */
		c = socket(AF_UNIX, SOCK_DGRAM, 0) >= 0 ? 'y' : 'n';
		if (write(q[1], &c, 1) != 1)
			_exit(1);
		(void)!read(p[0], &c, 1);
		_exit(0);
	}
	close(p[0]);
	close(q[1]);
	if (read(q[0], &c, 1) != 1 || c != 'y')
		die("holder");
	/* The holder lives until p[1] is closed (drop_holder()). */
	holder_pipe = p[1];
	holder_pidfd = syscall(__NR_pidfd_open, holder, 0);
	if (holder_pidfd < 0)
		die("pidfd_open");
	for (size_t t = 0; t < NTYPES; t++) {
		char path[64];
		int mnt_id;

		snprintf(path, sizeof(path), "/proc/%d/ns/%s", holder, types[t].link);
		holder_fd[t] = open(path, O_RDONLY);
		if (holder_fd[t] < 0 || ioctl(holder_fd[t], NS_GET_ID, &holder_id[t]))
			die(path);
		holder_fh[t] = malloc(sizeof(*holder_fh[t]) + MAX_HANDLE_SZ);
		holder_fh[t]->handle_bytes = MAX_HANDLE_SZ;
		if (name_to_handle_at(holder_fd[t], "", holder_fh[t], &mnt_id,
				      AT_EMPTY_PATH))
			die("name_to_handle_at");
	}
	/* A socket of the holder's network namespace, made here. */
	{
		int self_net = open("/proc/self/ns/net", O_RDONLY);

		if (self_net < 0 || setns(holder_fd[5], CLONE_NEWNET))
			die("setns net");
		holder_sock = socket(AF_UNIX, SOCK_DGRAM, 0);
		if (holder_sock < 0 || setns(self_net, CLONE_NEWNET))
			die("socket in the holder's net");
		close(self_net);
	}
}

/*
 * drop_holder(): end the holder and close everything of its; then its
 * namespaces must leave listns() (within SETTLE_MS), so that a reference
 * an operation's error path leaked on them shows.  Returns 0, or -1 with
 * the first namespace still listed in @why.
 */
static int drop_holder(char *why, size_t len)
{
	static __u64 cur[MAX_IDS];
	int waited, t, left = -1;

	close(holder_pipe);
	close(holder_pidfd);
	close(holder_sock);
	for (t = 0; t < (int)NTYPES; t++) {
		close(holder_fd[t]);
		free(holder_fh[t]);
	}
	if (waitpid(holder, NULL, 0) != holder)
		die("waitpid holder");
	for (waited = 0; waited <= SETTLE_MS; waited += 10) {
		long n = list_all(cur);

		left = -1;
		for (t = 0; t < (int)NTYPES && left < 0; t++)
			for (long i = 0; i < n; i++)
				if (cur[i] == holder_id[t])
					left = t;
		if (left < 0)
			return 0;
		sleep_ms(10);
	}
	snprintf(why, len, "the %s namespace of the operation's holder still listed %d ms after it ended",
		 types[left].name, SETTLE_MS);
	return -1;
}

int main(void)
{
	int steps_all = 0, faults_all = 0, failed = 0, marked, i;
	char why[256];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (access(FAIL_NTH, W_OK)) {
		printf("1..0 # SKIP no %s (no CONFIG_FAULT_INJECTION: the debug kernels have it)\n",
		       FAIL_NTH);
		return 0;
	}
	marked = setup_faults(1);
	close(open("/run/faultinject-bind", O_CREAT | O_WRONLY, 0600));
	build_ops();
	/* The baseline without a holder: each operation makes its own. */
	nbase0 = list_all(base0);
	if (nbase0 < 0)
		die("listns");
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kmsg < 0 || lseek(kmsg, 0, SEEK_END) < 0)
		die("/dev/kmsg");

	printf("NSTREE-FI-BEGIN ops=%d baseline=%ld caches=%d\n", nops, nbase0, marked);
	for (size_t u = 0; u < N_UPSTREAM; u++)
		printf("# accepted where reached: %s from %s\n",
		       errname(upstream_errnos[u].err), upstream_errnos[u].where);
	printf("TAP version 13\n1..%d\n", nops);
	for (i = 0; i < nops; i++) {
		const struct op *op = &ops[i];
		const char *only = getenv("NSTREE_FI_ONLY");
		const char *trace = getenv("NSTREE_FI_TRACE");
		unsigned int n;
		int faults = 0, bad = 0, badstep, upstream = 0;
		struct timespec t0;

		why[0] = 0;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (only && !strstr(op->name, only)) {
			printf("ok %d %s # SKIP not in NSTREE_FI_ONLY\n", i + 1, op->name);
			continue;
		}
		/* A holder of its own: the operation's leaks on its namespaces
		 * show when it ends (below).
		 */
		make_holder();
		nbaseline = list_all(baseline);
		if (nbaseline < 0)
			die("listns");
		for (n = 1; n <= MAX_STEPS; n++) {
			struct res r;
			int st, logged, traced = 0;
			char res[32], msg[200], key[64];

			snprintf(key, sizeof(key), "%.47s@%u", op->name, n);
			if (trace && strstr(trace, key)) {
				const char *end = strstr(trace, key) + strlen(key);

				traced = *end == 0 || *end == ',';
			}
			if (traced)
				write_str(DBG "failslab/verbose", "2");
			st = step(op, n, &r);
			if (traced)
				write_str(DBG "failslab/verbose", "0");

			if (r.ret >= 0)
				snprintf(res, sizeof(res), "%s", r.ret == 0 ? "ok" : "ret>0");
			else
				snprintf(res, sizeof(res), "%s", errname(r.err));
			printf("FI %s n=%u %s %s\n", op->name, n, res,
			       r.left ? "nofault" : "fault");
			/* A bad step is reported (the first one's reason) and
			 * the sweep goes on: both kernels' whole step lists are
			 * compared.
			 */
			badstep = 0;
			if (st) {
				snprintf(msg, sizeof(msg), "worker exit status %d", st);
				badstep = 1;
			} else if (r.ret < 0 && r.left && r.err == ENOMEM) {
				snprintf(msg, sizeof(msg), "ENOMEM with no fault injected");
				badstep = 1;
			} else if (r.ret < 0) {
				const int *e = op->allowed;

				size_t u;

				while (*e && *e != r.err)
					e++;
				for (u = 0; !*e && u < N_UPSTREAM; u++)
					if (upstream_errnos[u].err == r.err &&
					    (upstream_errnos[u].needs & op->needs))
						break;
				if (!*e && u < N_UPSTREAM) {
					upstream++;
				} else if (!*e) {
					snprintf(msg, sizeof(msg), "%s is neither documented nor a known upstream error path",
						 errname(r.err));
					badstep = 1;
				}
			}
			logged = drain_kmsg(op, n);
			if (!badstep && check_baseline(msg, sizeof(msg)))
				badstep = 1;
			if (!badstep && check_held(msg, sizeof(msg)))
				badstep = 1;
			logged += drain_kmsg(op, n);
			if (!badstep && logged) {
				snprintf(msg, sizeof(msg), "%d unexpected kernel log records", logged);
				badstep = 1;
			}
			if (badstep) {
				printf("# %s n=%u: %s\n", op->name, n, msg);
				if (!bad++)
					snprintf(why, sizeof(why), "n=%u: %s", n, msg);
			}
			steps_all++;
			if (r.left)
				break;
			faults++;
			faults_all++;
		}
		/* The holder ends: its namespaces must go, and listns() must be
		 * back to what it was before it.
		 */
		{
			char msg[200] = "";

			if (drop_holder(msg, sizeof(msg)) == 0) {
				memcpy(baseline, base0, nbase0 * sizeof(*base0));
				nbaseline = nbase0;
				if (check_baseline(msg, sizeof(msg)) == 0)
					msg[0] = 0;
			}
			if (msg[0] || drain_kmsg(op, n)) {
				if (!msg[0])
					snprintf(msg, sizeof(msg), "unexpected kernel log records");
				printf("# %s end: %s\n", op->name, msg);
				if (!bad++)
					snprintf(why, sizeof(why), "the end: %s", msg);
			}
		}
		if (!bad && n > MAX_STEPS) {
			snprintf(why, sizeof(why), "still consuming faults after %d steps", MAX_STEPS);
			bad = 1;
		}
		if (bad) {
			failed++;
			printf("not ok %d %s\n# %s: %d bad steps, the first at %s\n",
			       i + 1, op->name, op->name, bad, why);
		} else {
			printf("ok %d %s\n# %s: %u steps, %d faults injected, %d upstream errnos, %.1f s\n",
			       i + 1, op->name, op->name, n, faults, upstream, secs_since(&t0));
		}
	}
	printf("NSTREE-FI-END\n");
	printf("# NSTREE-FI-TOTALS operations=%d steps=%d faults=%d failed=%d\n",
	       nops, steps_all, faults_all, failed);
	setup_faults(0);
	return failed ? 1 : 0;
}
