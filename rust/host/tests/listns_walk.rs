// SPDX-License-Identifier: GPL-2.0-only

//! The `listns()` walk of rust/listns.rs (`Walk::run`) against a model of C's loops
//! (`do_listns()`, `do_listns_userns()` in kernel/nstree.c of 7.3).
//!
//! The walk runs on the host model of the namespaces (`crate::ns`): real trees, namespaces that
//! are active, inactive but still counted, or dying (`hold()` fails), a caller whose
//! `may_see_all()` answer is set and logged, and a simulated id buffer that faults at a chosen
//! slot. Small batch sizes and reschedule intervals (`B`, `R`) cross the batch and pause
//! boundaries on short lists; `need_resched()` answers never, always or every n-th time.
//!
//! Each case runs the walk and the model of C on the same namespaces and compares the result
//! or errno, the ids written, where the fault hit, whether and after how many written ids the
//! capability was asked (asking marks the task `PF_SUPERPRIV`), and whether the mark is set. On
//! the Rust side it also checks that nothing that may sleep runs inside RCU or the lock (the
//! stub panics), that every reference is dropped once, that no more than `nr` ids are written,
//! in ascending order, that nothing is asked or written after a fault, and that the walk ends.
//! The race cases change, free and create namespaces whenever the walk enters RCU, looks at a
//! namespace or holds one: there only the Rust-side invariants are checked.
//!
//! `NSTREE_WALK_FULL=1` runs the long versions (about 70 million cases); scripts/walk-mutants.sh
//! runs this test on buggy walks, which it must fail.

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};

use kernel::error::{code::*, Result};
use kernel::uaccess::{mem, UserPtr, UserSlice, UserSliceWriter};

use crate::listns::{Filter, Listed, Sink, Walk};
use crate::ns::{self, Ev, System, BY_OWNER, BY_TYPE, UNIFIED};
use crate::req;

#[derive(Clone, Copy, Debug, PartialEq)]
enum State {
    /// active (so counted) > 0: listed, holdable
    A,
    /// active 0, counted > 0: not listed, holdable
    I,
    /// active 0, counted 0: dying, not listed, not holdable
    D,
}

impl State {
    fn model(self) -> ns::State {
        match self {
            State::A => ns::State::Active,
            State::I => ns::State::Inactive,
            State::D => ns::State::Dying,
        }
    }
}

/// A namespace of a case: `ty` is 1, 2 or 4, one of three types ([`flags`]).
#[derive(Clone, Debug, PartialEq)]
struct Ns {
    id: u64,
    ty: u32,
    current: bool,
    st: State,
}

/// The `CLONE_NEW*` flags of the type bits 1, 2 and 4 of a case.
fn flags(bits: u32) -> u32 {
    [req::ns_type::NET, req::ns_type::UTS, req::ns_type::IPC]
        .iter()
        .enumerate()
        .filter(|(i, _)| bits & (1 << i) != 0)
        .fold(0, |a, (_, f)| a | f)
}

/// The user namespace that owns every namespace of a case, on no tree.
const OWNER: u64 = 1 << 40;

/// Where the id buffer is.
const IDS: usize = 0x1000_0000;

#[derive(Clone, Copy, Debug)]
enum Resched {
    Never,
    Always,
    Every(u32),
}

thread_local! {
    static RESCHED: RefCell<(Resched, u32)> = const { RefCell::new((Resched::Never, 0)) };
}

fn need_resched() -> bool {
    RESCHED.with(|r| {
        let (policy, calls) = &mut *r.borrow_mut();
        *calls += 1;
        match *policy {
            Resched::Never => false,
            Resched::Always => true,
            Resched::Every(n) => *calls % n == 0,
        }
    })
}

fn cond_resched() {
    ns::log(Ev::CondResched);
}

fn on_write(addr: usize, id: u64, ok: bool) {
    ns::log(if ok {
        Ev::Write(id)
    } else {
        Ev::Fault((addr - IDS) / 8)
    });
}

/// The id buffer, as rust/listns.rs's `UserIds`.
struct Ids(UserSliceWriter);

impl Sink for Ids {
    fn room(&self) -> usize {
        self.0.len() / 8
    }

    fn write(&mut self, ids: &[u64]) -> Result {
        ids.iter().try_for_each(|&id| self.0.write_scalar(id))
    }
}

fn ids_writer(nr: usize) -> UserSliceWriter {
    UserSlice::new(UserPtr::from_addr(IDS), nr * 8).writer()
}

