// SPDX-License-Identifier: GPL-2.0-only

//! `struct ns_common` in Rust, and the functions C calls.
//!
//! This is the crate's one module with `unsafe` code: it lays [`NsCommon`] over the C struct,
//! takes and drops its counted reference, reaches the C data (the trees' roots, their lock, the
//! caller's credentials) and defines the functions that `include/linux/nstree.h` and
//! `include/linux/ns_common.h` declare.

use core::ops::Deref;
use core::ptr::{self, NonNull};

use kernel::bindings;
use kernel::prelude::*;
use kernel::rbtree::rcu::{Anchor, Item, Links, Tree};
use kernel::sync::atomic::{Atomic, Full, Relaxed};
use kernel::sync::{rcu, Refcount, SeqLock};
use kernel::transmute::FromBytes;
use kernel::types::Opaque;
use kernel::uaccess::UserPtr;

use crate::cascade::{self, ActiveNode};

/// The unified tree's links.
pub(crate) const UNIFIED: u64 = 0;
/// A per-type tree's links.
pub(crate) const BY_TYPE: u64 = 1;
/// The owner's tree's links.
pub(crate) const BY_OWNER: u64 = 2;

/// `offsetof(struct user_namespace, ns)`.
const USER_NS_NS: usize = core::mem::offset_of!(bindings::user_namespace, ns);

/// Id of the last boot-time namespace; ids `1..=NS_LAST_INIT_ID` are theirs.
pub(crate) const NS_LAST_INIT_ID: u64 = bindings::init_ns_id_NS_LAST_INIT_ID as u64;

/// `__ns_ref`, in the cache line of its own that C gives it.
#[cfg_attr(CONFIG_SMP, repr(C, align(64)))]
#[cfg_attr(not(CONFIG_SMP), repr(C))]
struct RefHead(Refcount);

/// `struct ns_tree`.
#[repr(C)]
struct NsTree {
    id: u64,
    active: Atomic<i32>,
    unified: Links<UNIFIED>,
    by_type: Links<BY_TYPE>,
    by_owner: Links<BY_OWNER>,
    owned: Tree<NsCommon, BY_OWNER>,
}

/// A namespace: `struct ns_common`.
///
/// `ns_id`, `ns_type` and `ops` are set before the namespace is reachable and never change;
/// everything that C changes later is atomic or opaque.
///
/// # Invariants
///
/// A `&NsCommon` refers to an initialised namespace whose owner stays valid as long as the
/// borrow: the borrower holds a counted reference, reached it on a tree under RCU, or holds the
/// tree lock.
#[repr(C)]
pub(crate) struct NsCommon {
    ns_ref: RefHead,
    ns_type: u32,
    stashed: Opaque<*mut c_void>,
    ops: *const bindings::proc_ns_operations,
    inum: Opaque<u32>,
    tree: NsTree,
    ns_rcu: Opaque<bindings::callback_head>,
}

const _: () = {
    use core::mem::{align_of, offset_of, size_of};
    use kernel::bindings::{ns_common, ns_tree, ns_tree_node, ns_tree_root};
    assert!(size_of::<NsCommon>() == bindings::NSTREE_RS_NS_COMMON_SIZE);
    assert!(align_of::<NsCommon>() == bindings::NSTREE_RS_NS_COMMON_ALIGN);
    assert!(size_of::<ns_common>() == size_of::<NsCommon>());
    assert!(offset_of!(NsCommon, ns_type) == offset_of!(ns_common, ns_type));
    assert!(offset_of!(NsCommon, stashed) == offset_of!(ns_common, stashed));
    assert!(offset_of!(NsCommon, ops) == offset_of!(ns_common, ops));
    assert!(offset_of!(NsCommon, inum) == offset_of!(ns_common, inum));
    assert!(offset_of!(NsCommon, tree) == bindings::NSTREE_RS_NS_TREE_OFFSET);
    assert!(offset_of!(NsCommon, ns_rcu) == offset_of!(ns_common, ns_rcu));
    assert!(size_of::<NsTree>() == size_of::<ns_tree>());
    assert!(offset_of!(NsTree, active) == offset_of!(ns_tree, __ns_ref_active));
    assert!(offset_of!(NsTree, unified) == offset_of!(ns_tree, ns_unified_node));
    assert!(offset_of!(NsTree, by_type) == offset_of!(ns_tree, ns_tree_node));
    assert!(offset_of!(NsTree, by_owner) == offset_of!(ns_tree, ns_owner_node));
    assert!(offset_of!(NsTree, owned) == offset_of!(ns_tree, ns_owner_root));
    assert!(size_of::<Links>() == size_of::<ns_tree_node>());
    assert!(size_of::<Tree<NsCommon, BY_OWNER>>() == size_of::<ns_tree_root>());
};

