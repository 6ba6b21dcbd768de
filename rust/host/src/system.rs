// SPDX-License-Identifier: GPL-2.0-only

//! A model of the namespace system around the active reference count.
//!
//! Every namespace has the two counts of `struct ns_common`:
//!
//! - the plain count (`__ns_ref`) keeps it alive: held by each of its
//!   users and by each namespace it owns; at zero the namespace is freed
//!   and drops its plain reference on its owner;
//! - the active count (`__ns_ref_active`), driven by the kernel crate's
//!   [`cascade`] code: held by each task and open file that uses the
//!   namespace, and by each active namespace it owns.
//!
//! The users are [`Kind::Task`] (nsproxy/cred: plain and active),
//! [`Kind::Fd`] (an nsfs file: plain and active; opening an inactive
//! namespace resurrects it, as `SIOCGSKNS` does) and [`Kind::Plain`] (plain
//! only, like a socket's reference on its network namespace: what keeps an
//! inactive namespace alive). A namespace is created by a task, which is
//! its first user.
//!
//! The initial namespaces (ids `1..=8`, as in `enum init_ns_id`) are
//! always active and their active count is never touched: [`ModelNs`]
//! panics if the cascade tries. Their owner is `init_user_ns`, which
//! [`ActiveNode::active_owner`] hides, exactly as `ns_owner()` does.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering::SeqCst};
use std::sync::Arc;

use crate::cascade::{self, ActiveNode};
use crate::req::ns_type;

/// Ids `1..=NS_LAST_INIT_ID` are the boot-time namespaces.
pub(crate) const NS_LAST_INIT_ID: u64 = 8;

/// `USER_NS_INIT_ID`.
pub(crate) const INIT_USER_NS_ID: u64 = 3;

/// The initial namespaces, `enum init_ns_id` of `uapi/linux/nsfs.h`.
pub(crate) const INITIAL: [(u64, u32); 8] = [
    (1, ns_type::IPC),
    (2, ns_type::UTS),
    (3, ns_type::USER),
    (4, ns_type::PID),
    (5, ns_type::CGROUP),
    (6, ns_type::TIME),
    (7, ns_type::NET),
    (8, ns_type::MNT),
];

/// Every namespace type.
pub(crate) const TYPES: [u32; 8] = [
    ns_type::TIME,
    ns_type::MNT,
    ns_type::CGROUP,
    ns_type::UTS,
    ns_type::IPC,
    ns_type::USER,
    ns_type::PID,
    ns_type::NET,
];

/// The first id the kernel hands out: `namespace_cookie` starts at
/// `NS_LAST_INIT_ID + 1` and is incremented before use.
pub(crate) const FIRST_DYNAMIC_ID: u64 = NS_LAST_INIT_ID + 2;

/// A model `struct ns_common`.
#[derive(Debug)]
pub(crate) struct ModelNs {
    /// `ns_id`.
    pub(crate) id: u64,
    /// `ns_type`.
    pub(crate) ty: u32,
    /// The owning user namespace (`ops->owner()`), `None` only for
    /// `init_user_ns`. Holding the `Arc` is the model's memory safety; the
    /// modelled plain reference on the owner is `plain`.
    owner: Option<Arc<ModelNs>>,
    active: AtomicI32,
    plain: AtomicI32,
    freed: AtomicBool,
}

impl ModelNs {
    /// A namespace as `__ns_common_init()` leaves it: one plain reference
    /// (the creator's), active count 0 unless initial (then 1, forever).
    pub(crate) fn new(id: u64, ty: u32, owner: Option<Arc<ModelNs>>) -> Arc<ModelNs> {
        let initial = id <= NS_LAST_INIT_ID;
        assert!(
            owner.is_some() || id == INIT_USER_NS_ID,
            "only init_user_ns has no owner"
        );
        if let Some(o) = &owner {
            assert_eq!(o.ty, ns_type::USER, "owners are user namespaces");
        }
        Arc::new(ModelNs {
            id,
            ty,
            owner,
            active: AtomicI32::new(i32::from(initial)),
            plain: AtomicI32::new(1),
            freed: AtomicBool::new(false),
        })
    }

