// SPDX-License-Identifier: GPL-2.0-only
// Copyright (c) 2026 nstree-rs developers

//! The FFI boundary: the only module of the crate that may use `unsafe`.
//!
//! Everything that touches a raw pointer lives here and is wrapped in a type
//! whose safe methods uphold the C rules:
//!
//! - [`NsCommon`] is a `struct ns_common` that the caller has shown to be
//!   alive (a borrow bounded by an RCU guard, a tree lock guard or a
//!   counted reference);
//! - [`NsRef`] owns one `__ns_ref` count and drops it through `ops->put`;
//! - [`TreeRoot`] is a `struct ns_tree_root`; its mutators take a
//!   [`WriteGuard`] (the `ns_tree_lock` seqlock held for writing), its
//!   lockless readers an RCU [`Guard`] and return borrows bounded by it;
//! - [`UserIds`] and [`read_request`] move data across the user boundary.
//!
//! The C functions the kernel calls (`__ns_tree_add_raw`, `listns()`'s
//! body, ...) are defined at the bottom of this file. Each one converts its
//! raw arguments once and calls safe code elsewhere in the crate. Their
//! signatures are checked against the C prototypes at compile time.

use core::ffi::{c_int, c_uint};
use core::marker::PhantomData;
use core::ptr::{self, NonNull};

use kernel::bindings;
use kernel::error::{code, Error, Result};
use kernel::sync::atomic::{Atomic, Full, Relaxed};
use kernel::sync::rcu::Guard;
use kernel::types::Opaque;
use kernel::uaccess::{UserPtr, UserSlice, UserSliceWriter};

use crate::cascade::ActiveNode;
use crate::tree::Link;

/// The C glue in `nstree_glue.c`: thin wrappers around macros and inline
/// functions that Rust cannot call directly.
mod glue {
    use core::ffi::{c_int, c_uint, c_void};
    use kernel::bindings;

    extern "C" {
        pub(super) fn nstree_rs_write_lock();
        pub(super) fn nstree_rs_write_unlock();
        pub(super) fn nstree_rs_read_lock_excl();
        pub(super) fn nstree_rs_read_unlock_excl();
        pub(super) fn nstree_rs_read_seqbegin() -> c_uint;
        pub(super) fn nstree_rs_read_seqretry(seq: c_uint) -> bool;
        pub(super) fn nstree_rs_ns_owner(ns: *mut bindings::ns_common)
            -> *mut bindings::user_namespace;
        pub(super) fn nstree_rs_ns_put(ns: *mut bindings::ns_common);
        pub(super) fn nstree_rs_ns_ref_inc_not_zero(ns: *mut bindings::ns_common) -> bool;
        pub(super) fn nstree_rs_list_add_rcu(
            new: *mut bindings::list_head,
            head: *mut bindings::list_head,
        );
        pub(super) fn nstree_rs_list_bidir_del_rcu(entry: *mut bindings::list_head);
        pub(super) fn nstree_rs_rb_link_node_rcu(
            node: *mut bindings::rb_node,
            parent: *mut bindings::rb_node,
            link: *mut *mut bindings::rb_node,
        );
        pub(super) fn nstree_rs_access_ok(ptr: *const c_void, size: usize) -> bool;
        pub(super) fn nstree_rs_copy_struct_from_user(
            dst: *mut c_void,
            ksize: usize,
            src: *const c_void,
            usize: usize,
        ) -> c_int;
        pub(super) fn nstree_rs_rcu_read_lock_held() -> bool;
        pub(super) fn nstree_rs_need_resched() -> bool;
        pub(super) fn nstree_rs_cond_resched();
    }
}

/// Byte offset of the anonymous `struct ns_tree` inside `struct ns_common`.
///
/// bindgen drops anonymous struct members (`-fms-extensions`), so the
/// union that holds `struct ns_tree` and `ns_rcu` is all Rust sees. The
/// tree fields start at the union; `nstree_glue.c` asserts that
/// `offsetof(struct ns_common, ns_id) == offsetof(struct ns_common, ns_rcu)`.
const NS_TREE_OFFSET: usize = core::mem::offset_of!(bindings::ns_common, __bindgen_anon_2);
//
// The same bindgen limitation makes `bindings::ns_common` too small (its
// union lacks the tree fields), so this crate never embeds it by value and
// never uses offsets of fields that follow an embedded `ns_common`.

/// Id of the last initial namespace: ids `1..=NS_LAST_INIT_ID` are the
/// boot-time namespaces, which are always active.
pub(crate) const NS_LAST_INIT_ID: u64 = bindings::init_ns_id_NS_LAST_INIT_ID as u64;

/// A namespace: `struct ns_common`.
///
/// # Invariants
///
/// A `&NsCommon` is only created for a live, initialised `struct
/// ns_common`, and only for as long as the memory is guaranteed to stay
/// valid (an RCU read-side section, the tree lock, or a held `__ns_ref`).
#[repr(transparent)]
pub(crate) struct NsCommon(Opaque<bindings::ns_common>);

