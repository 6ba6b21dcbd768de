/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ns_difftest: counters the seed drivers add to in memory shared with the
 * top process, for the summary after the traces (never part of a trace:
 * they hold times).
 */
#ifndef NS_DIFFTEST_STATS_H
#define NS_DIFFTEST_STATS_H

#include <stdint.h>

struct dt_stats {
	uint64_t seeds;
	uint64_t steps;
	uint64_t walks;
	uint64_t walk_end;	/* walks that ended at a cursor, printed END */
	uint64_t walk_enoent;	/* ENOENT with an active namespace after it */
	uint64_t large_seeds;	/* seeds of DT_LARGE_FROM on */
	uint64_t big_walks;	/* walks with a call that returned > 64 ids */
	uint64_t end_wait_ms;	/* time seeds' ends waited for the tree */
	uint64_t max_end_ms;
	uint64_t end_unsettled;
};

extern struct dt_stats *dt_stats;

#endif /* NS_DIFFTEST_STATS_H */
