// SPDX-License-Identifier: GPL-2.0-only
// Copyright (c) 2026 nstree-rs developers

//! `struct ns_common` and the counted reference.

use core::ffi::c_int;
use core::ptr::{self, NonNull};

use kernel::bindings;
use kernel::sync::atomic::{Atomic, Relaxed};
use kernel::sync::Refcount;
use kernel::types::Opaque;

use super::{NS_LAST_INIT_ID, NS_TREE_OFFSET};
use crate::cascade::ActiveNode;

/// Whether `id` is one of the boot-time namespaces' ids,
/// `1..=NS_LAST_INIT_ID`; 0 (no id yet) is not.
#[inline]
pub(crate) const fn is_initial_id(id: u64) -> bool {
    id != 0 && id <= NS_LAST_INIT_ID
}

/// A namespace: `struct ns_common`.
///
/// # Invariants
///
/// A `&NsCommon` is only created for a live, initialised `struct
/// ns_common`, and only for as long as the memory is guaranteed to stay
/// valid (an RCU read-side section, the tree lock, or a held `__ns_ref`).
#[repr(transparent)]
pub(crate) struct NsCommon(Opaque<bindings::ns_common>);

// SAFETY: `struct ns_common` is shared between CPUs by design. The fields
// read through `&NsCommon` are either written once before the namespace is
// published on a tree and never again (`ns_id`, `ns_type`, `ops`, `inum`:
// on 7.3 `ns_rcu` no longer overlays `struct ns_tree`, so freeing a
// removed namespace through RCU does not write over them), or atomics
// (`__ns_ref`, `__ns_ref_active`); the tree links are only changed under
// `ns_tree_lock` and read with RCU list/rbtree rules.
unsafe impl Sync for NsCommon {}
// SAFETY: see `Sync`; nothing in `struct ns_common` is tied to a thread.
unsafe impl Send for NsCommon {}

impl NsCommon {
    /// Borrows a C namespace.
    ///
    /// # Safety
    ///
    /// `ptr` must point to an initialised `struct ns_common` that stays
    /// valid for `'a`.
    #[inline]
    pub(crate) unsafe fn from_raw<'a>(ptr: *mut bindings::ns_common) -> &'a NsCommon {
        // SAFETY: `NsCommon` is a transparent wrapper and the caller
        // guarantees validity for `'a`.
        unsafe { &*ptr.cast::<NsCommon>() }
    }

    /// The raw `struct ns_common` pointer.
    #[inline]
    pub(crate) fn as_ptr(&self) -> *mut bindings::ns_common {
        self.0.get()
    }

    #[inline]
    fn tree(&self) -> *mut bindings::ns_tree {
        // The anonymous `struct ns_tree` starts at `NS_TREE_OFFSET`.
        self.as_ptr()
            .cast::<u8>()
            .wrapping_add(NS_TREE_OFFSET)
            .cast()
    }

    /// The 64-bit namespace id (0 until `__ns_tree_gen_id()`).
    ///
    /// Stable for every `&NsCommon`, including one reached under RCU
    /// from a tree: see the SAFETY comment.
    #[inline]
    pub(crate) fn id(&self) -> u64 {
        // SAFETY: `self` is valid (type invariant). `ns_id` is written by
        // `__ns_tree_gen_id()` before the namespace is published on any
        // tree (the publishing `rcu_assign_pointer()`/`list_add_rcu()`
        // orders the store before any reader that finds the node) and never
        // written again: on the 7.3 layout `ns_rcu` has its own storage
        // after `struct ns_tree` (asserted in `ffi.rs`), so `call_rcu()` /
        // `kfree_rcu()` of a removed namespace that an RCU reader still
        // reaches leaves `ns_id` intact until the memory is freed, which
        // is after the reader's grace period. (On 7.2, `ns_rcu` shared a
        // union with `ns_id`: such a reader could read 0 or a pointer.)
        unsafe { (*self.tree()).ns_id }
    }

    /// The `CLONE_NEW*` flag of the namespace type.
    #[inline]
    pub(crate) fn ns_type(&self) -> u32 {
        // SAFETY: `self` is valid; `ns_type` never changes after init.
        unsafe { (*self.as_ptr()).ns_type }
    }

    /// Whether this is one of the boot-time namespaces: its id is in
    /// `1..=NS_LAST_INIT_ID`.
    ///
    /// C's `is_ns_init_id()` tests `ns_id <= NS_LAST_INIT_ID` and warns
    /// on 0; here an id of 0 (a namespace without an id yet) is never
    /// taken for an initial namespace, so that no count is skipped for
    /// it. The warning is the same.
    #[inline]
    pub(crate) fn is_initial(&self) -> bool {
        let id = self.id();
        crate::vfs_warn_on_once!(id == 0);
        is_initial_id(id)
    }

    /// The active reference count, `__ns_ref_active`.
    pub(crate) fn active(&self) -> &Atomic<i32> {
        // SAFETY: `__ns_ref_active` is an `atomic_t` inside the valid
        // namespace (at the C offset, asserted in `ffi.rs`), only accessed
        // atomically, and lives as long as `self`: it has its own storage
        // on the 7.3 layout, so RCU freeing does not write over it while
        // readers can still reach the namespace.
        unsafe { Atomic::from_ptr(ptr::addr_of_mut!((*self.tree()).__ns_ref_active.counter)) }
    }

