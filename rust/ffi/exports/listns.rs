// SPDX-License-Identifier: GPL-2.0-only

//! The C entry point of `listns()`: the glue's `SYSCALL_DEFINE4()` calls
//! it with the raw arguments.

use core::ffi::c_uint;

use kernel::bindings;
use kernel::prelude::export;
use kernel::uaccess::UserPtr;

/// The body of `listns()`: `SYSCALL_DEFINE4(listns, ...)` in the glue
/// calls it with the raw arguments.
///
/// # Safety
///
/// Called only from the syscall entry, in process context.
#[export]
pub(crate) unsafe extern "C" fn nstree_rs_listns(
    req: *const bindings::ns_id_req,
    ns_ids: *mut u64,
    nr_ns_ids: usize,
    flags: c_uint,
) -> kernel::ffi::c_long {
    let req = UserPtr::from_ptr(req.cast_mut().cast());
    let ids = UserPtr::from_ptr(ns_ids.cast());
    match crate::listns::listns(req, ids, nr_ns_ids, flags) {
        // At most `MAX_IDS`, so it fits.
        Ok(n) => n as kernel::ffi::c_long,
        // A negative errno, -4095..=-1: fits in any `long`.
        Err(e) => e.to_errno() as kernel::ffi::c_long,
    }
}