    /// Whether this is `init_user_ns`.
    pub(crate) fn is_init_user_ns(&self) -> bool {
        self.id == INIT_USER_NS_ID
    }

    /// The active count.
    pub(crate) fn active(&self) -> i32 {
        self.active.load(SeqCst)
    }

    /// The plain count.
    pub(crate) fn plain(&self) -> i32 {
        self.plain.load(SeqCst)
    }

    /// Whether the namespace has been freed.
    pub(crate) fn is_freed(&self) -> bool {
        self.freed.load(SeqCst)
    }

    /// Takes a plain reference, which needs one already held (`ns_ref_get()`
    /// on a namespace the caller reached through a reference).
    pub(crate) fn get_plain(&self) {
        assert!(!self.is_freed(), "plain get on freed namespace {}", self.id);
        let prev = self.plain.fetch_add(1, SeqCst);
        assert!(
            prev > 0,
            "plain get on namespace {} with count {prev}",
            self.id
        );
    }

    /// Drops a plain reference; `true` if it was the last.
    pub(crate) fn put_plain(&self) -> bool {
        assert!(!self.is_freed(), "plain put on freed namespace {}", self.id);
        let prev = self.plain.fetch_sub(1, SeqCst);
        assert!(
            prev > 0,
            "plain put on namespace {} with count {prev}",
            self.id
        );
        prev == 1
    }

    /// Panics unless the cascade may change this namespace's active count.
    fn assert_counted(&self) {
        assert!(
            !self.is_initial(),
            "cascade changed the active count of initial namespace {}",
            self.id
        );
        assert!(
            !self.is_freed(),
            "cascade touched freed namespace {}",
            self.id
        );
        // An active reference requires a plain one: whoever steps the
        // count holds a plain reference (its own, or a child's on it).
        assert!(
            self.plain() > 0,
            "active count of namespace {} changed without a plain reference",
            self.id
        );
    }
}

impl ActiveNode for ModelNs {
    fn is_initial(&self) -> bool {
        // is_ns_init_id()
        self.id <= NS_LAST_INIT_ID
    }

    fn active_owner(&self) -> Option<&Self> {
        // ns_owner(): init_user_ns is always active and skipped.
        self.owner.as_deref().filter(|o| !o.is_init_user_ns())
    }

    fn active_dec_and_test(&self) -> bool {
        self.assert_counted();
        self.active.fetch_sub(1, SeqCst) == 1
    }

    fn active_fetch_inc(&self) -> i32 {
        self.assert_counted();
        self.active.fetch_add(1, SeqCst)
    }

    fn active_read(&self) -> i32 {
        self.active()
    }

    fn counted_read(&self) -> i32 {
        self.plain()
    }

    fn check(&self, ok: bool) {
        assert!(
            ok,
            "VFS_WARN_ON_ONCE() in the cascade at namespace {}",
            self.id
        );
    }
}

/// What uses a namespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Kind {
    /// A task (nsproxy or cred): plain and active reference.
    Task,
    /// An open nsfs file: plain and active reference.
    Fd,
    /// Plain reference only (a socket, a mount, a pid...).
    Plain,
}

impl Kind {
    /// Whether this user holds an active reference.
    pub(crate) fn is_active(self) -> bool {
        self != Kind::Plain
    }
}

/// A user, by the order of its creation.
pub(crate) type HolderId = u64;

