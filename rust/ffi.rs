// SPDX-License-Identifier: GPL-2.0-only
// Copyright (c) 2026 nstree-rs developers

//! The FFI boundary: the only module of the crate that may use `unsafe`.
//!
//! Everything that touches a raw pointer lives here and is wrapped in a type
//! whose safe methods uphold the C rules:
//!
//! - [`NsCommon`] is a `struct ns_common` that the caller has shown to be
//!   alive (a borrow bounded by an RCU guard, a tree lock guard or a
//!   counted reference);
//! - [`NsRef`] owns one `__ns_ref` count and drops it through `ops->put`;
//! - [`TreeRoot<K>`] is a `struct ns_tree_root` linking the namespaces'
//!   tree nodes of kind `K` ([`Unified`], [`ByType`](tree::ByType),
//!   [`ByOwner`](tree::ByOwner)); its
//!   mutators are `unsafe` and take a [`WriteGuard`](lock::WriteGuard)
//!   (the `ns_tree_lock` seqlock held for writing), its lockless readers
//!   take an RCU guard and return [`Cursor`](tree::Cursor)s bounded by it;
//!   a [`Held`] cursor keeps a walk's place across read-side sections with
//!   a counted reference;
//! - [`UserIds`] and [`read_request`] move data across the user boundary;
//!   [`IdBatch`] stages ids for it without zeroing a buffer.
//!
//! The C functions the kernel calls (`__ns_tree_add_raw`, `listns()`'s
//! body, ...) are defined in `exports/` (`cascade.rs`, `tree.rs`,
//! `listns.rs`), next to what they wrap. Each one converts its raw
//! arguments once and calls safe code, or an `unsafe fn` whose contract
//! it passes on. `#[export]` checks their signatures against the C
//! prototypes at compile time.

use kernel::bindings;

mod exports;
mod lock;
mod ns;
#[cfg(CONFIG_KUNIT)]
mod test_tree;
mod tree;
mod user;

pub(crate) use lock::{cond_resched, need_resched, read_retry};
#[cfg(CONFIG_KUNIT)]
pub(crate) use ns::is_initial_id;
pub(crate) use ns::{current_user_ns, may_see_all, NsCommon, NsRef};
#[cfg(CONFIG_KUNIT)]
pub(crate) use test_tree::TestTree;
#[cfg(CONFIG_KUNIT)]
pub(crate) use tree::ByOwner;
pub(crate) use tree::{type_root, Held, TreeKind, TreeRoot, Unified, NS_UNIFIED_ROOT};
pub(crate) use user::{read_request, IdBatch, IdBuf, NsIdReq, UserIds};

/// Byte offset of the anonymous `struct ns_tree` inside `struct ns_common`.
///
/// `struct ns_tree` is an anonymous member of `struct ns_common`
/// (`-fms-extensions`), which bindgen leaves out of `bindings::ns_common`.
/// The offset is the C compiler's: `offsetof(struct ns_common, ns_id)`,
/// evaluated by clang for bindgen (`include/linux/nstree_rs.h`).
pub(crate) const NS_TREE_OFFSET: usize = bindings::NSTREE_RS_NS_TREE_OFFSET;

/// Id of the last initial namespace: ids `1..=NS_LAST_INIT_ID` are the
/// boot-time namespaces, which are always active.
pub(crate) const NS_LAST_INIT_ID: u64 = bindings::init_ns_id_NS_LAST_INIT_ID as u64;

// Every offset and size this crate relies on, checked at compile time
// against the C compiler's layout (7.3: `ns_rcu` follows `struct ns_tree`
// instead of sharing a union with it).
const _: () = {
    use core::mem::{offset_of, size_of};
    use kernel::bindings::{ns_common, ns_tree, user_namespace};
    // struct ns_tree as a whole lies inside struct ns_common, before ns_rcu:
    // freeing a namespace through ns_rcu never writes to its tree fields.
    assert!(NS_TREE_OFFSET + size_of::<ns_tree>() <= bindings::NSTREE_RS_NS_RCU_OFFSET);
    assert!(bindings::NSTREE_RS_NS_RCU_OFFSET < bindings::NSTREE_RS_NS_COMMON_SIZE);
    // The fields of struct ns_tree, reached from NS_TREE_OFFSET.
    assert!(offset_of!(ns_tree, ns_id) == 0);
    assert!(
        NS_TREE_OFFSET + offset_of!(ns_tree, __ns_ref_active)
            == bindings::NSTREE_RS_NS_REF_ACTIVE_OFFSET
    );
    assert!(
        NS_TREE_OFFSET + offset_of!(ns_tree, ns_unified_node)
            == bindings::NSTREE_RS_NS_UNIFIED_NODE_OFFSET
    );
    assert!(
        NS_TREE_OFFSET + offset_of!(ns_tree, ns_tree_node)
            == bindings::NSTREE_RS_NS_TREE_NODE_OFFSET
    );
    assert!(
        NS_TREE_OFFSET + offset_of!(ns_tree, ns_owner_node)
            == bindings::NSTREE_RS_NS_OWNER_NODE_OFFSET
    );
    assert!(
        NS_TREE_OFFSET + offset_of!(ns_tree, ns_owner_root)
            == bindings::NSTREE_RS_NS_OWNER_ROOT_OFFSET
    );
    // The fields read through bindgen's struct ns_common, which precede
    // the anonymous member and so are where bindgen puts them.
    assert!(offset_of!(ns_common, __bindgen_anon_1) == bindings::NSTREE_RS_NS_REF_OFFSET);
    assert!(offset_of!(ns_common, ns_type) == bindings::NSTREE_RS_NS_TYPE_OFFSET);
    assert!(offset_of!(ns_common, ops) == bindings::NSTREE_RS_OPS_OFFSET);
    assert!(offset_of!(ns_common, inum) == bindings::NSTREE_RS_INUM_OFFSET);
    assert!(offset_of!(user_namespace, ns) == bindings::NSTREE_RS_USER_NS_NS_OFFSET);
};
// bindgen's `struct ns_common` lacks the tree fields, so this crate never
// embeds it by value and never uses the offset of a field that follows
// an embedded `ns_common`.
