// SPDX-License-Identifier: GPL-2.0-only

//! A stand-in for the kernel crate, for the host build of nstree_rs's
//! signatures (see `rust/host/build.rs`).
//!
//! It declares the names that the signatures, types and constants of the
//! kernel crate's modules use, with the properties the type checker sees
//! in the kernel: [`types::Opaque`] has the kernel's definition (an
//! `UnsafeCell<MaybeUninit<T>>` and a `PhantomPinned`), so it is `!Sync`
//! and `!Unpin` as there, and `Send` exactly when `T` is (7.3 promises
//! only `!Sync`), [`sync::rcu::Guard`] is
//! `!Send` and runs code on drop (so a borrow of it ends where the
//! kernel's does), [`bindings`]' structs are plain C structs. Nothing here
//! runs: the host build of the signatures is only type-checked and linked,
//! never executed, and the layout constants are placeholders.

#![no_std]
#![allow(
    dead_code,
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
        proc_ns_operations,
        seqlock_t,
        atomic_t,
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
    pub const NSTREE_RS_NS_COMMON_ALIGN: usize = 64;
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
    /// `int`.
    pub type c_int = i32;
}

/// `kernel::prelude`: the pin-initialisation names the signatures use.
pub mod prelude {
    pub use crate::error::{Error, Result};
    pub use crate::init::PinInit;
}

/// `kernel::init` (the `pin-init` crate's traits).
pub mod init {
    /// An in-place initialiser of a pinned `T`.
    ///
    /// # Safety
    ///
    /// As in the kernel's `pin-init`: the initialiser fully initialises the
    /// slot on success.
    pub unsafe trait PinInit<T: ?Sized, E = core::convert::Infallible> {}

    /// What the generated body of a function returning `impl PinInit<T>`
    /// returns (`rust/host/build.rs`): nothing runs on the host.
    pub struct HostStub;

    // SAFETY: never run: the host build is only type-checked and linked
    // (see the crate documentation), so no slot is ever left uninitialised.
    unsafe impl<T: ?Sized, E> PinInit<T, E> for HostStub {}
}

/// `kernel::alloc`.
pub mod alloc {
    use core::marker::PhantomData;
    use core::ops::{Deref, DerefMut};
    use core::pin::Pin;

    use crate::error::Error;
    use crate::init::PinInit;

    /// Allocation flags.
    #[derive(Clone, Copy)]
    pub struct Flags(u32);

    /// `kernel::alloc::flags`.
    pub mod flags {
        /// `GFP_KERNEL`.
        pub const GFP_KERNEL: super::Flags = super::Flags(0);
    }

    /// A kmalloc'ed box, as the kernel's `KBox`: `Deref` to its value,
    /// movable out of unless pinned.
    pub struct KBox<T: ?Sized>(PhantomData<*mut T>);

    impl<T> KBox<T> {
        /// Allocates and pin-initialises a `T`.
        pub fn pin_init<E>(_init: impl PinInit<T, E>, _flags: Flags) -> Result<Pin<KBox<T>>, Error>
        where
            Error: From<E>,
        {
            loop {}
        }
    }

    impl<T: ?Sized> Deref for KBox<T> {
        type Target = T;
        fn deref(&self) -> &T {
            loop {}
        }
    }

    impl<T: ?Sized> DerefMut for KBox<T> {
        fn deref_mut(&mut self) -> &mut T {
            loop {}
        }
    }

    /// A kmalloc'ed vector.
    pub struct KVec<T>(PhantomData<T>);
}

/// `kernel::task`.
pub mod task {
    /// A task (`struct task_struct`).
    pub struct Task(crate::types::Opaque<u8>);
}

/// `kernel::str`.
pub mod str {
    /// A C string.
    pub struct CStr([u8]);
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

    impl From<core::convert::Infallible> for Error {
        fn from(e: core::convert::Infallible) -> Error {
            match e {}
        }
    }
}

/// `kernel::uaccess`.
pub mod uaccess {
    /// A user-space address.
    #[derive(Clone, Copy)]
    pub struct UserPtr(#[allow(dead_code)] *mut core::ffi::c_void);

    /// A user-space byte range.
    pub struct UserSlice(#[allow(dead_code)] UserPtr, #[allow(dead_code)] usize);
}

/// `kernel::sync`.
pub mod sync {
    use crate::types::Opaque;

    /// `refcount_t`.
    #[repr(transparent)]
    pub struct Refcount(Opaque<crate::bindings::refcount_t>);

    // SAFETY: as in the kernel (rust/kernel/sync/refcount.rs): a
    // `refcount_t` is only updated atomically, from any thread.
    unsafe impl Send for Refcount {}
    // SAFETY: see `Send`.
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

        // SAFETY: as in the kernel (rust/kernel/sync/atomic.rs), where the
        // value is only accessed atomically; here nothing accesses it at
        // all (the host build never runs the kernel modules).
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
