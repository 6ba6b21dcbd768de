// SPDX-License-Identifier: GPL-2.0-only

//! `struct ns_common` and the counted reference.

use core::ptr::{self, NonNull};

use kernel::bindings;
use kernel::ffi::c_int;
use kernel::sync::atomic::{Atomic, Full, Relaxed};
#[cfg(any(nstree_host, CONFIG_NSTREE_RUST_KUNIT_TEST))]
use kernel::sync::Refcount;
use kernel::task::Task;
use kernel::types::Opaque;

use super::{layout, NS_LAST_INIT_ID};
use crate::cascade::ActiveNode;

/// Whether `id` is one of the boot-time namespaces' ids,
/// `1..=NS_LAST_INIT_ID`; 0 (no id yet) is not.
///
/// # Examples
///
/// ```no_run
/// use nstree_rs::ffi::ns::is_initial_id;
///
/// assert!(is_initial_id(1)); // init_ipc_ns
/// assert!(!is_initial_id(0)); // no id yet: C's is_ns_init_id() says initial
/// ```
#[inline]
pub(crate) const fn is_initial_id(id: u64) -> bool {
    id != 0 && id <= NS_LAST_INIT_ID
}

/// The bytes of a `struct ns_common`, with its size and alignment
/// (asserted against the C compiler's in `ffi.rs`). Its first member is
/// `____cacheline_aligned_in_smp` (include/linux/ns/ns_common_types.h:114):
/// a cache line (`L1_CACHE_BYTES`, 64 on x86-64) with `CONFIG_SMP`, and
/// the alignment of its widest field without. `repr(align)` takes only
/// a literal, so the two cases are spelled out; the assertions fail the
/// build on an architecture where either is wrong.
#[cfg_attr(CONFIG_SMP, repr(C, align(64)))]
#[cfg_attr(not(CONFIG_SMP), repr(C, align(8)))]
pub(super) struct Storage([u8; layout::SIZE]);

/// A namespace: `struct ns_common`, opaque.
///
/// The fields are reached at the C compiler's offsets ([`layout`]), not
/// through bindgen's `struct ns_common`, which lacks the anonymous
/// `struct ns_tree` member (see [`layout`]).
///
/// # Invariants
///
/// A `&NsCommon` is only created for a live, initialised `struct
/// ns_common` (`__ns_common_init()` or `NS_COMMON_INIT()` ran), and only
/// for as long as the memory is guaranteed to stay valid (an RCU
/// read-side section, the tree lock, or a held `__ns_ref`).
///
/// # Examples
///
/// C hands the crate a `struct ns_common *`; an `unsafe` borrow makes it a
/// `&NsCommon` for as long as the caller vouches for, and the safe methods
/// read its fields at the C offsets:
///
/// ```no_run
/// use kernel::bindings;
/// use nstree_rs::ffi::NsCommon;
///
/// /// # Safety
/// ///
/// /// `ns` is a live namespace for the duration of the call.
/// unsafe fn describe(ns: *mut bindings::ns_common) -> (u64, u32, bool) {
///     // SAFETY: per the function's contract.
///     let ns = unsafe { NsCommon::from_raw(ns) };
///     (ns.id(), ns.ns_type(), ns.is_initial())
/// }
/// ```
#[repr(transparent)]
pub(crate) struct NsCommon(Opaque<Storage>);

// SAFETY: `struct ns_common` (include/linux/ns/ns_common_types.h:111) is
// shared between CPUs by design. The fields read through `&NsCommon` are
// either written once before the namespace is published on a tree and
// never again (`ns_id`, `ns_type`, `ops`: see `id()`), or atomics
// (`__ns_ref`, `__ns_ref_active`, see `active()`); the tree links are only
// changed under `ns_tree_lock` and read with the RCU list/rbtree rules
// (`ffi/tree.rs`).
unsafe impl Sync for NsCommon {}
// SAFETY: see `Sync`; nothing in `struct ns_common`
// (include/linux/ns/ns_common_types.h:111-121) is tied to a thread.
unsafe impl Send for NsCommon {}

