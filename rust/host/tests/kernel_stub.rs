// SPDX-License-Identifier: GPL-2.0-only

//! The `kernel` stand-in keeps the semantics the tests rely on: the examples of the kernel's
//! `rbtree::rcu`, `SeqLock` and `Batch` documentation, run on the stand-in, and its user memory
//! and atomic-context checks.

use std::panic::catch_unwind;

use kernel::error::code::*;
use kernel::rbtree::rcu::{Anchor, Item, Links, Tree};
use kernel::sync::{rcu, SeqLock};
use kernel::uaccess::{mem, Batch, UserPtr, UserSlice};

struct Task {
    id: u64,
    links: Links,
}

kernel::impl_has_rcu_links! {
    impl HasLinks for Task { self.links }
}

impl Item for Task {
    type Key = u64;
    fn key(&self) -> u64 {
        self.id
    }
}

/// An anchor that never fails (the tasks outlive the test).
struct Pin<'a>(&'a Task);

// SAFETY: the tasks are removed only after the anchors are gone.
unsafe impl<'a> Anchor<Task> for Pin<'a> {
    fn try_new(item: &Task) -> Option<Self> {
        // SAFETY: every task of these tests lives until the end of the test.
        Some(Pin(unsafe { &*(item as *const Task) }))
    }
    fn item(&self) -> &Task {
        self.0
    }
}

// Boxed: the links must not move.
#[allow(clippy::vec_box)]
fn tasks(ids: &[u64]) -> Vec<Box<Task>> {
    ids.iter()
        .map(|&id| {
            let mut t = Box::new(Task {
                id,
                links: Links::uninit(),
            });
            // SAFETY: boxed, on no tree.
            unsafe { Links::init(&raw mut t.links) };
            t
        })
        .collect()
}

fn new_tree() -> Box<Tree<Task>> {
    let mut tree = Box::new(Tree::uninit());
    // SAFETY: boxed, not in use.
    unsafe { Tree::init(&raw mut *tree) };
    tree
}

fn walk(tree: &Tree<Task>) -> Vec<u64> {
    let g = rcu::read_lock();
    let mut ids = Vec::new();
    let mut cur = tree.first(&g);
    while let Some(c) = cur {
        ids.push(c.item().id);
        cur = c.next();
    }
    ids
}

#[test]
fn tree_example() {
    // The example of the kernel's `Tree`.
    let tree = new_tree();
    let tasks = tasks(&[20, 10, 30]);
    for t in &tasks {
        // SAFETY: this thread is the only writer; the tasks outlive the tree's use.
        assert!(unsafe { tree.insert(t) });
    }
    let g = rcu::read_lock();
    let found = tree.find(30, &g).map(|t| t.id);
    let after = tree.first_after(10, &g).map(|c| c.item().id);
    drop(g);
    assert_eq!(walk(&tree), [10, 20, 30]);
    assert_eq!((found, after), (Some(30), Some(20)));
    for t in &tasks {
        // SAFETY: each task is on the tree; this thread is the only writer.
        unsafe { tree.remove(t) };
    }
    assert_eq!(walk(&tree), [] as [u64; 0]);
}

#[test]
fn tree_cursor_on_a_removed_item_steps_on() {
    let tree = new_tree();
    let tasks = tasks(&[1, 2, 3, 4]);
    for t in &tasks {
        // SAFETY: as above.
        assert!(unsafe { tree.insert(t) });
    }
    let dup = self::tasks(&[3]);
    // SAFETY: as above.
    assert!(!unsafe { tree.insert(&dup[0]) }, "an equal key is refused");
    // SAFETY: no writer runs.
    assert_eq!(unsafe { Tree::is_linked(&*dup[0]) }, (false, false));
    let g = rcu::read_lock();
    let at2 = tree.find(2, &g).unwrap();
    // SAFETY: on the tree.
    let c = unsafe { tree.cursor_at(at2, &g) };
    // SAFETY: as above; 2 and 3 are removed under the reader.
    unsafe {
        tree.remove(&tasks[1]);
        tree.remove(&tasks[2]);
    }
    assert_eq!(c.next().map(|c| c.item().id), Some(3));
    assert_eq!(
        c.next().and_then(|c| c.next()).map(|c| c.item().id),
        Some(4)
    );
    // SAFETY: no writer runs.
    assert_eq!(unsafe { c.prev() }.map(|c| c.item().id), Some(1));
    assert_eq!(tree.find(2, &g).map(|t| t.id), None);
    assert_eq!(tree.first_after(1, &g).map(|c| c.item().id), Some(4));
    assert_eq!(tree.first_after(4, &g).map(|c| c.item().id), None);
    let held = tree.first(&g).unwrap().hold::<Pin<'_>>().unwrap();
    drop(g);
    let g = rcu::read_lock();
    assert_eq!(held.resume(&g).next().map(|c| c.item().id), Some(4));
    drop(g);
    assert_eq!(walk(&tree), [1, 4]);
}

