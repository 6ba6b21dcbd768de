// SPDX-License-Identifier: GPL-2.0-only

//! `crate::ns` on the host: the interface of `rust/ns.rs` that the other modules use, over a
//! model of the namespaces that the tests build and control ([`System`]).
//!
//! A namespace of the model is *active* (active count 1), *inactive* (active count 0, still
//! counted: [`Anchor::try_new`] succeeds) or *dying* (no count left: `try_new` fails, as
//! `__ns_ref_get()` does on a namespace being freed; it is still on the trees until the model
//! removes it). The model holds one counted reference on each namespace that is not dying; the
//! code under test holds the others, which must all be dropped once, outside RCU and the lock.
//! The last one of a dying namespace frees it: it leaves its trees.
//!
//! Holds, puts, failed holds, `may_see_all()` questions, pauses and the ids read under RCU are
//! logged ([`Ev`]). With [`System::set_race`], namespaces change state and are freed or created
//! whenever the code under test enters an RCU read-side section, looks at a namespace's type, or
//! holds one.

use core::ptr::NonNull;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering::Relaxed as R};
use std::sync::Mutex;

use kernel::bindings;
use kernel::rbtree::rcu::{Anchor, Item, Links, Tree};
use kernel::sync::aref::{ARef, AlwaysRefCounted};
use kernel::sync::atomic::{Atomic, Full, Relaxed};
use kernel::sync::{rcu, Refcount, SeqLock};
use kernel::transmute::FromBytes;

use crate::cascade::ActiveNode;

/// The unified tree's links.
pub(crate) const UNIFIED: u64 = 0;
/// A per-type tree's links.
pub(crate) const BY_TYPE: u64 = 1;
/// The owner's tree's links.
pub(crate) const BY_OWNER: u64 = 2;

/// Id of the last boot-time namespace.
pub(crate) const NS_LAST_INIT_ID: u64 = 8;

/// The id of `init_user_ns`.
pub(crate) const INIT_USER_NS_ID: u64 = 3;

/// The namespace types, in the order of [`System`]'s type trees.
pub(crate) const TYPES: [u32; 8] = [
    bindings::CLONE_NEWTIME,
    bindings::CLONE_NEWNS,
    bindings::CLONE_NEWCGROUP,
    bindings::CLONE_NEWUTS,
    bindings::CLONE_NEWIPC,
    bindings::CLONE_NEWUSER,
    bindings::CLONE_NEWPID,
    bindings::CLONE_NEWNET,
];

/// A namespace: the model's `struct ns_common`.
pub(crate) struct NsCommon {
    id: u64,
    ns_type: u32,
    owner: Option<NonNull<NsCommon>>,
    active: Atomic<i32>,
    ns_ref: Refcount,
    /// The counted references the model holds (0 or 1).
    own: AtomicI32,
    current: AtomicBool,
    unified: Links<UNIFIED>,
    by_type: Links<BY_TYPE>,
    by_owner: Links<BY_OWNER>,
    owned: Tree<NsCommon, BY_OWNER>,
}

// SAFETY: everything but `owner` is atomic; `owner` is set before the namespace is shared and
// points to a namespace of the same `System`, which outlives both.
unsafe impl Sync for NsCommon {}
// SAFETY: see `Sync`.
unsafe impl Send for NsCommon {}

kernel::impl_has_rcu_links! {
    impl HasLinks<0> for NsCommon { self.unified }
    impl HasLinks<1> for NsCommon { self.by_type }
    impl HasLinks<2> for NsCommon { self.by_owner }
}

impl Item for NsCommon {
    type Key = u64;

    fn key(&self) -> u64 {
        self.id
    }
}

impl NsCommon {
    /// The namespace id; read under RCU, it is logged as [`Ev::Collect`].
    pub(crate) fn id(&self) -> u64 {
        if rcu::read_lock_held() {
            log(Ev::Collect(self.id));
        }
        self.id
    }

    /// The `CLONE_NEW*` flag of its type. Counts a step of a walk (see [`System::set_race`]).
    pub(crate) fn ns_type(&self) -> u32 {
        model::step(self);
        self.ns_type
    }

    /// `__ns_ref_active`.
    pub(crate) fn active(&self) -> &Atomic<i32> {
        &self.active
    }

