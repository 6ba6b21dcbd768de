// SPDX-License-Identifier: GPL-2.0-only

//! Synchronisation: atomics, reference counts, `SeqLock` and RCU read-side sections.

use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering::*};

thread_local! {
    /// RCU read-side depth and `SeqLock`s held, of this thread.
    static RCU_DEPTH: Cell<usize> = const { Cell::new(0) };
    static LOCKS_HELD: Cell<usize> = const { Cell::new(0) };
    static THREAD_ID: usize = {
        static NEXT: AtomicUsize = AtomicUsize::new(1);
        NEXT.fetch_add(1, Relaxed)
    };
}

/// This thread's RCU read-side depth and the number of `SeqLock`s it holds.
pub(crate) fn atomic_context() -> (usize, usize) {
    (RCU_DEPTH.with(Cell::get), LOCKS_HELD.with(Cell::get))
}

/// Atomics (`kernel::sync::atomic`).
pub mod atomic {
    use std::sync::atomic::Ordering as O;

    /// A memory ordering.
    pub trait Ordering: Copy {
        #[doc(hidden)]
        const LOAD: O;
        #[doc(hidden)]
        const STORE: O;
        #[doc(hidden)]
        const RMW: O;
    }
    macro_rules! orderings {
        ($($name:ident: $load:ident $store:ident $rmw:ident;)*) => {$(
            #[doc = concat!("The `", stringify!($name), "` ordering.")]
            #[derive(Clone, Copy)]
            pub struct $name;
            impl Ordering for $name {
                const LOAD: O = O::$load;
                const STORE: O = O::$store;
                const RMW: O = O::$rmw;
            }
        )*};
    }
    orderings! {
        Relaxed: Relaxed Relaxed Relaxed;
        Acquire: Acquire Relaxed Acquire;
        Release: Relaxed Release Release;
        Full: SeqCst SeqCst SeqCst;
    }

    /// A type with an atomic counterpart.
    pub trait AtomicType: Copy {
        #[doc(hidden)]
        type Repr: Send + Sync;
        #[doc(hidden)]
        fn repr(v: Self) -> Self::Repr;
        #[doc(hidden)]
        fn load(r: &Self::Repr, o: O) -> Self;
        #[doc(hidden)]
        fn store(r: &Self::Repr, v: Self, o: O);
        #[doc(hidden)]
        fn fetch_add(r: &Self::Repr, v: Self, o: O) -> Self;
        #[doc(hidden)]
        fn fetch_sub(r: &Self::Repr, v: Self, o: O) -> Self;
        #[doc(hidden)]
        fn cmpxchg(r: &Self::Repr, old: Self, new: Self, o: O) -> Result<Self, Self>;
    }
    macro_rules! atomic_types {
        ($($t:ty => $a:ident),*) => {$(
            impl AtomicType for $t {
                type Repr = std::sync::atomic::$a;
                fn repr(v: Self) -> Self::Repr { Self::Repr::new(v) }
                fn load(r: &Self::Repr, o: O) -> Self { r.load(o) }
                fn store(r: &Self::Repr, v: Self, o: O) { r.store(v, o) }
                fn fetch_add(r: &Self::Repr, v: Self, o: O) -> Self { r.fetch_add(v, o) }
                fn fetch_sub(r: &Self::Repr, v: Self, o: O) -> Self { r.fetch_sub(v, o) }
                fn cmpxchg(r: &Self::Repr, old: Self, new: Self, o: O) -> Result<Self, Self> {
                    let fail = if matches!(o, O::SeqCst) { O::SeqCst } else { O::Relaxed };
                    r.compare_exchange(old, new, o, fail)
                }
            }
        )*};
    }
    atomic_types!(i32 => AtomicI32, u32 => AtomicU32, i64 => AtomicI64, u64 => AtomicU64);

    /// An atomic value.
    #[repr(transparent)]
    pub struct Atomic<T: AtomicType>(T::Repr);

    impl<T: AtomicType> Atomic<T> {
        /// A new atomic.
        pub fn new(v: T) -> Self {
            Atomic(T::repr(v))
        }

        /// Loads the value.
        pub fn load<Ord: Ordering>(&self, _: Ord) -> T {
            T::load(&self.0, Ord::LOAD)
        }

        /// Stores `v`.
        pub fn store<Ord: Ordering>(&self, v: T, _: Ord) {
            T::store(&self.0, v, Ord::STORE)
        }

        /// Adds `v`; the value before.
        pub fn fetch_add<Ord: Ordering>(&self, v: T, _: Ord) -> T {
            T::fetch_add(&self.0, v, Ord::RMW)
        }

