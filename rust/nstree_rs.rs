// SPDX-License-Identifier: GPL-2.0-only

//! nstree-rs: the namespace tree, the two-tier namespace reference count
//! and the `listns()` system call, in Rust.
//!
//! Selected by `CONFIG_NSTREE_RUST`, this crate replaces `kernel/nstree.c`
//! and the active-reference half of `kernel/nscommon.c` behind the same C
//! interface (`include/linux/nstree.h`, `include/linux/ns_common.h`), so
//! every namespace type, nsproxy, cred, pid and nsfs keep calling what they
//! call today.
//!
//! A reader's path through the crate:
//!
//! - [`cascade`]: the active reference count and its owner cascade, pure
//!   logic shared with the host tests;
//! - [`active`]: the counted and the active reference types;
//! - [`tree`]: the three id-ordered trees every namespace is on;
//! - [`req`] and [`listns`]: the system call, its rules and its walk;
//! - [`ffi`]: the one module with `unsafe`, wrapping `struct ns_common`,
//!   the trees, the lock and user memory, and defining the C functions.
//!
//! # Soundness
//!
//! The crate invariant: **no safe function of this crate can cause
//! undefined behaviour, whatever its arguments**, with the one exception
//! the kernel crate itself makes (below). Every precondition the types
//! cannot carry makes a function `unsafe`, with a `# Safety` section, or
//! is carried by a token that proves it:
//!
//! - tree mutation needs a `WriteGuard` (the tree lock held) and is
//!   `unsafe` besides (only the C callers know that a namespace is new,
//!   or dying with no counted reference left); so does reading whether a
//!   node is on a tree, which writers change with plain stores;
//! - a tree root is pinned ([`TreeRoot<K>`](ffi::TreeRoot) is made in place
//!   or is a `static` made with an `unsafe` constructor), and its kind is a
//!   type parameter, so a node of one kind of tree cannot be looked up on
//!   another;
//! - walks step through `Cursor`s, made only by a root's list head, by a
//!   locked lookup or from a held place, and bounded by the RCU guard they
//!   were found under; the lockless lookup gives a namespace, not a
//!   cursor; a walk keeps its place across read-side sections with a
//!   [`Held`](ffi::Held) cursor, which owns a counted reference;
//! - an active reference ([`ActiveRef`](active::ActiveRef)) borrows the
//!   counted reference that keeps its namespace's memory alive.
//!
//! **Atomic context.** As in the kernel crate (whose `Mutex::lock()`,
//! `CondVar::wait()` and `UserSlice` reads are safe functions), calling a
//! function that may sleep in atomic context, here an RCU read-side
//! critical section, is a bug that the type system does not rule out:
//! sleeping there could end a grace period early and free memory a
//! reader still uses. `CONFIG_DEBUG_ATOMIC_SLEEP` reports it at run time.
//! The crate's sleeping functions are `cond_resched()`, the `put_user()`
//! of `UserIds::push_all()` and dropping an `NsRef` (`ops->put()`; e.g.
//! `put_mnt_ns()` takes `namespace_sem`). Where it can, the crate makes the
//! mistake harder: `push_all()` takes the caller's RCU guard by value and
//! drops it before writing to user space, and the walk in `listns()` drops
//! counted references only after that. A second, outer guard the caller
//! still holds would keep the section open: that case is the exception
//! above, for the run-time check to report.
//!
//! `unsafe` code is confined to [`ffi`]; every other module is
//! `#![forbid(unsafe_code)]`. The C entry points (`#[export]`, all
//! `unsafe extern "C"`) state what their C callers guarantee.

mod active;
mod cascade;
mod ffi;
#[cfg(CONFIG_NSTREE_RUST_KUNIT_TEST)]
mod kunit;
mod listns;
mod req;
mod tree;

/// `VFS_WARN_ON_ONCE()` (include/linux/vfsdebug.h): with `CONFIG_DEBUG_VFS`,
/// `WARN_ON_ONCE()` of the condition; without it, the condition is not
/// evaluated (it is only type-checked).
#[macro_export]
macro_rules! vfs_warn_on_once {
    ($cond:expr) => {{
        #[cfg(CONFIG_DEBUG_VFS)]
        {
            if $cond {
                ::kernel::do_once_lite! {
                    ::kernel::warn_on!(true);
                }
            }
        }
        #[cfg(not(CONFIG_DEBUG_VFS))]
        {
            let _ = || $cond;
        }
    }};
}

/// `RCU_LOCKDEP_WARN(c, s)` (include/linux/rcupdate.h:374-382): with
/// `CONFIG_PROVE_RCU`, once `debug_lockdep_rcu_enabled()`, reports a
/// "suspicious RCU usage" splat with message `s` the first time `c` holds;
/// without it, `c` is not evaluated.
#[macro_export]
macro_rules! rcu_lockdep_warn {
    ($cond:expr, $msg:literal) => {{
        #[cfg(CONFIG_PROVE_RCU)]
        {
            if $crate::ffi::debug_lockdep_rcu_enabled() && $cond {
                ::kernel::do_once_lite! {
                    $crate::ffi::lockdep_rcu_suspicious(
                        ::kernel::c_str!(::core::file!()),
                        ::core::line!(),
                        ::kernel::c_str!($msg),
                    );
                }
            }
        }
        #[cfg(not(CONFIG_PROVE_RCU))]
        {
            let _ = || $cond;
        }
    }};
}

/// The prefix of this crate's `pr_*!` messages and KUnit reports.
const __LOG_PREFIX: &[u8] = b"nstree_rs\0";

// No `module!`: the crate is not a module but a built-in core facility
// whose C entry points run from early boot on, before any initcall (the
// initial namespaces are put on the trees in `start_kernel()`).
