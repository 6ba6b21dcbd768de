// SPDX-License-Identifier: GPL-2.0-only
// Copyright (c) 2026 nstree-rs developers

//! Intrusive id-ordered trees: `struct ns_tree_root` / `struct ns_tree_node`.
//!
//! A namespace has three tree nodes; which one a tree links is the tree's
//! *kind*, a type parameter of [`TreeRoot`] (as `ListLinks<ID>` is of the
//! kernel crate's lists), so a lookup on the unified tree cannot compute a
//! namespace from a per-type node: that mix-up does not compile. Walks go
//! through a [`Cursor`], which can only be made from its own root and so
//! always stays on the list it was found on; a walk that leaves RCU keeps
//! its place with a [`Held`] cursor, which owns a counted reference.

use core::marker::PhantomData;
use core::ptr;

use kernel::bindings;
use kernel::sync::rcu::Guard;
use kernel::types::Opaque;

use super::lock::{ReadGuard, WriteGuard};
use super::ns::{NsCommon, NsRef};

/// `RB_EMPTY_NODE()`.
///
/// # Safety
///
/// `node` must point to a valid `struct ns_tree_node`.
pub(super) unsafe fn node_empty(node: *const bindings::ns_tree_node) -> bool {
    // SAFETY: valid per the caller; `__rb_parent_color` is only changed
    // under the write lock, readers of emptiness follow the C rules.
    unsafe { (*node).ns_node.__rb_parent_color == ptr::addr_of!((*node).ns_node) as usize }
}

