// SPDX-License-Identifier: GPL-2.0-only

//! A private tree of fake namespaces for the KUnit tests.

use core::pin::Pin;

use kernel::alloc::{flags::GFP_KERNEL, KBox, KVec};
use kernel::bindings;
use kernel::error::Result;
use kernel::prelude::*;
use kernel::sync::rcu::Guard;
use kernel::types::Opaque;

use super::layout;
use super::lock::{read_retry, ReadGuard, WriteGuard};
use super::ns::{NsCommon, Storage};
use super::tree::{node_init, root_init, ByOwner, ByType, TreeRoot, Unified};

/// A fake `struct ns_common`: storage of the C struct's size and
/// alignment (`layout::SIZE`, asserted against the C compiler's),
/// initialised as `__ns_common_init()` initialises a namespace
/// (kernel/nscommon.c:56-90): `__ns_ref` 1, no `ops`, the given type and
/// id, every tree node and the owner root empty, inactive. Or, `as_static`,
/// as `NS_COMMON_INIT()` leaves a boot-time namespace: the list entries
/// initialised, the rbtree nodes zero-filled (which do not read as empty).
#[pin_data]
struct FakeNs {
    #[pin]
    ns: Opaque<Storage>,
}

impl FakeNs {
    fn new(ns_type: u32, id: u64, as_static: bool) -> impl PinInit<Self> {
        pin_init!(Self {
            // SAFETY: `slot` is the fake namespace's storage, valid for
            // writes of `layout::SIZE` bytes and not shared yet. Zeroing it
            // is `NULL` for `stashed` and `ops` (a namespace without `ops`,
            // which `ns_owner()` skips at kernel/nscommon.c:101 and
            // `ns_put()` at kernel/nstree.c:523); the fields set below are those of
            // kernel/nscommon.c:60-68,88, at the C offsets of `layout`.
            ns <- Opaque::ffi_init(move |slot: *mut Storage| unsafe {
                slot.cast::<u8>().write_bytes(0, layout::SIZE);
                let base = slot.cast::<u8>();
                base.add(layout::NS_REF)
                    .cast::<bindings::refcount_t>()
                    .write(bindings::refcount_t {
                        refs: bindings::atomic_t { counter: 1 },
                    });
                base.add(layout::NS_TYPE).cast::<u32>().write(ns_type);
                base.add(layout::NS_TREE).cast::<u64>().write(id);
                base.add(layout::NS_REF_ACTIVE).cast::<i32>().write(0);
                for off in [layout::TREE_NODE, layout::UNIFIED_NODE, layout::OWNER_NODE] {
                    let node = base.add(off).cast::<bindings::ns_tree_node>();
                    if as_static {
                        // `NS_COMMON_INIT()`: `LIST_HEAD_INIT()` of the
                        // list entry only (include/linux/ns_common.h:38-40).
                        let l = core::ptr::addr_of_mut!((*node).ns_list_entry);
                        (*l).next = l;
                        (*l).prev = l;
                    } else {
                        node_init(node);
                    }
                }
                root_init(base.add(layout::OWNER_ROOT).cast());
            }),
        })
    }

    fn ns(&self) -> &NsCommon {
        // SAFETY: the storage was initialised in `FakeNs::new()` as
        // `__ns_common_init()` (kernel/nscommon.c:56-90) initialises a
        // namespace, and lives as long as `self`.
        unsafe { NsCommon::from_raw(self.ns.get().cast()) }
    }
}

/// A private tree of fake namespaces for the KUnit tests: never on the
/// global trees, so nothing else can see them.
///
/// The fakes have no `ops`, so no counted reference ([`NsRef`]) to one can
/// exist ([`NsRef::try_get`] refuses namespaces without `ops`): their
/// memory is this tree's to free.
///
/// [`NsRef`]: super::NsRef
/// [`NsRef::try_get`]: super::NsRef::try_get
pub(crate) struct TestTree {
    root: Pin<KBox<TreeRoot<ByType>>>,
    nodes: KVec<Pin<KBox<FakeNs>>>,
}

impl TestTree {
    /// A tree holding fake UTS namespaces with `ids`, inserted in order.
    pub(crate) fn new(ids: &[u64]) -> Result<TestTree> {
        let mut t = TestTree {
            root: KBox::pin_init(TreeRoot::new(), GFP_KERNEL)?,
            nodes: KVec::new(),
        };
        for &id in ids {
            t.insert(id)?;
        }
        Ok(t)
    }

    /// Allocates a fake namespace with `id` and inserts it; `Ok(false)` if
    /// the id is already on the tree (the fake stays off the tree).
    fn insert(&mut self, id: u64) -> Result<bool> {
        self.insert_fake(id, false)
    }

    /// Allocates a fake namespace with `id` (`as_static`: initialised as
    /// `NS_COMMON_INIT()` does) and inserts it.
    fn insert_fake(&mut self, id: u64, as_static: bool) -> Result<bool> {
        let fake = KBox::pin_init(
            FakeNs::new(bindings::CLONE_NEWUTS, id, as_static),
            GFP_KERNEL,
        )?;
        self.nodes.push(fake, GFP_KERNEL)?;
        let ns = self.nodes[self.nodes.len() - 1].ns();
        let w = WriteGuard::lock();
        // SAFETY: a fresh fake namespace, whose nodes `FakeNs::new()` left
        // empty (kernel/nstree.c:73-77) or zero-filled as a static one's
        // (include/linux/ns_common.h:29-41), on no tree either way; pinned
        // in `self.nodes` and removed in `drop()` before its memory goes,
        // when no reader of the private tree is left (see `drop()`);
        // nobody takes counted references to it.
        Ok(unsafe { self.root.insert(ns, &w) })
    }