// SAFETY: `struct ns_common` is shared between CPUs by design: the fields
// read through `&NsCommon` are immutable once the namespace is on a tree
// (`ns_id`, `ns_type`, `ops`, `inum`) or atomics (`__ns_ref`,
// `__ns_ref_active`); the tree links are only changed under `ns_tree_lock`.
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
    pub(crate) unsafe fn from_raw<'a>(ptr: *mut bindings::ns_common) -> &'a NsCommon {
        // SAFETY: `NsCommon` is a transparent wrapper and the caller
        // guarantees validity for `'a`.
        unsafe { &*ptr.cast::<NsCommon>() }
    }

    /// The raw `struct ns_common` pointer.
    pub(crate) fn as_ptr(&self) -> *mut bindings::ns_common {
        self.0.get()
    }

    fn tree(&self) -> *mut bindings::ns_tree {
        // The anonymous `struct ns_tree` starts at `NS_TREE_OFFSET`.
        self.as_ptr().cast::<u8>().wrapping_add(NS_TREE_OFFSET).cast()
    }

    /// The 64-bit namespace id (0 until `__ns_tree_gen_id()`).
    pub(crate) fn id(&self) -> u64 {
        // SAFETY: `self` is valid (type invariant); `ns_id` is written once,
        // before the namespace is published on any tree.
        unsafe { (*self.tree()).ns_id }
    }

    /// The `CLONE_NEW*` flag of the namespace type.
    pub(crate) fn ns_type(&self) -> u32 {
        // SAFETY: `self` is valid; `ns_type` never changes after init.
        unsafe { (*self.as_ptr()).ns_type }
    }

    /// Whether this is one of the boot-time namespaces.
    pub(crate) fn is_initial(&self) -> bool {
        self.id() <= NS_LAST_INIT_ID
    }

    /// The active reference count, `__ns_ref_active`.
    pub(crate) fn active(&self) -> &Atomic<i32> {
        // SAFETY: `__ns_ref_active` is an `atomic_t` inside the valid
        // namespace, only accessed atomically, and lives as long as `self`.
        unsafe { Atomic::from_ptr(ptr::addr_of_mut!((*self.tree()).__ns_ref_active.counter)) }
    }

    /// The main reference count, `__ns_ref`.
    pub(crate) fn refs(&self) -> i32 {
        // SAFETY: `__ns_ref` is a `refcount_t` inside the valid namespace,
        // only accessed atomically.
        let r = unsafe { ptr::addr_of_mut!((*self.as_ptr()).__bindgen_anon_1.__ns_ref.refs.counter) };
        // SAFETY: as above; the pointer is valid for the lifetime of `self`.
        unsafe { Atomic::from_ptr(r) }.load(Relaxed)
    }

    /// The user namespace that owns this one (`ops->owner()`), including
    /// `init_user_ns`. `None` for namespaces without operations and for
    /// `init_user_ns` itself.
    ///
    /// The owner is pinned by its child, so the borrow lives as long as
    /// `self`'s.
    pub(crate) fn owner(&self) -> Option<&NsCommon> {
        // SAFETY: `self` is valid; `ops` never changes after init.
        if unsafe { (*self.as_ptr()).ops }.is_null() {
            return None;
        }
        // SAFETY: `ops` is set, so `ops->owner` is a valid callback
        // (the glue calls it); it returns the owning user namespace.
        let user_ns = unsafe { glue::nstree_rs_ns_owner(self.as_ptr()) };
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
        ptr::eq(self.as_ptr(), unsafe { ptr::addr_of_mut!(bindings::init_user_ns.ns) })
    }

    /// The tree of namespaces owned by this (user) namespace.
    pub(crate) fn owner_root(&self) -> &TreeRoot {
        // SAFETY: `ns_owner_root` is embedded in the valid namespace and
        // lives as long as it; `TreeRoot` is a transparent wrapper.
        unsafe { TreeRoot::from_raw(ptr::addr_of_mut!((*self.tree()).ns_owner_root)) }
    }

    /// Whether the caller's task uses this namespace (`is_current_namespace()`).
    pub(crate) fn is_current(&self) -> bool {
        // SAFETY: `self` is a valid namespace; the function only reads
        // `current`'s nsproxy and creds.
        unsafe { bindings::is_current_namespace(self.as_ptr()) }
    }

    fn node(&self, link: Link) -> *mut bindings::ns_tree_node {
        let t = self.tree();
        // SAFETY: projections to fields of the valid `struct ns_tree`.
        unsafe {
            match link {
                Link::Unified => ptr::addr_of_mut!((*t).ns_unified_node),
                Link::Type => ptr::addr_of_mut!((*t).ns_tree_node),
                Link::Owner => ptr::addr_of_mut!((*t).ns_owner_node),
            }
        }
    }

    /// Whether the node for `link` is on a tree.
    pub(crate) fn on_tree(&self, link: Link) -> bool {
        // SAFETY: the node belongs to the valid namespace.
        !unsafe { node_empty(self.node(link)) }
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
        self.active().fetch_sub(1, Full) == 1
    }

    fn active_fetch_inc(&self) -> i32 {
        self.active().fetch_add(1, Full)
    }

    fn active_read(&self) -> i32 {
        self.active().load(Relaxed)
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
        if ns.is_initial() || unsafe { glue::nstree_rs_ns_ref_inc_not_zero(ns.as_ptr()) } {
            // INVARIANT: we own the count we just took.
            Some(NsRef { ns: NonNull::from(ns) })
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
        unsafe { glue::nstree_rs_ns_put(self.ns.as_ptr().cast()) };
    }
}

/// The namespace tree lock (`ns_tree_lock`) held for writing.
///
/// Mutating a [`TreeRoot`] requires a `&WriteGuard`: the type system keeps
/// writers serialised the way the C code does with `write_seqlock()`.
pub(crate) struct WriteGuard(PhantomData<*mut ()>);

impl WriteGuard {
    /// `write_seqlock(&ns_tree_lock)`.
    pub(crate) fn lock() -> WriteGuard {
        // SAFETY: the glue takes the static seqlock; released on drop.
        unsafe { glue::nstree_rs_write_lock() };
        WriteGuard(PhantomData)
    }
}

impl Drop for WriteGuard {
    fn drop(&mut self) {
        // SAFETY: this guard holds the write side.
        unsafe { glue::nstree_rs_write_unlock() };
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
        unsafe { glue::nstree_rs_read_lock_excl() };
        ReadGuard(PhantomData)
    }
}

impl Drop for ReadGuard {
    fn drop(&mut self) {
        // SAFETY: this guard holds the exclusive read side.
        unsafe { glue::nstree_rs_read_unlock_excl() };
    }
}

