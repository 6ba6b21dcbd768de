// SPDX-License-Identifier: GPL-2.0-only
// Copyright (c) 2026 nstree-rs developers

//! The two reference types of a namespace.
//!
//! - [`NsRef`] is a counted reference (`__ns_ref`): it keeps the memory
//!   alive and the namespace on the trees.
//! - [`ActiveRef`] is an active reference (`__ns_ref_active`): it makes the
//!   namespace visible to user space. It borrows an [`NsRef`], so it cannot
//!   outlive it; dropping it runs the put cascade.
//!
//! The C callers (nsproxy, cred, pid, nsfs) hold both counts implicitly
//! and reach the cascade through `__ns_ref_active_get/put()`; Rust code
//! (listns(), the KUnit tests) uses the types.

#![forbid(unsafe_code)]

use crate::cascade::{Active, Pinned};
use crate::ffi::NsCommon;
pub(crate) use crate::ffi::NsRef;

/// An active reference on a namespace, borrowing its counted reference.
pub(crate) type ActiveRef<'a> = Active<'a, NsRef>;

impl Pinned for NsRef {
    type Node = NsCommon;

    fn node(&self) -> &NsCommon {
        self.ns()
    }
}

/// The owner whose active count `ns` holds: its user namespace, unless
/// that is `init_user_ns`, which is always active (`ns_owner()`).
pub(crate) fn ns_owner(ns: &NsCommon) -> Option<&NsCommon> {
    let owner = ns.owner();
    crate::vfs_warn_on_once!(owner.is_none() && ns.has_ops() && !ns.is_init_user_ns());
    owner.filter(|o| !o.is_init_user_ns())
}

/// A counted reference unless the namespace is inactive
/// (`ns_get_unless_inactive()`): only active namespaces are handed to
/// user space.
pub(crate) fn get_unless_inactive(ns: &NsCommon) -> Option<NsRef> {
    if ns.active_read_once() == 0 {
        crate::vfs_warn_on_once!(ns.is_initial());
        return None;
    }
    NsRef::try_get(ns)
}
