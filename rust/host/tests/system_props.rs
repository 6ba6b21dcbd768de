// SPDX-License-Identifier: GPL-2.0-only

//! Property tests of the active reference count over random histories of
//! the model system: namespaces created by tasks, tasks entering and
//! leaving, files opened (resurrecting) and closed, plain references.

use super::common;

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRng, TestRunner};

use crate::cascade::ActiveNode;
use crate::system::{HolderId, Kind, Op, System};

/// The index of `USER` in `system::TYPES`.
const USER_TYPE: usize = 5;

/// A selector: small ones pick the first candidates (see [`Op`]).
fn sel() -> impl Strategy<Value = usize> {
    prop_oneof![0..3usize, any::<usize>()]
}

/// One random operation. User namespaces, and the newest ones as owners,
/// are favoured so that owner chains get deep; releases are frequent so
/// that namespaces die and get resurrected.
fn op() -> impl Strategy<Value = Op> {
    let ty = prop_oneof![2 => Just(USER_TYPE), 3 => 0..8usize];
    prop_oneof![
        5 => (sel(), ty, any::<bool>()).prop_map(|(owner, ty, moves)| Op::Create { owner, ty, moves }),
        1 => sel().prop_map(Op::Enter),
        2 => sel().prop_map(Op::Open),
        6 => sel().prop_map(Op::Hold),
        3 => sel().prop_map(Op::Release),
        3 => sel().prop_map(Op::Exit),
    ]
}

/// Only operations that add a user (each one's inverse is a release):
/// generated directly, not filtered, so nothing is ever rejected.
fn acquire_op() -> impl Strategy<Value = Op> {
    let ty = prop_oneof![2 => Just(USER_TYPE), 3 => 0..8usize];
    prop_oneof![
        5 => (sel(), ty).prop_map(|(owner, ty)| Op::Create { owner, ty, moves: false }),
        1 => sel().prop_map(Op::Enter),
        2 => sel().prop_map(Op::Open),
        6 => sel().prop_map(Op::Hold),
    ]
}

fn ops(max: usize) -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(op(), 0..max)
}

/// Runs `ops` on a fresh system, checking the invariants after each.
fn run(ops: &[Op]) -> Result<System, TestCaseError> {
    let mut sys = System::new();
    sys.check_invariants().map_err(TestCaseError::fail)?;
    for (i, op) in ops.iter().enumerate() {
        sys.apply(op);
        sys.check_invariants()
            .map_err(|e| TestCaseError::fail(format!("after op {i} {op:?}: {e}")))?;
    }
    Ok(sys)
}

/// The number of namespaces a get on `ns` would take from 0 to 1: the
/// inactive prefix of its owner chain (0 if it is active).
fn resurrection_depth(sys: &System, ns: usize) -> usize {
    let mut depth = 0;
    let mut cur = Some(&**sys.node(ns));
    while let Some(n) = cur {
        if n.is_initial() || n.active() > 0 {
            break;
        }
        depth += 1;
        cur = n.active_owner();
    }
    depth
}

proptest! {
    #![proptest_config(common::config())]

    /// After every operation: active = tasks + files + active children,
    /// plain = users + live children, active <= plain, no negative count,
    /// owners of active namespaces active, initial namespaces at 1.
    #[test]
    fn prop_exact_accounting_after_every_op(ops in ops(120)) {
        run(&ops)?;
    }

    /// Any state, then any acquisitions, then their inverses in reverse
    /// order: every count is back, and what was created meanwhile is freed.
    #[test]
    fn prop_acquire_then_inverse_restores_state(
        before in ops(80),
        acquire in prop::collection::vec(acquire_op(), 0..40),
    ) {
        let mut sys = run(&before)?;
        let snap = sys.snapshot();
        let holders = sys.holders().clone();
        let mut added: Vec<HolderId> = Vec::new();
        for op in &acquire {
            prop_assert!(op.acquires());
            added.extend(sys.apply(op));
            sys.check_invariants().map_err(TestCaseError::fail)?;
        }
        for h in added.into_iter().rev() {
            sys.release(h);
            sys.check_invariants().map_err(TestCaseError::fail)?;
        }
        let after = sys.snapshot();
        prop_assert_eq!(&after[..snap.len()], &snap[..]);
        for (i, s) in after.iter().enumerate().skip(snap.len()) {
            prop_assert_eq!(*s, (0, 0, true), "namespace {} created meanwhile", i);
        }
        prop_assert_eq!(sys.holders(), &holders);
    }

    /// The same in any release order: the counts commute.
    #[test]
    fn prop_release_order_does_not_matter(
        before in ops(80),
        acquire in prop::collection::vec(acquire_op(), 1..40),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 40),
    ) {
        let mut sys = run(&before)?;
        let snap = sys.snapshot();
        let mut added: Vec<HolderId> = Vec::new();
        for op in &acquire {
            added.extend(sys.apply(op));
        }
        // Release in the order the random picks give.
        for pick in &picks {
            if added.is_empty() {
                break;
            }
            let h = added.swap_remove(pick.index(added.len()));
            sys.release(h);
            sys.check_invariants().map_err(TestCaseError::fail)?;
        }
        prop_assert!(added.is_empty());
        prop_assert_eq!(&sys.snapshot()[..snap.len()], &snap[..]);
    }

    /// Opening a file on a namespace and closing it again is the identity,
    /// whether it resurrects a chain or not.
    #[test]
    fn prop_resurrect_then_put_is_identity(
        before in ops(120),
        target in any::<prop::sample::Index>(),
        inactive in prop::bool::weighted(0.75),
    ) {
        let mut sys = run(&before)?;
        // Mostly an inactive namespace, if there is one.
        let mut live = sys.live();
        let dead: Vec<usize> = live.iter().copied().filter(|&i| sys.node(i).active() == 0).collect();
        if inactive && !dead.is_empty() {
            live = dead;
        }
        let ns = *target.get(&live);
        let snap = sys.snapshot();
        let depth = resurrection_depth(&sys, ns);
        let fd = sys.acquire(Kind::Fd, ns);
        sys.check_invariants().map_err(TestCaseError::fail)?;
        // Exactly the inactive prefix of the chain came back.
        let mut cur = Some(ns);
        for _ in 0..depth {
            let i = cur.unwrap();
            prop_assert_eq!(sys.node(i).active(), 1);
            prop_assert_eq!(snap[i].0, 0);
            cur = sys.owner_of(i);
        }
        sys.release(fd);
        prop_assert_eq!(sys.snapshot(), snap);
    }

    /// Releasing every user frees every namespace that is not initial and
    /// brings the initial ones back to their boot counts.
    #[test]
    fn prop_releasing_everything_frees_everything(ops in ops(120)) {
        let mut sys = run(&ops)?;
        let ids: Vec<HolderId> = sys.holders().keys().copied().collect();
        for h in ids {
            sys.release(h);
            sys.check_invariants().map_err(TestCaseError::fail)?;
        }
        let boot = System::new().snapshot();
        let snap = sys.snapshot();
        prop_assert_eq!(&snap[..boot.len()], &boot[..]);
        for s in &snap[boot.len()..] {
            prop_assert_eq!(*s, (0, 0, true));
        }
    }
}

