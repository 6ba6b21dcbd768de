// SPDX-License-Identifier: GPL-2.0-only

//! The namespace tree lock and the RCU/scheduler primitives.
//!
//! `ns_tree_lock` is a `seqlock_t` defined in the C glue
//! (`DEFINE_SEQLOCK()` needs C for its lockdep class); the lock and read
//! operations are the `rust/helpers/seqlock.c` helpers, inlined into this
//! crate with `CONFIG_RUST_INLINE_HELPERS`.

use core::marker::PhantomData;
use core::ptr;

use kernel::bindings;

/// The namespace tree lock.
#[inline]
fn ns_tree_lock() -> *mut bindings::seqlock_t {
    // Taking the address of an extern static does not access it.
    ptr::addr_of_mut!(bindings::ns_tree_lock)
}

/// The namespace tree lock (`ns_tree_lock`) held for writing.
///
/// Mutating a [`TreeRoot`](super::TreeRoot) requires a `&WriteGuard`: the
/// type system keeps writers serialised the way the C code does with
/// `write_seqlock()`. Only this crate takes the lock (the symbol is global,
/// as upstream's is, but no C code of the series takes it: with
/// `CONFIG_NSTREE_RUST`, kernel/nstree.c is not built), so a guard is only
/// ever made by taking it.
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
    #[inline]
    pub(crate) fn lock() -> WriteGuard {
        // SAFETY: `ns_tree_lock` is a static `seqlock_t` initialised by
        // `DEFINE_SEQLOCK()` (kernel/nstree_rs/nstree_glue.c:29); released
        // on drop by this guard alone. `write_seqlock()` is
        // include/linux/seqlock.h:877.
        unsafe { bindings::write_seqlock(ns_tree_lock()) };
        WriteGuard(PhantomData)
    }
}

impl Drop for WriteGuard {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: this guard holds the write side (it is only made by
        // `lock()`); `write_sequnlock()` is include/linux/seqlock.h:891.
        unsafe { bindings::write_sequnlock(ns_tree_lock()) };
    }
}

/// The namespace tree lock held as an exclusive reader
/// (`read_seqlock_excl()`): the trees cannot change and no namespace on
/// them can be freed (removal needs the write side).
///
/// # Examples
///
/// ```no_run
/// use nstree_rs::ffi::lock::ReadGuard;
///
/// let r = ReadGuard::lock(); // read_seqlock_excl(&ns_tree_lock)
/// // ... search an rbtree: no writer runs, every node on it is on the list
/// drop(r); // read_sequnlock_excl(&ns_tree_lock)
/// ```
pub(crate) struct ReadGuard(PhantomData<*mut ()>);

impl ReadGuard {
    /// `read_seqlock_excl(&ns_tree_lock)`.
    #[inline]
    pub(crate) fn lock() -> ReadGuard {
        // SAFETY: the static seqlock (see `WriteGuard::lock()`); released
        // on drop. `read_seqlock_excl()` is include/linux/seqlock.h:1011.
        unsafe { bindings::read_seqlock_excl(ns_tree_lock()) };
        ReadGuard(PhantomData)
    }
}

impl Drop for ReadGuard {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: this guard holds the exclusive read side (it is only made
        // by `lock()`); `read_sequnlock_excl()` is
        // include/linux/seqlock.h:1021.
        unsafe { bindings::read_sequnlock_excl(ns_tree_lock()) };
    }
}

/// Runs `f` as a seqlock reader: retries while a writer raced with it and
/// `f` found nothing (a racing writer can only hide a node, never invent
/// one, so a hit needs no retry; this is the C `rb_find_rcu()` loop of
/// kernel/nstree.c:315-320).
///
/// # Examples
///
/// ```no_run
/// use kernel::sync::rcu;
/// use nstree_rs::ffi::{read_retry, TreeRoot, Unified};
///
/// fn contains(root: &TreeRoot<Unified>, id: u64) -> bool {
///     let g = rcu::read_lock();
///     read_retry(|| root.find_rcu(id, &g)).is_some()
/// }
/// ```
#[inline]
pub(crate) fn read_retry<T>(mut f: impl FnMut() -> Option<T>) -> Option<T> {
    loop {
        // SAFETY: reads the sequence count of the static seqlock
        // (include/linux/seqlock.h:835).
        let seq = unsafe { bindings::read_seqbegin(ns_tree_lock()) };
        let r = f();
        // SAFETY: as above (include/linux/seqlock.h:852).
        if r.is_some() || unsafe { bindings::read_seqretry(ns_tree_lock(), seq) } == 0 {
            return r;
        }
    }
}

/// Whether the caller is in an RCU read-side critical section
/// (`rcu_read_lock_held()`: lockdep's answer with `CONFIG_DEBUG_LOCK_ALLOC`,
/// else always true, include/linux/rcupdate.h:323,334).
#[inline]
pub(crate) fn rcu_read_lock_held() -> bool {
    // SAFETY: `rcu_read_lock_held()` (include/linux/rcupdate.h:323,334)
    // has no preconditions.
    unsafe { bindings::rcu_read_lock_held() != 0 }
}

