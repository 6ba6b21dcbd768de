// SPDX-License-Identifier: GPL-2.0-only

//! Intrusive id-ordered trees: `struct ns_tree_root` / `struct ns_tree_node`.
//!
//! A namespace has three tree nodes; which one a tree links is the tree's
//! *kind*, a type parameter of [`TreeRoot`] (as `ListLinks<ID>` is of the
//! kernel crate's lists), so a lookup on the unified tree cannot compute a
//! namespace from a per-type node: that mix-up does not compile.
//!
//! A root is pinned: the empty list head points to itself, so a root
//! cannot move once initialised. Roots are made in place
//! ([`TreeRoot::new`], a pin-initialiser) or are statics
//! ([`TreeRoot::new_static`], `unsafe`).
//!
//! Walks go through a [`Cursor`], a place on the list. Only the list head
//! ([`TreeRoot::first`]), the locked reader ([`TreeRoot::first_after`])
//! and a held place ([`Held::resume`]) make cursors, so a cursor is always
//! at a node that is (or, within the grace period, was) on the list. The
//! lockless rbtree lookup ([`TreeRoot::find_rcu`]) returns a namespace, not
//! a cursor: it can reach a node that a writer has linked into the rbtree
//! but not yet onto the list. A walk that leaves RCU keeps its place with
//! a [`Held`] cursor, which owns a counted reference.
//!
//! # Concurrent accesses
//!
//! The memory model is the kernel's (tools/memory-model/), as for all
//! kernel Rust ("the only model for Rust code in kernel",
//! rust/kernel/sync/atomic.rs:6-7): a reader that loads a link with a
//! relaxed [`Atomic`] load and then reads the node it points to relies on
//! the LKMM's address-dependency ordering, as C's `rcu_dereference()`
//! does; Rust's own model would not order those reads.
//!
//! Readers load the list and rbtree links with [`Atomic`] relaxed loads
//! (`READ_ONCE()`), as `rcu_dereference()` does. The writers of every link
//! a lockless reader follows forward, `->next` and the rbtree's children,
//! store it with `rcu_assign_pointer()` or `WRITE_ONCE()` once it is
//! reachable (include/linux/rculist.h:105, include/linux/list.h:242,
//! include/linux/rbtree.h:107, lib/rbtree.c:38-39), so those loads race
//! with no plain store.
//!
//! `->prev` is different: `__list_add_rcu()` stores `next->prev = new`
//! (include/linux/rculist.h:106) and `__list_del()` `next->prev = prev`
//! (include/linux/list.h:241) with plain stores, which upstream's
//! `list_bidir_prev_rcu()` (include/linux/rculist.h:43) reads under RCU
//! anyway. A plain store racing with a marked load is a data race in
//! Rust's memory model and in the Linux-kernel memory model alike
//! (tools/memory-model/Documentation/explanation.txt); the kernel accepts
//! it on the assumption that aligned word-sized plain stores are not torn
//! (what `CONFIG_KCSAN_ASSUME_PLAIN_WRITES_ATOMIC`, lib/Kconfig.kcsan,
//! encodes, and what rust/kernel/sync/atomic.rs:13-14 leans on for C's
//! plain writes "if" that option is set). A safe function cannot rest on a
//! configuration option, so [`Cursor::prev`]
//! takes a [`ReadGuard`]: `read_seqlock_excl()` excludes every writer of
//! the namespace trees (they all hold `write_seqlock()` on the same
//! lock), so no `->prev` store runs while it loads one. Upstream's
//! `__ns_tree_adjoined_rcu()` (kernel/nstree.c:373) reads `->prev` without
//! the lock, racing; the Rust one takes it (docs/walkthrough.md,
//! "Deliberate differences"): the same result, without the race.

use core::marker::{PhantomData, PhantomPinned};
use core::ptr;

use kernel::bindings;
use kernel::prelude::*;
use kernel::sync::atomic::{Atomic, Relaxed};
use kernel::sync::rcu::Guard;
use kernel::types::Opaque;

use super::layout;
use super::lock::{RcuSection, ReadGuard, WriteGuard};
use super::ns::{NsCommon, NsRef};

/// `RB_EMPTY_NODE()` (include/linux/rbtree.h:33-34).
///
/// # Safety
///
/// `node` must point to a valid `struct ns_tree_node` that no one changes
/// concurrently: its tree's writers are excluded (for the namespace trees,
/// `ns_tree_lock` is held), or the node is on no tree.
pub(super) unsafe fn node_empty(node: *const bindings::ns_tree_node) -> bool {
    // SAFETY: valid and not written concurrently, per the caller; this is
    // `RB_EMPTY_NODE()` (include/linux/rbtree.h:33-34).
    unsafe { (*node).ns_node.__rb_parent_color == ptr::addr_of!((*node).ns_node) as usize }
}

/// `ns_tree_node_init()`: `RB_CLEAR_NODE()` + `INIT_LIST_HEAD()`
/// (kernel/nstree.c:73-77).
///
/// # Safety
///
/// `node` must be valid for writes and not on any tree.
pub(super) unsafe fn node_init(node: *mut bindings::ns_tree_node) {
    // SAFETY: exclusive per the caller; `RB_CLEAR_NODE()`
    // (include/linux/rbtree.h:35-36) and `INIT_LIST_HEAD()`
    // (include/linux/list.h:51-55), with the child links cleared too.
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

/// `ns_tree_root_init()`: an empty rbtree and a list head pointing to
/// itself (kernel/nstree.c:85-89).
///
/// # Safety
///
/// `root` must be valid for writes and not in use.
pub(super) unsafe fn root_init(root: *mut bindings::ns_tree_root) {
    // SAFETY: exclusive access per the caller; `root->ns_rb = RB_ROOT` and
    // `INIT_LIST_HEAD()` as in `ns_tree_root_init()` (kernel/nstree.c:85-89).
    unsafe {
        (*root).ns_rb.rb_node = ptr::null_mut();
        let head = ptr::addr_of_mut!((*root).ns_list_head);
        (*head).next = head;
        (*head).prev = head;
    }
}

/// `READ_ONCE()` of a list or rbtree link: what `rcu_dereference()` and
/// `rcu_dereference_raw()` do.
///
/// # Safety
///
/// `p` must be a valid, aligned link field whose writers store it with
/// `rcu_assign_pointer()` or `WRITE_ONCE()`, or, for `list_head::prev`
/// (plain stores: include/linux/rculist.h:106, include/linux/list.h:241),
/// whose writers are excluded for the load (see the module documentation).
#[inline]
unsafe fn load_link<T>(p: *mut *mut T) -> *mut T {
    // SAFETY: `p` is valid and aligned (caller); `Atomic<*mut T>` has the
    // layout of `*mut T`. The link's writers use `rcu_assign_pointer()`
    // (include/linux/rculist.h:105, include/linux/rbtree.h:107) and
    // `WRITE_ONCE()` (include/linux/list.h:242, lib/rbtree.c:38-39 "All stores to the
    // tree structure (rb_left and rb_right) must be done using
    // WRITE_ONCE()"); the plain `->prev` stores do not run during the load
    // (caller: `Cursor::prev()` holds the `ReadGuard`).
    unsafe { Atomic::from_ptr(p) }.load(Relaxed)
}

/// Which of a namespace's three `struct ns_tree_node`s a tree links.
///
/// # Safety
///
/// `NODE_OFFSET` must be the offset of that `struct ns_tree_node` in
/// `struct ns_common`, and every tree of this kind must link only that
/// node of its namespaces.
///
/// # Examples
///
/// Every tree of a kind computes its namespaces from that kind's node
/// offset, so a new kind is an `unsafe impl`, whose author vouches for the
/// offset; safe code cannot add one:
///
/// ```compile_fail,E0200
/// use nstree_rs::ffi::TreeKind;
///
/// enum Mine {}
///
/// impl TreeKind for Mine {
///     const NODE_OFFSET: usize = 0;
/// }
/// ```
pub(crate) unsafe trait TreeKind: 'static {
    /// `offsetof(struct ns_common, <node>)`.
    const NODE_OFFSET: usize;
}