/// Runs `f` as a seqlock reader: retries while a writer raced with it and
/// `f` found nothing (a racing writer can only hide a node, never invent
/// one, so a hit needs no retry; this is the C `rb_find_rcu()` loop).
pub(crate) fn read_retry<T>(mut f: impl FnMut() -> Option<T>) -> Option<T> {
    loop {
        // SAFETY: reading the sequence count of the static seqlock.
        let seq = unsafe { glue::nstree_rs_read_seqbegin() };
        let r = f();
        // SAFETY: as above.
        if r.is_some() || !unsafe { glue::nstree_rs_read_seqretry(seq) } {
            return r;
        }
    }
}

/// Whether the caller is in an RCU read-side critical section (lockdep).
pub(crate) fn rcu_read_lock_held() -> bool {
    // SAFETY: no preconditions.
    unsafe { glue::nstree_rs_rcu_read_lock_held() }
}

/// Whether the scheduler wants the CPU back.
pub(crate) fn need_resched() -> bool {
    // SAFETY: no preconditions.
    unsafe { glue::nstree_rs_need_resched() }
}

/// Lets the scheduler run (`cond_resched()`); must not be in an atomic or
/// RCU read-side section.
pub(crate) fn cond_resched() {
    // SAFETY: callers hold no spinlock and no RCU read lock.
    unsafe { glue::nstree_rs_cond_resched() };
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
    // SAFETY: the caller's credentials pin their user namespace for the
    // duration of this call, long enough to take our own reference.
    let ns = unsafe { NsCommon::from_raw(ptr::addr_of_mut!((*bindings::current_user_ns()).ns)) };
    NsRef::try_get(ns)
}

// ---------------------------------------------------------------------
// Intrusive id-ordered trees: `struct ns_tree_root` / `struct ns_tree_node`.
// ---------------------------------------------------------------------

/// `RB_EMPTY_NODE()`.
///
/// # Safety
///
/// `node` must point to a valid `struct ns_tree_node`.
unsafe fn node_empty(node: *const bindings::ns_tree_node) -> bool {
    // SAFETY: valid per the caller; `__rb_parent_color` is only changed
    // under the write lock, readers of emptiness follow the C rules.
    unsafe { (*node).ns_node.__rb_parent_color == ptr::addr_of!((*node).ns_node) as usize }
}

/// `RB_CLEAR_NODE()` + `INIT_LIST_HEAD()`.
///
/// # Safety
///
/// `node` must be valid and not on any tree.
unsafe fn node_init(node: *mut bindings::ns_tree_node) {
    // SAFETY: exclusive per the caller.
    unsafe {
        let rb = ptr::addr_of_mut!((*node).ns_node);
        (*rb).__rb_parent_color = rb as usize;
        (*rb).rb_left = ptr::null_mut();
        (*rb).rb_right = ptr::null_mut();
        let l = ptr::addr_of_mut!((*node).ns_list_entry);
        (*l).next = l;
        (*l).prev = l;
    }
}

/// Maps an `rb_node`/`list_head` of the tree `link` back to its namespace
/// (`container_of()`).
fn container_offset(link: Link) -> usize {
    NS_TREE_OFFSET
        + match link {
            Link::Unified => core::mem::offset_of!(bindings::ns_tree, ns_unified_node),
            Link::Type => core::mem::offset_of!(bindings::ns_tree, ns_tree_node),
            Link::Owner => core::mem::offset_of!(bindings::ns_tree, ns_owner_node),
        }
}

/// # Safety
///
/// `rb` must be the `ns_node` of the `link` node of a namespace that is
/// valid for `'a`.
unsafe fn ns_of_rb<'a>(rb: *mut bindings::rb_node, link: Link) -> &'a NsCommon {
    let off = container_offset(link) + core::mem::offset_of!(bindings::ns_tree_node, ns_node);
    // SAFETY: per the caller, `rb` sits `off` bytes into a valid namespace.
    unsafe { NsCommon::from_raw(rb.cast::<u8>().sub(off).cast()) }
}

/// # Safety
///
/// `l` must be the `ns_list_entry` of the `link` node of a namespace that
/// is valid for `'a`.
unsafe fn ns_of_list<'a>(l: *mut bindings::list_head, link: Link) -> &'a NsCommon {
    let off =
        container_offset(link) + core::mem::offset_of!(bindings::ns_tree_node, ns_list_entry);
    // SAFETY: per the caller, `l` sits `off` bytes into a valid namespace.
    unsafe { NsCommon::from_raw(l.cast::<u8>().sub(off).cast()) }
}

/// `READ_ONCE()` of a link pointer; what `rcu_dereference_raw()` does.
///
/// # Safety
///
/// `p` must be a valid, aligned pointer-sized field.
unsafe fn read_once<T>(p: *mut *mut T) -> *mut T {
    // SAFETY: per the caller; the field is concurrently written with
    // `WRITE_ONCE()`/`rcu_assign_pointer()` only.
    unsafe { Atomic::from_ptr(p) }.load(Relaxed)
}

/// The root of one id-ordered namespace tree: `struct ns_tree_root`, an
/// rbtree for lookups plus an RCU list in the same order for iteration.
///
/// # Invariants
///
/// The wrapped root is initialised; its rbtree and list hold the same
/// `link` nodes of live namespaces in ascending id order; both are only
/// modified with the [`WriteGuard`] held.
#[repr(transparent)]
pub(crate) struct TreeRoot(Opaque<bindings::ns_tree_root>);

// SAFETY: all mutation goes through `&WriteGuard` methods (serialised by
// the seqlock); readers follow the RCU list / seqlock rules.
unsafe impl Sync for TreeRoot {}
// SAFETY: see `Sync`.
unsafe impl Send for TreeRoot {}

impl TreeRoot {
    /// An empty root for a `static` located at `this` (the list head points
    /// to itself, so the address is needed at compile time).
    pub(crate) const fn new_static(this: *const TreeRoot) -> TreeRoot {
        let head = this
            .cast::<u8>()
            .wrapping_add(core::mem::offset_of!(bindings::ns_tree_root, ns_list_head))
            .cast::<bindings::list_head>()
            .cast_mut();
        TreeRoot(Opaque::new(bindings::ns_tree_root {
            ns_rb: bindings::rb_root {
                rb_node: ptr::null_mut(),
            },
            ns_list_head: bindings::list_head {
                next: head,
                prev: head,
            },
        }))
    }

