// SPDX-License-Identifier: GPL-2.0-only

//! `tree::lookup()`: by id, on the unified tree or one type's, retried while writers run.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::{Duration, Instant};

use kernel::sync::rcu;

use crate::ns::{self, State, System};
use crate::req::ns_type::{IPC, NET, USER};
use crate::tree;

fn found(id: u64, ty: u32) -> Option<u64> {
    let g = rcu::read_lock();
    tree::lookup(id, ty, &g).map(|n| n.id())
}

#[test]
fn lookup_by_id_and_type() {
    let sys = System::new();
    sys.add(3, USER, None, State::Active);
    sys.add(10, NET, Some(3), State::Active);
    sys.add(11, USER, Some(3), State::Inactive);
    sys.add(12, IPC, Some(11), State::Dying);
    // Any type (0): the unified tree, whatever the state.
    assert_eq!(found(10, 0), Some(10));
    assert_eq!(found(12, 0), Some(12));
    assert_eq!(found(13, 0), None);
    // One type: that type's tree.
    assert_eq!(found(10, NET), Some(10));
    assert_eq!(found(10, USER), None);
    assert_eq!(found(11, USER), Some(11));
    // No such type: nothing.
    assert_eq!(found(10, NET | USER), None);
    assert_eq!(found(10, 1), None);
    sys.check_quiescent().unwrap();
}

#[test]
fn lookup_retries_while_a_writer_runs() {
    // A writer takes the last namespace off its trees and puts it back, over and over: a
    // search in between misses it, and `lookup()` must search again.
    const N: u64 = 500;
    let sys = System::new();
    sys.add(3, USER, None, State::Active);
    for id in 10..10 + N {
        sys.add(id, NET, Some(3), State::Active);
    }
    let last = 10 + N;
    sys.add(last, NET, Some(3), State::Active);
    let stop = AtomicBool::new(false);
    let (mut lookups, mut raw_misses) = (0u64, 0u64);
    let t0 = Instant::now();
    std::thread::scope(|s| {
        s.spawn(|| {
            while !stop.load(Relaxed) {
                sys.reinsert(last);
                std::thread::yield_now();
            }
        });
        while t0.elapsed() < Duration::from_secs(10) && (lookups < 2000 || raw_misses == 0) {
            assert_eq!(found(last, 0), Some(last), "lookup() missed a namespace");
            assert_eq!(found(last, NET), Some(last), "lookup() missed a namespace");
            lookups += 2;
            // The same search without the retry misses it now and then.
            let g = rcu::read_lock();
            raw_misses += u64::from(ns::unified().find(last, &g).is_none());
        }
        stop.store(true, Relaxed);
    });
    eprintln!("{lookups} lookups; {raw_misses} searches without a retry missed");
    assert!(
        raw_misses > 0,
        "no search ran while the writer did: the test proved nothing"
    );
}
