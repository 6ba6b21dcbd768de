// SPDX-License-Identifier: GPL-2.0-only

//! Copies the kernel crate root's documentation (the `//!` lines of `rust/nstree_rs.rs`) to
//! `$OUT_DIR/kernel_crate_doc.md`, which the host crate's documentation includes.

use std::{env, fs, path::PathBuf};

fn main() {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap()).join("../nstree_rs.rs");
    println!("cargo:rerun-if-changed={}", root.display());
    let text = fs::read_to_string(&root).unwrap();
    let doc: String = text
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("//!"))
        .map(|l| format!("{}\n", l.strip_prefix(' ').unwrap_or(l)))
        .collect();
    let out = PathBuf::from(env::var("OUT_DIR").unwrap()).join("kernel_crate_doc.md");
    fs::write(out, doc).unwrap();
}