// SAFETY: C shares namespaces between CPUs; the fields Rust reads are immutable once the
// namespace is reachable, atomic, or opaque.
unsafe impl Sync for NsCommon {}
// SAFETY: see `Sync`; nothing in a namespace belongs to a thread.
unsafe impl Send for NsCommon {}

kernel::impl_has_rcu_links! {
    impl HasLinks<0> for NsCommon { self.tree.unified }
    impl HasLinks<1> for NsCommon { self.tree.by_type }
    impl HasLinks<2> for NsCommon { self.tree.by_owner }
}

impl Item for NsCommon {
    type Key = u64;

    fn key(&self) -> u64 {
        self.tree.id
    }
}

impl NsCommon {
    /// Borrows a C namespace.
    ///
    /// # Safety
    ///
    /// `ns` must point to an initialised namespace, and the type invariant must hold for `'a`.
    unsafe fn from_raw<'a>(ns: *mut bindings::ns_common) -> &'a Self {
        // SAFETY: `NsCommon` has the layout of `struct ns_common` (asserted above).
        unsafe { &*ns.cast() }
    }

    pub(crate) fn as_ptr(&self) -> *mut bindings::ns_common {
        ptr::from_ref(self).cast_mut().cast()
    }

    /// The namespace id; 0 until one is assigned.
    pub(crate) fn id(&self) -> u64 {
        self.tree.id
    }

    /// The `CLONE_NEW*` flag of its type.
    pub(crate) fn ns_type(&self) -> u32 {
        self.ns_type
    }

    /// `__ns_ref_active`.
    pub(crate) fn active(&self) -> &Atomic<i32> {
        &self.tree.active
    }

    /// The value of the main reference count, `__ns_ref`.
    pub(crate) fn ref_read(&self) -> i32 {
        self.ns_ref.0.as_atomic().load(Relaxed)
    }

    /// The tree of the namespaces this user namespace owns.
    pub(crate) fn owned(&self) -> &Tree<NsCommon, BY_OWNER> {
        &self.tree.owned
    }

    /// Whether this is a boot-time namespace (`is_ns_init_id()`, but never for id 0).
    pub(crate) fn is_initial(&self) -> bool {
        vfs_warn_on_once!(self.id() == 0);
        self.id() != 0 && self.id() <= NS_LAST_INIT_ID
    }

    /// The owning user namespace (`ops->owner()`); `None` without `ops` and for
    /// `init_user_ns`.
    pub(crate) fn owner(&self) -> Option<&NsCommon> {
        if self.ops.is_null() {
            return None;
        }
        vfs_warn_on_once!(!self.has_owner_op());
        // SAFETY: `ops` is set, so it has an `owner()`; its result is a user namespace that
        // outlives `self`'s borrow (type invariant: the owner is put only after `self` left
        // its trees, and freed after a grace period).
        unsafe {
            let user_ns = bindings::ns_ops_owner(self.as_ptr());
            (!user_ns.is_null()).then(|| Self::from_raw(&raw mut (*user_ns).ns))
        }
    }

    fn has_owner_op(&self) -> bool {
        // SAFETY: `self` is valid; the helper looks at `ops` only when it is set, and `ops`
        // points to static operations.
        !self.ops.is_null() && unsafe { bindings::ns_ops_has_owner(self.as_ptr()) }
    }

    /// Whether this is `init_user_ns`.
    pub(crate) fn is_init_user_ns(&self) -> bool {
        let init = (&raw mut bindings::init_user_ns).wrapping_byte_add(USER_NS_NS);
        ptr::eq(self.as_ptr(), init.cast())
    }

    /// Whether the calling task uses this namespace (`is_current_namespace()`).
    pub(crate) fn is_current(&self) -> bool {
        // SAFETY: `self` is a valid namespace; the helper checks `current->nsproxy` first.
        unsafe { bindings::ns_is_current(self.as_ptr()) }
    }

