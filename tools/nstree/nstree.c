// SPDX-License-Identifier: GPL-2.0
/*
 * nstree - show the namespaces of the system as listns(2) sees them: as
 * a tree of owning user namespaces, including those that no process is
 * in (held by an open fd or a bind mount), which /proc cannot show.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nstree.h"

static const char help_text[] =
"NAME\n"
"    nstree - list namespaces as a tree of owning user namespaces\n"
"\n"
"SYNOPSIS\n"
"    nstree [-l | -J] [-p] [-t TYPE[,TYPE...]] [-o ID|current] [-s N] [-D]\n"
"    nstree --id-of PATH\n"
"    nstree -h | --help\n"
"\n"
"DESCRIPTION\n"
"    nstree lists every namespace the caller may see through the listns(2)\n"
"    system call (Linux 6.19 and later), fetched a page of ids at a time.\n"
"    Each namespace is opened by its id through an nsfs file handle\n"
"    (open_by_handle_at(2) on FD_NSFS_ROOT) to read its type, inode\n"
"    number, owning user namespace (NS_GET_USERNS, NS_GET_ID) and, for\n"
"    user namespaces, the owner uid (NS_GET_OWNER_UID).\n"
"\n"
"    The default output is a tree: every namespace is shown below the\n"
"    user namespace that owns it, and user namespaces nest below their\n"
"    parents.  An owning user namespace that is not listed itself (because\n"
"    of -t or -o) appears as \"(user)\" with its id only, to keep the tree\n"
"    connected.\n"
"\n"
"    nstree also reads every /proc/PID/task/TID/ns/ link.  A namespace that\n"
"    no process links to is marked \"[no process]\": it is kept alive by an\n"
"    open namespace file descriptor, a bind mount of a namespace file, or\n"
"    a child namespace.  lsns(8) cannot show these.  If some links cannot\n"
"    be read (not root), the marker reads \"[no process?]\".\n"
"\n"
"    Columns: NAMESPACE (type, indented by ownership), ID (namespace id,\n"
"    as NS_GET_ID returns it), INODE (inode number of the namespace file),\n"
"    OWNER (-l only: id of the owning user namespace, \"-\" if none is\n"
"    visible), UID (user namespaces: uid of the creator), NPROCS (number\n"
"    of processes using it).  \"?\" means the namespace could not be\n"
"    opened.\n"
"\n"
"OPTIONS\n"
"    -t, --type TYPE[,TYPE...]\n"
"        List only namespaces of these types: cgroup, ipc, mnt, net, pid,\n"
"        time, user, uts.  Passed to listns() as ns_type bits.\n"
"    -o, --owner ID|current\n"
"        List only the namespaces directly owned by the user namespace\n"
"        with this id (listns() user_ns_id); \"current\" is the caller's\n"
"        user namespace (LISTNS_CURRENT_USER).\n"
"    -l, --list\n"
"        Flat list, one namespace per line, with an OWNER column.\n"
"    -J, --json\n"
"        JSON in the style of lsns -J: {\"namespaces\": [...]}, flat, in id\n"
"        order, one object per namespace with the members id, type, inode,\n"
"        owner (id of the owning user namespace or null), uid (user\n"
"        namespaces, else null), nprocs, and with -p pids.\n"
"    -p, --processes\n"
"        Show the processes that use each namespace, as PID(comm): at\n"
"        most 8, kernel threads only counted (-J: all pids).\n"
"    -s, --page-size N\n"
"        Ask listns() for N ids per call (1 to 1000000, default 256).\n"
"    -D, --debug\n"
"        Trace every listns() call on stderr.\n"
"    --id-of PATH\n"
"        Print the namespace id of the namespace file PATH (for example\n"
"        /proc/self/ns/net) and exit.\n"
"    -h, --help\n"
"        Show this help.\n"
"\n"
"EXIT STATUS\n"
"    0   success\n"
"    1   usage error\n"
"    2   the kernel has no listns() (ENOSYS)\n"
"    3   listns() was denied (EPERM or EACCES, e.g. by a seccomp filter)\n"
"    4   any other error, e.g. -o names no active user namespace\n"
"\n"
"EXAMPLES\n"
"    nstree                 the tree of all visible namespaces\n"
"    nstree -p              with the processes in each namespace\n"
"    nstree -t net,uts      network and UTS namespaces only\n"
"    nstree -l -o current   what the caller's user namespace owns\n"
"    nstree -J | jq .       JSON\n"
"    nstree --id-of /proc/self/ns/user\n";

enum { OPT_ID_OF = 256 };

static const struct option long_opts[] = {
	{ "type",	required_argument,	NULL, 't' },
	{ "owner",	required_argument,	NULL, 'o' },
	{ "list",	no_argument,		NULL, 'l' },
	{ "json",	no_argument,		NULL, 'J' },
	{ "processes",	no_argument,		NULL, 'p' },
	{ "page-size",	required_argument,	NULL, 's' },
	{ "debug",	no_argument,		NULL, 'D' },
	{ "id-of",	required_argument,	NULL, OPT_ID_OF },
	{ "help",	no_argument,		NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "nstree: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'nstree --help' for more information.\n");
	return EXIT_USAGE;
}

static int parse_u64(const char *s, unsigned long long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

static int id_of(const char *path)
{
	__u64 id;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "nstree: %s: %s\n", path, strerror(errno));
		return EXIT_ERROR;
	}
	err = ns_id_of_fd(fd, &id);
	close(fd);
	if (err) {
		fprintf(stderr, "nstree: %s: %s\n", path, err == -ENOTTY ?
			"not a namespace file" : strerror(-err));
		return EXIT_ERROR;
	}
	printf("%llu\n", (unsigned long long)id);
	return EXIT_OK;
}

static int listns_failed(int err, __u64 owner)
{
	switch (err) {
	case -ENOSYS:
		fprintf(stderr, "nstree: this kernel has no listns() (Linux >= 6.19 / 7.x needed)\n");
		return EXIT_NOSYS;
	case -EPERM:
	case -EACCES:
		fprintf(stderr, "nstree: listns: permission denied\n");
		return EXIT_PERM;
	case -EINVAL:
		if (owner && owner != LISTNS_CURRENT_USER) {
			fprintf(stderr, "nstree: -o %llu: no active user namespace with this id\n",
				(unsigned long long)owner);
			return EXIT_ERROR;
		}
		break;
	}
	fprintf(stderr, "nstree: listns: %s\n", strerror(-err));
	return EXIT_ERROR;
}

/*
 * Open every listed namespace by id.  One that cannot be found any more
 * (ESTALE) went away after listns() returned it: leave it out.
 */
