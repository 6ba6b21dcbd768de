// SPDX-License-Identifier: GPL-2.0
/*
 * What upstream's ns_tree_node_add() (kernel/nstree.c) does with a node
 * whose id is already on the tree, run in user space: the function's body
 * is taken from the kernel tree at build time (ns_tree_node_add.inc, cut
 * out of kernel/nstree.c by scripts/upstream-c/run.sh) and compiled
 * against the tools/ copies of the rbtree and the list, with the RCU
 * variants mapped to the plain ones (which is what they are, publication
 * aside).
 *
 * rb_find_add_rcu() does not insert the duplicate and returns the node it
 * found, but the function still links the duplicate's list entry: its
 * rb_prev() is NULL (the node is on no tree), so at the head of the list.
 * The list then holds one more entry than the rbtree, out of id order.
 * The Rust crate links neither (docs/walkthrough.md, "Deliberate
 * differences").  Prints TAP; exits 0 when the upstream behaviour is the
 * one described here.
 */
#include <stdio.h>
#include <stdint.h>
#include <linux/kernel.h>
#include <linux/rbtree.h>
#include <linux/list.h>

#define rb_find_add_rcu rb_find_add
#define list_add_rcu list_add

struct ns_tree_root {
	struct rb_root ns_rb;
	struct list_head ns_list_head;
};

struct ns_tree_node {
	struct rb_node ns_node;
	struct list_head ns_list_entry;
};

struct fake_ns {
	uint64_t ns_id;
	struct ns_tree_node node;
};

#include "ns_tree_node_add.inc"

static int cmp(struct rb_node *a, const struct rb_node *b)
{
	uint64_t x = rb_entry(a, struct fake_ns, node.ns_node)->ns_id;
	uint64_t y = rb_entry(b, struct fake_ns, node.ns_node)->ns_id;

	return x < y ? -1 : x > y;
}

int main(void)
{
	struct ns_tree_root root = { .ns_rb = RB_ROOT };
	struct fake_ns ns[3] = { { .ns_id = 10 }, { .ns_id = 20 }, { .ns_id = 20 } };
	struct rb_node *dup;
	struct list_head *l;
	int on_rb = 0, on_list = 0, i;
	uint64_t first = 0;

	INIT_LIST_HEAD(&root.ns_list_head);
	for (i = 0; i < 3; i++) {
		RB_CLEAR_NODE(&ns[i].node.ns_node);
		INIT_LIST_HEAD(&ns[i].node.ns_list_entry);
	}
	ns_tree_node_add(&ns[0].node, &root, cmp);
	ns_tree_node_add(&ns[1].node, &root, cmp);
	dup = ns_tree_node_add(&ns[2].node, &root, cmp);
	for (struct rb_node *n = rb_first(&root.ns_rb); n; n = rb_next(n))
		on_rb++;
	list_for_each(l, &root.ns_list_head) {
		if (!on_list)
			first = list_entry(l, struct fake_ns, node.ns_list_entry)->ns_id;
		on_list++;
	}
	printf("1..3\n");
	printf("%sok 1 the duplicate is found: ns_tree_node_add() returns the node with its id\n",
	       dup == &ns[1].node.ns_node ? "" : "not ");
	printf("%sok 2 the rbtree holds 2 nodes (%d)\n", on_rb == 2 ? "" : "not ", on_rb);
	printf("%sok 3 the list holds 3 entries, the duplicate first (%d, first id %llu)\n",
	       on_list == 3 && first == 20 ? "" : "not ", on_list, (unsigned long long)first);
	return !(dup == &ns[1].node.ns_node && on_rb == 2 && on_list == 3 && first == 20);
}