    /// The fake namespace with `id` that is on the tree.
    pub(crate) fn get(&self, id: u64) -> Option<&NsCommon> {
        let w = WriteGuard::lock();
        self.on_tree(id, &w)
    }

    /// The fake namespace with `id` that is on the tree, with the writers
    /// excluded.
    fn on_tree(&self, id: u64, w: &WriteGuard) -> Option<&NsCommon> {
        self.nodes
            .iter()
            .map(|f| f.ns())
            .find(|ns| ns.id() == id && ns.on_tree::<ByType>(w))
    }

    /// The ids in list order.
    ///
    /// The vector is sized before the RCU read-side section: nothing in it
    /// may sleep, so it cannot allocate with `GFP_KERNEL`. A list longer
    /// than the tree's own node count is cut short, which the callers'
    /// comparisons then report.
    pub(crate) fn ids_in_order(&self) -> KVec<u64> {
        let mut v = KVec::with_capacity(self.nodes.len(), GFP_KERNEL).unwrap_or_default();
        let g = Guard::new();
        let mut cur = self.root.first(&g);
        while let Some(c) = cur {
            if v.push_within_capacity(c.ns().id()).is_err() {
                break;
            }
            cur = c.next(&g);
        }
        v
    }

    /// `find_rcu()` with seqlock retry.
    pub(crate) fn find(&self, id: u64) -> Option<u64> {
        let g = Guard::new();
        read_retry(|| self.root.find_rcu(id, &g)).map(|ns| ns.id())
    }

    /// The smallest id `> id`.
    pub(crate) fn first_after(&self, id: u64) -> Option<u64> {
        let g = Guard::new();
        let r = ReadGuard::lock();
        self.root.first_after(id, &g, &r).map(|c| c.ns().id())
    }

    /// The ids before and after `id` on the list (both `None` if `id` is
    /// not on the tree).
    pub(crate) fn neighbours(&self, id: u64) -> (Option<u64>, Option<u64>) {
        let g = Guard::new();
        let r = ReadGuard::lock();
        let Some(c) = self.root.first_after(id.wrapping_sub(1), &g, &r) else {
            return (None, None);
        };
        if c.ns().id() != id {
            return (None, None);
        }
        let prev = c.prev(&g, &r);
        drop(r);
        (prev.map(|p| p.ns().id()), c.next(&g).map(|n| n.ns().id()))
    }

    /// Removes the namespace with `id`.
    pub(crate) fn remove(&self, id: u64) {
        let w = WriteGuard::lock();
        if let Some(ns) = self.on_tree(id, &w) {
            // SAFETY: on this private tree (the only tree its `ByType`
            // node is ever inserted into); no counted reference to a fake
            // can exist (it has no `ops`), so C's rule that a namespace
            // leaves its trees only once no counted reference remains
            // (kernel/user_namespace.c:211) holds. Its memory stays until
            // `drop()`, after every reader of the private tree.
            unsafe { self.root.remove(ns, &w) };
        }
    }

    /// Tries to insert a second namespace with an existing id.
    pub(crate) fn insert_duplicate(&mut self, id: u64) -> bool {
        self.insert(id).unwrap_or(false)
    }

    /// Tries to insert a second namespace with an existing id, one whose
    /// rbtree node is zero-filled as `NS_COMMON_INIT()` leaves it, and
    /// returns whether it went in and whether its node then reads as on a
    /// tree (`TreeRoot::insert()` leaves a refused node empty, so that
    /// removing it is a no-op).
    pub(crate) fn insert_duplicate_static(&mut self, id: u64) -> (bool, bool) {
        let inserted = self.insert_fake(id, true).unwrap_or(false);
        let w = WriteGuard::lock();
        let linked = self
            .nodes
            .last()
            .is_some_and(|f| f.ns().on_tree::<ByType>(&w));
        (inserted, linked)
    }

    /// Whether the fake namespaces' other nodes and owner roots are still
    /// as `__ns_common_init()` left them: empty, on no tree.
    pub(crate) fn others_untouched(&self) -> bool {
        let w = WriteGuard::lock();
        self.nodes.iter().all(|f| {
            let g = Guard::new();
            !f.ns().on_tree::<Unified>(&w)
                && !f.ns().on_tree::<ByOwner>(&w)
                && f.ns().owner_root().first(&g).is_none()
        })
    }
}

impl Drop for TestTree {
    fn drop(&mut self) {
        let w = WriteGuard::lock();
        for fake in self.nodes.iter() {
            let ns = fake.ns();
            // SAFETY: only ever inserted into this private tree; `remove()`
            // checks that the node is on one (`ns_tree_node_empty()`,
            // kernel/nstree.c:97). No RCU read-side section that found a
            // fake on the tree is left: only `TestTree`'s own methods read
            // it, on this thread (`TestTree` is not `Sync`: its fakes are
            // `Opaque`), each within a guard that ended when it returned,
            // so the memory may go without a grace period.
            unsafe { self.root.remove(ns, &w) };
        }
        drop(w);
    }
}
