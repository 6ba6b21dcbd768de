// SPDX-License-Identifier: GPL-2.0-only

//! KUnit tests, run at boot (`CONFIG_KUNIT`).
//!
//! - `nstree_rs_cascade`: the scenarios of the comment diagrams in
//!   `kernel/nscommon.c`, on a model owner tree, through the crate's own
//!   [`cascade`](crate::cascade) code and the kernel's atomics;
//! - `nstree_rs_trees`: the live trees after boot (initial namespaces,
//!   order, lookups, owner links) and a private tree of test namespaces
//!   exercising insert, lookup, ordered lookup, iteration and removal.

#![forbid(unsafe_code)]

use kernel::prelude::*;
use kernel::sync::atomic::{Atomic, Full, Relaxed};

use crate::cascade::{get_active, put_active, Active, ActiveNode, Counted};

/// A model namespace for the cascade tests.
struct Model<'a> {
    active: Atomic<i32>,
    owner: Option<&'a Model<'a>>,
    initial: bool,
}

impl<'a> Model<'a> {
    /// A namespace created active (one task), owned by `owner`, which it
    /// holds an active reference on (`None`: owned by init_user_ns).
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

    fn check(&self, ok: bool) {
        kernel::warn_on!(!ok);
    }
}

impl<'a> Counted for &'a Model<'a> {
    type Node = Model<'a>;

    fn node(&self) -> &Model<'a> {
        self
    }
}

#[kunit_tests(nstree_rs_cascade)]
mod cascade_tests {
    use super::*;

    /// The tree of the diagrams: user_ns2 owns ipc_ns, uts_ns and
    /// user_ns1; user_ns1 owns net_ns and pid_ns.
    #[test]
    fn put_cascades_up_to_first_active_owner() {
        let user_ns2 = Model::new(None);
        let ipc = Model::new(Some(&user_ns2));
        let uts = Model::new(Some(&user_ns2));
        let user_ns1 = Model::new(Some(&user_ns2));
        let net = Model::new(Some(&user_ns1));
        let pid = Model::new(Some(&user_ns1));
        // The creating task dropped its references on the user namespaces
        // when it switched to the children: user_ns1 (2), user_ns2 (3).
        put_active(&user_ns1);
        put_active(&user_ns2);
        assert_eq!(user_ns1.count(), 2);
        assert_eq!(user_ns2.count(), 3);

        // net_ns and pid_ns put their last active references: user_ns1
        // drops to zero and puts one of user_ns2's.
        put_active(&net);
        assert_eq!(user_ns1.count(), 1);
        put_active(&pid);
        assert_eq!(net.count(), 0);
        assert_eq!(pid.count(), 0);
        assert_eq!(user_ns1.count(), 0);
        assert_eq!(user_ns2.count(), 2);
        assert_eq!(ipc.count(), 1);
        assert_eq!(uts.count(), 1);

        // The whole tree dies.
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
        put_active(&user_ns1);
        put_active(&user_ns2);
        put_active(&net);
        put_active(&pid);
        assert_eq!(user_ns1.count(), 0);
        assert_eq!(user_ns2.count(), 0);

        // SIOCGSKNS resurrects net_ns: it takes a reference on user_ns1,
        // which takes one on user_ns2.
        get_active(&net);
        assert_eq!(net.count(), 1);
        assert_eq!(pid.count(), 0);
        assert_eq!(user_ns1.count(), 1);
        assert_eq!(user_ns2.count(), 1);

        // pid_ns too: user_ns1 was active, so the walk stops there.
        get_active(&pid);
        assert_eq!(user_ns1.count(), 2);
        assert_eq!(user_ns2.count(), 1);

        // And back down, symmetrically.
        put_active(&net);
        put_active(&pid);
        assert_eq!(user_ns1.count(), 0);
        assert_eq!(user_ns2.count(), 0);
    }

