// SPDX-License-Identifier: GPL-2.0-only

//! Concurrency smoke tests: threads taking and dropping active references
//! on one shared owner chain at once, through the kernel's cascade code
//! and real atomics. Each thread only puts references it took (as every
//! kernel user does), so no count may go negative at any time (the model
//! panics in the thread if one does) and the final counts must be exactly
//! the starting ones.

use std::sync::{Arc, Barrier};
use std::thread;

use crate::cascade::{get_active, put_active};
use crate::req::ns_type;
use crate::system::{HolderId, Kind, ModelNs, Snapshot, System};

const THREADS: usize = 4;
const ROUNDS: usize = 200_000;

/// xorshift64: a cheap per-thread random stream.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// init_user_ns <- u1 <- u2 <- u3 <- u4, each user namespace owning a
/// net and an ipc namespace too. Every namespace is held by a plain
/// reference only, and the creating tasks are gone: all inactive, alive.
/// Returns the system and the arena indexes of the chain's namespaces.
fn dead_chain() -> (System, Vec<usize>) {
    let mut sys = System::new();
    let mut owner = System::INIT_USER;
    let mut nodes = Vec::new();
    let mut tasks: Vec<HolderId> = Vec::new();
    for _ in 0..4 {
        let (t, u) = sys.create(owner, ns_type::USER);
        tasks.push(t);
        nodes.push(u);
        for ty in [ns_type::NET, ns_type::IPC] {
            let (t, n) = sys.create(u, ty);
            tasks.push(t);
            nodes.push(n);
        }
        owner = u;
    }
    for &n in &nodes {
        sys.acquire(Kind::Plain, n);
    }
    for t in tasks {
        sys.release(t);
    }
    sys.check_invariants().unwrap();
    for &n in &nodes {
        assert_eq!(sys.node(n).active(), 0);
    }
    (sys, nodes)
}

/// Each thread, `ROUNDS` times: take an active reference (with its plain
/// one) on a random namespace of `targets` (initial ones included), or
/// drop a random one it holds; at the end it drops all it holds.
fn hammer(targets: &[Arc<ModelNs>]) {
    // All threads start together, so that they overlap.
    let go = Barrier::new(THREADS);
    let go = &go;
    thread::scope(|s| {
        for t in 0..THREADS {
            s.spawn(move || {
                go.wait();
                let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ ((t as u64 + 1) * 0x2545_f491));
                let mut held: Vec<&ModelNs> = Vec::new();
                for _ in 0..ROUNDS {
                    if held.is_empty() || rng.below(2) == 0 {
                        let n = &*targets[rng.below(targets.len())];
                        n.get_plain();
                        get_active(n);
                        // Our own reference keeps it active.
                        assert!(n.active() >= 1, "ns {} inactive while held", n.id);
                        held.push(n);
                    } else {
                        let n = held.swap_remove(rng.below(held.len()));
                        put_active(n);
                        assert!(!n.put_plain(), "a plain reference keeps ns {} alive", n.id);
                    }
                }
                for n in held {
                    put_active(n);
                    assert!(!n.put_plain());
                }
            });
        }
    });
}

fn targets(sys: &System, nodes: &[usize]) -> Vec<Arc<ModelNs>> {
    let mut v: Vec<Arc<ModelNs>> = nodes.iter().map(|&i| sys.node(i).clone()).collect();
    // The initial namespaces are shared too and must stay at 1.
    v.extend(sys.nodes()[..8].iter().cloned());
    v
}

#[test]
fn threads_resurrect_and_kill_a_dead_chain() {
    let (sys, nodes) = dead_chain();
    let start: Snapshot = sys.snapshot();
    hammer(&targets(&sys, &nodes));
    assert_eq!(sys.snapshot(), start);
    sys.check_invariants().unwrap();
}

#[test]
fn threads_on_a_live_chain_leave_it_as_it_was() {
    let (mut sys, nodes) = dead_chain();
    // One task in each leaf: the whole chain is active, cascades stop
    // early, but counts are shared by all threads.
    for &n in &nodes {
        if sys.node(n).ty != ns_type::USER {
            sys.acquire(Kind::Task, n);
        }
    }
    sys.check_invariants().unwrap();
    assert_eq!(sys.node(nodes[0]).active(), 3, "net, ipc and u2");
    let start = sys.snapshot();
    hammer(&targets(&sys, &nodes));
    assert_eq!(sys.snapshot(), start);
    sys.check_invariants().unwrap();
}

#[test]
fn threads_on_one_leaf() {
    // The hardest case for the counts: every thread resurrects and kills
    // the same deepest leaf, so the 0 <-> 1 transitions race all the way
    // up the chain.
    let (sys, nodes) = dead_chain();
    let leaf = sys.node(*nodes.last().unwrap()).clone();
    let start = sys.snapshot();
    hammer(&[leaf]);
    assert_eq!(sys.snapshot(), start);
    sys.check_invariants().unwrap();
}
