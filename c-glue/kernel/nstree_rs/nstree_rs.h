/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The C/Rust boundary of the Rust namespace tree (CONFIG_NSTREE_RUST),
 * private to kernel/nstree_rs/.
 *
 * rust/bindings/bindings_helper.h includes this header, so bindgen derives
 * the Rust declarations of what the C glue (nstree_glue.c) defines from
 * it, and #[export] checks the Rust definition of nstree_rs_listns()
 * against its prototype here: a signature change on either side fails
 * the build.
 */
#ifndef _KERNEL_NSTREE_RS_H
#define _KERNEL_NSTREE_RS_H

#include <linux/compiler_types.h>
#include <linux/ns_common.h>
#include <linux/seqlock_types.h>
#include <linux/stddef.h>
#include <linux/types.h>

struct ns_id_req;

/* Defined in C (nstree_glue.c). */
extern seqlock_t ns_tree_lock;
extern struct ns_tree_root ns_unified_root;

/* Defined in Rust, called by the syscall entry. */
long nstree_rs_listns(const struct ns_id_req __user *req, u64 __user *ns_ids,
		      size_t nr_ns_ids, unsigned int flags);

#ifdef __BINDGEN__
#include <linux/user_namespace.h>
#include <trace/events/nstree.h>

/*
 * struct ns_tree is an anonymous member of struct ns_common
 * (-fms-extensions), which bindgen leaves out; clang still evaluates
 * these constants with the real layout.
 */
const size_t RUST_CONST_HELPER_NSTREE_RS_NS_COMMON_SIZE = sizeof(struct ns_common);
const size_t RUST_CONST_HELPER_NSTREE_RS_NS_COMMON_ALIGN = __alignof__(struct ns_common);
const size_t RUST_CONST_HELPER_NSTREE_RS_NS_TREE_OFFSET = offsetof(struct ns_common, ns_id);
#endif

#endif /* _KERNEL_NSTREE_RS_H */