    /// `atomic_read(&__ns_ref_active)`: a `READ_ONCE()`, done as a volatile
    /// load instead of through the out-of-line `atomic_read()` helper.
    ///
    /// Safe on a namespace reached under RCU before any reference is
    /// taken: the count is only ever changed atomically, and on 7.3 only
    /// by reference operations (not by `call_rcu()`).
    #[inline]
    pub(crate) fn active_read_once(&self) -> i32 {
        // SAFETY: `__ns_ref_active` is an aligned `int` inside the valid
        // namespace, only written atomically, so the load is never torn;
        // on 7.3 it does not overlap `ns_rcu` (asserted in `ffi.rs`).
        unsafe { ptr::read_volatile(ptr::addr_of!((*self.tree()).__ns_ref_active.counter)) }
    }

    /// `atomic_fetch_add(i, &__ns_ref_active)`: fully ordered, returns the
    /// old value.
    ///
    /// On x86-64 without sanitizers this is the instruction C's
    /// `arch_atomic_fetch_add()` is (`lock xadd` with a memory clobber),
    /// inline: the kernel crate's `Atomic` calls the out-of-line
    /// `rust_helper_atomic_fetch_*()` (helpers are only inlined with
    /// `CONFIG_RUST_INLINE_HELPERS`, which needs clang and rustc on one LLVM
    /// major), a call, a return and a register shuffle per count change.
    /// KASAN/KCSAN/KMSAN builds keep the helper, whose `atomic_*()` is
    /// instrumented.
    #[inline]
    fn active_fetch_add(&self, i: i32) -> i32 {
        #[cfg(all(
            target_arch = "x86_64",
            not(CONFIG_KASAN),
            not(CONFIG_KCSAN),
            not(CONFIG_KMSAN)
        ))]
        {
            let mut v = i;
            // SAFETY: `ns + off` is the aligned `int` of the `atomic_t`
            // `__ns_ref_active` inside the valid namespace (the offsets are
            // those of the C layout: `NS_TREE_OFFSET` is asserted in
            // `ffi.rs`, the others are bindgen's), which lives as
            // long as `self` and is only accessed atomically (see
            // `active()`); `lock xadd` is `arch_atomic_fetch_add()` of
            // arch/x86/include/asm/atomic.h: an atomic, fully ordered
            // read-modify-write of those 4 bytes, and the memory clobber (no
            // `nomem`/`readonly` option) makes it a compiler barrier as
            // `asm volatile(... : "memory")` is in C.
            unsafe {
                core::arch::asm!(
                    "lock xadd dword ptr [{ns} + {off}], {v:e}",
                    ns = in(reg) self.as_ptr(),
                    off = const NS_TREE_OFFSET
                        + core::mem::offset_of!(bindings::ns_tree, __ns_ref_active)
                        + core::mem::offset_of!(bindings::atomic_t, counter),
                    v = inout(reg) v,
                    options(nostack),
                );
            }
            v
        }
        #[cfg(not(all(
            target_arch = "x86_64",
            not(CONFIG_KASAN),
            not(CONFIG_KCSAN),
            not(CONFIG_KMSAN)
        )))]
        {
            self.active().fetch_add(i, kernel::sync::atomic::Full)
        }
    }

    /// The main reference count, `__ns_ref`, as `kernel::sync::Refcount`.
    fn refcount(&self) -> &Refcount {
        let r = self
            .as_ptr()
            .cast::<u8>()
            .wrapping_add(bindings::NSTREE_RS_NS_REF_OFFSET)
            .cast::<Refcount>();
        // SAFETY: `__ns_ref` is the `refcount_t` at this C offset of the
        // valid namespace; `Refcount` is a transparent wrapper of
        // `Opaque<refcount_t>`, and the count lives as long as `self`.
        unsafe { &*r }
    }

    /// The main reference count's value (`__ns_ref_read()`).
    pub(crate) fn refs(&self) -> i32 {
        self.refcount().as_atomic().load(Relaxed)
    }

    /// The user namespace that owns this one (`ops->owner()`), including
    /// `init_user_ns`. `None` for namespaces without operations and for
    /// `init_user_ns` itself.
    ///
    /// Every namespace holds a counted reference on its owner for its
    /// whole lifetime, so the borrow lives as long as `self`'s.
    pub(crate) fn owner(&self) -> Option<&NsCommon> {
        // SAFETY: `self` is valid; `ops` never changes after init.
        if unsafe { (*self.as_ptr()).ops }.is_null() {
            return None;
        }
        // SAFETY: `ops` is set, so `ops->owner` is a valid callback
        // (the glue calls it); it returns the owning user namespace.
        let user_ns = unsafe { bindings::nstree_rs_ns_owner(self.as_ptr()) };
        if user_ns.is_null() {
            return None;
        }
        // SAFETY: `user_ns` is live: every namespace holds a counted
        // reference on its owner for its whole lifetime, and `ns` is the
        // `struct ns_common` embedded in it.
        Some(unsafe { NsCommon::from_raw(ptr::addr_of_mut!((*user_ns).ns)) })
    }

    /// Whether the namespace has operations (all but a few internal ones).
    pub(crate) fn has_ops(&self) -> bool {
        // SAFETY: `self` is valid; `ops` never changes after init.
        !unsafe { (*self.as_ptr()).ops }.is_null()
    }

    /// Whether `self` is `init_user_ns`.
    pub(crate) fn is_init_user_ns(&self) -> bool {
        // SAFETY: taking the address of the static does not access it.
        ptr::eq(self.as_ptr(), unsafe {
            ptr::addr_of_mut!(bindings::init_user_ns.ns)
        })
    }

    /// Whether the caller's task uses this namespace (`is_current_namespace()`).
    #[inline]
    pub(crate) fn is_current(&self) -> bool {
        // SAFETY: `self` is a valid namespace; the function only reads
        // `current`'s nsproxy and creds.
        unsafe { bindings::is_current_namespace(self.as_ptr()) }
    }

    /// Sets the namespace id.
    ///
    /// # Safety
    ///
    /// The namespace must not be on any tree yet (nobody else reads the id).
    pub(crate) unsafe fn set_id(&self, id: u64) {
        // SAFETY: the caller guarantees exclusive access to `ns_id`.
        unsafe { (*self.tree()).ns_id = id };
    }
}