/// One operation on the system, with its targets chosen by selectors
/// that [`System::apply`] reduces modulo the current candidates (so any
/// random sequence is valid). The candidates are ordered so that small
/// selectors reach the interesting ones: deep chains, inactive namespaces.
#[derive(Clone, Debug)]
pub(crate) enum Op {
    /// A task creates a namespace of type `TYPES[ty % 8]` owned by a live
    /// user namespace (`init_user_ns` included), the newest first, and
    /// uses it. With `moves`, a new user namespace replaces the task's old
    /// one (`unshare(CLONE_NEWUSER)` switches the cred): the newest task
    /// of the owner, if any, leaves it, after the new one holds its owner.
    Create {
        owner: usize,
        ty: usize,
        moves: bool,
    },
    /// A task enters (setns) a namespace some task or file uses.
    Enter(usize),
    /// A file is opened on a live namespace, the inactive ones first (it
    /// resurrects them), then the newest.
    Open(usize),
    /// A plain reference is taken on a live namespace, the newest first.
    Hold(usize),
    /// A user (task exits, file closed, plain reference dropped) goes
    /// away: tasks and files first (leaving inactive namespaces that plain
    /// references keep), newest first.
    Release(usize),
    /// Every task and file of a namespace goes away (the last process of
    /// a container exits), the newest namespace first.
    Exit(usize),
}

impl Op {
    /// Whether the operation adds a user (whose release is its inverse).
    pub(crate) fn acquires(&self) -> bool {
        match self {
            Op::Create { moves, ty, .. } => !*moves || TYPES[ty % TYPES.len()] != ns_type::USER,
            Op::Enter(_) | Op::Open(_) | Op::Hold(_) => true,
            Op::Release(_) | Op::Exit(_) => false,
        }
    }
}

/// The counts of every namespace ever created: `(active, plain, freed)`.
pub(crate) type Snapshot = Vec<(i32, i32, bool)>;

/// The whole system: an arena of namespaces (index = handle; freed
/// namespaces stay, marked) and the users.
#[derive(Debug)]
pub(crate) struct System {
    nodes: Vec<Arc<ModelNs>>,
    owner_of: Vec<Option<usize>>,
    holders: BTreeMap<HolderId, (Kind, usize)>,
    next_holder: HolderId,
    next_id: u64,
}

impl Default for System {
    fn default() -> Self {
        Self::new()
    }
}

impl System {
    /// The boot state: the initial namespaces, each with its static plain
    /// reference and the ones its children hold.
    pub(crate) fn new() -> System {
        let mut sys = System {
            nodes: Vec::new(),
            owner_of: Vec::new(),
            holders: BTreeMap::new(),
            next_holder: 0,
            next_id: FIRST_DYNAMIC_ID,
        };
        let user = ModelNs::new(INIT_USER_NS_ID, ns_type::USER, None);
        sys.nodes.push(user.clone());
        sys.owner_of.push(None);
        for (id, ty) in INITIAL {
            if id == INIT_USER_NS_ID {
                continue;
            }
            user.get_plain();
            sys.nodes.push(ModelNs::new(id, ty, Some(user.clone())));
            sys.owner_of.push(Some(0));
        }
        sys
    }

    /// The arena index of `init_user_ns`.
    pub(crate) const INIT_USER: usize = 0;

    /// Every namespace ever created, by arena index.
    pub(crate) fn nodes(&self) -> &[Arc<ModelNs>] {
        &self.nodes
    }

    /// The namespace at arena index `i`.
    pub(crate) fn node(&self, i: usize) -> &Arc<ModelNs> {
        &self.nodes[i]
    }

    /// The arena index of the owner of namespace `i`.
    pub(crate) fn owner_of(&self, i: usize) -> Option<usize> {
        self.owner_of[i]
    }

    /// The live users: id -> (kind, namespace index).
    pub(crate) fn holders(&self) -> &BTreeMap<HolderId, (Kind, usize)> {
        &self.holders
    }

    /// Arena indexes of the namespaces not freed.
    pub(crate) fn live(&self) -> Vec<usize> {
        (0..self.nodes.len())
            .filter(|&i| !self.nodes[i].is_freed())
            .collect()
    }

    fn newest_first(&self) -> Vec<usize> {
        let mut v = self.live();
        v.reverse();
        v
    }

