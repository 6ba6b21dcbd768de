// SPDX-License-Identifier: GPL-2.0

//! Sequential locks.
//!
//! A [`SeqLock`] is the kernel's `seqlock_t`: writers serialise on a spinlock and bump a sequence
//! count around each write, lockless readers retry when the count shows that a writer ran, and
//! exclusive readers take the spinlock without bumping the count.
//!
//! The lock protects no data of its own here: what readers read must be safe to read while it
//! changes (atomics, or RCU-protected structures), and the sequence count only tells them whether
//! to read again.
//!
//! C header: [`include/linux/seqlock.h`](srctree/include/linux/seqlock.h)

use crate::{
    bindings,
    str::{CStr, CStrExt as _},
    sync::LockClassKey,
    types::{NotThreadSafe, Opaque},
};
use core::{marker::PhantomPinned, pin::Pin};
use pin_init::{pin_data, pin_init, PinInit};

/// Creates a [`SeqLock`] initialiser with the given name and new lock classes.
///
/// It uses the name if one is given, otherwise it generates one based on the file name and line
/// number.
#[macro_export]
macro_rules! new_seqlock {
    ($($name:literal)?) => {
        $crate::sync::SeqLock::new(
            $crate::optional_name!($($name)?),
            $crate::static_lock_class!(),
            $crate::static_lock_class!(),
        )
    };
}
pub use new_seqlock;

/// A sequential lock, `seqlock_t`.
///
/// # Invariants
///
/// `inner` is an initialised `seqlock_t`.
///
/// # Examples
///
/// Two values that readers must see as a pair, written under the lock:
///
/// ```
/// use kernel::sync::atomic::{Atomic, Relaxed};
/// use kernel::sync::{new_seqlock, SeqLock};
///
/// #[pin_data]
/// struct Range {
///     #[pin]
///     lock: SeqLock,
///     start: Atomic<u64>,
///     end: Atomic<u64>,
/// }
///
/// impl Range {
///     fn update(&self, start: u64, end: u64) {
///         let _guard = self.lock.write();
///         self.start.store(start, Relaxed);
///         self.end.store(end, Relaxed);
///     }
///
///     fn read(&self) -> (u64, u64) {
///         self.lock.read(|| (self.start.load(Relaxed), self.end.load(Relaxed)))
///     }
/// }
///
/// let r = KBox::pin_init(
///     pin_init!(Range {
///         lock <- new_seqlock!(),
///         start: Atomic::new(0),
///         end: Atomic::new(0),
///     }),
///     GFP_KERNEL,
/// )?;
/// r.update(4096, 8192);
/// assert_eq!(r.read(), (4096, 8192));
/// # Ok::<(), Error>(())
/// ```
#[repr(transparent)]
#[pin_data]
pub struct SeqLock {
    #[pin]
    inner: Opaque<bindings::seqlock_t>,
    #[pin]
    _pin: PhantomPinned,
}

// SAFETY: A `seqlock_t` may be used from any thread; it has no thread-bound state.
unsafe impl Send for SeqLock {}

// SAFETY: All operations on a `seqlock_t` synchronise internally.
unsafe impl Sync for SeqLock {}

impl SeqLock {
    /// Creates a new sequential lock (`seqlock_init()`).
    ///
    /// `lock_key` is the lockdep class of the spinlock, `seq_key` that of the sequence count.
    /// With the same key for both, lockdep reports recursive locking at the first write. Use
    /// [`new_seqlock!`] to make both.
    pub fn new(
        name: &'static CStr,
        lock_key: Pin<&'static LockClassKey>,
        seq_key: Pin<&'static LockClassKey>,
    ) -> impl PinInit<Self> {
        pin_init!(Self {
            // SAFETY: `slot` is valid while the closure is called; `name` and the keys are static.
            inner <- Opaque::ffi_init(|slot| unsafe {
                bindings::__seqlock_init(slot, name.as_char_ptr(), lock_key.as_ptr(), seq_key.as_ptr())
            }),
            _pin: PhantomPinned,
        })
    }

    /// Borrows a lock initialised by C, e.g. with `DEFINE_SEQLOCK()`.
    ///
    /// # Safety
    ///
    /// `ptr` must point to an initialised `seqlock_t` that stays valid for `'a`.
    pub unsafe fn from_raw<'a>(ptr: *mut bindings::seqlock_t) -> &'a Self {
        // SAFETY: `SeqLock` is a transparent wrapper of `seqlock_t`; validity is up to the caller.
        unsafe { &*ptr.cast() }
    }

