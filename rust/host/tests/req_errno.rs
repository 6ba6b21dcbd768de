// SPDX-License-Identifier: GPL-2.0-only

//! The rules of `req.rs`, one by one, with the exact errno numbers that
//! `kernel/nstree.c` returns (and `include/uapi/asm-generic/errno*.h`
//! defines): ENOENT 2, E2BIG 7, EFAULT 14, EINVAL 22, EOVERFLOW 75,
//! EOPNOTSUPP 95.

use crate::req::{
    check_args, check_request, check_size, ns_type, requested, resume_after, single_type, Errno,
    LISTNS_CURRENT_USER, MAX_IDS, NS_ID_REQ_SIZE_VER0,
};

const PAGE: usize = 4096;

/// The uapi values, spelled out (`enum ns_type` of `uapi/linux/nsfs.h`,
/// the `CLONE_NEW*` flags of `uapi/linux/sched.h`).
const KNOWN: [(u32, u32); 8] = [
    (ns_type::TIME, 0x0000_0080),
    (ns_type::MNT, 0x0002_0000),
    (ns_type::CGROUP, 0x0200_0000),
    (ns_type::UTS, 0x0400_0000),
    (ns_type::IPC, 0x0800_0000),
    (ns_type::USER, 0x1000_0000),
    (ns_type::PID, 0x2000_0000),
    (ns_type::NET, 0x4000_0000),
];

#[test]
fn errno_numbers() {
    assert_eq!(Errno::NoEnt.to_errno(), 2);
    assert_eq!(Errno::TooBig.to_errno(), 7);
    assert_eq!(Errno::Fault.to_errno(), 14);
    assert_eq!(Errno::Inval.to_errno(), 22);
    assert_eq!(Errno::Overflow.to_errno(), 75);
    assert_eq!(Errno::NotSupp.to_errno(), 95);
}

#[test]
fn uapi_constants() {
    assert_eq!(NS_ID_REQ_SIZE_VER0, 32);
    assert_eq!(MAX_IDS, 1_000_000);
    assert_eq!(LISTNS_CURRENT_USER, u64::MAX);
    for (ours, uapi) in KNOWN {
        assert_eq!(ours, uapi);
    }
    assert_eq!(ns_type::ALL, 0x7e02_0080);
    assert_eq!(ns_type::ALL, KNOWN.iter().fold(0, |a, (t, _)| a | t));
}

#[test]
fn check_args_flags_einval() {
    assert_eq!(check_args(0, 0), Ok(()));
    for bit in 0..32 {
        assert_eq!(check_args(1, 1 << bit), Err(Errno::Inval), "flag bit {bit}");
    }
    assert_eq!(check_args(0, u32::MAX), Err(Errno::Inval));
}

#[test]
fn check_args_count_eoverflow() {
    assert_eq!(check_args(MAX_IDS - 1, 0), Ok(()));
    assert_eq!(check_args(MAX_IDS, 0), Ok(()));
    assert_eq!(check_args(MAX_IDS + 1, 0), Err(Errno::Overflow));
    assert_eq!(check_args(usize::MAX, 0), Err(Errno::Overflow));
}

#[test]
fn check_args_flags_before_count() {
    assert_eq!(check_args(MAX_IDS + 1, 1), Err(Errno::Inval));
    assert_eq!(check_args(usize::MAX, u32::MAX), Err(Errno::Inval));
}

#[test]
fn check_size_bounds() {
    assert_eq!(check_size(0, PAGE), Err(Errno::Inval));
    assert_eq!(check_size(NS_ID_REQ_SIZE_VER0 - 1, PAGE), Err(Errno::Inval));
    assert_eq!(check_size(NS_ID_REQ_SIZE_VER0, PAGE), Ok(()));
    assert_eq!(check_size(NS_ID_REQ_SIZE_VER0 + 1, PAGE), Ok(()));
    assert_eq!(check_size(PAGE, PAGE), Ok(()));
    assert_eq!(check_size(PAGE + 1, PAGE), Err(Errno::TooBig));
    assert_eq!(check_size(u32::MAX as usize, PAGE), Err(Errno::TooBig));
    // Another page size moves the upper bound only.
    assert_eq!(check_size(16384, 16384), Ok(()));
    assert_eq!(check_size(16385, 16384), Err(Errno::TooBig));
}