    /// The tree of the namespaces this user namespace owns.
    pub(crate) fn owned(&self) -> &Tree<NsCommon, BY_OWNER> {
        &self.owned
    }

    /// Whether this is a boot-time namespace.
    pub(crate) fn is_initial(&self) -> bool {
        vfs_warn_on_once!(self.id == 0);
        self.id != 0 && self.id <= NS_LAST_INIT_ID
    }

    /// The owning user namespace; `None` for `init_user_ns`.
    pub(crate) fn owner(&self) -> Option<&NsCommon> {
        // SAFETY: the owner belongs to the same `System` (see `Sync`).
        self.owner.map(|o| unsafe { o.as_ref() })
    }

    /// Whether this is `init_user_ns`.
    pub(crate) fn is_init_user_ns(&self) -> bool {
        self.id == INIT_USER_NS_ID && self.ns_type == bindings::CLONE_NEWUSER
    }

    /// Whether the calling task uses this namespace.
    pub(crate) fn is_current(&self) -> bool {
        self.current.load(R)
    }
}

/// `ns_owner()`: the owner whose active count this namespace holds, unless `init_user_ns`.
pub(crate) fn ns_owner(ns: &NsCommon) -> Option<&NsCommon> {
    ns.owner().filter(|o| !o.is_init_user_ns())
}

impl ActiveNode for NsCommon {
    fn is_initial(&self) -> bool {
        NsCommon::is_initial(self)
    }

    fn maybe_initial(&self) -> bool {
        self.id <= NS_LAST_INIT_ID
    }

    fn active_owner(&self) -> Option<&Self> {
        ns_owner(self)
    }

    fn active_dec_and_test(&self) -> bool {
        self.active.fetch_sub(1, Full) == 1
    }

    fn active_fetch_inc(&self) -> i32 {
        self.active.fetch_add(1, Full)
    }

    fn active_read(&self) -> i32 {
        self.active.load(Relaxed)
    }

    fn counted_read(&self) -> i32 {
        self.ns_ref.as_atomic().load(Relaxed)
    }

    fn check(&self, ok: bool) {
        vfs_warn_on_once!(!ok);
    }
}

// SAFETY: a namespace is freed (taken off its trees) only once its count dropped to zero, and
// its memory lives as long as its `System`.
unsafe impl AlwaysRefCounted for NsCommon {
    fn inc_ref(&self) {
        self.ns_ref.inc();
        log(Ev::Hold(self.id));
    }

    unsafe fn dec_ref(obj: NonNull<Self>) {
        // `ops->put()` may sleep.
        kernel::task::might_sleep();
        // SAFETY: the caller owns a count.
        let ns = unsafe { obj.as_ref() };
        log(Ev::Put(ns.id));
        let left = ns.ns_ref.as_atomic().fetch_sub(1, Full) - 1;
        if left < ns.own.load(R) && !std::thread::panicking() {
            panic!("namespace {}: put of a reference nobody held", ns.id);
        }
        if left == 0 {
            model::free(ns);
        }
    }
}

/// A counted reference.
pub(crate) type NsRef = ARef<NsCommon>;

/// A counted reference, unless the namespace is dying (`__ns_ref_get()`).
pub(crate) fn try_get(ns: &NsCommon) -> Option<NsRef> {
    if ns.id == 0 {
        return None;
    }
    model::before_hold(ns);
    let c = ns.ns_ref.as_atomic();
    let mut v = c.load(Relaxed);
    while v != 0 {
        match c.cmpxchg(v, v + 1, Full) {
            Ok(_) => {
                log(Ev::Hold(ns.id));
                // SAFETY: the count was just taken.
                return Some(unsafe { ARef::from_raw(NonNull::from(ns)) });
            }
            Err(now) => v = now,
        }
    }
    log(Ev::HoldFail(ns.id));
    None
}

// SAFETY: see `AlwaysRefCounted`: `try_get()` fails once the count is zero, and the namespace
// leaves its trees only then.
unsafe impl Anchor<NsCommon> for NsRef {
    fn try_new(item: &NsCommon) -> Option<Self> {
        try_get(item)
    }

    fn item(&self) -> &NsCommon {
        self
    }
}