impl NsCommon {
    /// Borrows a C namespace.
    ///
    /// # Safety
    ///
    /// `ptr` must point to an initialised `struct ns_common` that stays
    /// valid for `'a`, and for all of `'a` one of these must hold (the type
    /// invariant: what keeps its owner, which [`owner`](Self::owner) hands
    /// out, valid as long as it):
    /// - the caller holds a counted reference (`__ns_ref`) on it;
    /// - it was reached on a namespace tree within an RCU read-side
    ///   section that lasts for `'a`;
    /// - it is on its trees and `ns_tree_lock` is held for `'a`;
    /// - the caller is its free path, before the free path puts its owner
    ///   (`ns_tree_remove()` comes first: kernel/user_namespace.c:211,234).
    ///
    /// Memory that is merely not freed yet is not enough: a `struct net`
    /// kept only by its passive count (`net_passive_dec()`) has put its
    /// user namespace already (`cleanup_net()`, net/core/net_namespace.c:727).
    ///
    /// # Examples
    ///
    /// ```compile_fail,E0133
    /// # use kernel::bindings;
    /// # use nstree_rs::ffi::NsCommon;
    /// fn id_of(ns: *mut bindings::ns_common) -> u64 {
    ///     NsCommon::from_raw(ns).id() // nothing vouches for `ns`
    /// }
    /// ```
    #[inline]
    pub(crate) unsafe fn from_raw<'a>(ptr: *mut bindings::ns_common) -> &'a NsCommon {
        // SAFETY: `NsCommon` is a transparent wrapper of storage of the
        // size and alignment of `struct ns_common`
        // (include/linux/ns/ns_common_types.h:111, asserted in `ffi.rs`),
        // and the caller guarantees validity for `'a`.
        unsafe { &*ptr.cast::<NsCommon>() }
    }

    /// The raw `struct ns_common` pointer.
    #[inline]
    pub(crate) fn as_ptr(&self) -> *mut bindings::ns_common {
        self.0.get().cast()
    }

    /// A pointer to the field of type `T` at byte offset `off` (one of
    /// [`layout`]'s), inside this namespace.
    #[inline]
    pub(super) fn field<T>(&self, off: usize) -> *mut T {
        self.0.get().cast::<u8>().wrapping_add(off).cast()
    }

    /// The 64-bit namespace id (0 until `__ns_tree_gen_id()`).
    ///
    /// Stable for every `&NsCommon`, including one reached under RCU
    /// from a tree: see the SAFETY comment. Loaded with `READ_ONCE()`
    /// semantics, as `set_id()` stores it.
    #[inline]
    pub(crate) fn id(&self) -> u64 {
        // SAFETY: `self` is valid (type invariant), `ns_id` an aligned `u64`
        // inside it, written by `__ns_common_init()` (0,
        // kernel/nscommon.c:63) before anything reaches the namespace, and
        // by `__ns_tree_gen_id()` (`ffi/exports/tree.rs`, a relaxed atomic
        // store in `set_id()`) before `__ns_tree_add_raw()` publishes it:
        // its `write_seqlock()`'s `smp_wmb()`
        // (include/linux/seqlock.h:433) orders the store before every
        // store that links the node (`rcu_assign_pointer()`,
        // include/linux/rbtree.h:107, include/linux/rculist.h:105, and the
        // rebalancing's `WRITE_ONCE()`s), so before any reader that finds
        // it; never again. Initial namespaces are
        // reached earlier, through credentials and pids: the static ones
        // hold their id from `NS_COMMON_INIT()`
        // (include/linux/ns_common.h:32), so `__ns_tree_gen_id()` stores
        // nothing for them from initcalls, when other CPUs run
        // (kernel/user_namespace.c:1418, kernel/pid_namespace.c:470);
        // `init_net` is set in `net_ns_init()` (init/main.c:1171), before
        // `rest_init()` (init/main.c:1190) starts the other CPUs. (Until
        // patch 4, C's `__ns_tree_gen_id()` stores the static id again,
        // kernel/nstree.c:397: upstream's race with its own readers.) On
        // 7.3 `ns_rcu` has storage of its own
        // (include/linux/ns/ns_common_types.h:119-120, asserted in
        // `ffi.rs`), so `kfree_rcu()` of a namespace an RCU reader still
        // reaches (kernel/user_namespace.c:231) leaves `ns_id` intact until
        // the grace period ends. (On 7.2 `ns_rcu` shared a union with
        // `ns_id`: such a reader could read 0 or a pointer.)
        unsafe { Atomic::from_ptr(self.field::<u64>(layout::NS_TREE)) }.load(Relaxed)
    }

