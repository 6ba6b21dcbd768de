// SPDX-License-Identifier: GPL-2.0-only
/*
 * The C side of the Rust namespace tree: the data C defines statically
 * (the lock with its lockdep class, the tree roots, which C headers name
 * and modules use), the listns() syscall entry, the symbol exports and
 * the tracepoints.  Everything else is in the Rust crate, nstree_rs.rs.
 */

#include <linux/build_bug.h>
#include <linux/export.h>
#include <linux/ns_common.h>
#include <linux/nstree.h>
#include <linux/proc_ns.h>
#include <linux/rbtree.h>
#include <linux/seqlock.h>
#include <linux/syscalls.h>

#include "nstree_rs.h"

static_assert(sizeof(struct ns_id_req) == NS_ID_REQ_SIZE_VER0);

/* As in kernel/nstree.c, but not static: the Rust crate uses them. */
__cacheline_aligned_in_smp DEFINE_SEQLOCK(ns_tree_lock);

struct ns_tree_root ns_unified_root = {
	.ns_rb = RB_ROOT,
	.ns_list_head = LIST_HEAD_INIT(ns_unified_root.ns_list_head),
};

struct ns_tree_root cgroup_ns_tree = {
	.ns_rb = RB_ROOT,
	.ns_list_head = LIST_HEAD_INIT(cgroup_ns_tree.ns_list_head),
};

struct ns_tree_root ipc_ns_tree = {
	.ns_rb = RB_ROOT,
	.ns_list_head = LIST_HEAD_INIT(ipc_ns_tree.ns_list_head),
};

struct ns_tree_root mnt_ns_tree = {
	.ns_rb = RB_ROOT,
	.ns_list_head = LIST_HEAD_INIT(mnt_ns_tree.ns_list_head),
};

struct ns_tree_root net_ns_tree = {
	.ns_rb = RB_ROOT,
	.ns_list_head = LIST_HEAD_INIT(net_ns_tree.ns_list_head),
};
EXPORT_SYMBOL_GPL(net_ns_tree);

struct ns_tree_root pid_ns_tree = {
	.ns_rb = RB_ROOT,
	.ns_list_head = LIST_HEAD_INIT(pid_ns_tree.ns_list_head),
};

struct ns_tree_root time_ns_tree = {
	.ns_rb = RB_ROOT,
	.ns_list_head = LIST_HEAD_INIT(time_ns_tree.ns_list_head),
};

struct ns_tree_root user_ns_tree = {
	.ns_rb = RB_ROOT,
	.ns_list_head = LIST_HEAD_INIT(user_ns_tree.ns_list_head),
};

struct ns_tree_root uts_ns_tree = {
	.ns_rb = RB_ROOT,
	.ns_list_head = LIST_HEAD_INIT(uts_ns_tree.ns_list_head),
};

SYSCALL_DEFINE4(listns, const struct ns_id_req __user *, req,
		u64 __user *, ns_ids, size_t, nr_ns_ids, unsigned int, flags)
{
	return nstree_rs_listns(req, ns_ids, nr_ns_ids, flags);
}

/* Defined in Rust; exported as in kernel/nstree.c. */
EXPORT_SYMBOL_GPL(__ns_tree_remove);

#define CREATE_TRACE_POINTS
#define CREATE_RUST_TRACE_POINTS
#include <trace/events/nstree.h>