/// The unified tree of all namespaces: `ns_unified_node`.
pub(crate) enum Unified {}

/// A per-type tree (`net_ns_tree`, ...): `ns_tree_node`.
pub(crate) enum ByType {}

/// A user namespace's tree of the namespaces it owns: `ns_owner_node`.
pub(crate) enum ByOwner {}

// SAFETY: the C compiler's offset (`layout::UNIFIED_NODE`); only the unified
// root is of this kind, and `__ns_tree_add_raw()` links `ns_unified_node`
// into it (kernel/nstree.c:210 in C, `ffi::tree::add()` here).
unsafe impl TreeKind for Unified {
    const NODE_OFFSET: usize = layout::UNIFIED_NODE;
}

// SAFETY: the C compiler's offset; the per-type roots link `ns_tree_node`
// (kernel/nstree.c:207, `node_to_ns()` at kernel/nstree.c:152-157).
unsafe impl TreeKind for ByType {
    const NODE_OFFSET: usize = layout::TREE_NODE;
}

// SAFETY: the C compiler's offset; only `ns_owner_root` is of this kind and
// it links `ns_owner_node` (kernel/nstree.c:223).
unsafe impl TreeKind for ByOwner {
    const NODE_OFFSET: usize = layout::OWNER_NODE;
}

impl NsCommon {
    /// The tree node of kind `K`.
    #[inline]
    pub(super) fn node<K: TreeKind>(&self) -> *mut bindings::ns_tree_node {
        // The node lies inside the valid namespace (`TreeKind` invariant).
        self.field(K::NODE_OFFSET)
    }

    /// Whether the node of kind `K` is on a tree (`!RB_EMPTY_NODE()`).
    ///
    /// Takes the write guard: the node's `__rb_parent_color` is written
    /// with plain stores by `rb_insert_color()`/`rb_erase()` of any node of
    /// its tree, under `ns_tree_lock`.
    ///
    /// # Examples
    ///
    /// ```compile_fail,E0061
    /// # use nstree_rs::ffi::{NsCommon, Unified};
    /// fn listed(ns: &NsCommon) -> bool {
    ///     ns.on_tree::<Unified>() // no guard: a racy read
    /// }
    /// ```
    ///
    /// ```no_run
    /// # use nstree_rs::ffi::lock::WriteGuard;
    /// # use nstree_rs::ffi::{NsCommon, Unified};
    /// fn listed(ns: &NsCommon) -> bool {
    ///     let w = WriteGuard::lock();
    ///     ns.on_tree::<Unified>(&w)
    /// }
    /// ```
    pub(crate) fn on_tree<K: TreeKind>(&self, _w: &WriteGuard) -> bool {
        // SAFETY: the node belongs to the valid namespace, and the write
        // guard excludes every writer of the namespace trees (all of them
        // hold `ns_tree_lock`, as in C: kernel/nstree.c:204,241).
        !unsafe { node_empty(self.node::<K>()) }
    }

    /// The tree of namespaces owned by this (user) namespace.
    pub(crate) fn owner_root(&self) -> &TreeRoot<ByOwner> {
        // SAFETY: `ns_owner_root` is embedded in the valid namespace,
        // initialised by `ns_tree_root_init()` (kernel/nscommon.c:68) or
        // `.ns_owner_root.ns_list_head = LIST_HEAD_INIT()`
        // (include/linux/ns_common.h:41), never moves (it is part of the
        // namespace), lives as long as it, and links the `ns_owner_node`s
        // of the namespaces it owns (kernel/nstree.c:223).
        unsafe { TreeRoot::from_raw(self.field(layout::OWNER_ROOT)) }
    }
}

/// The namespace whose node of kind `K` is `node` (`container_of()`).
///
/// The nodes are fields of the anonymous `struct ns_tree` that bindgen
/// does not see, so `kernel::container_of!` cannot name them: the offset
/// is [`TreeKind::NODE_OFFSET`], the C compiler's.
///
/// # Safety
///
/// `node` must be the `K` node of a namespace that is valid for `'a`.
#[inline]
unsafe fn ns_of_node<'a, K: TreeKind>(node: *mut bindings::ns_tree_node) -> &'a NsCommon {
    // SAFETY: per the caller, `node` sits `NODE_OFFSET` bytes into a
    // namespace valid for `'a`: this is the `rb_entry()` of `struct
    // ns_common` in `node_to_ns()` (kernel/nstree.c:152-157).
    unsafe { NsCommon::from_raw(node.byte_sub(K::NODE_OFFSET).cast()) }
}

/// # Safety
///
/// `rb` must be the `ns_node` of a `K` node of a namespace valid for `'a`.
#[inline]
unsafe fn ns_of_rb<'a, K: TreeKind>(rb: *mut bindings::rb_node) -> &'a NsCommon {
    // SAFETY: per the caller, `rb` is the `ns_node` of a `ns_tree_node`
    // (include/linux/ns/nstree_types.h:31-34; offset asserted in `ffi.rs`)
    // inside a valid namespace.
    unsafe { ns_of_node::<K>(kernel::container_of!(rb, bindings::ns_tree_node, ns_node)) }
}

