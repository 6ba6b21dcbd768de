// SPDX-License-Identifier: GPL-2.0-only

//! The kernel's active-reference cascade (`rust/cascade.rs`: `cascade()`,
//! [`get_active`], [`put_active`]), model-checked with loom: every
//! interleaving of a few threads that put the last active reference of a
//! leaf namespace or resurrect an inactive one (`SIOCGSKNS`, opening an
//! nsfs inode) on an owner chain `init_user_ns <- u1 <- u2 <- u3`.
//!
//! The namespaces implement [`ActiveNode`] over a loom `AtomicI32` with
//! the kernel's orderings: `atomic_dec_and_test()` and
//! `atomic_fetch_add()` are fully ordered (`SeqCst`), `atomic_read()` is
//! relaxed. Checked:
//!
//! - at every step, no active count goes below zero (the decrement and the
//!   increment look at the value they replaced), the cascade never touches
//!   `init_user_ns`, and its own `VFS_WARN_ON_ONCE()`s hold;
//! - once all threads are done, each namespace's active count is exactly
//!   its holders plus its active children (the owner-link accounting of
//!   `kernel/nscommon.c`), so each owner is active iff something below it
//!   is.
//!
//! A module of the library's tests (`host-test.sh --loom`). Every
//! scenario but one is explored
//! exhaustively: no preemption bound, no permutation or time limit,
//! whatever the `LOOM_*` environment says. The one with three threads on
//! the same leaf grows about fivefold with each preemption allowed (13,580
//! interleavings with at most 3, 93,529 with 4, 487,986 with 5); it
//! explores those with at most 4 preemptions (`LOOM_MAX_PREEMPTIONS`
//! raises that). Each scenario reports how many interleavings it explored
//! on stderr and, if `NSTREE_LOOM_STATS` names a file, as a line
//! `scenario<TAB>interleavings<TAB>seconds<TAB>bound` there (bound `-` for
//! none).
//!
//! Quick and long scenarios: the six that take under a second each run by
//! default; the two long ones (tens of seconds, over 90,000 interleavings
//! each) are `#[ignore]`d, and run with `--include-ignored`
//! (`scripts/host-test.sh --loom` or `--all`).
//!
//! A cap on every scenario: each one knows how many interleavings the
//! correct cascade needs, and fails at once, saying so, when it explores
//! more than [`CAP_FACTOR`] times that. A cascade that does more atomic
//! steps than it should (one that walks
//! the owner chain to the top every time) makes the interleavings grow
//! exponentially: without the cap, `same_leaf_two_threads` runs for more
//! than ten minutes; with it, it fails in seconds. `NSTREE_LOOM_NO_CAP=1`
//! lifts the cap.
//!

use std::fs::OpenOptions;
use std::io::Write;
use std::sync::atomic::{AtomicBool as StdAtomicBool, AtomicUsize as StdAtomicUsize};
use std::time::Instant;

use loom::sync::atomic::AtomicI32;
use loom::sync::atomic::Ordering::{Relaxed, SeqCst};
use loom::sync::Arc;
use loom::thread;

use crate::cascade::{get_active, put_active, ActiveNode};

/// A namespace: a name, its owner and the active count.
struct Node {
    name: &'static str,
    /// `init_user_ns`: always active, never counted.
    initial: bool,
    /// The owning user namespace (`None` only for `init_user_ns`).
    owner: Option<Arc<Node>>,
    active: AtomicI32,
    /// The loom iteration this node belongs to, for failure messages.
    iter: usize,
}

impl Node {
    /// The active count, fully ordered (for the checks, not the cascade).
    fn load(&self) -> i32 {
        self.active.load(SeqCst)
    }

    /// Panics unless the cascade may change this namespace's count.
    fn assert_counted(&self) {
        assert!(
            !self.initial,
            "cascade changed the active count of {} [iteration {}]",
            self.name, self.iter
        );
    }
}

impl ActiveNode for Node {
    fn is_initial(&self) -> bool {
        self.initial
    }

    fn active_owner(&self) -> Option<&Self> {
        // ns_owner(): init_user_ns is always active and skipped.
        self.owner.as_deref().filter(|o| !o.initial)
    }

    fn active_dec_and_test(&self) -> bool {
        self.assert_counted();
        let prev = self.active.fetch_sub(1, SeqCst);
        assert!(
            prev > 0,
            "active count of {} went negative ({prev} - 1) [iteration {}]",
            self.name,
            self.iter
        );
        prev == 1
    }

    fn active_fetch_inc(&self) -> i32 {
        self.assert_counted();
        let prev = self.active.fetch_add(1, SeqCst);
        assert!(
            prev >= 0,
            "active count of {} was negative ({prev}) on increment [iteration {}]",
            self.name,
            self.iter
        );
        prev
    }

