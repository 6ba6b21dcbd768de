// SPDX-License-Identifier: GPL-2.0-only

//! The cascade on fixed scenarios: the diagrams of `kernel/nscommon.c`,
//! nested gets and puts, and the checks that must fire.

use std::cell::Cell;

use crate::cascade::{get_active, put_active, ActiveNode};
use crate::req::ns_type;
use crate::system::{Kind, ModelNs, System};

/// The tree of the `__ns_ref_active_get()` comment:
/// user_ns2 (owned by init_user_ns) owns ipc_ns, uts_ns and user_ns1;
/// user_ns1 owns net_ns and pid_ns. Returns the system and the tasks.
struct Diagram {
    sys: System,
    user2: usize,
    user1: usize,
    net: usize,
    pid: usize,
    net_task: u64,
    pid_task: u64,
}

fn diagram() -> Diagram {
    let mut sys = System::new();
    let (t_user2, user2) = sys.create(System::INIT_USER, ns_type::USER);
    let (_, _ipc) = sys.create(user2, ns_type::IPC);
    let (_, _uts) = sys.create(user2, ns_type::UTS);
    let (t_user1, user1) = sys.create(user2, ns_type::USER);
    let (net_task, net) = sys.create(user1, ns_type::NET);
    let (pid_task, pid) = sys.create(user1, ns_type::PID);
    // The tasks that created the user namespaces moved on: only the
    // children keep those active.
    sys.release(t_user2);
    sys.release(t_user1);
    sys.check_invariants().unwrap();
    Diagram {
        sys,
        user2,
        user1,
        net,
        pid,
        net_task,
        pid_task,
    }
}

fn active(sys: &System, i: usize) -> i32 {
    sys.node(i).active()
}

#[test]
fn diagram_counts_after_creation() {
    let d = diagram();
    // "user_ns1 (2)", "user_ns2 (3)", "init_user_ns (1)".
    assert_eq!(active(&d.sys, d.user1), 2);
    assert_eq!(active(&d.sys, d.user2), 3);
    assert_eq!(active(&d.sys, System::INIT_USER), 1);
    assert_eq!(active(&d.sys, d.net), 1);
    assert_eq!(active(&d.sys, d.pid), 1);
}

#[test]
fn diagram_put_cascades_one_level() {
    let mut d = diagram();
    // net_ns and pid_ns put their last active reference: user_ns1 drops
    // to 0 and puts one of user_ns2's, which stays active.
    let plain_net = d.sys.acquire(Kind::Plain, d.net);
    let plain_pid = d.sys.acquire(Kind::Plain, d.pid);
    d.sys.release(d.net_task);
    assert_eq!(active(&d.sys, d.user1), 1);
    assert_eq!(active(&d.sys, d.user2), 3);
    d.sys.release(d.pid_task);
    assert_eq!(active(&d.sys, d.net), 0);
    assert_eq!(active(&d.sys, d.pid), 0);
    assert_eq!(active(&d.sys, d.user1), 0);
    assert_eq!(active(&d.sys, d.user2), 2);
    assert_eq!(active(&d.sys, System::INIT_USER), 1);
    d.sys.check_invariants().unwrap();

    // Resurrection (SIOCGSKNS on a socket of net_ns): net_ns 0 -> 1 takes
    // user_ns1 0 -> 1, which takes one of user_ns2's again.
    let fd = d.sys.acquire(Kind::Fd, d.net);
    assert_eq!(active(&d.sys, d.net), 1);
    assert_eq!(active(&d.sys, d.user1), 1);
    assert_eq!(active(&d.sys, d.user2), 3);
    assert_eq!(active(&d.sys, d.pid), 0);
    d.sys.check_invariants().unwrap();

    // Closing it undoes exactly that; dropping the plain references frees
    // the leaves and then user_ns1, whose plain reference on user_ns2 goes
    // too.
    d.sys.release(fd);
    assert_eq!(active(&d.sys, d.user2), 2);
    d.sys.release(plain_net);
    d.sys.release(plain_pid);
    assert!(d.sys.node(d.net).is_freed());
    assert!(d.sys.node(d.pid).is_freed());
    assert!(d.sys.node(d.user1).is_freed());
    assert!(!d.sys.node(d.user2).is_freed());
    assert_eq!(d.sys.node(d.user2).plain(), 2, "ipc_ns and uts_ns");
    d.sys.check_invariants().unwrap();
}

