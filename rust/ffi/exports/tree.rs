// SPDX-License-Identifier: GPL-2.0-only
// Copyright (c) 2026 nstree-rs developers

//! The C entry points of the trees: what `include/linux/nstree.h`
//! declares. Each converts its raw arguments once and calls safe code or
//! an `unsafe fn` of [`crate::ffi::tree`] whose contract it passes on.

use core::ffi::c_int;
use core::ptr;

use kernel::bindings;
use kernel::error::code;
use kernel::prelude::export;
use kernel::sync::atomic::{Atomic, Full};
use kernel::sync::rcu::Guard;

use crate::ffi::lock::{rcu_read_lock_held, WriteGuard};
use crate::ffi::ns::NsCommon;
use crate::ffi::tree::{self, node_empty, node_init, root_init, ByType, Cursor, TreeRoot};
use crate::ffi::NS_LAST_INIT_ID;

/// `ns_tree_node_init()`.
///
/// # Safety
///
/// `node` must be valid and not on any tree.
#[export]
pub(crate) unsafe extern "C" fn ns_tree_node_init(node: *mut bindings::ns_tree_node) {
    // SAFETY: per the function's contract.
    unsafe { node_init(node) };
}

/// `ns_tree_root_init()`.
///
/// # Safety
///
/// `root` must be valid and not in use.
#[export]
pub(crate) unsafe extern "C" fn ns_tree_root_init(root: *mut bindings::ns_tree_root) {
    // SAFETY: per the function's contract.
    unsafe { root_init(root) };
}

/// `ns_tree_node_empty()`.
///
/// # Safety
///
/// `node` must be valid.
#[export]
pub(crate) unsafe extern "C" fn ns_tree_node_empty(node: *const bindings::ns_tree_node) -> bool {
    // SAFETY: per the function's contract.
    unsafe { node_empty(node) }
}

type RbCmp =
    Option<unsafe extern "C" fn(*mut bindings::rb_node, *const bindings::rb_node) -> c_int>;

/// `ns_tree_node_add()`: generic insertion with a C comparison callback.
///
/// # Safety
///
/// `node` must be valid and off-tree, `root` a valid root whose nodes
/// `cmp` understands; the caller holds `ns_tree_lock` for writing.
#[export]
pub(crate) unsafe extern "C" fn ns_tree_node_add(
    node: *mut bindings::ns_tree_node,
    root: *mut bindings::ns_tree_root,
    cmp: RbCmp,
) -> *mut bindings::rb_node {
    let Some(cmp) = cmp else {
        return ptr::null_mut();
    };
    // SAFETY: per the function's contract, the caller holds the lock.
    let w = unsafe { WriteGuard::assume_held() };
    // SAFETY: per the function's contract.
    let r = unsafe {
        let rb = ptr::addr_of_mut!((*node).ns_node);
        tree::insert_node(root, node, |other| cmp(rb, other).cmp(&0), &w)
    };
    r.unwrap_or(ptr::null_mut())
}

/// `ns_tree_node_del()`.
///
/// # Safety
///
/// `node` must be on `root`; the caller holds `ns_tree_lock` for writing.
/// If `root` is one of the namespace trees, no counted reference to the
/// node's namespace may remain (walks resume from a counted reference,
/// see `Held`).
#[export]
pub(crate) unsafe extern "C" fn ns_tree_node_del(
    node: *mut bindings::ns_tree_node,
    root: *mut bindings::ns_tree_root,
) {
    // SAFETY: per the function's contract, the caller holds the lock.
    let w = unsafe { WriteGuard::assume_held() };
    // SAFETY: per the function's contract.
    unsafe { tree::remove_node(root, node, &w) };
}

/// `__ns_tree_add_raw()`: publishes `ns` on its type tree, the unified
/// tree and its owner's tree.
///
/// # Safety
///
/// `ns` must be a live namespace with an id, not yet on any tree, that
/// calls `__ns_tree_remove()` before it is freed, once its `__ns_ref` has
/// dropped to zero; `ns_tree` its type root.
#[export]
pub(crate) unsafe extern "C" fn __ns_tree_add_raw(
    ns: *mut bindings::ns_common,
    ns_tree: *mut bindings::ns_tree_root,
) {
    // SAFETY: per the function's contract; the type roots link
    // `ns_tree_node`s.
    unsafe {
        let root = TreeRoot::<ByType>::from_raw(ns_tree);
        tree::add(NsCommon::from_raw(ns), root);
    }
}

