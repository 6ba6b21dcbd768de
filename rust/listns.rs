// SPDX-License-Identifier: GPL-2.0-only

//! `listns(req, ns_ids, nr_ns_ids, flags)`: the ids of the active namespaces the caller may see,
//! in ascending order, after `req->ns_id`, of the types in `req->ns_type` (all for 0), owned by
//! the user namespace `req->user_ns_id` (any for 0).
//!
//! The walk collects up to [`BATCH`] ids in one RCU read-side critical section, then leaves it
//! to write them to user space, which may fault and sleep, holding its place with a counted
//! reference ([`Held`]). It also pauses after every [`RESCHED_BATCH`] skipped namespaces when
//! the scheduler wants the CPU. C writes each id as it finds it; user space sees the same ids.

#![forbid(unsafe_code)]

use core::mem::size_of;
use core::num::NonZeroU64;

use kernel::bindings;
use kernel::error::{code::*, Result};
use kernel::rbtree::rcu::{HasLinks, Held, Tree};
use kernel::sync::rcu;
use kernel::uaccess::{Batch, UserPtr, UserSlice, UserSliceWriter};

use crate::ns::{self, NsCommon, NsIdReq, NsRef};
use crate::req::{self, Errno};
use crate::tree;

const _: () = {
    assert!(req::NS_ID_REQ_SIZE_VER0 == bindings::NS_ID_REQ_SIZE_VER0 as usize);
    assert!(req::NS_ID_REQ_SIZE_VER0 == size_of::<NsIdReq>());
    assert!(req::LISTNS_CURRENT_USER == bindings::LISTNS_CURRENT_USER as u64);
    assert!(req::ns_type::TIME == bindings::CLONE_NEWTIME);
    assert!(req::ns_type::MNT == bindings::CLONE_NEWNS);
    assert!(req::ns_type::CGROUP == bindings::CLONE_NEWCGROUP);
    assert!(req::ns_type::UTS == bindings::CLONE_NEWUTS);
    assert!(req::ns_type::IPC == bindings::CLONE_NEWIPC);
    assert!(req::ns_type::USER == bindings::CLONE_NEWUSER);
    assert!(req::ns_type::PID == bindings::CLONE_NEWPID);
    assert!(req::ns_type::NET == bindings::CLONE_NEWNET);
    assert!(Errno::NoEnt.to_errno() == bindings::ENOENT as i32);
    assert!(Errno::TooBig.to_errno() == bindings::E2BIG as i32);
    assert!(Errno::Fault.to_errno() == bindings::EFAULT as i32);
    assert!(Errno::Inval.to_errno() == bindings::EINVAL as i32);
    assert!(Errno::Overflow.to_errno() == bindings::EOVERFLOW as i32);
    assert!(Errno::NotSupp.to_errno() == bindings::EOPNOTSUPP as i32);
};

impl From<Errno> for kernel::error::Error {
    fn from(e: Errno) -> Self {
        match e {
            Errno::NoEnt => ENOENT,
            Errno::TooBig => E2BIG,
            Errno::Fault => EFAULT,
            Errno::Inval => EINVAL,
            Errno::Overflow => EOVERFLOW,
            Errno::NotSupp => EOPNOTSUPP,
        }
    }
}

/// Ids collected in one RCU read-side critical section.
pub(crate) const BATCH: usize = 64;

/// Skipped namespaces between two looks at `need_resched()`.
pub(crate) const RESCHED_BATCH: usize = 256;

/// How many ids a call listed: at most [`req::MAX_IDS`].
pub(crate) type Listed = u32;

const _: () = assert!(req::MAX_IDS <= Listed::MAX as usize);

/// Where a walk writes its ids.
pub(crate) trait Sink {
    /// How many more ids fit.
    fn room(&self) -> usize;

    /// Writes `ids`, outside RCU: `EFAULT` at the first that faults, with those before written.
    fn write(&mut self, ids: &[u64]) -> Result;
}

/// The caller's buffer.
struct UserIds(UserSliceWriter);

impl Sink for UserIds {
    fn room(&self) -> usize {
        self.0.len() / size_of::<u64>()
    }

    fn write(&mut self, ids: &[u64]) -> Result {
        ids.iter().try_for_each(|&id| self.0.write_scalar(id))
    }
}

/// The syscall's body.
pub(crate) fn listns(req: UserPtr, ids: UserPtr, nr_ns_ids: usize, flags: u32) -> Result<Listed> {
    req::check_args(nr_ns_ids, flags)?;
    let ids = UserSlice::new(ids, nr_ns_ids * size_of::<u64>());
    if !ids.access_ok() {
        return Err(EFAULT);
    }
    let size = UserSlice::new(req, size_of::<u32>())
        .reader()
        .read_scalar::<u32>()?;
    req::check_size(size as usize, kernel::page::PAGE_SIZE)?;
    let NsIdReq(kreq) = UserSlice::new(req, size as usize).read_extensible()?;
    let (types, user_ns_id) = (
        kreq.__bindgen_anon_1.ns_type,
        kreq.__bindgen_anon_1.user_ns_id,
    );
    req::check_request(kreq.spare, types)?;

    let mut out = UserIds(ids.writer());
    let walk = Walk {
        filter: Filter {
            types,
            see_all: None,
        },
        resume: req::resume_after(kreq.ns_id),
        pause: kernel::task::need_resched,
    };
    if user_ns_id == req::LISTNS_CURRENT_USER {
        return ns::with_current_user_ns(|owner| walk.owned_by(owner, &mut out));
    }
    if user_ns_id != 0 {
        let owner = {
            let g = rcu::read_lock();
            tree::lookup(user_ns_id, bindings::CLONE_NEWUSER, &g).and_then(ns::get_unless_inactive)
        };
        let owner = owner.ok_or(EINVAL)?;
        return walk.owned_by(&owner, &mut out);
    }
    match req::single_type(types) {
        Some(ty) => walk.run::<{ ns::BY_TYPE }, _, BATCH, RESCHED_BATCH>(
            ns::type_tree(ty).ok_or(EINVAL)?,
            &mut out,
        ),
        None => walk.run::<{ ns::UNIFIED }, _, BATCH, RESCHED_BATCH>(ns::unified(), &mut out),
    }
}

