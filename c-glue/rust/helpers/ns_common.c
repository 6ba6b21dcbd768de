// SPDX-License-Identifier: GPL-2.0

#include <linux/ns_common.h>
#include <linux/nsproxy.h>
#include <linux/proc_ns.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

__rust_helper bool rust_helper___ns_ref_get(struct ns_common *ns)
{
	return __ns_ref_get(ns);
}

/*
 * struct proc_ns_operations has a randomized layout (__randomize_layout):
 * only C code compiled with the same seed can call through it.
 */
__rust_helper struct user_namespace *rust_helper_ns_ops_owner(struct ns_common *ns)
{
	return ns->ops->owner(ns);
}

__rust_helper void rust_helper_ns_ops_put(struct ns_common *ns)
{
	ns->ops->put(ns);
}

/*
 * is_current_namespace() reads current->nsproxy, which a task clears on its
 * way out (exit_nsproxy_namespaces()) before the task work of its exit
 * runs, e.g. a deferred fput(): no namespace is current to such a task.
 */
__rust_helper bool rust_helper_ns_is_current(struct ns_common *ns)
{
	return current->nsproxy && is_current_namespace(ns);
}

/*
 * put_user() of ids[0], ids[1], ... to dst[0], dst[1], ..., up to the first
 * fault, as listns() writes its ids: one 8-byte store per id, so that an
 * id that straddles a fault is not partly written.  Returns how many were
 * written.
 */
__rust_helper size_t rust_helper_ns_put_user_ids(u64 __user *dst, const u64 *ids,
						 size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (put_user(ids[i], dst + i))
			break;
	}
	return i;
}
