// SPDX-License-Identifier: GPL-2.0-only

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
//!
//! The examples run on the host (`make host-test`), where the host crate
//! (`rust/host`) compiles this very file as `nstree_rs::cascade`, next to
//! a model namespace, `nstree_rs::system::ModelNs`. The kernel does not
//! compile them.

#![forbid(unsafe_code)]
// The items are `pub` for the host test crate (rust/host), which builds
// this very file as a module and tests it from outside.
#![allow(unreachable_pub)]

use core::hint::cold_path;

/// A namespace as the active reference count sees it.
///
/// The kernel implements it for `NsCommon` (`struct ns_common`, in
/// `ffi/ns.rs`) with the kernel's atomics; the host tests for models.
///
/// # Examples
///
/// A minimal implementation, single-threaded:
///
/// ```
/// use core::cell::Cell;
/// use nstree_rs::cascade::{get_active, put_active, ActiveNode};
///
/// struct Ns<'a> {
///     owner: Option<&'a Ns<'a>>,
///     active: Cell<i32>,
/// }
///
/// impl ActiveNode for Ns<'_> {
///     fn is_initial(&self) -> bool {
///         false
///     }
///     fn active_owner(&self) -> Option<&Self> {
///         self.owner
///     }
///     fn active_dec_and_test(&self) -> bool {
///         self.active.set(self.active.get() - 1);
///         self.active.get() == 0
///     }
///     fn active_fetch_inc(&self) -> i32 {
///         let prev = self.active.get();
///         self.active.set(prev + 1);
///         prev
///     }
///     fn active_read(&self) -> i32 {
///         self.active.get()
///     }
///     fn check(&self, ok: bool) {
///         assert!(ok, "VFS_WARN_ON_ONCE");
///     }
/// }
///
/// let user = Ns { owner: None, active: Cell::new(0) };
/// let net = Ns { owner: Some(&user), active: Cell::new(0) };
/// get_active(&net); // resurrects the owner with it
/// assert_eq!((net.active_read(), user.active_read()), (1, 1));
/// put_active(&net);
/// assert_eq!((net.active_read(), user.active_read()), (0, 0));
/// ```
pub trait ActiveNode {
    /// Whether this is a boot-time namespace: always active, never counted.
    fn is_initial(&self) -> bool;

    /// A quicker test that holds for every initial namespace (and may hold
    /// for others): the cascade asks [`Self::is_initial`] only when it
    /// does. The kernel's is C's `is_ns_init_id()` test, `ns_id <=
    /// NS_LAST_INIT_ID`: a load of the id and one compare, true for id 0
    /// too, where `is_initial()` is not. The default is `is_initial()`
    /// itself.
    ///
    /// An implementation for which `is_initial()` holds and this does not
    /// breaks the count (an initial namespace would be counted), not
    /// memory safety.
    fn maybe_initial(&self) -> bool {
        self.is_initial()
    }

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

    /// Whether the cascade evaluates its invariant checks at all. The
    /// kernel's `VFS_WARN_ON_ONCE()` does not evaluate its condition
    /// without `CONFIG_DEBUG_VFS`, and the conditions read atomics, which
    /// the compiler may not drop once they are computed: the kernel sets
    /// this to `cfg!(CONFIG_DEBUG_VFS)`, so that the cascade runs the
    /// loads C runs and no more.
    const CHECKS: bool = true;

    /// Reports a broken invariant (`VFS_WARN_ON_ONCE(!ok)` in the kernel,
    /// a panic in host tests). Called only when [`Self::CHECKS`] is set.
    fn check(&self, ok: bool);
}

