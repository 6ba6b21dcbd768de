// SPDX-License-Identifier: GPL-2.0-only
/*
 * nstree-rs: the C side of the Rust namespace tree.
 *
 * Only what Rust cannot express: the seqlock (a macro-defined static with
 * its lockdep class), the per-type tree roots (C data that C headers
 * name), thin wrappers around inline helpers and macros, the
 * listns() syscall entry, symbol exports and layout assertions. All logic
 * is in the Rust crate (nstree_rs.rs and its modules).
 *
 * Copyright (c) 2026 nstree-rs developers
 */

#include <linux/build_bug.h>
#include <linux/init.h>
#include <linux/export.h>
#include <linux/ns_common.h>
#include <linux/nstree.h>
#include <linux/nstree_rs.h>
#include <linux/printk.h>
#include <linux/proc_ns.h>
#include <linux/rculist.h>
#include <linux/rbtree.h>
#include <linux/sched.h>
#include <linux/seqlock.h>
#include <linux/syscalls.h>
#include <linux/uaccess.h>
#include <linux/user_namespace.h>

static_assert(sizeof(struct ns_id_req) == NS_ID_REQ_SIZE_VER0);

static __cacheline_aligned_in_smp DEFINE_SEQLOCK(ns_tree_lock);

/*
 * The per-type roots, which include/linux/nstree.h declares.  They start
 * empty: an empty rbtree and a list head pointing to itself.
 */
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

void nstree_rs_write_lock(void)
{
	write_seqlock(&ns_tree_lock);
}

void nstree_rs_write_unlock(void)
{
	write_sequnlock(&ns_tree_lock);
}

void nstree_rs_read_lock_excl(void)
{
	read_seqlock_excl(&ns_tree_lock);
}

void nstree_rs_read_unlock_excl(void)
{
	read_sequnlock_excl(&ns_tree_lock);
}

unsigned int nstree_rs_read_seqbegin(void)
{
	return read_seqbegin(&ns_tree_lock);
}

bool nstree_rs_read_seqretry(unsigned int seq)
{
	return read_seqretry(&ns_tree_lock, seq);
}

void nstree_rs_list_add_rcu(struct list_head *new, struct list_head *head)
{
	list_add_rcu(new, head);
}

void nstree_rs_list_bidir_del_rcu(struct list_head *entry)
{
	list_bidir_del_rcu(entry);
}

void nstree_rs_rb_link_node_rcu(struct rb_node *node, struct rb_node *parent,
				struct rb_node **link)
{
	rb_link_node_rcu(node, parent, link);
}

bool nstree_rs_access_ok(const void __user *ptr, size_t size)
{
	return access_ok(ptr, size);
}

int nstree_rs_get_user_u32(u32 *val, const u32 __user *ptr)
{
	return get_user(*val, ptr);
}

/*
 * put_user() of ids[0], ids[1], ... to dst[0], dst[1], ..., up to the first
 * fault, as C's listns() writes its ids: returns how many were written.
 * One call for a batch, so that each id costs what it costs in C.
 */
size_t nstree_rs_put_user_ids(u64 __user *dst, const u64 *ids, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (put_user(ids[i], dst + i))
			break;
	}
	return i;
}

int nstree_rs_copy_struct_from_user(void *dst, size_t ksize,
				    const void __user *src, size_t usize)
{
	return copy_struct_from_user(dst, ksize, src, usize);
}

bool nstree_rs_rcu_read_lock_held(void)
{
	return rcu_read_lock_held();
}

bool nstree_rs_need_resched(void)
{
	return need_resched();
}

void nstree_rs_cond_resched(void)
{
	cond_resched();
}

static int __init nstree_rs_banner(void)
{
	pr_info("nstree_rs: Rust nstree in use: %zu namespaces on the unified tree\n",
		nstree_rs_nr_namespaces());
	return 0;
}
late_initcall(nstree_rs_banner);

SYSCALL_DEFINE4(listns, const struct ns_id_req __user *, req,
		u64 __user *, ns_ids, size_t, nr_ns_ids, unsigned int, flags)
{
	return nstree_rs_listns(req, ns_ids, nr_ns_ids, flags);
}

/* Defined in Rust (ffi/exports/tree.rs); exported as in kernel/nstree.c. */
EXPORT_SYMBOL_GPL(__ns_tree_remove);