/// The walk as `listns()` starts it, from the owner's capability question on.
fn rust_listns<const B: usize, const R: usize>(c: &Case, sys: &System) -> Result<Listed> {
    let types = flags(c.types);
    let mut out = Ids(ids_writer(c.nr));
    let mut walk = Walk {
        filter: Filter {
            types,
            see_all: None,
        },
        resume: req::resume_after(c.last),
        pause: kernel::task::need_resched,
    };
    if c.owner {
        // `owned_by()`: C asks first, once.
        walk.filter.see_all = Some(ns::may_see_all());
        return walk.run::<BY_OWNER, _, B, R>(sys.get(OWNER).owned(), &mut out);
    }
    match req::single_type(types) {
        Some(ty) => walk.run::<BY_TYPE, _, B, R>(ns::type_tree(ty).unwrap(), &mut out),
        None => walk.run::<UNIFIED, _, B, R>(ns::unified(), &mut out),
    }
}

/// C: `do_listns_userns()`, `do_listns()`.
fn c_listns(c: &Case) -> Result<Listed> {
    let list = walked(c);
    let types = flags(c.types);
    let mut out = ids_writer(c.nr);
    let mut userns_capable = false;
    if c.owner {
        userns_capable = ns::may_see_all();
    }
    let start = if c.last != 0 {
        match list.iter().position(|n| n.id > c.last) {
            Some(i) => i,
            None => return Err(ENOENT),
        }
    } else {
        0
    };
    let mut nr = c.nr;
    let mut ret: Listed = 0;
    for n in &list[start..] {
        if nr == 0 {
            break;
        }
        // legitimize_ns()
        if !req::requested(types, flags(n.ty)) {
            continue;
        }
        // may_list_ns()
        let ok = (c.owner && userns_capable) || n.current || ns::may_see_all();
        if !ok {
            continue;
        }
        // ns_get_unless_inactive()
        if n.st != State::A {
            continue;
        }
        out.write_scalar(n.id)?;
        nr -= 1;
        ret += 1;
    }
    Ok(ret)
}

#[derive(Clone, Debug)]
struct Case {
    list: Vec<Ns>,
    nr: usize,
    last: u64,
    types: u32,
    owner: bool,
    see: bool,
    fault: Option<usize>,
    resched: Resched,
    br: (usize, usize),
    race: Option<u64>,
}

/// The namespaces of `list` on their trees, all owned by [`OWNER`].
fn build(list: &[Ns]) -> System {
    let sys = System::new();
    sys.make(OWNER, req::ns_type::USER, None, ns::State::Active);
    for n in list {
        sys.add(n.id, flags(n.ty), Some(OWNER), n.st.model());
        sys.set_current(n.id, n.current);
    }
    sys
}

/// Sets `sys` up for a run of `c`.
fn setup(c: &Case, sys: &System) {
    for n in &c.list {
        sys.set_state(n.id, n.st.model());
    }
    sys.set_see_all(c.see);
    sys.set_step_limit(20 * (c.list.len() as u64 + 1) + 200);
    sys.set_race(c.race);
    sys.take_log();
    mem::reset();
    // Room for the ids up to the fault, and for no more than the list has.
    let slots =
        c.nr.min(c.fault.unwrap_or(usize::MAX))
            .min(c.list.len() + 2);
    mem::map(IDS, &vec![0; slots * 8]);
    mem::set_write_hook(Some(on_write));
    kernel::task::set_hooks(Some(need_resched), Some(cond_resched));
    RESCHED.with(|r| *r.borrow_mut() = (c.resched, 0));
}

/// The list the walk runs on: the type's tree for a single type (not for
/// an owner walk, which walks the owner's list whatever the types).
fn walked(c: &Case) -> Vec<Ns> {
    if !c.owner && c.types.count_ones() == 1 {
        c.list
            .iter()
            .filter(|n| n.ty & c.types != 0)
            .cloned()
            .collect()
    } else {
        c.list.clone()
    }
}

