// SPDX-License-Identifier: GPL-2.0-only
// Copyright (c) 2026 nstree-rs developers

//! The namespace tree lock and the RCU/scheduler primitives.

use core::marker::PhantomData;
use kernel::bindings;

/// The namespace tree lock (`ns_tree_lock`) held for writing.
///
/// Mutating a [`TreeRoot`](super::TreeRoot) requires a `&WriteGuard`: the
/// type system keeps writers serialised the way the C code does with
/// `write_seqlock()`. A C caller that already holds the lock makes one
/// with the `unsafe` [`WriteGuard::assume_held`], visible only in `ffi`.
///
/// # Examples
///
/// ```no_run
/// use nstree_rs::ffi::lock::WriteGuard;
/// use nstree_rs::ffi::{NsCommon, TreeRoot, Unified};
///
/// /// # Safety
/// ///
/// /// As for `TreeRoot::insert`.
/// unsafe fn publish(root: &TreeRoot<Unified>, ns: &NsCommon) -> bool {
///     let w = WriteGuard::lock(); // write_seqlock(&ns_tree_lock)
///     // SAFETY: per the function's contract.
///     unsafe { root.insert(ns, &w) }
/// } // write_sequnlock(&ns_tree_lock)
/// ```
///
/// The exclusive read lock is not the write lock:
///
/// ```compile_fail,E0308
/// # use nstree_rs::ffi::lock::ReadGuard;
/// # use nstree_rs::ffi::{NsCommon, TreeRoot, Unified};
/// unsafe fn publish(root: &TreeRoot<Unified>, ns: &NsCommon) -> bool {
///     let r = ReadGuard::lock(); // read_seqlock_excl(&ns_tree_lock)
///     unsafe { root.insert(ns, &r) }
/// }
/// ```
///
/// and a guard cannot be made up without taking the lock:
///
/// ```compile_fail,E0423
/// # use core::marker::PhantomData;
/// # use nstree_rs::ffi::lock::WriteGuard;
/// # use nstree_rs::ffi::{NsCommon, TreeRoot, Unified};
/// unsafe fn publish(root: &TreeRoot<Unified>, ns: &NsCommon) -> bool {
///     let w = WriteGuard(PhantomData);
///     unsafe { root.insert(ns, &w) }
/// }
/// ```
pub(crate) struct WriteGuard(PhantomData<*mut ()>);

impl WriteGuard {
    /// `write_seqlock(&ns_tree_lock)`.
    pub(crate) fn lock() -> WriteGuard {
        // SAFETY: the glue takes the static seqlock; released on drop.
        unsafe { bindings::nstree_rs_write_lock() };
        WriteGuard(PhantomData)
    }
}

impl WriteGuard {
    /// A token for the write lock that a C caller already holds; it must
    /// not unlock, hence `ManuallyDrop`.
    ///
    /// # Safety
    ///
    /// The caller must hold `ns_tree_lock` for writing while the token lives.
    pub(super) unsafe fn assume_held() -> core::mem::ManuallyDrop<WriteGuard> {
        core::mem::ManuallyDrop::new(WriteGuard(PhantomData))
    }
}

impl Drop for WriteGuard {
    fn drop(&mut self) {
        // SAFETY: this guard holds the write side.
        unsafe { bindings::nstree_rs_write_unlock() };
    }
}

/// The namespace tree lock held as an exclusive reader
/// (`read_seqlock_excl()`): the trees cannot change and no namespace on
/// them can be freed (removal needs the write side).
pub(crate) struct ReadGuard(PhantomData<*mut ()>);

impl ReadGuard {
    /// `read_seqlock_excl(&ns_tree_lock)`.
    pub(crate) fn lock() -> ReadGuard {
        // SAFETY: the glue takes the static seqlock; released on drop.
        unsafe { bindings::nstree_rs_read_lock_excl() };
        ReadGuard(PhantomData)
    }
}

impl Drop for ReadGuard {
    fn drop(&mut self) {
        // SAFETY: this guard holds the exclusive read side.
        unsafe { bindings::nstree_rs_read_unlock_excl() };
    }
}

/// Runs `f` as a seqlock reader: retries while a writer raced with it and
/// `f` found nothing (a racing writer can only hide a node, never invent
/// one, so a hit needs no retry; this is the C `rb_find_rcu()` loop).
pub(crate) fn read_retry<T>(mut f: impl FnMut() -> Option<T>) -> Option<T> {
    loop {
        // SAFETY: reading the sequence count of the static seqlock.
        let seq = unsafe { bindings::nstree_rs_read_seqbegin() };
        let r = f();
        // SAFETY: as above.
        if r.is_some() || !unsafe { bindings::nstree_rs_read_seqretry(seq) } {
            return r;
        }
    }
}

/// Whether the caller is in an RCU read-side critical section (lockdep).
pub(crate) fn rcu_read_lock_held() -> bool {
    // SAFETY: no preconditions.
    unsafe { bindings::nstree_rs_rcu_read_lock_held() }
}

/// Whether the scheduler wants the CPU back.
pub(crate) fn need_resched() -> bool {
    // SAFETY: no preconditions.
    unsafe { bindings::nstree_rs_need_resched() }
}

/// Lets the scheduler run (`cond_resched()`); must not be in an atomic or
/// RCU read-side section.
pub(crate) fn cond_resched() {
    // SAFETY: callers hold no spinlock and no RCU read lock.
    unsafe { bindings::nstree_rs_cond_resched() };
}