    /// [`id()`](Self::id) of a namespace reached from a tree, with a
    /// plain load: the tree searches compare it twice per level, and the
    /// compiler folds a plain load into the first compare, as C's
    /// `ns_find()` and `ns_cmp()` compile (`cmpq mem, reg`), where an
    /// atomic load stays a load of its own.
    ///
    /// # Safety
    ///
    /// `self` must have been reached from a namespace tree, under RCU or
    /// with `ns_tree_lock` held (so no id store can run concurrently: every
    /// one precedes the namespace's publication on its trees).
    #[inline]
    pub(super) unsafe fn id_on_tree(&self) -> u64 {
        // SAFETY: `ns_id` is an aligned `u64` inside the valid namespace.
        // A namespace on a tree got its id before it was published there:
        // `__ns_tree_add()` calls `__ns_tree_gen_id()` before
        // `__ns_tree_add_raw()` (include/linux/nstree.h:56-60), and the
        // callers that assign the id themselves do so before they add the
        // namespace (`setup_net()`, net/core/net_namespace.c:440;
        // `create_ipc_ns()`, ipc/namespace.c:69; `alloc_mnt_ns()`,
        // fs/namespace.c:4386). The store precedes the writer's
        // `write_seqlock(&ns_tree_lock)`, whose `smp_wmb()`
        // (include/linux/seqlock.h:433) orders it before every store that
        // links the node (`rcu_assign_pointer()` and the rebalancing's
        // `WRITE_ONCE()`s, lib/rbtree.c), which a reader's `READ_ONCE()`
        // of the link depends on; a writer holds the lock itself. The id is
        // never stored again (see `id()`). So this read races with no
        // write.
        unsafe { *self.field::<u64>(layout::NS_TREE) }
    }

    /// The `CLONE_NEW*` flag of the namespace type.
    #[inline]
    pub(crate) fn ns_type(&self) -> u32 {
        // SAFETY: `self` is valid; `ns_type` is an aligned `u32` set
        // before the namespace is published and never written again:
        // `ns->ns_type = ns_type` (kernel/nscommon.c:64) or
        // `.ns_type = ...` (include/linux/ns_common.h:31).
        unsafe { *self.field::<u32>(layout::NS_TYPE) }
    }

