// SPDX-License-Identifier: GPL-2.0-only

//! Red-black trees.

/// Intrusive trees that RCU readers walk in key order, with the interface of the kernel's
/// `rbtree::rcu`.
///
/// On the host a tree is its sorted list alone: [`Tree::find`] and [`Tree::first_after`] scan it.
/// Writers publish with release stores and readers load with acquire loads. [`Tree::remove`]
/// leaves the removed item's links as they were (`list_bidir_del_rcu()`), so a cursor on it still
/// steps on to the item that followed it, in either direction. Nothing frees items: their owner
/// keeps them alive for as long as a reader may hold them.
pub mod rcu {
    use crate::sync::rcu::Guard;
    use core::marker::{PhantomData, PhantomPinned};
    use core::ptr;
    use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering::*};

    /// The links of an item on one [`Tree`].
    #[repr(C)]
    pub struct Links<const ID: u64 = 0> {
        next: AtomicPtr<Links<ID>>,
        prev: AtomicPtr<Links<ID>>,
        in_tree: AtomicBool,
        _pin: PhantomPinned,
    }

    impl<const ID: u64> Links<ID> {
        /// *Host only*: links to initialise in place with [`Links::init`] before use.
        pub const fn uninit() -> Self {
            Links {
                next: AtomicPtr::new(ptr::null_mut()),
                prev: AtomicPtr::new(ptr::null_mut()),
                in_tree: AtomicBool::new(false),
                _pin: PhantomPinned,
            }
        }

        /// Initialises the links in place as on no tree.
        ///
        /// # Safety
        ///
        /// `ptr` must be valid for writes, and the links must be on no tree.
        pub unsafe fn init(ptr: *mut Self) {
            // SAFETY: valid (caller).
            unsafe {
                (*ptr).next.store(ptr, Relaxed);
                (*ptr).prev.store(ptr, Relaxed);
                (*ptr).in_tree.store(false, Relaxed);
            }
        }

        fn ptr(&self) -> *mut Self {
            ptr::from_ref(self).cast_mut()
        }

        /// Whether the links are in a tree.
        ///
        /// # Safety
        ///
        /// The writers of the tree must be excluded.
        pub unsafe fn in_rbtree(&self) -> bool {
            self.in_tree.load(Relaxed)
        }

        /// Whether the links are on a list (a removed item's still are: its links are kept).
        ///
        /// # Safety
        ///
        /// The writers of the tree must be excluded.
        pub unsafe fn on_list(&self) -> bool {
            let next = self.next.load(Relaxed);
            !next.is_null() && next != self.ptr()
        }
    }

    /// Declares that a type has a [`Links<ID>`] field.
    ///
    /// # Safety
    ///
    /// `OFFSET` is the offset of a `Links<ID>` field, and `raw_get_links` returns a pointer to
    /// it.
    pub unsafe trait HasLinks<const ID: u64 = 0> {
        /// The offset of the [`Links<ID>`] field.
        const OFFSET: usize;

        /// A pointer to the [`Links<ID>`] field.
        ///
        /// # Safety
        ///
        /// `ptr` must point to a valid `Self`.
        unsafe fn raw_get_links(ptr: *mut Self) -> *mut Links<ID>;
    }

    /// Implements [`HasLinks`] for a type and one of its fields.
    #[macro_export]
    macro_rules! impl_has_rcu_links {
        ($(impl HasLinks$(<$id:tt>)? for $self:ty { self.$($field:ident).+ })*) => {$(
            // SAFETY: `OFFSET` is the offset of the field, and `raw_get_links` only compiles if
            // the field has the right type.
            unsafe impl $crate::rbtree::rcu::HasLinks$(<$id>)? for $self {
                const OFFSET: usize = ::core::mem::offset_of!(Self, $($field).+);

                #[inline]
                unsafe fn raw_get_links(ptr: *mut Self) -> *mut $crate::rbtree::rcu::Links$(<$id>)? {
                    // SAFETY: `ptr` points to a valid `Self` (caller).
                    unsafe { ::core::ptr::addr_of_mut!((*ptr).$($field).+) }
                }
            }
        )*};
    }
    pub use impl_has_rcu_links;

    /// An item of [`Tree`]s: what orders it.
    pub trait Item: Sync {
        /// The key the trees are ordered by.
        type Key: Ord + Copy;

        /// The item's key; it must not change while the item is on a tree.
        fn key(&self) -> Self::Key;
    }

    /// A counted reference that keeps an item on its trees.
    ///
    /// # Safety
    ///
    /// `try_new` succeeds only while the item is on its trees, no item is removed while an
    /// anchor on it exists, and `item` returns the item the anchor was made from.
    pub unsafe trait Anchor<T>: Sized {
        /// An anchor on `item`, or `None` if the item is going away.
        fn try_new(item: &T) -> Option<Self>;

        /// The anchored item.
        fn item(&self) -> &T;
    }

    /// The root of a tree: the head of its sorted list.
    #[repr(C)]
    pub struct Tree<T, const ID: u64 = 0> {
        head: Links<ID>,
        _items: PhantomData<*const T>,
    }

    // SAFETY: the tree only hands out shared references to its items, which are `Sync`.
    unsafe impl<T: Item, const ID: u64> Send for Tree<T, ID> {}
    // SAFETY: see `Send`; writers serialise (the contract of the mutators).
    unsafe impl<T: Item, const ID: u64> Sync for Tree<T, ID> {}

    impl<T: Item + HasLinks<ID>, const ID: u64> Tree<T, ID> {
        /// *Host only*: a tree to initialise in place with [`Tree::init`] before use.
        pub const fn uninit() -> Self {
            Tree {
                head: Links::uninit(),
                _items: PhantomData,
            }
        }

        /// Initialises an empty tree in place.
        ///
        /// # Safety
        ///
        /// `ptr` must be valid for writes and not in use.
        pub unsafe fn init(ptr: *mut Self) {
            // SAFETY: per the caller.
            unsafe { Links::init(ptr::addr_of_mut!((*ptr).head)) }
        }

        /// Borrows a tree initialised elsewhere.
        ///
        /// # Safety
        ///
        /// `ptr` must point to an initialised tree that stays valid and in place for `'a`.
        pub unsafe fn from_raw<'a>(ptr: *mut Self) -> &'a Self {
            // SAFETY: per the caller.
            unsafe { &*ptr }
        }

        fn head(&self) -> *mut Links<ID> {
            self.head.ptr()
        }

        fn links(item: &T) -> &Links<ID> {
            // SAFETY: `item` is valid; its links live as long as it.
            unsafe { &*T::raw_get_links(ptr::from_ref(item).cast_mut()) }
        }

        /// The item whose links are at `l`.
        ///
        /// # Safety
        ///
        /// `l` must be the `ID` links of a `T` valid for `'a`.
        unsafe fn item_of<'a>(l: *mut Links<ID>) -> &'a T {
            // SAFETY: per the caller.
            unsafe { &*l.byte_sub(T::OFFSET).cast::<T>() }
        }

        /// The entries of the list, in order, from the one after `from`.
        fn entries(&self) -> impl Iterator<Item = &T> + '_ {
            let mut at = self.head.next.load(Acquire);
            std::iter::from_fn(move || {
                if at == self.head() {
                    return None;
                }
                // SAFETY: every entry but the head is the links of a live item (type invariant:
                // items are kept alive while readers may reach them).
                let item = unsafe { Self::item_of(at) };
                // SAFETY: `at` is a valid entry.
                at = unsafe { (*at).next.load(Acquire) };
                Some(item)
            })
        }

        /// The first item, under RCU.
        pub fn first<'g>(&self, _g: &'g Guard) -> Option<Cursor<'_, 'g, T, ID>> {
            // SAFETY: the head of this list.
            unsafe { self.step(self.head(), true) }
        }

        /// # Safety
        ///
        /// `from` is the head or the links of an item that is or was on this list.
        unsafe fn step<'g>(
            &self,
            from: *mut Links<ID>,
            next: bool,
        ) -> Option<Cursor<'_, 'g, T, ID>> {
            // SAFETY: `from` is valid (caller).
            let to = unsafe {
                if next {
                    (*from).next.load(Acquire)
                } else {
                    (*from).prev.load(Acquire)
                }
            };
            if to == self.head() {
                return None;
            }
            Some(Cursor {
                tree: self,
                // SAFETY: an entry of this list, or one that was on it: a live item.
                item: unsafe { Self::item_of(to) },
            })
        }

        /// The item with key `key`.
        pub fn find<'g>(&self, key: T::Key, _g: &'g Guard) -> Option<&'g T> {
            let found = self.entries().find(|i| i.key() >= key)?;
            // SAFETY: items live for the read-side section (type invariant).
            (found.key() == key).then(|| unsafe { &*ptr::from_ref(found) })
        }

        /// The item with the smallest key greater than `key`, as a place to walk from.
        pub fn first_after<'g>(&self, key: T::Key, _g: &'g Guard) -> Option<Cursor<'_, 'g, T, ID>> {
            let item = self.entries().find(|i| i.key() > key)?;
            Some(Cursor {
                tree: self,
                // SAFETY: as in `find()`.
                item: unsafe { &*ptr::from_ref(item) },
            })
        }

        /// A cursor at `item`.
        ///
        /// # Safety
        ///
        /// `item` must be on this tree's list, or have been within the grace period of `g`.
        pub unsafe fn cursor_at<'g>(&self, item: &'g T, _g: &'g Guard) -> Cursor<'_, 'g, T, ID> {
            Cursor { tree: self, item }
        }

        /// Inserts `item` by its key; `false`, leaving the links as on no tree, if an item with
        /// the same key is on the tree.
        ///
        /// # Safety
        ///
        /// Writers are serialised, `item`'s links are on no tree, and `item` stays valid until
        /// no reader can reach it after [`Tree::remove`].
        pub unsafe fn insert(&self, item: &T) -> bool {
            let key = item.key();
            let new = Self::links(item).ptr();
            let mut pos = self.head.next.load(Relaxed);
            // SAFETY: writers are serialised and every entry is live (caller).
            unsafe {
                Links::init(new);
                while pos != self.head() {
                    let k = Self::item_of(pos).key();
                    if k == key {
                        return false;
                    }
                    if k > key {
                        break;
                    }
                    pos = (*pos).next.load(Relaxed);
                }
                let prev = (*pos).prev.load(Relaxed);
                (*new).next.store(pos, Relaxed);
                (*new).prev.store(prev, Relaxed);
                (*new).in_tree.store(true, Relaxed);
                (*prev).next.store(new, Release);
                (*pos).prev.store(new, Release);
            }
            true
        }

        /// Removes `item`; readers on it can still step away from it in either direction.
        ///
        /// # Safety
        ///
        /// Writers are serialised, and `item` is on this tree.
        pub unsafe fn remove(&self, item: &T) {
            let l = Self::links(item);
            let (next, prev) = (l.next.load(Relaxed), l.prev.load(Relaxed));
            // SAFETY: `item` is on this tree, whose entries are live (caller).
            unsafe {
                (*prev).next.store(next, Release);
                (*next).prev.store(prev, Release);
            }
            l.in_tree.store(false, Relaxed);
        }

        /// Whether `item`'s links are in a tree and on a list.
        ///
        /// # Safety
        ///
        /// The writers must be excluded.
        pub unsafe fn is_linked(item: &T) -> (bool, bool) {
            let l = Self::links(item);
            // SAFETY: per the caller.
            unsafe { (l.in_rbtree(), l.on_list()) }
        }
    }

    /// A place on the list of a [`Tree`], valid in the RCU read-side section `'g`.
    pub struct Cursor<'t, 'g, T, const ID: u64 = 0> {
        tree: &'t Tree<T, ID>,
        item: &'g T,
    }

    impl<T, const ID: u64> Clone for Cursor<'_, '_, T, ID> {
        fn clone(&self) -> Self {
            *self
        }
    }

    impl<T, const ID: u64> Copy for Cursor<'_, '_, T, ID> {}

    impl<'t, 'g, T: Item + HasLinks<ID>, const ID: u64> Cursor<'t, 'g, T, ID> {
        /// The item.
        pub fn item(&self) -> &'g T {
            self.item
        }

        /// The next item on the list.
        pub fn next(&self) -> Option<Self> {
            // SAFETY: the item is or was on this list.
            unsafe { self.tree.step(Tree::<T, ID>::links(self.item).ptr(), true) }
        }

        /// The previous item on the list.
        ///
        /// # Safety
        ///
        /// The tree's writers must be excluded.
        pub unsafe fn prev(&self) -> Option<Self> {
            // SAFETY: as in `next()`.
            unsafe { self.tree.step(Tree::<T, ID>::links(self.item).ptr(), false) }
        }

        /// Keeps this place beyond the read-side section; `None` if the item is going away.
        pub fn hold<A: Anchor<T>>(&self) -> Option<Held<'t, T, A, ID>> {
            A::try_new(self.item).map(|anchor| Held {
                tree: self.tree,
                anchor,
            })
        }
    }

    /// A place on the list of a [`Tree`] kept by an [`Anchor`] on its item.
    pub struct Held<'t, T, A, const ID: u64 = 0> {
        tree: &'t Tree<T, ID>,
        anchor: A,
    }

    impl<'t, T: Item + HasLinks<ID>, A: Anchor<T>, const ID: u64> Held<'t, T, A, ID> {
        /// The item.
        pub fn item(&self) -> &T {
            self.anchor.item()
        }

        /// A cursor at the held place, in a new read-side section.
        pub fn resume<'g>(&'g self, _g: &'g Guard) -> Cursor<'t, 'g, T, ID> {
            Cursor {
                tree: self.tree,
                item: self.anchor.item(),
            }
        }
    }
}