    /// Whether the namespace has operations: every one but the boot-time namespaces of types
    /// that are not configured.
    pub(crate) fn has_ops(&self) -> bool {
        !self.ops.is_null()
    }
}

/// `ns_owner()`: the owner whose active count this namespace holds, unless that is
/// `init_user_ns`, which is always active.
pub(crate) fn ns_owner(ns: &NsCommon) -> Option<&NsCommon> {
    let owner = ns.owner();
    vfs_warn_on_once!(ns.has_ops() && owner.is_none() && !ns.is_init_user_ns());
    owner.filter(|o| !o.is_init_user_ns())
}

impl ActiveNode for NsCommon {
    fn is_initial(&self) -> bool {
        NsCommon::is_initial(self)
    }

    fn maybe_initial(&self) -> bool {
        self.id() <= NS_LAST_INIT_ID
    }

    fn active_owner(&self) -> Option<&Self> {
        ns_owner(self)
    }

    fn active_dec_and_test(&self) -> bool {
        self.active().fetch_sub(1, Full) == 1
    }

    fn active_fetch_inc(&self) -> i32 {
        self.active().fetch_add(1, Full)
    }

    fn active_read(&self) -> i32 {
        self.active().load(Relaxed)
    }

    fn counted_read(&self) -> i32 {
        self.ref_read()
    }

    const CHECKS: bool = cfg!(CONFIG_DEBUG_VFS);

    fn check(&self, ok: bool) {
        vfs_warn_on_once!(!ok);
    }
}

/// A counted reference (`__ns_ref`), made only by [`try_get`]; dropping it calls `ops->put()`,
/// which may sleep (the last put of a mount namespace takes `namespace_sem`).
///
/// # Invariants
///
/// `ns` points to a namespace with `ops` on which this value owns one count, or to a boot-time
/// namespace, whose count does not move and which is never freed.
pub(crate) struct NsRef {
    ns: NonNull<NsCommon>,
}

// SAFETY: a count can be dropped from any task, and `&NsCommon` is `Sync`.
unsafe impl Send for NsRef {}
// SAFETY: `&NsRef` only gives `&NsCommon`, which is `Sync`.
unsafe impl Sync for NsRef {}

impl Deref for NsRef {
    type Target = NsCommon;

    fn deref(&self) -> &NsCommon {
        // SAFETY: the count keeps the namespace valid (type invariant).
        unsafe { self.ns.as_ref() }
    }
}

impl Drop for NsRef {
    fn drop(&mut self) {
        // SAFETY: the namespace has `ops` (type invariant), whose `put()` drops the count we
        // own (or nothing, for a boot-time namespace).
        unsafe { bindings::ns_ops_put(self.ns.as_ptr().cast()) }
    }
}

/// A counted reference, unless the namespace is being freed (`__ns_ref_get()`), or has no
/// `ops` (a count on it could never be put).
pub(crate) fn try_get(ns: &NsCommon) -> Option<NsRef> {
    if !ns.has_ops() || ns.id() == 0 {
        vfs_warn_on_once!(ns.has_ops());
        return None;
    }
    // SAFETY: `ns` is valid; `__ns_ref_get()` fails once the count dropped to zero.
    let got = unsafe { bindings::__ns_ref_get(ns.as_ptr()) };
    // INVARIANT: we own the count `__ns_ref_get()` took (none on a boot-time namespace).
    got.then(|| NsRef {
        ns: NonNull::from(ns),
    })
}

// SAFETY: a namespace leaves its trees in its free path, once `__ns_ref` dropped to zero:
// `__ns_ref_get()` fails from then on, and a counted reference keeps it on them.
unsafe impl Anchor<NsCommon> for NsRef {
    fn try_new(item: &NsCommon) -> Option<Self> {
        try_get(item)
    }

    fn item(&self) -> &NsCommon {
        self
    }
}

/// `ns_get_unless_inactive()`: a counted reference on an active namespace.
pub(crate) fn get_unless_inactive(ns: &NsCommon) -> Option<NsRef> {
    if ns.active_read() == 0 {
        vfs_warn_on_once!(ns.is_initial());
        return None;
    }
    try_get(ns)
}