    /// Borrows a C tree root.
    ///
    /// # Safety
    ///
    /// `ptr` must point to an initialised `struct ns_tree_root` valid for `'a`.
    pub(crate) unsafe fn from_raw<'a>(ptr: *mut bindings::ns_tree_root) -> &'a TreeRoot {
        // SAFETY: transparent wrapper; validity per the caller.
        unsafe { &*ptr.cast::<TreeRoot>() }
    }

    fn rb_root(&self) -> *mut bindings::rb_root {
        // SAFETY: projection within the valid root.
        unsafe { ptr::addr_of_mut!((*self.0.get()).ns_rb) }
    }

    fn head(&self) -> *mut bindings::list_head {
        // SAFETY: projection within the valid root.
        unsafe { ptr::addr_of_mut!((*self.0.get()).ns_list_head) }
    }

    /// Inserts the `node` (of some structure) ordered by `cmp`, which
    /// compares the new node with an existing one. Returns the existing
    /// node on a duplicate (and inserts nothing). This is
    /// `ns_tree_node_add()`: `rb_find_add_rcu()` plus a sorted
    /// `list_add_rcu()`.
    ///
    /// # Safety
    ///
    /// `node` must be valid, not on any tree, and stay valid until removed.
    unsafe fn insert_node(
        &self,
        node: *mut bindings::ns_tree_node,
        mut cmp: impl FnMut(*mut bindings::rb_node) -> core::cmp::Ordering,
        _w: &WriteGuard,
    ) -> Option<*mut bindings::rb_node> {
        use core::cmp::Ordering::*;
        // SAFETY: the write guard excludes other writers; every node on the
        // tree is valid (type invariant); `node` is valid per the caller.
        unsafe {
            let rb = ptr::addr_of_mut!((*node).ns_node);
            let mut link: *mut *mut bindings::rb_node = ptr::addr_of_mut!((*self.rb_root()).rb_node);
            let mut parent = ptr::null_mut();
            while !(*link).is_null() {
                parent = *link;
                link = match cmp(parent) {
                    Less => ptr::addr_of_mut!((*parent).rb_left),
                    Greater => ptr::addr_of_mut!((*parent).rb_right),
                    Equal => return Some(parent),
                };
            }
            glue::nstree_rs_rb_link_node_rcu(rb, parent, link);
            bindings::rb_insert_color(rb, self.rb_root());

            // Keep the list in tree order: after the in-order predecessor.
            let entry = ptr::addr_of_mut!((*node).ns_list_entry);
            let prev = bindings::rb_prev(rb);
            if prev.is_null() {
                glue::nstree_rs_list_add_rcu(entry, self.head());
            } else {
                let off = core::mem::offset_of!(bindings::ns_tree_node, ns_node);
                let prev_node = prev.cast::<u8>().sub(off).cast::<bindings::ns_tree_node>();
                glue::nstree_rs_list_add_rcu(entry, ptr::addr_of_mut!((*prev_node).ns_list_entry));
            }
        }
        None
    }

    /// Removes `node` from the rbtree and the list (`ns_tree_node_del()`).
    ///
    /// # Safety
    ///
    /// `node` must be on this tree.
    unsafe fn remove_node(&self, node: *mut bindings::ns_tree_node, _w: &WriteGuard) {
        // SAFETY: the node is on this tree (caller) and writers are
        // excluded (guard); RCU readers may still see it, which
        // `list_bidir_del_rcu()` allows in both directions.
        unsafe {
            let rb = ptr::addr_of_mut!((*node).ns_node);
            bindings::rb_erase(rb, self.rb_root());
            (*rb).__rb_parent_color = rb as usize;
            glue::nstree_rs_list_bidir_del_rcu(ptr::addr_of_mut!((*node).ns_list_entry));
        }
    }

    /// Inserts `ns` by id on the `link` tree. Returns `false` (and inserts
    /// nothing) if the id is already there.
    ///
    /// The node must not be on a tree yet. That cannot be checked here: the
    /// statically initialised boot-time namespaces (`NS_COMMON_INIT()`)
    /// start with zeroed rbtree nodes, which do not look empty.
    pub(crate) fn insert(&self, ns: &NsCommon, link: Link, w: &WriteGuard) -> bool {
        let id = ns.id();
        // SAFETY: `ns` is live and not on this `link` tree (callers add a
        // namespace once, from its constructor); it
        // stays live until `remove()` (namespaces leave the trees before
        // they are freed, `__ns_tree_remove()`). Nodes on the tree are
        // `link` nodes of live namespaces (invariant).
        unsafe {
            self.insert_node(ns.node(link), |other| id.cmp(&ns_of_rb(other, link).id()), w)
                .is_none()
        }
    }

    /// Removes `ns` from the `link` tree, if it is on it.
    pub(crate) fn remove(&self, ns: &NsCommon, link: Link, w: &WriteGuard) {
        crate::vfs_warn_on_once!(!ns.on_tree(link));
        if ns.on_tree(link) {
            // SAFETY: on a tree, and by the callers' discipline on this one
            // (a namespace's `link` node only ever joins the root derived
            // from its type or owner).
            unsafe { self.remove_node(ns.node(link), w) };
        }
    }

