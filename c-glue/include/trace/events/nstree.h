/* SPDX-License-Identifier: GPL-2.0-only */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM nstree

#if !defined(_TRACE_NSTREE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_NSTREE_H

#include <linux/tracepoint.h>

/*
 * A listns() walk skipped many namespaces in one RCU read-side critical
 * section and leaves it to reschedule, holding its place at @ns_id.
 */
TRACE_EVENT(nstree_listns_pause,
	TP_PROTO(u64 ns_id),
	TP_ARGS(ns_id),
	TP_STRUCT__entry(
		__field(u64, ns_id)
	),
	TP_fast_assign(
		__entry->ns_id = ns_id;
	),
	TP_printk("ns_id=%llu", __entry->ns_id)
);

#endif /* _TRACE_NSTREE_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