/// The lock of the trees, `ns_tree_lock`.
pub(crate) fn tree_lock() -> &'static SeqLock {
    // SAFETY: a static `seqlock_t` of the C glue, initialised by `DEFINE_SEQLOCK()`.
    unsafe { SeqLock::from_raw(&raw mut bindings::ns_tree_lock) }
}

/// The unified tree of every namespace.
pub(crate) fn unified() -> &'static Tree<NsCommon, UNIFIED> {
    // SAFETY: a static root of the C glue, initialised empty, on which every namespace's
    // `ns_unified_node` is linked, by this crate alone.
    unsafe { Tree::from_raw((&raw mut bindings::ns_unified_root).cast()) }
}

/// The tree of one namespace type (`ns_tree_from_type()`).
pub(crate) fn type_tree(ns_type: u32) -> Option<&'static Tree<NsCommon, BY_TYPE>> {
    let root = match ns_type {
        bindings::CLONE_NEWCGROUP => &raw mut bindings::cgroup_ns_tree,
        bindings::CLONE_NEWIPC => &raw mut bindings::ipc_ns_tree,
        bindings::CLONE_NEWNS => &raw mut bindings::mnt_ns_tree,
        bindings::CLONE_NEWNET => &raw mut bindings::net_ns_tree,
        bindings::CLONE_NEWPID => &raw mut bindings::pid_ns_tree,
        bindings::CLONE_NEWUSER => &raw mut bindings::user_ns_tree,
        bindings::CLONE_NEWUTS => &raw mut bindings::uts_ns_tree,
        bindings::CLONE_NEWTIME => &raw mut bindings::time_ns_tree,
        _ => return None,
    };
    // SAFETY: static roots of the C glue, initialised empty, on which the namespaces of that
    // type link their `ns_tree_node`, by this crate alone.
    Some(unsafe { Tree::from_raw(root.cast()) })
}

/// `may_see_all_namespaces()`: the caller is in the initial pid namespace and has
/// `CAP_SYS_ADMIN` over its owner.
pub(crate) fn may_see_all() -> bool {
    let init = &raw mut bindings::init_pid_ns;
    let in_init = current!()
        .active_pid_ns()
        .is_some_and(|p| ptr::eq(p.as_ptr(), init));
    if !in_init {
        return false;
    }
    // SAFETY: `init_pid_ns` is static and its `user_ns` is `&init_user_ns`.
    unsafe { bindings::ns_capable_noaudit((*init).user_ns, bindings::CAP_SYS_ADMIN as c_int) }
}

/// The caller's user namespace (`current_user_ns()`), borrowed for as long as the caller's
/// credentials, which only the caller can replace.
pub(crate) fn with_current_user_ns<R>(f: impl FnOnce(&NsCommon) -> R) -> R {
    // SAFETY: the credentials of `current` hold a reference on their user namespace, and they
    // are only replaced by `current` itself, which is in `f` until it returns.
    f(unsafe { NsCommon::from_raw(&raw mut (*bindings::current_user_ns()).ns) })
}

/// `struct ns_id_req`, read from user space.
#[allow(
    dead_code,
    reason = "only `FromBytes` builds it, which rustc 1.85 does not see"
)]
#[repr(transparent)]
pub(crate) struct NsIdReq(pub(crate) bindings::ns_id_req);

// SAFETY: `struct ns_id_req` has integer fields only, and no padding.
unsafe impl FromBytes for NsIdReq {}

/// Reports that a `listns()` walk paused to reschedule (`trace_nstree_listns_pause()`).
pub(crate) fn trace_pause(ns_id: u64) {
    // SAFETY: the tracepoint takes a plain value, in any context.
    unsafe { nstree_listns_pause(ns_id) }
}

kernel::declare_trace! {
    /// # Safety
    ///
    /// None: the tracepoint takes a plain value, in any context.
    unsafe fn nstree_listns_pause(ns_id: u64);
}

// The functions C calls.

/// `__ns_ref_active_get()`.
///
/// # Safety
///
/// The caller holds a counted reference on `ns`.
#[export]
unsafe extern "C" fn __ns_ref_active_get(ns: *mut bindings::ns_common) {
    // SAFETY: the counted reference keeps `ns` and its owner valid.
    cascade::get_active(unsafe { NsCommon::from_raw(ns) });
}

