// SPDX-License-Identifier: GPL-2.0-only

//! The `kernel` crate on the host: what `rust/cascade.rs`, `rust/req.rs`, `rust/listns.rs` and
//! `rust/tree.rs` use, with the signatures of the kernel's and host implementations that run.
//!
//! - [`rbtree::rcu`]: the RCU-readable tree (`c-glue/rust/kernel/rbtree/rcu.rs`) as a sorted,
//!   intrusive, doubly linked list: a removed item keeps its links, so a cursor on it still steps
//!   on; lookups scan the list.
//! - [`sync`]: [`sync::SeqLock`] (a spinning lock and a sequence count), RCU read-side sections
//!   that count their depth, atomics, `ARef`, `Refcount`.
//! - [`uaccess`]: a simulated user address space, per thread, in which a test maps regions: every
//!   access outside them faults.
//! - [`task`]: `need_resched()` and `cond_resched()`, which a test can hook.
//!
//! Sleeping in atomic context (a user access, `cond_resched()` or [`task::might_sleep`] inside an
//! RCU read-side section or under a [`sync::SeqLock`]) panics, as does [`warn_on!`]: on the host a
//! splat is a test failure. Items that the kernel does not have are marked *host only*.

pub mod rbtree;
pub mod sync;
pub mod uaccess;

/// The C constants and types the crate's logic names (bindgen's in the kernel).
#[allow(non_camel_case_types, non_upper_case_globals, missing_docs)]
pub mod bindings {
    pub const NS_ID_REQ_SIZE_VER0: u32 = 32;
    pub const LISTNS_CURRENT_USER: i32 = -1;

    pub const CLONE_NEWTIME: u32 = 0x0000_0080;
    pub const CLONE_NEWNS: u32 = 0x0002_0000;
    pub const CLONE_NEWCGROUP: u32 = 0x0200_0000;
    pub const CLONE_NEWUTS: u32 = 0x0400_0000;
    pub const CLONE_NEWIPC: u32 = 0x0800_0000;
    pub const CLONE_NEWUSER: u32 = 0x1000_0000;
    pub const CLONE_NEWPID: u32 = 0x2000_0000;
    pub const CLONE_NEWNET: u32 = 0x4000_0000;

    pub const ENOENT: u32 = 2;
    pub const E2BIG: u32 = 7;
    pub const EFAULT: u32 = 14;
    pub const EINVAL: u32 = 22;
    pub const EOVERFLOW: u32 = 75;
    pub const EOPNOTSUPP: u32 = 95;

    /// `struct ns_id_req`.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default)]
    pub struct ns_id_req {
        pub size: u32,
        pub spare: u32,
        pub ns_id: u64,
        pub __bindgen_anon_1: ns_id_req__bindgen_ty_1,
    }

    /// The anonymous `listns` struct of `struct ns_id_req`.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default)]
    pub struct ns_id_req__bindgen_ty_1 {
        pub ns_type: u32,
        pub spare2: u32,
        pub user_ns_id: u64,
    }
}

/// Kernel errors.
pub mod error {
    use core::num::NonZeroI32;

    /// A kernel error: a negative errno.
    #[derive(Clone, Copy, PartialEq, Eq)]
    pub struct Error(NonZeroI32);

    /// `Result` with a kernel error.
    pub type Result<T = (), E = Error> = core::result::Result<T, E>;

    impl Error {
        /// The error of a negative errno.
        pub fn from_errno(errno: i32) -> Error {
            assert!((-4095..0).contains(&errno), "not an errno: {errno}");
            Error(NonZeroI32::new(errno).unwrap())
        }

        /// The negative errno.
        pub fn to_errno(self) -> i32 {
            self.0.get()
        }
    }

    impl core::fmt::Debug for Error {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            write!(f, "Error({})", self.0)
        }
    }

    /// The error codes.
    pub mod code {
        macro_rules! codes {
            ($($name:ident = $n:literal),*) => {$(
                #[doc = concat!("`-", stringify!($name), "`.")]
                pub const $name: super::Error = super::Error(match core::num::NonZeroI32::new(-$n) {
                    Some(n) => n,
                    None => panic!(),
                });
            )*};
        }
        codes!(
            ENOENT = 2,
            E2BIG = 7,
            ENOMEM = 12,
            EFAULT = 14,
            EINVAL = 22,
            EOVERFLOW = 75,
            EOPNOTSUPP = 95
        );
    }
}

/// The prelude.
pub mod prelude {
    pub use crate::error::{code::*, Error, Result};
    pub use core::ffi::{c_int, c_long, c_uint, c_void};
}

/// Pages.
pub mod page {
    /// `PAGE_SIZE` on x86_64.
    pub const PAGE_SIZE: usize = 4096;
}

/// Conversions from bytes.
pub mod transmute {
    /// Types for which any bit pattern is a valid value.
    ///
    /// # Safety
    ///
    /// Every bit pattern of the size of `Self` is a valid `Self`.
    pub unsafe trait FromBytes {}
}

/// The current task and the scheduler.
pub mod task {
    use std::cell::Cell;

    thread_local! {
        static NEED_RESCHED: Cell<Option<fn() -> bool>> = const { Cell::new(None) };
        static COND_RESCHED: Cell<Option<fn()>> = const { Cell::new(None) };
    }

    /// Whether the scheduler wants this CPU back: the hook's answer, `false` without one.
    #[inline]
    pub fn need_resched() -> bool {
        NEED_RESCHED.with(Cell::get).is_some_and(|f| f())
    }

    /// Lets the scheduler run: may sleep; calls the hook, if any.
    #[inline]
    pub fn cond_resched() {
        might_sleep();
        if let Some(f) = COND_RESCHED.with(Cell::get) {
            f();
        }
    }

    /// Panics in atomic context: in an RCU read-side section or holding a `SeqLock`.
    #[track_caller]
    pub fn might_sleep() {
        let (rcu, locks) = crate::sync::atomic_context();
        if (rcu != 0 || locks != 0) && !std::thread::panicking() {
            panic!("BUG: sleeping function called from invalid context (RCU depth {rcu}, locks held {locks})");
        }
    }

    /// *Host only*: this thread's `need_resched()` and `cond_resched()` hooks.
    pub fn set_hooks(need_resched: Option<fn() -> bool>, cond_resched: Option<fn()>) {
        NEED_RESCHED.with(|h| h.set(need_resched));
        COND_RESCHED.with(|h| h.set(cond_resched));
    }
}

/// Bug reports.
pub mod bug {
    /// A `WARN_ON()` that fired: a panic on the host, unless the thread is panicking already.
    #[track_caller]
    pub fn warn() {
        if !std::thread::panicking() {
            panic!("WARNING: WARN_ON() fired");
        }
    }
}

/// `WARN_ON(cond)`: the condition, after reporting it if it holds (a panic on the host).
#[macro_export]
macro_rules! warn_on {
    ($cond:expr) => {{
        let cond = $cond;
        if cond {
            $crate::bug::warn();
        }
        cond
    }};
}

/// `DO_ONCE_LITE()`: on the host, every time, so that each test sees its own reports.
#[macro_export]
macro_rules! do_once_lite {
    ($($body:tt)*) => {{
        $($body)*
    }};
}