/// # Safety
///
/// `l` must be the `ns_list_entry` of a `K` node of a namespace valid for
/// `'a`.
#[inline]
unsafe fn ns_of_list<'a, K: TreeKind>(l: *mut bindings::list_head) -> &'a NsCommon {
    // SAFETY: per the caller, `l` is the `ns_list_entry` of a
    // `ns_tree_node` (include/linux/ns/nstree_types.h:31-34) inside a valid
    // namespace.
    unsafe {
        ns_of_node::<K>(kernel::container_of!(
            l,
            bindings::ns_tree_node,
            ns_list_entry
        ))
    }
}

/// Inserts `node` into `root` ordered by `cmp`, which compares the new
/// node with an existing one as C's comparators do (negative: the new
/// node goes left of it, positive: right, zero: the same key). Returns
/// the existing node on a duplicate (and inserts nothing). This is `ns_tree_node_add()`
/// (kernel/nstree.c:114-136): `rb_find_add_rcu()` plus a sorted
/// `list_add_rcu()`, except on a duplicate, where C still adds the node
/// to the list (see docs/walkthrough.md, "Deliberate differences").
///
/// # Safety
///
/// `root` must be a valid, initialised root whose writers the caller
/// serialises (for the namespace trees: `ns_tree_lock` held for writing);
/// `node` must be valid, on no tree, and stay valid until removed; `cmp`
/// must be callable on any node on `root`.
pub(super) unsafe fn insert_node(
    root: *mut bindings::ns_tree_root,
    node: *mut bindings::ns_tree_node,
    mut cmp: impl FnMut(*mut bindings::rb_node) -> i32,
) -> Option<*mut bindings::rb_node> {
    // SAFETY: writers are serialised (caller), so the tree does not change
    // under us; the nodes on the tree and `node` are valid (caller). The
    // helpers are `rb_link_node_rcu()` (include/linux/rbtree.h:101-108),
    // `rb_insert_color()` and `rb_prev()` (lib/rbtree.c) and
    // `list_add_rcu()` (include/linux/rculist.h:125-128), which publish
    // the node to RCU readers with `rcu_assign_pointer()`.
    unsafe {
        let rb = ptr::addr_of_mut!((*node).ns_node);
        let rb_root = ptr::addr_of_mut!((*root).ns_rb);
        let mut link: *mut *mut bindings::rb_node = ptr::addr_of_mut!((*rb_root).rb_node);
        let mut parent = ptr::null_mut();
        while !(*link).is_null() {
            parent = *link;
            // C's sign test (`rb_find_add_rcu()`,
            // include/linux/rbtree.h:394-404), not `Ordering`: once `cmp`
            // is inlined, each test is one compare of the ids.
            let c = cmp(parent);
            link = if c < 0 {
                ptr::addr_of_mut!((*parent).rb_left)
            } else if c > 0 {
                ptr::addr_of_mut!((*parent).rb_right)
            } else {
                return Some(parent);
            };
        }
        bindings::rb_link_node_rcu(rb, parent, link);
        bindings::rb_insert_color(rb, rb_root);

        // Keep the list in tree order: after the in-order predecessor.
        let entry = ptr::addr_of_mut!((*node).ns_list_entry);
        let prev = bindings::rb_prev(rb);
        if prev.is_null() {
            bindings::list_add_rcu(entry, ptr::addr_of_mut!((*root).ns_list_head));
        } else {
            let prev_node = kernel::container_of!(prev, bindings::ns_tree_node, ns_node);
            bindings::list_add_rcu(entry, ptr::addr_of_mut!((*prev_node).ns_list_entry));
        }
    }
    None
}

/// Removes `node` from the rbtree and the list (`ns_tree_node_del()`,
/// kernel/nstree.c:145-150).
///
/// # Safety
///
/// `root` must be a valid root whose writers the caller serialises, and
/// `node` on it.
pub(super) unsafe fn remove_node(
    root: *mut bindings::ns_tree_root,
    node: *mut bindings::ns_tree_node,
) {
    // SAFETY: the node is on this tree and writers are excluded (caller);
    // RCU readers may still see it, which `list_bidir_del_rcu()`
    // (include/linux/rculist.h:210-213: `__list_del_entry()`, which keeps
    // the entry's own links) allows in both directions.
    unsafe {
        let rb = ptr::addr_of_mut!((*node).ns_node);
        bindings::rb_erase(rb, ptr::addr_of_mut!((*root).ns_rb));
        (*rb).__rb_parent_color = rb as usize;
        bindings::list_bidir_del_rcu(ptr::addr_of_mut!((*node).ns_list_entry));
    }
}

/// The root of one id-ordered namespace tree of kind `K`: `struct
/// ns_tree_root`, an rbtree for lookups plus an RCU list in the same order
/// for iteration.
///
/// Pinned: the list head of an empty root points to itself, and the
/// nodes on the tree point back to the root, so a root never moves once
/// initialised. It is made in place with [`TreeRoot::new`], or is a
/// `static` made with the `unsafe` [`TreeRoot::new_static`]; there is no
/// way to get an uninitialised root.
///
/// # Invariants
///
/// The wrapped root is initialised and does not move; its rbtree and list
/// hold the same `K` nodes of live namespaces in ascending id order; both
/// are only modified with the [`WriteGuard`] held. A namespace leaves the
/// tree only once no counted reference ([`NsRef`]) to it remains.
///
/// # Examples
///
/// A root is made in place and stays there:
///
/// ```no_run
/// use core::pin::Pin;
/// use kernel::alloc::{flags::GFP_KERNEL, KBox};
/// use kernel::prelude::*;
/// use nstree_rs::ffi::tree::ByType;
/// use nstree_rs::ffi::TreeRoot;
///
/// fn private_root() -> Result<Pin<KBox<TreeRoot<ByType>>>> {
///     KBox::pin_init(TreeRoot::new(), GFP_KERNEL)
/// }
/// ```
///
/// It cannot be moved out of its box once initialised:
///
/// ```compile_fail,E0277
/// # use core::pin::Pin;
/// # use kernel::alloc::KBox;
/// # use nstree_rs::ffi::tree::ByType;
/// use nstree_rs::ffi::TreeRoot;
/// fn take(root: Pin<KBox<TreeRoot<ByType>>>) -> TreeRoot<ByType> {
///     *Pin::into_inner(root)
/// }
/// ```
///
/// and there is no uninitialised root to start from: its fields are
/// private, so a root cannot be spelled out, even from zeroed memory:
///
/// ```compile_fail,E0451
/// # use core::marker::{PhantomData, PhantomPinned};
/// # use nstree_rs::ffi::tree::ByType;
/// use nstree_rs::ffi::TreeRoot;
/// fn raw() -> TreeRoot<ByType> {
///     TreeRoot {
///         // SAFETY: none: this is the misuse.
///         raw: unsafe { core::mem::zeroed() },
///         _kind: PhantomData,
///         _pin: PhantomPinned,
///     }
/// }
/// ```
///
/// The kind is part of the type: safe code cannot see a per-type root as
/// the unified one. The only way, [`TreeRoot::from_raw`], is `unsafe`:
///
/// ```compile_fail,E0133
/// use nstree_rs::ffi::tree::ByType;
/// use nstree_rs::ffi::{TreeRoot, Unified};
///
/// fn as_unified(net: &TreeRoot<ByType>) -> &TreeRoot<Unified> {
///     TreeRoot::from_raw(net.as_raw())
/// }
/// ```
///
/// Mutation needs the write lock: see [`WriteGuard`].
#[repr(C)]
#[pin_data]
pub(crate) struct TreeRoot<K: TreeKind> {
    #[pin]
    raw: Opaque<bindings::ns_tree_root>,
    _kind: PhantomData<K>,
    #[pin]
    _pin: PhantomPinned,
}