    fn active_read(&self) -> i32 {
        self.active.load(Relaxed)
    }

    fn counted_read(&self) -> i32 {
        // Every put is by a holder, whose counted reference outlives it.
        1
    }

    fn check(&self, ok: bool) {
        assert!(
            ok,
            "VFS_WARN_ON_ONCE() in the cascade at {} [iteration {}]",
            self.name, self.iter
        );
    }
}

/// The owner chain: `init_user_ns <- u1 <- u2 <- u3`, u3 owning the leaves
/// `a` (net) and `b` (ipc), u2 owning the leaf `c` (uts). Owners come
/// before what they own.
const NAMES: [&str; 7] = ["init_user_ns", "u1", "u2", "u3", "a", "b", "c"];
const OWNER: [Option<usize>; 7] = [None, Some(0), Some(1), Some(2), Some(3), Some(3), Some(2)];
const U1: usize = 1;
const U2: usize = 2;
const U3: usize = 3;
const A: usize = 4;
const B: usize = 5;
const C: usize = 6;

/// What a thread does, in order.
#[derive(Clone, Copy, Debug)]
enum Op {
    /// Takes an active reference (with a plain one already held): on an
    /// inactive namespace, a resurrection.
    Get(usize),
    /// Drops an active reference the thread holds: one it took before, or
    /// else one of the scenario's starting holders.
    Put(usize),
}

/// A scenario: the holders of each namespace at the start (besides its
/// active children), and each thread's operations.
struct Scenario {
    name: &'static str,
    holders: [i32; 7],
    threads: &'static [&'static [Op]],
    /// Whether every interleaving is explored; if not, those with at most
    /// [`bound()`] preemptions.
    exhaustive: bool,
    /// How many interleavings the correct cascade needs (with the default
    /// bound): the cap is [`CAP_FACTOR`] times this.
    expected: usize,
}

/// How far past its expected interleavings a scenario may go before it
/// fails (see the module documentation).
const CAP_FACTOR: usize = 4;

/// The active counts implied by `holders`: own holders plus one for each
/// active non-initial child (children come after their owners); the
/// initial namespace is at 1.
fn counts(holders: &[i32; 7]) -> [i32; 7] {
    let mut a = *holders;
    a[0] = 1;
    for i in (1..NAMES.len()).rev() {
        if let Some(o) = OWNER[i] {
            if a[i] > 0 && o != 0 {
                a[o] += 1;
            }
        }
    }
    a
}

impl Scenario {
    /// The holders once every thread is done; panics if a thread drops a
    /// reference nobody gave it.
    fn final_holders(&self) -> [i32; 7] {
        let mut h = self.holders;
        let mut spare = self.holders;
        for ops in self.threads {
            let mut mine = [0i32; 7];
            for op in *ops {
                match *op {
                    Op::Get(i) => {
                        mine[i] += 1;
                        h[i] += 1;
                    }
                    Op::Put(i) => {
                        if mine[i] > 0 {
                            mine[i] -= 1;
                        } else {
                            spare[i] -= 1;
                            assert!(spare[i] >= 0, "{}: put of {} not held", self.name, NAMES[i]);
                        }
                        h[i] -= 1;
                    }
                }
            }
        }
        h
    }
}

/// One iteration's namespaces.
fn build(holders: &[i32; 7], iter: usize) -> Vec<Arc<Node>> {
    let start = counts(holders);
    let mut nodes: Vec<Arc<Node>> = Vec::new();
    for i in 0..NAMES.len() {
        nodes.push(Arc::new(Node {
            name: NAMES[i],
            initial: i == 0,
            owner: OWNER[i].map(|o| nodes[o].clone()),
            active: AtomicI32::new(start[i]),
            iter,
        }));
    }
    nodes
}

/// At quiescence: no count is negative, and each namespace's count is
/// exactly its holders plus its active (non-initial) children, which,
/// from the leaves up, makes every count the one `holders` implies.
fn check_quiescent(nodes: &[Arc<Node>], holders: &[i32; 7], iter: usize) {
    let got: Vec<i32> = nodes.iter().map(|n| n.load()).collect();
    for (i, &a) in got.iter().enumerate() {
        assert!(
            a >= 0,
            "{}: active count {a} at quiescence; all counts {got:?} [iteration {iter}]",
            NAMES[i]
        );
    }
    for i in 1..NAMES.len() {
        let children = (0..NAMES.len())
            .filter(|&j| OWNER[j] == Some(i) && got[j] > 0)
            .count() as i32;
        assert_eq!(
            got[i],
            holders[i] + children,
            "{}: active count {} at quiescence, want {} holders + {children} active \
             children; all counts {got:?} [iteration {iter}]",
            NAMES[i],
            got[i],
            holders[i]
        );
    }
    assert_eq!(got, counts(holders), "[iteration {iter}]");
}