/// `ns_get_unless_inactive()`: a counted reference on an active namespace.
pub(crate) fn get_unless_inactive(ns: &NsCommon) -> Option<NsRef> {
    if ns.active_read() == 0 {
        vfs_warn_on_once!(ns.is_initial());
        return None;
    }
    try_get(ns)
}

/// The lock of the trees.
pub(crate) fn tree_lock() -> &'static SeqLock {
    &model::sys().lock
}

/// The unified tree.
pub(crate) fn unified() -> &'static Tree<NsCommon, UNIFIED> {
    &model::sys().unified
}

/// The tree of one namespace type.
pub(crate) fn type_tree(ns_type: u32) -> Option<&'static Tree<NsCommon, BY_TYPE>> {
    model::sys().type_tree(ns_type)
}

/// `may_see_all_namespaces()`: the model's answer, logged as [`Ev::Ask`].
pub(crate) fn may_see_all() -> bool {
    let v = model::with(|m| m.see_all);
    log(Ev::Ask(v));
    v
}

/// The caller's user namespace.
pub(crate) fn with_current_user_ns<T>(f: impl FnOnce(&NsCommon) -> T) -> T {
    let id = model::with(|m| m.user_ns);
    f(model::find(id).expect("the caller's user namespace is not in the model"))
}

/// `struct ns_id_req`.
#[repr(transparent)]
pub(crate) struct NsIdReq(pub(crate) bindings::ns_id_req);

// SAFETY: integer fields only, no padding.
unsafe impl FromBytes for NsIdReq {}

/// `trace_nstree_listns_pause()`: logged as [`Ev::Pause`].
pub(crate) fn trace_pause(ns_id: u64) {
    log(Ev::Pause(ns_id));
}

/// What the model logs; the tests log user space writes and `cond_resched()` too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ev {
    /// The id of a namespace read under RCU.
    Collect(u64),
    /// A counted reference taken.
    Hold(u64),
    /// A counted reference refused: the namespace is dying.
    HoldFail(u64),
    /// A counted reference dropped.
    Put(u64),
    /// `may_see_all()` asked, and its answer.
    Ask(bool),
    /// A walk paused at this namespace.
    Pause(u64),
    /// An id written to user space.
    Write(u64),
    /// A write to this slot of the id buffer faulted.
    Fault(usize),
    /// `cond_resched()`.
    CondResched,
}

/// Appends to this thread's log.
pub(crate) fn log(ev: Ev) {
    model::with(|m| m.log.push(ev));
}

/// The state of a namespace (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    /// Active count 1, counted.
    Active,
    /// Active count 0, counted.
    Inactive,
    /// Neither: being freed.
    Dying,
}

/// The namespaces of a test, their trees and their lock; installed for the thread that makes
/// it, until it is dropped.
pub(crate) struct System(Box<Sys>);

struct Sys {
    lock: SeqLock,
    unified: Tree<NsCommon, UNIFIED>,
    types: [Tree<NsCommon, BY_TYPE>; 8],
    /// Every namespace ever made, freed or not: readers may still reach a freed one.
    all: Mutex<BTreeMap<u64, Box<NsCommon>>>,
}

impl Sys {
    fn type_tree(&self, ty: u32) -> Option<&Tree<NsCommon, BY_TYPE>> {
        Some(&self.types[TYPES.iter().position(|&t| t == ty)?])
    }

    fn add(&self, id: u64, ty: u32, owner: Option<u64>, st: State) -> &NsCommon {
        let ns = self.make(id, ty, owner, st);
        let _w = self.lock.write();
        // SAFETY: writers hold the lock; `ns` is new and lives as long as the system.
        let fresh = unsafe {
            let fresh = self.type_tree(ty).is_none_or(|t| t.insert(ns));
            fresh && self.unified.insert(ns) && ns.owner().is_none_or(|o| o.owned.insert(ns))
        };
        assert!(fresh, "namespace {id} added twice");
        ns
    }