    #[test]
    fn initial_namespaces_are_never_counted() {
        let mut init = Model::new(None);
        init.initial = true;
        put_active(&init);
        put_active(&init);
        assert_eq!(init.count(), 1);
        get_active(&init);
        assert_eq!(init.count(), 1);
    }

    #[test]
    fn active_reference_type_takes_and_drops() {
        let user_ns = Model::new(None);
        let net = Model::new(Some(&user_ns));
        put_active(&user_ns);
        put_active(&net);
        assert_eq!(user_ns.count(), 0);
        let counted = &net;
        {
            let a = Active::new(&counted);
            assert_eq!(a.node().count(), 1);
            assert_eq!(user_ns.count(), 1);
        }
        assert_eq!(net.count(), 0);
        assert_eq!(user_ns.count(), 0);
    }
}

#[kunit_tests(nstree_rs_trees)]
mod tree_tests {
    use crate::ffi::{self, type_root, ByOwner, TestTree, WriteGuard};
    use crate::req::ns_type;
    use crate::tree;
    use kernel::sync::rcu;

    const TYPES: [u32; 8] = [
        ns_type::TIME,
        ns_type::MNT,
        ns_type::CGROUP,
        ns_type::UTS,
        ns_type::IPC,
        ns_type::USER,
        ns_type::PID,
        ns_type::NET,
    ];

    #[test]
    fn initial_ids_are_one_to_last_init_id() {
        use crate::ffi::is_initial_id;
        // An id of 0 (no id assigned yet) never makes a namespace initial.
        assert!(!is_initial_id(0));
        assert!(is_initial_id(1));
        assert!(is_initial_id(ffi::NS_LAST_INIT_ID));
        assert!(!is_initial_id(ffi::NS_LAST_INIT_ID + 1));
        assert!(!is_initial_id(u64::MAX));
    }