    /// Lockless lookup of `id` (`rb_find_rcu()`); may miss while a writer
    /// rebalances, see [`read_retry`].
    pub(crate) fn find_rcu<'g>(&self, id: u64, link: Link, _g: &'g Guard) -> Option<&'g NsCommon> {
        // SAFETY: under RCU, nodes reachable from the root stay valid until
        // the grace period ends (namespaces are freed after one); child
        // links are read with READ_ONCE() as writers publish them with
        // rcu_assign_pointer()/WRITE_ONCE().
        unsafe {
            let mut node = read_once(ptr::addr_of_mut!((*self.rb_root()).rb_node));
            while !node.is_null() {
                let ns = ns_of_rb(node, link);
                node = match id.cmp(&ns.id()) {
                    core::cmp::Ordering::Less => read_once(ptr::addr_of_mut!((*node).rb_left)),
                    core::cmp::Ordering::Greater => read_once(ptr::addr_of_mut!((*node).rb_right)),
                    core::cmp::Ordering::Equal => return Some(ns),
                };
            }
        }
        None
    }

    /// The namespace with the smallest id `>= id`, under the exclusive
    /// reader lock (no tree can change, no namespace on one can be freed).
    pub(crate) fn lower_bound<'a>(&self, id: u64, link: Link, _r: &'a ReadGuard) -> Option<&'a NsCommon> {
        let mut best = None;
        // SAFETY: with the lock held the tree is stable and all its nodes
        // are live namespaces (type invariant) for the guard's lifetime.
        unsafe {
            let mut node = (*self.rb_root()).rb_node;
            while !node.is_null() {
                let ns = ns_of_rb(node, link);
                if id <= ns.id() {
                    best = Some(ns);
                    if id == ns.id() {
                        break;
                    }
                    node = (*node).rb_left;
                } else {
                    node = (*node).rb_right;
                }
            }
        }
        best
    }

    /// The list entry after `cur` (or the first, for `None`), under RCU.
    pub(crate) fn next_rcu<'g>(&self, cur: Option<&NsCommon>, link: Link, _g: &'g Guard) -> Option<&'g NsCommon> {
        let from = match cur {
            // SAFETY: `cur` is a live namespace whose `link` node is (or
            // was, within this grace period) on this list; a deleted entry
            // keeps its `next`, as RCU lists guarantee.
            Some(ns) => unsafe { ptr::addr_of_mut!((*ns.node(link)).ns_list_entry) },
            None => self.head(),
        };
        // SAFETY: `from` is a valid list entry (above); `next` is
        // published with rcu_assign_pointer().
        let next = unsafe { read_once(ptr::addr_of_mut!((*from).next)) };
        if ptr::eq(next, self.head()) {
            return None;
        }
        // SAFETY: entries on the list other than the head are `link`
        // entries of namespaces kept valid by the RCU read-side section.
        Some(unsafe { ns_of_list(next, link) })
    }

    /// The list entry before `cur`, under RCU (`list_bidir_prev_rcu()`).
    pub(crate) fn prev_rcu<'g>(&self, cur: &NsCommon, link: Link, _g: &'g Guard) -> Option<&'g NsCommon> {
        // SAFETY: as in `next_rcu()`; `list_bidir_del_rcu()` keeps `prev`
        // valid for readers, and `prev` is written with WRITE_ONCE().
        let prev = unsafe { read_once(ptr::addr_of_mut!((*ptr::addr_of_mut!((*cur.node(link)).ns_list_entry)).prev)) };
        if ptr::eq(prev, self.head()) {
            return None;
        }
        // SAFETY: as in `next_rcu()`.
        Some(unsafe { ns_of_list(prev, link) })
    }
}

// ---------------------------------------------------------------------
// The user boundary.
// ---------------------------------------------------------------------

/// `struct ns_id_req`, read from user space.
pub(crate) type NsIdReq = bindings::ns_id_req;

/// Reads the `struct ns_id_req` at `req` with `copy_ns_id_req()`'s rules:
/// `-EFAULT` if the size cannot be read, `-E2BIG` above `PAGE_SIZE`,
/// `-EINVAL` below version 0, then `copy_struct_from_user()` (`-E2BIG` for
/// non-zero bytes past what we know, `-EFAULT`).
pub(crate) fn read_request(req: UserPtr) -> Result<NsIdReq> {
    let mut size = [0u8; 4];
    UserSlice::new(req, 4).reader().read_slice(&mut size).map_err(|_| code::EFAULT)?;
    let usize = u32::from_ne_bytes(size) as usize;
    crate::req::check_size(usize, kernel::page::PAGE_SIZE)?;
    let mut kreq = NsIdReq::default();
    // SAFETY: `kreq` is a valid destination of `size_of::<NsIdReq>()`
    // bytes; the source is a user pointer, checked by the callee.
    let ret = unsafe {
        glue::nstree_rs_copy_struct_from_user(
            ptr::addr_of_mut!(kreq).cast(),
            core::mem::size_of::<NsIdReq>(),
            req.as_const_ptr(),
            usize,
        )
    };
    if ret != 0 {
        return Err(Error::from_errno(ret));
    }
    Ok(kreq)
}

/// The user buffer of namespace ids that `listns()` fills.
pub(crate) struct UserIds {
    writer: UserSliceWriter,
}

impl UserIds {
    /// Checks the whole buffer with `access_ok()` (`-EFAULT`), as the C
    /// syscall does before anything else is read.
    pub(crate) fn new(ids: UserPtr, nr: usize) -> Result<UserIds> {
        let len = nr * core::mem::size_of::<u64>();
        // SAFETY: `access_ok()` only checks the range against the user
        // address space limit.
        if !unsafe { glue::nstree_rs_access_ok(ids.as_const_ptr(), len) } {
            return Err(code::EFAULT);
        }
        Ok(UserIds {
            writer: UserSlice::new(ids, len).writer(),
        })
    }

    /// Stores the next id (`put_user()`), `-EFAULT` on a fault.
    pub(crate) fn push(&mut self, id: u64) -> Result {
        self.writer.write_slice(&id.to_ne_bytes()).map_err(|_| code::EFAULT)
    }
}

// ---------------------------------------------------------------------
// The C interface: what include/linux/nstree.h and ns_common.h declare.
// ---------------------------------------------------------------------

macro_rules! ns_tree_roots {
    ($($name:ident),* $(,)?) => {
        $(
            #[doc = concat!("The per-type tree `", stringify!($name), "`.")]
            #[no_mangle]
            #[allow(non_upper_case_globals)]
            pub static $name: TreeRoot = TreeRoot::new_static(ptr::addr_of!($name));
        )*
    };
}

