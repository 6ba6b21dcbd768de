// SPDX-License-Identifier: GPL-2.0-only

//! The C entry points of the active reference count: what
//! `include/linux/ns_common.h` declares next to `__ns_ref_active_read()`.
//! The C callers (nsproxy, cred, pid, nsfs, owned namespaces) own every
//! active reference in the kernel; these functions are where their
//! references cross into Rust, untyped.

use core::ptr;

use kernel::bindings;
use kernel::prelude::export;

use crate::ffi::ns::{may_see_all, NsCommon};

/// `ns_owner()`: the owning user namespace unless it is `init_user_ns`.
///
/// # Safety
///
/// `ns` must be live in the sense of [`NsCommon::from_raw`] for the
/// duration of the call (a counted reference held, reached on a tree
/// under RCU, on its trees with `ns_tree_lock` held, or its free path
/// before the owner's put), so that its owner has not been put yet.
#[export]
pub(crate) unsafe extern "C" fn ns_owner(ns: *mut bindings::ns_common) -> *mut bindings::ns_common {
    // SAFETY: per the function's contract, which is C's (`ns_owner()`,
    // kernel/nscommon.c:97).
    let ns = unsafe { NsCommon::from_raw(ns) };
    crate::active::ns_owner(ns).map_or(ptr::null_mut(), |o| o.as_ptr())
}

/// `__ns_ref_active_get()`: takes an active reference, resurrecting the
/// owner chain if the namespace was inactive.
///
/// # Safety
///
/// `ns` must be live (the caller holds `__ns_ref`).
#[export]
pub(crate) unsafe extern "C" fn __ns_ref_active_get(ns: *mut bindings::ns_common) {
    // SAFETY: per the function's contract: the callers hold `__ns_ref`,
    // e.g. for a task's namespaces (`nsproxy_ns_active_get()`,
    // fs/nsfs.c:691), for the user namespace of new credentials
    // (`switch_cred_namespaces()`, kernel/nsproxy.c:268-271) or for an nsfs
    // inode (fs/nsfs.c:438).
    crate::cascade::get_active(unsafe { NsCommon::from_raw(ns) });
}

/// `__ns_ref_active_put()`: drops an active reference, cascading up the
/// owner chain when it was the last one.
///
/// # Safety
///
/// `ns` must be live and the caller must own the active reference.
#[export]
pub(crate) unsafe extern "C" fn __ns_ref_active_put(ns: *mut bindings::ns_common) {
    // SAFETY: per the function's contract: the callers own the active
    // reference they drop and hold `__ns_ref`, e.g. the old credentials'
    // (`switch_cred_namespaces()`, kernel/nsproxy.c:268-271) or an nsfs
    // inode's, when it is evicted (`nsfs_evict()`, fs/nsfs.c:58-62).
    crate::cascade::put_active(unsafe { NsCommon::from_raw(ns) });
}

/// `may_see_all_namespaces()`.
///
/// # Safety
///
/// None: `unsafe` only because `#[export]` checks the definition against
/// bindgen's declaration, whose functions are all `unsafe`.
#[export]
pub(crate) unsafe extern "C" fn may_see_all_namespaces() -> bool {
    may_see_all()
}