fn run_rust(c: &Case, sys: &System) -> (Result<Listed>, Vec<Ev>, Vec<String>) {
    setup(c, sys);
    let r = catch_unwind(AssertUnwindSafe(|| match c.br {
        (64, 256) => rust_listns::<64, 256>(c, sys),
        (1, 1) => rust_listns::<1, 1>(c, sys),
        (2, 1) => rust_listns::<2, 1>(c, sys),
        (2, 2) => rust_listns::<2, 2>(c, sys),
        (3, 1) => rust_listns::<3, 1>(c, sys),
        (3, 2) => rust_listns::<3, 2>(c, sys),
        (4, 3) => rust_listns::<4, 3>(c, sys),
        _ => unreachable!(),
    }));
    sys.set_race(None);
    let mut errs = vec![];
    let r = r.unwrap_or_else(|p| {
        let msg = p
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| p.downcast_ref::<&str>().copied())
            .unwrap_or("?");
        errs.push(format!("panic: {msg}"));
        Err(EINVAL)
    });
    if let Err(e) = sys.check_quiescent() {
        errs.push(e);
    }
    let log = sys.take_log();
    // no more ids written than nr
    let w = log.iter().filter(|e| matches!(e, Ev::Write(_))).count();
    if w > c.nr {
        errs.push(format!("wrote {w} > nr {}", c.nr));
    }
    // ascending
    let ws: Vec<u64> = log
        .iter()
        .filter_map(|e| if let Ev::Write(i) = e { Some(*i) } else { None })
        .collect();
    if !ws.windows(2).all(|p| p[0] < p[1]) {
        errs.push("not ascending".into());
    }
    // asked at most once
    let asks = log.iter().filter(|e| matches!(e, Ev::Ask(_))).count();
    if asks > 1 {
        errs.push(format!("asked {asks} times"));
    }
    // nothing after a fault
    if let Some(f) = log.iter().position(|e| matches!(e, Ev::Fault(_))) {
        if log[f + 1..]
            .iter()
            .any(|e| matches!(e, Ev::Ask(_) | Ev::Write(_)))
        {
            errs.push("ask/write after the fault".into());
        }
    }
    // every id collected before an ask is written before it (or was
    // popped: its hold at the batch boundary failed right after)
    for (k, e) in log.iter().enumerate() {
        if !matches!(e, Ev::Ask(_)) {
            continue;
        }
        for p in &log[..k] {
            if let Ev::Collect(id) = p {
                let before = log[..k].contains(&Ev::Write(*id));
                let popped = log[..k].contains(&Ev::HoldFail(*id));
                if !before && !popped {
                    errs.push(format!("asked with id {id} collected and not written"));
                }
            }
        }
    }
    // a pause is traced at a held namespace, then cond_resched()
    for (k, e) in log.iter().enumerate() {
        if matches!(e, Ev::CondResched) && (k == 0 || !matches!(log[k - 1], Ev::Pause(_))) {
            errs.push("cond_resched() without a traced pause".into());
        }
    }
    (r, log, errs)
}

fn run_c(c: &Case, sys: &System) -> (Result<Listed>, Vec<Ev>) {
    setup(c, sys);
    let r = c_listns(c);
    (r, sys.take_log())
}

/// Written count at each ask, writes, fault
fn summary(log: &[Ev]) -> (Vec<usize>, Vec<u64>, Option<usize>) {
    let mut asks = vec![];
    let mut w = vec![];
    let mut f = None;
    for e in log {
        match e {
            Ev::Ask(_) => asks.push(w.len()),
            Ev::Write(i) => w.push(*i),
            Ev::Fault(p) => f = Some(*p),
            _ => {}
        }
    }
    (asks, w, f)
}

#[derive(Default)]
struct Stats {
    cases: u64,
    fails: u64,
    later_ask: u64,
    c_asked: u64,
    deferred: u64,
    pauses: u64,
    faults: u64,
    /// Cases in which namespaces were freed or created under the walk.
    raced: u64,
}

