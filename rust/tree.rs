// SPDX-License-Identifier: GPL-2.0-only
// Copyright (c) 2026 nstree-rs developers

//! The namespace trees: every namespace is on three id-ordered trees.
//!
//! - its type's tree (`net_ns_tree`, ...), through `ns_tree_node`;
//! - the unified tree of all namespaces, through `ns_unified_node`;
//! - its owning user namespace's tree, through `ns_owner_node`
//!   (`init_user_ns` has no owner and is on no owner tree).
//!
//! Each tree is an rbtree for lookups plus an RCU list in the same order
//! for iteration. Writers hold `ns_tree_lock` for writing ([`WriteGuard`]);
//! lockless readers walk the list under RCU or look up the rbtree under
//! RCU with seqlock retry; ordered lookups take the lock as exclusive
//! readers ([`crate::ffi::ReadGuard`]).

#![forbid(unsafe_code)]

use kernel::sync::rcu::Guard;

use crate::ffi::{type_root, NsCommon, TreeRoot, WriteGuard, NS_UNIFIED_ROOT};

/// Which of a namespace's three tree nodes a tree links.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Link {
    /// The unified tree of all namespaces.
    Unified,
    /// The per-type tree.
    Type,
    /// The owning user namespace's tree.
    Owner,
}

/// The unified tree.
pub(crate) fn unified() -> &'static TreeRoot {
    &NS_UNIFIED_ROOT
}

/// Puts `ns` on its type tree `root`, the unified tree and its owner's
/// tree (`__ns_tree_add_raw()`).
pub(crate) fn add(ns: &NsCommon, root: &TreeRoot) {
    crate::vfs_warn_on_once!(ns.id() == 0);
    let owner = ns.owner();
    if let Some(o) = owner {
        crate::vfs_warn_on_once!(o.ns_type() != crate::req::ns_type::USER);
    } else {
        // Only the initial user namespace has no owner.
        crate::vfs_warn_on_once!(ns.has_ops() && !ns.is_init_user_ns());
    }

    let w = WriteGuard::lock();
    let fresh = root.insert(ns, Link::Type, &w);
    unified().insert(ns, Link::Unified, &w);
    if let Some(o) = owner {
        o.owner_root().insert(ns, Link::Owner, &w);
    }
    crate::vfs_warn_on_once!(!fresh);
}

/// Takes `ns` off all its trees (`__ns_tree_remove()`).
pub(crate) fn remove(ns: &NsCommon, root: &TreeRoot) {
    crate::vfs_warn_on_once!(!ns.on_tree(Link::Type));
    let owner = ns.owner();
    let w = WriteGuard::lock();
    root.remove(ns, Link::Type, &w);
    unified().remove(ns, Link::Unified, &w);
    if let Some(o) = owner {
        o.owner_root().remove(ns, Link::Owner, &w);
    }
}

/// The namespace with id `id`, of type `ns_type` (or of any type for 0),
/// without taking a reference (`ns_tree_lookup_rcu()`).
pub(crate) fn lookup_rcu<'g>(id: u64, ns_type: u32, g: &'g Guard) -> Option<&'g NsCommon> {
    let (root, link) = if ns_type == 0 {
        (unified(), Link::Unified)
    } else {
        (type_root(ns_type)?, Link::Type)
    };
    crate::ffi::read_retry(|| root.find_rcu(id, link, g))
}
