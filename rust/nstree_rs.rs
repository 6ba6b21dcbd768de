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

mod active;
mod cascade;
mod ffi;
#[cfg(CONFIG_KUNIT)]
mod kunit;
mod listns;
mod req;
mod tree;

use kernel::prelude::*;

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

module! {
    type: NsTreeRs,
    name: "nstree_rs",
    authors: ["nstree-rs developers"],
    description: "Rust namespace tree",
    license: "GPL",
}

struct NsTreeRs;

impl kernel::Module for NsTreeRs {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let mut n = 0usize;
        {
            let g = kernel::sync::rcu::read_lock();
            let mut cur = tree::unified().next_rcu(None, tree::Link::Unified, &g);
            while let Some(ns) = cur {
                n += 1;
                cur = tree::unified().next_rcu(Some(ns), tree::Link::Unified, &g);
            }
        }
        pr_info!("Rust nstree in use: {} namespaces on the unified tree\n", n);
        Ok(NsTreeRs)
    }
}
