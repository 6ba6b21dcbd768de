// SPDX-License-Identifier: GPL-2.0

//! Scalars moved in one access (`get_user()`, `put_user()`), and the checks of a whole range.
//!
//! [`UserSliceReader::read`] and [`UserSliceWriter::write`] copy bytes (`copy_from_user()`,
//! `copy_to_user()`): a value that straddles a fault may be partly written. A scalar written with
//! [`UserSliceWriter::write_scalar`] is written whole or not at all, as C's `put_user()` writes
//! it, and both scalar accesses are a single load or store with an exception table entry, where a
//! copy is a function call.

use super::{UserSlice, UserSliceReader, UserSliceWriter};
use crate::{bindings, error::Result, prelude::*, transmute::FromBytes};
use core::mem::{size_of, MaybeUninit};

mod private {
    use crate::ffi::c_void;

    /// A value only this module can make: the accesses below cannot be called from elsewhere,
    /// even through a `T: UserScalar` bound.
    pub struct Token(());

    /// The accesses of a [`UserScalar`](super::UserScalar).
    pub trait Sealed: Sized {
        /// `get_user()` into `dst`; whether it succeeded.
        ///
        /// # Safety
        ///
        /// `dst` must be valid for writes of `Self`.
        unsafe fn get_user(dst: *mut Self, src: *const c_void, _: Token) -> bool;

        /// `put_user()` of `self` to `dst`; whether it succeeded.
        fn put_user(self, dst: *mut c_void, _: Token) -> bool;
    }

    pub(super) const TOKEN: fn() -> Token = || Token(());
}

use private::{Sealed, Token, TOKEN};

/// A scalar that [`UserSliceReader::read_scalar`] and [`UserSliceWriter::write_scalar`] move in
/// one access. Implemented for the unsigned integer types of 1, 2, 4 and 8 bytes.
pub trait UserScalar: Sealed + Copy {}

macro_rules! impl_user_scalar {
    ($($t:ty => $get:ident, $put:ident;)*) => {$(
        impl Sealed for $t {
            #[inline]
            unsafe fn get_user(dst: *mut Self, src: *const c_void, _: Token) -> bool {
                // SAFETY: `dst` is valid for writes (caller); the helper's `get_user()` checks
                // `src` and handles faults.
                unsafe { bindings::$get(dst.cast(), src.cast()) == 0 }
            }

            #[inline]
            fn put_user(self, dst: *mut c_void, _: Token) -> bool {
                // SAFETY: the helper's `put_user()` checks `dst` and handles faults.
                unsafe { bindings::$put(self, dst.cast()) == 0 }
            }
        }

        impl UserScalar for $t {}
    )*};
}

impl_user_scalar! {
    u8 => get_user_u8, put_user_u8;
    u16 => get_user_u16, put_user_u16;
    u32 => get_user_u32, put_user_u32;
    u64 => get_user_u64, put_user_u64;
}

impl UserSlice {
    /// Whether the whole slice lies in user space (`access_ok()`).
    ///
    /// Every access to a slice that does not fails with [`EFAULT`] anyway; checking first lets a
    /// system call fail before it has done anything, as C system calls that check their buffers
    /// up front do.
    ///
    /// # Examples
    ///
    /// ```
    /// use kernel::uaccess::{UserPtr, UserSlice};
    ///
    /// // The kernel's half of the address space is never user space.
    /// assert!(!UserSlice::new(UserPtr::from_addr(usize::MAX - 7), 8).access_ok());
    /// ```
    #[inline]
    pub fn access_ok(&self) -> bool {
        // SAFETY: `access_ok()` only compares the range with the user address space limit.
        unsafe { bindings::access_ok(self.ptr.as_const_ptr(), self.length) }
    }

    /// Reads a `T` that user space may know in another version: the slice's length is the size
    /// of user space's `T` (`copy_struct_from_user()`).
    ///
    /// Fields that an older, shorter version lacks read as zero. Bytes beyond the kernel's `T`,
    /// which a newer version has, must be zero: else this fails with [`E2BIG`]. It fails with
    /// [`EFAULT`] on a bad address.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use kernel::uaccess::{UserPtr, UserSlice};
    ///
    /// #[repr(C)]
    /// #[derive(Default)]
    /// struct Args {
    ///     flags: u64,
    ///     fd: u32,
    ///     pad: u32,
    /// }
    ///
    /// // SAFETY: every bit pattern is a valid `Args`.
    /// unsafe impl kernel::transmute::FromBytes for Args {}
    ///
    /// fn args(uargs: UserPtr, usize: usize) -> Result<Args> {
    ///     UserSlice::new(uargs, usize).read_extensible()
    /// }
    /// ```
    pub fn read_extensible<T: FromBytes>(self) -> Result<T> {
        let mut out = MaybeUninit::<T>::uninit();
        // SAFETY: `out` is valid for writes of `size_of::<T>()` bytes, which
        // `copy_struct_from_user()` fills (copies and zeroes) when it succeeds.
        let ret = unsafe {
            bindings::copy_struct_from_user(
                out.as_mut_ptr().cast(),
                size_of::<T>(),
                self.ptr.as_const_ptr(),
                self.length,
            )
        };
        if ret != 0 {
            return Err(Error::from_errno(ret));
        }
        // SAFETY: every byte is initialised, and any bytes are a valid `T` (`FromBytes`).
        Ok(unsafe { out.assume_init() })
    }
}

impl UserSliceReader {
    /// Reads a scalar with one load (`get_user()`).
    ///
    /// Fails with [`EFAULT`] on a bad address or out of the bounds of this reader.
    #[inline]
    pub fn read_scalar<T: UserScalar>(&mut self) -> Result<T> {
        if size_of::<T>() > self.length {
            return Err(EFAULT);
        }
        let mut out = MaybeUninit::<T>::uninit();
        // SAFETY: `out` is valid for writes of a `T`.
        if !unsafe { T::get_user(out.as_mut_ptr(), self.ptr.as_const_ptr(), TOKEN()) } {
            return Err(EFAULT);
        }
        self.ptr = self.ptr.wrapping_byte_add(size_of::<T>());
        self.length -= size_of::<T>();
        // SAFETY: `get_user()` succeeded, so it wrote the value.
        Ok(unsafe { out.assume_init() })
    }
}

impl UserSliceWriter {
    /// Writes a scalar with one store (`put_user()`): written whole, or, on a fault, not at all.
    ///
    /// Fails with [`EFAULT`] on a bad address or out of the bounds of this writer.
    ///
    /// # Examples
    ///
    /// Values written one by one, as far as they go:
    ///
    /// ```no_run
    /// use kernel::uaccess::{UserPtr, UserSlice};
    ///
    /// fn ids_to_user(dst: UserPtr, ids: &[u64]) -> Result<usize> {
    ///     let mut w = UserSlice::new(dst, ids.len() * 8).writer();
    ///     for (n, &id) in ids.iter().enumerate() {
    ///         if w.write_scalar(id).is_err() {
    ///             return Ok(n); // the ids before it are written
    ///         }
    ///     }
    ///     Ok(ids.len())
    /// }
    /// ```
    #[inline]
    pub fn write_scalar<T: UserScalar>(&mut self, value: T) -> Result {
        if size_of::<T>() > self.length || !value.put_user(self.ptr.as_mut_ptr(), TOKEN()) {
            return Err(EFAULT);
        }
        self.ptr = self.ptr.wrapping_byte_add(size_of::<T>());
        self.length -= size_of::<T>();
        Ok(())
    }
}
