// SPDX-License-Identifier: GPL-2.0-only
// Copyright (c) 2026 nstree-rs developers

//! A private tree of fake namespaces for the KUnit tests.

use core::ptr;

use kernel::bindings;
use kernel::error::Result;
use kernel::sync::rcu::Guard;

use super::lock::{read_retry, WriteGuard};
use super::ns::NsCommon;
use super::tree::{node_init, root_init, ByType, TreeRoot};
use super::NS_TREE_OFFSET;

/// A private tree of fake namespaces for the KUnit tests: never on the
/// global trees, so nothing else can see them.
pub(crate) struct TestTree {
    root: kernel::alloc::KBox<TreeRoot<ByType>>,
    nodes: kernel::alloc::KVec<kernel::alloc::KBox<FakeNs>>,
}

/// Storage for a fake `struct ns_common`, sized from the real layout (not
/// from `bindings::ns_common`, which bindgen gets too small).
#[repr(C, align(64))]
struct FakeNs([u8; NS_TREE_OFFSET + core::mem::size_of::<bindings::ns_tree>()]);

impl TestTree {
    /// A tree holding fake UTS namespaces with `ids`, inserted in order.
    pub(crate) fn new(ids: &[u64]) -> Result<TestTree> {
        use kernel::alloc::{flags::GFP_KERNEL, KBox, KVec};
        let root = KBox::new(TreeRoot::uninit(), GFP_KERNEL)?;
        // SAFETY: the root is fresh and ours.
        unsafe { root_init(root.as_raw()) };
        let mut t = TestTree {
            root,
            nodes: KVec::new(),
        };
        for &id in ids {
            let raw = t.alloc(id)?;
            // SAFETY: the fake namespace lives in `t.nodes`.
            let ns = unsafe { NsCommon::from_raw(raw) };
            let w = WriteGuard::lock();
            // SAFETY: a fresh fake namespace, removed in `drop()` before
            // its memory goes; nobody takes counted references to it.
            unsafe { t.root.insert(ns, &w) };
        }
        Ok(t)
    }

    fn alloc(&mut self, id: u64) -> Result<*mut bindings::ns_common> {
        use kernel::alloc::{flags::GFP_KERNEL, KBox};
        let fake = KBox::new(FakeNs([0; core::mem::size_of::<FakeNs>()]), GFP_KERNEL)?;
        let raw = ptr::addr_of!(*fake)
            .cast_mut()
            .cast::<bindings::ns_common>();
        // SAFETY: `raw` is zeroed storage of the full `struct ns_common`
        // size, owned by `self.nodes` until the tree is dropped; a zeroed
        // ns_common with NULL ops is a valid namespace for tree purposes.
        unsafe {
            (*raw).ns_type = bindings::CLONE_NEWUTS;
            (*raw).__bindgen_anon_1.__ns_ref.refs.counter = 1;
            let ns = NsCommon::from_raw(raw);
            node_init(ns.node::<ByType>());
            ns.set_id(id);
        }
        // Moving the box into `self.nodes` does not move its contents.
        self.nodes.push(fake, GFP_KERNEL)?;
        Ok(raw)
    }

    /// The fake namespace with `id`.
    pub(crate) fn get(&self, id: u64) -> Option<&NsCommon> {
        let g = Guard::new();
        // The fake namespaces live as long as `self`, not just the guard.
        let ns = self.root.find_rcu(id, &g)?.ns().as_ptr();
        // SAFETY: every node on the private tree is one of `self.nodes`.
        Some(unsafe { NsCommon::from_raw(ns) })
    }

    /// The ids in list order.
    ///
    /// The vector is sized before the RCU read-side section: nothing in it
    /// may sleep, so it cannot allocate with `GFP_KERNEL`. A list longer
    /// than the tree's own node count is cut short, which the callers'
    /// comparisons then report.
    pub(crate) fn ids_in_order(&self) -> kernel::alloc::KVec<u64> {
        use kernel::alloc::{flags::GFP_KERNEL, KVec};
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
        read_retry(|| self.root.find_rcu(id, &g)).map(|c| c.ns().id())
    }

    /// The smallest id `> id`.
    pub(crate) fn first_after(&self, id: u64) -> Option<u64> {
        let g = Guard::new();
        self.root.first_after(id, &g).map(|c| c.ns().id())
    }

    /// The ids before and after `id` on the list.
    pub(crate) fn neighbours(&self, id: u64) -> (Option<u64>, Option<u64>) {
        let g = Guard::new();
        let Some(c) = self.root.find_rcu(id, &g) else {
            return (None, None);
        };
        (
            c.prev(&g).map(|p| p.ns().id()),
            c.next(&g).map(|n| n.ns().id()),
        )
    }

    /// Removes the namespace with `id`.
    pub(crate) fn remove(&self, id: u64) {
        if let Some(ns) = self.get(id) {
            let w = WriteGuard::lock();
            // SAFETY: on this private tree; the tests take no counted
            // references they keep past a removal.
            unsafe { self.root.remove(ns, &w) };
        }
    }

    /// Tries to insert a second namespace with an existing id.
    pub(crate) fn insert_duplicate(&mut self, id: u64) -> bool {
        let Ok(ns) = self.alloc(id) else { return false };
        // SAFETY: the fake namespace lives in `self.nodes`.
        let ns = unsafe { NsCommon::from_raw(ns) };
        let w = WriteGuard::lock();
        // SAFETY: a fresh fake namespace, as in `new()`.
        unsafe { self.root.insert(ns, &w) }
    }
}

impl Drop for TestTree {
    fn drop(&mut self) {
        let w = WriteGuard::lock();
        for fake in self.nodes.iter() {
            // SAFETY: as in `alloc()`.
            let ns = unsafe { NsCommon::from_raw(ptr::addr_of!(**fake).cast_mut().cast()) };
            if ns.on_tree::<ByType>() {
                // SAFETY: only ever inserted into this private tree.
                unsafe { self.root.remove(ns, &w) };
            }
        }
        drop(w);
        // Lockless readers of the private tree are all gone (only the
        // test thread used it), so the memory can go without a grace period.
    }
}
