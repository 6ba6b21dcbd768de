// SPDX-License-Identifier: GPL-2.0
/*
 * The three output formats: a tree of owning user namespaces (default),
 * a flat list (-l) and flat JSON (-J) with an "owner" field.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nstree.h"

static const char *no_proc_marker(const struct out_opts *o)
{
	/* Without access to every /proc/PID/ns/ link, "no process" is a guess. */
	return o->scan_complete ? "[no process]" : "[no process?]";
}

static void fmt_u64(char *buf, size_t len, bool known, __u64 v)
{
	if (known)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else
		snprintf(buf, len, "?");
}

/* PF_KTHREAD from include/linux/sched.h, in the flags of /proc/PID/stat */
#define PF_KTHREAD 0x00200000U

static bool is_kthread(pid_t pid)
{
	char path[64], buf[512], *p;
	unsigned int flags;
	bool ret = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f)) {
		/* "pid (comm) state ppid pgrp session tty tpgid flags" */
		p = strrchr(buf, ')');
		if (p && sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %u", &flags) == 1)
			ret = flags & PF_KTHREAD;
	}
	fclose(f);
	return ret;
}

static void print_comm(pid_t pid)
{
	char path[64], comm[64] = "?";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	printf("%d(%s)", pid, comm);
}

/*
 * Text output names this many processes per namespace at most, and
 * counts kernel threads rather than naming them: the initial namespaces
 * hold all of them.  -J lists every pid.
 */
#define PIDS_SHOWN 8

/* The last column: the marker, or with -p the processes. */
static void print_tail(const struct ns_entry *e, const struct out_opts *o)
{
	size_t i, shown = 0, more = 0, kthreads = 0;

	if (!e->nr_pids) {
		printf("  %s\n", no_proc_marker(o));
		return;
	}
	if (!o->pids) {
		putchar('\n');
		return;
	}
	printf(" ");
	for (i = 0; i < e->nr_pids; i++) {
		if (is_kthread(e->pids[i])) {
			kthreads++;
		} else if (shown == PIDS_SHOWN) {
			more++;
		} else {
			printf("%s", shown ? "," : " ");
			print_comm(e->pids[i]);
			shown++;
		}
	}
	if (more)
		printf("%s+%zu more", shown ? "," : " ", more);
	if (kthreads)
		printf("%s+%zu kernel thread%s", shown || more ? "," : " ",
		       kthreads, kthreads > 1 ? "s" : "");
	putchar('\n');
}

static void print_columns(const struct ns_entry *e, bool with_owner,
			  const struct out_opts *o)
{
	char inode[24], owner[24], uid[24];

	fmt_u64(inode, sizeof(inode), e->opened, e->inode);
	if (!e->opened)
		snprintf(owner, sizeof(owner), "?");
	else if (!e->owner)
		snprintf(owner, sizeof(owner), "-");
	else
		fmt_u64(owner, sizeof(owner), true, e->owner);
	if (e->uid >= 0)
		snprintf(uid, sizeof(uid), "%lld", e->uid);
	else
		snprintf(uid, sizeof(uid), e->type == NST_USER ? "?" : "-");
	printf(" %11s", inode);
	if (with_owner)
		printf(" %8s", owner);
	printf(" %6s %6zu", uid, e->nr_pids);
	print_tail(e, o);
}

/* -l */
void print_list(const struct ns_set *set, const struct out_opts *o)
{
	size_t i;

	printf("%8s %-6s %11s %8s %6s %6s\n",
	       "ID", "TYPE", "INODE", "OWNER", "UID", "NPROCS");
	for (i = 0; i < set->nr; i++) {
		const struct ns_entry *e = &set->v[i];

		if (e->context)
			continue;
		printf("%8llu %-6s", (unsigned long long)e->id,
		       ns_type_name(e->type));
		print_columns(e, true, o);
	}
}

/* -J: flat, in id order, one object per line; "owner" gives the tree. */
void print_json(const struct ns_set *set, const struct out_opts *o)
{
	bool first = true;
	size_t i, k;

	printf("{\n   \"namespaces\": [");
	for (i = 0; i < set->nr; i++) {
		const struct ns_entry *e = &set->v[i];

		if (e->context)
			continue;
		printf("%s\n      {\"id\": %llu, ", first ? "" : ",",
		       (unsigned long long)e->id);
		first = false;
		if (e->opened)
			printf("\"type\": \"%s\", \"inode\": %llu, ",
			       ns_type_name(e->type),
			       (unsigned long long)e->inode);
		else
			printf("\"type\": null, \"inode\": null, ");
		if (e->opened && e->owner)
			printf("\"owner\": %llu, ", (unsigned long long)e->owner);
		else
			printf("\"owner\": null, ");
		if (e->uid >= 0)
			printf("\"uid\": %lld, ", e->uid);
		else
			printf("\"uid\": null, ");
		printf("\"nprocs\": %zu", e->nr_pids);
		if (o->pids) {
			printf(", \"pids\": [");
			for (k = 0; k < e->nr_pids; k++)
				printf("%s%d", k ? ", " : "", e->pids[k]);
			printf("]");
		}
		printf("}");
	}
	printf("\n   ]\n}\n");
}

