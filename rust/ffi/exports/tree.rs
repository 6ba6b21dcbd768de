// SPDX-License-Identifier: GPL-2.0-only

//! The C entry points of the trees: what `include/linux/nstree.h`
//! declares. Each converts its raw arguments once and calls safe code or
//! an `unsafe fn` of [`crate::ffi::tree`] whose contract it passes on.

use core::ptr;

use kernel::bindings;
use kernel::error::code;
use kernel::ffi::c_int;
use kernel::prelude::export;
use kernel::sync::atomic::{Atomic, Full};
use kernel::sync::rcu::Guard;

use crate::ffi::lock::{rcu_read_lock_held, CallerRcu, ReadGuard};
use crate::ffi::ns::NsCommon;
use crate::ffi::tree::{self, node_empty, node_init, root_init, ByType, Cursor, TreeRoot};
use crate::ffi::NS_LAST_INIT_ID;

/// `ns_tree_node_init()`.
///
/// # Safety
///
/// `node` must be valid for writes and not on any tree.
#[export]
pub(crate) unsafe extern "C" fn ns_tree_node_init(node: *mut bindings::ns_tree_node) {
    // SAFETY: per the function's contract, which is that of C's
    // `ns_tree_node_init()` (kernel/nstree.c:73).
    unsafe { node_init(node) };
}

/// `ns_tree_root_init()`.
///
/// # Safety
///
/// `root` must be valid for writes and not in use.
#[export]
pub(crate) unsafe extern "C" fn ns_tree_root_init(root: *mut bindings::ns_tree_root) {
    // SAFETY: per the function's contract, which is that of C's
    // `ns_tree_root_init()` (kernel/nstree.c:85).
    unsafe { root_init(root) };
}

/// `ns_tree_node_empty()`.
///
/// # Safety
///
/// `node` must be valid, and its tree's writers excluded or the node on
/// no tree (C's `RB_EMPTY_NODE()` is a plain read).
#[export]
pub(crate) unsafe extern "C" fn ns_tree_node_empty(node: *const bindings::ns_tree_node) -> bool {
    // SAFETY: per the function's contract (C's `ns_tree_node_empty()`,
    // kernel/nstree.c:97).
    unsafe { node_empty(node) }
}

type RbCmp =
    Option<unsafe extern "C" fn(*mut bindings::rb_node, *const bindings::rb_node) -> c_int>;

/// `ns_tree_node_add()`: generic insertion with a C comparison callback.
///
/// No C code calls it in 7.3 (kernel/nstree.c uses it internally); it is
/// defined because include/linux/nstree.h declares it.
///
/// # Safety
///
/// `node` must be valid, off-tree, and stay valid until removed; `root`
/// must be a valid, initialised root whose nodes `cmp` understands, and
/// whose writers the caller serialises with a lock of its own. `root` must
/// not be one of the namespace trees (the per-type roots are global, and
/// `net_ns_tree` is exported, but their writers are serialised by
/// `ns_tree_lock`, which only this crate takes), nor `node` a node of a
/// `struct ns_common`, nor `root` a namespace's `ns_owner_root`: those are
/// read under `ns_tree_lock` (`NsCommon::on_tree()`), which would not
/// exclude the caller's lock.
#[export]
pub(crate) unsafe extern "C" fn ns_tree_node_add(
    node: *mut bindings::ns_tree_node,
    root: *mut bindings::ns_tree_root,
    cmp: RbCmp,
) -> *mut bindings::rb_node {
    let Some(cmp) = cmp else {
        return ptr::null_mut();
    };
    // SAFETY: per the function's contract; `cmp(new, existing)` is how
    // `rb_find_add_rcu()` calls it (`cmp(node, parent)`,
    // include/linux/rbtree.h:396).
    let r = unsafe {
        let rb = ptr::addr_of_mut!((*node).ns_node);
        tree::insert_node(root, node, |other| cmp(rb, other))
    };
    r.unwrap_or(ptr::null_mut())
}

