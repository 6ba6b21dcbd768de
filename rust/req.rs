// SPDX-License-Identifier: GPL-2.0-only

//! The rules of a `listns()` request: plain values in, a decision out, with C's errors in C's
//! order.

#![forbid(unsafe_code)]

use core::num::NonZeroU64;

/// `struct ns_id_req` version 0, the only one: 32 bytes.
pub(crate) const NS_ID_REQ_SIZE_VER0: usize = 32;

/// At most this many ids per call (`EOVERFLOW` above).
pub(crate) const MAX_IDS: usize = 1_000_000;

/// The `user_ns_id` that names the caller's user namespace.
pub(crate) const LISTNS_CURRENT_USER: u64 = u64::MAX;

/// The `CLONE_NEW*` flags of the namespace types.
pub(crate) mod ns_type {
    pub(crate) const TIME: u32 = 1 << 7;
    pub(crate) const MNT: u32 = 1 << 17;
    pub(crate) const CGROUP: u32 = 1 << 25;
    pub(crate) const UTS: u32 = 1 << 26;
    pub(crate) const IPC: u32 = 1 << 27;
    pub(crate) const USER: u32 = 1 << 28;
    pub(crate) const PID: u32 = 1 << 29;
    pub(crate) const NET: u32 = 1 << 30;
    /// `NS_ALL`.
    pub(crate) const ALL: u32 = TIME | MNT | CGROUP | UTS | IPC | USER | PID | NET;
}

/// The errors of `listns()`; each discriminant is its errno.
#[allow(
    dead_code,
    reason = "the kernel's own ENOENT and EFAULT stand for `NoEnt` and `Fault`, which the \
              const checks of listns.rs use, unseen by rustc 1.85"
)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub(crate) enum Errno {
    /// Nothing follows the id to resume after.
    NoEnt = 2,
    /// A request larger than a page, or with a non-zero unknown tail.
    TooBig = 7,
    /// A user buffer cannot be read or written.
    Fault = 14,
    /// Bad flags, size, spare field or owner.
    Inval = 22,
    /// More than [`MAX_IDS`] ids asked for.
    Overflow = 75,
    /// Unknown namespace type bits.
    NotSupp = 95,
}

impl Errno {
    /// The errno number.
    #[allow(
        dead_code,
        reason = "only listns.rs's const checks call it, unseen by rustc 1.85"
    )]
    pub(crate) const fn to_errno(self) -> i32 {
        self as i32
    }
}

/// Chooses the error of two checks of which at least one failed. Out of line: the checks
/// succeed, and the compiler then tests both in one branch.
#[cold]
#[inline(never)]
fn first_failed(first: bool, e1: Errno, e2: Errno) -> Errno {
    if first {
        e1
    } else {
        e2
    }
}

/// The arguments checked before anything is read: `flags` must be 0, `nr_ns_ids` at most
/// [`MAX_IDS`].
#[inline]
pub(crate) fn check_args(nr_ns_ids: usize, flags: u32) -> Result<(), Errno> {
    if flags == 0 && nr_ns_ids <= MAX_IDS {
        return Ok(());
    }
    Err(first_failed(flags != 0, Errno::Inval, Errno::Overflow))
}

/// The request's `size`: above a page is `E2BIG`, below version 0 `EINVAL`.
#[inline]
pub(crate) fn check_size(size: usize, page_size: usize) -> Result<(), Errno> {
    if size <= page_size && size >= NS_ID_REQ_SIZE_VER0 {
        return Ok(());
    }
    Err(first_failed(size > page_size, Errno::TooBig, Errno::Inval))
}

/// The copied request: `spare` must be 0, `ns_type` only known bits. `spare2` is not checked,
/// as in C.
#[inline]
pub(crate) fn check_request(spare: u32, ns_type: u32) -> Result<(), Errno> {
    if spare == 0 && ns_type & !ns_type::ALL == 0 {
        return Ok(());
    }
    Err(first_failed(spare != 0, Errno::Inval, Errno::NotSupp))
}

/// The one type a filter names, if it names exactly one: that type's tree is walked instead of
/// the unified one.
pub(crate) fn single_type(filter: u32) -> Option<u32> {
    (filter.count_ones() == 1).then_some(filter)
}

/// Whether a namespace of type `ty` passes the type filter (0: all types).
pub(crate) fn requested(filter: u32, ty: u32) -> bool {
    filter == 0 || filter & ty != 0
}

/// Where a walk resumes: after the id `last`, or from the start for 0 (no namespace has id 0).
pub(crate) fn resume_after(last: u64) -> Option<NonZeroU64> {
    NonZeroU64::new(last)
}