/// What the caller may see and wants.
#[derive(Clone, Copy)]
pub(crate) struct Filter {
    /// The `ns_type` bits, 0 for all.
    pub(crate) types: u32,
    /// `may_see_all_namespaces()`, asked at most once per call.
    pub(crate) see_all: Option<bool>,
}

impl Filter {
    fn ask(&mut self) -> bool {
        *self.see_all.get_or_insert_with(ns::may_see_all)
    }

    /// Whether `ns` is to be listed (`legitimize_ns()`). `None` if that needs
    /// `may_see_all_namespaces()`, not asked yet, and `!may_ask`: C asks only once every id
    /// before the candidate is written, and asking has an effect (a granted capability marks
    /// the task `PF_SUPERPRIV`).
    fn wants(&mut self, ns: &NsCommon, may_ask: bool) -> Option<bool> {
        if !req::requested(self.types, ns.ns_type()) {
            return Some(false);
        }
        let visible = ns.is_current()
            || match self.see_all {
                Some(v) => v,
                None if may_ask => self.ask(),
                None => return None,
            };
        Some(visible && ns.active().load(kernel::sync::atomic::Relaxed) != 0)
    }
}

/// A walk: what it lists, where it resumes, and when it pauses.
pub(crate) struct Walk<P: Fn() -> bool> {
    pub(crate) filter: Filter,
    /// The id to continue after (`None`: from the start).
    pub(crate) resume: Option<NonZeroU64>,
    /// Whether the scheduler wants the CPU.
    pub(crate) pause: P,
}

impl<P: Fn() -> bool> Walk<P> {
    /// The walk of the namespaces `owner` owns (`do_listns_userns()`).
    fn owned_by(mut self, owner: &NsCommon, out: &mut impl Sink) -> Result<Listed> {
        vfs_warn_on_once!(owner.ns_type() != bindings::CLONE_NEWUSER);
        self.filter.ask();
        self.run::<{ ns::BY_OWNER }, _, BATCH, RESCHED_BATCH>(owner.owned(), out)
    }

    /// Lists up to `out.room()` namespaces of `root`, from the first after `resume`, in
    /// passes of at most `B` ids, pausing after every `R` skipped ones if the scheduler wants
    /// the CPU; `ENOENT` if nothing at all follows `resume`.
    pub(crate) fn run<const ID: u64, S: Sink, const B: usize, const R: usize>(
        mut self,
        root: &Tree<NsCommon, ID>,
        out: &mut S,
    ) -> Result<Listed>
    where
        NsCommon: HasLinks<ID>,
    {
        if out.room() == 0 && self.resume.is_none() {
            return Ok(0);
        }
        let mut listed: Listed = 0;
        let mut ids = Batch::<u64, B>::new();
        let mut g = rcu::read_lock();
        let mut cur = match self.resume {
            Some(last) => {
                let _r = ns::tree_lock().read_excl();
                let c = root.first_after(last.get(), &g).ok_or(ENOENT)?;
                (out.room() != 0).then_some(c)
            }
            None => root.first(&g),
        };
        let mut at: Option<Held<'_, NsCommon, NsRef, ID>> = None;
        loop {
            let (mut skipped, mut pause, mut again) = (0usize, false, false);
            // Where the next pass resumes: after this place, or at it if `again`.
            let next = loop {
                let Some(c) = cur else { break None };
                match self.filter.wants(c.item(), ids.is_empty()) {
                    Some(true) => {
                        ids.push(c.item().id());
                        if ids.len() == out.room() {
                            break None;
                        }
                        if ids.len() == B {
                            // A namespace going away was already inactive: not listed.
                            match c.hold() {
                                Some(held) => break Some(held),
                                None => drop(ids.pop()),
                            }
                        }
                    }
                    Some(false) => {
                        skipped += 1;
                        if skipped % R == 0 && (self.pause)() {
                            if let Some(held) = c.hold() {
                                pause = true;
                                break Some(held);
                            }
                        }
                    }
                    // Write the ids first, then ask, and go on at this namespace (or at the
                    // first after it that is not going away).
                    None => {
                        again = true;
                        let mut from = Some(c);
                        break loop {
                            let Some(x) = from else { break None };
                            if let Some(held) = x.hold() {
                                break Some(held);
                            }
                            from = x.next();
                        };
                    }
                }
                cur = c.next();
            };
            drop(g);
            out.write(ids.as_slice())?;
            listed += ids.len() as Listed;
            if again {
                self.filter.ask();
            }
            let Some(held) = next else { break };
            ids.clear();
            let held = at.insert(held);
            if pause {
                ns::trace_pause(held.item().id());
                kernel::task::cond_resched();
            }
            g = rcu::read_lock();
            let here = held.resume(&g);
            cur = if again { Some(here) } else { here.next() };
        }
        Ok(listed)
    }
}
