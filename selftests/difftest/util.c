// SPDX-License-Identifier: GPL-2.0
/* ns_difftest: tables and small helpers shared by the driver and actors. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "dt.h"

const char *const dt_nsf_file[DT_NR_NSF] = {
	"user", "mnt", "uts", "ipc", "net",
	"pid", "pid_for_children", "cgroup", "time", "time_for_children",
};

const unsigned int dt_nsf_type[DT_NR_NSF] = {
	CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWNET,
	CLONE_NEWPID, CLONE_NEWPID, CLONE_NEWCGROUP, CLONE_NEWTIME, CLONE_NEWTIME,
};

const unsigned int dt_types[DT_NR_TYPES] = {
	CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC,
	CLONE_NEWNET, CLONE_NEWPID, CLONE_NEWCGROUP, CLONE_NEWTIME,
};

static const char *const type_names[DT_NR_TYPES] = {
	"user", "mnt", "uts", "ipc", "net", "pid", "cgroup", "time",
};

const char *const dt_ioctl_name[DT_NR_IOCTLS] = {
	"GET_ID", "GET_USERNS", "GET_PARENT", "GET_NSTYPE", "GET_OWNER_UID",
};

const char *dt_type_name(unsigned int type)
{
	int i;

	for (i = 0; i < DT_NR_TYPES; i++)
		if (dt_types[i] == type)
			return type_names[i];
	return "?";
}

const char *dt_errname(int err)
{
	static char buf[16];
	const char *name = strerrorname_np(err);

	if (name)
		return name;
	snprintf(buf, sizeof(buf), "E%d", err);
	return buf;
}

uint64_t dt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void dt_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}