        /// Subtracts `v`; the value before.
        pub fn fetch_sub<Ord: Ordering>(&self, v: T, _: Ord) -> T {
            T::fetch_sub(&self.0, v, Ord::RMW)
        }

        /// Replaces `old` by `new`: `Ok(old)`, or `Err` with the value found.
        pub fn cmpxchg<Ord: Ordering>(&self, old: T, new: T, _: Ord) -> Result<T, T> {
            T::cmpxchg(&self.0, old, new, Ord::RMW)
        }
    }
}

/// Always reference-counted objects (`kernel::sync::aref`).
pub mod aref {
    use core::marker::PhantomData;
    use core::ops::Deref;
    use core::ptr::NonNull;

    /// An object that is always reference-counted.
    ///
    /// # Safety
    ///
    /// `inc_ref` and `dec_ref` keep the object alive while a count is held.
    pub unsafe trait AlwaysRefCounted {
        /// Takes a count.
        fn inc_ref(&self);

        /// Drops a count.
        ///
        /// # Safety
        ///
        /// The caller owns a count on `obj`.
        unsafe fn dec_ref(obj: NonNull<Self>);
    }

    /// An owned count on a `T`.
    pub struct ARef<T: AlwaysRefCounted> {
        ptr: NonNull<T>,
        _p: PhantomData<T>,
    }

    // SAFETY: as in the kernel: shared access to a `T` from any thread needs `T: Sync`, and the
    // count may be dropped on any thread.
    unsafe impl<T: AlwaysRefCounted + Sync + Send> Send for ARef<T> {}
    // SAFETY: see `Send`.
    unsafe impl<T: AlwaysRefCounted + Sync + Send> Sync for ARef<T> {}

    impl<T: AlwaysRefCounted> ARef<T> {
        /// Takes over a count the caller owns.
        ///
        /// # Safety
        ///
        /// The caller owns a count on `ptr`, which it gives up.
        pub unsafe fn from_raw(ptr: NonNull<T>) -> Self {
            ARef {
                ptr,
                _p: PhantomData,
            }
        }

        /// Gives up the count without dropping it.
        pub fn into_raw(me: Self) -> NonNull<T> {
            core::mem::ManuallyDrop::new(me).ptr
        }
    }

    impl<T: AlwaysRefCounted> Clone for ARef<T> {
        fn clone(&self) -> Self {
            self.inc_ref();
            // SAFETY: the count was just taken.
            unsafe { Self::from_raw(self.ptr) }
        }
    }

    impl<T: AlwaysRefCounted> Deref for ARef<T> {
        type Target = T;

        fn deref(&self) -> &T {
            // SAFETY: the count keeps the object alive.
            unsafe { self.ptr.as_ref() }
        }
    }

    impl<T: AlwaysRefCounted> From<&T> for ARef<T> {
        fn from(b: &T) -> Self {
            b.inc_ref();
            // SAFETY: the count was just taken.
            unsafe { Self::from_raw(NonNull::from(b)) }
        }
    }

    impl<T: AlwaysRefCounted> Drop for ARef<T> {
        fn drop(&mut self) {
            // SAFETY: this `ARef` owns a count.
            unsafe { T::dec_ref(self.ptr) }
        }
    }
}

/// `refcount_t`.
#[repr(transparent)]
pub struct Refcount(atomic::Atomic<i32>);

impl Refcount {
    /// A count of `n`.
    pub fn new(n: i32) -> Self {
        Refcount(atomic::Atomic::new(n))
    }

    /// The count as an atomic.
    pub fn as_atomic(&self) -> &atomic::Atomic<i32> {
        &self.0
    }

    /// `refcount_inc()`.
    pub fn inc(&self) {
        self.0.fetch_add(1, atomic::Relaxed);
    }

    /// `refcount_dec_and_test()`.
    pub fn dec_and_test(&self) -> bool {
        self.0.fetch_sub(1, atomic::Full) == 1
    }
}

/// A sequential lock, `seqlock_t`: a spinning lock for writers and exclusive readers, and a
/// sequence count that writers bump. Taking it twice on one thread panics (lockdep would report
/// the deadlock).
pub struct SeqLock {
    seq: AtomicU32,
    locked: AtomicBool,
    owner: AtomicUsize,
}

impl Default for SeqLock {
    fn default() -> Self {
        Self::new()
    }
}

impl SeqLock {
    /// *Host only*: an unlocked lock (the kernel's is pin-initialised).
    pub const fn new() -> Self {
        SeqLock {
            seq: AtomicU32::new(0),
            locked: AtomicBool::new(false),
            owner: AtomicUsize::new(0),
        }
    }