    fn make(&self, id: u64, ty: u32, owner: Option<u64>, st: State) -> &NsCommon {
        let owner = owner.map(|o| {
            let o = model::find(o).unwrap_or_else(|| panic!("no owner {o}"));
            assert_eq!(
                o.ns_type,
                bindings::CLONE_NEWUSER,
                "owners are user namespaces"
            );
            NonNull::from(o)
        });
        let mut ns = Box::new(NsCommon {
            id,
            ns_type: ty,
            owner,
            active: Atomic::new(0),
            ns_ref: Refcount::new(0),
            own: AtomicI32::new(0),
            current: AtomicBool::new(false),
            unified: Links::uninit(),
            by_type: Links::uninit(),
            by_owner: Links::uninit(),
            owned: Tree::uninit(),
        });
        // SAFETY: boxed, on no tree, not shared yet.
        unsafe {
            Links::init(&raw mut ns.unified);
            Links::init(&raw mut ns.by_type);
            Links::init(&raw mut ns.by_owner);
            Tree::init(&raw mut ns.owned);
        }
        set_state(&ns, st);
        let p: *const NsCommon = &*ns;
        let old = self.all.lock().unwrap().insert(id, ns);
        assert!(old.is_none(), "namespace {id} made twice");
        // SAFETY: boxed and never dropped before the system.
        unsafe { &*p }
    }

    /// Frees `ns`: off its trees, if it is still on them.
    fn free(&self, ns: &NsCommon) {
        let _w = self.lock.write();
        // SAFETY: writers hold the lock; a namespace is on all of its trees or on none.
        unsafe {
            if Tree::<NsCommon, UNIFIED>::is_linked(ns).0 {
                self.unlink(ns);
            }
        }
    }

    /// # Safety
    ///
    /// The caller holds the lock, and `ns` is on its trees.
    unsafe fn unlink(&self, ns: &NsCommon) {
        // SAFETY: per the caller.
        unsafe {
            self.unified.remove(ns);
            if let Some(t) = self.type_tree(ns.ns_type) {
                t.remove(ns);
            }
            if let Some(o) = ns.owner() {
                o.owned.remove(ns);
            }
        }
    }
}

impl System {
    /// An empty system, installed for this thread: no namespace, a caller that may not see all,
    /// whose user namespace is `init_user_ns`; the stub's hooks and user memory reset.
    pub(crate) fn new() -> System {
        let mut sys = Box::new(Sys {
            lock: SeqLock::new(),
            unified: Tree::uninit(),
            types: [const { Tree::uninit() }; 8],
            all: Mutex::new(BTreeMap::new()),
        });
        // SAFETY: the trees are boxed (they stay in place) and not in use yet.
        unsafe {
            Tree::init(&raw mut sys.unified);
            for t in &mut sys.types {
                Tree::init(t);
            }
        }
        model::install(&sys);
        kernel::task::set_hooks(None, None);
        kernel::uaccess::mem::reset();
        kernel::uaccess::mem::set_write_hook(None);
        System(sys)
    }

    /// Adds a namespace to the trees: its type's, the unified one and its owner's.
    pub(crate) fn add(&self, id: u64, ty: u32, owner: Option<u64>, st: State) -> &NsCommon {
        self.0.add(id, ty, owner, st)
    }

    /// Makes a namespace on no tree.
    pub(crate) fn make(&self, id: u64, ty: u32, owner: Option<u64>, st: State) -> &NsCommon {
        self.0.make(id, ty, owner, st)
    }

    /// The namespace `id`, freed or not.
    pub(crate) fn get(&self, id: u64) -> &NsCommon {
        model::find(id).unwrap_or_else(|| panic!("no namespace {id}"))
    }

    /// Takes namespace `id` off its trees and puts it back, in one write section: a lockless
    /// lookup meanwhile may miss it. Callable from any thread.
    pub(crate) fn reinsert(&self, id: u64) {
        let sys = &*self.0;
        let all = sys.all.lock().unwrap();
        let ns = &**all.get(&id).unwrap();
        let _w = sys.lock.write();
        // SAFETY: writers hold the lock; `ns` is on its trees, and lives as long as the system.
        let back = unsafe {
            sys.unlink(ns);
            sys.type_tree(ns.ns_type).is_none_or(|t| t.insert(ns))
                && sys.unified.insert(ns)
                && ns.owner().is_none_or(|o| o.owned.insert(ns))
        };
        assert!(back);
    }

    /// Sets the state of namespace `id`.
    pub(crate) fn set_state(&self, id: u64, st: State) {
        set_state(self.get(id), st);
    }