static int collect(struct ns_set *set, const __u64 *ids, size_t nr)
{
	struct ns_entry *e;
	size_t i;
	int fd;

	for (i = 0; i < nr; i++) {
		fd = ns_open_by_id(ids[i]);
		if (fd < 0 && (errno == ESTALE || errno == ENOENT))
			continue;
		e = ns_set_add(set, ids[i]);
		if (!e)
			return -ENOMEM;
		if (fd >= 0) {
			ns_fill_entry(e, fd);
			close(fd);
		}
	}
	return 0;
}

/*
 * The tree needs every owner up to the root; owners that were filtered
 * out by -t/-o are added as context entries.  Each pass adds one level.
 */
static int add_owners(struct ns_set *set)
{
	bool added = true;
	struct ns_entry *e;
	__u64 owner;
	size_t i;
	int fd;

	while (added) {
		added = false;
		for (i = 0; i < set->nr; i++) {
			owner = set->v[i].owner;
			if (!owner || ns_set_find(set, owner))
				continue;
			e = ns_set_add(set, owner);
			if (!e)
				return -ENOMEM;
			e->context = true;
			e->type = NST_USER;
			fd = ns_open_by_id(owner);
			if (fd >= 0) {
				ns_fill_entry(e, fd);
				close(fd);
			}
			added = true;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long owner = 0, page = 256;
	bool list = false, json = false;
	struct out_opts o = { 0 };
	struct ns_set set = { 0 };
	struct proc_scan scan;
	__u32 types = 0;
	size_t nr = 0;
	__u64 *ids;
	int c, err;

	while ((c = getopt_long(argc, argv, "t:o:lJps:Dh", long_opts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (parse_type_list(optarg, &types))
				return usage_error("-t %s: unknown namespace type", optarg);
			break;
		case 'o':
			if (!strcmp(optarg, "current"))
				owner = LISTNS_CURRENT_USER;
			else if (parse_u64(optarg, &owner) || !owner)
				return usage_error("-o %s: not a namespace id", optarg);
			break;
		case 'l':
			list = true;
			break;
		case 'J':
			json = true;
			break;
		case 'p':
			o.pids = true;
			break;
		case 's':
			if (parse_u64(optarg, &page) || !page || page > 1000000)
				return usage_error("-s %s: page size must be 1 to 1000000", optarg);
			break;
		case 'D':
			nstree_debug = 1;
			break;
		case OPT_ID_OF:
			return id_of(optarg);
		case 'h':
			fputs(help_text, stdout);
			return EXIT_OK;
		default:
			return usage_error("%s", "invalid option");
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (list && json)
		return usage_error("%s", "-l and -J exclude each other");

	err = listns_ids(types, owner, page, &ids, &nr);
	if (err)
		return listns_failed(err, owner);
	err = collect(&set, ids, nr);
	free(ids);
	if (!err && !list && !json)
		err = add_owners(&set);
	if (err) {
		fprintf(stderr, "nstree: %s\n", strerror(-err));
		return EXIT_ERROR;
	}

	err = proc_scan(&scan);
	if (!err)
		err = proc_scan_attach(&scan, &set);
	o.scan_complete = !err && scan.complete;
	if (err)
		fprintf(stderr, "nstree: scanning /proc: %s\n", strerror(-err));
	else if (!scan.complete)
		fprintf(stderr, "nstree: warning: some /proc/PID/ns links are not readable, [no process?] is a guess\n");
	proc_scan_free(&scan);

	if (json)
		print_json(&set, &o);
	else if (list)
		print_list(&set, &o);
	else
		print_tree(&set, &o);
	ns_set_free(&set);
	return fflush(stdout) ? EXIT_ERROR : EXIT_OK;
}