/// `RB_CLEAR_NODE()` + `INIT_LIST_HEAD()`.
///
/// # Safety
///
/// `node` must be valid and not on any tree.
pub(super) unsafe fn node_init(node: *mut bindings::ns_tree_node) {
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

/// `ns_tree_root_init()`: an empty rbtree and a list head pointing to
/// itself.
///
/// # Safety
///
/// `root` must be valid and not in use.
pub(super) unsafe fn root_init(root: *mut bindings::ns_tree_root) {
    // SAFETY: exclusive access per the caller.
    unsafe {
        (*root).ns_rb.rb_node = ptr::null_mut();
        let head = ptr::addr_of_mut!((*root).ns_list_head);
        (*head).next = head;
        (*head).prev = head;
    }
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

// SAFETY: the C compiler's offset (`include/linux/nstree_rs.h`); only the
// unified root is of this kind.
unsafe impl TreeKind for Unified {
    const NODE_OFFSET: usize = bindings::NSTREE_RS_NS_UNIFIED_NODE_OFFSET;
}

// SAFETY: the C compiler's offset; the per-type roots link `ns_tree_node`
// (`__ns_tree_add_raw()`, `ns_tree_lookup_rcu()`).
unsafe impl TreeKind for ByType {
    const NODE_OFFSET: usize = bindings::NSTREE_RS_NS_TREE_NODE_OFFSET;
}

// SAFETY: the C compiler's offset; only `ns_owner_root` is of this kind.
unsafe impl TreeKind for ByOwner {
    const NODE_OFFSET: usize = bindings::NSTREE_RS_NS_OWNER_NODE_OFFSET;
}

impl NsCommon {
    /// The tree node of kind `K`.
    #[inline]
    pub(super) fn node<K: TreeKind>(&self) -> *mut bindings::ns_tree_node {
        // The node lies inside the valid namespace (`TreeKind` invariant).
        self.as_ptr()
            .cast::<u8>()
            .wrapping_add(K::NODE_OFFSET)
            .cast()
    }

    /// Whether the node of kind `K` is on a tree.
    pub(crate) fn on_tree<K: TreeKind>(&self) -> bool {
        // SAFETY: the node belongs to the valid namespace.
        !unsafe { node_empty(self.node::<K>()) }
    }

    /// The tree of namespaces owned by this (user) namespace.
    pub(crate) fn owner_root(&self) -> &TreeRoot<ByOwner> {
        // SAFETY: `ns_owner_root` is embedded in the valid namespace,
        // initialised by `ns_common_init()` (or statically), lives as long
        // as it, and links the `ns_owner_node`s of the namespaces it owns.
        unsafe {
            TreeRoot::from_raw(
                self.as_ptr()
                    .cast::<u8>()
                    .wrapping_add(bindings::NSTREE_RS_NS_OWNER_ROOT_OFFSET)
                    .cast(),
            )
        }
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
    // namespace valid for `'a`.
    unsafe { NsCommon::from_raw(node.byte_sub(K::NODE_OFFSET).cast()) }
}

/// # Safety
///
/// `rb` must be the `ns_node` of a `K` node of a namespace valid for `'a`.
#[inline]
unsafe fn ns_of_rb<'a, K: TreeKind>(rb: *mut bindings::rb_node) -> &'a NsCommon {
    // SAFETY: per the caller, `rb` is the `ns_node` of a `ns_tree_node`
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
    // `ns_tree_node` inside a valid namespace.
    unsafe {
        ns_of_node::<K>(kernel::container_of!(
            l,
            bindings::ns_tree_node,
            ns_list_entry
        ))
    }
}

/// `READ_ONCE()` of a link pointer; what `rcu_dereference_raw()` does.
///
/// A volatile load, as the C macro is: `Atomic::load(Relaxed)` would be the
/// same but goes through an out-of-line C helper (`atomic_ptr_read()`)
/// on every tree level and list step.
///
/// # Safety
///
/// `p` must be a valid, aligned pointer-sized field.
#[inline]
unsafe fn read_once<T>(p: *mut *mut T) -> *mut T {
    // SAFETY: per the caller; the field is aligned and only written with
    // `WRITE_ONCE()`/`rcu_assign_pointer()`, so the load is never torn.
    unsafe { ptr::read_volatile(p) }
}

/// Inserts `node` into `root` ordered by `cmp`, which compares the new
/// node with an existing one. Returns the existing node on a duplicate
/// (and inserts nothing). This is `ns_tree_node_add()`:
/// `rb_find_add_rcu()` plus a sorted `list_add_rcu()`.
///
/// # Safety
///
/// `root` must be a valid root; `node` must be valid, on no tree, of the
/// same kind as the nodes on `root`, and stay valid until removed; `cmp`
/// must be callable on any two of these nodes.
pub(super) unsafe fn insert_node(
    root: *mut bindings::ns_tree_root,
    node: *mut bindings::ns_tree_node,
    mut cmp: impl FnMut(*mut bindings::rb_node) -> core::cmp::Ordering,
    _w: &WriteGuard,
) -> Option<*mut bindings::rb_node> {
    use core::cmp::Ordering::*;
    // SAFETY: the write guard excludes other writers; the nodes on the
    // tree and `node` are valid per the caller.
    unsafe {
        let rb = ptr::addr_of_mut!((*node).ns_node);
        let rb_root = ptr::addr_of_mut!((*root).ns_rb);
        let mut link: *mut *mut bindings::rb_node = ptr::addr_of_mut!((*rb_root).rb_node);
        let mut parent = ptr::null_mut();
        while !(*link).is_null() {
            parent = *link;
            link = match cmp(parent) {
                Less => ptr::addr_of_mut!((*parent).rb_left),
                Greater => ptr::addr_of_mut!((*parent).rb_right),
                Equal => return Some(parent),
            };
        }
        bindings::nstree_rs_rb_link_node_rcu(rb, parent, link);
        bindings::rb_insert_color(rb, rb_root);

        // Keep the list in tree order: after the in-order predecessor.
        let entry = ptr::addr_of_mut!((*node).ns_list_entry);
        let prev = bindings::rb_prev(rb);
        if prev.is_null() {
            bindings::nstree_rs_list_add_rcu(entry, ptr::addr_of_mut!((*root).ns_list_head));
        } else {
            let prev_node = kernel::container_of!(prev, bindings::ns_tree_node, ns_node);
            bindings::nstree_rs_list_add_rcu(entry, ptr::addr_of_mut!((*prev_node).ns_list_entry));
        }
    }
    None
}

/// Removes `node` from the rbtree and the list (`ns_tree_node_del()`).
///
/// # Safety
///
/// `root` must be a valid root and `node` on it.
pub(super) unsafe fn remove_node(
    root: *mut bindings::ns_tree_root,
    node: *mut bindings::ns_tree_node,
    _w: &WriteGuard,
) {
    // SAFETY: the node is on this tree (caller) and writers are excluded
    // (guard); RCU readers may still see it, which `list_bidir_del_rcu()`
    // allows in both directions.
    unsafe {
        let rb = ptr::addr_of_mut!((*node).ns_node);
        bindings::rb_erase(rb, ptr::addr_of_mut!((*root).ns_rb));
        (*rb).__rb_parent_color = rb as usize;
        bindings::nstree_rs_list_bidir_del_rcu(ptr::addr_of_mut!((*node).ns_list_entry));
    }
}

/// The root of one id-ordered namespace tree of kind `K`: `struct
/// ns_tree_root`, an rbtree for lookups plus an RCU list in the same order
/// for iteration.
///
/// # Invariants
///
/// The wrapped root is initialised; its rbtree and list hold the same `K`
/// nodes of live namespaces in ascending id order; both are only modified
/// with the [`WriteGuard`] held. A namespace leaves the tree only once no
/// counted reference ([`NsRef`]) to it remains.
///
/// # Examples
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
#[repr(transparent)]
pub(crate) struct TreeRoot<K: TreeKind> {
    raw: Opaque<bindings::ns_tree_root>,
    _kind: PhantomData<K>,
}

// SAFETY: all mutation goes through `&WriteGuard` methods (serialised by
// the seqlock); readers follow the RCU list / seqlock rules.
unsafe impl<K: TreeKind> Sync for TreeRoot<K> {}
// SAFETY: see `Sync`.
unsafe impl<K: TreeKind> Send for TreeRoot<K> {}

impl<K: TreeKind> TreeRoot<K> {
    /// An empty root for a `static` located at `this` (the list head points
    /// to itself, so the address is needed at compile time).
    pub(crate) const fn new_static(this: *const TreeRoot<K>) -> TreeRoot<K> {
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
        }
    }

    /// An uninitialised root, to be set up with [`root_init`] in place.
    #[cfg(CONFIG_KUNIT)]
    pub(super) const fn uninit() -> TreeRoot<K> {
        TreeRoot {
            raw: Opaque::uninit(),
            _kind: PhantomData,
        }
    }

    /// Borrows a C tree root.
    ///
    /// # Safety
    ///
    /// `ptr` must point to an initialised `struct ns_tree_root` that links
    /// `K` nodes and upholds the type invariants for `'a`.
    pub(crate) unsafe fn from_raw<'a>(ptr: *mut bindings::ns_tree_root) -> &'a TreeRoot<K> {
        // SAFETY: transparent wrapper; validity per the caller.
        unsafe { &*ptr.cast::<TreeRoot<K>>() }
    }

    /// The raw `struct ns_tree_root` pointer.
    #[inline]
    pub(crate) fn as_raw(&self) -> *mut bindings::ns_tree_root {
        self.raw.get()
    }

    #[inline]
    fn head(&self) -> *mut bindings::list_head {
        // SAFETY: projection within the valid root.
        unsafe { ptr::addr_of_mut!((*self.as_raw()).ns_list_head) }
    }

    /// A cursor at the list entry after `from` (the head for the first).
    ///
    /// # Safety
    ///
    /// `from` must be the list head or the `K` list entry of a namespace
    /// that is on this list, or was within the current RCU grace period.
    #[inline]
    unsafe fn step<'r, 'g>(
        &'r self,
        from: *mut bindings::list_head,
        next: bool,
        _g: &'g Guard,
    ) -> Option<Cursor<'r, 'g, K>> {
        // SAFETY: `from` is a valid entry (caller); a deleted entry keeps
        // both links (`list_bidir_del_rcu()`), which are published with
        // `rcu_assign_pointer()` / `WRITE_ONCE()`.
        let to = unsafe {
            if next {
                read_once(ptr::addr_of_mut!((*from).next))
            } else {
                read_once(ptr::addr_of_mut!((*from).prev))
            }
        };
        if ptr::eq(to, self.head()) {
            return None;
        }
        Some(Cursor {
            root: self,
            // SAFETY: entries on the list other than the head are `K`
            // entries of namespaces that the RCU read-side section keeps
            // valid (freed only after a grace period).
            ns: unsafe { ns_of_list::<K>(to) },
        })
    }

    /// The first namespace on the list, under RCU.
    pub(crate) fn first<'r, 'g>(&'r self, g: &'g Guard) -> Option<Cursor<'r, 'g, K>> {
        // SAFETY: the head of this list.
        unsafe { self.step(self.head(), true, g) }
    }

    /// Lockless lookup of `id` (`rb_find_rcu()`); may miss while a writer
    /// rebalances, see [`read_retry`](super::read_retry).
    #[inline]
    pub(crate) fn find_rcu<'r, 'g>(&'r self, id: u64, _g: &'g Guard) -> Option<Cursor<'r, 'g, K>> {
        // SAFETY: under RCU, nodes reachable from the root are `K` nodes of
        // namespaces that stay valid until the grace period ends; child
        // links are read with READ_ONCE() as writers publish them with
        // rcu_assign_pointer()/WRITE_ONCE().
        unsafe {
            let mut node = read_once(ptr::addr_of_mut!((*self.as_raw()).ns_rb.rb_node));
            while !node.is_null() {
                let ns = ns_of_rb::<K>(node);
                // Two compares rather than `Ordering`, which LLVM lowered
                // to a materialised -1/0/1 (`seta`/`sbb`) tested twice: 9 or
                // 12 instructions per level where C's `rb_find_rcu()` with
                // `ns_find()` takes 6 or 8, as this loop now does.
                let nid = ns.id();
                node = if id < nid {
                    read_once(ptr::addr_of_mut!((*node).rb_left))
                } else if id > nid {
                    read_once(ptr::addr_of_mut!((*node).rb_right))
                } else {
                    return Some(Cursor { root: self, ns });
                };
            }
        }
        None
    }

    /// The namespace with the smallest id `> id` (`lookup_ns_id_after()`,
    /// `lookup_ns_owner_after()`), without taking a reference.
    ///
    /// The rbtree is searched as an exclusive reader of `ns_tree_lock`, so
    /// no writer rebalances it meanwhile; the result is bounded by the
    /// caller's RCU read-side section, which keeps it valid even if it
    /// leaves the tree once the lock is dropped: namespaces are freed after
    /// a grace period, and a removed list entry keeps its links, so a walk
    /// can still go on from it.
    pub(crate) fn first_after<'r, 'g>(
        &'r self,
        id: u64,
        _g: &'g Guard,
    ) -> Option<Cursor<'r, 'g, K>> {
        let _r = ReadGuard::lock();
        let mut best = None;
        // SAFETY: with the lock held the tree is stable and all its nodes
        // are `K` nodes of live namespaces (type invariant); each stays
        // valid for `'g` as it cannot be freed before the RCU section ends.
        unsafe {
            let mut node = (*self.as_raw()).ns_rb.rb_node;
            while !node.is_null() {
                let ns = ns_of_rb::<K>(node);
                if id < ns.id() {
                    best = Some(Cursor { root: self, ns });
                    node = (*node).rb_left;
                } else {
                    node = (*node).rb_right;
                }
            }
        }
        best
    }

    /// Inserts `ns` by id. Returns `false` (and inserts nothing) if the id
    /// is already on the tree.
    ///
    /// The tree lock must be held for writing: `w` proves it (see
    /// [`WriteGuard`] for what does not compile).
    ///
    /// # Safety
    ///
    /// The `K` node of `ns` must be on no tree, and `ns` must stay live
    /// until it is removed from this tree with [`TreeRoot::remove`].
    ///
    /// (Whether the node is on a tree cannot be checked: the statically
    /// initialised boot-time namespaces, `NS_COMMON_INIT()`, start with
    /// zeroed rbtree nodes, which do not look empty.)
    pub(crate) unsafe fn insert(&self, ns: &NsCommon, w: &WriteGuard) -> bool {
        let id = ns.id();
        // SAFETY: the root is valid and holds `K` nodes of live namespaces
        // (type invariant), which `cmp` maps back with `ns_of_rb::<K>`;
        // `ns` is off-tree and stays live per the caller.
        unsafe {
            insert_node(
                self.as_raw(),
                ns.node::<K>(),
                |other| id.cmp(&ns_of_rb::<K>(other).id()),
                w,
            )
            .is_none()
        }
    }

    /// Removes `ns`, if its `K` node is on a tree.
    ///
    /// # Safety
    ///
    /// If the `K` node of `ns` is on a tree, it is on this one; and no
    /// counted reference ([`NsRef`]) to `ns` remains (a counted reference
    /// keeps a namespace on its trees: [`Held`] relies on it).
    pub(crate) unsafe fn remove(&self, ns: &NsCommon, w: &WriteGuard) {
        crate::vfs_warn_on_once!(!ns.on_tree::<K>());
        if ns.on_tree::<K>() {
            // SAFETY: on a tree, and on this one per the caller.
            unsafe { remove_node(self.as_raw(), ns.node::<K>(), w) };
        }
    }
}

/// A place on the list of a [`TreeRoot<K>`], reached under the RCU guard
/// of lifetime `'g`: a namespace that is on that list, or was within the
/// grace period (a removed entry keeps its links).
///
/// Only a root makes cursors, so stepping from a cursor always walks the
/// list it came from and stops at that list's head.
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
        // period) on this root's list (type invariant).
        unsafe { self.root.step(self.entry(), true, g) }
    }

    /// The previous namespace on the list (`list_bidir_prev_rcu()`).
    pub(crate) fn prev(&self, g: &'g Guard) -> Option<Self> {
        // SAFETY: as in `next()`; `list_bidir_del_rcu()` keeps `prev`
        // valid for readers, and `prev` is written with WRITE_ONCE().
        unsafe { self.root.step(self.entry(), false, g) }
    }

    #[inline]
    fn entry(&self) -> *mut bindings::list_head {
        // SAFETY: projection within the valid node of the valid namespace.
        unsafe { ptr::addr_of_mut!((*self.ns.node::<K>()).ns_list_entry) }
    }

    /// Keeps this place beyond the RCU read-side section by taking a
    /// counted reference; `None` if the namespace is being freed (its
    /// count already dropped to zero, so it is leaving the tree).
    pub(crate) fn hold(&self) -> Option<Held<'r, K>> {
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
        // INVARIANT: the namespace was on the root's list when the cursor
        // it was taken from found it, and is still there: it cannot leave
        // its trees while the counted reference is held (type invariant of
        // `TreeRoot`).
        Cursor {
            root: self.root,
            ns: self.ns.ns(),
        }
    }
}