    /// *Host only*: whether this thread holds the lock.
    pub fn held_by_me(&self) -> bool {
        self.locked.load(Acquire) && self.owner.load(Relaxed) == THREAD_ID.with(|t| *t)
    }

    fn lock(&self) {
        assert!(
            !self.held_by_me(),
            "SeqLock taken twice by one thread: deadlock"
        );
        while self
            .locked
            .compare_exchange_weak(false, true, Acquire, Relaxed)
            .is_err()
        {
            std::thread::yield_now();
        }
        self.owner.store(THREAD_ID.with(|t| *t), Relaxed);
        LOCKS_HELD.with(|l| l.set(l.get() + 1));
    }

    fn unlock(&self) {
        self.owner.store(0, Relaxed);
        self.locked.store(false, Release);
        LOCKS_HELD.with(|l| l.set(l.get() - 1));
    }

    /// `read_seqbegin()`.
    pub fn read_begin(&self) -> u32 {
        loop {
            let s = self.seq.load(Acquire);
            if s & 1 == 0 {
                return s;
            }
            assert!(
                !self.held_by_me(),
                "read_seqbegin() under the write lock: deadlock"
            );
            std::thread::yield_now();
        }
    }

    /// `read_seqretry()`.
    pub fn read_retry(&self, start: u32) -> bool {
        std::sync::atomic::fence(Acquire);
        self.seq.load(Relaxed) != start
    }

    /// Runs `f` until no writer ran while it did.
    pub fn read<R>(&self, mut f: impl FnMut() -> R) -> R {
        loop {
            let start = self.read_begin();
            let r = f();
            if !self.read_retry(start) {
                return r;
            }
        }
    }

    /// `write_seqlock()`.
    pub fn write(&self) -> SeqLockWriteGuard<'_> {
        self.lock();
        self.seq.fetch_add(1, Release);
        std::sync::atomic::fence(Release);
        SeqLockWriteGuard {
            lock: self,
            _not_send: PhantomData,
        }
    }

    /// `read_seqlock_excl()`.
    pub fn read_excl(&self) -> SeqLockReadGuard<'_> {
        self.lock();
        SeqLockReadGuard {
            lock: self,
            _not_send: PhantomData,
        }
    }
}

/// A [`SeqLock`] held for writing.
#[must_use = "the lock unlocks immediately when the guard is unused"]
pub struct SeqLockWriteGuard<'a> {
    lock: &'a SeqLock,
    _not_send: PhantomData<*mut ()>,
}

impl Drop for SeqLockWriteGuard<'_> {
    fn drop(&mut self) {
        self.lock.seq.fetch_add(1, Release);
        self.lock.unlock();
    }
}

/// A [`SeqLock`] held as an exclusive reader.
#[must_use = "the lock unlocks immediately when the guard is unused"]
pub struct SeqLockReadGuard<'a> {
    lock: &'a SeqLock,
    _not_send: PhantomData<*mut ()>,
}

impl Drop for SeqLockReadGuard<'_> {
    fn drop(&mut self) {
        self.lock.unlock();
    }
}

/// RCU read-side critical sections.
pub mod rcu {
    use super::RCU_DEPTH;
    use std::cell::Cell;
    use std::marker::PhantomData;

    thread_local! {
        static LOCK_HOOK: Cell<Option<fn()>> = const { Cell::new(None) };
    }

    /// An RCU read-side critical section, ended by dropping it.
    pub struct Guard(PhantomData<*mut ()>);

    impl Guard {
        /// `rcu_read_lock()`; then the hook, if any, inside the section.
        pub fn new() -> Self {
            RCU_DEPTH.with(|d| d.set(d.get() + 1));
            if let Some(f) = LOCK_HOOK.with(Cell::get) {
                f();
            }
            Guard(PhantomData)
        }

        /// `rcu_read_unlock()`.
        pub fn unlock(self) {}
    }

    impl Default for Guard {
        fn default() -> Self {
            Self::new()
        }
    }

    impl Drop for Guard {
        fn drop(&mut self) {
            RCU_DEPTH.with(|d| d.set(d.get() - 1));
        }
    }

    /// `rcu_read_lock()`.
    pub fn read_lock() -> Guard {
        Guard::new()
    }

    /// Whether this thread is in a read-side section.
    pub fn read_lock_held() -> bool {
        RCU_DEPTH.with(Cell::get) != 0
    }

    /// *Host only*: a function run each time this thread enters a read-side section.
    pub fn set_lock_hook(f: Option<fn()>) {
        LOCK_HOOK.with(|h| h.set(f));
    }
}
