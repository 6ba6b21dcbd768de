// SPDX-License-Identifier: GPL-2.0-only

//! The model `listns()` (decisions by the kernel's `req.rs`, walk as in
//! `rust/listns.rs`) against an oracle written directly from the rules of
//! `kernel/nstree.c`: pagination, type and owner filters, resumption, and
//! the errno of each bad argument in the order C checks them.

use std::collections::BTreeSet;

use std::cell::RefCell;

use proptest::prelude::*;
use proptest::sample::Index;

use kernel::uaccess::{mem, UserPtr};

use super::common;
use crate::listns_model::{self as model, Caller, Entry, Req, Tree, UserMem, World};
use crate::ns::{self, Ev, System};
use crate::req::{ns_type, Errno, LISTNS_CURRENT_USER, MAX_IDS};
use crate::system::{INITIAL, INIT_USER_NS_ID, NS_LAST_INIT_ID, TYPES};

// ---------------------------------------------------------------------
// The real listns() next to the model's.
// ---------------------------------------------------------------------

/// Where the request and the id buffer are; [`KERNEL`] is no user address.
const REQ: usize = 0x1000_0000;
const IDS: usize = 0x2000_0000;
const KERNEL: usize = 0xffff_8000_0000_0000;

thread_local! {
    static WRITTEN: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

fn on_write(_addr: usize, id: u64, ok: bool) {
    if ok {
        WRITTEN.with(|w| w.borrow_mut().push(id));
    }
}

/// The namespaces of `w` and the caller `c` in the host model.
fn system(w: &World, c: &Caller) -> System {
    let sys = System::new();
    // Owners first: init_user_ns (3) owns 1 and 2.
    let mut added = BTreeSet::new();
    let mut left: Vec<(&u64, &Entry)> = w.ns.iter().collect();
    while !left.is_empty() {
        let before = left.len();
        left.retain(|&(&id, e)| {
            let ready = e.owner.is_none_or(|o| added.contains(&o));
            if ready {
                let st = if e.active {
                    ns::State::Active
                } else {
                    ns::State::Inactive
                };
                sys.add(id, e.ty, e.owner, st);
                added.insert(id);
            }
            !ready
        });
        assert!(left.len() < before, "owners missing: {left:?}");
    }
    for &id in &c.current {
        sys.set_current(id, true);
    }
    sys.set_see_all(c.see_all);
    sys.set_user_ns(c.user_ns);
    sys
}

/// rust/listns.rs's `listns()` on `w` for `c`: its result, the ids it wrote and how many times
/// it asked `may_see_all()`.
fn real(
    w: &World,
    c: &Caller,
    m: &UserMem<'_>,
    nr: usize,
    flags: u32,
) -> (kernel::error::Result<u32>, Vec<u64>, usize) {
    let sys = system(w, c);
    mem::map(REQ, m.req);
    // Room up to the fault, and for no more ids than there are namespaces.
    let slots = m.ids_room.min(nr).min(w.ns.len() + 1);
    mem::map(IDS, &vec![0; slots * 8]);
    mem::set_write_hook(Some(on_write));
    WRITTEN.with(|w| w.borrow_mut().clear());
    let ids = if m.ids_ok { IDS } else { KERNEL };
    let r = crate::listns::listns(UserPtr::from_addr(REQ), UserPtr::from_addr(ids), nr, flags);
    sys.check_quiescent().unwrap();
    let asks = sys
        .take_log()
        .iter()
        .filter(|e| matches!(e, Ev::Ask(_)))
        .count();
    assert!(asks <= 1, "may_see_all() asked {asks} times");
    (r, WRITTEN.with(|w| w.take()), asks)
}

/// `listns()`: the model's answer, once the real one agreed with it.
fn listns(
    w: &World,
    c: &Caller,
    m: &UserMem<'_>,
    nr: usize,
    flags: u32,
) -> Result<Vec<u64>, Errno> {
    let (want, want_ids) = model::listns_out(w, c, m, nr, flags);
    let (got, ids, _) = real(w, c, m, nr, flags);
    let same = match (&want, got) {
        (Ok(v), Ok(n)) => v.len() == n as usize,
        (Err(e), Err(k)) => k.to_errno() == -e.to_errno(),
        _ => false,
    };
    assert!(
        same && ids == want_ids,
        "listns(nr {nr}, flags {flags:#x}, request {:?}): rust/listns.rs {got:?}, wrote {ids:?}; \
         the model of C {want:?}, wrote {want_ids:?}",
        m.req
    );
    want
}

/// [`listns`] with a version 0 request and valid buffers.
fn listns_req(w: &World, c: &Caller, r: &Req, nr: usize) -> Result<Vec<u64>, Errno> {
    let bytes = r.to_bytes();
    let m = UserMem {
        req: &bytes,
        ids_ok: true,
        ids_room: usize::MAX,
    };
    listns(w, c, &m, nr, 0)
}

// ---------------------------------------------------------------------
// Worlds, callers, requests.
// ---------------------------------------------------------------------

/// One namespace to add: id gap, type, owner (among the user namespaces
/// so far), active or not.
type NsSpec = (u64, usize, Index, bool);

/// The boot namespaces: all active, owned by init_user_ns.
fn boot() -> World {
    let mut w = World::default();
    for (id, ty) in INITIAL {
        let owner = (id != INIT_USER_NS_ID).then_some(INIT_USER_NS_ID);
        w.ns.insert(
            id,
            Entry {
                ty,
                owner,
                active: true,
            },
        );
    }
    w
}

/// Boot plus `specs`, made consistent: an active namespace's owner is
/// active (as the cascade guarantees).
fn build(specs: &[NsSpec], all_active: bool) -> World {
    let mut w = boot();
    let mut users = vec![INIT_USER_NS_ID];
    let mut id = NS_LAST_INIT_ID + 1;
    for (gap, ty, owner, active) in specs {
        id += gap;
        let ty = TYPES[*ty];
        let owner = *owner.get(&users);
        w.ns.insert(
            id,
            Entry {
                ty,
                owner: Some(owner),
                active: all_active || *active,
            },
        );
        if ty == ns_type::USER {
            users.push(id);
        }
    }
    let ids: Vec<u64> = w.ns.keys().rev().copied().collect();
    for id in ids {
        let e = &w.ns[&id];
        if let (true, Some(o)) = (e.active, e.owner) {
            w.ns.get_mut(&o).unwrap().active = true;
        }
    }
    w
}

fn world_with(all_active: bool) -> impl Strategy<Value = World> {
    let spec = (
        1..4u64,
        prop_oneof![2 => Just(5usize), 5 => 0..8usize],
        any::<Index>(),
        prop::bool::weighted(0.7),
    );
    prop::collection::vec(spec, 0..40).prop_map(move |s| build(&s, all_active))
}

fn world() -> impl Strategy<Value = World> {
    world_with(false)
}

/// A caller: sees everything or not, and one current namespace of each
/// type, chosen among the active ones.
#[derive(Clone, Debug)]
struct CallerSpec {
    see_all: bool,
    current: [Index; 8],
}

fn caller_spec() -> impl Strategy<Value = CallerSpec> {
    (any::<bool>(), any::<[Index; 8]>())
        .prop_map(|(see_all, current)| CallerSpec { see_all, current })
}

fn caller(w: &World, c: &CallerSpec) -> Caller {
    let mut current = BTreeSet::new();
    let mut user_ns = INIT_USER_NS_ID;
    for (ty, pick) in TYPES.iter().zip(&c.current) {
        let of_type: Vec<u64> =
            w.ns.iter()
                .filter(|(_, e)| e.ty == *ty && e.active)
                .map(|(&i, _)| i)
                .collect();
        let id = *pick.get(&of_type);
        current.insert(id);
        if *ty == ns_type::USER {
            user_ns = id;
        }
    }
    Caller {
        see_all: c.see_all,
        current,
        user_ns,
    }
}

/// `ns_type` filters: none, one type, or any combination.
fn types() -> impl Strategy<Value = u32> {
    prop_oneof![
        Just(0u32),
        prop::sample::select(TYPES.to_vec()),
        any::<u8>().prop_map(|m| (0..8)
            .filter(|b| m & (1 << b) != 0)
            .fold(0, |a, b| a | TYPES[b])),
    ]
}

/// `user_ns_id`: none, the caller's, a namespace of the world (of any
/// type, active or not), or any number.
#[derive(Clone, Debug)]
enum OwnerSpec {
    Any,
    Current,
    Pick(Index),
    Raw(u64),
}

fn owner_spec() -> impl Strategy<Value = OwnerSpec> {
    prop_oneof![
        3 => Just(OwnerSpec::Any),
        1 => Just(OwnerSpec::Current),
        3 => any::<Index>().prop_map(OwnerSpec::Pick),
        1 => any::<u64>().prop_map(OwnerSpec::Raw),
    ]
}

fn owner_id(w: &World, o: &OwnerSpec) -> u64 {
    match o {
        OwnerSpec::Any => 0,
        OwnerSpec::Current => LISTNS_CURRENT_USER,
        OwnerSpec::Pick(i) => *i.get(&w.ns.keys().copied().collect::<Vec<_>>()),
        OwnerSpec::Raw(x) => *x,
    }
}

/// `ns_id` to resume after: 0, `u64::MAX`, an id of the world or a
/// neighbour of one, or any number.
#[derive(Clone, Debug)]
enum ResumeSpec {
    Start,
    Max,
    Near(Index, i8),
    Raw(u64),
}

fn resume_spec() -> impl Strategy<Value = ResumeSpec> {
    prop_oneof![
        1 => Just(ResumeSpec::Start),
        1 => Just(ResumeSpec::Max),
        4 => (any::<Index>(), -1..=1i8).prop_map(|(i, d)| ResumeSpec::Near(i, d)),
        1 => any::<u64>().prop_map(ResumeSpec::Raw),
    ]
}

fn resume_id(w: &World, r: &ResumeSpec) -> u64 {
    match r {
        ResumeSpec::Start => 0,
        ResumeSpec::Max => u64::MAX,
        ResumeSpec::Near(i, d) => {
            let id = *i.get(&w.ns.keys().copied().collect::<Vec<_>>());
            id.wrapping_add_signed(i64::from(*d))
        }
        ResumeSpec::Raw(x) => *x,
    }
}

// ---------------------------------------------------------------------
// The oracle: kernel/nstree.c's rules, written out directly.
// ---------------------------------------------------------------------

/// The tree `do_listns()` / `do_listns_userns()` walks, or `EINVAL` for an
/// owner that is not an active user namespace.
fn oracle_tree(w: &World, c: &Caller, types: u32, user_ns_id: u64) -> Result<Tree, Errno> {
    if user_ns_id == LISTNS_CURRENT_USER {
        return Ok(Tree::Owner(c.user_ns));
    }
    if user_ns_id != 0 {
        return match w.ns.get(&user_ns_id) {
            Some(e) if e.ty == ns_type::USER && e.active => Ok(Tree::Owner(user_ns_id)),
            _ => Err(Errno::Inval),
        };
    }
    Ok(if types.count_ones() == 1 {
        Tree::Type(types)
    } else {
        Tree::Unified
    })
}

fn members(w: &World, tree: Tree) -> Vec<(u64, &Entry)> {
    w.ns.iter()
        .filter(|(_, e)| match tree {
            Tree::Unified => true,
            Tree::Type(t) => e.ty == t,
            Tree::Owner(o) => e.owner == Some(o),
        })
        .map(|(&i, e)| (i, e))
        .collect()
}

fn listed(c: &Caller, types: u32, id: u64, e: &Entry) -> bool {
    (types == 0 || types & e.ty != 0) && (c.see_all || c.current.contains(&id)) && e.active
}

/// What one `listns()` call returns for `ns_id` with room for `nr` ids.
fn oracle(
    w: &World,
    c: &Caller,
    types: u32,
    user_ns_id: u64,
    ns_id: u64,
    nr: usize,
) -> Result<Vec<u64>, Errno> {
    let tree = oracle_tree(w, c, types, user_ns_id)?;
    let m = members(w, tree);
    // lookup_ns_id_after(ns_id): some namespace of the tree, active or
    // not, must have an id above ns_id, whatever nr is.
    if ns_id != 0 && !m.iter().any(|(i, _)| *i > ns_id) {
        return Err(Errno::NoEnt);
    }
    Ok(m.iter()
        .filter(|(i, e)| (ns_id == 0 || *i > ns_id) && listed(c, types, *i, e))
        .map(|(i, _)| *i)
        .take(nr)
        .collect())
}

/// Whether some namespace of `tree` has an id above `last`.
fn follows(w: &World, tree: Tree, last: u64) -> bool {
    members(w, tree).iter().any(|(i, _)| *i > last)
}

// ---------------------------------------------------------------------
// Pagination as user space does it.
// ---------------------------------------------------------------------

/// How a pagination ended.
#[derive(Debug, PartialEq, Eq)]
enum End {
    /// A call returned fewer ids than asked for.
    Short,
    /// A call failed with this errno; `Some(last)` if it was a resumption.
    Err(Errno, Option<u64>),
}

fn paginate(w: &World, c: &Caller, types: u32, user_ns_id: u64, page: usize) -> (Vec<u64>, End) {
    let mut all = Vec::new();
    let mut last = 0;
    loop {
        match listns_req(w, c, &Req::v0(last, types, user_ns_id), page) {
            Ok(ids) => {
                let n = ids.len();
                all.extend(ids);
                if n < page {
                    return (all, End::Short);
                }
                last = *all.last().unwrap();
            }
            Err(e) => return (all, End::Err(e, (last != 0).then_some(last))),
        }
    }
}

fn ascending(v: &[u64]) -> bool {
    v.windows(2).all(|p| p[0] < p[1])
}

proptest! {
    #![proptest_config(common::config())]

    /// One call from the start returns exactly the active namespaces of
    /// the walked tree that pass the type filter and that the caller may
    /// see, ascending; or EINVAL for a bad owner.
    #[test]
    fn prop_single_call_matches_oracle(
        w in world(), cs in caller_spec(), types in types(), owner in owner_spec(),
    ) {
        let c = caller(&w, &cs);
        let uid = owner_id(&w, &owner);
        let got = listns_req(&w, &c, &Req::v0(0, types, uid), MAX_IDS);
        prop_assert_eq!(&got, &oracle(&w, &c, types, uid, 0, MAX_IDS));
        if let Ok(ids) = got {
            prop_assert!(ascending(&ids));
            for id in ids {
                prop_assert!(listed(&c, types, id, &w.ns[&id]));
            }
        }
    }

    /// Paginating with any page size, inactive namespaces or not,
    /// returns every listed id exactly once, ascending: the same as one
    /// call (an inactive namespace right after a page's last id no longer
    /// ends the walk). It ends with ENOENT exactly when the last page was
    /// full and nothing at all (active or not) follows its last id on the
    /// walked tree, else with a short page (possibly empty).
    #[test]
    fn prop_pagination_reproduces_single_call(
        w in prop_oneof![world_with(false), world_with(true)], cs in caller_spec(),
        types in types(), owner in owner_spec(), page in 1..10usize,
    ) {
        let c = caller(&w, &cs);
        let uid = owner_id(&w, &owner);
        let single = listns_req(&w, &c, &Req::v0(0, types, uid), MAX_IDS);
        let (paged, end) = paginate(&w, &c, types, uid, page);
        match single {
            Err(e) => {
                prop_assert_eq!(e, Errno::Inval);
                prop_assert_eq!(end, End::Err(Errno::Inval, None));
            }
            Ok(single) => {
                prop_assert_eq!(&paged, &single);
                prop_assert!(ascending(&paged));
                let tree = oracle_tree(&w, &c, types, uid).unwrap();
                let full_last_page = !single.is_empty() && single.len() % page == 0;
                let nothing_follows =
                    single.last().is_some_and(|&last| !follows(&w, tree, last));
                if full_last_page && nothing_follows {
                    prop_assert_eq!(end, End::Err(Errno::NoEnt, single.last().copied()));
                } else {
                    prop_assert_eq!(end, End::Short);
                }
            }
        }
    }

    /// Resuming after any id returns what a walk from the start lists
    /// after it (at most `nr`), whether that id exists, is active, or
    /// falls between namespaces: or ENOENT exactly when no namespace of
    /// the walked tree, active or not, has a greater id; room for no id
    /// does not skip that check.
    #[test]
    fn prop_resume_is_strictly_after(
        w in world(), cs in caller_spec(), types in types(), owner in owner_spec(),
        resume in resume_spec(), nr in 0..12usize,
    ) {
        let c = caller(&w, &cs);
        let uid = owner_id(&w, &owner);
        let ns_id = resume_id(&w, &resume);
        let got = listns_req(&w, &c, &Req::v0(ns_id, types, uid), nr);
        prop_assert_eq!(&got, &oracle(&w, &c, types, uid, ns_id, nr));
        // The same, stated against the model's own walk from the start.
        let from_start = listns_req(&w, &c, &Req::v0(0, types, uid), MAX_IDS);
        match (oracle_tree(&w, &c, types, uid), from_start) {
            (Ok(tree), Ok(all)) => {
                if ns_id != 0 && !follows(&w, tree, ns_id) {
                    prop_assert_eq!(got, Err(Errno::NoEnt));
                } else {
                    let want: Vec<u64> = all
                        .into_iter()
                        .filter(|&i| ns_id == 0 || i > ns_id)
                        .take(nr)
                        .collect();
                    prop_assert_eq!(got, Ok(want));
                }
            }
            (Err(e), Err(e2)) => {
                prop_assert_eq!(e, e2);
                prop_assert_eq!(got, Err(e));
            }
            (t, f) => prop_assert!(false, "oracle tree {:?} vs walk {:?}", t, f),
        }
    }

    /// Nothing is greater than `u64::MAX`: resuming after it is ENOENT on
    /// every tree, whatever `nr` (7.2 wrapped to the start instead); a bad
    /// owner is still EINVAL first.
    #[test]
    fn prop_resume_after_max_is_enoent(
        w in world(), cs in caller_spec(), types in types(), owner in owner_spec(),
        nr in 0..4usize,
    ) {
        let c = caller(&w, &cs);
        let uid = owner_id(&w, &owner);
        let from_max = listns_req(&w, &c, &Req::v0(u64::MAX, types, uid), nr);
        match oracle_tree(&w, &c, types, uid) {
            Err(e) => prop_assert_eq!(from_max, Err(e)),
            Ok(_) => prop_assert_eq!(from_max, Err(Errno::NoEnt)),
        }
    }

    /// Type filters: one type lists only that type (from its type tree);
    /// several types list the union of the single-type lists (from the
    /// unified tree); no type lists all of them.
    #[test]
    fn prop_type_filters_compose(
        w in world(), cs in caller_spec(), types in types(), owner in owner_spec(),
    ) {
        let c = caller(&w, &cs);
        let uid = owner_id(&w, &owner);
        let Ok(got) = listns_req(&w, &c, &Req::v0(0, types, uid), MAX_IDS) else {
            return Ok(());
        };
        let mask = if types == 0 { ns_type::ALL } else { types };
        let mut union = Vec::new();
        for ty in TYPES.iter().filter(|&&t| mask & t != 0) {
            let one = listns_req(&w, &c, &Req::v0(0, *ty, uid), MAX_IDS).unwrap();
            for id in &one {
                prop_assert_eq!(w.ns[id].ty, *ty);
            }
            union.extend(one);
        }
        union.sort_unstable();
        prop_assert_eq!(got, union);
    }

    /// Owner filter: exactly the listed namespaces the user namespace owns
    /// directly; `LISTNS_CURRENT_USER` is the caller's user namespace;
    /// anything but an active user namespace is EINVAL.
    #[test]
    fn prop_owner_filter(
        w in world(), cs in caller_spec(), types in types(), pick in any::<Index>(),
    ) {
        let c = caller(&w, &cs);
        let ids: Vec<u64> = w.ns.keys().copied().collect();
        let uid = *pick.get(&ids);
        let got = listns_req(&w, &c, &Req::v0(0, types, uid), MAX_IDS);
        let e = &w.ns[&uid];
        if e.ty == ns_type::USER && e.active {
            let want: Vec<u64> = w.ns.iter()
                .filter(|(i, x)| x.owner == Some(uid) && listed(&c, types, **i, x))
                .map(|(&i, _)| i)
                .collect();
            prop_assert_eq!(got, Ok(want));
        } else {
            prop_assert_eq!(got, Err(Errno::Inval));
        }
        let current = listns_req(&w, &c, &Req::v0(0, types, LISTNS_CURRENT_USER), MAX_IDS);
        let explicit = listns_req(&w, &c, &Req::v0(0, types, c.user_ns), MAX_IDS);
        prop_assert_eq!(current, explicit);
    }

    /// `nr_ns_ids` caps the result; a buffer that faults before the last id
    /// is EFAULT (after writing what fits, as C's put_user() loop does).
    #[test]
    fn prop_nr_and_buffer_room(
        w in world(), cs in caller_spec(), types in types(),
        nr in 0..50usize, room in 0..50usize,
    ) {
        let c = caller(&w, &cs);
        let all = listns_req(&w, &c, &Req::v0(0, types, 0), MAX_IDS).unwrap();
        let want: Vec<u64> = all.iter().copied().take(nr).collect();
        let bytes = Req::v0(0, types, 0).to_bytes();
        let mem = UserMem { req: &bytes, ids_ok: true, ids_room: room };
        let got = listns(&w, &c, &mem, nr, 0);
        if want.len() > room {
            prop_assert_eq!(got, Err(Errno::Fault));
        } else {
            prop_assert_eq!(got, Ok(want));
        }
    }
}

// ---------------------------------------------------------------------
// Fixed cases.
// ---------------------------------------------------------------------

fn root_caller() -> Caller {
    Caller {
        see_all: true,
        current: (1..=NS_LAST_INIT_ID).collect(),
        user_ns: INIT_USER_NS_ID,
    }
}

fn call(
    w: &World,
    c: &Caller,
    ns_id: u64,
    types: u32,
    user_ns_id: u64,
    nr: usize,
) -> Result<Vec<u64>, Errno> {
    listns_req(w, c, &Req::v0(ns_id, types, user_ns_id), nr)
}

#[test]
fn boot_lists_the_initial_namespaces() {
    let w = boot();
    let c = root_caller();
    assert_eq!(call(&w, &c, 0, 0, 0, 100), Ok((1..=8).collect()));
    assert_eq!(call(&w, &c, 0, ns_type::USER, 0, 100), Ok(vec![3]));
    assert_eq!(
        call(&w, &c, 0, ns_type::NET | ns_type::MNT, 0, 100),
        Ok(vec![7, 8])
    );
    // init_user_ns owns all the others, not itself.
    assert_eq!(
        call(&w, &c, 0, 0, INIT_USER_NS_ID, 100),
        Ok(vec![1, 2, 4, 5, 6, 7, 8])
    );
    assert_eq!(
        call(&w, &c, 0, 0, LISTNS_CURRENT_USER, 100),
        Ok(vec![1, 2, 4, 5, 6, 7, 8])
    );
    assert_eq!(call(&w, &c, 0, 0, 0, 3), Ok(vec![1, 2, 3]));
    assert_eq!(call(&w, &c, 3, 0, 0, 3), Ok(vec![4, 5, 6]));
    assert_eq!(call(&w, &c, 6, 0, 0, 3), Ok(vec![7, 8]));
}

#[test]
fn resuming_after_the_last_namespace_is_enoent() {
    // C's lookup_ns_id_after() finds nothing > 8: -ENOENT, not 0.
    let w = boot();
    assert_eq!(call(&w, &root_caller(), 8, 0, 0, 10), Err(Errno::NoEnt));
    assert_eq!(Errno::NoEnt.to_errno(), 2);
    // Also with room for no id at all: the lookup comes first.
    assert_eq!(call(&w, &root_caller(), 8, 0, 0, 0), Err(Errno::NoEnt));
    assert_eq!(call(&w, &root_caller(), 7, 0, 0, 0), Ok(vec![]));
}

/// boot + 10 (net, active), 11 (net, inactive), 12 (net, active),
/// 13 (mnt, inactive), 14 (net, active).
fn gappy() -> World {
    let mut w = boot();
    for (id, ty, active) in [
        (10, ns_type::NET, true),
        (11, ns_type::NET, false),
        (12, ns_type::NET, true),
        (13, ns_type::MNT, false),
        (14, ns_type::NET, true),
    ] {
        w.ns.insert(
            id,
            Entry {
                ty,
                owner: Some(INIT_USER_NS_ID),
                active,
            },
        );
    }
    w
}

#[test]
fn resuming_before_an_inactive_namespace_skips_it() {
    let w = gappy();
    let c = root_caller();
    // Inactive namespaces are skipped by a walk...
    assert_eq!(
        call(&w, &c, 0, ns_type::NET, 0, 10),
        Ok(vec![7, 10, 12, 14])
    );
    // ...and so is an inactive first namespace of a resumption (7.2 gave
    // ENOENT after 10, whose successor 11 is inactive): the walk goes on.
    assert_eq!(call(&w, &c, 10, ns_type::NET, 0, 10), Ok(vec![12, 14]));
    assert_eq!(call(&w, &c, 10, ns_type::NET, 0, 1), Ok(vec![12]));
    // Resuming after an inactive namespace, or an id of none, is the same.
    assert_eq!(call(&w, &c, 11, ns_type::NET, 0, 10), Ok(vec![12, 14]));
    assert_eq!(call(&w, &c, 9, ns_type::NET, 0, 10), Ok(vec![10, 12, 14]));
    // The successor is taken on the walked tree: for NET|MNT that is the
    // unified tree, where 13 (MNT, inactive) follows 12, and is skipped.
    assert_eq!(call(&w, &c, 12, ns_type::NET, 0, 10), Ok(vec![14]));
    assert_eq!(
        call(&w, &c, 12, ns_type::NET | ns_type::MNT, 0, 10),
        Ok(vec![14])
    );
    assert_eq!(call(&w, &c, 12, 0, 0, 10), Ok(vec![14]));
    // Pagination by one id lists everything.
    let mut last = 0;
    let mut paged = Vec::new();
    while let Ok(ids) = call(&w, &c, last, 0, 0, 1) {
        let Some(&id) = ids.first() else { break };
        paged.push(id);
        last = id;
    }
    assert_eq!(paged, call(&w, &c, 0, 0, 0, 100).unwrap());
    assert_eq!(paged, [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14]);
    // Nothing after 14: ENOENT, even with room for no id.
    assert_eq!(call(&w, &c, 14, 0, 0, 10), Err(Errno::NoEnt));
    assert_eq!(call(&w, &c, 14, ns_type::NET, 0, 0), Err(Errno::NoEnt));
    // u64::MAX no longer wraps to the first namespace.
    assert_eq!(
        call(&w, &c, u64::MAX, ns_type::NET, 0, 10),
        Err(Errno::NoEnt)
    );
    assert_eq!(call(&w, &c, u64::MAX, 0, 0, 0), Err(Errno::NoEnt));
}

#[test]
fn only_inactive_namespaces_following_is_not_enoent() {
    // boot + gappy + 15 (uts, inactive): after 14 only an inactive
    // namespace follows, which lookup_ns_id_after() finds.
    let mut w = gappy();
    w.ns.insert(
        15,
        Entry {
            ty: ns_type::UTS,
            owner: Some(INIT_USER_NS_ID),
            active: false,
        },
    );
    let c = root_caller();
    assert_eq!(call(&w, &c, 14, 0, 0, 10), Ok(vec![]));
    assert_eq!(call(&w, &c, 14, 0, 0, 0), Ok(vec![]));
    assert_eq!(call(&w, &c, 14, ns_type::UTS, 0, 10), Ok(vec![]));
    assert_eq!(call(&w, &c, 2, ns_type::UTS, 0, 10), Ok(vec![]));
    assert_eq!(call(&w, &c, 14, 0, INIT_USER_NS_ID, 10), Ok(vec![]));
    // On the NET tree nothing follows 14; after 15 nothing follows at all.
    assert_eq!(call(&w, &c, 14, ns_type::NET, 0, 10), Err(Errno::NoEnt));
    assert_eq!(call(&w, &c, 15, 0, 0, 10), Err(Errno::NoEnt));
    assert_eq!(call(&w, &c, 15, 0, INIT_USER_NS_ID, 0), Err(Errno::NoEnt));
}

#[test]
fn owner_must_be_an_active_user_namespace() {
    let mut w = gappy();
    w.ns.insert(
        20,
        Entry {
            ty: ns_type::USER,
            owner: Some(3),
            active: false,
        },
    );
    w.ns.insert(
        21,
        Entry {
            ty: ns_type::USER,
            owner: Some(3),
            active: true,
        },
    );
    let c = root_caller();
    assert_eq!(
        call(&w, &c, 0, 0, 7, 10),
        Err(Errno::Inval),
        "net namespace"
    );
    assert_eq!(
        call(&w, &c, 0, 0, 99, 10),
        Err(Errno::Inval),
        "no such namespace"
    );
    assert_eq!(call(&w, &c, 0, 0, 20, 10), Err(Errno::Inval), "inactive");
    assert_eq!(call(&w, &c, 0, 0, 21, 10), Ok(vec![]));
    // The owner check comes before the resumption's.
    assert_eq!(call(&w, &c, 21, 0, 20, 10), Err(Errno::Inval));
    // An owner without children: resuming after anything is ENOENT.
    assert_eq!(call(&w, &c, 1, 0, 21, 10), Err(Errno::NoEnt));
    assert_eq!(call(&w, &c, u64::MAX, 0, 21, 10), Err(Errno::NoEnt));
    // On an owner tree too, an inactive successor (20) is skipped.
    assert_eq!(call(&w, &c, 19, 0, 3, 10), Ok(vec![21]));
    assert_eq!(call(&w, &c, 11, 0, 3, 10), Ok(vec![12, 14, 21]));
    assert_eq!(Errno::Inval.to_errno(), 22);
}

#[test]
fn unprivileged_caller_sees_its_own_namespaces_only() {
    let w = gappy();
    let c = Caller {
        see_all: false,
        current: [3, 12, 14].into(),
        user_ns: 3,
    };
    assert_eq!(call(&w, &c, 0, 0, 0, 10), Ok(vec![3, 12, 14]));
    assert_eq!(call(&w, &c, 0, ns_type::NET, 0, 10), Ok(vec![12, 14]));
    assert_eq!(
        call(&w, &c, 0, 0, LISTNS_CURRENT_USER, 10),
        Ok(vec![12, 14])
    );
}

/// `listns()` with raw user memory and all else valid.
fn raw(req: &[u8], ids_ok: bool, nr: usize, flags: u32) -> Result<Vec<u64>, Errno> {
    let mem = UserMem {
        req,
        ids_ok,
        ids_room: usize::MAX,
    };
    listns(&boot(), &root_caller(), &mem, nr, flags)
}

fn sized(size: u32, extra: &[u8]) -> Vec<u8> {
    let mut b = Req {
        size,
        ..Req::v0(0, 0, 0)
    }
    .to_bytes();
    b.extend_from_slice(extra);
    b
}

#[test]
fn errno_order_of_the_syscall() {
    let good = Req::v0(0, 0, 0).to_bytes();
    let bad = sized(1, &[]);
    // flags, then nr_ns_ids, then access_ok(), then the request.
    assert_eq!(raw(&bad, false, MAX_IDS + 1, 1), Err(Errno::Inval));
    assert_eq!(raw(&bad, false, MAX_IDS + 1, 0), Err(Errno::Overflow));
    assert_eq!(raw(&bad, false, MAX_IDS, 0), Err(Errno::Fault));
    assert_eq!(raw(&bad, true, MAX_IDS, 0), Err(Errno::Inval));
    assert_eq!(raw(&good, true, MAX_IDS, 0), Ok((1..=8).collect()));
    assert_eq!(raw(&good, true, 0, 0), Ok(vec![]));
    assert_eq!(
        [Errno::Inval, Errno::Overflow, Errno::Fault].map(Errno::to_errno),
        [22, 75, 14]
    );
}

#[test]
fn errno_of_the_request_size_and_tail() {
    // The size cannot be read.
    assert_eq!(raw(&[32, 0, 0], true, 8, 0), Err(Errno::Fault));
    assert_eq!(raw(&[], true, 8, 0), Err(Errno::Fault));
    // Above a page: E2BIG before anything past the size is read.
    assert_eq!(raw(&4097u32.to_ne_bytes(), true, 8, 0), Err(Errno::TooBig));
    assert_eq!(raw(&u32::MAX.to_ne_bytes(), true, 8, 0), Err(Errno::TooBig));
    // Below version 0.
    assert_eq!(raw(&sized(31, &[]), true, 8, 0), Err(Errno::Inval));
    assert_eq!(raw(&sized(0, &[]), true, 8, 0), Err(Errno::Inval));
    // A larger struct from a newer user space: zero tail is fine...
    assert_eq!(raw(&sized(40, &[0; 8]), true, 8, 0), Ok((1..=8).collect()));
    assert_eq!(
        raw(&sized(4096, &[0; 4064]), true, 8, 0),
        Ok((1..=8).collect())
    );
    // ...a non-zero byte anywhere in it is E2BIG...
    let mut tail = [0u8; 4064];
    tail[4063] = 1;
    assert_eq!(raw(&sized(4096, &tail), true, 8, 0), Err(Errno::TooBig));
    assert_eq!(raw(&sized(33, &[1]), true, 8, 0), Err(Errno::TooBig));
    // ...and an unreadable one EFAULT.
    assert_eq!(raw(&sized(40, &[0; 7]), true, 8, 0), Err(Errno::Fault));
    assert_eq!(raw(&sized(32, &[])[..31], true, 8, 0), Err(Errno::Fault));
    assert_eq!(Errno::TooBig.to_errno(), 7);
}

#[test]
fn errno_of_the_request_fields() {
    let mk = |f: fn(&mut Req)| {
        let mut r = Req::v0(0, 0, 0);
        f(&mut r);
        r.to_bytes()
    };
    assert_eq!(raw(&mk(|r| r.spare = 1), true, 8, 0), Err(Errno::Inval));
    // spare is checked before ns_type.
    assert_eq!(
        raw(&mk(|r| (r.spare, r.ns_type) = (1, 1)), true, 8, 0),
        Err(Errno::Inval)
    );
    assert_eq!(raw(&mk(|r| r.ns_type = 1), true, 8, 0), Err(Errno::NotSupp));
    assert_eq!(
        raw(&mk(|r| r.ns_type = ns_type::ALL | 1 << 31), true, 8, 0),
        Err(Errno::NotSupp)
    );
    // spare2 is not checked, as in C.
    assert_eq!(
        raw(&mk(|r| r.spare2 = 0xffff_ffff), true, 8, 0),
        Ok((1..=8).collect())
    );
    // The request is checked before the owner is looked up.
    assert_eq!(
        raw(&mk(|r| (r.ns_type, r.user_ns_id) = (1, 99)), true, 8, 0),
        Err(Errno::NotSupp)
    );
    assert_eq!(Errno::NotSupp.to_errno(), 95);
}

#[test]
fn fault_while_writing_ids() {
    let bytes = Req::v0(0, 0, 0).to_bytes();
    let mem = |room| UserMem {
        req: &bytes,
        ids_ok: true,
        ids_room: room,
    };
    let (w, c) = (boot(), root_caller());
    assert_eq!(listns(&w, &c, &mem(8), 8, 0), Ok((1..=8).collect()));
    assert_eq!(listns(&w, &c, &mem(7), 8, 0), Err(Errno::Fault));
    assert_eq!(listns(&w, &c, &mem(0), 8, 0), Err(Errno::Fault));
    assert_eq!(listns(&w, &c, &mem(0), 0, 0), Ok(vec![]));
    assert_eq!(listns(&w, &c, &mem(3), 3, 0), Ok(vec![1, 2, 3]));
}

#[test]
fn capability_asked_only_when_needed() {
    // Asking marks the task (PF_SUPERPRIV) when it is granted: C asks only for a namespace
    // that is not one of the caller's own, once; an owner walk asks first, whatever it finds.
    let w = gappy();
    let bytes = |uid| Req::v0(0, 0, uid).to_bytes();
    let asks = |c: &Caller, uid| {
        let b = bytes(uid);
        let m = UserMem {
            req: &b,
            ids_ok: true,
            ids_room: usize::MAX,
        };
        real(&w, c, &m, 100, 0).2
    };
    let own = Caller {
        see_all: true,
        current: w.ns.keys().copied().collect(),
        user_ns: INIT_USER_NS_ID,
    };
    assert_eq!(asks(&own, 0), 0);
    let some = Caller {
        current: [3, 12].into(),
        ..own.clone()
    };
    assert_eq!(asks(&some, 0), 1);
    assert_eq!(asks(&own, INIT_USER_NS_ID), 1);
    assert_eq!(asks(&own, LISTNS_CURRENT_USER), 1);
    // An owner with nothing to list: asked all the same.
    let mut w2 = gappy();
    w2.ns.insert(
        21,
        Entry {
            ty: ns_type::USER,
            owner: Some(3),
            active: true,
        },
    );
    let b = bytes(21);
    let m = UserMem {
        req: &b,
        ids_ok: true,
        ids_room: usize::MAX,
    };
    assert_eq!(real(&w2, &own, &m, 100, 0), (Ok(0), vec![], 1));
}
