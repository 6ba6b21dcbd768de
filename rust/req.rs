// SPDX-License-Identifier: GPL-2.0-only

//! The rules of a `listns()` request, as pure functions.
//!
//! Everything here is plain data in, decision out, so the host tests run
//! the same code; the errors are those the C implementation returns, in
//! the same order. `listns.rs` maps each [`Errno`] to the kernel's error
//! code and asserts at compile time that [`Errno::to_errno`] and the uapi
//! constants here equal the kernel's.
//!
//! The examples run on the host (`make host-test`), where the host crate
//! (`rust/host`) compiles this very file as `nstree_rs::req`. The kernel
//! does not compile them.

#![forbid(unsafe_code)]
// The items are `pub` for the host test crate (rust/host), which builds
// this very file as a module and tests it from outside.
#![allow(unreachable_pub)]

// The error branches are marked cold, as C's `unlikely()`. That alone
// does not keep the compiler from computing a function's result with
// conditional moves and dispatching on it again where the caller looks
// at it (it did for `check_args()` and `check_request()`, which
// therefore test both their rules in one condition and choose the error
// after it).
use core::hint::cold_path;
use core::num::NonZeroU64;

/// `struct ns_id_req` version 0, the only one: 32 bytes.
pub const NS_ID_REQ_SIZE_VER0: usize = 32;

/// At most this many ids per call (`-EOVERFLOW` above).
pub const MAX_IDS: usize = 1_000_000;

/// `user_ns_id` value naming the caller's user namespace.
pub const LISTNS_CURRENT_USER: u64 = u64::MAX;

/// The `CLONE_NEW*` flags (uapi `enum ns_type`).
///
/// # Examples
///
/// ```
/// use nstree_rs::req::ns_type;
///
/// assert_eq!(ns_type::ALL.count_ones(), 8);
/// assert_eq!(ns_type::NET, 0x4000_0000); // CLONE_NEWNET
/// ```
pub mod ns_type {
    /// Time namespace.
    pub const TIME: u32 = 1 << 7;
    /// Mount namespace.
    pub const MNT: u32 = 1 << 17;
    /// Cgroup namespace.
    pub const CGROUP: u32 = 1 << 25;
    /// UTS namespace.
    pub const UTS: u32 = 1 << 26;
    /// IPC namespace.
    pub const IPC: u32 = 1 << 27;
    /// User namespace.
    pub const USER: u32 = 1 << 28;
    /// PID namespace.
    pub const PID: u32 = 1 << 29;
    /// Network namespace.
    pub const NET: u32 = 1 << 30;
    /// All of them (`NS_ALL`).
    pub const ALL: u32 = TIME | MNT | CGROUP | UTS | IPC | USER | PID | NET;
}

/// The errors `listns()` can return.
///
/// Each variant's discriminant is its errno number, so that turning one
/// into the kernel's error is a negation rather than a table (the
/// assertions in `listns.rs` check the numbers against the kernel's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum Errno {
    /// `ENOENT`: no namespace on the walked tree has an id above the
    /// `ns_id` to continue after.
    NoEnt = 2,
    /// `E2BIG`: request larger than a page, or non-zero unknown tail.
    TooBig = 7,
    /// `EFAULT`: a user buffer cannot be read or written.
    Fault = 14,
    /// `EINVAL`: bad flags, size, spare field, or owner.
    Inval = 22,
    /// `EOVERFLOW`: more than [`MAX_IDS`] requested.
    Overflow = 75,
    /// `EOPNOTSUPP`: unknown namespace type bits.
    NotSupp = 95,
}

impl Errno {
    /// The (positive) errno number, as on every Linux architecture that
    /// uses the generic numbers.
    ///
    /// # Examples
    ///
    /// ```
    /// use nstree_rs::req::Errno;
    ///
    /// assert_eq!(Errno::NoEnt.to_errno(), 2); // ENOENT
    /// assert_eq!(Errno::NotSupp.to_errno(), 95); // EOPNOTSUPP
    /// ```
    pub const fn to_errno(self) -> i32 {
        self as i32
    }
}

/// The syscall arguments checked before anything is read from user space:
/// `flags` must be 0 (`EINVAL`), `nr_ns_ids` at most [`MAX_IDS`]
/// (`EOVERFLOW`).
///
/// # Examples
///
/// ```
/// use nstree_rs::req::{check_args, Errno, MAX_IDS};
///
/// assert_eq!(check_args(MAX_IDS, 0), Ok(()));
/// assert_eq!(check_args(MAX_IDS + 1, 0), Err(Errno::Overflow));
/// // flags first: EINVAL wins
/// assert_eq!(check_args(MAX_IDS + 1, 1), Err(Errno::Inval));
/// ```
pub fn check_args(nr_ns_ids: usize, flags: u32) -> Result<(), Errno> {
    // Both rules in one test, the error chosen after it: see
    // `check_request()`.
    if flags == 0 && nr_ns_ids <= MAX_IDS {
        return Ok(());
    }
    cold_path();
    Err(if flags != 0 {
        Errno::Inval
    } else {
        Errno::Overflow
    })
}