proptest! {
    #![proptest_config(common::config())]

    /// A chain of `depth` user namespaces and a leaf, built by one task
    /// moving down, with plain references here and there; the task exits, so the
    /// whole chain dies. Then files are opened and closed on random members
    /// of the chain: each open of an inactive namespace resurrects exactly
    /// the inactive part of the chain above it, each last close kills it
    /// again, and the accounting holds after every step.
    #[test]
    fn prop_deep_chain_dies_and_resurrects(
        depth in 1..24usize,
        leaf_ty in 0..8usize,
        holds in prop::collection::vec(any::<prop::sample::Index>(), 0..4),
        steps in prop::collection::vec((any::<prop::sample::Index>(), any::<bool>()), 0..60),
    ) {
        let mut sys = System::new();
        let mut chain = Vec::new();
        for _ in 0..depth {
            sys.apply(&Op::Create { owner: 0, ty: USER_TYPE, moves: true });
            chain.push(sys.nodes().len() - 1);
        }
        sys.apply(&Op::Create { owner: 0, ty: leaf_ty, moves: false });
        chain.push(sys.nodes().len() - 1);
        // A plain reference keeps the leaf, and through it the chain, alive.
        sys.acquire(Kind::Plain, *chain.last().unwrap());
        for p in &holds {
            sys.acquire(Kind::Plain, *p.get(&chain));
        }
        // Only the creating task is left, in the deepest user namespace
        // and the leaf. It exits.
        let tasks: Vec<HolderId> = sys
            .holders()
            .iter()
            .filter(|(_, (k, _))| *k == Kind::Task)
            .map(|(&h, _)| h)
            .collect();
        prop_assert_eq!(tasks.len(), 2);
        for h in tasks {
            sys.release(h);
        }
        sys.check_invariants().map_err(TestCaseError::fail)?;
        for &i in &chain {
            prop_assert_eq!(sys.node(i).active(), 0);
            prop_assert!(!sys.node(i).is_freed());
        }
        let dead = sys.snapshot();

        let mut fds: Vec<HolderId> = Vec::new();
        for (pick, open) in &steps {
            if *open || fds.is_empty() {
                let ns = *pick.get(&chain);
                let before = sys.snapshot();
                fds.push(sys.acquire(Kind::Fd, ns));
                // Woken: from ns up to the first active owner.
                let pos = chain.iter().position(|&i| i == ns).unwrap();
                for k in (0..=pos).rev() {
                    let was = before[chain[k]].0;
                    prop_assert_eq!(sys.node(chain[k]).active(), was + 1);
                    if was > 0 {
                        break;
                    }
                }
            } else {
                let h = fds.swap_remove(pick.index(fds.len()));
                sys.release(h);
            }
            sys.check_invariants().map_err(TestCaseError::fail)?;
        }
        for h in fds {
            sys.release(h);
        }
        prop_assert_eq!(sys.snapshot(), dead);
    }
}

/// The generator is worth something only if it reaches deep cascades:
/// with a fixed seed, count single operations that resurrect, or kill, at
/// least three namespaces at once.
#[test]
fn generator_reaches_deep_cascades() {
    let config = Config::default();
    let mut runner = TestRunner::new_with_rng(
        config.clone(),
        TestRng::deterministic_rng(config.rng_algorithm),
    );
    let strat = ops(120);
    let (mut deep_gets, mut deep_puts) = (0, 0);
    for _ in 0..200 {
        let ops = strat.new_tree(&mut runner).unwrap().current();
        let mut sys = System::new();
        for op in &ops {
            let before = sys.snapshot();
            sys.apply(op);
            let after = sys.snapshot();
            let woke = before
                .iter()
                .zip(&after)
                .filter(|(b, a)| b.0 == 0 && a.0 > 0)
                .count();
            let died = before
                .iter()
                .zip(&after)
                .filter(|(b, a)| b.0 > 0 && a.0 == 0)
                .count();
            deep_gets += usize::from(woke >= 2);
            deep_puts += usize::from(died >= 3);
        }
        sys.check_invariants().unwrap();
    }
    eprintln!("STATS gets {deep_gets} puts {deep_puts}");
    assert!(deep_gets >= 20, "only {deep_gets} deep resurrections");
    assert!(deep_puts >= 20, "only {deep_puts} deep put cascades");
}