/// Applies `step` to `ns` and, for as long as `step` reports that the
/// count crossed zero, to each owner up the chain.
///
/// This is the whole cascade, for both directions: [`put_active`] steps
/// with "decrement, did it reach zero?", [`get_active`] with "increment,
/// was it zero?".
///
/// # Examples
///
/// A step that always reports a zero crossing walks up to the last owner
/// that is not always active:
///
/// ```
/// use std::cell::RefCell;
/// use nstree_rs::cascade::cascade;
/// use nstree_rs::req::ns_type::{NET, USER};
/// use nstree_rs::system::ModelNs;
///
/// // init_user_ns (id 3) <- user (20) <- user (21) <- net (22)
/// let init_user = ModelNs::new(3, USER, None);
/// let u20 = ModelNs::new(20, USER, Some(init_user.clone()));
/// let u21 = ModelNs::new(21, USER, Some(u20.clone()));
/// let net = ModelNs::new(22, NET, Some(u21.clone()));
///
/// let seen = RefCell::new(Vec::new());
/// cascade(&*net, |n| {
///     seen.borrow_mut().push(n.id);
///     true
/// });
/// assert_eq!(*seen.borrow(), [22, 21, 20]); // init_user_ns is not counted
///
/// seen.borrow_mut().clear();
/// cascade(&*net, |n| {
///     seen.borrow_mut().push(n.id);
///     n.id != 21 // the count of 21 did not cross zero: stop there
/// });
/// assert_eq!(*seen.borrow(), [22, 21]);
/// ```
#[inline]
pub fn cascade<N: ActiveNode + ?Sized>(ns: &N, step: impl Fn(&N) -> bool) {
    if ns.maybe_initial() {
        // Initial namespaces are always active.
        if ns.is_initial() {
            return;
        }
        // Counted although the quick test held (in the kernel, id 0: a
        // namespace without an id yet, deliberate difference 5 of the
        // walkthrough). Out of line: were both branches to go on into
        // the same code, the compiler would merge the two tests into one
        // `id - 1 < NS_LAST_INIT_ID` (two instructions more on every
        // call); this way the common path is C's single compare.
        return counted_cold(ns, step);
    }
    counted(ns, step);
}

/// [`counted`], out of line, for a namespace that passed
/// [`ActiveNode::maybe_initial`] and is not initial.
#[cold]
#[inline(never)]
fn counted_cold<N: ActiveNode + ?Sized>(ns: &N, step: impl Fn(&N) -> bool) {
    counted(ns, step);
}

/// The cascade of a namespace that is not initial.
#[inline]
fn counted<N: ActiveNode + ?Sized>(mut ns: &N, step: impl Fn(&N) -> bool) {
    while step(ns) {
        match ns.active_owner() {
            Some(owner) => {
                // A count that crossed zero usually stops at
                // init_user_ns (`None`): going on to an owner is the rare
                // case. So the compiler lays the loop out as C's (the
                // return falls through), where it had the return behind a
                // jump and the loop's back edge in front: one instruction
                // more on each get and put that crosses zero.
                cold_path();
                // Only the initial namespaces are uncounted, and the only
                // initial owner, init_user_ns, is not returned as an owner.
                if N::CHECKS {
                    owner.check(!owner.is_initial());
                }
                ns = owner;
            }
            None => return,
        }
    }
}

/// Drops one active reference on `ns` (`__ns_ref_active_put()`).
///
/// # Examples
///
/// ```
/// use nstree_rs::cascade::{get_active, put_active};
/// use nstree_rs::req::ns_type::{NET, USER};
/// use nstree_rs::system::ModelNs;
///
/// let init_user = ModelNs::new(3, USER, None);
/// let user = ModelNs::new(20, USER, Some(init_user.clone()));
/// let net = ModelNs::new(21, NET, Some(user.clone()));
/// get_active(&*net);
/// get_active(&*net);
/// put_active(&*net); // not the last: the owner keeps its count
/// assert_eq!((net.active(), user.active()), (1, 1));
/// put_active(&*net); // the last: the owner loses the one net held
/// assert_eq!((net.active(), user.active()), (0, 0));
/// assert_eq!(init_user.active(), 1); // always active, never counted
/// ```
#[inline]
pub fn put_active<N: ActiveNode + ?Sized>(ns: &N) {
    cascade(ns, |n| {
        let zero = n.active_dec_and_test();
        if N::CHECKS {
            n.check(zero || n.active_read() >= 0);
        }
        zero
    });
}

/// Takes one active reference on `ns` (`__ns_ref_active_get()`),
/// resurrecting its owners if it was inactive.
///
/// # Examples
///
/// ```
/// use nstree_rs::cascade::get_active;
/// use nstree_rs::req::ns_type::{NET, USER};
/// use nstree_rs::system::ModelNs;
///
/// let init_user = ModelNs::new(3, USER, None);
/// let user = ModelNs::new(20, USER, Some(init_user.clone()));
/// let net = ModelNs::new(21, NET, Some(user.clone()));
/// get_active(&*net); // inactive: resurrects its owner too
/// assert_eq!((net.active(), user.active()), (1, 1));
/// get_active(&*net); // already active: the owner is left alone
/// assert_eq!((net.active(), user.active()), (2, 1));
/// ```
#[inline]
pub fn get_active<N: ActiveNode + ?Sized>(ns: &N) {
    cascade(ns, |n| {
        let prev = n.active_fetch_inc();
        if N::CHECKS {
            n.check(prev >= 0);
        }
        prev == 0
    });
}

