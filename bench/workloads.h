/* SPDX-License-Identifier: GPL-2.0 */
/* nsbench: the measured operations and their shared state. */
#ifndef NSBENCH_WORKLOADS_H
#define NSBENCH_WORKLOADS_H

#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>

#include "nsbench.h"

/* include/linux/exportfs.h, not uapi: the nsfs file handle type. */
#ifndef FILEID_NSFS
#define FILEID_NSFS 0xf1
#endif

/* listns_owner: filter by the owner U(OWNER_LEVEL + 1), not by type. */
#define ARG_OWNER (-1L)
/* The parts of a listns() call the diag_ workloads measure. */
enum { DIAG_ZERO, DIAG_ONE, DIAG_RESUME, DIAG_SKIP };
/* fh_open cycles through this many ids picked from the population. */
#define NR_SAMPLE 4096

struct ctx {
	struct population *pop;
	__u64 *ids;		/* listns() output, ids_cap entries */
	long ids_cap;
	__u64 *page;		/* walk buffer, 1024 entries */
	__u64 sample[NR_SAMPLE];
	__u64 mid_id;		/* diag_resume resumes after this id */
	__u64 miss_id;		/* diag_fh_miss: no namespace has it */
	dev_t nsfs_dev;
	struct idset set_links, set_all;
	/* listns_churn: namespaces churned while it measured; -1: not run. */
	long churn_ops;
};

struct workload {
	const char *name;
	int (*run)(struct ctx *c, const struct workload *w, long iters,
		   uint64_t *elapsed_ns, long *count);
	long arg;
};

extern const struct workload workloads[];

long walk_all(long page, __u64 *buf, __u64 *out, long out_cap);
int fh_open(__u64 id);
long proc_scan_count(struct ctx *c, bool fds);

#endif /* NSBENCH_WORKLOADS_H */
