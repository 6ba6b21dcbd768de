// SPDX-License-Identifier: GPL-2.0-only

//! The host build of nstree_rs (`rust/host`).
//!
//! [`cascade`], [`req`], [`listns`] and [`tree`] are the nstree crate's own files, compiled here
//! unchanged. The modules they use are stand-ins that run on the host:
//!
//! - [`ns`]: `crate::ns`, the interface of the nstree crate's `ns.rs` over a model of the
//!   namespaces that the tests control;
//! - `kernel::`: the stand-in crate of `kernel-stub/` (trees, locks, RCU, user memory).
//!
//! Two more models serve as references: [`system`], the namespaces with both reference counts
//! and their users, driving the cascade; and [`listns_model`], C's `listns()` over a map. The
//! tests are in `tests/` (a module of this crate, so that they see `pub(crate)` items).
//!
//! # The nstree crate's documentation
//!
#![doc = include_str!(concat!(env!("OUT_DIR"), "/kernel_crate_doc.md"))]
// Outside the tests, nothing calls the nstree crate's functions (the kernel's C does).
#![cfg_attr(not(test), allow(dead_code))]
// Every item is private (`pub(crate)`, as in the nstree crate): rendered with
// `--document-private-items`.
#![allow(rustdoc::private_intra_doc_links)]

/// `VFS_WARN_ON_ONCE()`, as with `CONFIG_DEBUG_VFS`: a warning, which panics on the host.
macro_rules! vfs_warn_on_once {
    ($cond:expr) => {
        if $cond {
            ::kernel::do_once_lite! {
                ::kernel::warn_on!(true);
            }
        }
    };
}

#[path = "../../cascade.rs"]
mod cascade;
#[path = "../../listns.rs"]
mod listns;
mod ns;
#[path = "../../req.rs"]
mod req;
#[path = "../../tree.rs"]
#[allow(clippy::needless_lifetimes)] // the host's clippy, not the kernel's
mod tree;

mod listns_model;
mod system;

#[cfg(test)]
#[path = "../tests/mod.rs"]
mod tests;