impl ActiveNode for NsCommon {
    fn is_initial(&self) -> bool {
        NsCommon::is_initial(self)
    }

    fn active_owner(&self) -> Option<&Self> {
        crate::active::ns_owner(self)
    }

    fn active_dec_and_test(&self) -> bool {
        self.active_fetch_add(-1) == 1
    }

    fn active_fetch_inc(&self) -> i32 {
        self.active_fetch_add(1)
    }

    fn active_read(&self) -> i32 {
        self.active_read_once()
    }

    fn check(&self, ok: bool) {
        crate::vfs_warn_on_once!(!ok);
    }
}

/// A counted (`__ns_ref`) reference to a namespace.
///
/// # Invariants
///
/// `ns` points to a live namespace on which this value owns one `__ns_ref`
/// count (or an initial namespace, whose count is never changed); the count
/// is dropped through `ops->put()`.
pub(crate) struct NsRef {
    ns: NonNull<NsCommon>,
}

// SAFETY: the count can be dropped from any thread.
unsafe impl Send for NsRef {}
// SAFETY: `&NsRef` only gives `&NsCommon`, which is `Sync`.
unsafe impl Sync for NsRef {}

impl NsRef {
    /// Takes a counted reference (`__ns_ref_get()`); fails once the count
    /// has dropped to zero (the namespace is being freed).
    pub(crate) fn try_get(ns: &NsCommon) -> Option<NsRef> {
        // Initial namespaces are never freed and their count is fixed.
        // SAFETY: `ns` is valid; the glue does refcount_inc_not_zero().
        if ns.is_initial() || unsafe { bindings::nstree_rs_ns_ref_inc_not_zero(ns.as_ptr()) } {
            // INVARIANT: we own the count we just took.
            Some(NsRef {
                ns: NonNull::from(ns),
            })
        } else {
            None
        }
    }

    /// The namespace.
    pub(crate) fn ns(&self) -> &NsCommon {
        // SAFETY: the count we own keeps the namespace alive.
        unsafe { self.ns.as_ref() }
    }
}

impl Drop for NsRef {
    fn drop(&mut self) {
        // A namespace without `ops` cannot be put (and is never handed out).
        // SAFETY: `ops` is immutable after init.
        if unsafe { (*self.ns().as_ptr()).ops }.is_null() {
            return;
        }
        // SAFETY: we own one count, which `ops->put()` consumes.
        unsafe { bindings::nstree_rs_ns_put(self.ns.as_ptr().cast()) };
    }
}

/// `may_see_all_namespaces()`: the caller is in the initial pid namespace
/// and has CAP_SYS_ADMIN over its owner.
pub(crate) fn may_see_all() -> bool {
    // SAFETY: `get_current()` is always valid in process context, as is
    // the static `init_pid_ns`; the calls only read them.
    unsafe {
        let pid_ns = bindings::task_active_pid_ns(bindings::get_current());
        let init = ptr::addr_of_mut!(bindings::init_pid_ns);
        ptr::eq(pid_ns, init)
            && bindings::ns_capable_noaudit((*init).user_ns, bindings::CAP_SYS_ADMIN as c_int)
    }
}

/// A counted reference on the caller's user namespace (`current_user_ns()`).
pub(crate) fn current_user_ns() -> Option<NsRef> {
    // SAFETY: the caller's credentials hold a counted reference on their
    // user namespace for the duration of this call, long enough to take
    // our own.
    let ns = unsafe { NsCommon::from_raw(ptr::addr_of_mut!((*bindings::current_user_ns()).ns)) };
    NsRef::try_get(ns)
}
