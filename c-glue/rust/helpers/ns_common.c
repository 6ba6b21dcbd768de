// SPDX-License-Identifier: GPL-2.0

#include <linux/ns_common.h>
#include <linux/nsproxy.h>
#include <linux/proc_ns.h>
#include <linux/sched.h>

__rust_helper bool rust_helper___ns_ref_get(struct ns_common *ns)
{
	return __ns_ref_get(ns);
}

__rust_helper void rust_helper___ns_ref_inc(struct ns_common *ns)
{
	__ns_ref_inc(ns);
}

/*
 * struct proc_ns_operations has a randomized layout (__randomize_layout):
 * only C code compiled with the same seed can call through it.
 */
__rust_helper bool rust_helper_ns_ops_has_owner(struct ns_common *ns)
{
	return ns->ops->owner;
}

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