/// `ns_tree_node_del()`.
///
/// # Safety
///
/// `node` must be on `root`, whose writers the caller serialises, and
/// neither may belong to a `struct ns_common` (see `ns_tree_node_add()`).
#[export]
pub(crate) unsafe extern "C" fn ns_tree_node_del(
    node: *mut bindings::ns_tree_node,
    root: *mut bindings::ns_tree_root,
) {
    // SAFETY: per the function's contract, which is that of C's
    // `ns_tree_node_del()` (kernel/nstree.c:145).
    unsafe { tree::remove_node(root, node) };
}

/// `__ns_tree_add_raw()`: publishes `ns` on its type tree, the unified
/// tree and its owner's tree.
///
/// # Safety
///
/// `ns` must be a live namespace with an id, not yet on any tree, that
/// calls `__ns_tree_remove()` before it is freed, once its `__ns_ref` has
/// dropped to zero, and is freed only after an RCU grace period has
/// passed since then (lockless readers may still be on it); `ns_tree`
/// its type root.
#[export]
pub(crate) unsafe extern "C" fn __ns_tree_add_raw(
    ns: *mut bindings::ns_common,
    ns_tree: *mut bindings::ns_tree_root,
) {
    // SAFETY: per the function's contract; `ns_tree` is one of the type
    // roots, which `to_ns_tree()` names (include/linux/nstree.h:33-42) and
    // which link `ns_tree_node`s.
    unsafe {
        let root = TreeRoot::<ByType>::from_raw(ns_tree);
        tree::add(NsCommon::from_raw(ns), root);
    }
}

/// `__ns_tree_remove()`.
///
/// # Safety
///
/// `ns` must be live and on the trees `__ns_tree_add_raw()` put it on, and
/// its `__ns_ref` must have dropped to zero (the namespace types call this
/// from their free paths): a counted reference keeps a namespace on its
/// trees, which listns() relies on when it resumes a walk. Its memory must
/// stay valid until an RCU grace period has passed after the call (every
/// type of 7.3 frees after one: "Concurrent nstree traversal depends on a
/// grace period", kernel/user_namespace.c:230-231).
#[export]
pub(crate) unsafe extern "C" fn __ns_tree_remove(
    ns: *mut bindings::ns_common,
    ns_tree: *mut bindings::ns_tree_root,
) {
    // SAFETY: per the function's contract; the callers are the types' free
    // paths, e.g. `free_user_ns()` (kernel/user_namespace.c:203,211).
    unsafe {
        let root = TreeRoot::<ByType>::from_raw(ns_tree);
        tree::remove(NsCommon::from_raw(ns), root);
    }
}

/// `ns_tree_lookup_rcu()`: the namespace with id `ns_id` (of type
/// `ns_type`, or any type for 0), or NULL.
///
/// # Safety
///
/// The caller must be in an RCU read-side critical section; the result is
/// only valid within it.
#[export]
pub(crate) unsafe extern "C" fn ns_tree_lookup_rcu(
    ns_id: u64,
    ns_type: c_int,
) -> *mut bindings::ns_common {
    crate::rcu_lockdep_warn!(
        !rcu_read_lock_held(),
        "suspicious ns_tree_lookup_rcu() usage"
    );
    // SAFETY: per the function's contract, C's (`RCU_LOCKDEP_WARN()`,
    // kernel/nstree.c:347): the caller holds RCU for as long as it uses
    // the result, and `rcu` does not outlive this call.
    let rcu = unsafe { CallerRcu::assume() };
    crate::tree::lookup_rcu(ns_id, ns_type as u32, &rcu).map_or(ptr::null_mut(), |ns| ns.as_ptr())
}