#[test]
fn get_on_active_namespace_does_not_cascade() {
    let mut d = diagram();
    let before = d.sys.snapshot();
    let t = d.sys.acquire(Kind::Task, d.net);
    assert_eq!(active(&d.sys, d.net), 2);
    assert_eq!(active(&d.sys, d.user1), 2, "owner untouched");
    d.sys.release(t);
    assert_eq!(d.sys.snapshot(), before);
}

#[test]
fn initial_namespaces_never_counted() {
    let mut sys = System::new();
    let before = sys.snapshot();
    // Every initial namespace: get and put go through the cascade, which
    // must return before touching the count (the model panics if not).
    for i in 0..sys.nodes().len() {
        let n = sys.node(i).clone();
        assert!(n.is_initial());
        get_active(&*n);
        get_active(&*n);
        put_active(&*n);
        assert_eq!(n.active(), 1);
        put_active(&*n);
        put_active(&*n);
        assert_eq!(n.active(), 1);
    }
    // A child of init_user_ns dies and is resurrected: init_user_ns is
    // not its active owner.
    let (t, ns) = sys.create(System::INIT_USER, ns_type::NET);
    assert!(sys.node(ns).active_owner().is_none());
    let plain = sys.acquire(Kind::Plain, ns);
    sys.release(t);
    assert_eq!(sys.node(ns).active(), 0);
    let fd = sys.acquire(Kind::Fd, ns);
    assert_eq!(sys.node(ns).active(), 1);
    assert_eq!(sys.node(System::INIT_USER).active(), 1);
    sys.release(fd);
    sys.release(plain);
    let mut after = sys.snapshot();
    assert_eq!(after.pop(), Some((0, 0, true)));
    assert_eq!(after, before);
}

#[test]
fn nested_gets_and_puts() {
    let user = ModelNs::new(3, ns_type::USER, None);
    let owner = ModelNs::new(20, ns_type::USER, Some(user.clone()));
    let leaf = ModelNs::new(21, ns_type::UTS, Some(owner.clone()));
    get_active(&*leaf);
    assert_eq!(leaf.active(), 1);
    assert_eq!(owner.active(), 1, "resurrected with the leaf");
    get_active(&*leaf);
    assert_eq!((leaf.active(), owner.active()), (2, 1));
    put_active(&*leaf);
    assert_eq!((leaf.active(), owner.active()), (1, 1));
    put_active(&*leaf);
    assert_eq!((leaf.active(), owner.active()), (0, 0));
    assert_eq!(user.active(), 1, "init_user_ns never counted");
}

#[test]
#[should_panic(expected = "VFS_WARN_ON_ONCE")]
fn put_below_zero_is_caught() {
    let user = ModelNs::new(3, ns_type::USER, None);
    let owner = ModelNs::new(20, ns_type::USER, Some(user));
    let leaf = ModelNs::new(21, ns_type::NET, Some(owner.clone()));
    get_active(&*leaf);
    put_active(&*leaf);
    assert_eq!((leaf.active(), owner.active()), (0, 0));
    // An unbalanced put takes the leaf to -1: check() fires.
    put_active(&*leaf);
}

/// A namespace whose owner is not filtered: lets the cascade reach an
/// initial namespace, which it must refuse.
struct Raw<'a> {
    initial: bool,
    /// [`ActiveNode::maybe_initial`] holds although it is not initial
    /// (the kernel's id 0).
    quick: bool,
    owner: Option<&'a Raw<'a>>,
    active: Cell<i32>,
    /// The counted reference count.
    counted: i32,
    warned: Cell<bool>,
}

impl ActiveNode for Raw<'_> {
    fn is_initial(&self) -> bool {
        self.initial
    }
    fn maybe_initial(&self) -> bool {
        self.initial || self.quick
    }
    fn active_owner(&self) -> Option<&Self> {
        self.owner
    }
    fn active_dec_and_test(&self) -> bool {
        self.active.set(self.active.get() - 1);
        self.active.get() == 0
    }
    fn active_fetch_inc(&self) -> i32 {
        let prev = self.active.get();
        self.active.set(prev + 1);
        prev
    }
    fn active_read(&self) -> i32 {
        self.active.get()
    }
    fn counted_read(&self) -> i32 {
        self.counted
    }
    fn check(&self, ok: bool) {
        if !ok {
            self.warned.set(true);
        }
    }
}

