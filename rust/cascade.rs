// SPDX-License-Identifier: GPL-2.0-only

//! The active reference count and its owner cascade (`__ns_ref_active_get()`,
//! `__ns_ref_active_put()`).
//!
//! A namespace holds one active reference on its owning user namespace while it is active
//! itself. The last put of a namespace therefore puts one of its owner's, which may be the
//! owner's last, and so on up; the first get of an inactive namespace (resurrection) gets one
//! on its owner, and so on. Both stop at the first count that does not cross zero, or below
//! `init_user_ns`, which is always active.

#![forbid(unsafe_code)]

/// A namespace as the active reference count sees it.
pub(crate) trait ActiveNode {
    /// Whether this is a boot-time namespace: always active, never counted.
    fn is_initial(&self) -> bool;

    /// A quicker test that holds for every boot-time namespace, and may hold for others: the
    /// cascade asks [`ActiveNode::is_initial`] only when it does.
    fn maybe_initial(&self) -> bool {
        self.is_initial()
    }

    /// The owner this namespace holds an active reference on; `None` for `init_user_ns`.
    fn active_owner(&self) -> Option<&Self>;

    /// Decrements the active count; whether it reached zero.
    fn active_dec_and_test(&self) -> bool;

    /// Increments the active count; its value before.
    fn active_fetch_inc(&self) -> i32;

    /// The active count.
    fn active_read(&self) -> i32;

    /// The counted reference count (`__ns_ref`).
    fn counted_read(&self) -> i32;

    /// Whether [`ActiveNode::check`] is called: C's `VFS_WARN_ON_ONCE()` evaluates nothing
    /// without `CONFIG_DEBUG_VFS`.
    const CHECKS: bool = true;

    /// Reports a broken invariant.
    fn check(&self, ok: bool);
}

/// Applies `step` to `ns` and, for as long as it reports a count that crossed zero, to each
/// owner up the chain.
fn cascade<N: ActiveNode + ?Sized>(ns: &N, step: impl FnMut(&N, bool) -> bool) {
    if ns.maybe_initial() {
        if ns.is_initial() {
            return;
        }
        // Not a boot-time namespace although the quick test held (id 0): out of line, so that
        // the common path is the one compare.
        return counted_cold(ns, step);
    }
    counted(ns, step);
}

#[cold]
#[inline(never)]
fn counted_cold<N: ActiveNode + ?Sized>(ns: &N, step: impl FnMut(&N, bool) -> bool) {
    counted(ns, step);
}

/// Going on to an owner is the rare case.
#[cold]
#[inline]
fn cold() {}

#[inline]
fn counted<N: ActiveNode + ?Sized>(mut ns: &N, mut step: impl FnMut(&N, bool) -> bool) {
    let mut first = true;
    while step(ns, first) {
        let Some(owner) = ns.active_owner() else {
            return;
        };
        cold();
        if N::CHECKS {
            owner.check(!owner.is_initial());
        }
        ns = owner;
        first = false;
    }
}

/// Drops an active reference (`__ns_ref_active_put()`).
pub(crate) fn put_active<N: ActiveNode + ?Sized>(ns: &N) {
    cascade(ns, |n, first| {
        let zero = n.active_dec_and_test();
        if N::CHECKS {
            n.check(zero || n.active_read() >= 0);
            if zero && first {
                n.check(!n.is_initial());
                n.check(n.counted_read() != 0);
            }
        }
        zero
    });
}

/// Takes an active reference (`__ns_ref_active_get()`), resurrecting the owners of an
/// inactive namespace.
pub(crate) fn get_active<N: ActiveNode + ?Sized>(ns: &N) {
    cascade(ns, |n, _| {
        let prev = n.active_fetch_inc();
        if N::CHECKS {
            n.check(prev >= 0);
        }
        prev == 0
    });
}
