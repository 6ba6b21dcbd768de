// SPDX-License-Identifier: GPL-2.0-only

//! A model of C's `listns()` over a `BTreeMap` of namespaces: what `kernel/nstree.c` does,
//! one id at a time, with the request rules of [`req`]. The tests run the real `listns()` on the
//! same namespaces and compare.
//!
//! Resuming after `ns_id` starts the walk at the namespace with the smallest id above `ns_id` on
//! the walked tree, active or not (`lookup_ns_id_after()`), which is filtered like any other; the
//! call fails with `ENOENT` only if no namespace at all follows `ns_id` on that tree, even with
//! room for no id.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;

use crate::req::{self, ns_type, Errno};

/// `PAGE_SIZE` on x86_64.
pub(crate) const PAGE_SIZE: usize = 4096;

/// A namespace as `listns()` sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    /// `ns_type`.
    pub(crate) ty: u32,
    /// The owning user namespace's id (`None` only for `init_user_ns`).
    pub(crate) owner: Option<u64>,
    /// Whether the active count is non-zero.
    pub(crate) active: bool,
}

/// All namespaces on the trees, by id.
#[derive(Clone, Debug, Default)]
pub(crate) struct World {
    /// id -> namespace.
    pub(crate) ns: BTreeMap<u64, Entry>,
}

/// The calling task.
#[derive(Clone, Debug)]
pub(crate) struct Caller {
    /// `may_see_all_namespaces()`: in the initial pid namespace with
    /// `CAP_SYS_ADMIN` over it.
    pub(crate) see_all: bool,
    /// The ids of its own namespaces (`is_current_namespace()`).
    pub(crate) current: BTreeSet<u64>,
    /// The id of its user namespace (`current_user_ns()`).
    pub(crate) user_ns: u64,
}

/// A tree to walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tree {
    /// All namespaces.
    Unified,
    /// The namespaces of one type.
    Type(u32),
    /// The namespaces a user namespace owns.
    Owner(u64),
}

impl World {
    /// Whether namespace `e` is on `tree`.
    pub(crate) fn on_tree(e: &Entry, tree: Tree) -> bool {
        match tree {
            Tree::Unified => true,
            Tree::Type(t) => e.ty == t,
            Tree::Owner(o) => e.owner == Some(o),
        }
    }

    /// The namespace on `tree` with the smallest id `> last`, active or
    /// not (`lookup_ns_id_after()`).
    pub(crate) fn first_after(&self, tree: Tree, last: u64) -> Option<(u64, &Entry)> {
        self.ns
            .range((Bound::Excluded(last), Bound::Unbounded))
            .find(|(_, e)| Self::on_tree(e, tree))
            .map(|(&id, e)| (id, e))
    }

    /// The namespace after `cur` on `tree`, or the first.
    pub(crate) fn next(&self, tree: Tree, cur: Option<u64>) -> Option<u64> {
        let from = cur.map_or(Bound::Unbounded, Bound::Excluded);
        self.ns
            .range((from, Bound::Unbounded))
            .find(|(_, e)| Self::on_tree(e, tree))
            .map(|(&id, _)| id)
    }

    /// A "counted reference" on `id` if it is active
    /// (`get_unless_inactive()`).
    fn get_unless_inactive(&self, id: u64) -> Option<u64> {
        self.ns.get(&id).filter(|e| e.active).map(|_| id)
    }

    /// `ns_tree_lookup_rcu()`: the namespace `id` on the tree of `ty`.
    fn lookup(&self, id: u64, ty: u32) -> Option<u64> {
        self.ns.get(&id).filter(|e| e.ty == ty).map(|_| id)
    }
}

/// `struct ns_id_req`, as user space lays it out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Req {
    /// `size`.
    pub(crate) size: u32,
    /// `spare`.
    pub(crate) spare: u32,
    /// `ns_id`: the last id already listed (0: from the start).
    pub(crate) ns_id: u64,
    /// `ns_type`.
    pub(crate) ns_type: u32,
    /// `spare2` (not checked).
    pub(crate) spare2: u32,
    /// `user_ns_id`.
    pub(crate) user_ns_id: u64,
}

impl Req {
    /// A version 0 request.
    pub(crate) fn v0(ns_id: u64, ns_type: u32, user_ns_id: u64) -> Req {
        Req {
            size: req::NS_ID_REQ_SIZE_VER0 as u32,
            ns_id,
            ns_type,
            user_ns_id,
            ..Req::default()
        }
    }

    /// The 32 bytes of the structure.
    pub(crate) fn to_bytes(self) -> Vec<u8> {
        let mut b = Vec::with_capacity(req::NS_ID_REQ_SIZE_VER0);
        b.extend_from_slice(&self.size.to_ne_bytes());
        b.extend_from_slice(&self.spare.to_ne_bytes());
        b.extend_from_slice(&self.ns_id.to_ne_bytes());
        b.extend_from_slice(&self.ns_type.to_ne_bytes());
        b.extend_from_slice(&self.spare2.to_ne_bytes());
        b.extend_from_slice(&self.user_ns_id.to_ne_bytes());
        b
    }

    fn from_bytes(b: &[u8]) -> Req {
        let u32_at = |o: usize| u32::from_ne_bytes(b[o..o + 4].try_into().unwrap());
        let u64_at = |o: usize| u64::from_ne_bytes(b[o..o + 8].try_into().unwrap());
        Req {
            size: u32_at(0),
            spare: u32_at(4),
            ns_id: u64_at(8),
            ns_type: u32_at(16),
            spare2: u32_at(20),
            user_ns_id: u64_at(24),
        }
    }
}