/// Something that keeps a namespace's memory alive: a counted reference.
///
/// The kernel implements it for `NsRef` (`active.rs`), which owns one
/// `__ns_ref` count; the host model for `PlainRef`.
///
/// # Examples
///
/// ```
/// use nstree_rs::cascade::Counted;
/// use nstree_rs::req::ns_type::{NET, USER};
/// use nstree_rs::system::{ModelNs, PlainRef};
///
/// let init_user = ModelNs::new(3, USER, None);
/// let net = ModelNs::new(21, NET, Some(init_user.clone()));
/// let counted = PlainRef::get(&net); // the plain count: 1 -> 2
/// assert_eq!((counted.node().id, net.plain()), (21, 2));
/// drop(counted);
/// assert_eq!(net.plain(), 1);
/// ```
#[cfg(any(nstree_host, CONFIG_NSTREE_RUST_KUNIT_TEST))]
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
/// outlives its counted one; dropping it runs the put cascade.
///
/// # Examples
///
/// ```
/// use nstree_rs::cascade::Active;
/// use nstree_rs::req::ns_type::{NET, USER};
/// use nstree_rs::system::{ModelNs, PlainRef};
///
/// let init_user = ModelNs::new(3, USER, None);
/// let user = ModelNs::new(20, USER, Some(init_user.clone()));
/// let net = ModelNs::new(21, NET, Some(user.clone()));
///
/// let counted = PlainRef::get(&net);
/// let active = Active::new(&counted); // __ns_ref_active_get()
/// assert_eq!((net.active(), user.active()), (1, 1));
/// drop(active); // __ns_ref_active_put()
/// assert_eq!((net.active(), user.active()), (0, 0));
/// drop(counted);
/// ```
///
/// The counted reference cannot go while the active one lives:
///
/// ```compile_fail,E0505
/// # use nstree_rs::cascade::Active;
/// # use nstree_rs::req::ns_type::{NET, USER};
/// # use nstree_rs::system::{ModelNs, PlainRef};
/// # let init_user = ModelNs::new(3, USER, None);
/// # let net = ModelNs::new(21, NET, Some(init_user.clone()));
/// let counted = PlainRef::get(&net);
/// let active = Active::new(&counted);
/// drop(counted); // error: `counted` is still borrowed by `active`
/// drop(active);
/// ```
///
/// nor can an active reference be kept beyond the scope of its counted one:
///
/// ```compile_fail,E0597
/// # use nstree_rs::cascade::Active;
/// # use nstree_rs::req::ns_type::{NET, USER};
/// # use nstree_rs::system::{ModelNs, PlainRef};
/// # let init_user = ModelNs::new(3, USER, None);
/// # let net = ModelNs::new(21, NET, Some(init_user.clone()));
/// let active;
/// {
///     let counted = PlainRef::get(&net);
///     active = Active::new(&counted); // error: `counted` does not live long enough
/// }
/// drop(active);
/// ```
#[cfg(any(nstree_host, CONFIG_NSTREE_RUST_KUNIT_TEST))]
pub struct Active<'a, P: Counted> {
    counted: &'a P,
}

#[cfg(any(nstree_host, CONFIG_NSTREE_RUST_KUNIT_TEST))]
impl<'a, P: Counted> Active<'a, P> {
    /// Takes an active reference on the namespace that `counted` holds.
    ///
    /// # Examples
    ///
    /// See [`Active`].
    pub fn new(counted: &'a P) -> Self {
        get_active(counted.node());
        Active { counted }
    }

    /// The namespace.
    ///
    /// # Examples
    ///
    /// ```
    /// use nstree_rs::cascade::Active;
    /// use nstree_rs::req::ns_type::{NET, USER};
    /// use nstree_rs::system::{ModelNs, PlainRef};
    ///
    /// let init_user = ModelNs::new(3, USER, None);
    /// let net = ModelNs::new(21, NET, Some(init_user.clone()));
    /// let counted = PlainRef::get(&net);
    /// assert_eq!(Active::new(&counted).node().id, 21);
    /// ```
    pub fn node(&self) -> &P::Node {
        self.counted.node()
    }
}

#[cfg(any(nstree_host, CONFIG_NSTREE_RUST_KUNIT_TEST))]
impl<P: Counted> Drop for Active<'_, P> {
    fn drop(&mut self) {
        put_active(self.counted.node());
    }
}