fn raw<'a>(initial: bool, owner: Option<&'a Raw<'a>>, active: i32) -> Raw<'a> {
    Raw {
        initial,
        quick: false,
        owner,
        active: Cell::new(active),
        counted: 1,
        warned: Cell::new(false),
    }
}

#[test]
fn cascade_warns_on_initial_owner() {
    let init = raw(true, None, 1);
    let ns = raw(false, Some(&init), 0);
    get_active(&ns);
    assert!(init.warned.get(), "an initial owner must trip check()");
    assert!(!ns.warned.get());
}

#[test]
fn quick_initial_test_alone_does_not_skip_the_count() {
    // The kernel's quick test (C's `id <= NS_LAST_INIT_ID`) also holds
    // for id 0, which is not initial: the cascade counts such a namespace
    // (its out-of-line path) and its owners, all the way up, both ways.
    let top = raw(false, None, 0);
    let owner = raw(false, Some(&top), 0);
    let ns = Raw {
        quick: true,
        ..raw(false, Some(&owner), 0)
    };
    let counts = |ns: &Raw<'_>| (ns.active.get(), owner.active.get(), top.active.get());
    get_active(&ns);
    assert_eq!(counts(&ns), (1, 1, 1));
    get_active(&ns);
    assert_eq!(counts(&ns), (2, 1, 1));
    put_active(&ns);
    put_active(&ns);
    assert_eq!(counts(&ns), (0, 0, 0));
    // An initial one passes both tests and is never counted.
    let init = Raw {
        quick: true,
        ..raw(true, None, 1)
    };
    get_active(&init);
    put_active(&init);
    assert_eq!(init.active.get(), 1);
}

#[test]
fn cascade_warns_on_a_last_put_without_a_counted_reference() {
    // Only the first namespace's: its owners' counted references are held by their children.
    let owner = Raw {
        counted: 0,
        ..raw(false, None, 1)
    };
    let ns = raw(false, Some(&owner), 2);
    put_active(&ns);
    put_active(&ns);
    assert!(!owner.warned.get() && !ns.warned.get());
    assert_eq!((ns.active.get(), owner.active.get()), (0, 0));
    let ns = Raw {
        counted: 0,
        ..raw(false, None, 1)
    };
    put_active(&ns);
    assert!(ns.warned.get(), "the last put needs a counted reference");
}

#[test]
fn cascade_warns_on_negative_get() {
    let ns = raw(false, None, -1);
    get_active(&ns);
    assert!(ns.warned.get(), "a get from -1 must trip check()");
    assert_eq!(ns.active.get(), 0);
}

#[test]
fn cascade_walks_a_long_chain_both_ways() {
    // Cascades are loops, not recursion: a deep chain of inactive user
    // namespaces is resurrected and killed in one call each. (The nodes
    // are leaked: they borrow each other.)
    let top = Box::leak(Box::new(raw(false, None, 0)));
    let mut owner: &Raw<'_> = top;
    for _ in 0..10_000 {
        let n: &Raw<'_> = Box::leak(Box::new(raw(false, Some(owner), 0)));
        owner = n;
    }
    let leaf = owner;
    get_active(leaf);
    let mut n = Some(leaf);
    let mut depth = 0;
    while let Some(x) = n {
        assert_eq!(x.active.get(), 1);
        n = x.owner;
        depth += 1;
    }
    assert_eq!(depth, 10_001);
    put_active(leaf);
    assert_eq!(top.active.get(), 0);
    assert_eq!(leaf.active.get(), 0);
    assert!(!leaf.warned.get() && !top.warned.get());
}

#[test]
fn cascade_on_the_host_namespaces() {
    // The host `ns` model's namespaces: `ns_owner()` hides init_user_ns, and the checks hold.
    use crate::ns::{State, System};
    let sys = System::new();
    sys.add(3, ns_type::USER, None, State::Active);
    sys.add(20, ns_type::USER, Some(3), State::Inactive);
    sys.add(21, ns_type::NET, Some(20), State::Inactive);
    let counts = || [21, 20, 3].map(|id| sys.get(id).active_read());
    get_active(sys.get(21));
    assert_eq!(counts(), [1, 1, 1]);
    get_active(sys.get(21));
    put_active(sys.get(21));
    assert_eq!(counts(), [1, 1, 1]);
    put_active(sys.get(21));
    assert_eq!(counts(), [0, 0, 1]);
    get_active(sys.get(3));
    put_active(sys.get(3));
    assert_eq!(counts(), [0, 0, 1], "init_user_ns is never counted");
    sys.check_quiescent().unwrap();
}
