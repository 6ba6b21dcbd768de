// SPDX-License-Identifier: GPL-2.0-only
/*
 * nstree-rs: the C side of the Rust namespace tree.
 *
 * Only what Rust cannot express: the seqlock (a macro-defined lock with
 * its lockdep class).  All logic is in the Rust crate (nstree_rs.rs and
 * its modules); the small C functions it calls are rust/helpers/.
 */

#include <linux/seqlock.h>

#include "nstree_rs.h"

/*
 * As in kernel/nstree.c, but not static: the Rust crate takes it through
 * the rust/helpers/seqlock.c helpers.
 */
__cacheline_aligned_in_smp DEFINE_SEQLOCK(ns_tree_lock);
