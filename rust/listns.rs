// SPDX-License-Identifier: GPL-2.0-only

//! `listns(req, ns_ids, nr_ns_ids, flags)`: the ids of the active
//! namespaces the caller may see, in ascending order, from after
//! `req->ns_id`, of the types in `req->ns_type` (all for 0), and owned by
//! the user namespace `req->user_ns_id` (any owner for 0).

#![forbid(unsafe_code)]

use core::num::NonZeroU64;

use kernel::bindings;
use kernel::error::{code, Result};
use kernel::sync::rcu;
use kernel::uaccess::UserPtr;

use crate::active::get_unless_inactive;
use crate::ffi::{self, Held, IdBatch, IdBuf, NsCommon, TreeKind, TreeRoot, UserIds};
use crate::req::{self, Errno};
use crate::tree;

// The pure rules use the uapi values; make sure they are the kernel's.
const _: () = {
    assert!(req::NS_ID_REQ_SIZE_VER0 == bindings::NS_ID_REQ_SIZE_VER0 as usize);
    assert!(req::NS_ID_REQ_SIZE_VER0 == core::mem::size_of::<ffi::NsIdReq>());
    assert!(req::LISTNS_CURRENT_USER == bindings::LISTNS_CURRENT_USER as u64);
    assert!(req::ns_type::TIME == bindings::CLONE_NEWTIME);
    assert!(req::ns_type::MNT == bindings::CLONE_NEWNS);
    assert!(req::ns_type::CGROUP == bindings::CLONE_NEWCGROUP);
    assert!(req::ns_type::UTS == bindings::CLONE_NEWUTS);
    assert!(req::ns_type::IPC == bindings::CLONE_NEWIPC);
    assert!(req::ns_type::USER == bindings::CLONE_NEWUSER);
    assert!(req::ns_type::PID == bindings::CLONE_NEWPID);
    assert!(req::ns_type::NET == bindings::CLONE_NEWNET);
    // The numbers the host tests see are the kernel's.
    assert!(Errno::NoEnt.to_errno() == bindings::ENOENT as i32);
    assert!(Errno::TooBig.to_errno() == bindings::E2BIG as i32);
    assert!(Errno::Fault.to_errno() == bindings::EFAULT as i32);
    assert!(Errno::Inval.to_errno() == bindings::EINVAL as i32);
    assert!(Errno::Overflow.to_errno() == bindings::EOVERFLOW as i32);
    assert!(Errno::NotSupp.to_errno() == bindings::EOPNOTSUPP as i32);
};

/// How many skipped candidates between checks for a pending reschedule.
const RESCHED_BATCH: usize = 256;

/// What the caller may see and wants. Two scalars, passed to a walk by
/// value (in registers) and kept there.
#[derive(Clone, Copy)]
struct Filter {
    /// The `ns_type` bits, 0 for all.
    types: u32,
    /// `may_see_all_namespaces()`: the same for every candidate of a call,
    /// so asked at most once: by the owner walk before it starts, as C
    /// does, and by the others when the first candidate that is not the
    /// caller's own needs it, once the ids before it are written (outside
    /// RCU, between two passes, if the pass had ids pending).
    see_all: Option<bool>,
}

impl Filter {
    /// Asks `may_see_all_namespaces()`, once per call.
    #[inline]
    fn ask(&mut self) -> bool {
        if let Some(v) = self.see_all {
            return v;
        }
        let v = ffi::may_see_all();
        self.see_all = Some(v);
        v
    }

    /// Whether `ns` is to be listed (`legitimize_ns()`): of a requested
    /// type, visible to the caller, and active. Called under RCU on a
    /// namespace reached from a tree without a reference: `ns_type` and
    /// the active count are stable to read there (see [`NsCommon::id`]),
    /// and a namespace with a non-zero active count also has a non-zero
    /// counted one (an active reference implies a counted one).
    ///
    /// `None` if the answer needs `may_see_all_namespaces()`, not asked
    /// yet, and `may_ask` is false: the walk has ids it has not written.
    /// C writes each id before it looks at the next candidate, so it asks
    /// only once every id before this candidate is written, and never if
    /// one of those writes faults; asking has an effect (a granted
    /// capability marks the task `PF_SUPERPRIV`), so the walk writes its
    /// ids first.
    #[inline]
    fn wants(&mut self, ns: &NsCommon, may_ask: bool) -> Option<bool> {
        if !req::requested(self.types, ns.ns_type()) {
            return Some(false);
        }
        let mut deferred = false;
        let visible = req::may_list(
            || ns.is_current(),
            || {
                if self.see_all.is_none() && !may_ask {
                    deferred = true;
                    return false;
                }
                self.ask()
            },
        );
        if deferred {
            return None;
        }
        Some(visible && ns.active_read() != 0)
    }
}