/// `__ns_ref_active_put()`.
///
/// # Safety
///
/// The caller holds a counted reference on `ns` and owns the active reference it drops.
#[export]
unsafe extern "C" fn __ns_ref_active_put(ns: *mut bindings::ns_common) {
    // SAFETY: as for `__ns_ref_active_get()`.
    cascade::put_active(unsafe { NsCommon::from_raw(ns) });
}

/// `may_see_all_namespaces()`.
///
/// # Safety
///
/// Nothing beyond what C's prototype says: the function is `unsafe` only because bindgen
/// declares every C function `unsafe`, and the kernel's minimum rustc does not unify a safe
/// `extern "C" fn` with it in `#[export]`'s type check.
#[export]
unsafe extern "C" fn may_see_all_namespaces() -> bool {
    may_see_all()
}

/// `ns_tree_node_init()`.
///
/// # Safety
///
/// `node` must be valid for writes and on no tree.
#[export]
unsafe extern "C" fn ns_tree_node_init(node: *mut bindings::ns_tree_node) {
    // SAFETY: per the contract; `Links` has the layout of `struct ns_tree_node` (asserted).
    unsafe { Links::<UNIFIED>::init(node.cast()) }
}

/// `ns_tree_root_init()`.
///
/// # Safety
///
/// `root` must be valid for writes and not in use.
#[export]
unsafe extern "C" fn ns_tree_root_init(root: *mut bindings::ns_tree_root) {
    // SAFETY: per the contract; `Tree` has the layout of `struct ns_tree_root` (asserted).
    unsafe { Tree::<NsCommon, BY_OWNER>::init(root.cast()) }
}

/// `__ns_tree_gen_id()`: assigns `id` (a boot-time namespace) or the next free id.
///
/// # Safety
///
/// `ns` must be valid and on no tree, and nobody may read its id concurrently, unless it holds
/// `id` already (a static boot-time namespace: then nothing is written).
#[export]
unsafe extern "C" fn __ns_tree_gen_id(ns: *mut bindings::ns_common, id: u64) -> u64 {
    static COOKIE: Atomic<u64> = Atomic::new(NS_LAST_INIT_ID + 1);

    let ns = ns.cast::<NsCommon>();
    let id = if id != 0 {
        id
    } else {
        COOKIE.fetch_add(1, Full) + 1
    };
    // SAFETY: `ns` is valid; only a namespace nobody can read the id of is written (contract).
    unsafe {
        if (*ns).tree.id != id {
            (&raw mut (*ns).tree.id).write(id);
        }
    }
    id
}

/// `__ns_tree_add_raw()`: puts `ns` on its type's tree, the unified tree and its owner's tree.
///
/// # Safety
///
/// `ns` must have an id and be on no tree; it must be removed with `__ns_tree_remove()` once
/// its `__ns_ref` dropped to zero, and freed only an RCU grace period later. `root` is the tree
/// of its type.
#[export]
unsafe extern "C" fn __ns_tree_add_raw(
    ns: *mut bindings::ns_common,
    root: *mut bindings::ns_tree_root,
) {
    // SAFETY: per the contract, which covers `Tree::insert()`'s; `ns` is not freed while it is
    // on its trees, so its owner is valid as long.
    let (ns, root) = unsafe {
        (
            NsCommon::from_raw(ns),
            Tree::<NsCommon, BY_TYPE>::from_raw(root.cast()),
        )
    };
    vfs_warn_on_once!(ns.id() == 0);
    let w = tree_lock().write();
    let owner = ns.owner();
    match owner {
        Some(o) => vfs_warn_on_once!(o.ns_type() != bindings::CLONE_NEWUSER),
        None => vfs_warn_on_once!(ns.has_ops() && !ns.is_init_user_ns()),
    }
    // SAFETY: writers hold `ns_tree_lock` (`w`); `ns` is new (contract).
    let fresh = unsafe {
        let fresh = root.insert(ns);
        unified().insert(ns);
        if let Some(o) = owner {
            o.owned().insert(ns);
        }
        fresh
    };
    drop(w);
    vfs_warn_on_once!(!fresh);
}

