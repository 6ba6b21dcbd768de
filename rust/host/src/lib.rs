// SPDX-License-Identifier: GPL-2.0-only
// Copyright (c) 2026 nstree-rs developers

//! Host tests of nstree-rs's pure logic.
//!
//! [`cascade`] and [`req`] are the kernel crate's own files, compiled here
//! unchanged: what the tests check is the code the kernel runs. Around
//! them, two models stand in for the kernel:
//!
//! - [`system`]: namespaces with both reference counts, the tasks, file
//!   descriptors and plain pins that use them, and the owner links, driving
//!   [`cascade::get_active`] and [`cascade::put_active`];
//! - [`listns_model`]: id-ordered trees in a `BTreeMap` and a `listns()`
//!   that makes the decisions through [`req`] exactly as `rust/listns.rs`
//!   does.
//!
//! The tests live in `tests/`; `scripts/host-test.sh` runs them, and
//! `tests/loom_cascade.rs` a second time in a `--cfg loom` build, where it
//! model-checks [`cascade`] with loom.

#[path = "../../cascade.rs"]
pub mod cascade;
#[path = "../../req.rs"]
pub mod req;

pub mod listns_model;
pub mod system;