/// The user memory a call sees.
#[derive(Clone, Copy, Debug)]
pub(crate) struct UserMem<'a> {
    /// The readable bytes at `req` (a fault after them).
    pub(crate) req: &'a [u8],
    /// Whether `access_ok()` accepts the id buffer.
    pub(crate) ids_ok: bool,
    /// How many ids can be stored before a fault.
    pub(crate) ids_room: usize,
}

/// `copy_ns_id_req()`: the size, [`req::check_size`],
/// then `copy_struct_from_user()` (bytes past the known structure must be
/// zero, `E2BIG`; unreadable bytes are `EFAULT`).
pub(crate) fn read_request(mem: &[u8]) -> Result<Req, Errno> {
    let size = mem.get(..4).ok_or(Errno::Fault)?;
    let usize = u32::from_ne_bytes(size.try_into().unwrap()) as usize;
    req::check_size(usize, PAGE_SIZE)?;
    let ksize = req::NS_ID_REQ_SIZE_VER0;
    if usize > ksize {
        // check_zeroed_user()
        let tail = mem.get(ksize..usize).ok_or(Errno::Fault)?;
        if tail.iter().any(|&b| b != 0) {
            return Err(Errno::TooBig);
        }
    }
    let known = mem.get(..ksize).ok_or(Errno::Fault)?;
    Ok(Req::from_bytes(known))
}

/// The id buffer.
struct Out {
    ids: Vec<u64>,
    room: usize,
}

impl Out {
    /// `put_user()`.
    fn push(&mut self, id: u64) -> Result<(), Errno> {
        if self.ids.len() == self.room {
            return Err(Errno::Fault);
        }
        self.ids.push(id);
        Ok(())
    }
}

/// What the caller may see and wants.
struct Filter<'a> {
    types: u32,
    see_all: bool,
    caller: &'a Caller,
}

impl Filter<'_> {
    /// `legitimize_ns()`: requested type, visible to the caller, active.
    fn legitimize(&self, world: &World, id: u64) -> Option<u64> {
        let e = &world.ns[&id];
        if !req::requested(self.types, e.ty) {
            return None;
        }
        if !self.caller.current.contains(&id) && !self.see_all {
            return None;
        }
        world.get_unless_inactive(id)
    }
}

/// `ns_tree_from_type()`.
fn type_root(ty: u32) -> Option<Tree> {
    crate::system::TYPES.contains(&ty).then_some(Tree::Type(ty))
}

/// `listns(req, ids, nr_ns_ids, flags)` with everything in user memory
/// described by `mem`: the ids on success, and the ids written, also when it fails.
pub(crate) fn listns_out(
    world: &World,
    caller: &Caller,
    mem: &UserMem<'_>,
    nr_ns_ids: usize,
    flags: u32,
) -> (Result<Vec<u64>, Errno>, Vec<u64>) {
    let mut out = Out {
        ids: Vec::new(),
        room: mem.ids_room,
    };
    let r = call(world, caller, mem, nr_ns_ids, flags, &mut out);
    let ids = out.ids;
    (r.map(|()| ids.clone()), ids)
}

fn call(
    world: &World,
    caller: &Caller,
    mem: &UserMem<'_>,
    nr_ns_ids: usize,
    flags: u32,
    out: &mut Out,
) -> Result<(), Errno> {
    req::check_args(nr_ns_ids, flags)?;
    if !mem.ids_ok {
        return Err(Errno::Fault);
    }
    let kreq = read_request(mem.req)?;
    let (types, user_ns_id) = (kreq.ns_type, kreq.user_ns_id);
    req::check_request(kreq.spare, types)?;

    let filter = Filter {
        types,
        see_all: caller.see_all,
        caller,
    };
    let resume = req::resume_after(kreq.ns_id);

    let tree = if user_ns_id != 0 {
        let owner = if user_ns_id == req::LISTNS_CURRENT_USER {
            Some(caller.user_ns)
        } else {
            world
                .lookup(user_ns_id, ns_type::USER)
                .and_then(|id| world.get_unless_inactive(id))
        }
        .ok_or(Errno::Inval)?;
        Tree::Owner(owner)
    } else {
        match req::single_type(types) {
            Some(ty) => type_root(ty).ok_or(Errno::Inval)?,
            None => Tree::Unified,
        }
    };
    walk(world, tree, resume, &filter, out, nr_ns_ids)?;
    Ok(())
}

/// `walk()`: up to `nr` ids of `tree`, from the first namespace after
/// `resume` (or from the start).
///
/// The resume point is looked up before anything else, whatever `nr`:
/// `ENOENT` if nothing on the tree follows it. From there every namespace,
/// the first one included, is a candidate that the filter may skip.
fn walk(
    world: &World,
    tree: Tree,
    resume: Option<core::num::NonZeroU64>,
    filter: &Filter<'_>,
    out: &mut Out,
    nr: usize,
) -> Result<usize, Errno> {
    let mut cur = match resume {
        Some(last) => Some(world.first_after(tree, last.get()).ok_or(Errno::NoEnt)?.0),
        None => world.next(tree, None),
    };
    let mut listed = 0;
    while listed < nr {
        let Some(id) = cur else { break };
        if let Some(valid) = filter.legitimize(world, id) {
            out.push(valid)?;
            listed += 1;
        }
        cur = world.next(tree, Some(id));
    }
    Ok(listed)
}