#[test]
fn check_size_e2big_before_einval() {
    // Only reachable with a page smaller than version 0; C tests the page
    // first all the same.
    assert_eq!(check_size(20, 16), Err(Errno::TooBig));
}

#[test]
fn check_request_known_types() {
    assert_eq!(check_request(0, 0), Ok(()));
    for (t, _) in KNOWN {
        assert_eq!(check_request(0, t), Ok(()));
    }
    assert_eq!(check_request(0, ns_type::ALL), Ok(()));
    assert_eq!(check_request(0, ns_type::NET | ns_type::USER), Ok(()));
}

#[test]
fn check_request_every_unknown_bit_eopnotsupp() {
    let mut unknown = 0;
    for bit in 0..32 {
        let t = 1u32 << bit;
        if ns_type::ALL & t != 0 {
            continue;
        }
        unknown += 1;
        assert_eq!(check_request(0, t), Err(Errno::NotSupp), "bit {bit}");
        assert_eq!(
            check_request(0, t | ns_type::ALL),
            Err(Errno::NotSupp),
            "bit {bit} + all"
        );
        assert_eq!(Errno::NotSupp.to_errno(), 95);
    }
    assert_eq!(unknown, 24);
    assert_eq!(check_request(0, !ns_type::ALL), Err(Errno::NotSupp));
    assert_eq!(check_request(0, u32::MAX), Err(Errno::NotSupp));
}

#[test]
fn check_request_spare_einval_first() {
    for bit in 0..32 {
        assert_eq!(
            check_request(1 << bit, 0),
            Err(Errno::Inval),
            "spare bit {bit}"
        );
    }
    // spare is checked before ns_type.
    assert_eq!(check_request(1, 1), Err(Errno::Inval));
    assert_eq!(check_request(u32::MAX, u32::MAX), Err(Errno::Inval));
}

#[test]
fn single_type_only_for_one_bit() {
    assert_eq!(single_type(0), None);
    for (t, _) in KNOWN {
        assert_eq!(single_type(t), Some(t));
    }
    assert_eq!(single_type(ns_type::NET | ns_type::PID), None);
    assert_eq!(single_type(ns_type::ALL), None);
}

#[test]
fn requested_filter() {
    for (t, _) in KNOWN {
        assert!(requested(0, t), "0 requests everything");
        assert!(requested(t, t));
        assert!(requested(ns_type::ALL, t));
        assert!(!requested(ns_type::ALL & !t, t));
    }
    assert!(requested(ns_type::NET | ns_type::UTS, ns_type::UTS));
    assert!(!requested(ns_type::NET | ns_type::UTS, ns_type::USER));
}

#[test]
fn resume_after_is_strict_and_never_wraps() {
    // 0 is "from the start"; any other id is the last one already listed,
    // which the walk starts strictly after (lookup_ns_id_after()).
    assert_eq!(resume_after(0), None);
    assert_eq!(resume_after(1).map(|v| v.get()), Some(1));
    assert_eq!(resume_after(8).map(|v| v.get()), Some(8));
    assert_eq!(
        resume_after(u64::MAX - 1).map(|v| v.get()),
        Some(u64::MAX - 1)
    );
    // 7.2's `last_ns_id + 1` wrapped to 0 here and restarted the walk;
    // 7.3 looks for an id above u64::MAX, finds none: ENOENT.
    assert_eq!(resume_after(u64::MAX).map(|v| v.get()), Some(u64::MAX));
}

#[test]
fn errno_to_kernel_error() {
    // listns.rs's `From<Errno> for Error`: the negated errno.
    for e in [
        Errno::NoEnt,
        Errno::TooBig,
        Errno::Fault,
        Errno::Inval,
        Errno::Overflow,
        Errno::NotSupp,
    ] {
        assert_eq!(
            kernel::error::Error::from(e).to_errno(),
            -e.to_errno(),
            "{e:?}"
        );
    }
}