/*
 * The tree: every entry hangs below the entry of its owning user
 * namespace.  The children of one parent are sorted so that the
 * namespaces a user namespace owns come before its child user
 * namespaces, each group by id.
 */
struct tree {
	const struct ns_set *set;
	long *parent;		/* index into set, -1: a root */
	size_t *order;		/* indexes sorted by (parent, is user, id) */
	size_t *first;		/* first position in order of the children */
	size_t *count;		/* number of children */
	int width;		/* of the NAMESPACE column */
};

static const struct tree *sort_tree;

static int cmp_order(const void *a, const void *b)
{
	const struct ns_entry *v = sort_tree->set->v;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	long px = sort_tree->parent[x], py = sort_tree->parent[y];
	int ux = v[x].type == NST_USER, uy = v[y].type == NST_USER;

	if (px != py)
		return px < py ? -1 : 1;
	if (ux != uy)
		return ux - uy;
	return v[x].id < v[y].id ? -1 : v[x].id > v[y].id;
}

static int depth_width(const struct tree *t, size_t i)
{
	const struct ns_entry *e = &t->set->v[i];
	int depth = 0;
	long p;

	for (p = t->parent[i]; p >= 0; p = t->parent[p])
		depth++;
	return 2 * depth + (int)strlen(ns_type_name(e->type)) +
	       (e->context ? 2 : 0);
}

#define PREFIX_MAX 256

/* @prefix holds the "| " and "  " of the ancestors, @plen its length. */
static void print_node(const struct tree *t, size_t i, char *prefix,
		       size_t plen, bool last, bool root,
		       const struct out_opts *o)
{
	const struct ns_entry *e = &t->set->v[i];
	const char *branch = root ? "" : last ? "`-" : "|-";
	char label[PREFIX_MAX + 32];
	size_t k, clen = plen;

	if (e->context)
		snprintf(label, sizeof(label), "%s%s(%s)", prefix, branch,
			 ns_type_name(e->type));
	else
		snprintf(label, sizeof(label), "%s%s%s", prefix, branch,
			 ns_type_name(e->type));
	printf("%-*s %8llu", t->width, label, (unsigned long long)e->id);
	if (e->context)
		putchar('\n');	/* not listed: only connects its children */
	else
		print_columns(e, false, o);

	if (!root && clen + 3 <= PREFIX_MAX) {
		memcpy(prefix + clen, last ? "  " : "| ", 3);
		clen += 2;
	}
	for (k = 0; k < t->count[i]; k++)
		print_node(t, t->order[t->first[i] + k], prefix, clen,
			   k + 1 == t->count[i], false, o);
	prefix[plen] = '\0';
}

void print_tree(const struct ns_set *set, const struct out_opts *o)
{
	struct tree t = { .set = set };
	char prefix[PREFIX_MAX] = "";
	size_t i, pos;
	int w;

	t.parent = calloc(set->nr + 1, sizeof(*t.parent));
	t.order = calloc(set->nr + 1, sizeof(*t.order));
	t.first = calloc(set->nr + 1, sizeof(*t.first));
	t.count = calloc(set->nr + 1, sizeof(*t.count));
	if (!t.parent || !t.order || !t.first || !t.count) {
		fprintf(stderr, "nstree: out of memory\n");
		goto out;
	}
	for (i = 0; i < set->nr; i++) {
		const struct ns_entry *e = &set->v[i];
		const struct ns_entry *p = e->owner ? ns_set_find(set, e->owner) : NULL;

		t.parent[i] = p && p != e && p->type == NST_USER ? p - set->v : -1;
		t.order[i] = i;
	}
	sort_tree = &t;
	qsort(t.order, set->nr, sizeof(*t.order), cmp_order);
	for (pos = 0; pos < set->nr; pos++) {
		long p = t.parent[t.order[pos]];

		if (p < 0)
			continue;
		if (!t.count[p])
			t.first[p] = pos;
		t.count[p]++;
	}
	t.width = strlen("NAMESPACE");
	for (i = 0; i < set->nr; i++) {
		w = depth_width(&t, i);
		if (w > t.width)
			t.width = w;
	}

	printf("%-*s %8s %11s %6s %6s\n", t.width, "NAMESPACE", "ID",
	       "INODE", "UID", "NPROCS");
	for (pos = 0; pos < set->nr; pos++)
		if (t.parent[t.order[pos]] < 0)
			print_node(&t, t.order[pos], prefix, 0, true, true, o);
out:
	free(t.parent);
	free(t.order);
	free(t.first);
	free(t.count);
}