// SAFETY: `struct ns_tree_root` (include/linux/ns/nstree_types.h:18-21) is
// shared by design: all mutation goes through `&WriteGuard` methods
// (serialised by the seqlock, as kernel/nstree.c:204 does); readers follow
// the RCU list / seqlock rules.
unsafe impl<K: TreeKind> Sync for TreeRoot<K> {}
// SAFETY: see `Sync`; nothing in the root
// (include/linux/ns/nstree_types.h:18-21) is tied to a thread.
unsafe impl<K: TreeKind> Send for TreeRoot<K> {}

impl<K: TreeKind> TreeRoot<K> {
    /// A new, empty root, initialised in place (`ns_tree_root_init()`).
    #[cfg(any(nstree_host, CONFIG_NSTREE_RUST_KUNIT_TEST))]
    pub(crate) fn new() -> impl PinInit<Self> {
        pin_init!(Self {
            // SAFETY: `slot` is the root's storage, valid for writes and
            // not in use yet: `ns_tree_root_init()`'s contract
            // (kernel/nstree.c:85).
            raw <- Opaque::ffi_init(|slot| unsafe { root_init(slot) }),
            _kind: PhantomData,
            _pin: PhantomPinned,
        })
    }

    /// An empty root for the `static` located at `this` (the list head
    /// points to itself, so the address is needed at compile time).
    ///
    /// # Safety
    ///
    /// `this` must be the address of the `static` that this value
    /// initialises, so that the list head points into the root.
    ///
    /// # Examples
    ///
    /// Without `unsafe`, a root could point anywhere:
    ///
    /// ```compile_fail,E0133
    /// # use core::ptr;
    /// # use nstree_rs::ffi::{TreeRoot, Unified};
    /// fn anywhere() -> TreeRoot<Unified> {
    ///     TreeRoot::new_static(ptr::null())
    /// }
    /// ```
    ///
    /// With it, the caller vouches for the address (in the kernel, a
    /// `static` initialised with its own address, as `NS_UNIFIED_ROOT`):
    ///
    /// ```no_run
    /// # use nstree_rs::ffi::{TreeRoot, Unified};
    /// /// # Safety
    /// ///
    /// /// `this` is the address of the static being initialised.
    /// unsafe fn root_at(this: *const TreeRoot<Unified>) -> TreeRoot<Unified> {
    ///     // SAFETY: per the function's contract.
    ///     unsafe { TreeRoot::new_static(this) }
    /// }
    /// ```
    pub(crate) const unsafe fn new_static(this: *const TreeRoot<K>) -> TreeRoot<K> {
        // `raw` is the first field of the `repr(C)` struct.
        let head = this
            .cast::<u8>()
            .wrapping_add(core::mem::offset_of!(bindings::ns_tree_root, ns_list_head))
            .cast::<bindings::list_head>()
            .cast_mut();
        TreeRoot {
            raw: Opaque::new(bindings::ns_tree_root {
                ns_rb: bindings::rb_root {
                    rb_node: ptr::null_mut(),
                },
                ns_list_head: bindings::list_head {
                    next: head,
                    prev: head,
                },
            }),
            _kind: PhantomData,
            _pin: PhantomPinned,
        }
    }

    /// Borrows a C tree root.
    ///
    /// # Safety
    ///
    /// `ptr` must point to an initialised `struct ns_tree_root` that links
    /// `K` nodes, does not move, and upholds the type invariants for `'a`.
    #[inline]
    pub(crate) unsafe fn from_raw<'a>(ptr: *mut bindings::ns_tree_root) -> &'a TreeRoot<K> {
        // SAFETY: `raw`, at offset 0 of the `repr(C)` struct, is the only
        // non-zero-sized field, a `struct ns_tree_root`
        // (include/linux/ns/nstree_types.h:18-21); validity per the caller.
        unsafe { &*ptr.cast::<TreeRoot<K>>() }
    }

    /// The raw `struct ns_tree_root` pointer.
    #[inline]
    pub(crate) fn as_raw(&self) -> *mut bindings::ns_tree_root {
        self.raw.get()
    }

    #[inline]
    fn head(&self) -> *mut bindings::list_head {
        // SAFETY: projection within the valid root
        // (include/linux/ns/nstree_types.h:20).
        unsafe { ptr::addr_of_mut!((*self.as_raw()).ns_list_head) }
    }

    /// A cursor at the list entry after (or before) `from`.
    ///
    /// # Safety
    ///
    /// `from` must be the list head or the `K` list entry of a namespace
    /// that is on this list, or was within the current RCU grace period.
    /// Backwards (`!next`), the list's writers must be excluded (the tree
    /// lock held): `->prev` is stored with plain stores.
    #[inline]
    unsafe fn step<'r, 'g>(
        &'r self,
        from: *mut bindings::list_head,
        next: bool,
        _g: &'g Guard,
    ) -> Option<Cursor<'r, 'g, K>> {
        // SAFETY: `from` is a valid entry (caller); a deleted entry keeps
        // both links (`list_bidir_del_rcu()`, include/linux/rculist.h:210-213);
        // backwards, no writer runs (caller);
        // `list_next_rcu()`/`list_bidir_prev_rcu()` are these fields
        // (include/linux/rculist.h:32,43).
        let to = unsafe {
            if next {
                load_link(ptr::addr_of_mut!((*from).next))
            } else {
                load_link(ptr::addr_of_mut!((*from).prev))
            }
        };
        if ptr::eq(to, self.head()) {
            return None;
        }
        Some(Cursor {
            root: self,
            // SAFETY: entries on the list other than the head are `K`
            // entries of namespaces that the RCU read-side section keeps
            // valid (freed only after a grace period, e.g.
            // kernel/user_namespace.c:231); an entry is linked only once
            // its namespace is fully set up (`list_add_rcu()` publishes it
            // with `rcu_assign_pointer()`, include/linux/rculist.h:105).
            ns: unsafe { ns_of_list::<K>(to) },
        })
    }

