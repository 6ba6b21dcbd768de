// SPDX-License-Identifier: GPL-2.0-only

//! The namespace tree, the active namespace reference count and `listns()` (with
//! `CONFIG_NSTREE_RUST`, in place of `kernel/nstree.c` and part of `kernel/nscommon.c`).
//!
//! [`ns`] embeds into `struct ns_common` and has the functions C calls; [`cascade`] is the
//! active count; [`tree`], [`listns`] and [`req`] look namespaces up and list them.

/// `VFS_WARN_ON_ONCE()`.
macro_rules! vfs_warn_on_once {
    ($cond:expr) => {
        if cfg!(CONFIG_DEBUG_VFS) && $cond {
            ::kernel::do_once_lite! {
                ::kernel::warn_on!(true);
            }
        }
    };
}

mod cascade;
#[cfg(CONFIG_NSTREE_RUST_KUNIT_TEST)]
mod kunit;
mod listns;
mod ns;
mod req;
mod tree;

const __LOG_PREFIX: &[u8] = b"nstree_rs\0";
