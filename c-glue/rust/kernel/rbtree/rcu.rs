// SPDX-License-Identifier: GPL-2.0

//! Intrusive red-black trees that RCU readers walk in key order.
//!
//! A [`Tree`] links items that embed [`Links`]: into a red-black tree, ordered by the items' keys,
//! for lookups, and onto a doubly linked list in the same order, for walks. It is the C pattern
//! of a `struct rb_root` next to a `struct list_head`, with a `struct rb_node` next to a
//! `struct list_head` in each item, and has the C layout of both.
//!
//! The tree does not own its items, and knows nothing of the lock that serialises its writers:
//! inserting and removing are `unsafe`, and their callers keep the writers apart and the items
//! alive. Readers need no lock. Under an RCU read-side critical section they search the tree
//! ([`Tree::find`]) and walk the list with [`Cursor`]s, bounded by the [`Guard`]. A lockless
//! search can miss an item while a writer rebalances the tree: combine it with a sequence count,
//! e.g. a [`SeqLock`](crate::sync::SeqLock), to retry. A walk that has to leave the read-side
//! section keeps its place with a [`Held`] cursor, which owns an [`Anchor`] on its item.
//!
//! An item may be on several trees at once, through one [`Links`] field per tree, told apart by
//! the `ID` parameter, as for [`List`](crate::list::List).
//!
//! C headers: [`include/linux/rbtree.h`](srctree/include/linux/rbtree.h),
//! [`include/linux/rculist.h`](srctree/include/linux/rculist.h)

use crate::{
    bindings,
    sync::atomic::{Atomic, Relaxed},
    sync::rcu::Guard,
    types::Opaque,
};
use core::{
    cmp::Ordering,
    marker::{PhantomData, PhantomPinned},
    ptr,
};
use pin_init::{pin_data, PinInit};

/// The links of an item on one [`Tree`]: a `struct rb_node` and a `struct list_head`.
///
/// # Invariants
///
/// The links are on no tree (cleared), or on exactly one [`Tree`] of `ID`, with the same key order
/// in its red-black tree and its list.
#[repr(C)]
#[pin_data]
#[derive(pin_init::Zeroable)]
pub struct Links<const ID: u64 = 0> {
    #[pin]
    rb: Opaque<bindings::rb_node>,
    #[pin]
    list: Opaque<bindings::list_head>,
    #[pin]
    _pin: PhantomPinned,
}

// SAFETY: the links are only written by a tree's writers, which serialise, and read by its
// readers with the RCU primitives; nothing in them belongs to a thread.
unsafe impl<const ID: u64> Send for Links<ID> {}

// SAFETY: see `Send`.
unsafe impl<const ID: u64> Sync for Links<ID> {}

impl<const ID: u64> Links<ID> {
    /// Links on no tree.
    pub fn new() -> impl PinInit<Self> {
        // SAFETY: `init` only writes to the slot, which is valid for writes and not yet shared.
        unsafe {
            pin_init::pin_init_from_closure(|slot: *mut Self| {
                Self::init(slot);
                Ok(())
            })
        }
    }

    /// Initialises the links in place as on no tree (`RB_CLEAR_NODE()` and `INIT_LIST_HEAD()`).
    ///
    /// # Safety
    ///
    /// `ptr` must be valid for writes, and the links must be on no tree.
    pub unsafe fn init(ptr: *mut Self) {
        // SAFETY: valid for writes and on no tree, so not reachable by anyone else (caller).
        unsafe {
            let rb = Opaque::cast_into(ptr::addr_of!((*ptr).rb));
            (*rb).__rb_parent_color = rb as usize;
            (*rb).rb_left = ptr::null_mut();
            (*rb).rb_right = ptr::null_mut();
            bindings::INIT_LIST_HEAD(Opaque::cast_into(ptr::addr_of!((*ptr).list)));
        }
    }

    fn rb(&self) -> *mut bindings::rb_node {
        self.rb.get()
    }

    fn list(&self) -> *mut bindings::list_head {
        self.list.get()
    }

    /// Whether the links are in a red-black tree (`!RB_EMPTY_NODE()`). Zeroed links are not: a
    /// node in a tree has a parent or, at the root, the colour black, so its word is never 0.
    ///
    /// # Safety
    ///
    /// The writers of the tree the links may be on must be excluded: they store the node's
    /// parent with plain stores.
    pub unsafe fn in_rbtree(&self) -> bool {
        // SAFETY: no writer runs (caller); `rb` is a valid node.
        let word = unsafe { (*self.rb()).__rb_parent_color };
        word != 0 && word != self.rb() as usize
    }