    /// The first namespace on the list, under RCU.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use kernel::sync::rcu;
    /// use nstree_rs::ffi::{TreeRoot, Unified};
    ///
    /// /// The first ids of the tree, in order.
    /// fn first_ids(root: &TreeRoot<Unified>, out: &mut [u64]) -> usize {
    ///     let g = rcu::read_lock();
    ///     let (mut n, mut cur) = (0, root.first(&g));
    ///     while let (Some(c), true) = (cur, n < out.len()) {
    ///         out[n] = c.ns().id();
    ///         n += 1;
    ///         cur = c.next(&g);
    ///     }
    ///     n
    /// }
    /// ```
    pub(crate) fn first<'r, 'g>(&'r self, g: &'g Guard) -> Option<Cursor<'r, 'g, K>> {
        // SAFETY: the head of this list, as `first_ns_common()` starts
        // from (kernel/nstree.c:658-664).
        unsafe { self.step(self.head(), true, g) }
    }

    /// Lockless lookup of `id` (`rb_find_rcu()`, include/linux/rbtree.h:450-468);
    /// may miss while a writer rebalances, see
    /// [`read_retry`](super::read_retry).
    ///
    /// Returns the namespace, not a [`Cursor`]: a lockless descent can
    /// reach a node that a writer has linked into the rbtree but not yet
    /// onto the list (`insert_node()` links the rbtree first), so the node
    /// is no place to walk from. Walks start at [`TreeRoot::first`] or
    /// [`TreeRoot::first_after`], which looks the tree up as a locked
    /// reader, as upstream 7.3 does.
    ///
    /// # Examples
    ///
    /// ```compile_fail,E0599
    /// # use kernel::sync::rcu;
    /// # use nstree_rs::ffi::{TreeRoot, Unified};
    /// fn next_id(root: &TreeRoot<Unified>, id: u64) -> Option<u64> {
    ///     let g = rcu::read_lock();
    ///     let found = root.find_rcu(id, &g)?;
    ///     Some(found.next(&g)?.ns().id()) // no cursor to step from
    /// }
    /// ```
    ///
    /// ```no_run
    /// # use kernel::sync::rcu;
    /// # use nstree_rs::ffi::lock::ReadGuard;
    /// # use nstree_rs::ffi::{TreeRoot, Unified};
    /// fn next_id(root: &TreeRoot<Unified>, id: u64) -> Option<u64> {
    ///     let g = rcu::read_lock();
    ///     let r = ReadGuard::lock();
    ///     Some(root.first_after(id, &g, &r)?.ns().id())
    /// }
    /// ```
    #[inline]
    pub(crate) fn find_rcu<'g>(&self, id: u64, _g: &'g impl RcuSection) -> Option<&'g NsCommon> {
        // SAFETY: under RCU, nodes reachable from the root are `K` nodes of
        // namespaces that stay valid until the grace period ends, linked
        // only once set up (`rb_link_node_rcu()` publishes with
        // `rcu_assign_pointer()`, include/linux/rbtree.h:107); child links
        // are loaded with `READ_ONCE()` as writers store them with
        // `WRITE_ONCE()` (lib/rbtree.c:38-39), so the descent sees valid
        // nodes and terminates (lib/rbtree.c:46-47).
        unsafe {
            let mut node = load_link(ptr::addr_of_mut!((*self.as_raw()).ns_rb.rb_node));
            while !node.is_null() {
                let ns = ns_of_rb::<K>(node);
                // Two compares rather than `Ordering`, as C's `ns_find()`
                // (kernel/nstree.c:262-272) does; the node was reached from
                // the tree under RCU.
                let nid = ns.id_on_tree();
                node = if id < nid {
                    load_link(ptr::addr_of_mut!((*node).rb_left))
                } else if id > nid {
                    load_link(ptr::addr_of_mut!((*node).rb_right))
                } else {
                    return Some(ns);
                };
            }
        }
        None
    }

    /// The namespace with the smallest id `> id` (`lookup_ns_id_after()`,
    /// `lookup_ns_owner_after()`), without taking a reference.
    ///
    /// The rbtree is searched as an exclusive reader of `ns_tree_lock`
    /// (`_r` proves the caller holds it: the lock is taken where it is
    /// seen, never inside, so a caller that already holds it cannot take it
    /// again by accident), so no writer changes it meanwhile and every
    /// node on it is also on the list; the result is bounded by the
    /// caller's RCU read-side section,
    /// which keeps it valid even if it leaves the tree once the lock is
    /// dropped: namespaces are freed after a grace period, and a removed
    /// list entry keeps its links, so a walk can still go on from it.
    ///
    /// # Examples
    ///
    /// Where a paginated `listns()` resumes: strictly after the last id it
    /// returned, whether or not that namespace still exists:
    ///
    /// ```no_run
    /// use kernel::sync::rcu;
    /// use nstree_rs::ffi::lock::ReadGuard;
    /// use nstree_rs::ffi::{TreeRoot, Unified};
    ///
    /// fn resume_id(root: &TreeRoot<Unified>, last: u64) -> Option<u64> {
    ///     let g = rcu::read_lock();
    ///     let r = ReadGuard::lock();
    ///     let c = root.first_after(last, &g, &r);
    ///     drop(r);
    ///     Some(c?.ns().id())
    /// }
    /// ```
    pub(crate) fn first_after<'r, 'g>(
        &'r self,
        id: u64,
        _g: &'g Guard,
        _r: &ReadGuard,
    ) -> Option<Cursor<'r, 'g, K>> {
        let mut best = None;
        // SAFETY: with the lock held the tree is stable, all its nodes are
        // `K` nodes of live namespaces on the list (type invariant; a
        // writer holds the same lock from `rb_link_node_rcu()` to
        // `list_add_rcu()`); each stays valid for `'g` as it cannot be
        // freed before the RCU section ends. This is
        // `lookup_ns_id_after()` (kernel/nstree.c:620-656).
        unsafe {
            let mut node = (*self.as_raw()).ns_rb.rb_node;
            while !node.is_null() {
                let ns = ns_of_rb::<K>(node);
                // Reached from the tree, with the lock held.
                if id < ns.id_on_tree() {
                    best = Some(ns);
                    node = (*node).rb_left;
                } else {
                    node = (*node).rb_right;
                }
            }
        }
        // The cursor is made once, after the descent: kept in the loop,
        // its root would be carried through every level.
        best.map(|ns| Cursor { root: self, ns })
    }

    /// Inserts `ns` by id. Returns `false` if the id is already on the
    /// tree: then it inserts nothing and leaves the `K` node of `ns`
    /// empty (`ns_tree_node_init()`), so that a later
    /// [`remove`](Self::remove) of `ns` does nothing.
    ///
    /// The tree lock must be held for writing: `w` proves it (see
    /// [`WriteGuard`] for what does not compile).
    ///
    /// # Safety
    ///
    /// The `K` node of `ns` must be on no tree, and `ns` must stay live
    /// until it is removed from this tree with [`TreeRoot::remove`]; its
    /// memory must then stay valid until no RCU read-side section that
    /// may have found it on the tree is left (the references
    /// [`first`](Self::first), [`find_rcu`](Self::find_rcu) and the
    /// cursors give out last as long as their RCU guard): in general, an
    /// RCU grace period after the removal.
    ///
    /// (Whether the node is on a tree cannot be checked: the statically
    /// initialised boot-time namespaces, `NS_COMMON_INIT()`, start with
    /// zeroed rbtree nodes, which do not look empty.)
    ///
    /// # Examples
    ///
    /// ```compile_fail,E0133
    /// # use nstree_rs::ffi::lock::WriteGuard;
    /// # use nstree_rs::ffi::{NsCommon, TreeRoot, Unified};
    /// fn publish(root: &TreeRoot<Unified>, ns: &NsCommon) -> bool {
    ///     let w = WriteGuard::lock();
    ///     root.insert(ns, &w) // the caller must vouch for the node and its lifetime
    /// }
    /// ```
    pub(crate) unsafe fn insert(&self, ns: &NsCommon, _w: &WriteGuard) -> bool {
        let id = ns.id();
        let node = ns.node::<K>();
        // SAFETY: the root is initialised and holds `K` nodes of live
        // namespaces (type invariant), which `cmp` maps back with
        // `ns_of_rb::<K>` as `ns_cmp()` does (kernel/nstree.c:182-185);
        // the guard serialises writers; `ns` is off-tree and stays live per
        // the caller.
        let dup = unsafe {
            insert_node(self.as_raw(), node, |other| {
                // On the tree, with the lock held.
                let oid = ns_of_rb::<K>(other).id_on_tree();
                if id < oid {
                    -1
                } else if id > oid {
                    1
                } else {
                    0
                }
            })
        };
        if dup.is_some() {
            // SAFETY: the node is still on no tree (`insert_node()` links
            // nothing on a duplicate), so no lockless reader can reach it,
            // and the guard excludes the writers: it is ours to write, as
            // `ns_tree_node_init()` (kernel/nstree.c:73-77) writes it.
            // Clearing it keeps a zero-filled `NS_COMMON_INIT()` node from
            // reading as linked in `remove()` (C would go on to
            // `rb_erase()` a node that is on no tree).
            unsafe { node_init(node) };
        }
        dup.is_none()
    }

    /// Removes `ns`, if its `K` node is on a tree.
    ///
    /// # Safety
    ///
    /// The `K` node of `ns` is either empty (`ns_tree_node_init()`,
    /// kernel/nstree.c:73-77, removed, or refused by
    /// [`insert`](Self::insert) as a duplicate) or was inserted into this
    /// root with [`insert`](Self::insert): a node that was never
    /// initialised (a zero-filled `NS_COMMON_INIT` one) reads as linked.
    /// And no counted reference ([`NsRef`]) to `ns` remains (a counted
    /// reference keeps a namespace on its trees: [`Held`] relies on it).
    /// The memory of `ns` must stay valid until no RCU read-side section
    /// that may have found it on the tree is left: in general, an RCU
    /// grace period after this call.
    ///
    /// # Examples
    ///
    /// ```compile_fail,E0133
    /// # use nstree_rs::ffi::lock::WriteGuard;
    /// # use nstree_rs::ffi::{NsCommon, TreeRoot, Unified};
    /// fn unpublish(root: &TreeRoot<Unified>, ns: &NsCommon) {
    ///     let w = WriteGuard::lock();
    ///     root.remove(ns, &w) // the caller must vouch that no count remains
    /// }
    /// ```
    pub(crate) unsafe fn remove(&self, ns: &NsCommon, w: &WriteGuard) {
        if ns.on_tree::<K>(w) {
            // SAFETY: linked, so inserted into this root per the caller; the guard
            // serialises writers, as `write_seqlock()` does in
            // `__ns_tree_remove()` (kernel/nstree.c:241).
            unsafe { remove_node(self.as_raw(), ns.node::<K>()) };
        }
    }
}