/// Whether the scheduler wants the CPU back (`need_resched()`).
#[inline]
pub(crate) fn need_resched() -> bool {
    // SAFETY: `need_resched()` (include/linux/sched.h:2272) only reads the
    // current task's flags.
    unsafe { bindings::need_resched() }
}

/// An RCU read-side critical section the current task is in: a
/// [`Guard`](kernel::sync::rcu::Guard) of the kernel crate, or the section
/// of an export's C caller ([`CallerRcu`]). What a lookup finds under it
/// is borrowed from it.
///
/// # Safety
///
/// A value of an implementing type may exist only while the task that
/// has it is in an RCU read-side critical section, and that section must
/// last at least as long as the value; the type must be neither `Send`
/// nor `Sync`, so that the value stays with that task.
pub(crate) unsafe trait RcuSection {}

// SAFETY: "The RCU read side lock is actually held while instances of
// this guard exist" (`Guard`'s invariant, rust/kernel/sync/rcu.rs:13-15):
// `rcu_read_lock()` makes it, its `Drop` calls `rcu_read_unlock()`
// (rust/kernel/sync/rcu.rs:23,44); it is `NotThreadSafe`.
unsafe impl RcuSection for kernel::sync::rcu::Guard {}

/// The RCU read-side critical section of an export's C caller.
///
/// C's `ns_tree_lookup_rcu()` requires its caller to hold RCU
/// (`RCU_LOCKDEP_WARN(!rcu_read_lock_held(), ...)`, kernel/nstree.c:347);
/// a nested `rcu_read_lock()`/`rcu_read_unlock()` pair in the export costs
/// a preempt count increment and decrement and a resched test on every
/// lookup (without `CONFIG_PREEMPT_RCU`; with it, the nesting count of
/// the task). This witness stands for the caller's section instead.
///
/// # Examples
///
/// Only a caller that vouches for the section can make one:
///
/// ```compile_fail,E0133
/// use nstree_rs::ffi::lock::CallerRcu;
///
/// fn pretend() -> CallerRcu {
///     CallerRcu::assume() // no RCU read-side section is held here
/// }
/// ```
pub(crate) struct CallerRcu(PhantomData<*mut ()>);

impl CallerRcu {
    /// Stands for the caller's RCU read-side critical section.
    ///
    /// # Safety
    ///
    /// The current task must be in an RCU read-side critical section that
    /// lasts at least as long as the returned value.
    #[inline]
    pub(crate) unsafe fn assume() -> Self {
        CallerRcu(PhantomData)
    }
}

// SAFETY: `assume()`, the only way to make one, requires the section to
// outlast the value (for its one user, the contract of
// `ns_tree_lookup_rcu()`, kernel/nstree.c:347); `PhantomData<*mut ()>` makes it neither `Send` nor
// `Sync`.
unsafe impl RcuSection for CallerRcu {}

/// Lets the scheduler run (`cond_resched()`).
///
/// May sleep: calling it in atomic context (an RCU read-side section, a
/// spinlock held) is a bug that `CONFIG_DEBUG_ATOMIC_SLEEP` reports, and
/// which the type system does not rule out, as for every sleeping function
/// of the kernel crate (see the crate's soundness section).
///
/// # Examples
///
/// Leave the RCU read-side section before:
///
/// ```no_run
/// use kernel::sync::rcu;
/// use nstree_rs::ffi::{cond_resched, need_resched};
///
/// let g = rcu::read_lock();
/// // ... part of a long walk ...
/// if need_resched() {
///     drop(g); // rcu_read_unlock()
///     cond_resched();
/// }
/// ```
#[inline]
pub(crate) fn cond_resched() {
    // SAFETY: `cond_resched()` (include/linux/sched.h:2177) has no
    // preconditions beyond the atomic-context rule stated above, which is
    // outside the crate's safety contract.
    unsafe { bindings::cond_resched() };
}

/// `debug_lockdep_rcu_enabled()` (kernel/rcu/update.c): whether lockdep's
/// RCU checks are on yet.
#[cfg(CONFIG_PROVE_RCU)]
#[inline]
pub(crate) fn debug_lockdep_rcu_enabled() -> bool {
    // SAFETY: `debug_lockdep_rcu_enabled()` (include/linux/rcupdate.h:322)
    // has no preconditions.
    unsafe { bindings::debug_lockdep_rcu_enabled() != 0 }
}

/// `lockdep_rcu_suspicious()` (kernel/locking/lockdep.c): the "suspicious
/// RCU usage" report of `RCU_LOCKDEP_WARN()`.
#[cfg(CONFIG_PROVE_RCU)]
#[cold]
pub(crate) fn lockdep_rcu_suspicious(
    file: &'static kernel::str::CStr,
    line: u32,
    msg: &'static kernel::str::CStr,
) {
    use kernel::prelude::*;
    // SAFETY: both strings are NUL-terminated statics, as the `__FILE__`
    // and message literals that `RCU_LOCKDEP_WARN()` passes
    // (include/linux/rcupdate.h:380); the function only prints them.
    unsafe { bindings::lockdep_rcu_suspicious(file.as_char_ptr(), line as i32, msg.as_char_ptr()) };
}
