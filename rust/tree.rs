// SPDX-License-Identifier: GPL-2.0-only

//! The namespace trees: every namespace is on three id-ordered trees.
//!
//! - its type's tree (`net_ns_tree`, ...), through `ns_tree_node`
//!   ([`ByType`](crate::ffi::ByType));
//! - the unified tree of all namespaces, through `ns_unified_node`
//!   ([`Unified`]);
//! - its owning user namespace's tree, through `ns_owner_node`
//!   ([`ByOwner`](crate::ffi::ByOwner); `init_user_ns` has no owner and is
//!   on no owner tree).
//!
//! Each tree is an rbtree for lookups plus an RCU list in the same order
//! for iteration, a [`TreeRoot<K>`](crate::ffi::TreeRoot) whose kind `K`
//! names the node it links, so a tree cannot be walked through another
//! tree's nodes. Writers hold `ns_tree_lock` for writing
//! (a `WriteGuard`); lockless readers walk the list under RCU with a
//! `Cursor`, or look an id up in the rbtree under RCU with seqlock retry
//! (which gives a namespace, not a place to walk from); ordered lookups,
//! where walks start, take the lock as exclusive readers. Putting a
//! namespace on its trees and taking it off (`ffi::add`, `ffi::remove`)
//! are `unsafe`: only the C callers know when a namespace is new or
//! dying.

#![forbid(unsafe_code)]

use crate::ffi::{type_root, NsCommon, RcuSection, TreeRoot, Unified, NS_UNIFIED_ROOT};

/// The unified tree.
///
/// # Examples
///
/// A walk of every namespace, in id order, under one RCU read-side section:
///
/// ```no_run
/// use kernel::sync::rcu;
/// use nstree_rs::tree::unified;
///
/// fn count() -> usize {
///     let g = rcu::read_lock();
///     let (mut n, mut cur) = (0, unified().first(&g));
///     while let Some(c) = cur {
///         n += 1;
///         cur = c.next(&g);
///     }
///     n
/// }
/// ```
pub(crate) fn unified() -> &'static TreeRoot<Unified> {
    &NS_UNIFIED_ROOT
}

/// The namespace with id `id`, of type `ns_type` (or of any type for 0),
/// without taking a reference (`ns_tree_lookup_rcu()`).
///
/// Inlined into the exported `ns_tree_lookup_rcu()`, so that C's lookup
/// is one call, as it is in C, not a call to the export and another one
/// here with a second prologue.
///
/// # Examples
///
/// ```no_run
/// use kernel::sync::rcu;
/// use nstree_rs::tree::lookup_rcu;
///
/// /// The `CLONE_NEW*` type of the namespace with this id, if there is one.
/// fn type_of(id: u64) -> Option<u32> {
///     let g = rcu::read_lock();
///     lookup_rcu(id, 0, &g).map(|ns| ns.ns_type())
/// }
/// ```
#[inline(always)]
pub(crate) fn lookup_rcu<'g>(
    id: u64,
    ns_type: u32,
    g: &'g impl RcuSection,
) -> Option<&'g NsCommon> {
    if ns_type == 0 {
        crate::ffi::read_retry(|| unified().find_rcu(id, g))
    } else {
        let root = type_root(ns_type)?;
        crate::ffi::read_retry(|| root.find_rcu(id, g))
    }
}