/// `__ns_tree_remove()`: takes `ns` off its trees.
///
/// # Safety
///
/// `ns` must have been put on its trees with `__ns_tree_add_raw()` and `root`, and its
/// `__ns_ref` must have dropped to zero; it must be freed only an RCU grace period later.
#[export]
unsafe extern "C" fn __ns_tree_remove(
    ns: *mut bindings::ns_common,
    root: *mut bindings::ns_tree_root,
) {
    // SAFETY: per the contract; the owner is put only after this (the free path's order).
    let (ns, root) = unsafe {
        (
            NsCommon::from_raw(ns),
            Tree::<NsCommon, BY_TYPE>::from_raw(root.cast()),
        )
    };
    let _w = tree_lock().write();
    // SAFETY: writers are excluded (`_w`); `ns` is on these trees, or, where an equal id was
    // there first, on none of them (contract), and no counted reference remains.
    unsafe {
        let (in_rbtree, on_list) = Tree::<NsCommon, BY_TYPE>::is_linked(ns);
        vfs_warn_on_once!(!in_rbtree);
        vfs_warn_on_once!(!on_list);
        if in_rbtree {
            root.remove(ns);
        }
        if Tree::<NsCommon, UNIFIED>::is_linked(ns).0 {
            unified().remove(ns);
        }
        if let Some(o) = ns.owner() {
            if Tree::<NsCommon, BY_OWNER>::is_linked(ns).0 {
                o.owned().remove(ns);
            }
        }
    }
}

/// `ns_tree_lookup_rcu()`: the namespace with id `ns_id`, of type `ns_type` (any for 0). The
/// pointer is valid in the caller's RCU read-side critical section.
///
/// # Safety
///
/// Nothing beyond what C's prototype says: the function is `unsafe` only because bindgen
/// declares every C function `unsafe`, and the kernel's minimum rustc does not unify a safe
/// `extern "C" fn` with it in `#[export]`'s type check.
#[export]
unsafe extern "C" fn ns_tree_lookup_rcu(ns_id: u64, ns_type: c_int) -> *mut bindings::ns_common {
    kernel::rcu_lockdep_warn!(
        !rcu::read_lock_held(),
        "suspicious ns_tree_lookup_rcu() usage"
    );
    let g = rcu::read_lock();
    crate::tree::lookup(ns_id, ns_type as u32, &g).map_or(ptr::null_mut(), NsCommon::as_ptr)
}

/// `__ns_tree_adjoined_rcu()`: the next or previous namespace on the tree of `ns`, or
/// `ERR_PTR(-ENOENT)`.
///
/// # Safety
///
/// The caller is in an RCU read-side critical section, in process context, not holding
/// `ns_tree_lock`, and `ns` is on `root` (or was removed within the grace period).
#[export]
unsafe extern "C" fn __ns_tree_adjoined_rcu(
    ns: *mut bindings::ns_common,
    root: *mut bindings::ns_tree_root,
    previous: bool,
) -> *mut bindings::ns_common {
    kernel::rcu_lockdep_warn!(
        !rcu::read_lock_held(),
        "suspicious ns_tree_adjoined_rcu() usage"
    );
    let g = rcu::read_lock();
    // SAFETY: per the contract; backwards, `_r` excludes the writers of the `prev` links.
    let next = unsafe {
        let root = Tree::<NsCommon, BY_TYPE>::from_raw(root.cast());
        let cur = root.cursor_at(NsCommon::from_raw(ns), &g);
        if previous {
            let _r = tree_lock().read_excl();
            cur.prev()
        } else {
            cur.next()
        }
    };
    next.map_or(ENOENT.to_ptr(), |c| c.item().as_ptr())
}

/// The body of `listns()`, which the C glue's syscall entry calls.
///
/// # Safety
///
/// Nothing beyond what C's prototype says: the function is `unsafe` only because bindgen
/// declares every C function `unsafe`, and the kernel's minimum rustc does not unify a safe
/// `extern "C" fn` with it in `#[export]`'s type check.
#[export]
unsafe extern "C" fn nstree_rs_listns(
    req: *const bindings::ns_id_req,
    ns_ids: *mut u64,
    nr_ns_ids: usize,
    flags: c_uint,
) -> c_long {
    let req = UserPtr::from_ptr(req.cast_mut().cast());
    match crate::listns::listns(req, UserPtr::from_ptr(ns_ids.cast()), nr_ns_ids, flags) {
        Ok(n) => n as c_long,
        Err(e) => e.to_errno() as c_long,
    }
}
