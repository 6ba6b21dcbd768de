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
//! - [`TreeRoot`] is a `struct ns_tree_root`; its mutators take a
//!   [`WriteGuard`] (the `ns_tree_lock` seqlock held for writing), its
//!   lockless readers an RCU [`Guard`] and return borrows bounded by it;
//! - [`UserIds`] and [`read_request`] move data across the user boundary;
//!   [`IdBatch`] stages ids for it without zeroing a buffer.
//!
//! The C functions the kernel calls (`__ns_tree_add_raw`, `listns()`'s
//! body, ...) are defined at the bottom of this file. Each one converts its
//! raw arguments once and calls safe code elsewhere in the crate. Their
//! signatures are checked against the C prototypes at compile time.

use kernel::bindings;

mod exports;
mod lock;
mod ns;
#[cfg(CONFIG_KUNIT)]
mod test_tree;
mod tree;
mod user;

pub(crate) use lock::{cond_resched, need_resched, read_retry, ReadGuard, WriteGuard};
pub(crate) use ns::{current_user_ns, may_see_all, NsCommon, NsRef};
#[cfg(CONFIG_KUNIT)]
pub(crate) use test_tree::TestTree;
pub(crate) use tree::{type_root, TreeRoot, NS_UNIFIED_ROOT};
pub(crate) use user::{read_request, IdBatch, NsIdReq, UserIds};

/// The C glue in `nstree_glue.c`: thin wrappers around macros and inline
/// functions that Rust cannot call directly.
mod glue {
    use core::ffi::{c_int, c_uint, c_void};
    use kernel::bindings;

    // The pointee types contain zero-sized members (as in `bindings`,
    // which allows the same lint); only pointers cross the boundary.
    #[allow(improper_ctypes)]
    extern "C" {
        pub(super) fn nstree_rs_write_lock();
        pub(super) fn nstree_rs_write_unlock();
        pub(super) fn nstree_rs_read_lock_excl();
        pub(super) fn nstree_rs_read_unlock_excl();
        pub(super) fn nstree_rs_read_seqbegin() -> c_uint;
        pub(super) fn nstree_rs_read_seqretry(seq: c_uint) -> bool;
        pub(super) fn nstree_rs_ns_owner(
            ns: *mut bindings::ns_common,
        ) -> *mut bindings::user_namespace;
        pub(super) fn nstree_rs_ns_put(ns: *mut bindings::ns_common);
        pub(super) fn nstree_rs_ns_ref_inc_not_zero(ns: *mut bindings::ns_common) -> bool;
        pub(super) fn nstree_rs_list_add_rcu(
            new: *mut bindings::list_head,
            head: *mut bindings::list_head,
        );
        pub(super) fn nstree_rs_list_bidir_del_rcu(entry: *mut bindings::list_head);
        pub(super) fn nstree_rs_rb_link_node_rcu(
            node: *mut bindings::rb_node,
            parent: *mut bindings::rb_node,
            link: *mut *mut bindings::rb_node,
        );
        pub(super) fn nstree_rs_access_ok(ptr: *const c_void, size: usize) -> bool;
        pub(super) fn nstree_rs_put_user_u64(ptr: *mut u64, val: u64) -> c_int;
        pub(super) fn nstree_rs_get_user_u32(val: *mut u32, ptr: *const u32) -> c_int;
        pub(super) fn nstree_rs_copy_struct_from_user(
            dst: *mut c_void,
            ksize: usize,
            src: *const c_void,
            usize: usize,
        ) -> c_int;
        pub(super) fn nstree_rs_rcu_read_lock_held() -> bool;
        pub(super) fn nstree_rs_need_resched() -> bool;
        pub(super) fn nstree_rs_cond_resched();
    }
}

/// Byte offset of the anonymous `struct ns_tree` inside `struct ns_common`.
///
/// bindgen drops anonymous struct members (`-fms-extensions`), so the
/// union that holds `struct ns_tree` and `ns_rcu` is all Rust sees. The
/// tree fields start at the union; `nstree_glue.c` asserts that
/// `offsetof(struct ns_common, ns_id) == offsetof(struct ns_common, ns_rcu)`.
pub(crate) const NS_TREE_OFFSET: usize =
    core::mem::offset_of!(bindings::ns_common, __bindgen_anon_2);
//
// The same bindgen limitation makes `bindings::ns_common` too small (its
// union lacks the tree fields), so this crate never embeds it by value and
// never uses offsets of fields that follow an embedded `ns_common`.

/// Id of the last initial namespace: ids `1..=NS_LAST_INIT_ID` are the
/// boot-time namespaces, which are always active.
pub(crate) const NS_LAST_INIT_ID: u64 = bindings::init_ns_id_NS_LAST_INIT_ID as u64;
