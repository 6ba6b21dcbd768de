// SPDX-License-Identifier: GPL-2.0-only
// Copyright (c) 2026 nstree-rs developers

//! The user boundary: the `listns()` request and the id buffer.

use core::mem::MaybeUninit;
use core::ptr;

use kernel::bindings;
use kernel::error::{code, Error, Result};
use kernel::uaccess::UserPtr;

/// `struct ns_id_req`, read from user space.
pub(crate) type NsIdReq = bindings::ns_id_req;

/// Reads the `struct ns_id_req` at `req` with `copy_ns_id_req()`'s rules:
/// `-EFAULT` if the size cannot be read, `-E2BIG` above `PAGE_SIZE`,
/// `-EINVAL` below version 0, then `copy_struct_from_user()` (`-E2BIG` for
/// non-zero bytes past what we know, `-EFAULT`).
pub(crate) fn read_request(req: UserPtr) -> Result<NsIdReq> {
    let mut size = 0u32;
    // SAFETY: `size` is a valid destination; `get_user()` checks the
    // user address and handles faults.
    if unsafe {
        bindings::nstree_rs_get_user_u32(ptr::addr_of_mut!(size), req.as_const_ptr().cast())
    } != 0
    {
        return Err(code::EFAULT);
    }
    let usize = size as usize;
    crate::req::check_size(usize, kernel::page::PAGE_SIZE)?;
    let mut kreq = NsIdReq::default();
    // SAFETY: `kreq` is a valid destination of `size_of::<NsIdReq>()`
    // bytes; the source is a user pointer, checked by the callee.
    let ret = unsafe {
        bindings::nstree_rs_copy_struct_from_user(
            ptr::addr_of_mut!(kreq).cast(),
            core::mem::size_of::<NsIdReq>(),
            req.as_const_ptr(),
            usize,
        )
    };
    if ret != 0 {
        return Err(Error::from_errno(ret));
    }
    Ok(kreq)
}

/// The user buffer of namespace ids that `listns()` fills.
///
/// # Invariants
///
/// `ids..ids + cap` passed `access_ok()`; `len <= cap`.
pub(crate) struct UserIds {
    ids: *mut u64,
    cap: usize,
    len: usize,
}

impl UserIds {
    /// Checks the whole buffer with `access_ok()` (`-EFAULT`), as the C
    /// syscall does before anything else is read.
    pub(crate) fn new(ids: UserPtr, nr: usize) -> Result<UserIds> {
        let len = nr * core::mem::size_of::<u64>();
        // SAFETY: `access_ok()` only checks the range against the user
        // address space limit.
        if !unsafe { bindings::nstree_rs_access_ok(ids.as_const_ptr(), len) } {
            return Err(code::EFAULT);
        }
        Ok(UserIds {
            ids: ids.as_mut_ptr().cast(),
            cap: nr,
            len: 0,
        })
    }

    /// Stores `ids` after the ids already stored, in order, each with
    /// `put_user()`: one 8-byte store, so a slot that straddles a fault is
    /// not partially written (`copy_to_user()` would copy the bytes before
    /// the fault). `-EFAULT` at the first fault, or for the first id that
    /// does not fit, with the ids before it stored.
    ///
    /// One glue call for all of `ids` (`nstree_rs_put_user_ids()`, a loop
    /// of `put_user()`): an id costs what it costs in C's loop, not a
    /// call of its own.
    pub(crate) fn push_all(&mut self, ids: &[u64]) -> Result {
        if ids.is_empty() {
            return Ok(());
        }
        let n = ids.len().min(self.cap - self.len);
        let dst = self.ids.wrapping_add(self.len);
        // SAFETY: `dst..dst + n` is within the range that passed
        // `access_ok()` (invariant: `len + n <= cap`); `ids` is valid for
        // reads of `ids.len() >= n` ids; `put_user()` checks each user address
        // and handles faults.
        let done = unsafe { bindings::nstree_rs_put_user_ids(dst, ids.as_ptr(), n) };
        // INVARIANT: the glue wrote at most `n` ids, so `len <= cap`.
        self.len += done.min(n);
        if done < ids.len() {
            return Err(code::EFAULT);
        }
        Ok(())
    }
}

/// Ids collected under RCU, to be written to user space with
/// [`UserIds::push_all`] once the read-side section is over.
///
/// A fixed-capacity buffer on the stack that is not cleared on creation: a
/// walk that lists one id must not pay for zeroing all `N` slots (512
/// bytes, a `memset()` per call, for the walk's batch of 64).
///
/// The batch lives in two parts: the slots, an [`IdBuf`] the caller keeps
/// on its stack, and the batch itself (a pointer to them and the count).
/// With the count inside the slot array's struct, LLVM's SROA cannot keep it
/// in a register (the slots are indexed by a variable), so every push loaded
/// and stored it through the stack: about 2 instructions per listed id
/// (`listns_all`) that C's `ids[nr++]` with a local `nr` does not pay.
///
/// # Invariants
///
/// `ids[..len]` are initialised; `len <= N`.
pub(crate) struct IdBatch<'b, const N: usize> {
    ids: &'b mut [MaybeUninit<u64>; N],
    len: usize,
}

/// The uninitialised slots of an [`IdBatch`].
pub(crate) struct IdBuf<const N: usize>([MaybeUninit<u64>; N]);

impl<const N: usize> IdBuf<N> {
    /// `N` uninitialised slots.
    #[inline]
    pub(crate) fn new() -> Self {
        IdBuf([MaybeUninit::uninit(); N])
    }
}

impl<'b, const N: usize> IdBatch<'b, N> {
    /// An empty batch in `buf`.
    #[inline]
    pub(crate) fn new(buf: &'b mut IdBuf<N>) -> Self {
        IdBatch {
            ids: &mut buf.0,
            len: 0,
        }
    }

    /// The number of ids in the batch.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Appends `id`; `false`, and nothing stored, if the batch is full.
    #[inline]
    pub(crate) fn push(&mut self, id: u64) -> bool {
        let Some(slot) = self.ids.get_mut(self.len) else {
            return false;
        };
        slot.write(id);
        self.len += 1;
        true
    }

    /// Drops the last id, if any.
    #[inline]
    pub(crate) fn pop(&mut self) {
        self.len = self.len.saturating_sub(1);
    }

    /// Empties the batch.
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    /// The ids, in the order they were pushed.
    #[inline]
    pub(crate) fn as_slice(&self) -> &[u64] {
        // SAFETY: the first `len` slots are initialised (invariant) and
        // `MaybeUninit<u64>` has the layout of `u64`.
        unsafe { core::slice::from_raw_parts(self.ids.as_ptr().cast::<u64>(), self.len) }
    }
}