/// A place on the list of a [`TreeRoot<K>`], reached under the RCU guard
/// of lifetime `'g`: a namespace that is on that list, or was within the
/// grace period (a removed entry keeps its links).
///
/// Only a root (its list head, or its rbtree under the locked reader) and
/// a [`Held`] place make cursors, so stepping from a cursor always walks
/// the list it came from and stops at that list's head.
///
/// # Examples
///
/// A cursor, and the namespace it gives, are used under the RCU guard they
/// were found under:
///
/// ```no_run
/// use kernel::sync::rcu;
/// use nstree_rs::ffi::{TreeRoot, Unified};
///
/// fn first_id(root: &TreeRoot<Unified>) -> Option<u64> {
///     let g = rcu::read_lock();
///     let first = root.first(&g)?;
///     Some(first.ns().id())
/// }
/// ```
///
/// not after `rcu_read_unlock()`, when the namespace may have been freed:
///
/// ```compile_fail,E0505
/// # use kernel::sync::rcu;
/// # use nstree_rs::ffi::{TreeRoot, Unified};
/// fn first_id(root: &TreeRoot<Unified>) -> Option<u64> {
///     let g = rcu::read_lock();
///     let first = root.first(&g)?;
///     drop(g); // rcu_read_unlock()
///     Some(first.ns().id())
/// }
/// ```
///
/// and a namespace found under RCU cannot leave the read-side section:
///
/// ```compile_fail,E0515
/// # use kernel::sync::rcu;
/// # use nstree_rs::ffi::{NsCommon, TreeRoot, Unified};
/// fn first(root: &TreeRoot<Unified>) -> Option<&NsCommon> {
///     let g = rcu::read_lock();
///     root.first(&g).map(|c| c.ns())
/// }
/// ```
///
/// To keep a place beyond the section, hold it: [`Held`].
pub(crate) struct Cursor<'r, 'g, K: TreeKind> {
    root: &'r TreeRoot<K>,
    ns: &'g NsCommon,
}

impl<K: TreeKind> Clone for Cursor<'_, '_, K> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K: TreeKind> Copy for Cursor<'_, '_, K> {}