    /// Starts a lockless read section (`read_seqbegin()`): returns the sequence count to give to
    /// [`SeqLock::read_retry`].
    #[inline]
    pub fn read_begin(&self) -> u32 {
        // SAFETY: `inner` is initialised (type invariant).
        unsafe { bindings::read_seqbegin(self.inner.get()) }
    }

    /// Whether a writer ran since [`SeqLock::read_begin`] returned `start` (`read_seqretry()`):
    /// what was read meanwhile may be inconsistent.
    #[inline]
    pub fn read_retry(&self, start: u32) -> bool {
        // SAFETY: `inner` is initialised (type invariant).
        unsafe { bindings::read_seqretry(self.inner.get(), start) != 0 }
    }

    /// Runs `f` as a lockless reader until no writer ran while it did, and returns its last
    /// result.
    #[inline]
    pub fn read<R>(&self, mut f: impl FnMut() -> R) -> R {
        loop {
            let start = self.read_begin();
            let r = f();
            if !self.read_retry(start) {
                return r;
            }
        }
    }

    /// Takes the lock as a writer (`write_seqlock()`): other writers and exclusive readers wait,
    /// lockless readers retry.
    #[inline]
    pub fn write(&self) -> SeqLockWriteGuard<'_> {
        // SAFETY: `inner` is initialised (type invariant).
        unsafe { bindings::write_seqlock(self.inner.get()) };
        // INVARIANT: the lock was just taken for writing.
        SeqLockWriteGuard {
            lock: self,
            _not_send: NotThreadSafe,
        }
    }

    /// Takes the lock as an exclusive reader (`read_seqlock_excl()`): writers wait, lockless
    /// readers do not retry.
    #[inline]
    pub fn read_excl(&self) -> SeqLockReadGuard<'_> {
        // SAFETY: `inner` is initialised (type invariant).
        unsafe { bindings::read_seqlock_excl(self.inner.get()) };
        // INVARIANT: the lock was just taken as an exclusive reader.
        SeqLockReadGuard {
            lock: self,
            _not_send: NotThreadSafe,
        }
    }
}

/// A [`SeqLock`] held for writing; dropping it releases the lock (`write_sequnlock()`).
///
/// # Invariants
///
/// `lock` is held for writing by this guard.
#[must_use = "the lock unlocks immediately when the guard is unused"]
pub struct SeqLockWriteGuard<'a> {
    lock: &'a SeqLock,
    _not_send: NotThreadSafe,
}

impl<'a> SeqLockWriteGuard<'a> {
    /// The lock this guard holds.
    pub fn lock_ref(&self) -> &'a SeqLock {
        self.lock
    }
}

impl Drop for SeqLockWriteGuard<'_> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: the guard holds the lock for writing (type invariant).
        unsafe { bindings::write_sequnlock(self.lock.inner.get()) };
    }
}

/// A [`SeqLock`] held as an exclusive reader; dropping it releases the lock
/// (`read_sequnlock_excl()`).
///
/// # Invariants
///
/// `lock` is held as an exclusive reader by this guard.
///
/// # Examples
///
/// An exclusive reader excludes the writers but lets lockless readers go on:
///
/// ```
/// use kernel::sync::{new_seqlock, SeqLock};
/// use pin_init::stack_pin_init;
///
/// stack_pin_init!(let lock: SeqLock = new_seqlock!());
/// let excl = lock.read_excl();
/// let start = lock.read_begin();
/// assert!(!lock.read_retry(start));
/// drop(excl);
/// drop(lock.write());
/// assert!(lock.read_retry(start));
/// ```
#[must_use = "the lock unlocks immediately when the guard is unused"]
pub struct SeqLockReadGuard<'a> {
    lock: &'a SeqLock,
    _not_send: NotThreadSafe,
}

impl<'a> SeqLockReadGuard<'a> {
    /// The lock this guard holds.
    pub fn lock_ref(&self) -> &'a SeqLock {
        self.lock
    }
}

impl Drop for SeqLockReadGuard<'_> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: the guard holds the lock as an exclusive reader (type invariant).
        unsafe { bindings::read_sequnlock_excl(self.lock.inner.get()) };
    }
}