    /// `ns->ops`, which is set once by `__ns_common_init()`
    /// (kernel/nscommon.c:62) or `NS_COMMON_INIT()`
    /// (include/linux/ns_common.h:34) and never changed.
    #[inline]
    fn ops(&self) -> *const bindings::proc_ns_operations {
        // SAFETY: `self` is valid; `ops` is an aligned pointer written
        // before the namespace is published and never again:
        // `ns->ops = ops` (kernel/nscommon.c:62) or `.ops = ...`
        // (include/linux/ns_common.h:34).
        unsafe { *self.field::<*const bindings::proc_ns_operations>(layout::OPS) }
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
    #[inline]
    pub(crate) fn active(&self) -> &Atomic<i32> {
        // SAFETY: `__ns_ref_active.counter` is an aligned `int` inside the
        // valid namespace (offset asserted in `ffi.rs`) that lives as long
        // as `self`: it has its own storage on the 7.3 layout, so RCU
        // freeing does not write over it while readers can still reach the
        // namespace. Every C access to it goes through the atomic API:
        // `ATOMIC_INIT(1)` (include/linux/ns_common.h:37), `atomic_read()`
        // (include/linux/ns_common.h:62), `atomic_set()`,
        // `atomic_dec_and_test()` and `atomic_fetch_add()`
        // (kernel/nscommon.c:86,88,170,183,291,306, which this crate
        // replaces), so no access races non-atomically.
        unsafe { Atomic::from_ptr(self.field::<i32>(layout::NS_REF_ACTIVE)) }
    }

    /// `atomic_read(&__ns_ref_active)`.
    ///
    /// Safe on a namespace reached under RCU before any reference is
    /// taken: the count is only ever accessed atomically (see
    /// [`NsCommon::active`]).
    #[inline]
    pub(crate) fn active_read(&self) -> i32 {
        self.active().load(Relaxed)
    }

    /// The main reference count, `__ns_ref`, as `kernel::sync::Refcount`.
    #[cfg(any(nstree_host, CONFIG_NSTREE_RUST_KUNIT_TEST))]
    fn refcount(&self) -> &Refcount {
        // SAFETY: `__ns_ref` is the `refcount_t`
        // (include/linux/ns/ns_common_types.h:113) at this C offset of the
        // valid namespace; `Refcount` is a transparent wrapper of
        // `Opaque<refcount_t>`, and the count lives as long as `self`.
        unsafe { &*self.field::<Refcount>(layout::NS_REF) }
    }

    /// The main reference count's value (`__ns_ref_read()`).
    #[cfg(any(nstree_host, CONFIG_NSTREE_RUST_KUNIT_TEST))]
    pub(crate) fn refs(&self) -> i32 {
        self.refcount().as_atomic().load(Relaxed)
    }

    /// The user namespace that owns this one (`ops->owner()`), including
    /// `init_user_ns`. `None` for namespaces without operations and for
    /// `init_user_ns` itself.
    ///
    /// The borrow lives as long as `self`'s, by RCU: see the SAFETY
    /// comment.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use nstree_rs::ffi::NsCommon;
    ///
    /// /// The id of the owning user namespace; 0 for `init_user_ns`.
    /// fn owner_id(ns: &NsCommon) -> u64 {
    ///     ns.owner().map_or(0, |o| o.id())
    /// }
    /// ```
    pub(crate) fn owner(&self) -> Option<&NsCommon> {
        let user_ns = self.owner_user_ns();
        if user_ns.is_null() {
            return None;
        }
        // SAFETY: `user_ns` is non-null and from `owner_user_ns()`, as C
        // tests `owner` before `to_ns_common(owner)` (kernel/nscommon.c:106-111).
        Some(unsafe { self.user_ns_common(user_ns) })
    }

    /// [`owner()`](Self::owner) unless that is `init_user_ns`: the owner
    /// whose active count this namespace holds one of (`ns_owner()`,
    /// kernel/nscommon.c:97-112). Like C, it compares the user namespace
    /// pointer with `&init_user_ns` before it makes a `NsCommon` of it.
    #[inline]
    pub(crate) fn counted_owner(&self) -> Option<&NsCommon> {
        let user_ns = self.owner_user_ns();
        // Taking the address of an extern static does not access it.
        if user_ns.is_null() || ptr::eq(user_ns, ptr::addr_of_mut!(bindings::init_user_ns)) {
            return None;
        }
        // SAFETY: `user_ns` is non-null and from `owner_user_ns()`, as C
        // tests `owner` before `to_ns_common(owner)` (kernel/nscommon.c:106-111).
        Some(unsafe { self.user_ns_common(user_ns) })
    }

    /// `ops->owner(ns)`, or null for a namespace without operations.
    #[inline]
    fn owner_user_ns(&self) -> *mut bindings::user_namespace {
        if self.ops().is_null() {
            return ptr::null_mut();
        }
        // SAFETY: `ops` is set, so `ops->owner` is set (every
        // `struct proc_ns_operations` of 7.3 has one; C calls it the same
        // way in kernel/nstree.c:217). The helper calls it from C because
        // the struct's layout is randomized.
        unsafe { bindings::ns_ops_owner(self.as_ptr()) }
    }

    /// The `struct ns_common` of `user_ns`, borrowed as long as `self`.
    ///
    /// # Safety
    ///
    /// `user_ns` must be non-null and returned by
    /// [`owner_user_ns()`](Self::owner_user_ns) for `self`.
    #[inline]
    unsafe fn user_ns_common(&self, user_ns: *mut bindings::user_namespace) -> &NsCommon {
        // SAFETY: `user_ns` is the live owner of a live namespace (the
        // caller). What keeps it live as long as `self`, in each case of
        // `from_raw()`'s contract (the type invariant):
        // - if `self` is borrowed from a counted reference, `self` holds a
        //   counted reference on its owner until its own free path puts it
        //   (e.g. kernel/user_namespace.c:234, `ns_ref_put(parent)` after
        //   the child is freed);
        // - if `self` is on its trees with `ns_tree_lock` held, or this is
        //   its free path before it puts its owner, that put has not run:
        //   it follows `ns_tree_remove()` (kernel/user_namespace.c:211,234),
        //   which takes the lock;
        // - if `self` was reached under RCU with its `__ns_ref` already 0,
        //   the owner may be put concurrently, but only after `self` left
        //   its trees (`ns_tree_remove(ns)` precedes the put,
        //   kernel/user_namespace.c:211,234), and a user namespace is freed
        //   with `kfree_rcu()` ("Concurrent nstree traversal depends on a
        //   grace period", kernel/user_namespace.c:230-231), so not before
        //   the RCU read-side section that reached `self` ends.
        // `ns` is the `struct ns_common` embedded in it (offset asserted).
        unsafe { NsCommon::from_raw(user_ns.cast::<u8>().add(layout::USER_NS_NS).cast()) }
    }

    /// Whether the namespace has operations (all but a few internal ones).
    pub(crate) fn has_ops(&self) -> bool {
        !self.ops().is_null()
    }

    /// Whether `self` is `init_user_ns`.
    pub(crate) fn is_init_user_ns(&self) -> bool {
        // Taking the address of an extern static does not access it.
        let init = ptr::addr_of_mut!(bindings::init_user_ns);
        ptr::eq(
            self.as_ptr().cast::<u8>(),
            init.cast::<u8>().wrapping_add(layout::USER_NS_NS),
        )
    }

    /// Whether the caller's task uses this namespace (`is_current_namespace()`).
    ///
    /// `false` for a task that has dropped its nsproxy on its way out.
    #[inline]
    pub(crate) fn is_current(&self) -> bool {
        // SAFETY: `self` is a valid namespace. `is_current_namespace()`
        // (fs/nsfs.c:479) compares it with `current->nsproxy`'s members
        // (include/linux/nsfs.h:27-36), the task's credentials and its pid
        // namespace; `current->nsproxy` is NULL once `do_exit()` has called
        // `exit_nsproxy_namespaces()` (kernel/exit.c:986), before the task
        // work of the exit runs (kernel/exit.c:987), so the helper
        // (rust/helpers/ns_common.c) checks it first.
        unsafe { bindings::ns_is_current(self.as_ptr()) }
    }

    /// Sets the namespace id, with `WRITE_ONCE()` semantics.
    ///
    /// # Safety
    ///
    /// The namespace must not be on any tree yet, and no other code may
    /// read its id concurrently.
    ///
    /// # Examples
    ///
    /// ```compile_fail,E0133
    /// # use nstree_rs::ffi::NsCommon;
    /// fn renumber(ns: &NsCommon) {
    ///     ns.set_id(42) // a listed namespace's id must never change
    /// }
    /// ```
    pub(crate) unsafe fn set_id(&self, id: u64) {
        // SAFETY: `ns_id` is an aligned `u64` inside the valid namespace;
        // the caller guarantees that nobody reads it concurrently, as C's
        // `__ns_tree_gen_id()` (kernel/nstree.c:392-400) assumes, and the
        // Rust side accesses it only atomically (`id()`).
        unsafe { Atomic::from_ptr(self.field::<u64>(layout::NS_TREE)) }.store(id, Relaxed);
    }
}

impl ActiveNode for NsCommon {
    fn is_initial(&self) -> bool {
        NsCommon::is_initial(self)
    }