/// Explores every interleaving of `sc` (plus `extra`, run by each thread
/// after its operations, with the thread index); returns the number of
/// interleavings.
fn explore_with(
    sc: &'static Scenario,
    extra: impl Fn(usize, &[Arc<Node>]) + Send + Sync + 'static,
) -> usize {
    let end = sc.final_holders();
    let iters = std::sync::Arc::new(StdAtomicUsize::new(0));
    let counter = iters.clone();
    let extra = std::sync::Arc::new(extra);

    let mut builder = loom::model::Builder::new();
    // No limit on the permutations or the time, whatever
    // LOOM_MAX_PERMUTATIONS or LOOM_MAX_DURATION say (loom would stop
    // early, silently); a preemption bound only where the scenario asks.
    let bound = if sc.exhaustive { None } else { bound() };
    builder.preemption_bound = bound;
    builder.max_permutations = None;
    builder.max_duration = None;
    // A larger preemption bound explores more: no cap then.
    let cap = (std::env::var_os("NSTREE_LOOM_NO_CAP").is_none()
        && (sc.exhaustive || bound == Some(4)))
    .then_some(sc.expected * CAP_FACTOR);
    let t0 = Instant::now();
    builder.check(move || {
        let iter = counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        if let Some(cap) = cap {
            assert!(
                iter <= cap,
                "{}: more than {cap} interleavings ({CAP_FACTOR} x the {} that the \
                 cascade in rust/cascade.rs needs): it does more atomic steps than it \
                 should (did you edit cascade()?); \
                 NSTREE_LOOM_NO_CAP=1 explores them all, which may take hours",
                sc.name,
                sc.expected
            );
        }
        let nodes = Arc::new(build(&sc.holders, iter));
        let handles: Vec<_> = sc
            .threads
            .iter()
            .enumerate()
            .map(|(t, ops)| {
                let nodes = nodes.clone();
                let extra = extra.clone();
                thread::spawn(move || {
                    for op in *ops {
                        match *op {
                            Op::Get(i) => {
                                get_active(&*nodes[i]);
                                // Its own reference keeps it active.
                                assert!(
                                    nodes[i].load() > 0,
                                    "{} inactive while held [iteration {iter}]",
                                    NAMES[i]
                                );
                            }
                            Op::Put(i) => put_active(&*nodes[i]),
                        }
                    }
                    extra(t, &nodes);
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        check_quiescent(&nodes, &end, iter);
    });
    let n = iters.load(std::sync::atomic::Ordering::Relaxed);
    let secs = t0.elapsed().as_secs_f64();
    let b = bound.map_or("-".to_string(), |b| b.to_string());
    eprintln!(
        "loom: {}: {n} interleavings in {secs:.2}s (preemption bound: {b})",
        sc.name
    );
    if let Ok(path) = std::env::var("NSTREE_LOOM_STATS") {
        if let Ok(mut f) = OpenOptions::new().create(true).append(true).open(path) {
            let _ = writeln!(f, "{}\t{n}\t{secs:.2}\t{b}", sc.name);
        }
    }
    n
}

fn explore(sc: &'static Scenario) -> usize {
    let n = explore_with(sc, |_, _| {});
    // More than one interleaving, or the threads did not overlap at all.
    assert!(n > 1, "{}: only {n} interleaving explored", sc.name);
    n
}

use Op::{Get, Put};

/// The preemption bound of the scenarios too large to explore fully:
/// `LOOM_MAX_PREEMPTIONS` if set, else 4.
fn bound() -> Option<usize> {
    let env = std::env::var("LOOM_MAX_PREEMPTIONS").ok();
    Some(env.map_or(4, |v| v.parse().expect("LOOM_MAX_PREEMPTIONS")))
}

/// Two threads resurrect and kill the same dead leaf.
#[test]
fn same_leaf_two_threads() {
    static SC: Scenario = Scenario {
        name: "same_leaf_two_threads",
        holders: [0; 7],
        threads: &[&[Get(A), Put(A)], &[Get(A), Put(A)]],
        exhaustive: true,
        expected: 2_691,
    };
    explore(&SC);
}

/// Two threads drop the last active reference of sibling leaves: u3 goes
/// from 2 to 0 through both, and exactly one of them carries the cascade
/// on to u2 and u1.
#[test]
fn last_puts_on_sibling_leaves() {
    static SC: Scenario = Scenario {
        name: "last_puts_on_sibling_leaves",
        holders: [0, 0, 0, 0, 1, 1, 0],
        threads: &[&[Put(A)], &[Put(B)]],
        exhaustive: true,
        expected: 90,
    };
    explore(&SC);
}

/// The last active reference of `a` is dropped while another thread
/// resurrects it: whichever comes first, the chain ends active, each
/// owner counting one.
#[test]
fn last_put_races_resurrection() {
    static SC: Scenario = Scenario {
        name: "last_put_races_resurrection",
        holders: [0, 0, 0, 0, 1, 0, 0],
        threads: &[&[Put(A)], &[Get(A)]],
        exhaustive: true,
        expected: 288,
    };
    explore(&SC);
}

/// A last put races a resurrection that is dropped again at once (an
/// nsfs file opened and closed): the chain ends dead, and no owner's
/// count goes below zero on the way, however the two cascades interleave.
#[test]
fn last_put_races_resurrect_and_put() {
    static SC: Scenario = Scenario {
        name: "last_put_races_resurrect_and_put",
        holders: [0, 0, 0, 0, 1, 0, 0],
        threads: &[&[Put(A)], &[Get(A), Put(A)]],
        exhaustive: true,
        expected: 963,
    };
    explore(&SC);
}

/// Three threads at three depths: the last put of `a` (u3's only active
/// child), the resurrection of the inactive sibling `b` (which keeps u3
/// up, or brings it back), and the last put of `c` (u2's other child).
#[test]
#[ignore = "long: host-test.sh --loom runs it"]
fn put_resurrect_put_across_the_chain() {
    static SC: Scenario = Scenario {
        name: "put_resurrect_put_across_the_chain",
        holders: [0, 0, 0, 0, 1, 0, 1],
        threads: &[&[Put(A)], &[Get(B)], &[Put(C)]],
        exhaustive: true,
        expected: 181_633,
    };
    explore(&SC);
}

/// A dead chain resurrected from three leaves at once: each owner must
/// count each of its active children exactly once (u3: a and b; u2: u3
/// and c; u1: u2).
#[test]
fn dead_chain_resurrected_from_three_leaves() {
    static SC: Scenario = Scenario {
        name: "dead_chain_resurrected_from_three_leaves",
        holders: [0; 7],
        threads: &[&[Get(A)], &[Get(B)], &[Get(C)]],
        exhaustive: true,
        expected: 3_654,
    };
    explore(&SC);
}

/// Two threads resurrect and kill the same dead leaf while a third
/// drops the last reference of `c`: the 0 <-> 1 transitions of `a`, u3,
/// u2 and u1 race all the way up.
#[test]
#[ignore = "long: host-test.sh --loom runs it"]
fn same_leaf_resurrected_and_killed_twice() {
    static SC: Scenario = Scenario {
        name: "same_leaf_resurrected_and_killed_twice",
        holders: [0, 0, 0, 0, 0, 0, 1],
        threads: &[&[Get(A), Put(A)], &[Get(A), Put(A)], &[Put(C)]],
        exhaustive: false,
        expected: 93_529,
    };
    explore(&SC);
}

/// Not an invariant mid-flight: a get that finds a leaf already active
/// (1 -> 2) returns at once, while the thread that resurrected it may not
/// have reached its owner yet, so for a moment an active namespace has an
/// inactive owner (`kernel/nscommon.c` is ordered the same way). Loom must
/// find that interleaving; the counts still settle exactly.
#[test]
fn owner_may_lag_behind_a_get_that_found_the_leaf_active() {
    static SC: Scenario = Scenario {
        name: "owner_may_lag_behind_a_get_that_found_the_leaf_active",
        holders: [0; 7],
        threads: &[&[Get(A)], &[Get(A)]],
        exhaustive: true,
        expected: 351,
    };
    static SEEN: StdAtomicBool = StdAtomicBool::new(false);
    let n = explore_with(&SC, |_, nodes| {
        if nodes[A].load() > 0 && nodes[U3].load() == 0 {
            SEEN.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    });
    assert!(n > 1);
    assert!(
        SEEN.load(std::sync::atomic::Ordering::Relaxed),
        "loom never ran a get past a pending resurrection of u3"
    );
}

/// The chain's constants are what the scenarios assume.
#[test]
fn chain_shape() {
    assert_eq!(OWNER[U1], Some(0));
    assert_eq!(OWNER[U2], Some(U1));
    assert_eq!(OWNER[U3], Some(U2));
    assert_eq!(
        (OWNER[A], OWNER[B], OWNER[C]),
        (Some(U3), Some(U3), Some(U2))
    );
    assert_eq!(counts(&[0, 0, 0, 0, 1, 1, 1]), [1, 1, 2, 2, 1, 1, 1]);
}