impl<'r, 'g, K: TreeKind> Cursor<'r, 'g, K> {
    /// A cursor at `ns` on `root`.
    ///
    /// # Safety
    ///
    /// The `K` node of `ns` must be on `root`'s list, or have been within
    /// the RCU grace period that `g` is in.
    pub(super) unsafe fn from_raw(root: &'r TreeRoot<K>, ns: &'g NsCommon, _g: &'g Guard) -> Self {
        Cursor { root, ns }
    }

    /// The namespace.
    #[inline]
    pub(crate) fn ns(&self) -> &'g NsCommon {
        self.ns
    }

    /// The next namespace on the list (`list_next_rcu()`).
    #[inline]
    pub(crate) fn next(&self, g: &'g Guard) -> Option<Self> {
        // SAFETY: the cursor's namespace is (or was, within the grace
        // period) on this root's list (type invariant): what
        // `next_ns_common()` steps from (kernel/nstree.c:666-672).
        unsafe { self.root.step(self.entry(), true, g) }
    }

    /// The previous namespace on the list (`list_bidir_prev_rcu()`), with
    /// the writers excluded: `_excl` proves `read_seqlock_excl()` is held,
    /// so no plain `->prev` store of list insertion or removal
    /// (include/linux/rculist.h:106, include/linux/list.h:241) races with
    /// the load (see the module documentation).
    ///
    /// # Examples
    ///
    /// Without the lock it does not compile:
    ///
    /// ```compile_fail,E0061
    /// # use kernel::sync::rcu;
    /// # use nstree_rs::ffi::lock::ReadGuard;
    /// # use nstree_rs::ffi::{TreeRoot, Unified};
    /// fn before(root: &TreeRoot<Unified>, id: u64) -> Option<u64> {
    ///     let g = rcu::read_lock();
    ///     let r = ReadGuard::lock();
    ///     let c = root.first_after(id, &g, &r)?;
    ///     drop(r);
    ///     Some(c.prev(&g)?.ns().id()) // races with plain `->prev` stores
    /// }
    /// ```
    ///
    /// ```no_run
    /// # use kernel::sync::rcu;
    /// # use nstree_rs::ffi::lock::ReadGuard;
    /// # use nstree_rs::ffi::{TreeRoot, Unified};
    /// fn before(root: &TreeRoot<Unified>, id: u64) -> Option<u64> {
    ///     let g = rcu::read_lock();
    ///     let r = ReadGuard::lock();
    ///     let c = root.first_after(id, &g, &r)?;
    ///     Some(c.prev(&g, &r)?.ns().id())
    /// }
    /// ```
    pub(crate) fn prev(&self, g: &'g Guard, _excl: &ReadGuard) -> Option<Self> {
        // SAFETY: as in `next()`; `list_bidir_del_rcu()` keeps `prev`
        // valid for readers (include/linux/rculist.h:37-43), and `_excl`
        // excludes the writers of the list (every one holds
        // `write_seqlock(&ns_tree_lock)`, kernel/nstree.c:204,241, the
        // spinlock `read_seqlock_excl()` takes: include/linux/seqlock.h:1011).
        unsafe { self.root.step(self.entry(), false, g) }
    }

    #[inline]
    fn entry(&self) -> *mut bindings::list_head {
        // SAFETY: projection within the valid node of the valid namespace
        // (include/linux/ns/nstree_types.h:33).
        unsafe { ptr::addr_of_mut!((*self.ns.node::<K>()).ns_list_entry) }
    }

    /// Keeps this place beyond the RCU read-side section by taking a
    /// counted reference; `None` if the namespace is being freed (its
    /// count already dropped to zero, so it is leaving the tree).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use kernel::sync::rcu;
    /// use nstree_rs::ffi::{Held, TreeRoot, Unified};
    ///
    /// fn place_of_first(root: &TreeRoot<Unified>) -> Option<Held<'_, Unified>> {
    ///     let g = rcu::read_lock();
    ///     root.first(&g)?.hold()
    /// } // the place outlives the guard
    /// ```
    #[inline]
    pub(crate) fn hold(&self) -> Option<Held<'r, K>> {
        // INVARIANT: the namespace is on the root's list (or was, and then
        // its count is 0 and `try_get` fails): a counted reference keeps it
        // there.
        NsRef::try_get(self.ns).map(|ns| Held {
            root: self.root,
            ns,
        })
    }
}

/// A place on the list of a [`TreeRoot<K>`] that outlives RCU read-side
/// sections: a namespace proven on that list by the [`Cursor`] it was
/// taken from, kept there by the counted reference the `Held` owns (a
/// namespace leaves its trees only once no counted reference remains).
///
/// # Invariants
///
/// `ns` is on `root`'s list.
///
/// # Examples
///
/// A walk that leaves RCU holds its place, and resumes under a new guard:
///
/// ```no_run
/// use kernel::sync::rcu;
/// use nstree_rs::ffi::{Held, TreeRoot, Unified};
///
/// fn second_id(root: &TreeRoot<Unified>) -> Option<u64> {
///     let held: Held<'_, Unified> = {
///         let g = rcu::read_lock();
///         root.first(&g)?.hold()?
///     }; // rcu_read_unlock(): the counted reference keeps the place
///     let g = rcu::read_lock();
///     let second = held.resume(&g).next(&g)?;
///     Some(second.ns().id())
/// }
/// ```
///
/// A place belongs to its tree's kind: a place held on a per-type tree
/// cannot be where a walk of the unified tree resumes:
///
/// ```compile_fail,E0308
/// # use kernel::sync::rcu;
/// # use nstree_rs::ffi::tree::ByType;
/// # use nstree_rs::ffi::{Held, TreeRoot, Unified};
/// fn resume_point(net: &TreeRoot<ByType>) -> Option<Held<'_, Unified>> {
///     let g = rcu::read_lock();
///     net.first(&g)?.hold()
/// }
/// ```
pub(crate) struct Held<'r, K: TreeKind> {
    root: &'r TreeRoot<K>,
    ns: NsRef,
}

impl<'r, K: TreeKind> Held<'r, K> {
    /// A cursor at the held place, under a new RCU read-side section.
    #[inline]
    pub(crate) fn resume<'g>(&'g self, _g: &'g Guard) -> Cursor<'r, 'g, K> {
        // INVARIANT: the namespace is on the root's list (type invariant).
        Cursor {
            root: self.root,
            ns: self.ns.ns(),
        }
    }
}

/// The unified tree of all namespaces.
// SAFETY: the address of the static being initialised, as
// `LIST_HEAD_INIT(ns_unified_root.ns_list_head)` (kernel/nstree.c:21-24).
pub(crate) static NS_UNIFIED_ROOT: TreeRoot<Unified> =
    unsafe { TreeRoot::new_static(ptr::addr_of!(NS_UNIFIED_ROOT)) };

