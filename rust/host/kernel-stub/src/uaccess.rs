// SPDX-License-Identifier: GPL-2.0-only

//! User space memory, simulated: each thread has a user address space of regions that a test
//! maps with [`mem::map`]; an access to an address outside them faults. Every access may sleep
//! (it calls [`might_sleep`](crate::task::might_sleep)), and each scalar written is reported to
//! the write hook, if any, with whether it faulted.

use crate::error::{code::*, Result};
use crate::transmute::FromBytes;
use core::mem::{size_of, MaybeUninit};

/// The simulated user address space of this thread (*host only*).
pub mod mem {
    use std::cell::{Cell, RefCell};
    use std::collections::BTreeMap;

    /// The end of user space (`TASK_SIZE_MAX` on x86_64): `access_ok()` fails above it.
    pub const TASK_SIZE: usize = 0x7fff_ffff_f000;

    thread_local! {
        static REGIONS: RefCell<BTreeMap<usize, Vec<u8>>> = const { RefCell::new(BTreeMap::new()) };
        pub(super) static WRITE_HOOK: Cell<Option<WriteHook>> = const { Cell::new(None) };
    }

    /// See [`set_write_hook`].
    pub type WriteHook = fn(usize, u64, bool);

    /// Unmaps everything.
    pub fn reset() {
        REGIONS.with(|r| r.borrow_mut().clear());
    }

    /// Maps `bytes` at `addr` (replacing what overlaps nothing else: regions must not overlap).
    pub fn map(addr: usize, bytes: &[u8]) {
        REGIONS.with(|r| r.borrow_mut().insert(addr, bytes.to_vec()));
    }

    /// The `len` bytes at `addr`, if they are mapped (within one region).
    pub fn read(addr: usize, len: usize) -> Option<Vec<u8>> {
        REGIONS.with(|r| {
            let r = r.borrow();
            let (&start, bytes) = r.range(..=addr).next_back()?;
            bytes
                .get(addr - start..(addr - start).checked_add(len)?)
                .map(<[u8]>::to_vec)
        })
    }

    /// Writes `data` at `addr`; `false`, writing nothing, unless all of it is mapped.
    pub fn write(addr: usize, data: &[u8]) -> bool {
        REGIONS.with(|r| {
            let mut r = r.borrow_mut();
            let Some((&start, bytes)) = r.range_mut(..=addr).next_back() else {
                return false;
            };
            match bytes.get_mut(addr - start..addr - start + data.len()) {
                Some(dst) => {
                    dst.copy_from_slice(data);
                    true
                }
                None => false,
            }
        })
    }

    /// A function called on each scalar written: its address, its value (as a `u64`) and
    /// whether it was written (else it faulted).
    pub fn set_write_hook(f: Option<WriteHook>) {
        WRITE_HOOK.with(|h| h.set(f));
    }
}

fn access_ok(addr: usize, len: usize) -> bool {
    len <= mem::TASK_SIZE && addr <= mem::TASK_SIZE - len
}

/// A user space address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UserPtr(usize);

impl UserPtr {
    /// The address `addr`.
    pub fn from_addr(addr: usize) -> Self {
        UserPtr(addr)
    }

    /// The address of `ptr`.
    pub fn from_ptr(ptr: *mut core::ffi::c_void) -> Self {
        UserPtr(ptr as usize)
    }

    /// The address.
    pub fn addr(self) -> usize {
        self.0
    }

    /// The address `n` bytes further.
    pub fn wrapping_byte_add(self, n: usize) -> Self {
        UserPtr(self.0.wrapping_add(n))
    }
}

/// A range of user space.
pub struct UserSlice {
    ptr: UserPtr,
    length: usize,
}

impl UserSlice {
    /// The `length` bytes at `ptr`.
    pub fn new(ptr: UserPtr, length: usize) -> Self {
        UserSlice { ptr, length }
    }

    /// Whether the whole slice lies in user space (`access_ok()`).
    pub fn access_ok(&self) -> bool {
        access_ok(self.ptr.0, self.length)
    }

    /// A reader of the slice.
    pub fn reader(self) -> UserSliceReader {
        UserSliceReader {
            ptr: self.ptr,
            length: self.length,
        }
    }

    /// A writer of the slice.
    pub fn writer(self) -> UserSliceWriter {
        UserSliceWriter {
            ptr: self.ptr,
            length: self.length,
        }
    }

