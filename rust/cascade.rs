// SPDX-License-Identifier: GPL-2.0-only
// Copyright (c) 2026 nstree-rs developers

//! The active reference count and its owner cascade.
//!
//! Pure logic, generic over [`ActiveNode`]: the kernel implements it for
//! `struct ns_common` (in `ffi`), the host tests for a model namespace, and
//! both run this very code.
//!
//! Every namespace holds one active reference on its owning user namespace
//! while it is active itself. Dropping the last active reference of a
//! namespace therefore drops one of its owner's, which may be that owner's
//! last, and so on up the chain; taking the first active reference of an
//! inactive namespace (resurrection: `SIOCGSKNS`, opening an nsfs inode)
//! takes one on its owner, and so on. Both walks are [`cascade`]: they stop
//! at the first namespace whose count did not cross zero, or at an owner
//! that is always active (`init_user_ns`, for which [`ActiveNode::active_owner`]
//! returns `None`).
//!
//! ```text
//!                 net_ns          pid_ns
//!                       \        /
//!                        -      -            both put their last active
//!                        user_ns1 (0)        reference: user_ns1 drops to
//!                            |               zero and puts one of
//!                 ipc_ns     |     uts_ns    user_ns2's
//!                       \    |    /
//!                        +   -   +
//!                        user_ns2 (2)
//!                            |
//!                        init_user_ns (1, always active)
//! ```

#![forbid(unsafe_code)]
// The items are `pub` for the host test crate (rust/host), which builds
// this very file as a module and tests it from outside.
#![allow(unreachable_pub)]

/// A namespace as the active reference count sees it.
pub trait ActiveNode {
    /// Whether this is a boot-time namespace: always active, never counted.
    fn is_initial(&self) -> bool;

    /// The owner whose active count this namespace holds one of: its user
    /// namespace, or `None` when that is `init_user_ns` (always active) or
    /// there is none.
    fn active_owner(&self) -> Option<&Self>;

    /// Decrements the active count; `true` if it reached zero
    /// (`atomic_dec_and_test()`).
    fn active_dec_and_test(&self) -> bool;

    /// Increments the active count and returns the previous value
    /// (`atomic_fetch_add(1, ...)`).
    fn active_fetch_inc(&self) -> i32;

    /// The current active count.
    fn active_read(&self) -> i32;

    /// Reports a broken invariant (`VFS_WARN_ON_ONCE(!ok)` in the kernel,
    /// a panic in host tests).
    fn check(&self, ok: bool);
}

/// Applies `step` to `ns` and, for as long as `step` reports that the
/// count crossed zero, to each owner up the chain.
///
/// This is the whole cascade, for both directions: [`put_active`] steps
/// with "decrement, did it reach zero?", [`get_active`] with "increment,
/// was it zero?".
pub fn cascade<N: ActiveNode + ?Sized>(mut ns: &N, step: impl Fn(&N) -> bool) {
    // Initial namespaces are always active.
    if ns.is_initial() {
        return;
    }
    while step(ns) {
        match ns.active_owner() {
            Some(owner) => {
                // Only the initial namespaces are uncounted, and the only
                // initial owner, init_user_ns, is not returned as an owner.
                owner.check(!owner.is_initial());
                ns = owner;
            }
            None => return,
        }
    }
}

/// Drops one active reference on `ns` (`__ns_ref_active_put()`).
pub fn put_active<N: ActiveNode + ?Sized>(ns: &N) {
    cascade(ns, |n| {
        let zero = n.active_dec_and_test();
        n.check(zero || n.active_read() >= 0);
        zero
    });
}

/// Takes one active reference on `ns` (`__ns_ref_active_get()`),
/// resurrecting its owners if it was inactive.
pub fn get_active<N: ActiveNode + ?Sized>(ns: &N) {
    cascade(ns, |n| {
        let prev = n.active_fetch_inc();
        n.check(prev >= 0);
        prev == 0
    });
}

/// Something that keeps a namespace's memory alive: a counted reference.
pub trait Counted {
    /// The namespace type.
    type Node: ActiveNode;

    /// The counted namespace.
    fn node(&self) -> &Self::Node;
}

/// An active reference: makes the namespace visible to user space (listed
/// by `listns()`, openable by file handle) for as long as it lives.
///
/// It borrows the counted reference that keeps the namespace's memory
/// alive, so the borrow checker guarantees that an active reference never
/// outlives its plain one; dropping it runs the put cascade.
pub struct Active<'a, P: Counted> {
    counted: &'a P,
}

impl<'a, P: Counted> Active<'a, P> {
    /// Takes an active reference on the namespace that `counted` holds.
    pub fn new(counted: &'a P) -> Self {
        get_active(counted.node());
        Active { counted }
    }

    /// The namespace.
    pub fn node(&self) -> &P::Node {
        self.counted.node()
    }
}

impl<P: Counted> Drop for Active<'_, P> {
    fn drop(&mut self) {
        put_active(self.counted.node());
    }
}
