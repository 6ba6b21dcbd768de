/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The C/Rust boundary of the Rust namespace tree (CONFIG_NSTREE_RUST),
 * private to kernel/nstree_rs/.
 *
 * rust/bindings/bindings_helper.h includes this header, so bindgen derives
 * the Rust declarations of what the C glue (nstree_glue.c) defines from
 * it, and #[export] checks the Rust definition of nstree_rs_listns()
 * against its prototype here: a signature change on either side fails
 * the build.  The small C functions the crate calls are helpers in
 * rust/helpers/ (seqlock.c, rculist.c, ns_common.c, ...).
 */
#ifndef _KERNEL_NSTREE_RS_H
#define _KERNEL_NSTREE_RS_H

#include <linux/compiler_types.h>
#include <linux/ns_common.h>
#include <linux/seqlock_types.h>
#include <linux/stddef.h>
#include <linux/types.h>

struct ns_id_req;

/* Defined in C (nstree_glue.c): DEFINE_SEQLOCK() needs C. */
extern seqlock_t ns_tree_lock;

/* Defined in Rust (ffi/exports/listns.rs), called by the syscall entry. */
long nstree_rs_listns(const struct ns_id_req __user *req, u64 __user *ns_ids,
		      size_t nr_ns_ids, unsigned int flags);

#ifdef __BINDGEN__
#include <linux/user_namespace.h>

/*
 * The layout of struct ns_common as the C compiler sees it.  struct
 * ns_tree is an anonymous member of struct ns_common (-fms-extensions),
 * which bindgen leaves out of its Rust struct; clang still evaluates
 * these constants with the real layout, and the crate reaches every
 * field of struct ns_common through them.
 */
const size_t RUST_CONST_HELPER_NSTREE_RS_NS_COMMON_SIZE = sizeof(struct ns_common);
const size_t RUST_CONST_HELPER_NSTREE_RS_NS_COMMON_ALIGN = __alignof__(struct ns_common);
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
const size_t RUST_CONST_HELPER_NSTREE_RS_USER_NS_NS_OFFSET =
	offsetof(struct user_namespace, ns);
#endif

#endif /* _KERNEL_NSTREE_RS_H */
