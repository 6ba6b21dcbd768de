// SPDX-License-Identifier: GPL-2.0-only

//! The C interface: what `include/linux/nstree.h` and `ns_common.h`
//! declare, plus the body of `listns()`, which the C syscall entry calls.
//! Each function converts its raw arguments once and calls safe code.
//! `#[export]` (the kernel crate's macro) keeps its symbol unmangled and
//! checks at compile time that its type is that of the C prototype bindgen
//! read (`include/linux/nstree.h`, `ns_common.h`, `nstree_rs.h`).

mod cascade;
mod listns;
mod tree;
