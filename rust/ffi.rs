// SPDX-License-Identifier: GPL-2.0-only

//! The FFI boundary: the only module of the crate that may use `unsafe`.
//!
//! Everything that touches a raw pointer lives here and is wrapped in a type
//! whose safe methods uphold the C rules:
//!
//! - [`NsCommon`] is a `struct ns_common` that the caller has shown to be
//!   alive (a borrow bounded by an RCU guard, a tree lock guard or a
//!   counted reference), opaque: its fields are reached at the C
//!   compiler's offsets;
//! - [`NsRef`] owns one `__ns_ref` count and drops it through `ops->put`;
//! - [`TreeRoot<K>`] is a pinned `struct ns_tree_root` linking the
//!   namespaces' tree nodes of kind `K` ([`Unified`], [`ByType`],
//!   [`ByOwner`]); its mutators are `unsafe` and take a
//!   [`WriteGuard`](lock::WriteGuard) (the `ns_tree_lock` seqlock held for
//!   writing), its lockless lookup returns a namespace bounded by an RCU
//!   guard, and its walks step through [`Cursor`](tree::Cursor)s that only
//!   the list head, the locked reader or a held place make; a [`Held`]
//!   cursor keeps a walk's place across read-side sections with a counted
//!   reference;
//! - [`UserIds`] and [`read_request`] move data across the user boundary;
//!   [`IdBatch`] stages ids for it without zeroing a buffer.
//!
//! The C functions the kernel calls (`__ns_tree_add_raw`, `listns()`'s
//! body, ...) are defined in `exports/` (`cascade.rs`, `tree.rs`,
//! `listns.rs`), next to what they wrap. Each one converts its raw
//! arguments once and calls safe code, or an `unsafe fn` whose contract
//! it passes on. `#[export]` checks their signatures against the C
//! prototypes at compile time.
//!
//! The small C functions this module calls on hot paths (the seqlock,
//! `list_add_rcu()`, `rb_link_node_rcu()`, `__ns_ref_get()`, the calls
//! through `struct proc_ns_operations`, ...) are `rust/helpers/`, which
//! `CONFIG_RUST_INLINE_HELPERS` links into this crate's object as LLVM
//! bitcode and inlines, as C inlines them.

use kernel::bindings;

mod exports;
mod lock;
mod ns;
#[cfg(CONFIG_NSTREE_RUST_KUNIT_TEST)]
mod test_tree;
mod tree;
mod user;

pub(crate) use lock::read_retry;
pub(crate) use lock::RcuSection;
#[cfg(CONFIG_NSTREE_RUST_KUNIT_TEST)]
pub(crate) use lock::WriteGuard;
pub(crate) use lock::{cond_resched, need_resched, ReadGuard};
#[cfg(CONFIG_PROVE_RCU)]
pub(crate) use lock::{debug_lockdep_rcu_enabled, lockdep_rcu_suspicious};
#[cfg(CONFIG_NSTREE_RUST_KUNIT_TEST)]
pub(crate) use ns::is_initial_id;
pub(crate) use ns::{current_user_ns, may_see_all};
pub(crate) use ns::{NsCommon, NsRef};
#[cfg(CONFIG_NSTREE_RUST_KUNIT_TEST)]
pub(crate) use test_tree::TestTree;
#[cfg(CONFIG_NSTREE_RUST_KUNIT_TEST)]
pub(crate) use tree::ByOwner;
pub(crate) use tree::{type_root, TreeRoot, Unified, NS_UNIFIED_ROOT};
pub(crate) use tree::{Held, TreeKind};
pub(crate) use user::{read_request, IdBatch, IdBuf, NsIdReq, UserIds};

/// The layout of `struct ns_common` as the C compiler sees it.
///
/// `struct ns_tree` is an anonymous member of `struct ns_common`
/// (`-fms-extensions`, include/linux/ns/ns_common_types.h:119), whose
/// fields bindgen leaves out of `bindings::ns_common` (it pads over them).
/// This crate therefore never reads a `bindings::ns_common` field:
/// [`NsCommon`] is opaque storage of the C size and alignment, and every
/// field is reached at the offset clang computed for bindgen
/// (`kernel/nstree_rs/nstree_rs.h`); `bindings::ns_common`'s size and
/// the offsets of the fields it has are asserted equal to the C ones.
pub(crate) mod layout {
    use kernel::bindings;