    /// Makes namespace `id` one of the caller's own, or not.
    pub(crate) fn set_current(&self, id: u64, current: bool) {
        self.get(id).current.store(current, R);
    }

    /// What `may_see_all()` answers.
    pub(crate) fn set_see_all(&self, v: bool) {
        model::with(|m| m.see_all = v);
    }

    /// The caller's user namespace.
    pub(crate) fn set_user_ns(&self, id: u64) {
        model::with(|m| m.user_ns = id);
    }

    /// A walk may look at no more than `n` namespaces (else it panics: it does not end).
    pub(crate) fn set_step_limit(&self, n: u64) {
        model::with(|m| (m.steps, m.step_limit) = (0, n));
    }

    /// Races the code under test, with a random stream from `seed` (`None`: no race).
    pub(crate) fn set_race(&self, seed: Option<u64>) {
        model::with(|m| m.race = seed.map(|s| s | 1));
        rcu::set_lock_hook(seed.map(|_| model::on_rcu_lock as fn()));
    }

    /// The log so far, emptied.
    pub(crate) fn take_log(&self) -> Vec<Ev> {
        model::with(|m| std::mem::take(&mut m.log))
    }

    /// The ids on the unified tree, in order.
    pub(crate) fn listed(&self) -> Vec<u64> {
        let g = rcu::read_lock();
        let mut v = Vec::new();
        let mut c = self.0.unified.first(&g);
        while let Some(x) = c {
            v.push(x.item().id);
            c = x.next();
        }
        v
    }

    /// Every counted reference but the model's dropped, no RCU section or lock left.
    pub(crate) fn check_quiescent(&self) -> Result<(), String> {
        if rcu::read_lock_held() || self.0.lock.held_by_me() {
            return Err("RCU read-side section or lock left held".into());
        }
        for ns in self.0.all.lock().unwrap().values() {
            let (n, own) = (ns.ns_ref.as_atomic().load(Relaxed), ns.own.load(R));
            if n != own {
                return Err(format!(
                    "namespace {}: {} counted references left",
                    ns.id,
                    n - own
                ));
            }
        }
        Ok(())
    }
}

impl Drop for System {
    fn drop(&mut self) {
        rcu::set_lock_hook(None);
        kernel::task::set_hooks(None, None);
        kernel::uaccess::mem::set_write_hook(None);
        model::uninstall();
    }
}

/// Sets `ns`'s counts for `st`, keeping the references the code under test holds.
fn set_state(ns: &NsCommon, st: State) {
    let own = i32::from(st != State::Dying);
    let was = ns.own.swap(own, R);
    ns.ns_ref.as_atomic().fetch_add(own - was, Full);
    ns.active.store(i32::from(st == State::Active), Relaxed);
}

/// The thread's model: its system and what the tests set.
mod model {
    use super::*;

    pub(super) struct Model {
        pub(super) sys: *const Sys,
        pub(super) see_all: bool,
        pub(super) user_ns: u64,
        pub(super) log: Vec<Ev>,
        pub(super) race: Option<u64>,
        pub(super) steps: u64,
        pub(super) step_limit: u64,
    }

    thread_local! {
        static MODEL: RefCell<Model> = const {
            RefCell::new(Model {
                sys: core::ptr::null(),
                see_all: false,
                user_ns: INIT_USER_NS_ID,
                log: Vec::new(),
                race: None,
                steps: 0,
                step_limit: u64::MAX,
            })
        };
        static IN_RACE: Cell<bool> = const { Cell::new(false) };
    }

    pub(super) fn with<T>(f: impl FnOnce(&mut Model) -> T) -> T {
        MODEL.with(|m| f(&mut m.borrow_mut()))
    }

    pub(super) fn install(sys: &Sys) {
        with(|m| {
            assert!(
                m.sys.is_null(),
                "a System is installed on this thread already"
            );
            *m = Model {
                sys,
                see_all: false,
                user_ns: INIT_USER_NS_ID,
                log: Vec::new(),
                race: None,
                steps: 0,
                step_limit: u64::MAX,
            };
        });
        IN_RACE.with(|r| r.set(false));
    }

    pub(super) fn uninstall() {
        with(|m| m.sys = core::ptr::null());
    }

