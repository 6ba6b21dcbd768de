// SPDX-License-Identifier: GPL-2.0-only
/*
 * nstree-rs: the C side of the Rust namespace reference counts.
 *
 * What Rust cannot do with a struct ns_common: call through its
 * randomized-layout struct proc_ns_operations, and the refcount_t
 * operation that rust/kernel/sync/refcount.rs does not wrap.
 *
 * Copyright (c) 2026 nstree-rs developers
 */

#include <linux/ns_common.h>
#include <linux/nstree_rs.h>
#include <linux/proc_ns.h>
#include <linux/refcount.h>
#include <linux/user_namespace.h>

/* struct proc_ns_operations has a randomized layout: call it from C. */
struct user_namespace *nstree_rs_ns_owner(struct ns_common *ns)
{
	return ns->ops->owner(ns);
}

void nstree_rs_ns_put(struct ns_common *ns)
{
	ns->ops->put(ns);
}

bool nstree_rs_ns_ref_inc_not_zero(struct ns_common *ns)
{
	return refcount_inc_not_zero(&ns->__ns_ref);
}