    /// The boot-time namespaces (`enum init_ns_id`,
    /// include/uapi/linux/nsfs.h:71-78): id, type, and whether this kernel
    /// configures the type, whose initcall then puts it on the trees
    /// (e.g. ipc/namespace.c, built with `CONFIG_IPC_NS`).
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
        let g = rcu::read_lock();
        // Ids 1..=8 are the initial namespaces of the configured types;
        // the others' ids are never used.
        for (id, ty, configured) in INITIAL {
            let ns = tree::lookup_rcu(id, 0, &g);
            assert_eq!(ns.is_some(), configured);
            let Some(ns) = ns else { continue };
            assert_eq!(ns.ns_type(), ty);
            assert!(ns.is_initial());
            assert!(ns.active_read() >= 1);
            assert!(crate::active::ns_owner(ns).is_none());
            let by_type = tree::lookup_rcu(id, ty, &g);
            assert!(by_type.is_some_and(|t| core::ptr::eq(t, ns)));
        }
        assert_eq!(ffi::NS_LAST_INIT_ID, 8);
    }

    #[test]
    fn trees_are_sorted_and_consistent() {
        let g = rcu::read_lock();
        let mut last = 0u64;
        let mut n = 0usize;
        let mut cur = tree::unified().first(&g);
        while let Some(c) = cur {
            let ns = c.ns();
            assert!(ns.id() > last);
            last = ns.id();
            n += 1;
            // The cascade's quick test (C's `is_ns_init_id()`) agrees with
            // `is_initial()` on every id a namespace on a tree has.
            assert_eq!(
                crate::cascade::ActiveNode::maybe_initial(ns),
                ns.is_initial()
            );
            // On its type tree and findable there.
            let t = tree::lookup_rcu(ns.id(), ns.ns_type(), &g);
            assert!(t.is_some_and(|t| core::ptr::eq(t, ns)));
            // On its owner's tree unless it is init_user_ns. (The static
            // boot-time namespaces start with zeroed nodes, which do not
            // read as empty, so only later ones can be checked.)
            if !ns.is_initial() {
                let w = WriteGuard::lock();
                assert_eq!(ns.on_tree::<ByOwner>(&w), ns.owner().is_some());
            }
            cur = c.next(&g);
        }
        assert!(n >= INITIAL.iter().filter(|i| i.2).count());
        let mut total = 0usize;
        for ty in TYPES {
            let root = type_root(ty).unwrap();
            let mut last = 0u64;
            let mut cur = root.first(&g);
            while let Some(c) = cur {
                let ns = c.ns();
                assert_eq!(ns.ns_type(), ty);
                assert!(ns.id() > last);
                last = ns.id();
                total += 1;
                cur = c.next(&g);
            }
        }
        assert_eq!(total, n);
    }

    #[test]
    fn private_tree_insert_lookup_remove() {
        // Ids inserted out of order into a private tree of test namespaces.
        const IDS: [u64; 9] = [50, 10, 90, 30, 70, 20, 80, 40, 60];
        let t = TestTree::new(&IDS);
        assert!(t.is_ok());
        let t = t.unwrap();
        assert!(t.ids_in_order().as_slice() == [10, 20, 30, 40, 50, 60, 70, 80, 90]);
        assert_eq!(t.find(70), Some(70));
        assert_eq!(t.find(75), None);
        // Strictly after, as 7.3's lookup_ns_id_after().
        assert_eq!(t.first_after(75), Some(80));
        assert_eq!(t.first_after(10), Some(20));
        assert_eq!(t.first_after(9), Some(10));
        assert_eq!(t.first_after(0), Some(10));
        assert_eq!(t.first_after(90), None);
        assert_eq!(t.first_after(u64::MAX), None);
        assert_eq!(t.neighbours(50), (Some(40), Some(60)));
        assert_eq!(t.neighbours(10), (None, Some(20)));
        t.remove(50);
        t.remove(10);
        assert!(t.ids_in_order().as_slice() == [20, 30, 40, 60, 70, 80, 90]);
        assert_eq!(t.find(50), None);
        assert_eq!(t.first_after(45), Some(60));
        assert_eq!(t.first_after(40), Some(60));
        assert_eq!(t.neighbours(60), (Some(40), Some(70)));
        let mut t = t;
        assert!(!t.insert_duplicate(60));
        assert!(t.ids_in_order().as_slice() == [20, 30, 40, 60, 70, 80, 90]);
        // Only the per-type nodes were used: the fake namespaces' other
        // nodes and owner roots are as `__ns_common_init()` left them.
        assert!(t.others_untouched());
        // A refused node is left empty, even a zero-filled static one
        // (`NS_COMMON_INIT()`), so that the removal of every fake when `t`
        // is dropped skips it.
        assert_eq!(t.insert_duplicate_static(30), (false, false));
        assert!(t.ids_in_order().as_slice() == [20, 30, 40, 60, 70, 80, 90]);
    }

    #[test]
    fn counted_refs_only_on_namespaces_that_can_be_put() {
        use crate::active::{get_unless_inactive, ActiveRef, NsRef};
        // Above the initial namespaces' ids.
        const ID: u64 = 1 << 40;
        let t = TestTree::new(&[ID]);
        assert!(t.is_ok());
        let t = t.unwrap();
        let ns = t.get(ID).unwrap();
        // A fake namespace has no `ops`, so a count taken on it could never
        // be put (C's ns_put() skips it): none is taken, active or not.
        assert!(NsRef::try_get(ns).is_none());
        assert!(get_unless_inactive(ns).is_none());
        assert_eq!(ns.refs(), 1);
        // The initial mount namespace (id 8) is handed out, and neither
        // its counted nor its active count moves.
        let init = {
            let g = rcu::read_lock();
            tree::lookup_rcu(ffi::NS_LAST_INIT_ID, 0, &g).and_then(NsRef::try_get)
        };
        assert!(init.is_some());
        let init = init.unwrap();
        let (refs, active) = (init.ns().refs(), init.ns().active_read());
        {
            let a = ActiveRef::new(&init);
            assert_eq!(a.node().active_read(), active);
        }
        assert_eq!(init.ns().refs(), refs);
        assert_eq!(init.ns().active_read(), active);
    }
}