ns_tree_roots!(
    cgroup_ns_tree,
    ipc_ns_tree,
    mnt_ns_tree,
    net_ns_tree,
    pid_ns_tree,
    time_ns_tree,
    user_ns_tree,
    uts_ns_tree,
);

/// The unified tree of all namespaces.
pub(crate) static NS_UNIFIED_ROOT: TreeRoot = TreeRoot::new_static(ptr::addr_of!(NS_UNIFIED_ROOT));

/// The per-type root for a `CLONE_NEW*` flag.
pub(crate) fn type_root(ns_type: u32) -> Option<&'static TreeRoot> {
    Some(match ns_type {
        bindings::CLONE_NEWCGROUP => &cgroup_ns_tree,
        bindings::CLONE_NEWIPC => &ipc_ns_tree,
        bindings::CLONE_NEWNS => &mnt_ns_tree,
        bindings::CLONE_NEWNET => &net_ns_tree,
        bindings::CLONE_NEWPID => &pid_ns_tree,
        bindings::CLONE_NEWUSER => &user_ns_tree,
        bindings::CLONE_NEWUTS => &uts_ns_tree,
        bindings::CLONE_NEWTIME => &time_ns_tree,
        _ => return None,
    })
}

/// Checks at compile time that our definition of a C function has the
/// exact type of its C prototype (as bindgen sees it).
macro_rules! same_signature {
    ($name:ident: $ty:ty) => {
        const _: () = {
            let _c: $ty = bindings::$name;
            let _rust: $ty = $name;
        };
    };
}

/// `ns_tree_node_init()`.
///
/// # Safety
///
/// `node` must be valid and not on any tree.
#[no_mangle]
pub unsafe extern "C" fn ns_tree_node_init(node: *mut bindings::ns_tree_node) {
    // SAFETY: per the function's contract.
    unsafe { node_init(node) };
}
same_signature!(ns_tree_node_init: unsafe extern "C" fn(*mut bindings::ns_tree_node));

/// `ns_tree_root_init()`.
///
/// # Safety
///
/// `root` must be valid and not in use.
#[no_mangle]
pub unsafe extern "C" fn ns_tree_root_init(root: *mut bindings::ns_tree_root) {
    // SAFETY: exclusive access per the function's contract.
    unsafe {
        (*root).ns_rb.rb_node = ptr::null_mut();
        let head = ptr::addr_of_mut!((*root).ns_list_head);
        (*head).next = head;
        (*head).prev = head;
    }
}
same_signature!(ns_tree_root_init: unsafe extern "C" fn(*mut bindings::ns_tree_root));

/// `ns_tree_node_empty()`.
///
/// # Safety
///
/// `node` must be valid.
#[no_mangle]
pub unsafe extern "C" fn ns_tree_node_empty(node: *const bindings::ns_tree_node) -> bool {
    // SAFETY: per the function's contract.
    unsafe { node_empty(node) }
}
same_signature!(ns_tree_node_empty: unsafe extern "C" fn(*const bindings::ns_tree_node) -> bool);

type RbCmp = Option<unsafe extern "C" fn(*mut bindings::rb_node, *const bindings::rb_node) -> c_int>;

/// `ns_tree_node_add()`: generic insertion with a C comparison callback.
///
/// # Safety
///
/// `node` must be valid and off-tree, `root` a valid root whose nodes
/// `cmp` understands; the caller holds `ns_tree_lock` for writing.
#[no_mangle]
pub unsafe extern "C" fn ns_tree_node_add(
    node: *mut bindings::ns_tree_node,
    root: *mut bindings::ns_tree_root,
    cmp: RbCmp,
) -> *mut bindings::rb_node {
    let Some(cmp) = cmp else { return ptr::null_mut() };
    // The caller holds the write lock: conjure the token for it.
    let w = WriteGuard(PhantomData);
    // SAFETY: per the function's contract.
    let r = unsafe {
        let rb = ptr::addr_of_mut!((*node).ns_node);
        TreeRoot::from_raw(root).insert_node(node, |other| cmp(rb, other).cmp(&0), &w)
    };
    core::mem::forget(w);
    r.unwrap_or(ptr::null_mut())
}
same_signature!(ns_tree_node_add: unsafe extern "C" fn(*mut bindings::ns_tree_node, *mut bindings::ns_tree_root, RbCmp) -> *mut bindings::rb_node);

/// `ns_tree_node_del()`.
///
/// # Safety
///
/// `node` must be on `root`; the caller holds `ns_tree_lock` for writing.
#[no_mangle]
pub unsafe extern "C" fn ns_tree_node_del(node: *mut bindings::ns_tree_node, root: *mut bindings::ns_tree_root) {
    let w = WriteGuard(PhantomData);
    // SAFETY: per the function's contract.
    unsafe { TreeRoot::from_raw(root).remove_node(node, &w) };
    core::mem::forget(w);
}
same_signature!(ns_tree_node_del: unsafe extern "C" fn(*mut bindings::ns_tree_node, *mut bindings::ns_tree_root));

/// `__ns_tree_add_raw()`: publishes `ns` on its type tree, the unified
/// tree and its owner's tree.
///
/// # Safety
///
/// `ns` must be a live namespace with an id, not yet on any tree, that
/// calls `__ns_tree_remove()` before it is freed; `ns_tree` its type root.
#[no_mangle]
pub unsafe extern "C" fn __ns_tree_add_raw(ns: *mut bindings::ns_common, ns_tree: *mut bindings::ns_tree_root) {
    // SAFETY: per the function's contract.
    let (ns, root) = unsafe { (NsCommon::from_raw(ns), TreeRoot::from_raw(ns_tree)) };
    crate::tree::add(ns, root);
}
same_signature!(__ns_tree_add_raw: unsafe extern "C" fn(*mut bindings::ns_common, *mut bindings::ns_tree_root));