/// The unified tree of all namespaces.
pub(crate) static NS_UNIFIED_ROOT: TreeRoot<Unified> =
    TreeRoot::new_static(ptr::addr_of!(NS_UNIFIED_ROOT));

/// The per-type root for a `CLONE_NEW*` flag.
///
/// The per-type roots are C data (`nstree_glue.c`): `include/linux/nstree.h`
/// declares them and `to_ns_tree()` names them, and `net_ns_tree` is
/// exported to modules, as in `kernel/nstree.c`.
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
    // SAFETY: the roots are statically initialised, live forever, link
    // `ns_tree_node`s of their type and are only accessed through
    // `TreeRoot`'s locked or RCU methods.
    Some(unsafe { TreeRoot::from_raw(root) })
}

/// Puts `ns` on its type tree `root`, the unified tree and its owner's
/// tree (`__ns_tree_add_raw()`).
///
/// # Safety
///
/// `ns` must be a live namespace with an id, on no tree yet, that is
/// removed with [`remove`] before it is freed, and only once no counted
/// reference to it remains; `root` must be the tree of its type.
pub(crate) unsafe fn add(ns: &NsCommon, root: &TreeRoot<ByType>) {
    crate::vfs_warn_on_once!(ns.id() == 0);
    crate::vfs_warn_on_once!(!type_root(ns.ns_type()).is_some_and(|r| ptr::eq(r, root)));
    let owner = ns.owner();
    if let Some(o) = owner {
        crate::vfs_warn_on_once!(o.ns_type() != crate::req::ns_type::USER);
    } else {
        // Only the initial user namespace has no owner.
        crate::vfs_warn_on_once!(ns.has_ops() && !ns.is_init_user_ns());
    }

    let w = WriteGuard::lock();
    // SAFETY: each node of `ns` is off-tree and `ns` stays live until
    // `remove()` (caller); each root is of the node's kind.
    let fresh = unsafe { root.insert(ns, &w) };
    // SAFETY: as above.
    unsafe { NS_UNIFIED_ROOT.insert(ns, &w) };
    if let Some(o) = owner {
        // SAFETY: as above.
        unsafe { o.owner_root().insert(ns, &w) };
    }
    crate::vfs_warn_on_once!(!fresh);
}

/// Takes `ns` off all its trees (`__ns_tree_remove()`).
///
/// # Safety
///
/// `ns` must have been put on its trees with [`add`] and `root`, and no
/// counted reference to it may remain (its `__ns_ref` dropped to zero).
pub(crate) unsafe fn remove(ns: &NsCommon, root: &TreeRoot<ByType>) {
    crate::vfs_warn_on_once!(!ns.on_tree::<ByType>());
    let owner = ns.owner();
    let w = WriteGuard::lock();
    // SAFETY: `add()` put each node of `ns` on these very roots, and no
    // counted reference remains (caller).
    unsafe {
        root.remove(ns, &w);
        NS_UNIFIED_ROOT.remove(ns, &w);
        if let Some(o) = owner {
            o.owner_root().remove(ns, &w);
        }
    }
}