    fn add_holder(&mut self, kind: Kind, ns: usize) -> HolderId {
        let h = self.next_holder;
        self.next_holder += 1;
        self.holders.insert(h, (kind, ns));
        h
    }

    /// A task creates a namespace of type `ty` owned by user namespace
    /// `owner`; the task is its first user. Returns (task, namespace).
    pub(crate) fn create(&mut self, owner: usize, ty: u32) -> (HolderId, usize) {
        let o = self.nodes[owner].clone();
        assert_eq!(o.ty, ns_type::USER);
        // The new namespace's plain reference on its owner (get_user_ns()).
        o.get_plain();
        let id = self.next_id;
        self.next_id += 1;
        let ns = ModelNs::new(id, ty, Some(o));
        // The creator's plain reference is the one new() set up; its
        // active one is taken when the task installs it, which takes the
        // namespace's active reference on its owner.
        cascade::get_active(&*ns);
        self.nodes.push(ns);
        self.owner_of.push(Some(owner));
        let idx = self.nodes.len() - 1;
        (self.add_holder(Kind::Task, idx), idx)
    }

    /// A new user of kind `kind` on namespace `ns`.
    pub(crate) fn acquire(&mut self, kind: Kind, ns: usize) -> HolderId {
        let n = &self.nodes[ns];
        n.get_plain();
        if kind.is_active() {
            cascade::get_active(&**n);
        }
        self.add_holder(kind, ns)
    }

    /// User `h` goes away: its active reference first, then its plain one.
    pub(crate) fn release(&mut self, h: HolderId) {
        let (kind, ns) = self.holders.remove(&h).expect("no such user");
        if kind.is_active() {
            cascade::put_active(&*self.nodes[ns]);
        }
        self.put_plain(ns);
    }

    /// Drops a plain reference on `ns`, freeing it (and so on up the
    /// owners) when it was the last.
    fn put_plain(&mut self, ns: usize) {
        let mut cur = Some(ns);
        while let Some(i) = cur {
            let n = &self.nodes[i];
            if !n.put_plain() {
                return;
            }
            assert!(!n.is_initial(), "initial namespace {} freed", n.id);
            assert_eq!(n.active(), 0, "namespace {} freed while active", n.id);
            n.freed.store(true, SeqCst);
            cur = self.owner_of[i];
        }
    }

    /// Applies `op`; returns the user it added, if any.
    pub(crate) fn apply(&mut self, op: &Op) -> Option<HolderId> {
        fn pick<T: Copy>(v: &[T], sel: usize) -> Option<T> {
            (!v.is_empty()).then(|| v[sel % v.len()])
        }
        match *op {
            Op::Create { owner, ty, moves } => {
                let users: Vec<usize> = self
                    .newest_first()
                    .into_iter()
                    .filter(|&i| self.nodes[i].ty == ns_type::USER)
                    .collect();
                let o = pick(&users, owner)?;
                let ty = TYPES[ty % TYPES.len()];
                let (task, _) = self.create(o, ty);
                if moves && ty == ns_type::USER {
                    let old = self
                        .holders
                        .iter()
                        .rev()
                        .find(|(_, &(k, n))| n == o && k == Kind::Task)
                        .map(|(&h, _)| h);
                    if let Some(h) = old {
                        self.release(h);
                    }
                }
                Some(task)
            }
            Op::Enter(sel) => {
                let used: Vec<usize> = self
                    .holders
                    .values()
                    .filter(|(k, _)| k.is_active())
                    .map(|&(_, ns)| ns)
                    .collect();
                let ns = pick(&used, sel)?;
                Some(self.acquire(Kind::Task, ns))
            }
            Op::Open(sel) => {
                let mut live = self.newest_first();
                // Stable: inactive first, each part newest first.
                live.sort_by_key(|&i| self.nodes[i].active() > 0);
                let ns = pick(&live, sel)?;
                Some(self.acquire(Kind::Fd, ns))
            }
            Op::Hold(sel) => {
                let ns = pick(&self.newest_first(), sel)?;
                Some(self.acquire(Kind::Plain, ns))
            }
            Op::Release(sel) => {
                let mut ids: Vec<HolderId> = self.holders.keys().rev().copied().collect();
                ids.sort_by_key(|h| self.holders[h].0 == Kind::Plain);
                let h = pick(&ids, sel)?;
                self.release(h);
                None
            }
            Op::Exit(sel) => {
                let mut used: Vec<usize> = self
                    .holders
                    .values()
                    .filter(|(k, _)| k.is_active())
                    .map(|&(_, ns)| ns)
                    .collect();
                used.sort_unstable_by(|a, b| b.cmp(a));
                used.dedup();
                let ns = pick(&used, sel)?;
                let ids: Vec<HolderId> = self
                    .holders
                    .iter()
                    .filter(|(_, &(k, n))| n == ns && k.is_active())
                    .map(|(&h, _)| h)
                    .collect();
                for h in ids {
                    self.release(h);
                }
                None
            }
        }
    }

