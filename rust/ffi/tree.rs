// SPDX-License-Identifier: GPL-2.0-only
// Copyright (c) 2026 nstree-rs developers

//! Intrusive id-ordered trees: `struct ns_tree_root` / `struct ns_tree_node`.

use core::ptr;

use kernel::bindings;
use kernel::sync::rcu::Guard;
use kernel::types::Opaque;

use super::glue;
use super::lock::{ReadGuard, WriteGuard};
use super::ns::NsCommon;
use super::NS_TREE_OFFSET;
use crate::tree::Link;

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

/// Maps an `rb_node`/`list_head` of the tree `link` back to its namespace
/// (`container_of()`).
#[inline]
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
#[inline]
unsafe fn ns_of_rb<'a>(rb: *mut bindings::rb_node, link: Link) -> &'a NsCommon {
    let off = container_offset(link) + core::mem::offset_of!(bindings::ns_tree_node, ns_node);
    // SAFETY: per the caller, `rb` sits `off` bytes into a valid namespace.
    unsafe { NsCommon::from_raw(rb.cast::<u8>().sub(off).cast()) }
}

/// # Safety
///
/// `l` must be the `ns_list_entry` of the `link` node of a namespace that
/// is valid for `'a`.
#[inline]
unsafe fn ns_of_list<'a>(l: *mut bindings::list_head, link: Link) -> &'a NsCommon {
    let off = container_offset(link) + core::mem::offset_of!(bindings::ns_tree_node, ns_list_entry);
    // SAFETY: per the caller, `l` sits `off` bytes into a valid namespace.
    unsafe { NsCommon::from_raw(l.cast::<u8>().sub(off).cast()) }
}

/// `READ_ONCE()` of a link pointer; what `rcu_dereference_raw()` does.
///
/// # Safety
///
/// `p` must be a valid, aligned pointer-sized field.
///
/// A volatile load, as the C macro is: `Atomic::load(Relaxed)` would be the
/// same but goes through an out-of-line C helper (`atomic_ptr_read()`)
/// on every tree level and list step.
#[inline]
unsafe fn read_once<T>(p: *mut *mut T) -> *mut T {
    // SAFETY: per the caller; the field is aligned and only written with
    // `WRITE_ONCE()`/`rcu_assign_pointer()`, so the load is never torn.
    unsafe { ptr::read_volatile(p) }
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
pub(crate) struct TreeRoot(pub(super) Opaque<bindings::ns_tree_root>);

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

    #[inline]
    fn rb_root(&self) -> *mut bindings::rb_root {
        // SAFETY: projection within the valid root.
        unsafe { ptr::addr_of_mut!((*self.0.get()).ns_rb) }
    }

    #[inline]
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
    pub(super) unsafe fn insert_node(
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
            let mut link: *mut *mut bindings::rb_node =
                ptr::addr_of_mut!((*self.rb_root()).rb_node);
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
    pub(super) unsafe fn remove_node(&self, node: *mut bindings::ns_tree_node, _w: &WriteGuard) {
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
            self.insert_node(
                ns.node(link),
                |other| id.cmp(&ns_of_rb(other, link).id()),
                w,
            )
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
    #[inline]
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

    /// The namespace with the smallest id `> id` (`lookup_ns_id_after()`,
    /// `lookup_ns_owner_after()`), without taking a reference.
    ///
    /// The rbtree is searched as an exclusive reader of `ns_tree_lock`, so
    /// no writer rebalances it meanwhile; the result is bounded by the
    /// caller's RCU read-side section, which keeps it valid even if it
    /// leaves the tree once the lock is dropped: namespaces are freed after
    /// a grace period, and a removed list entry keeps its `next`, so the
    /// caller can still start a list walk from it.
    pub(crate) fn first_after<'g>(
        &self,
        id: u64,
        link: Link,
        _g: &'g Guard,
    ) -> Option<&'g NsCommon> {
        let _r = ReadGuard::lock();
        let mut best = None;
        // SAFETY: with the lock held the tree is stable and all its nodes
        // are `link` nodes of live namespaces (type invariant); each stays
        // valid for `'g` as it cannot be freed before the RCU section ends.
        unsafe {
            let mut node = (*self.rb_root()).rb_node;
            while !node.is_null() {
                let ns = ns_of_rb(node, link);
                if id < ns.id() {
                    best = Some(ns);
                    node = (*node).rb_left;
                } else {
                    node = (*node).rb_right;
                }
            }
        }
        best
    }

    /// The list entry after `cur` (or the first, for `None`), under RCU.
    #[inline]
    pub(crate) fn next_rcu<'g>(
        &self,
        cur: Option<&NsCommon>,
        link: Link,
        _g: &'g Guard,
    ) -> Option<&'g NsCommon> {
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
    pub(crate) fn prev_rcu<'g>(
        &self,
        cur: &NsCommon,
        link: Link,
        _g: &'g Guard,
    ) -> Option<&'g NsCommon> {
        // SAFETY: as in `next_rcu()`; `list_bidir_del_rcu()` keeps `prev`
        // valid for readers, and `prev` is written with WRITE_ONCE().
        let prev = unsafe {
            read_once(ptr::addr_of_mut!(
                (*ptr::addr_of_mut!((*cur.node(link)).ns_list_entry)).prev
            ))
        };
        if ptr::eq(prev, self.head()) {
            return None;
        }
        // SAFETY: as in `next_rcu()`.
        Some(unsafe { ns_of_list(prev, link) })
    }
}

/// The unified tree of all namespaces.
pub(crate) static NS_UNIFIED_ROOT: TreeRoot = TreeRoot::new_static(ptr::addr_of!(NS_UNIFIED_ROOT));

/// The per-type root for a `CLONE_NEW*` flag.
///
/// The per-type roots are C data (`nstree_glue.c`): `include/linux/nstree.h`
/// declares them and `to_ns_tree()` names them, and `net_ns_tree` is
/// exported to modules, as in `kernel/nstree.c`.
pub(crate) fn type_root(ns_type: u32) -> Option<&'static TreeRoot> {
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
    // SAFETY: the roots are statically initialised, live forever, and are
    // only accessed through `TreeRoot`'s locked or RCU methods.
    Some(unsafe { TreeRoot::from_raw(root) })
}
