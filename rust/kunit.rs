// SPDX-License-Identifier: GPL-2.0-only

//! KUnit tests, run at boot.
//!
//! No test asserts while it holds a lock or an RCU read-side critical section: a failed
//! assertion ends the test's thread without running destructors. The tests compute under the
//! guard, drop it, then assert.

#![forbid(unsafe_code)]

use kernel::prelude::*;
use kernel::sync::atomic::{Atomic, Full, Relaxed};

use crate::cascade::{get_active, put_active, ActiveNode};

/// A model namespace for the cascade tests.
struct Model<'a> {
    active: Atomic<i32>,
    owner: Option<&'a Model<'a>>,
    initial: bool,
}

impl<'a> Model<'a> {
    /// A namespace created active, holding an active reference on `owner`.
    fn new(owner: Option<&'a Model<'a>>) -> Self {
        if let Some(o) = owner {
            get_active(o);
        }
        Model {
            active: Atomic::new(1),
            owner,
            initial: false,
        }
    }

    fn count(&self) -> i32 {
        self.active.load(Relaxed)
    }
}

impl ActiveNode for Model<'_> {
    fn is_initial(&self) -> bool {
        self.initial
    }

    fn active_owner(&self) -> Option<&Self> {
        self.owner
    }

    fn active_dec_and_test(&self) -> bool {
        self.active.fetch_sub(1, Full) == 1
    }

    fn active_fetch_inc(&self) -> i32 {
        self.active.fetch_add(1, Full)
    }

    fn active_read(&self) -> i32 {
        self.count()
    }

    fn counted_read(&self) -> i32 {
        1
    }

    fn check(&self, ok: bool) {
        kernel::warn_on!(!ok);
    }
}

#[kunit_tests(nstree_rs_cascade)]
mod cascade_tests {
    use super::*;

    /// The tree of the diagrams in kernel/nscommon.c: user_ns2 owns ipc_ns, uts_ns and
    /// user_ns1, which owns net_ns and pid_ns.
    #[test]
    fn put_cascades_up_to_first_active_owner() {
        let user_ns2 = Model::new(None);
        let ipc = Model::new(Some(&user_ns2));
        let uts = Model::new(Some(&user_ns2));
        let user_ns1 = Model::new(Some(&user_ns2));
        let net = Model::new(Some(&user_ns1));
        let pid = Model::new(Some(&user_ns1));
        put_active(&user_ns1);
        put_active(&user_ns2);
        assert_eq!((user_ns1.count(), user_ns2.count()), (2, 3));

        put_active(&net);
        assert_eq!(user_ns1.count(), 1);
        put_active(&pid);
        assert_eq!((net.count(), pid.count(), user_ns1.count()), (0, 0, 0));
        assert_eq!((user_ns2.count(), ipc.count(), uts.count()), (2, 1, 1));

        put_active(&ipc);
        put_active(&uts);
        assert_eq!(user_ns2.count(), 0);
    }

    #[test]
    fn resurrection_walks_back_up() {
        let user_ns2 = Model::new(None);
        let user_ns1 = Model::new(Some(&user_ns2));
        let net = Model::new(Some(&user_ns1));
        let pid = Model::new(Some(&user_ns1));
        for m in [&user_ns1, &user_ns2, &net, &pid] {
            put_active(m);
        }
        assert_eq!((user_ns1.count(), user_ns2.count()), (0, 0));

        get_active(&net);
        assert_eq!((net.count(), pid.count()), (1, 0));
        assert_eq!((user_ns1.count(), user_ns2.count()), (1, 1));
        get_active(&pid);
        assert_eq!((user_ns1.count(), user_ns2.count()), (2, 1));

        put_active(&net);
        put_active(&pid);
        assert_eq!((user_ns1.count(), user_ns2.count()), (0, 0));
    }

    #[test]
    fn initial_namespaces_are_never_counted() {
        let mut init = Model::new(None);
        init.initial = true;
        put_active(&init);
        put_active(&init);
        get_active(&init);
        assert_eq!(init.count(), 1);
    }
}

#[kunit_tests(nstree_rs_trees)]
mod tree_tests {
    use crate::listns::{Filter, Sink, Walk, BATCH, RESCHED_BATCH};
    use crate::ns::{self, NsCommon, NS_LAST_INIT_ID};
    use crate::req::ns_type;
    use crate::tree;
    use kernel::prelude::*;
    use kernel::sync::atomic::Relaxed;
    use kernel::sync::rcu;

    /// The boot-time namespaces: id, type, and whether the type is configured.
    const INITIAL: [(u64, u32, bool); 8] = [
        (1, ns_type::IPC, cfg!(CONFIG_IPC_NS)),
        (2, ns_type::UTS, cfg!(CONFIG_UTS_NS)),
        (3, ns_type::USER, cfg!(CONFIG_USER_NS)),
        (4, ns_type::PID, cfg!(CONFIG_PID_NS)),
        (5, ns_type::CGROUP, cfg!(CONFIG_CGROUPS)),
        (6, ns_type::TIME, cfg!(CONFIG_TIME_NS)),
        (7, ns_type::NET, cfg!(CONFIG_NET_NS)),
        (8, ns_type::MNT, true),
    ];