    /// The counts of every namespace.
    pub(crate) fn snapshot(&self) -> Snapshot {
        self.nodes
            .iter()
            .map(|n| (n.active(), n.plain(), n.is_freed()))
            .collect()
    }

    /// Checks the exact accounting of both counts, from the users and the
    /// owner links alone:
    ///
    /// - active = tasks + files + active namespaces it owns (its
    ///   non-initial children), 1 for initial namespaces;
    /// - plain = users of any kind + live namespaces it owns (+1, the
    ///   static reference, for initial namespaces);
    /// - hence no negative count and active <= plain;
    /// - an active namespace's owner is active;
    /// - a freed namespace has no count, no user, no live child.
    pub(crate) fn check_invariants(&self) -> Result<(), String> {
        let n = self.nodes.len();
        let mut active_users = vec![0i32; n];
        let mut users = vec![0i32; n];
        for &(kind, ns) in self.holders.values() {
            users[ns] += 1;
            if kind.is_active() {
                active_users[ns] += 1;
            }
        }
        let mut children = vec![0i32; n];
        let mut active_children = vec![0i32; n];
        for (i, node) in self.nodes.iter().enumerate() {
            if node.is_freed() {
                continue;
            }
            if let Some(o) = self.owner_of[i] {
                children[o] += 1;
                if node.active() > 0 && node.active_owner().is_some() {
                    active_children[o] += 1;
                }
            }
        }
        for (i, node) in self.nodes.iter().enumerate() {
            let (a, p, id) = (node.active(), node.plain(), node.id);
            if node.is_freed() {
                if (a, p, users[i], children[i]) != (0, 0, 0, 0) {
                    return Err(format!(
                        "freed ns {id}: active {a} plain {p} users {} children {}",
                        users[i], children[i]
                    ));
                }
                continue;
            }
            if a < 0 || p <= 0 {
                return Err(format!("ns {id}: active {a} plain {p}"));
            }
            let (want_a, want_p) = if node.is_initial() {
                (1, 1 + users[i] + children[i])
            } else {
                (active_users[i] + active_children[i], users[i] + children[i])
            };
            if a != want_a {
                return Err(format!(
                    "ns {id}: active {a}, want {want_a} ({} task/fd users + {} active children)",
                    active_users[i], active_children[i]
                ));
            }
            if p != want_p {
                return Err(format!(
                    "ns {id}: plain {p}, want {want_p} ({} users + {} children)",
                    users[i], children[i]
                ));
            }
            if a > p {
                return Err(format!("ns {id}: active {a} > plain {p}"));
            }
            if let Some(o) = node.active_owner() {
                if a > 0 && o.active() <= 0 {
                    return Err(format!("ns {id} active ({a}) but owner {} is not", o.id));
                }
            }
        }
        Ok(())
    }
}