/// `__ns_tree_remove()`.
///
/// # Safety
///
/// `ns` must be live and on the trees `__ns_tree_add_raw()` put it on.
#[no_mangle]
pub unsafe extern "C" fn __ns_tree_remove(ns: *mut bindings::ns_common, ns_tree: *mut bindings::ns_tree_root) {
    // SAFETY: per the function's contract.
    let (ns, root) = unsafe { (NsCommon::from_raw(ns), TreeRoot::from_raw(ns_tree)) };
    crate::tree::remove(ns, root);
}
same_signature!(__ns_tree_remove: unsafe extern "C" fn(*mut bindings::ns_common, *mut bindings::ns_tree_root));

/// `ns_tree_lookup_rcu()`: the namespace with id `ns_id` (of type
/// `ns_type`, or any type for 0), or NULL.
///
/// # Safety
///
/// The caller must be in an RCU read-side critical section; the result is
/// only valid within it.
#[no_mangle]
pub unsafe extern "C" fn ns_tree_lookup_rcu(ns_id: u64, ns_type: c_int) -> *mut bindings::ns_common {
    crate::vfs_warn_on_once!(!rcu_read_lock_held());
    // A nested read-side section: the result stays valid in the caller's.
    let g = Guard::new();
    crate::tree::lookup_rcu(ns_id, ns_type as u32, &g).map_or(ptr::null_mut(), |ns| ns.as_ptr())
}
same_signature!(ns_tree_lookup_rcu: unsafe extern "C" fn(u64, c_int) -> *mut bindings::ns_common);

/// `__ns_tree_adjoined_rcu()`: the next or previous namespace on the type
/// tree of `ns`, or `ERR_PTR(-ENOENT)`.
///
/// # Safety
///
/// RCU read-side section held; `ns` on `ns_tree`.
#[no_mangle]
pub unsafe extern "C" fn __ns_tree_adjoined_rcu(
    ns: *mut bindings::ns_common,
    ns_tree: *mut bindings::ns_tree_root,
    previous: bool,
) -> *mut bindings::ns_common {
    crate::vfs_warn_on_once!(!rcu_read_lock_held());
    let g = Guard::new();
    // SAFETY: per the function's contract.
    let (ns, root) = unsafe { (NsCommon::from_raw(ns), TreeRoot::from_raw(ns_tree)) };
    let r = if previous {
        root.prev_rcu(ns, Link::Type, &g)
    } else {
        root.next_rcu(Some(ns), Link::Type, &g)
    };
    match r {
        Some(ns) => ns.as_ptr(),
        None => code::ENOENT.to_ptr(),
    }
}
same_signature!(__ns_tree_adjoined_rcu: unsafe extern "C" fn(*mut bindings::ns_common, *mut bindings::ns_tree_root, bool) -> *mut bindings::ns_common);

/// The namespace id cookie: all types share one id space.
static NAMESPACE_COOKIE: Atomic<u64> = Atomic::new(NS_LAST_INIT_ID + 1);

/// `__ns_tree_gen_id()`: assigns `id` (initial namespaces) or the next id.
///
/// # Safety
///
/// `ns` must be valid and not yet on any tree.
#[no_mangle]
pub unsafe extern "C" fn __ns_tree_gen_id(ns: *mut bindings::ns_common, id: u64) -> u64 {
    // atomic64_inc_return(): fully ordered, returns the new value.
    let id = if id != 0 { id } else { NAMESPACE_COOKIE.fetch_add(1, Full) + 1 };
    // SAFETY: valid and unpublished per the function's contract.
    unsafe { NsCommon::from_raw(ns).set_id(id) };
    id
}
same_signature!(__ns_tree_gen_id: unsafe extern "C" fn(*mut bindings::ns_common, u64) -> u64);

/// `ns_owner()`: the owning user namespace unless it is `init_user_ns`.
///
/// # Safety
///
/// `ns` must be live.
#[no_mangle]
pub unsafe extern "C" fn ns_owner(ns: *mut bindings::ns_common) -> *mut bindings::ns_common {
    // SAFETY: per the function's contract.
    let ns = unsafe { NsCommon::from_raw(ns) };
    crate::active::ns_owner(ns).map_or(ptr::null_mut(), |o| o.as_ptr())
}
same_signature!(ns_owner: unsafe extern "C" fn(*mut bindings::ns_common) -> *mut bindings::ns_common);

/// `__ns_ref_active_get()`: takes an active reference, resurrecting the
/// owner chain if the namespace was inactive.
///
/// # Safety
///
/// `ns` must be live (the caller holds `__ns_ref`).
#[no_mangle]
pub unsafe extern "C" fn __ns_ref_active_get(ns: *mut bindings::ns_common) {
    // SAFETY: per the function's contract.
    crate::cascade::get_active(unsafe { NsCommon::from_raw(ns) });
}
same_signature!(__ns_ref_active_get: unsafe extern "C" fn(*mut bindings::ns_common));

/// `__ns_ref_active_put()`: drops an active reference, cascading up the
/// owner chain when it was the last one.
///
/// # Safety
///
/// `ns` must be live and the caller must own the active reference.
#[no_mangle]
pub unsafe extern "C" fn __ns_ref_active_put(ns: *mut bindings::ns_common) {
    // SAFETY: per the function's contract.
    crate::cascade::put_active(unsafe { NsCommon::from_raw(ns) });
}
same_signature!(__ns_ref_active_put: unsafe extern "C" fn(*mut bindings::ns_common));

/// `may_see_all_namespaces()`.
#[no_mangle]
pub extern "C" fn may_see_all_namespaces() -> bool {
    may_see_all()
}
same_signature!(may_see_all_namespaces: unsafe extern "C" fn() -> bool);

/// The body of `listns()`: `SYSCALL_DEFINE4(listns, ...)` in the glue
/// calls it with the raw arguments.
///
/// # Safety
///
/// Called only from the syscall entry, in process context.
#[no_mangle]
pub unsafe extern "C" fn nstree_rs_listns(
    req: *const bindings::ns_id_req,
    ns_ids: *mut u64,
    nr_ns_ids: usize,
    flags: c_uint,
) -> core::ffi::c_long {
    let req = UserPtr::from_ptr(req.cast_mut().cast());
    let ids = UserPtr::from_ptr(ns_ids.cast());
    match crate::listns::listns(req, ids, nr_ns_ids, flags) {
        // At most `MAX_IDS`, so it fits.
        Ok(n) => n as core::ffi::c_long,
        Err(e) => e.to_errno() as core::ffi::c_long,
    }
}