    /// Whether the list entry was ever put on a list (`!list_empty()`): a removed entry keeps
    /// its links, so this stays true after a removal; zeroed links are not on a list.
    ///
    /// # Safety
    ///
    /// As for [`Links::in_rbtree`].
    pub unsafe fn on_list(&self) -> bool {
        // SAFETY: no writer runs (caller); `list` is a valid list entry.
        let next = unsafe { (*self.list()).next };
        !next.is_null() && !ptr::eq(next, self.list())
    }
}

/// Declares that a type has a [`Links<ID>`] field.
///
/// Use [`impl_has_rcu_links!`](crate::impl_has_rcu_links) to implement it.
///
/// # Safety
///
/// [`HasLinks::OFFSET`] must be the offset of a `Links<ID>` field of `Self`, and
/// [`HasLinks::raw_get_links`] must return a pointer to that field.
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
///
/// # Examples
///
/// See [`Tree`].
#[macro_export]
macro_rules! impl_has_rcu_links {
    ($(impl HasLinks$(<$id:tt>)? for $self:ty { self.$($field:ident).+ })*) => {$(
        // SAFETY: `OFFSET` is the offset of the field, and `raw_get_links` only compiles if the
        // field has the right type and is aligned: `_aligned` borrows it, which is an error in a
        // packed struct.
        unsafe impl $crate::rbtree::rcu::HasLinks$(<$id>)? for $self {
            const OFFSET: usize = ::core::mem::offset_of!(Self, $($field).+);

            #[inline]
            unsafe fn raw_get_links(ptr: *mut Self) -> *mut $crate::rbtree::rcu::Links$(<$id>)? {
                #[allow(dead_code)]
                fn _aligned(this: &$self) -> &$crate::rbtree::rcu::Links$(<$id>)? {
                    &this.$($field).+
                }

                // SAFETY: `ptr` points to a valid `Self` (caller), and the expression follows no
                // pointer (`offset_of!` above would not compile otherwise).
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

    /// The item's key. An item whose key changes while it is on a tree leaves the tree out of
    /// order: a logic error, not a memory error.
    fn key(&self) -> Self::Key;
}

/// A counted reference that keeps an item on its trees.
///
/// # Safety
///
/// [`Anchor::try_new`] succeeds only while the item is still on the trees it was inserted into,
/// no item is removed from a tree while an anchor on it exists, and [`Anchor::item`] returns the
/// item the anchor was made from.
pub unsafe trait Anchor<T>: Sized {
    /// An anchor on `item`, or `None` if the item is going away.
    fn try_new(item: &T) -> Option<Self>;

    /// The anchored item.
    fn item(&self) -> &T;
}

/// The root of an intrusive, RCU-readable red-black tree: a `struct rb_root` and a
/// `struct list_head`.
///
/// # Invariants
///
/// The red-black tree and the list hold the same items, of which each is on no other `Tree` of
/// `ID`, in ascending key order. An item leaves the list with `list_bidir_del_rcu()`, so that a
/// reader on it can go on in either direction until the end of the RCU grace period.
///
/// # Examples
///
/// ```
/// use kernel::rbtree::rcu::{Item, Links, Tree};
/// use kernel::sync::rcu;
///
/// #[pin_data]
/// struct Task {
///     id: u64,
///     #[pin]
///     links: Links,
/// }
///
/// kernel::impl_has_rcu_links! {
///     impl HasLinks for Task { self.links }
/// }
///
/// impl Item for Task {
///     type Key = u64;
///     fn key(&self) -> u64 {
///         self.id
///     }
/// }
///
/// let tree = KBox::pin_init(Tree::<Task>::new(), GFP_KERNEL)?;
/// let mut tasks = KVec::new();
/// for id in [20, 10, 30] {
///     tasks.push(KBox::pin_init(pin_init!(Task { id, links <- Links::new() }), GFP_KERNEL)?,
///                GFP_KERNEL)?;
/// }
/// for t in &tasks {
///     // SAFETY: this thread is the only writer, and every task is removed below, before it is
///     // freed; no reader is left then.
///     assert!(unsafe { tree.insert(t) });
/// }
///
/// // No allocation may sleep under the RCU read lock: reserve first.
/// let mut ids = KVec::with_capacity(tasks.len(), GFP_KERNEL)?;
/// let g = rcu::read_lock();
/// let mut cur = tree.first(&g);
/// while let Some(c) = cur {
///     ids.push_within_capacity(c.item().id).map_err(|_| ENOMEM)?;
///     cur = c.next();
/// }
/// let found = tree.find(30, &g).map(|t| t.id);
/// let after = tree.first_after(10, &g).map(|c| c.item().id);
/// drop(g);
/// assert_eq!(ids, [10, 20, 30]);
/// assert_eq!((found, after), (Some(30), Some(20)));
///
/// for t in &tasks {
///     // SAFETY: each task is on the tree; this thread is the only writer.
///     unsafe { tree.remove(t) };
/// }
/// # Ok::<(), Error>(())
/// ```
#[repr(C)]
#[pin_data]
pub struct Tree<T, const ID: u64 = 0> {
    #[pin]
    rb: Opaque<bindings::rb_root>,
    #[pin]
    head: Opaque<bindings::list_head>,
    _items: PhantomData<*const T>,
    #[pin]
    _pin: PhantomPinned,
}

// SAFETY: the tree only hands out shared references to its items, which are `Sync` (`Item`).
unsafe impl<T: Item, const ID: u64> Send for Tree<T, ID> {}

// SAFETY: see `Send`; writers serialise (the `unsafe` mutators' contract), readers use RCU.
unsafe impl<T: Item, const ID: u64> Sync for Tree<T, ID> {}

/// `READ_ONCE()` of a link, as `rcu_dereference()` loads it.
///
/// # Safety
///
/// `p` must be a valid link whose writers store it with `WRITE_ONCE()` or
/// `rcu_assign_pointer()`, or whose writers are excluded.
#[inline]
unsafe fn load<L>(p: *mut *mut L) -> *mut L {
    // SAFETY: `p` is valid and aligned (caller), and `Atomic<*mut L>` has its layout.
    unsafe { Atomic::from_ptr(p) }.load(Relaxed)
}

impl<T: Item + HasLinks<ID>, const ID: u64> Tree<T, ID> {
    /// An empty tree.
    pub fn new() -> impl PinInit<Self> {
        // SAFETY: `init` only writes to the slot, which is valid for writes and not yet shared.
        unsafe {
            pin_init::pin_init_from_closure(|slot: *mut Self| {
                Self::init(slot);
                Ok(())
            })
        }
    }

    /// Initialises an empty tree in place (`RB_ROOT` and `INIT_LIST_HEAD()`).
    ///
    /// # Safety
    ///
    /// `ptr` must be valid for writes and not in use.
    pub unsafe fn init(ptr: *mut Self) {
        // SAFETY: valid for writes and not in use (caller).
        unsafe {
            (*Opaque::cast_into(ptr::addr_of!((*ptr).rb))).rb_node = ptr::null_mut();
            bindings::INIT_LIST_HEAD(Opaque::cast_into(ptr::addr_of!((*ptr).head)));
        }
    }

    /// Borrows a tree initialised elsewhere, e.g. by C.
    ///
    /// # Safety
    ///
    /// `ptr` must point to an initialised tree of `T` items linked through their `ID` links,
    /// which upholds the type invariants and stays valid and in place for `'a`.
    pub unsafe fn from_raw<'a>(ptr: *mut Self) -> &'a Self {
        // SAFETY: per the caller.
        unsafe { &*ptr }
    }

    fn head(&self) -> *mut bindings::list_head {
        self.head.get()
    }

    /// The item whose links have `rb` as their red-black node.
    ///
    /// # Safety
    ///
    /// `rb` must be the node of the `ID` links of a `T` that is valid for `'a`.
    #[inline]
    unsafe fn item_of_rb<'a>(rb: *mut bindings::rb_node) -> &'a T {
        // SAFETY: `rb` is the first field of `Links` (`repr(C)`), at `OFFSET` in a valid `T`.
        unsafe { &*rb.byte_sub(T::OFFSET).cast::<T>() }
    }

    /// The item whose links have `list` as their list entry.
    ///
    /// # Safety
    ///
    /// `list` must be the entry of the `ID` links of a `T` that is valid for `'a`.
    #[inline]
    unsafe fn item_of_list<'a>(list: *mut bindings::list_head) -> &'a T {
        let offset = core::mem::offset_of!(Links<ID>, list) + T::OFFSET;
        // SAFETY: `list` is the entry of links at `OFFSET` in a valid `T` (caller).
        unsafe { &*list.byte_sub(offset).cast::<T>() }
    }

    fn links(item: &T) -> &Links<ID> {
        // SAFETY: `item` is a valid `T`; its links live as long as it.
        unsafe { &*T::raw_get_links(ptr::from_ref(item).cast_mut()) }
    }

    /// The first item of the list, under RCU.
    #[inline]
    pub fn first<'g>(&self, _g: &'g Guard) -> Option<Cursor<'_, 'g, T, ID>> {
        // SAFETY: the head of this list (type invariant), in the section of `_g`.
        unsafe { self.step(self.head(), true) }
    }

    /// The cursor at the entry after (or before) `from`.
    ///
    /// # Safety
    ///
    /// The caller must be in an RCU read-side critical section that lasts for `'g`. `from` must
    /// be the head of this list or the list entry of an item that is on it, or was within the
    /// grace period. Backwards, the writers must be excluded.
    #[inline]
    unsafe fn step<'g>(
        &self,
        from: *mut bindings::list_head,
        next: bool,
    ) -> Option<Cursor<'_, 'g, T, ID>> {
        // SAFETY: `from` is a valid entry (caller); a removed entry keeps both links; `next` is
        // stored with `rcu_assign_pointer()`/`WRITE_ONCE()`, `prev` by excluded writers only.
        let to = unsafe {
            if next {
                load(ptr::addr_of_mut!((*from).next))
            } else {
                load(ptr::addr_of_mut!((*from).prev))
            }
        };
        if ptr::eq(to, self.head()) {
            return None;
        }
        // INVARIANT: `to` follows an entry that is (or was, within the grace period) on this
        // list, so it is the entry of an item that is or was on it.
        Some(Cursor {
            tree: self,
            // SAFETY: every entry on the list but the head belongs to a `T`, which RCU keeps
            // valid for `'g` (inserters publish it fully set up).
            item: unsafe { Self::item_of_list(to) },
        })
    }

    /// The item with key `key`, searched without a lock (`rb_find_rcu()`).
    ///
    /// It may miss an item while a writer rebalances the tree; with a sequence count that
    /// writers bump, a miss is retried until no writer ran.
    #[inline]
    pub fn find<'g>(&self, key: T::Key, _g: &'g Guard) -> Option<&'g T> {
        // SAFETY: the root's node and the children are stored with `WRITE_ONCE()` or
        // `rcu_assign_pointer()` (lib/rbtree.c), so the loads race with no plain store, the
        // descent terminates, and it only reaches nodes of items that are or were on this tree
        // within the grace period, which RCU keeps valid.
        unsafe {
            let mut node = load(ptr::addr_of_mut!((*self.rb.get()).rb_node));
            while !node.is_null() {
                let item = Self::item_of_rb(node);
                let k = item.key();
                node = match key.cmp(&k) {
                    Ordering::Less => load(ptr::addr_of_mut!((*node).rb_left)),
                    Ordering::Greater => load(ptr::addr_of_mut!((*node).rb_right)),
                    Ordering::Equal => return Some(item),
                };
            }
        }
        None
    }

    /// The item with the smallest key greater than `key`, as a place to walk from.
    ///
    /// With the writers excluded (the caller holds the lock that serialises them), the answer is
    /// exact. Without, a writer that rebalances the tree meanwhile can make it miss the right
    /// item: a logic error, never a memory error.
    #[inline]
    pub fn first_after<'g>(&self, key: T::Key, _g: &'g Guard) -> Option<Cursor<'_, 'g, T, ID>> {
        let mut best = None;
        // SAFETY: as in `find()`.
        unsafe {
            let mut node = load(ptr::addr_of_mut!((*self.rb.get()).rb_node));
            while !node.is_null() {
                let item = Self::item_of_rb(node);
                node = if key < item.key() {
                    best = Some(item);
                    load(ptr::addr_of_mut!((*node).rb_left))
                } else {
                    load(ptr::addr_of_mut!((*node).rb_right))
                };
            }
        }
        // INVARIANT: an item reached from the red-black tree is on the list (`insert()` puts it
        // there first), or was on it within the grace period.
        best.map(|item| Cursor { tree: self, item })
    }

    /// A cursor at `item`.
    ///
    /// # Safety
    ///
    /// `item` must be on this tree's list, or have been within the grace period of `g`.
    #[inline]
    pub unsafe fn cursor_at<'g>(&self, item: &'g T, _g: &'g Guard) -> Cursor<'_, 'g, T, ID> {
        // INVARIANT: per the caller.
        Cursor { tree: self, item }
    }

    /// Inserts `item` by its key. Returns `false`, inserting nothing, if an item with the same
    /// key is on the tree.
    ///
    /// # Safety
    ///
    /// - The caller serialises the tree's writers (they all hold the same lock).
    /// - The `ID` links of `item` are on no tree, and if they were on one, an RCU grace period
    ///   has passed since they were removed from it.
    /// - `item` stays valid, at the same address, until it is removed with [`Tree::remove`],
    ///   and after that until no RCU read-side critical section that may have found it is left
    ///   (in general, an RCU grace period after the removal).
    ///
    /// # Examples
    ///
    /// A refused duplicate is left as it was, on no tree, also when its links were zeroed rather
    /// than initialised, as those of an item that C defines statically are:
    ///
    /// ```
    /// use kernel::rbtree::rcu::{Item, Links, Tree};
    /// # #[pin_data]
    /// # struct Task { id: u64, #[pin] links: Links }
    /// # kernel::impl_has_rcu_links! { impl HasLinks for Task { self.links } }
    /// # impl Item for Task { type Key = u64; fn key(&self) -> u64 { self.id } }
    ///
    /// let tree = KBox::pin_init(Tree::<Task>::new(), GFP_KERNEL)?;
    /// let a = KBox::pin_init(pin_init!(Task { id: 1, links <- Links::new() }), GFP_KERNEL)?;
    /// let zeroed = pin_init::zeroed::<Links>();
    /// let dup = KBox::pin_init(pin_init!(Task { id: 1, links <- zeroed }), GFP_KERNEL)?;
    /// // SAFETY: this thread is the only writer; `a` is removed below, before it is freed, and
    /// // `dup` is never on the tree.
    /// let inserted = unsafe { (tree.insert(&a), tree.insert(&dup)) };
    /// // SAFETY: this thread is the only writer.
    /// let dup_linked = unsafe { Tree::<Task>::is_linked(&dup) };
    /// // SAFETY: `a` is on the tree; this thread is the only writer.
    /// unsafe { tree.remove(&a) };
    /// assert_eq!(inserted, (true, false));
    /// assert_eq!(dup_linked, (false, false));
    /// # Ok::<(), Error>(())
    /// ```
    pub unsafe fn insert(&self, item: &T) -> bool {
        let key = item.key();
        let links = Self::links(item);
        let (rb, entry) = (links.rb(), links.list());
        // SAFETY: writers are serialised and the items on the tree are valid (caller, type
        // invariant), so the descent reads a stable tree. The entry goes onto the list first,
        // after the item before it in key order (the last node the descent went right at), so
        // that a reader that finds the node in the red-black tree finds it on the list.
        // `list_add_rcu()` and `rb_link_node_rcu()` publish with `rcu_assign_pointer()`, and
        // `rb_insert_color()` rebalances with `WRITE_ONCE()`.
        unsafe {
            let root = self.rb.get();
            let mut link = ptr::addr_of_mut!((*root).rb_node);
            let (mut parent, mut before) = (ptr::null_mut(), ptr::null_mut());
            while !(*link).is_null() {
                parent = *link;
                let k = Self::item_of_rb(parent).key();
                link = match key.cmp(&k) {
                    Ordering::Less => ptr::addr_of_mut!((*parent).rb_left),
                    Ordering::Greater => {
                        before = parent;
                        ptr::addr_of_mut!((*parent).rb_right)
                    }
                    Ordering::Equal => return false,
                };
            }
            let after = if before.is_null() {
                self.head()
            } else {
                Self::links(Self::item_of_rb(before)).list()
            };
            bindings::list_add_rcu(entry, after);
            bindings::rb_link_node_rcu(rb, parent, link);
            bindings::rb_insert_color(rb, root);
        }
        // INVARIANT: the item is in the red-black tree and on the list, both in key order.
        true
    }

    /// Removes `item` from the tree (`rb_erase()`, `RB_CLEAR_NODE()`, `list_bidir_del_rcu()`).
    /// Readers on it can still step away from it in either direction.
    ///
    /// # Safety
    ///
    /// The caller serialises the tree's writers, and `item` is on this tree.
    pub unsafe fn remove(&self, item: &T) {
        let links = Self::links(item);
        let rb = links.rb();
        // SAFETY: the item is on this tree and no other writer runs (caller).
        unsafe {
            bindings::rb_erase(rb, self.rb.get());
            (*rb).__rb_parent_color = rb as usize;
            bindings::list_bidir_del_rcu(links.list());
        }
    }

    /// Whether `item`'s `ID` links are in a red-black tree and on a list.
    ///
    /// # Safety
    ///
    /// The writers of the trees of `ID` that `item` may be on must be excluded.
    pub unsafe fn is_linked(item: &T) -> (bool, bool) {
        let links = Self::links(item);
        // SAFETY: no writer runs (caller).
        unsafe { (links.in_rbtree(), links.on_list()) }
    }
}