    /// `sizeof(struct ns_common)`.
    pub(crate) const SIZE: usize = bindings::NSTREE_RS_NS_COMMON_SIZE;
    /// `_Alignof(struct ns_common)`: its first member is
    /// `____cacheline_aligned_in_smp`.
    pub(crate) const ALIGN: usize = bindings::NSTREE_RS_NS_COMMON_ALIGN;
    /// `offsetof(struct ns_common, __ns_ref)`.
    pub(crate) const NS_REF: usize = bindings::NSTREE_RS_NS_REF_OFFSET;
    /// `offsetof(struct ns_common, ns_type)`.
    pub(crate) const NS_TYPE: usize = bindings::NSTREE_RS_NS_TYPE_OFFSET;
    /// `offsetof(struct ns_common, ops)`.
    pub(crate) const OPS: usize = bindings::NSTREE_RS_OPS_OFFSET;
    /// `offsetof(struct ns_common, ns_id)`: where the anonymous
    /// `struct ns_tree` starts.
    pub(crate) const NS_TREE: usize = bindings::NSTREE_RS_NS_TREE_OFFSET;
    /// `offsetof(struct ns_common, __ns_ref_active)`.
    pub(crate) const NS_REF_ACTIVE: usize = bindings::NSTREE_RS_NS_REF_ACTIVE_OFFSET;
    /// `offsetof(struct ns_common, ns_unified_node)`.
    pub(crate) const UNIFIED_NODE: usize = bindings::NSTREE_RS_NS_UNIFIED_NODE_OFFSET;
    /// `offsetof(struct ns_common, ns_tree_node)`.
    pub(crate) const TREE_NODE: usize = bindings::NSTREE_RS_NS_TREE_NODE_OFFSET;
    /// `offsetof(struct ns_common, ns_owner_node)`.
    pub(crate) const OWNER_NODE: usize = bindings::NSTREE_RS_NS_OWNER_NODE_OFFSET;
    /// `offsetof(struct ns_common, ns_owner_root)`.
    pub(crate) const OWNER_ROOT: usize = bindings::NSTREE_RS_NS_OWNER_ROOT_OFFSET;
    /// `offsetof(struct ns_common, ns_rcu)`.
    pub(crate) const NS_RCU: usize = bindings::NSTREE_RS_NS_RCU_OFFSET;
    /// `offsetof(struct user_namespace, ns)`.
    pub(crate) const USER_NS_NS: usize = bindings::NSTREE_RS_USER_NS_NS_OFFSET;
}

/// Id of the last initial namespace: ids `1..=NS_LAST_INIT_ID` are the
/// boot-time namespaces, which are always active.
pub(crate) const NS_LAST_INIT_ID: u64 = bindings::init_ns_id_NS_LAST_INIT_ID as u64;

// Every offset and size this crate relies on, checked at compile time
// against the C compiler's layout (7.3: `ns_rcu` follows `struct ns_tree`
// instead of sharing a union with it).
const _: () = {
    use core::mem::{align_of, offset_of, size_of};
    use kernel::bindings::{atomic_t, ns_tree, ns_tree_node, ns_tree_root, user_namespace};
    // `NsCommon` covers the whole C struct, with its alignment.
    assert!(size_of::<NsCommon>() == layout::SIZE);
    assert!(align_of::<NsCommon>() == layout::ALIGN);
    // bindgen's `struct ns_common` has the C size, with the anonymous
    // member as padding (`__bindgen_padding_0`, bindgen 0.73 on libclang
    // 22), so every struct that embeds one is laid out right; its fields
    // that bindgen does see are where C has them.
    assert!(size_of::<bindings::ns_common>() == layout::SIZE);
    assert!(align_of::<bindings::ns_common>() == layout::ALIGN);
    assert!(offset_of!(bindings::ns_common, ns_type) == layout::NS_TYPE);
    assert!(offset_of!(bindings::ns_common, ops) == layout::OPS);
    assert!(offset_of!(bindings::ns_common, ns_rcu) == layout::NS_RCU);
    // struct ns_tree as a whole lies inside struct ns_common, before ns_rcu:
    // freeing a namespace through ns_rcu never writes to its tree fields.
    assert!(layout::NS_TREE + size_of::<ns_tree>() <= layout::NS_RCU);
    assert!(layout::NS_RCU < layout::SIZE);
    // The fields of struct ns_tree (bindgen sees that struct, a named one,
    // correctly), reached from its start.
    assert!(offset_of!(ns_tree, ns_id) == 0);
    assert!(layout::NS_TREE + offset_of!(ns_tree, __ns_ref_active) == layout::NS_REF_ACTIVE);
    assert!(layout::NS_TREE + offset_of!(ns_tree, ns_unified_node) == layout::UNIFIED_NODE);
    assert!(layout::NS_TREE + offset_of!(ns_tree, ns_tree_node) == layout::TREE_NODE);
    assert!(layout::NS_TREE + offset_of!(ns_tree, ns_owner_node) == layout::OWNER_NODE);
    assert!(layout::NS_TREE + offset_of!(ns_tree, ns_owner_root) == layout::OWNER_ROOT);
    assert!(size_of::<atomic_t>() == size_of::<i32>());
    assert!(offset_of!(atomic_t, counter) == 0);
    assert!(offset_of!(ns_tree_node, ns_node) == 0);
    assert!(size_of::<ns_tree_root>() == 3 * size_of::<usize>());
    // The other fields this crate reads lie inside the struct.
    assert!(layout::NS_REF + size_of::<bindings::refcount_t>() <= layout::NS_TREE);
    assert!(layout::NS_TYPE + size_of::<u32>() <= layout::NS_TREE);
    assert!(layout::OPS + size_of::<usize>() <= layout::NS_TREE);
    // struct user_namespace is a named struct: bindgen's offset of its
    // embedded `ns` is the C one (and nothing after it is used).
    assert!(offset_of!(user_namespace, ns) == layout::USER_NS_NS);
};