/// The per-type root for a `CLONE_NEW*` flag (`ns_tree_from_type()`,
/// kernel/nstree.c:286-308).
///
/// The per-type roots are C data (`nstree_glue.c`): `include/linux/nstree.h`
/// declares them and `to_ns_tree()` names them, and `net_ns_tree` is
/// exported to modules, as in `kernel/nstree.c`.
///
/// # Examples
///
/// ```no_run
/// use kernel::sync::rcu;
/// use nstree_rs::ffi::type_root;
/// use nstree_rs::req::ns_type;
///
/// fn first_net_id() -> Option<u64> {
///     let net = type_root(ns_type::NET)?;
///     let g = rcu::read_lock();
///     Some(net.first(&g)?.ns().id())
/// }
/// ```
pub(crate) fn type_root(ns_type: u32) -> Option<&'static TreeRoot<ByType>> {
    // Taking the address of an extern static does not access it.
    let root = match ns_type {
        bindings::CLONE_NEWCGROUP => ptr::addr_of_mut!(bindings::cgroup_ns_tree),
        bindings::CLONE_NEWIPC => ptr::addr_of_mut!(bindings::ipc_ns_tree),
        bindings::CLONE_NEWNS => ptr::addr_of_mut!(bindings::mnt_ns_tree),
        bindings::CLONE_NEWNET => ptr::addr_of_mut!(bindings::net_ns_tree),
        bindings::CLONE_NEWPID => ptr::addr_of_mut!(bindings::pid_ns_tree),
        bindings::CLONE_NEWUSER => ptr::addr_of_mut!(bindings::user_ns_tree),
        bindings::CLONE_NEWUTS => ptr::addr_of_mut!(bindings::uts_ns_tree),
        bindings::CLONE_NEWTIME => ptr::addr_of_mut!(bindings::time_ns_tree),
        _ => return None,
    };
    // SAFETY: the roots are statics, statically initialised empty
    // (`RB_ROOT`, `LIST_HEAD_INIT()`, kernel/nstree_rs/nstree_glue.c:35-37), live
    // forever, never move, link `ns_tree_node`s of their type and are only
    // accessed through `TreeRoot`'s locked or RCU methods.
    Some(unsafe { TreeRoot::from_raw(root) })
}

/// Puts `ns` on its type tree `root`, the unified tree and its owner's
/// tree (`__ns_tree_add_raw()`, kernel/nstree.c:197-231).
///
/// # Safety
///
/// `ns` must be a live namespace with an id, on no tree yet, that is
/// removed with [`remove`] before it is freed, and only once no counted
/// reference to it remains; its memory must stay valid until an RCU grace
/// period has passed after that removal. `root` must be the tree of its
/// type.
///
/// # Examples
///
/// ```compile_fail,E0133
/// # use nstree_rs::ffi::tree::{add, ByType};
/// # use nstree_rs::ffi::{NsCommon, TreeRoot};
/// fn publish(ns: &NsCommon, root: &TreeRoot<ByType>) {
///     add(ns, root) // the caller must vouch for the namespace's lifetime
/// }
/// ```
pub(crate) unsafe fn add(ns: &NsCommon, root: &TreeRoot<ByType>) {
    crate::vfs_warn_on_once!(ns.id() == 0);
    let owner = if ns.has_ops() {
        let owner = ns.owner();
        match owner {
            Some(o) => crate::vfs_warn_on_once!(o.ns_type() != bindings::CLONE_NEWUSER),
            // Only the initial user namespace has no owner.
            None => crate::vfs_warn_on_once!(!ns.is_init_user_ns()),
        }
        owner
    } else {
        None
    };

    let w = WriteGuard::lock();
    // SAFETY: each node of `ns` is off-tree and `ns` stays live until
    // `remove()` (caller); each root is of the node's kind: the per-type
    // root links `ns_tree_node` (kernel/nstree.c:207).
    let fresh = unsafe { root.insert(ns, &w) };
    // SAFETY: as above; the unified root links `ns_unified_node`
    // (kernel/nstree.c:210).
    unsafe { NS_UNIFIED_ROOT.insert(ns, &w) };
    if let Some(o) = owner {
        // SAFETY: as above; the owner's root links `ns_owner_node`
        // (kernel/nstree.c:223).
        unsafe { o.owner_root().insert(ns, &w) };
    }
    drop(w);
    crate::vfs_warn_on_once!(!fresh);
}

/// Takes `ns` off all its trees (`__ns_tree_remove()`,
/// kernel/nstree.c:233-259).
///
/// # Safety
///
/// `ns` must have been put on its trees with [`add`] and `root`, and no
/// counted reference to it may remain (its `__ns_ref` dropped to zero).
/// Its memory must stay valid until an RCU grace period has passed after
/// this call (every namespace type frees with `kfree_rcu()`, `call_rcu()`
/// or after `synchronize_rcu()`: kernel/user_namespace.c:231).
///
/// # Examples
///
/// ```compile_fail,E0133
/// # use nstree_rs::ffi::tree::{remove, ByType};
/// # use nstree_rs::ffi::{NsCommon, TreeRoot};
/// fn unpublish(ns: &NsCommon, root: &TreeRoot<ByType>) {
///     remove(ns, root) // the caller must vouch that no count remains
/// }
/// ```
pub(crate) unsafe fn remove(ns: &NsCommon, root: &TreeRoot<ByType>) {
    let w = WriteGuard::lock();
    // C checks these two before it takes the lock, with racy reads
    // (kernel/nstree.c:238-239); here they are read under the lock.
    crate::vfs_warn_on_once!(!ns.on_tree::<ByType>(&w));
    crate::vfs_warn_on_once!(list_empty_locked::<ByType>(ns, &w));
    // SAFETY: `add()` put each node of `ns` on these very roots (the same
    // three as kernel/nstree.c:244-256), or left it empty where its id was
    // already there (`TreeRoot::insert()`), and no counted reference
    // remains (caller).
    unsafe {
        root.remove(ns, &w);
        NS_UNIFIED_ROOT.remove(ns, &w);
        // The owner is read where it is used, as C does
        // (kernel/nstree.c:251): not kept across the two erases above.
        if let Some(o) = ns.owner() {
            o.owner_root().remove(ns, &w);
        }
    }
}

/// `list_empty()` of the `K` node's list entry, with the writers excluded.
fn list_empty_locked<K: TreeKind>(ns: &NsCommon, _w: &WriteGuard) -> bool {
    // SAFETY: the entry is inside the valid namespace and its links are
    // only written by writers, which the guard excludes; this is
    // `list_empty()` (include/linux/list.h:417-420) without READ_ONCE.
    unsafe {
        let l = ptr::addr_of_mut!((*ns.node::<K>()).ns_list_entry);
        ptr::eq((*l).next, l)
    }
}