/// A place on the list of a [`Tree`], valid in the RCU read-side critical section `'g`: an item
/// that is on the list, or was within the grace period (a removed entry keeps its links).
///
/// # Invariants
///
/// `'g` is an RCU read-side critical section, and `item` is on `tree`'s list, or was within the
/// grace period.
///
/// # Examples
///
/// The item a cursor gives is borrowed from the RCU guard, so it cannot be used once the
/// read-side critical section is over:
///
/// ```
/// use kernel::rbtree::rcu::{Item, Links, Tree};
/// use kernel::sync::rcu;
/// # #[pin_data]
/// # struct Task { id: u64, #[pin] links: Links }
/// # kernel::impl_has_rcu_links! { impl HasLinks for Task { self.links } }
/// # impl Item for Task { type Key = u64; fn key(&self) -> u64 { self.id } }
///
/// fn first_id(tree: &Tree<Task>) -> Option<u64> {
///     let g = rcu::read_lock();
///     let c = tree.first(&g)?;
///     Some(c.item().id) // not after drop(g)
/// }
/// # let tree = KBox::pin_init(Tree::<Task>::new(), GFP_KERNEL)?;
/// # assert_eq!(first_id(&tree), None);
/// # Ok::<(), Error>(())
/// ```
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
    #[inline]
    pub fn item(&self) -> &'g T {
        self.item
    }

    /// The next item on the list (`list_next_rcu()`).
    #[inline]
    pub fn next(&self) -> Option<Self> {
        // SAFETY: the item is or was on this list within the grace period, and `'g` is a
        // read-side critical section (type invariant).
        unsafe { self.tree.step(Tree::<T, ID>::links(self.item).list(), true) }
    }

    /// The previous item on the list (`list_bidir_prev_rcu()`).
    ///
    /// # Safety
    ///
    /// The tree's writers must be excluded: they store `prev` links with plain stores.
    #[inline]
    pub unsafe fn prev(&self) -> Option<Self> {
        // SAFETY: as in `next()`; writers are excluded (caller).
        unsafe {
            self.tree
                .step(Tree::<T, ID>::links(self.item).list(), false)
        }
    }

    /// Keeps this place beyond the read-side critical section with an anchor on the item; `None`
    /// if the item is going away.
    #[inline]
    pub fn hold<A: Anchor<T>>(&self) -> Option<Held<'t, T, A, ID>> {
        // INVARIANT: the anchor was made while the item was on the tree (`Anchor`), and it keeps
        // it there.
        A::try_new(self.item).map(|anchor| Held {
            tree: self.tree,
            anchor,
        })
    }
}

/// A place on the list of a [`Tree`] that outlives RCU read-side critical sections, kept by an
/// [`Anchor`] on its item.
///
/// # Invariants
///
/// The anchored item is on `tree`.
pub struct Held<'t, T, A, const ID: u64 = 0> {
    tree: &'t Tree<T, ID>,
    anchor: A,
}

impl<'t, T: Item + HasLinks<ID>, A: Anchor<T>, const ID: u64> Held<'t, T, A, ID> {
    /// The item.
    #[inline]
    pub fn item(&self) -> &T {
        self.anchor.item()
    }

    /// A cursor at the held place, in a new read-side critical section.
    #[inline]
    pub fn resume<'g>(&'g self, _g: &'g Guard) -> Cursor<'t, 'g, T, ID> {
        // INVARIANT: the item is on the tree (type invariant).
        Cursor {
            tree: self.tree,
            item: self.anchor.item(),
        }
    }
}
