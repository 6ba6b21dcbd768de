// SPDX-License-Identifier: GPL-2.0-only

//! The user boundary: the `listns()` request and the id buffer.

use core::mem::MaybeUninit;
use core::ptr;

use kernel::bindings;
use kernel::error::{code, Error, Result};
use kernel::sync::rcu::Guard;
use kernel::uaccess::UserPtr;

use crate::req::Errno;

/// The kernel's error codes for the errnos of the pure request rules
/// (`crate::req`, which the host tests compile without the kernel crate).
/// Each `Errno` discriminant is its errno number, so the match compiles to
/// a negation.
impl From<Errno> for Error {
    fn from(e: Errno) -> Error {
        match e {
            Errno::NoEnt => code::ENOENT,
            Errno::TooBig => code::E2BIG,
            Errno::Fault => code::EFAULT,
            Errno::Inval => code::EINVAL,
            Errno::Overflow => code::EOVERFLOW,
            Errno::NotSupp => code::EOPNOTSUPP,
        }
    }
}

/// `struct ns_id_req`, read from user space.
pub(crate) type NsIdReq = bindings::ns_id_req;

/// Reads the `struct ns_id_req` at `req` with `copy_ns_id_req()`'s rules
/// (kernel/nstree.c:421-445): `-EFAULT` if the size cannot be read,
/// `-E2BIG` above `PAGE_SIZE`, `-EINVAL` below version 0, then
/// `copy_struct_from_user()` (`-E2BIG` for non-zero bytes past what we
/// know, `-EFAULT`).
///
/// # Examples
///
/// ```no_run
/// use kernel::error::Result;
/// use kernel::uaccess::UserPtr;
/// use nstree_rs::ffi::{read_request, NsIdReq};
///
/// fn request(req: UserPtr) -> Result<NsIdReq> {
///     read_request(req) // -EFAULT, -E2BIG or -EINVAL as C's copy_ns_id_req()
/// }
/// ```
pub(crate) fn read_request(req: UserPtr) -> Result<NsIdReq> {
    // `get_user(usize, &req->size)`: `size` is the first field, a `u32`.
    let mut size = 0u32;
    // SAFETY: `size` is a valid `u32` destination; the source is a user
    // pointer, which `get_user()` checks itself and reads with an
    // exception table entry ("Return: zero on success, or -EFAULT on
    // error", arch/x86/include/asm/uaccess.h:105-108). It may sleep, as
    // `UserSlice::read()` may: called in process context, outside RCU.
    if unsafe { bindings::get_user_u32(&mut size, req.as_const_ptr().cast()) } != 0 {
        return Err(code::EFAULT);
    }
    let usize = size as usize;
    crate::req::check_size(usize, kernel::page::PAGE_SIZE)?;
    let mut kreq = NsIdReq::default();
    // SAFETY: `kreq` is a valid destination of `size_of::<NsIdReq>()`
    // bytes; the source is a user pointer, which `copy_struct_from_user()`
    // (include/linux/uaccess.h:393) checks and reads with fault handling.
    let ret = unsafe {
        bindings::copy_struct_from_user(
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

/// The user buffer of namespace ids that `listns()` fills: where the next
/// id goes and how many more fit.
///
/// Two words, so that a walk gets it by value in two registers and keeps
/// it there; the walk's limit test is [`room()`](Self::room) itself.
///
/// # Invariants
///
/// `next..next + room` is within a range that passed `access_ok()`.
///
/// # Examples
///
/// Ids staged under RCU, written after the read-side section, which
/// `push_all()` ends:
///
/// ```no_run
/// use kernel::error::Result;
/// use kernel::sync::rcu;
/// use kernel::uaccess::UserPtr;
/// use nstree_rs::ffi::{IdBatch, IdBuf, UserIds};
///
/// fn two_ids(ids: UserPtr) -> Result {
///     let mut out = UserIds::new(ids, 2)?; // access_ok() of 2 ids
///     let mut buf = IdBuf::<2>::new();
///     let mut batch = IdBatch::new(&mut buf);
///     let g = rcu::read_lock();
///     batch.push(1);
///     batch.push(2);
///     out.push_all(batch.as_slice(), g)?; // rcu_read_unlock(), then put_user() x 2
///     assert_eq!(out.room(), 0);
///     Ok(())
/// }
/// ```
///
/// The guard is gone after `push_all()`: nothing found under it can be
/// used there, where `put_user()` may sleep:
///
/// ```compile_fail,E0382
/// # use kernel::error::Result;
/// # use kernel::sync::rcu;
/// # use nstree_rs::ffi::{TreeRoot, Unified, UserIds};
/// fn write_then_walk(root: &TreeRoot<Unified>, out: &mut UserIds) -> Result {
///     let g = rcu::read_lock();
///     out.push_all(&[1], g)?;
///     let _still = root.first(&g); // the section ended in push_all()
///     Ok(())
/// }
/// ```
pub(crate) struct UserIds {
    next: *mut u64,
    room: usize,
}

impl UserIds {
    /// Checks the whole buffer with `access_ok()` (`-EFAULT`), as the C
    /// syscall does before anything else is read (kernel/nstree.c:765).
    pub(crate) fn new(ids: UserPtr, nr: usize) -> Result<UserIds> {
        // `nr` is at most `MAX_IDS` here (`req::check_args()`), so this
        // cannot overflow; a range that did would not be accessible.
        let len = nr
            .checked_mul(core::mem::size_of::<u64>())
            .ok_or(code::EFAULT)?;
        // SAFETY: `access_ok()` (include/asm-generic/access_ok.h:45, with
        // x86's `__access_ok()`, arch/x86/include/asm/uaccess_64.h:98) only
        // checks the range against the user address space limit.
        if !unsafe { bindings::access_ok(ids.as_const_ptr(), len) } {
            return Err(code::EFAULT);
        }
        // INVARIANT: `ids..ids + nr` passed `access_ok()` just above.
        Ok(UserIds {
            next: ids.as_mut_ptr().cast(),
            room: nr,
        })
    }

    /// How many more ids fit.
    #[inline]
    pub(crate) fn room(&self) -> usize {
        self.room
    }

    /// Stores `ids` after the ids already stored, in order, each with
    /// `put_user()`: one 8-byte store, so a slot that straddles a fault is
    /// not partially written (`copy_to_user()` would copy the bytes before
    /// the fault). `-EFAULT` at the first fault, or for the first id that
    /// does not fit, with the ids before it stored.
    ///
    /// Takes the caller's RCU guard and drops it first: `put_user()` may
    /// fault and sleep, a bug inside an RCU read-side section, so the type
    /// of this function makes the caller give its section up.
    #[inline]
    pub(crate) fn push_all(&mut self, ids: &[u64], g: Guard) -> Result {
        // rcu_read_unlock(): the caller's read-side section ends here, before
        // anything that may sleep.
        drop(g);
        if ids.is_empty() {
            return Ok(());
        }
        let n = ids.len().min(self.room);
        // SAFETY: `next..next + n` is within the range that passed
        // `access_ok()` (invariant: `n <= room`); `ids` is valid for reads
        // of `ids.len() >= n` ids; the helper's `put_user()`
        // (rust/helpers/ns_common.c, as kernel/nstree.c:735 writes each id)
        // handles faults.
        let done = unsafe { bindings::ns_put_user_ids(self.next, ids.as_ptr(), n) }.min(n);
        // INVARIANT: the helper wrote at most `n <= room` ids; what is left
        // of the checked range starts after them.
        self.next = self.next.wrapping_add(done);
        self.room -= done;
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
        // `MaybeUninit<u64>` has the layout of `u64`, the `u64` of the
        // user buffer (`u64 __user *, ns_ids`, kernel/nstree.c:752).
        unsafe { core::slice::from_raw_parts(self.ids.as_ptr().cast::<u64>(), self.len) }
    }
}