/// `__ns_tree_adjoined_rcu()`: the next or previous namespace on the type
/// tree of `ns`, or `ERR_PTR(-ENOENT)`.
///
/// # Safety
///
/// RCU read-side section held; `ns` on `ns_tree` (or removed from it
/// within the current grace period). Backwards (`previous`) it takes
/// `ns_tree_lock`, a spinlock, which C's version does not: the caller must
/// be in process context (the lock's writers run with interrupts and
/// bottom halves enabled), may not hold `ns_tree_lock` already, and on
/// `PREEMPT_RT` may not have preemption or interrupts disabled. The one
/// caller in 7.3, `get_sequential_mnt_ns()` (fs/namespace.c:2164-2171),
/// runs in the nsfs ioctl holding only RCU.
#[export]
pub(crate) unsafe extern "C" fn __ns_tree_adjoined_rcu(
    ns: *mut bindings::ns_common,
    ns_tree: *mut bindings::ns_tree_root,
    previous: bool,
) -> *mut bindings::ns_common {
    crate::rcu_lockdep_warn!(
        !rcu_read_lock_held(),
        "suspicious ns_tree_adjoined_rcu() usage"
    );
    let g = Guard::new();
    // SAFETY: per the function's contract: `ns` is on `ns_tree`, a type
    // root (`to_ns_tree()`, include/linux/nstree.h:33-42), within the
    // caller's RCU read-side section (which `g` nests in); the caller is
    // `get_sequential_mnt_ns()` (fs/namespace.c:2164,2171), from the nsfs
    // ioctl (fs/nsfs.c:340). Its first pass holds a count on `ns`; a later
    // pass reached `ns` from this tree in the same read-side section
    // (`guard(rcu)()`, fs/namespace.c:2168), so `ns` is on the tree or was
    // removed from it within the current grace period, as the contract
    // allows.
    let cur = unsafe {
        let root = TreeRoot::<ByType>::from_raw(ns_tree);
        Cursor::from_raw(root, NsCommon::from_raw(ns), &g)
    };
    let r = if previous {
        // C reads `->prev` racing with the writers
        // (`list_bidir_prev_rcu()`, kernel/nstree.c:373); here they are
        // excluded for the load. The caller holds only RCU
        // (fs/namespace.c:2168), inside which the spinlock may be taken.
        let excl = ReadGuard::lock();
        cur.prev(&g, &excl)
    } else {
        cur.next(&g)
    };
    match r {
        Some(c) => c.ns().as_ptr(),
        None => code::ENOENT.to_ptr(),
    }
}

/// The namespace id cookie: all types share one id space.
static NAMESPACE_COOKIE: Atomic<u64> = Atomic::new(NS_LAST_INIT_ID + 1);

/// `__ns_tree_gen_id()`: assigns `id` (initial namespaces) or the next id.
///
/// # Safety
///
/// `ns` must be valid and not yet on any tree, and no other code may read
/// its id concurrently, unless `id` is non-zero and `ns` already holds it
/// (a static initial namespace, read through credentials and pids before
/// `ns_tree_add()`: then nothing is stored).
#[export]
pub(crate) unsafe extern "C" fn __ns_tree_gen_id(ns: *mut bindings::ns_common, id: u64) -> u64 {
    // SAFETY: valid per the function's contract, C's (`__ns_tree_gen_id()`,
    // kernel/nstree.c:392).
    let nsc = unsafe { NsCommon::from_raw(ns) };
    let id = if id != 0 {
        // An initial namespace (`ns_tree_gen_id()`,
        // include/linux/nstree.h:44-46). A static one already holds this
        // very id from `NS_COMMON_INIT()` (include/linux/ns_common.h:32),
        // and tasks on other CPUs may be reading it: C stores the same
        // value again, a plain store that races with those readers;
        // storing nothing leaves the same id. (`init_net` holds 0 here,
        // from `ns_common_init()`, and is set below while only the boot
        // CPU runs.)
        if nsc.id() == id {
            return id;
        }
        id
    } else {
        // atomic64_inc_return(): fully ordered, returns the new value.
        NAMESPACE_COOKIE.fetch_add(1, Full) + 1
    };
    // SAFETY: not on any tree per the function's contract, which is C's
    // (`__ns_tree_gen_id()`, kernel/nstree.c:392, called before
    // `ns_tree_add()`). Initial namespaces are reachable before that:
    // a static one already holds `id` and returned above; `init_net` is
    // set while only the boot CPU runs: `net_ns_init()` (init/main.c:1171)
    // comes before `rest_init()` (init/main.c:1190).
    unsafe { nsc.set_id(id) };
    id
}