    fn maybe_initial(&self) -> bool {
        // `is_ns_init_id()` (include/linux/ns_common.h:26) without its
        // warning: true for every initial id and for 0.
        self.id() <= NS_LAST_INIT_ID
    }

    fn active_owner(&self) -> Option<&Self> {
        crate::active::ns_owner(self)
    }

    fn active_dec_and_test(&self) -> bool {
        // `atomic_dec_and_test()` itself, not `fetch_add(-1) == 1`: with
        // inline helpers it is C's `lock decl` and a flag test
        // (arch/x86/include/asm/atomic.h:65-68), where the kernel crate's
        // `fetch_add()` needs the old value in a register and a compare.
        // SAFETY: `__ns_ref_active` is the `atomic_t`
        // (include/linux/ns/nstree_types.h:48) at this offset of the
        // valid namespace, accessed only atomically (see `active()`);
        // `atomic_dec_and_test()` is fully ordered, as the cascade needs.
        unsafe {
            bindings::atomic_dec_and_test(self.field::<bindings::atomic_t>(layout::NS_REF_ACTIVE))
        }
    }

    fn active_fetch_inc(&self) -> i32 {
        // `atomic_fetch_add(1, ...)`: fully ordered.
        self.active().fetch_add(1, Full)
    }

    fn active_read(&self) -> i32 {
        NsCommon::active_read(self)
    }

