// SPDX-License-Identifier: GPL-2.0-only
// Copyright (c) 2026 nstree-rs developers

//! A stand-in for the kernel crate, for the host build of nstree_rs's
//! signatures (see `rust/host/build.rs`).
//!
//! It declares the names that the signatures, types and constants of the
//! kernel crate's modules use, with the properties the type checker sees
//! in the kernel: [`types::Opaque`] is `!Sync`, `!Send` and `!Unpin` as
//! there (an `UnsafeCell`, a `PhantomPinned`), [`sync::rcu::Guard`] is
//! `!Send` and runs code on drop (so a borrow of it ends where the
//! kernel's does), [`bindings`]' structs are plain C structs. Nothing here
//! runs: the host build of the signatures is only type-checked and linked,
//! never executed, and the layout constants are placeholders.

#![no_std]
#![allow(
    non_camel_case_types,
    non_upper_case_globals,
    clippy::missing_safety_doc
)]

/// The C types and constants the signatures name (bindgen's in the
/// kernel).
pub mod bindings {
    /// A C struct whose fields the host build never reads.
    macro_rules! c_struct {
        ($($name:ident),* $(,)?) => {$(
            #[doc = concat!("`struct ", stringify!($name), "`.")]
            #[repr(C)]
            #[derive(Clone, Copy, Default)]
            pub struct $name {
                _private: [u64; 0],
            }
        )*};
    }
    c_struct!(
        ns_common,
        ns_tree,
        ns_tree_node,
        ns_tree_root,
        rb_node,
        rb_root,
        list_head,
        ns_id_req,
        user_namespace,
        refcount_t,
    );

    /// Layout constants: placeholders (the kernel's come from
    /// `include/linux/nstree_rs.h`, evaluated by clang).
    pub const NSTREE_RS_NS_COMMON_SIZE: usize = 0;
    #[allow(missing_docs)]
    pub const NSTREE_RS_NS_TREE_OFFSET: usize = 0;
    #[allow(missing_docs)]
    pub const NSTREE_RS_NS_RCU_OFFSET: usize = 0;
    #[allow(missing_docs)]
    pub const NSTREE_RS_NS_REF_ACTIVE_OFFSET: usize = 0;
    #[allow(missing_docs)]
    pub const NSTREE_RS_NS_UNIFIED_NODE_OFFSET: usize = 0;
    #[allow(missing_docs)]
    pub const NSTREE_RS_NS_TREE_NODE_OFFSET: usize = 0;
    #[allow(missing_docs)]
    pub const NSTREE_RS_NS_OWNER_NODE_OFFSET: usize = 0;
    #[allow(missing_docs)]
    pub const NSTREE_RS_NS_OWNER_ROOT_OFFSET: usize = 0;
    #[allow(missing_docs)]
    pub const NSTREE_RS_NS_REF_OFFSET: usize = 0;
    #[allow(missing_docs)]
    pub const NSTREE_RS_NS_TYPE_OFFSET: usize = 0;
    #[allow(missing_docs)]
    pub const NSTREE_RS_OPS_OFFSET: usize = 0;
    #[allow(missing_docs)]
    pub const NSTREE_RS_INUM_OFFSET: usize = 0;
    #[allow(missing_docs)]
    pub const NSTREE_RS_USER_NS_NS_OFFSET: usize = 0;

    /// `NS_LAST_INIT_ID` (`enum init_ns_id`).
    pub const init_ns_id_NS_LAST_INIT_ID: u32 = 8;
}

/// C types (`kernel::ffi`).
pub mod ffi {
    /// `long` on x86_64.
    pub type c_long = isize;
}

/// `kernel::types`.
pub mod types {
    use core::cell::UnsafeCell;
    use core::marker::PhantomPinned;
    use core::mem::MaybeUninit;

    /// A C object that Rust does not assume anything about: as in the
    /// kernel, `!Sync`, `!Send`, `!Unpin`.
    #[repr(transparent)]
    pub struct Opaque<T> {
        value: UnsafeCell<MaybeUninit<T>>,
        _pin: PhantomPinned,
    }

    impl<T> Opaque<T> {
        /// A new opaque value.
        pub const fn new(value: T) -> Self {
            Opaque {
                value: UnsafeCell::new(MaybeUninit::new(value)),
                _pin: PhantomPinned,
            }
        }

        /// An uninitialised opaque value.
        pub const fn uninit() -> Self {
            Opaque {
                value: UnsafeCell::new(MaybeUninit::uninit()),
                _pin: PhantomPinned,
            }
        }

        /// The raw pointer to the value.
        pub const fn get(&self) -> *mut T {
            UnsafeCell::raw_get(&self.value).cast()
        }
    }

    /// `PhantomData<*mut ()>`: neither `Send` nor `Sync`.
    pub type NotThreadSafe = core::marker::PhantomData<*mut ()>;

    /// The value of [`NotThreadSafe`](type@NotThreadSafe).
    #[allow(non_upper_case_globals)]
    pub const NotThreadSafe: NotThreadSafe = core::marker::PhantomData;
}

/// `kernel::error`.
pub mod error {
    /// A kernel error code.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Error(core::num::NonZeroI32);

    /// `Result` with a kernel error.
    pub type Result<T = (), E = Error> = core::result::Result<T, E>;

    /// The error codes.
    pub mod code {}
}

/// `kernel::uaccess`.
pub mod uaccess {
    /// A user-space address.
    #[derive(Clone, Copy)]
    pub struct UserPtr(#[allow(dead_code)] *mut core::ffi::c_void);
}

/// `kernel::sync`.
pub mod sync {
    use crate::types::Opaque;

    /// `refcount_t`.
    #[repr(transparent)]
    pub struct Refcount(Opaque<crate::bindings::refcount_t>);

    // As in the kernel: refcount_t is updated atomically.
    unsafe impl Send for Refcount {}
    unsafe impl Sync for Refcount {}

    /// `kernel::sync::rcu`.
    pub mod rcu {
        use crate::types::NotThreadSafe;

        /// Evidence that the RCU read side lock is held: `!Send`, and
        /// dropping it unlocks.
        pub struct Guard(NotThreadSafe);

        impl Guard {
            /// `rcu_read_lock()`.
            pub fn new() -> Self {
                Guard(NotThreadSafe)
            }

            /// `rcu_read_unlock()`, explicitly.
            pub fn unlock(self) {}
        }

        impl Default for Guard {
            fn default() -> Self {
                Self::new()
            }
        }

        impl Drop for Guard {
            fn drop(&mut self) {}
        }

        /// `rcu_read_lock()`.
        pub fn read_lock() -> Guard {
            Guard::new()
        }
    }

    /// `kernel::sync::atomic`.
    pub mod atomic {
        use core::cell::UnsafeCell;

        /// An atomic value.
        #[repr(transparent)]
        pub struct Atomic<T>(UnsafeCell<T>);

        // As in the kernel: only accessed atomically.
        unsafe impl<T: Send> Sync for Atomic<T> {}

        impl<T> Atomic<T> {
            /// A new atomic.
            pub const fn new(v: T) -> Self {
                Atomic(UnsafeCell::new(v))
            }
        }

        /// Relaxed ordering.
        pub struct Relaxed;
        /// Fully ordered.
        pub struct Full;
    }
}