    #[test]
    fn initial_namespaces_are_on_the_trees() {
        assert_eq!(NS_LAST_INIT_ID, 8);
        for (id, ty, configured) in INITIAL {
            let (found, by_type) = {
                let g = rcu::read_lock();
                let ns = tree::lookup(id, 0, &g);
                let by_type = tree::lookup(id, ty, &g);
                let same = matches!((ns, by_type), (Some(a), Some(b)) if core::ptr::eq(a, b));
                let facts = ns.map(|ns| {
                    (
                        ns.ns_type(),
                        ns.is_initial(),
                        ns.active().load(Relaxed) >= 1,
                    )
                });
                let owner = ns.map(|ns| ns::ns_owner(ns).is_none());
                ((facts, owner), same)
            };
            assert_eq!(found.0.is_some(), configured);
            if configured {
                assert_eq!(found.0, Some((ty, true, true)));
                assert_eq!(found.1, Some(true));
                assert!(by_type);
            }
        }
    }

    /// Every namespace on the unified tree, in id order, each on its type tree and, unless
    /// it is a boot-time one, on its owner's tree.
    #[test]
    fn trees_are_sorted_and_consistent() {
        let mut bad = 0usize;
        let mut n = 0usize;
        {
            let g = rcu::read_lock();
            let mut last = 0u64;
            let mut cur = ns::unified().first(&g);
            while let Some(c) = cur {
                let ns = c.item();
                bad += usize::from(ns.id() <= last);
                last = ns.id();
                n += 1;
                let t = tree::lookup(ns.id(), ns.ns_type(), &g);
                bad += usize::from(!t.is_some_and(|t| core::ptr::eq(t, ns)));
                if let (false, Some(o)) = (ns.is_initial(), ns::ns_owner(ns)) {
                    let found = o.owned().find(ns.id(), &g);
                    bad += usize::from(!found.is_some_and(|f| core::ptr::eq(f, ns)));
                }
                cur = c.next();
            }
        }
        assert_eq!(bad, 0);
        assert!(n >= INITIAL.iter().filter(|i| i.2).count());
    }

    /// The ids a walk writes, in memory.
    struct Ids {
        ids: KVec<u64>,
        room: usize,
    }

    impl Sink for Ids {
        fn room(&self) -> usize {
            self.room - self.ids.len()
        }

        fn write(&mut self, ids: &[u64]) -> Result {
            for &id in ids {
                self.ids.push(id, GFP_KERNEL)?;
            }
            Ok(())
        }
    }

    fn walk<const B: usize, const R: usize>(types: u32, resume: u64, pause: bool) -> KVec<u64> {
        let mut out = Ids {
            ids: KVec::new(),
            room: 1000,
        };
        let walk = Walk {
            filter: Filter {
                types,
                see_all: Some(true),
            },
            resume: crate::req::resume_after(resume),
            pause: || pause,
        };
        let r = walk.run::<{ ns::UNIFIED }, _, B, R>(ns::unified(), &mut out);
        kernel::warn_on!(r.is_err());
        out.ids
    }

    /// A walk in passes of one id, or pausing after every skipped namespace, lists what one
    /// pass lists.
    #[test]
    fn walk_boundaries_list_the_same() {
        let whole = walk::<BATCH, RESCHED_BATCH>(0, 0, false);
        assert!(whole.len() >= 2);
        assert_eq!(walk::<1, RESCHED_BATCH>(0, 0, false), whole);
        assert_eq!(walk::<2, 1>(0, 0, true), whole);
        let users = walk::<BATCH, RESCHED_BATCH>(ns_type::USER, 0, false);
        assert_eq!(walk::<1, 1>(ns_type::USER, 0, true), users);
        assert_eq!(walk::<BATCH, 1>(ns_type::USER, 0, true), users);
        assert_eq!(walk::<1, 1>(ns_type::USER, users[0], true), users[1..]);
    }

    /// Counted references on boot-time namespaces move no count.
    #[test]
    fn counted_refs_on_initial_namespaces() {
        let get = |ns: &NsCommon| (ns.ref_read(), ns.active().load(Relaxed));
        let held = {
            let g = rcu::read_lock();
            tree::lookup(NS_LAST_INIT_ID, 0, &g).and_then(ns::try_get)
        };
        assert!(held.is_some());
        let held = held.unwrap();
        let before = get(&held);
        let again = ns::try_get(&held);
        assert!(again.is_some());
        assert_eq!(get(&held), before);
        drop(again);
        assert_eq!(get(&held), before);
    }
}