    const CHECKS: bool = cfg!(CONFIG_DEBUG_VFS);

    fn check(&self, ok: bool) {
        crate::vfs_warn_on_once!(!ok);
    }
}

/// A counted (`__ns_ref`) reference to a namespace.
///
/// # Invariants
///
/// `ns` points to a live namespace with `ops`, on which this value owns one
/// `__ns_ref` count (or an initial namespace, whose count is never
/// changed); the count is dropped through `ops->put()`.
///
/// # Examples
///
/// A namespace found under RCU, kept beyond the read-side section by a
/// counted reference:
///
/// ```no_run
/// use kernel::sync::rcu;
/// use nstree_rs::ffi::{NsRef, TreeRoot, Unified};
///
/// fn first(root: &TreeRoot<Unified>) -> Option<NsRef> {
///     let g = rcu::read_lock();
///     NsRef::try_get(root.first(&g)?.ns())
/// } // rcu_read_unlock(); the count keeps the namespace alive
/// ```
///
/// The namespace it gives is borrowed from it, so it cannot be used after
/// the count is put:
///
/// ```compile_fail,E0505
/// # use nstree_rs::ffi::{NsCommon, NsRef};
/// fn id_after_put(ns: &NsCommon) -> Option<u64> {
///     let r = NsRef::try_get(ns)?;
///     let n: &NsCommon = r.ns();
///     drop(r); // ops->put(): the namespace may be freed
///     Some(n.id())
/// }
/// ```
pub(crate) struct NsRef {
    ns: NonNull<NsCommon>,
}

// SAFETY: the count can be dropped from any thread: `ops->put()` of every
// type takes locks or schedules work, e.g. `put_mnt_ns()`
// (fs/namespace.c:6506-6514) or `__put_user_ns()`
// (kernel/user_namespace.c:237-240).
unsafe impl Send for NsRef {}
// SAFETY: `&NsRef` only gives `&NsCommon`, which is `Sync` (see there,
// include/linux/ns/ns_common_types.h:111).
unsafe impl Sync for NsRef {}

impl NsRef {
    /// Takes a counted reference (`__ns_ref_get()`); fails once the count
    /// has dropped to zero (the namespace is being freed), and for a
    /// namespace that cannot be put (see below).
    #[inline]
    pub(crate) fn try_get(ns: &NsCommon) -> Option<NsRef> {
        // A namespace without `ops` cannot be put (`ns_put()` skips it,
        // kernel/nstree.c:523), so a count taken on it would never be
        // dropped; none is on the trees (the initial namespace of a type
        // that is not configured has no `ops`, and is not added). And
        // `is_ns_init_id()` takes id 0 (no id yet) for an initial namespace
        // (include/linux/ns_common.h:23-27), so `__ns_ref_get()` would take
        // no count on it and nothing would keep its memory; C never hands
        // one out either (ids come before `ns_tree_add()`). Neither gets a
        // counted reference.
        if !ns.has_ops() {
            return None;
        }
        if ns.id() == 0 {
            crate::vfs_warn_on_once!(true);
            return None;
        }
        // SAFETY: `ns` is valid; `__ns_ref_get()` (include/linux/ns_common.h:84-95)
        // takes no count on an initial namespace (ids 1..=NS_LAST_INIT_ID,
        // which are never freed) and otherwise does
        // `refcount_inc_not_zero()`, with C's VFS_WARN_ON_ONCE() checks.
        if unsafe { bindings::__ns_ref_get(ns.as_ptr()) } {
            // INVARIANT: we own the count we just took (or `ns` is initial).
            Some(NsRef {
                ns: NonNull::from(ns),
            })
        } else {
            None
        }
    }

