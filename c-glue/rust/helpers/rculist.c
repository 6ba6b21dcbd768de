// SPDX-License-Identifier: GPL-2.0

/*
 * Helpers for the RCU variants of the C doubly linked list.
 */

#include <linux/rculist.h>

__rust_helper void rust_helper_list_add_rcu(struct list_head *new,
					    struct list_head *head)
{
	list_add_rcu(new, head);
}

__rust_helper void rust_helper_list_bidir_del_rcu(struct list_head *entry)
{
	list_bidir_del_rcu(entry);
}