/// How many ids a call listed: at most [`req::MAX_IDS`], so 32 bits hold
/// it. A `Result<Listed>` is returned in registers, where a
/// `Result<usize>` (16 bytes, its two variants laid out differently) goes
/// through memory on every call of the out-of-line walks.
pub(crate) type Listed = u32;

const _: () = assert!(req::MAX_IDS <= Listed::MAX as usize);

/// The syscall body; the C glue's `SYSCALL_DEFINE4(listns, ...)` calls it.
pub(crate) fn listns(req: UserPtr, ids: UserPtr, nr_ns_ids: usize, flags: u32) -> Result<Listed> {
    req::check_args(nr_ns_ids, flags)?;
    let out = UserIds::new(ids, nr_ns_ids)?;
    let kreq = ffi::read_request(req)?;
    let (types, user_ns_id) = (
        kreq.__bindgen_anon_1.ns_type,
        kreq.__bindgen_anon_1.user_ns_id,
    );
    req::check_request(kreq.spare, types)?;

    let mut filter = Filter {
        types,
        see_all: None,
    };
    let resume = req::resume_after(kreq.ns_id);
    // Nothing to list and no resume id to look up (which alone could
    // fail, with ENOENT): nothing to walk. Tested where the three walks
    // are chosen, after what can still fail (the owner's lookup, the
    // type's tree), so that such a call does not enter a walk.
    let nothing = nr_ns_ids == 0 && resume.is_none();

    if user_ns_id != 0 {
        // The owner: the caller's user namespace, or an active user
        // namespace looked up by id (anything else is EINVAL).
        let owner = if user_ns_id == req::LISTNS_CURRENT_USER {
            ffi::current_user_ns()
        } else {
            let g = rcu::read_lock();
            tree::lookup_rcu(user_ns_id, bindings::CLONE_NEWUSER, &g).and_then(get_unless_inactive)
        }
        .ok_or(code::EINVAL)?;
        // C asks the capability here, once, whatever the walk then finds
        // (`userns_capable`, kernel/nstree.c:561): so does this, since a
        // granted one leaves a mark (`PF_SUPERPRIV`).
        filter.ask();
        if nothing {
            return Ok(0);
        }
        return walk(owner.ns().owner_root(), resume, filter, out);
    }

    match req::single_type(types) {
        Some(ty) => {
            let root = ffi::type_root(ty).ok_or(code::EINVAL)?;
            if nothing {
                return Ok(0);
            }
            walk(root, resume, filter, out)
        }
        None if nothing => Ok(0),
        None => walk(tree::unified(), resume, filter, out),
    }
}

/// Ids collected under one RCU read-side section before they are written
/// to user space.
const BATCH: usize = 64;