    /// The namespace.
    #[inline]
    pub(crate) fn ns(&self) -> &NsCommon {
        // SAFETY: the count we own keeps the namespace alive: it is freed
        // only once `__ns_ref` drops to zero (`__ns_ref_put()`,
        // include/linux/ns_common.h:70-82).
        unsafe { self.ns.as_ref() }
    }
}

impl Drop for NsRef {
    /// `ns_put()` (kernel/nstree.c:521-525): `ops->put()`, which may sleep
    /// (e.g. `put_mnt_ns()` takes `namespace_sem`): see the crate's
    /// soundness section on atomic context.
    fn drop(&mut self) {
        // SAFETY: `ops` is set (type invariant); we own one count, which
        // `ops->put()` consumes, as C's `ns_put()` (kernel/nstree.c:521-525)
        // does; or `ns` is an initial namespace, on which `try_get()` took
        // no count and `ops->put()` changes none (`__ns_ref_put()` returns
        // early for it, include/linux/ns_common.h:70-77).
        unsafe { bindings::ns_ops_put(self.ns.as_ptr().cast()) };
    }
}

/// `may_see_all_namespaces()`: the caller is in the initial pid namespace
/// and has CAP_SYS_ADMIN over its owner.
pub(crate) fn may_see_all() -> bool {
    let task = Task::current_raw();
    // SAFETY: `task` is `current`, valid in process context;
    // `task_active_pid_ns()` (kernel/pid.c:577) only reads its pid; the
    // static `init_pid_ns` is valid forever and its `user_ns` is
    // `&init_user_ns`, set statically (kernel/pid.c:72,78);
    // `ns_capable_noaudit()` (kernel/capability.c:378) only reads the
    // caller's credentials. This is C's `may_see_all_namespaces()`
    // (kernel/nscommon.c:313-317).
    unsafe {
        let pid_ns = bindings::task_active_pid_ns(task);
        let init = ptr::addr_of_mut!(bindings::init_pid_ns);
        ptr::eq(pid_ns, init)
            && bindings::ns_capable_noaudit((*init).user_ns, bindings::CAP_SYS_ADMIN as c_int)
    }
}

/// A counted reference on the caller's user namespace (`current_user_ns()`).
///
/// # Examples
///
/// ```no_run
/// use nstree_rs::ffi::current_user_ns;
///
/// fn my_user_ns_id() -> Option<u64> {
///     Some(current_user_ns()?.ns().id())
/// }
/// ```
pub(crate) fn current_user_ns() -> Option<NsRef> {
    // SAFETY: `current_user_ns()` (include/linux/cred.h:395, the helper
    // rust/helpers/task.c:48) is the user namespace of the caller's
    // credentials, which hold a counted reference on it for the duration
    // of this call (only the task itself replaces them), long enough to
    // take our own; `ns` is embedded at the asserted offset.
    let ns = unsafe {
        let user_ns = bindings::current_user_ns();
        NsCommon::from_raw(user_ns.cast::<u8>().add(layout::USER_NS_NS).cast())
    };
    NsRef::try_get(ns)
}
