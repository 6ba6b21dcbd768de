// SPDX-License-Identifier: GPL-2.0
/*
 * Namespace type names as lsns(8) and /proc/PID/ns/ spell them, and the
 * -t list parser that turns them into listns() ns_type bits.
 */
#include <string.h>
#include <stdlib.h>

#include "nstree.h"

static const struct {
	const char *name;
	__u32 type;
} ns_types[] = {
	{ "cgroup",	NST_CGROUP },
	{ "ipc",	NST_IPC },
	{ "mnt",	NST_MNT },
	{ "net",	NST_NET },
	{ "pid",	NST_PID },
	{ "time",	NST_TIME },
	{ "user",	NST_USER },
	{ "uts",	NST_UTS },
};

const char *ns_type_name(__u32 type)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ns_types); i++)
		if (ns_types[i].type == type)
			return ns_types[i].name;
	return "?";
}

/* "net,uts" -> NST_NET | NST_UTS; -1 on an unknown or empty name. */
int parse_type_list(const char *list, __u32 *mask)
{
	char *copy, *tok, *save = NULL;
	int ret = 0;
	size_t i;

	copy = strdup(list);
	if (!copy)
		return -1;
	*mask = 0;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < ARRAY_SIZE(ns_types); i++)
			if (!strcmp(tok, ns_types[i].name))
				break;
		if (i == ARRAY_SIZE(ns_types)) {
			ret = -1;
			break;
		}
		*mask |= ns_types[i].type;
	}
	free(copy);
	if (!*mask)
		ret = -1;
	return ret;
}