fn check(c: &Case, cache: &mut Option<(Vec<Ns>, System)>, stats: &mut Stats) {
    stats.cases += 1;
    // A system per list, reused while the list is the same; a fresh one for a race.
    if c.race.is_some() || cache.as_ref().is_none_or(|(l, _)| *l != c.list) {
        *cache = None;
        *cache = Some((c.list.clone(), build(&c.list)));
    }
    let sys = &cache.as_ref().unwrap().1;
    let before = c.race.map(|_| sys.listed());
    let (rr, rlog, mut errs) = run_rust(c, sys);
    if before.is_some_and(|b| sys.listed() != b) {
        stats.raced += 1;
    }
    if c.race.is_none() {
        let (cr, clog) = run_c(c, sys);
        let (ca, cw, cf) = summary(&clog);
        let (ra, rw, rf) = summary(&rlog);
        if cr != rr {
            errs.push(format!("result C {cr:?} R {rr:?}"));
        }
        if cw != rw {
            errs.push(format!("ids C {cw:?} R {rw:?}"));
        }
        if cf != rf {
            errs.push(format!("fault C {cf:?} R {rf:?}"));
        }
        if ca.is_empty() != ra.is_empty() {
            errs.push(format!("asked: C at {ca:?} R at {ra:?}"));
        }
        if let (Some(a), Some(b)) = (ca.first(), ra.first()) {
            if b < a {
                errs.push(format!("R asked after {b} ids written, C after {a}"));
            } else if b > a {
                stats.later_ask += 1;
                errs.push(format!("R asked later: after {b} ids written, C after {a}"));
            }
        }
        let cmark = clog.contains(&Ev::Ask(true));
        let rmark = rlog.contains(&Ev::Ask(true));
        if cmark != rmark {
            errs.push(format!("PF_SUPERPRIV C {cmark} R {rmark}"));
        }
        if !ca.is_empty() {
            stats.c_asked += 1;
        }
        if cf.is_some() {
            stats.faults += 1;
        }
    }
    if rlog.iter().any(|e| matches!(e, Ev::CondResched)) {
        stats.pauses += 1;
    }
    // a deferral: Rust's ask came right after writes (not under a walk step)
    if let Some(k) = rlog.iter().position(|e| matches!(e, Ev::Ask(_))) {
        if k > 0 && matches!(rlog[k - 1], Ev::Write(_)) {
            stats.deferred += 1;
        }
    }
    if !errs.is_empty() {
        stats.fails += 1;
        if stats.fails <= 8 {
            println!("FAIL {c:?}\n  errs {errs:?}\n  rust log {rlog:?}");
        }
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[self.below(v.len() as u64) as usize]
    }
}

const STATES: [State; 3] = [State::A, State::I, State::D];

fn small_lists(maxlen: usize) -> Vec<Vec<Ns>> {
    let mut all = vec![vec![]];
    let mut frontier = vec![vec![]];
    for _ in 0..maxlen {
        let mut nf = vec![];
        for l in &frontier {
            for k in 0..12 {
                let mut l2: Vec<Ns> = l.clone();
                l2.push(Ns {
                    id: 2 * (l.len() as u64 + 1),
                    ty: 1 << (k % 2),
                    current: (k / 2) % 2 == 1,
                    st: STATES[k / 4],
                });
                nf.push(l2);
            }
        }
        all.extend(nf.iter().cloned());
        frontier = nf;
    }
    all
}