/// `__ns_tree_remove()`.
///
/// # Safety
///
/// `ns` must be live and on the trees `__ns_tree_add_raw()` put it on, and
/// its `__ns_ref` must have dropped to zero (the namespace types call this
/// from their free paths): a counted reference keeps a namespace on its
/// trees, which listns() relies on when it resumes a walk.
#[export]
pub(crate) unsafe extern "C" fn __ns_tree_remove(
    ns: *mut bindings::ns_common,
    ns_tree: *mut bindings::ns_tree_root,
) {
    // SAFETY: per the function's contract.
    unsafe {
        let root = TreeRoot::<ByType>::from_raw(ns_tree);
        tree::remove(NsCommon::from_raw(ns), root);
    }
}

/// `ns_tree_lookup_rcu()`: the namespace with id `ns_id` (of type
/// `ns_type`, or any type for 0), or NULL.
///
/// # Safety
///
/// The caller must be in an RCU read-side critical section; the result is
/// only valid within it.
#[export]
pub(crate) unsafe extern "C" fn ns_tree_lookup_rcu(
    ns_id: u64,
    ns_type: c_int,
) -> *mut bindings::ns_common {
    crate::vfs_warn_on_once!(!rcu_read_lock_held());
    // A nested read-side section: the result stays valid in the caller's.
    let g = Guard::new();
    crate::tree::lookup_rcu(ns_id, ns_type as u32, &g).map_or(ptr::null_mut(), |ns| ns.as_ptr())
}

/// `__ns_tree_adjoined_rcu()`: the next or previous namespace on the type
/// tree of `ns`, or `ERR_PTR(-ENOENT)`.
///
/// # Safety
///
/// RCU read-side section held; `ns` on `ns_tree`.
#[export]
pub(crate) unsafe extern "C" fn __ns_tree_adjoined_rcu(
    ns: *mut bindings::ns_common,
    ns_tree: *mut bindings::ns_tree_root,
    previous: bool,
) -> *mut bindings::ns_common {
    crate::vfs_warn_on_once!(!rcu_read_lock_held());
    let g = Guard::new();
    // SAFETY: per the function's contract: `ns` is on `ns_tree`, a type
    // root, within the caller's RCU read-side section (which `g` nests in).
    let cur = unsafe {
        let root = TreeRoot::<ByType>::from_raw(ns_tree);
        Cursor::from_raw(root, NsCommon::from_raw(ns), &g)
    };
    let r = if previous { cur.prev(&g) } else { cur.next(&g) };
    match r {
        Some(c) => c.ns().as_ptr(),
        None => code::ENOENT.to_ptr(),
    }
}

/// The namespace id cookie: all types share one id space.
static NAMESPACE_COOKIE: Atomic<u64> = Atomic::new(NS_LAST_INIT_ID + 1);

/// `__ns_tree_gen_id()`: assigns `id` (initial namespaces) or the next id.
///
/// # Safety
///
/// `ns` must be valid and not yet on any tree.
#[export]
pub(crate) unsafe extern "C" fn __ns_tree_gen_id(ns: *mut bindings::ns_common, id: u64) -> u64 {
    // atomic64_inc_return(): fully ordered, returns the new value.
    let id = if id != 0 {
        id
    } else {
        NAMESPACE_COOKIE.fetch_add(1, Full) + 1
    };
    // SAFETY: valid and unpublished per the function's contract.
    unsafe { NsCommon::from_raw(ns).set_id(id) };
    id
}

/// The number of namespaces on the unified tree, for the boot banner that
/// `nstree_glue.c` prints.
///
/// # Safety
///
/// None: `unsafe` only because `#[export]` checks the definition against
/// bindgen's declaration, whose functions are all `unsafe`.
#[export]
pub(crate) unsafe extern "C" fn nstree_rs_nr_namespaces() -> usize {
    crate::tree::nr_namespaces()
}
