// SPDX-License-Identifier: GPL-2.0-only

//! The host tests: unit tests of the library, which see the kernel crate's `pub(crate)` items.

mod common;

mod cascade;
mod concurrency;
mod kernel_stub;
mod listns_props;
mod listns_walk;
mod loom_cascade;
mod req_errno;
mod system_props;
mod tree_lookup;