    /// The installed system, for as long as the test keeps it: `'static` is a lie the test
    /// keeps true by not dropping its `System` while the code under test runs.
    pub(super) fn sys() -> &'static Sys {
        let p = with(|m| m.sys);
        assert!(!p.is_null(), "no System installed on this thread");
        // SAFETY: see above.
        unsafe { &*p }
    }

    pub(super) fn find(id: u64) -> Option<&'static NsCommon> {
        let all = sys().all.lock().unwrap();
        let p: *const NsCommon = &**all.get(&id)?;
        // SAFETY: boxed, and kept for as long as the system.
        Some(unsafe { &*p })
    }

    fn rnd() -> Option<u64> {
        with(|m| {
            let x = m.race.as_mut()?;
            *x ^= *x << 13;
            *x ^= *x >> 7;
            *x ^= *x << 17;
            Some(*x)
        })
    }

    /// Runs the race step `f`, unless one is running or this thread holds the lock, which a race
    /// step may take.
    fn racing(f: impl FnOnce()) {
        if IN_RACE.with(Cell::get) || sys().lock.held_by_me() {
            return;
        }
        IN_RACE.with(|r| r.set(true));
        f();
        IN_RACE.with(|r| r.set(false));
    }

    fn all() -> Vec<&'static NsCommon> {
        let all = sys().all.lock().unwrap();
        // SAFETY: as in `find()`.
        all.values()
            .map(|n| unsafe { &*(&**n as *const NsCommon) })
            .collect()
    }

    /// One random change to `ns`: deactivated, resurrected, dying, or, dying, freed.
    fn change(ns: &NsCommon, r: u64) {
        let active = ns.active.load(Relaxed) != 0;
        let own = ns.own.load(R) != 0;
        match r % 16 {
            0 if active => set_state(ns, State::Inactive),
            1 if !active && own => set_state(ns, State::Dying),
            2 if active => set_state(ns, State::Dying),
            3 if !active && own => set_state(ns, State::Active),
            4 if ns.ns_ref.as_atomic().load(Relaxed) == 0 => free(ns),
            _ => {}
        }
    }

    /// The hook of every `rcu::read_lock()` in race mode: every namespace may change, and a new
    /// one may appear.
    pub(super) fn on_rcu_lock() {
        racing(|| {
            for ns in all() {
                let Some(r) = rnd() else { return };
                change(ns, r);
            }
            let (Some(r), Some(s)) = (rnd(), rnd()) else {
                return;
            };
            let all = all();
            // SAFETY: this thread is the only writer, and it is here.
            let listed: Vec<_> = all
                .iter()
                .filter(|n| unsafe { Tree::<NsCommon, UNIFIED>::is_linked(n).0 })
                .collect();
            if r % 4 != 0 || listed.is_empty() {
                return;
            }
            // A namespace like one on the trees, at a free id up to a little above the last.
            let like = listed[s as usize % listed.len()];
            let id = 1 + (s >> 16) % (listed.iter().map(|n| n.id).max().unwrap_or(0) + 3);
            if all.iter().all(|n| n.id != id) {
                let st = [State::Active, State::Inactive, State::Dying][(s >> 32) as usize % 3];
                sys().add(id, like.ns_type, like.owner().map(|o| o.id), st);
            }
        });
    }

    /// A step of a walk: counted against the step limit; in race mode, the namespace may change.
    pub(super) fn step(ns: &NsCommon) {
        let over = with(|m| {
            m.steps += 1;
            m.steps > m.step_limit
        });
        if over && !std::thread::panicking() {
            panic!("step limit: the walk does not end");
        }
        if let Some(r) = rnd() {
            if r % 4 == 0 {
                racing(|| change(ns, r >> 8));
            }
        }
    }

    /// In race mode, a namespace that nobody else holds may die right before a hold.
    pub(super) fn before_hold(ns: &NsCommon) {
        if let Some(r) = rnd() {
            let alone = ns.ns_ref.as_atomic().load(Relaxed) == ns.own.load(R);
            if alone && r % 8 == 0 {
                racing(|| set_state(ns, State::Dying));
            }
        }
    }

    pub(super) fn free(ns: &NsCommon) {
        sys().free(ns);
    }
}
