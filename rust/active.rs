// SPDX-License-Identifier: GPL-2.0-only

//! The two reference types of a namespace.
//!
//! - [`NsRef`] is a counted reference (`__ns_ref`): it keeps the memory
//!   alive and the namespace on the trees.
//! - [`ActiveRef`] is an active reference (`__ns_ref_active`): it makes the
//!   namespace visible to user space. It borrows an [`NsRef`], so it cannot
//!   outlive it; dropping it runs the put cascade.
//!
//! Who holds which, plainly:
//!
//! - every active reference in a running kernel belongs to C code
//!   (nsproxy, cred, pid, nsfs inodes, bind mounts, owned namespaces),
//!   which takes and drops it through the exported
//!   `__ns_ref_active_get/put()`. Those two `unsafe extern "C"` functions
//!   (in `ffi/exports/cascade.rs`) are the one boundary where an active
//!   reference crosses into this crate untyped; their `# Safety` sections
//!   state what the C callers guarantee;
//! - `listns()` takes only counted references ([`NsRef`], through
//!   [`get_unless_inactive`] and the walk's held cursors): it lists active
//!   namespaces but never makes one active;
//! - [`ActiveRef`] is how Rust code takes an active reference; today only
//!   the KUnit tests do.
//!
//! An unbalanced active count is a logic error (a namespace listed that
//! should not be, or a warning), never a memory error: memory is kept by
//! `__ns_ref` alone. That is why the pure cascade functions are safe.

#![forbid(unsafe_code)]

#[cfg(any(nstree_host, CONFIG_NSTREE_RUST_KUNIT_TEST))]
use crate::cascade::{Active, Counted};
use crate::ffi::NsCommon;
pub(crate) use crate::ffi::NsRef;

/// An active reference on a namespace, borrowing its counted reference.
///
/// # Examples
///
/// An active reference borrows a counted one: taking it is
/// `__ns_ref_active_get()`, dropping it `__ns_ref_active_put()` with its
/// cascade up the owners, and it cannot outlive the count it borrows:
///
/// ```no_run
/// use nstree_rs::active::{ActiveRef, NsRef};
/// use nstree_rs::ffi::NsCommon;
///
/// fn visible_for_a_moment(ns: &NsCommon) -> Option<i32> {
///     let counted = NsRef::try_get(ns)?; // __ns_ref_get()
///     let active = ActiveRef::new(&counted); // __ns_ref_active_get()
///     let n = active.node().active_read();
///     drop(active); // __ns_ref_active_put()
///     Some(n)
/// } // `counted` is dropped here: ops->put()
/// ```
#[cfg(any(nstree_host, CONFIG_NSTREE_RUST_KUNIT_TEST))]
pub(crate) type ActiveRef<'a> = Active<'a, NsRef>;

#[cfg(any(nstree_host, CONFIG_NSTREE_RUST_KUNIT_TEST))]
impl Counted for NsRef {
    type Node = NsCommon;

    fn node(&self) -> &NsCommon {
        self.ns()
    }
}

/// The owner whose active count `ns` holds: its user namespace, unless
/// that is `init_user_ns`, which is always active (`ns_owner()`).
///
/// # Examples
///
/// The chain a last put may cascade along, up to (not including)
/// `init_user_ns`:
///
/// ```no_run
/// use nstree_rs::active::ns_owner;
/// use nstree_rs::ffi::NsCommon;
///
/// fn depth(ns: &NsCommon) -> usize {
///     let (mut d, mut cur) = (0, ns);
///     while let Some(owner) = ns_owner(cur) {
///         d += 1;
///         cur = owner;
///     }
///     d
/// }
/// ```
pub(crate) fn ns_owner(ns: &NsCommon) -> Option<&NsCommon> {
    crate::vfs_warn_on_once!(ns.owner().is_none() && ns.has_ops() && !ns.is_init_user_ns());
    ns.counted_owner()
}

/// A counted reference unless the namespace is inactive
/// (`ns_get_unless_inactive()`): only active namespaces are handed to
/// user space.
///
/// # Examples
///
/// What `listns()` does with `user_ns_id`: the user namespace with that id,
/// if it is active, with a reference that outlives the RCU section it was
/// found in:
///
/// ```no_run
/// use kernel::sync::rcu;
/// use nstree_rs::active::{get_unless_inactive, NsRef};
/// use nstree_rs::req::ns_type;
/// use nstree_rs::tree::lookup_rcu;
///
/// fn active_user_ns(id: u64) -> Option<NsRef> {
///     let g = rcu::read_lock();
///     lookup_rcu(id, ns_type::USER, &g).and_then(get_unless_inactive)
/// }
/// ```
pub(crate) fn get_unless_inactive(ns: &NsCommon) -> Option<NsRef> {
    if ns.active_read() == 0 {
        crate::vfs_warn_on_once!(ns.is_initial());
        return None;
    }
    NsRef::try_get(ns)
}