/// A private tree of fake namespaces for the KUnit tests: never on the
/// global trees, so nothing else can see them.
#[cfg(CONFIG_KUNIT)]
pub(crate) struct TestTree {
    root: kernel::alloc::KBox<TreeRoot>,
    nodes: kernel::alloc::KVec<kernel::alloc::KBox<FakeNs>>,
}

/// Storage for a fake `struct ns_common`, sized from the real layout (not
/// from `bindings::ns_common`, which bindgen gets too small).
#[cfg(CONFIG_KUNIT)]
#[repr(C, align(64))]
struct FakeNs([u8; NS_TREE_OFFSET + core::mem::size_of::<bindings::ns_tree>()]);

#[cfg(CONFIG_KUNIT)]
impl TestTree {
    /// A tree holding fake UTS namespaces with `ids`, inserted in order.
    pub(crate) fn new(ids: &[u64]) -> Result<TestTree> {
        use kernel::alloc::{flags::GFP_KERNEL, KBox, KVec};
        let root = KBox::new(TreeRoot(Opaque::uninit()), GFP_KERNEL)?;
        // SAFETY: the root is fresh and ours.
        unsafe { ns_tree_root_init(root.0.get()) };
        let mut t = TestTree {
            root,
            nodes: KVec::new(),
        };
        for &id in ids {
            let raw = t.alloc(id)?;
            // SAFETY: the fake namespace lives in `t.nodes`.
            let ns = unsafe { NsCommon::from_raw(raw) };
            let w = WriteGuard::lock();
            t.root.insert(ns, Link::Type, &w);
        }
        Ok(t)
    }

    fn alloc(&mut self, id: u64) -> Result<*mut bindings::ns_common> {
        use kernel::alloc::{flags::GFP_KERNEL, KBox};
        let fake = KBox::new(FakeNs([0; core::mem::size_of::<FakeNs>()]), GFP_KERNEL)?;
        let raw = ptr::addr_of!(*fake).cast_mut().cast::<bindings::ns_common>();
        // SAFETY: `raw` is zeroed storage of the full `struct ns_common`
        // size, owned by `self.nodes` until the tree is dropped; a zeroed
        // ns_common with NULL ops is a valid namespace for tree purposes.
        unsafe {
            (*raw).ns_type = bindings::CLONE_NEWUTS;
            let ns = NsCommon::from_raw(raw);
            node_init(ns.node(Link::Type));
            ns.set_id(id);
        }
        // Moving the box into `self.nodes` does not move its contents.
        self.nodes.push(fake, GFP_KERNEL)?;
        Ok(raw)
    }

    fn get(&self, id: u64) -> Option<&NsCommon> {
        let g = Guard::new();
        // The fake namespaces live as long as `self`, not just the guard.
        let ns = self.root.find_rcu(id, Link::Type, &g)?.as_ptr();
        // SAFETY: every node on the private tree is one of `self.nodes`.
        Some(unsafe { NsCommon::from_raw(ns) })
    }

    /// The ids in list order.
    pub(crate) fn ids_in_order(&self) -> kernel::alloc::KVec<u64> {
        let mut v = kernel::alloc::KVec::new();
        let g = Guard::new();
        let mut cur = self.root.next_rcu(None, Link::Type, &g);
        while let Some(ns) = cur {
            let _ = v.push(ns.id(), kernel::alloc::flags::GFP_KERNEL);
            cur = self.root.next_rcu(Some(ns), Link::Type, &g);
        }
        v
    }

    /// `find_rcu()` with seqlock retry.
    pub(crate) fn find(&self, id: u64) -> Option<u64> {
        let g = Guard::new();
        read_retry(|| self.root.find_rcu(id, Link::Type, &g)).map(NsCommon::id)
    }

    /// The smallest id `>= id`.
    pub(crate) fn lower_bound(&self, id: u64) -> Option<u64> {
        let r = ReadGuard::lock();
        self.root.lower_bound(id, Link::Type, &r).map(NsCommon::id)
    }

    /// The ids before and after `id` on the list.
    pub(crate) fn neighbours(&self, id: u64) -> (Option<u64>, Option<u64>) {
        let Some(ns) = self.get(id) else { return (None, None) };
        let g = Guard::new();
        (
            self.root.prev_rcu(ns, Link::Type, &g).map(NsCommon::id),
            self.root.next_rcu(Some(ns), Link::Type, &g).map(NsCommon::id),
        )
    }

    /// Removes the namespace with `id`.
    pub(crate) fn remove(&self, id: u64) {
        if let Some(ns) = self.get(id) {
            let w = WriteGuard::lock();
            self.root.remove(ns, Link::Type, &w);
        }
    }

    /// Tries to insert a second namespace with an existing id.
    pub(crate) fn insert_duplicate(&mut self, id: u64) -> bool {
        let Ok(ns) = self.alloc(id) else { return false };
        // SAFETY: the fake namespace lives in `self.nodes`.
        let ns = unsafe { NsCommon::from_raw(ns) };
        let w = WriteGuard::lock();
        self.root.insert(ns, Link::Type, &w)
    }
}

#[cfg(CONFIG_KUNIT)]
impl Drop for TestTree {
    fn drop(&mut self) {
        let w = WriteGuard::lock();
        for fake in self.nodes.iter() {
            // SAFETY: as in `alloc()`.
            let ns = unsafe { NsCommon::from_raw(ptr::addr_of!(**fake).cast_mut().cast()) };
            if ns.on_tree(Link::Type) {
                self.root.remove(ns, Link::Type, &w);
            }
        }
        drop(w);
        // Lockless readers of the private tree are all gone (only the
        // test thread used it), so the memory can go without a grace period.
    }
}
