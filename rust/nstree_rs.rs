// SPDX-License-Identifier: GPL-2.0-only
// Copyright (c) 2026 nstree-rs developers

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
//! undefined behaviour, whatever its arguments.** Every precondition the
//! types cannot carry makes a function `unsafe`, with a `# Safety`
//! section, or is carried by a token that proves it:
//!
//! - tree mutation needs a `WriteGuard` (the tree lock held) and is
//!   `unsafe` besides (only the C callers know that a namespace is new,
//!   or dying with no counted reference left);
//! - a tree's kind is a type parameter ([`TreeRoot<K>`](ffi::TreeRoot)),
//!   so a node of one kind of tree cannot be looked up on another;
//! - walks step through `Cursor`s, made only by their own
//!   root and bounded by the RCU guard they were found under, and keep
//!   their place across read-side sections with a [`Held`](ffi::Held)
//!   cursor, which owns a counted reference;
//! - an active reference ([`ActiveRef`](active::ActiveRef)) borrows the
//!   counted reference that keeps its namespace's memory alive.
//!
//! `unsafe` code is confined to [`ffi`]; every other module is
//! `#![forbid(unsafe_code)]`. The C entry points (`#[export]`, all
//! `unsafe extern "C"`) state what their C callers guarantee.

mod active;
mod cascade;
mod ffi;
#[cfg(CONFIG_KUNIT)]
mod kunit;
mod listns;
mod req;
mod tree;

/// `VFS_WARN_ON_ONCE()`: warns once per call site, only with
/// `CONFIG_DEBUG_VFS` (and then evaluates the condition).
#[macro_export]
macro_rules! vfs_warn_on_once {
    ($cond:expr) => {{
        #[cfg(CONFIG_DEBUG_VFS)]
        {
            static WARNED: ::kernel::sync::atomic::Atomic<bool> =
                ::kernel::sync::atomic::Atomic::new(false);
            if $cond && !WARNED.xchg(true, ::kernel::sync::atomic::Relaxed) {
                ::kernel::warn_on!(true);
            }
        }
        #[cfg(not(CONFIG_DEBUG_VFS))]
        {
            let _ = || $cond;
        }
    }};
}

/// The prefix of this crate's `pr_*!` messages and KUnit reports.
const __LOG_PREFIX: &[u8] = b"nstree_rs\0";

// No `module!`: the crate is not a module but a built-in core facility
// whose C entry points run from early boot on, before any initcall (the
// initial namespaces are put on the trees in `start_kernel()`). The boot
// banner comes from a `late_initcall` in the C glue, which calls
// `nstree_rs_nr_namespaces()` (`tree::nr_namespaces()`).