fn main_body(mode: &str, full: bool) -> Stats {
    let mut stats = Stats::default();
    let mut cache = None;
    let brs = [(1, 1), (2, 1), (2, 2), (3, 1), (3, 2), (4, 3), (64, 256)];
    if mode == "small" {
        // exhaustive: every list of up to 3 namespaces (2 types, own or not,
        // A/I/D) x nr x resume x types x owner x see_all x fault x resched x
        // batch sizes
        for list in small_lists(if full { 3 } else { 2 }) {
            let n = list.len();
            let mut lasts = vec![0u64, 1];
            for x in &list {
                lasts.push(x.id);
                lasts.push(x.id + 1);
            }
            lasts.dedup();
            for nr in [0usize, 1, 2, 3, 5] {
                for &last in &lasts {
                    for types in [0u32, 1, 2, 3] {
                        for owner in [false, true] {
                            for see in [false, true] {
                                for fault in [None, Some(0), Some(1), Some(2)] {
                                    for resched in [Resched::Never, Resched::Always] {
                                        for br in brs {
                                            if fault.is_some_and(|f| f > n) {
                                                continue;
                                            }
                                            let c = Case {
                                                list: list.clone(),
                                                nr,
                                                last,
                                                types,
                                                owner,
                                                see,
                                                fault,
                                                resched,
                                                br,
                                                race: None,
                                            };
                                            check(&c, &mut cache, &mut stats);
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        println!(
            "small: cases={} fails={} later_ask={} c_asked={} deferred={} pauses={} faults={}",
            stats.cases,
            stats.fails,
            stats.later_ask,
            stats.c_asked,
            stats.deferred,
            stats.pauses,
            stats.faults
        );
    }
    if mode == "medium" {
        // random lists of 4..12 namespaces, small batches
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let before = stats.cases;
        for _ in 0..if full { 2_000_000u32 } else { 200_000 } {
            let n = 4 + rng.below(9) as usize;
            let list: Vec<Ns> = (0..n)
                .map(|i| Ns {
                    id: 3 * (i as u64 + 1),
                    ty: 1 << rng.below(3),
                    current: rng.below(2) == 0,
                    st: rng.pick(&STATES),
                })
                .collect();
            let nr = rng.below(n as u64 + 3) as usize;
            let last = match rng.below(4) {
                0 | 1 => 0,
                2 => list[rng.below(n as u64) as usize].id,
                _ => rng.below(3 * n as u64 + 5),
            };
            let types = rng.pick(&[0u32, 1, 2, 4, 3, 5, 7]);
            let c = Case {
                list,
                nr,
                last,
                types,
                owner: rng.below(3) == 0,
                see: rng.below(2) == 0,
                fault: if rng.below(3) == 0 {
                    None
                } else {
                    Some(rng.below(n as u64 + 1) as usize)
                },
                resched: rng.pick(&[
                    Resched::Never,
                    Resched::Always,
                    Resched::Every(2),
                    Resched::Every(3),
                ]),
                br: rng.pick(&brs[..6]),
                race: None,
            };
            check(&c, &mut cache, &mut stats);
        }
        println!(
            "medium: cases={} fails={} later_ask={}",
            stats.cases - before,
            stats.fails,
            stats.later_ask
        );
    }
    if mode == "large" {
        // real batch sizes; the first non-own candidate placed around the
        // batch and nr boundaries; faults at every position up to it
        let mut rng = Rng(0x1234_5678_9abc_def1);
        let before = stats.cases;
        let nrs = [0usize, 1, 8, 9, 63, 64, 65, 127, 128, 129, 1_000_000];
        let ks = [0usize, 1, 7, 8, 9, 62, 63, 64, 65, 66, 127, 128, 129, 130];
        let (nrs, ks): (&[usize], &[usize]) = if full {
            (&nrs, &ks)
        } else {
            (&[0, 1, 9, 64, 65, 1_000_000], &[0, 8, 63, 64])
        };
        for &k in ks {
            for &nr in nrs {
                for cand in STATES {
                    for tail in 0..4u32 {
                        for owner in [false, true] {
                            for see in [false, true] {
                                for resched in [Resched::Never, Resched::Always] {
                                    // k own active ones, then the candidate, then a run
                                    let mut list = vec![];
                                    let mut id = 0;
                                    let mut push = |list: &mut Vec<Ns>, ty, current, st| {
                                        id += 1;
                                        list.push(Ns {
                                            id,
                                            ty,
                                            current,
                                            st,
                                        })
                                    };
                                    for _ in 0..k {
                                        push(&mut list, 1, true, State::A);
                                    }
                                    push(&mut list, 1, false, cand);
                                    match tail {
                                        0 => {}
                                        1 => {
                                            for _ in 0..3 {
                                                push(&mut list, 1, false, State::D)
                                            }
                                            push(&mut list, 1, true, State::A)
                                        }
                                        2 => {
                                            for _ in 0..300 {
                                                push(&mut list, 2, false, State::A)
                                            }
                                            for _ in 0..70 {
                                                push(
                                                    &mut list,
                                                    1,
                                                    rng.below(2) == 0,
                                                    rng.pick(&STATES),
                                                )
                                            }
                                        }
                                        _ => {
                                            for _ in 0..200 {
                                                push(
                                                    &mut list,
                                                    1,
                                                    rng.below(4) != 0,
                                                    rng.pick(&STATES),
                                                )
                                            }
                                        }
                                    }
                                    let mut faults: Vec<Option<usize>> = vec![None];
                                    faults.extend((0..=k.min(nr) + 1).map(Some));
                                    faults.push(Some(k + 70));
                                    for fault in faults {
                                        for (last, types) in
                                            [(0, 0), (0, 1), (0, 3), (1, 0), (k as u64, 1)]
                                        {
                                            let c = Case {
                                                list: list.clone(),
                                                nr,
                                                last,
                                                types,
                                                owner,
                                                see,
                                                fault,
                                                resched,
                                                br: (64, 256),
                                                race: None,
                                            };
                                            check(&c, &mut cache, &mut stats);
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        println!(
            "large-structured: cases={} fails={} later_ask={}",
            stats.cases - before,
            stats.fails,
            stats.later_ask
        );
        let before = stats.cases;
        for _ in 0..if full { 60_000u32 } else { 3_000 } {
            let len = rng.below(700) as usize;
            let mut id = 0u64;
            let pown = rng.pick(&[1u64, 2, 8, 50]);
            let list: Vec<Ns> = (0..len)
                .map(|_| {
                    id += 1 + rng.below(3);
                    Ns {
                        id,
                        ty: 1 << rng.below(3),
                        current: rng.below(pown) != 0,
                        st: if rng.below(4) == 0 {
                            rng.pick(&STATES)
                        } else {
                            State::A
                        },
                    }
                })
                .collect();
            let nr = if rng.below(3) == 0 {
                rng.below(300) as usize
            } else {
                rng.pick(nrs)
            };
            let last = match rng.below(5) {
                0 | 1 => 0,
                2 => u64::MAX,
                3 if len > 0 => list[rng.below(len as u64) as usize].id,
                _ => rng.below(id + 3),
            };
            let c = Case {
                list,
                nr,
                last,
                types: rng.pick(&[0u32, 1, 2, 4, 3, 6]),
                owner: rng.below(3) == 0,
                see: rng.below(2) == 0,
                fault: if rng.below(2) == 0 {
                    None
                } else {
                    Some(rng.below(200) as usize)
                },
                resched: rng.pick(&[Resched::Never, Resched::Always, Resched::Every(2)]),
                br: (64, 256),
                race: None,
            };
            check(&c, &mut cache, &mut stats);
        }
        println!(
            "large-random: cases={} fails={} later_ask={}",
            stats.cases - before,
            stats.fails,
            stats.later_ask
        );
    }
    if mode == "race" {
        // states change whenever the walk re-enters RCU, and active ones die
        // right after their read: invariants only
        let mut rng = Rng(0x0dd_f00d_cafe_beef);
        let before = stats.cases;
        for _ in 0..if full { 400_000u32 } else { 40_000 } {
            let n = rng.below(150) as usize;
            let list: Vec<Ns> = (0..n)
                .map(|i| Ns {
                    id: i as u64 + 1,
                    ty: 1 << rng.below(2),
                    current: rng.below(3) != 0,
                    st: rng.pick(&STATES),
                })
                .collect();
            let c = Case {
                list,
                nr: rng.pick(&[0usize, 1, 2, 3, 5, 8, 9, 64, 65, 1000]),
                last: if rng.below(2) == 0 {
                    0
                } else {
                    rng.below(n as u64 + 2)
                },
                types: rng.pick(&[0u32, 1, 3]),
                owner: rng.below(4) == 0,
                see: rng.below(2) == 0,
                fault: if rng.below(2) == 0 {
                    None
                } else {
                    Some(rng.below(20) as usize)
                },
                resched: rng.pick(&[Resched::Never, Resched::Always, Resched::Every(2)]),
                br: rng.pick(&brs),
                race: Some(rng.next() | 1),
            };
            check(&c, &mut cache, &mut stats);
        }
        println!(
            "race: cases={} fails={} raced={}",
            stats.cases - before,
            stats.fails,
            stats.raced
        );
    }
    println!(
        "TOTAL cases={} fails={} later_ask={} c_asked={} deferred={} pauses={} faults={}",
        stats.cases,
        stats.fails,
        stats.later_ask,
        stats.c_asked,
        stats.deferred,
        stats.pauses,
        stats.faults
    );
    stats
}

/// Runs one mode and fails on any failing case, or on a run that did too
/// little: no case at all, or (but for the race mode, which compares with
/// nothing) none where C asked, none where Rust wrote its ids before it
/// asked, none that paused, none that faulted.
fn run(mode: &str) {
    let full = std::env::var_os("NSTREE_WALK_FULL").is_some();
    let s = main_body(mode, full);
    assert_eq!(
        s.fails, 0,
        "{} of {} cases differ (the first ones are printed)",
        s.fails, s.cases
    );
    assert!(s.cases > 0);
    assert!(
        s.deferred > 0 && s.pauses > 0,
        "{mode}: no deferred question or no pause"
    );
    assert!(
        mode != "race" || s.raced > 0,
        "race: no namespace freed or created"
    );
    if mode != "race" {
        assert!(
            s.c_asked > 0 && s.faults > 0,
            "{mode}: no question or no fault"
        );
    }
}

#[test]
fn walk_equals_c_on_every_small_list() {
    run("small");
}

#[test]
fn walk_equals_c_on_random_lists_small_batches() {
    run("medium");
}

#[test]
fn walk_equals_c_around_the_batch_and_limit_boundaries() {
    run("large");
}

#[test]
fn walk_invariants_hold_while_namespaces_change_state() {
    run("race");
}