#[test]
fn seqlock_examples() {
    // The examples of the kernel's `SeqLock` and `SeqLockReadGuard`.
    let lock = SeqLock::new();
    let v = std::sync::atomic::AtomicU64::new(0);
    {
        let _w = lock.write();
        v.store(4096, std::sync::atomic::Ordering::Relaxed);
    }
    assert_eq!(
        lock.read(|| v.load(std::sync::atomic::Ordering::Relaxed)),
        4096
    );
    let excl = lock.read_excl();
    let start = lock.read_begin();
    assert!(!lock.read_retry(start));
    drop(excl);
    drop(lock.write());
    assert!(lock.read_retry(start));
}

#[test]
fn batch_example() {
    // The example of the kernel's `Batch`.
    let mut b = Batch::<u64, 2>::new();
    assert!(b.push(7) && b.push(8));
    assert!(!b.push(9));
    assert_eq!(b.pop(), Some(8));
    assert_eq!(b.as_slice(), [7]);
    b.clear();
    assert!(b.is_empty());
}

#[test]
fn user_memory() {
    mem::reset();
    let p = UserPtr::from_addr(0x1000);
    mem::map(0x1000, &[0; 12]);
    assert!(!UserSlice::new(UserPtr::from_addr(usize::MAX - 7), 8).access_ok());
    assert!(
        UserSlice::new(p, 1 << 20).access_ok(),
        "access_ok() checks the range only"
    );
    let mut w = UserSlice::new(p, 16).writer();
    assert_eq!(w.write_scalar(7u64), Ok(()));
    // Straddling the end of the mapping: not written at all.
    assert_eq!(w.write_scalar(8u64), Err(EFAULT));
    assert_eq!(
        mem::read(0x1000, 12),
        Some([7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0].to_vec())
    );
    let mut r = UserSlice::new(p, 12).reader();
    assert_eq!(r.read_scalar::<u64>(), Ok(7));
    assert_eq!(r.read_scalar::<u64>(), Err(EFAULT), "beyond the reader");
    assert_eq!(r.read_scalar::<u32>(), Ok(0));
    // An extensible struct: a zero tail is fine, a non-zero one E2BIG, a missing one EFAULT.
    #[derive(Debug, PartialEq)]
    struct Two(u32, u32);
    // SAFETY: any bytes are two `u32`s.
    unsafe impl kernel::transmute::FromBytes for Two {}
    mem::map(0x2000, &[1, 0, 0, 0, 2, 0, 0, 0, 0, 0]);
    let rd = |len| UserSlice::new(UserPtr::from_addr(0x2000), len).read_extensible::<Two>();
    assert_eq!(rd(10), Ok(Two(1, 2)));
    assert_eq!(rd(4), Ok(Two(1, 0)));
    assert_eq!(rd(11), Err(EFAULT));
    mem::write(0x2009, &[1]);
    assert_eq!(rd(10), Err(E2BIG));
}

#[test]
fn sleeping_in_atomic_context_panics() {
    mem::reset();
    mem::map(0x1000, &[0; 8]);
    let in_rcu = catch_unwind(|| {
        let _g = rcu::read_lock();
        let _ = UserSlice::new(UserPtr::from_addr(0x1000), 8)
            .writer()
            .write_scalar(1u64);
    });
    assert!(in_rcu.is_err());
    let lock = SeqLock::new();
    let locked = catch_unwind(|| {
        let _r = lock.read_excl();
        kernel::task::cond_resched();
    });
    assert!(locked.is_err());
    assert!(
        !rcu::read_lock_held() && !lock.held_by_me(),
        "released on unwinding"
    );
    kernel::task::cond_resched();
}
