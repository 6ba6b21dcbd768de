// SPDX-License-Identifier: GPL-2.0-only

//! Looking a namespace up by id (`ns_tree_lookup_rcu()`).

#![forbid(unsafe_code)]

use kernel::sync::rcu;

use crate::ns::{self, NsCommon};

/// The namespace with id `id`, of type `ns_type` (of any type for 0), without a reference.
///
/// The search takes no lock: while a writer rebalances the tree it may miss, and then it is
/// retried until no writer ran meanwhile. A writer can hide a namespace but not make one up, so
/// a hit needs no retry.
pub(crate) fn lookup<'g>(id: u64, ns_type: u32, g: &'g rcu::Guard) -> Option<&'g NsCommon> {
    let lock = ns::tree_lock();
    let tree = if ns_type == 0 {
        None
    } else {
        Some(ns::type_tree(ns_type)?)
    };
    loop {
        let seq = lock.read_begin();
        let found = match tree {
            Some(t) => t.find(id, g),
            None => ns::unified().find(id, g),
        };
        if found.is_some() || !lock.read_retry(seq) {
            return found;
        }
    }
}