/// Lists up to `out.room()` namespaces of `root`, from the first one after
/// `resume` (or from the start).
///
/// The first pass looks the resume point up inside its RCU read-side
/// section, without a reference, and filters that namespace like any
/// other (7.3's `lookup_ns_id_after()`): only a tree with nothing after
/// `resume` is `ENOENT`, also when there is no room.
///
/// The walk collects up to [`BATCH`] ids under RCU, then leaves RCU to
/// write them to user space with `put_user()` (which may fault and sleep).
/// Meanwhile the last collected namespace is held by a counted reference,
/// which keeps it on the list, and the next pass resumes from its
/// successor; the pass that fills the buffer holds nothing, as no pass
/// follows. Long runs of skipped namespaces pause the same way when a
/// reschedule is pending. A pass that reaches the capability question
/// with ids pending ends there too, holding that candidate (see
/// [`Filter::wants`]), and the next pass starts at it.
///
/// The C walk takes and drops a reference on every listed namespace and
/// drops RCU for each id; what user space sees is the same: the ids, in
/// order, of the namespaces that were active when the walk passed them,
/// written one by one up to the first fault.
///
/// Generic over the tree kind `K`, so each of [`listns`]'s three walks
/// is compiled with its node offsets as constants. The filter and the
/// buffer come by value: four scalars, which stay in registers.
///
/// `listns()` does not call it with no room and no resume id (it returns
/// 0 at once): such a walk would collect an id it has no room for and
/// fail with `EFAULT`.
fn walk<K: TreeKind>(
    root: &TreeRoot<K>,
    resume: Option<NonZeroU64>,
    mut filter: Filter,
    mut out: UserIds,
) -> Result<Listed> {
    let mut listed: Listed = 0;
    let mut buf = IdBuf::<BATCH>::new();
    let mut ids = IdBatch::new(&mut buf);
    // The first pass starts at the resume point, looked up under the tree
    // lock, or at the first namespace; the others after the held one.
    let mut g = rcu::read_lock();
    let mut cur = match resume {
        Some(last) => {
            let r = ffi::ReadGuard::lock();
            let c = root.first_after(last.get(), &g, &r).ok_or(code::ENOENT)?;
            // The limit is tested after each listed id, so a pass must
            // start below it: only a first pass with a resume id can start
            // at it (without one, `listns()` does not walk).
            (out.room() != 0).then_some(c)
        }
        None => root.first(&g),
    };
    // Where the next pass starts: after the held place, or at it (`again`:
    // the pass ended at the capability question, asked between the passes).
    let mut at: Option<Held<'_, K>> = None;
    loop {
        let mut skipped = 0usize;
        let mut pause = false;
        let mut again = false;
        // The namespace the next pass resumes after (or at), held; `None`
        // at the end of the list or with the buffer full: nothing to
        // resume.
        let next = loop {
            let Some(c) = cur else { break None };
            match filter.wants(c.ns(), ids.len() == 0) {
                Some(true) => {
                    // A full batch ends the pass below: there is room.
                    ids.push(c.ns().id());
                    if ids.len() == out.room() {
                        break None;
                    }
                    if ids.len() == BATCH {
                        // Resume after it. If its count just dropped to
                        // zero it is going away (and was already inactive):
                        // not listed, as C's failed get would skip it.
                        match c.hold() {
                            Some(held) => break Some(held),
                            None => ids.pop(),
                        }
                    }
                }
                Some(false) => {
                    skipped += 1;
                    if skipped % RESCHED_BATCH == 0 && ffi::need_resched() {
                        if let Some(held) = c.hold() {
                            pause = true;
                            break Some(held);
                        }
                    }
                }
                // The capability question, with ids not written yet. C has
                // written them when it asks here: write them, ask, and go
                // on at this namespace, or, if it is going away (its count
                // just dropped to zero) and cannot be held, at the first
                // one after it that can be: the ones in between are going
                // away too, so inactive, and not listed.
                None => {
                    again = true;
                    let mut from = Some(c);
                    break loop {
                        let Some(x) = from else { break None };
                        if let Some(held) = x.hold() {
                            break Some(held);
                        }
                        from = x.next(&g);
                    };
                }
            }
            cur = c.next(&g);
        };
        // `push_all()` consumes the RCU guard: `put_user()` may fault and
        // sleep, so the read-side section ends before it, by construction.
        out.push_all(ids.as_slice(), g)?;
        // At most `room`, which `req::check_args()` bounds by `MAX_IDS`.
        listed += ids.len() as Listed;
        if again {
            filter.ask();
        }
        let Some(held) = next else { break };
        ids.clear();
        // Replacing the previous place drops its counted reference
        // (`ops->put()`, which may sleep): outside RCU too.
        let held = at.insert(held);
        if pause {
            ffi::cond_resched();
        }
        g = rcu::read_lock();
        let here = held.resume(&g);
        cur = if again { Some(here) } else { here.next(&g) };
    }
    Ok(listed)
}
