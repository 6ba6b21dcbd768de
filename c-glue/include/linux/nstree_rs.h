/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The C/Rust boundary of the Rust namespace tree (CONFIG_NSTREE_RUST).
 *
 * rust/bindings/bindings_helper.h includes this header, so bindgen derives
 * the Rust declarations of the C glue (kernel/nstree_rs/nstree_glue.c)
 * from these prototypes, and #[export] checks the Rust definition of
 * nstree_rs_listns() against its prototype here: a signature change on
 * either side fails the build.
 *
 * Copyright (c) 2026 nstree-rs developers
 */
#ifndef _LINUX_NSTREE_RS_H
#define _LINUX_NSTREE_RS_H

#include <linux/compiler_types.h>
#include <linux/ns_common.h>
#include <linux/stddef.h>
#include <linux/types.h>

struct list_head;
struct ns_id_req;
struct rb_node;
struct user_namespace;

/* Implemented in C (nstree_glue.c), called from Rust. */
void nstree_rs_write_lock(void);
void nstree_rs_write_unlock(void);
void nstree_rs_read_lock_excl(void);
void nstree_rs_read_unlock_excl(void);
unsigned int nstree_rs_read_seqbegin(void);
bool nstree_rs_read_seqretry(unsigned int seq);
struct user_namespace *nstree_rs_ns_owner(struct ns_common *ns);
void nstree_rs_ns_put(struct ns_common *ns);
bool nstree_rs_ns_ref_inc_not_zero(struct ns_common *ns);
void nstree_rs_list_add_rcu(struct list_head *new, struct list_head *head);
void nstree_rs_list_bidir_del_rcu(struct list_head *entry);
void nstree_rs_rb_link_node_rcu(struct rb_node *node, struct rb_node *parent,
				struct rb_node **link);
bool nstree_rs_access_ok(const void __user *ptr, size_t size);
int nstree_rs_get_user_u32(u32 *val, const u32 __user *ptr);
size_t nstree_rs_put_user_ids(u64 __user *dst, const u64 *ids, size_t nr);
int nstree_rs_copy_struct_from_user(void *dst, size_t ksize,
				    const void __user *src, size_t usize);
bool nstree_rs_rcu_read_lock_held(void);
bool nstree_rs_need_resched(void);
void nstree_rs_cond_resched(void);

/* Implemented in Rust (kernel/nstree_rs/ffi/exports/), called from C. */
long nstree_rs_listns(const struct ns_id_req __user *req, u64 __user *ns_ids,
		      size_t nr_ns_ids, unsigned int flags);
size_t nstree_rs_nr_namespaces(void);

#ifdef __BINDGEN__
#include <linux/user_namespace.h>

/*
 * The layout of struct ns_common as the C compiler sees it.  struct
 * ns_tree is an anonymous member of struct ns_common (-fms-extensions),
 * which bindgen leaves out of its Rust struct; clang still evaluates
 * these constants with the real layout, and the crate asserts at compile
 * time that bindgen's view of every other field it uses agrees.
 */
const size_t RUST_CONST_HELPER_NSTREE_RS_NS_COMMON_SIZE = sizeof(struct ns_common);
const size_t RUST_CONST_HELPER_NSTREE_RS_NS_TREE_OFFSET = offsetof(struct ns_common, ns_id);
const size_t RUST_CONST_HELPER_NSTREE_RS_NS_RCU_OFFSET = offsetof(struct ns_common, ns_rcu);
const size_t RUST_CONST_HELPER_NSTREE_RS_NS_REF_ACTIVE_OFFSET =
	offsetof(struct ns_common, __ns_ref_active);
const size_t RUST_CONST_HELPER_NSTREE_RS_NS_UNIFIED_NODE_OFFSET =
	offsetof(struct ns_common, ns_unified_node);
const size_t RUST_CONST_HELPER_NSTREE_RS_NS_TREE_NODE_OFFSET =
	offsetof(struct ns_common, ns_tree_node);
const size_t RUST_CONST_HELPER_NSTREE_RS_NS_OWNER_NODE_OFFSET =
	offsetof(struct ns_common, ns_owner_node);
const size_t RUST_CONST_HELPER_NSTREE_RS_NS_OWNER_ROOT_OFFSET =
	offsetof(struct ns_common, ns_owner_root);
const size_t RUST_CONST_HELPER_NSTREE_RS_NS_REF_OFFSET = offsetof(struct ns_common, __ns_ref);
const size_t RUST_CONST_HELPER_NSTREE_RS_NS_TYPE_OFFSET = offsetof(struct ns_common, ns_type);
const size_t RUST_CONST_HELPER_NSTREE_RS_OPS_OFFSET = offsetof(struct ns_common, ops);
const size_t RUST_CONST_HELPER_NSTREE_RS_INUM_OFFSET = offsetof(struct ns_common, inum);
const size_t RUST_CONST_HELPER_NSTREE_RS_USER_NS_NS_OFFSET =
	offsetof(struct user_namespace, ns);
#endif

#endif /* _LINUX_NSTREE_RS_H */
