/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * nstree-rs: the functions the Rust crate and its C glue call across the
 * language boundary. Rust declares the same prototypes in ffi.rs.
 *
 * Copyright (c) 2026 nstree-rs developers
 */
#ifndef _KERNEL_NSTREE_RS_GLUE_H
#define _KERNEL_NSTREE_RS_GLUE_H

#include <linux/compiler_types.h>
#include <linux/types.h>

struct list_head;
struct ns_common;
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
int nstree_rs_put_user_u64(u64 __user *ptr, u64 val);
int nstree_rs_copy_struct_from_user(void *dst, size_t ksize,
				    const void __user *src, size_t usize);
bool nstree_rs_rcu_read_lock_held(void);
bool nstree_rs_need_resched(void);
void nstree_rs_cond_resched(void);

/* Implemented in Rust (ffi.rs), called from C. */
long nstree_rs_listns(const struct ns_id_req __user *req, u64 __user *ns_ids,
		      size_t nr_ns_ids, unsigned int flags);

#endif /* _KERNEL_NSTREE_RS_GLUE_H */
