// SPDX-License-Identifier: GPL-2.0

//! Scalars collected where user memory cannot be touched, written to it afterwards.

use super::{UserScalar, UserSliceWriter};
use crate::error::Result;
use core::mem::MaybeUninit;

/// Up to `N` scalars, collected where user memory cannot be accessed (an access may fault and
/// sleep: not under a spinlock, not in an RCU read-side critical section) and written with
/// [`UserSliceWriter::write_batch`] once that is over.
///
/// The storage lives on the stack and is not initialised when the batch is made, so a batch that
/// collects one value does not pay for clearing `N`.
///
/// # Invariants
///
/// `len <= N`, and `buf[..len]` is initialised.
///
/// # Examples
///
/// ```
/// use kernel::uaccess::Batch;
///
/// let mut b = Batch::<u64, 2>::new();
/// assert!(b.push(7) && b.push(8));
/// assert!(!b.push(9)); // full: nothing stored
/// assert_eq!(b.pop(), Some(8));
/// assert_eq!(b.as_slice(), [7]);
/// b.clear();
/// assert!(b.is_empty());
/// ```
pub struct Batch<T: UserScalar, const N: usize> {
    buf: [MaybeUninit<T>; N],
    len: usize,
}

impl<T: UserScalar, const N: usize> Batch<T, N> {
    /// An empty batch.
    #[inline]
    pub const fn new() -> Self {
        // INVARIANT: nothing is initialised, and nothing needs to be.
        Self {
            buf: [const { MaybeUninit::uninit() }; N],
            len: 0,
        }
    }

    /// How many values the batch holds.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the batch holds no value.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends `value`; `false`, storing nothing, if the batch is full.
    #[inline]
    pub fn push(&mut self, value: T) -> bool {
        let Some(slot) = self.buf.get_mut(self.len) else {
            return false;
        };
        slot.write(value);
        // INVARIANT: the slot at the old `len` was just initialised.
        self.len += 1;
        true
    }

    /// Removes the last value.
    #[inline]
    pub fn pop(&mut self) -> Option<T> {
        let last = self.as_slice().last().copied();
        // INVARIANT: fewer initialised slots are still initialised.
        self.len = self.len.saturating_sub(1);
        last
    }

    /// Removes every value.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// The values, in the order they were pushed.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: `buf[..len]` is initialised (type invariant), and `MaybeUninit<T>` has the
        // layout of `T`.
        unsafe { core::slice::from_raw_parts(self.buf.as_ptr().cast(), self.len) }
    }
}

impl<T: UserScalar, const N: usize> Default for Batch<T, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl UserSliceWriter {
    /// Writes the values of `batch` in order, each with [`UserSliceWriter::write_scalar`].
    ///
    /// Fails with [`EFAULT`](crate::error::code::EFAULT) at the first value that faults or does
    /// not fit: the values before it are written.
    #[inline]
    pub fn write_batch<T: UserScalar, const N: usize>(&mut self, batch: &Batch<T, N>) -> Result {
        for &v in batch.as_slice() {
            self.write_scalar(v)?;
        }
        Ok(())
    }
}