/// The request's `size` field: above a page is `E2BIG`, below version 0
/// is `EINVAL` (checked in that order, as `copy_ns_id_req()` does).
///
/// # Examples
///
/// ```
/// use nstree_rs::req::{check_size, Errno, NS_ID_REQ_SIZE_VER0};
///
/// assert_eq!(check_size(NS_ID_REQ_SIZE_VER0, 4096), Ok(()));
/// assert_eq!(check_size(4096, 4096), Ok(())); // a larger, newer struct
/// assert_eq!(check_size(4097, 4096), Err(Errno::TooBig));
/// assert_eq!(check_size(24, 4096), Err(Errno::Inval));
/// ```
pub fn check_size(size: usize, page_size: usize) -> Result<(), Errno> {
    if size > page_size {
        cold_path();
        return Err(Errno::TooBig);
    }
    if size < NS_ID_REQ_SIZE_VER0 {
        cold_path();
        return Err(Errno::Inval);
    }
    Ok(())
}

/// The copied request: `spare` must be 0 (`EINVAL`), `ns_type` only known
/// bits (`EOPNOTSUPP`). `spare2` is not checked, as in C.
///
/// # Examples
///
/// ```
/// use nstree_rs::req::{check_request, ns_type, Errno};
///
/// assert_eq!(check_request(0, ns_type::NET | ns_type::USER), Ok(()));
/// assert_eq!(check_request(1, 0), Err(Errno::Inval));
/// assert_eq!(check_request(0, 1), Err(Errno::NotSupp));
/// ```
pub fn check_request(spare: u32, ns_type: u32) -> Result<(), Errno> {
    // Both rules in one test, the error chosen after it (`spare` first,
    // as C). Written as two early returns, the compiler turns them into
    // a chain of conditional moves that makes the result (`Ok` or one of
    // two errnos) and tests it again where the caller's `?` looks at it,
    // across the prologue (bench-disasm.md, round 4); as one test, the
    // success path is the test and its branch.
    if spare == 0 && ns_type & !ns_type::ALL == 0 {
        return Ok(());
    }
    cold_path();
    Err(if spare != 0 {
        Errno::Inval
    } else {
        Errno::NotSupp
    })
}

/// The single type a filter names, if it names exactly one: the walk then
/// uses that type's tree instead of the unified one.
///
/// # Examples
///
/// ```
/// use nstree_rs::req::{ns_type, single_type};
///
/// assert_eq!(single_type(ns_type::NET), Some(ns_type::NET));
/// assert_eq!(single_type(ns_type::NET | ns_type::PID), None); // unified
/// assert_eq!(single_type(0), None); // all types: unified
/// ```
pub fn single_type(filter: u32) -> Option<u32> {
    (filter.count_ones() == 1).then_some(filter)
}

/// Whether a namespace of type `ty` passes the type filter (0: all).
///
/// # Examples
///
/// ```
/// use nstree_rs::req::{ns_type, requested};
///
/// assert!(requested(0, ns_type::UTS));
/// assert!(requested(ns_type::UTS | ns_type::IPC, ns_type::UTS));
/// assert!(!requested(ns_type::NET, ns_type::UTS));
/// ```
pub fn requested(filter: u32, ty: u32) -> bool {
    filter == 0 || filter & ty != 0
}

/// Where a walk resumes: after the namespace `last` (`None`: from the
/// start). The walk starts at the namespace with the smallest id
/// strictly greater than `last` on the walked tree, active or not
/// (`lookup_ns_id_after()`, Linux 7.3); `ENOENT` only if there is none.
/// Nothing is greater than `u64::MAX`, so resuming after it is `ENOENT`.
///
/// No namespace has id 0, so 0 means "from the start", and the answer is
/// one register, as C's `last_ns_id` is.
///
/// # Examples
///
/// ```
/// use core::num::NonZeroU64;
/// use nstree_rs::req::resume_after;
///
/// assert_eq!(resume_after(0), None); // from the start
/// assert_eq!(resume_after(42), NonZeroU64::new(42)); // the first id > 42
/// assert_eq!(resume_after(u64::MAX), NonZeroU64::new(u64::MAX)); // nothing: ENOENT
/// ```
pub fn resume_after(last: u64) -> Option<NonZeroU64> {
    NonZeroU64::new(last)
}

/// Whether the caller may see a namespace: the namespace is one of its
/// own, or it can see all namespaces (`may_list_ns()`). Both are asked
/// lazily, in C's order: "sees all" (`may_see_all_namespaces()`) is a
/// capability check, which marks the task as having used its privilege
/// (`PF_SUPERPRIV`, shown by process accounting) when it succeeds, so it
/// is asked only for a namespace that is not the caller's own, as C asks
/// it. The caller caches its answer: it is the same for every candidate.
/// (The walk also writes the ids it has collected before it asks, as C
/// has written them by then: see `Filter::wants()` in listns.rs.)
///
/// # Examples
///
/// ```
/// use nstree_rs::req::may_list;
///
/// assert!(may_list(|| true, || unreachable!("not asked")));
/// assert!(may_list(|| false, || true));
/// assert!(!may_list(|| false, || false));
/// ```
pub fn may_list(is_current: impl FnOnce() -> bool, see_all: impl FnOnce() -> bool) -> bool {
    is_current() || see_all()
}