    /// Reads a `T` whose user space version is the slice's length (`copy_struct_from_user()`):
    /// `E2BIG` for a non-zero byte beyond `T`, `EFAULT` for a bad address.
    pub fn read_extensible<T: FromBytes>(self) -> Result<T> {
        crate::task::might_sleep();
        let (addr, usize, ksize) = (self.ptr.0, self.length, size_of::<T>());
        if usize > ksize {
            if !access_ok(addr + ksize, usize - ksize) {
                return Err(EFAULT);
            }
            let tail = mem::read(addr + ksize, usize - ksize).ok_or(EFAULT)?;
            if tail.iter().any(|&b| b != 0) {
                return Err(E2BIG);
            }
        }
        let size = usize.min(ksize);
        if !access_ok(addr, size) {
            return Err(EFAULT);
        }
        let bytes = mem::read(addr, size).ok_or(EFAULT)?;
        let mut out = MaybeUninit::<T>::zeroed();
        // SAFETY: `bytes` has at most `size_of::<T>()` bytes; any bytes are a valid `T`.
        unsafe {
            core::ptr::copy_nonoverlapping(bytes.as_ptr(), out.as_mut_ptr().cast(), size);
            Ok(out.assume_init())
        }
    }
}

mod private {
    pub trait Sealed {}
}

/// A scalar moved in one access (`get_user()`, `put_user()`).
pub trait UserScalar: private::Sealed + Copy {
    #[doc(hidden)]
    fn to_bytes(self) -> Vec<u8>;
    #[doc(hidden)]
    fn from_bytes(b: &[u8]) -> Self;
    #[doc(hidden)]
    fn to_u64(self) -> u64;
}

macro_rules! user_scalars {
    ($($t:ty),*) => {$(
        impl private::Sealed for $t {}
        impl UserScalar for $t {
            fn to_bytes(self) -> Vec<u8> { self.to_ne_bytes().to_vec() }
            fn from_bytes(b: &[u8]) -> Self { <$t>::from_ne_bytes(b.try_into().unwrap()) }
            fn to_u64(self) -> u64 { self as u64 }
        }
    )*};
}
user_scalars!(u8, u16, u32, u64);

/// Reads a slice front to back.
pub struct UserSliceReader {
    ptr: UserPtr,
    length: usize,
}

impl UserSliceReader {
    /// The bytes left.
    pub fn len(&self) -> usize {
        self.length
    }

    /// Whether no byte is left.
    pub fn is_empty(&self) -> bool {
        self.length == 0
    }

    /// Reads a scalar with one load: `EFAULT` on a bad address or beyond the reader.
    pub fn read_scalar<T: UserScalar>(&mut self) -> Result<T> {
        crate::task::might_sleep();
        let n = size_of::<T>();
        if n > self.length || !access_ok(self.ptr.0, n) {
            return Err(EFAULT);
        }
        let b = mem::read(self.ptr.0, n).ok_or(EFAULT)?;
        self.ptr = self.ptr.wrapping_byte_add(n);
        self.length -= n;
        Ok(T::from_bytes(&b))
    }
}

/// Writes a slice front to back.
pub struct UserSliceWriter {
    ptr: UserPtr,
    length: usize,
}

impl UserSliceWriter {
    /// The bytes left.
    pub fn len(&self) -> usize {
        self.length
    }

    /// Whether no byte is left.
    pub fn is_empty(&self) -> bool {
        self.length == 0
    }

    /// Writes a scalar with one store, whole or (on a fault) not at all: `EFAULT` on a bad
    /// address or beyond the writer.
    pub fn write_scalar<T: UserScalar>(&mut self, value: T) -> Result {
        crate::task::might_sleep();
        let n = size_of::<T>();
        let ok = n <= self.length
            && access_ok(self.ptr.0, n)
            && mem::write(self.ptr.0, &value.to_bytes());
        if let Some(f) = mem::WRITE_HOOK.with(|h| h.get()) {
            f(self.ptr.0, value.to_u64(), ok);
        }
        if !ok {
            return Err(EFAULT);
        }
        self.ptr = self.ptr.wrapping_byte_add(n);
        self.length -= n;
        Ok(())
    }
}

/// Up to `N` scalars collected where user memory cannot be touched, written afterwards.
pub struct Batch<T: UserScalar, const N: usize> {
    buf: [MaybeUninit<T>; N],
    len: usize,
}

impl<T: UserScalar, const N: usize> Batch<T, N> {
    /// An empty batch.
    pub const fn new() -> Self {
        Batch {
            buf: [const { MaybeUninit::uninit() }; N],
            len: 0,
        }
    }

    /// How many values the batch holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the batch holds no value.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends `value`; `false`, storing nothing, if the batch is full.
    pub fn push(&mut self, value: T) -> bool {
        let Some(slot) = self.buf.get_mut(self.len) else {
            return false;
        };
        slot.write(value);
        self.len += 1;
        true
    }

    /// Removes the last value.
    pub fn pop(&mut self) -> Option<T> {
        let last = self.as_slice().last().copied();
        self.len = self.len.saturating_sub(1);
        last
    }

    /// Removes every value.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// The values, in the order they were pushed.
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: `buf[..len]` is initialised.
        unsafe { core::slice::from_raw_parts(self.buf.as_ptr().cast(), self.len) }
    }
}

impl<T: UserScalar, const N: usize> Default for Batch<T, N> {
    fn default() -> Self {
        Self::new()
    }
}
