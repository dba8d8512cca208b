//! Both queues against `std::collections::BinaryHeap` as the oracle.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use proptest::prelude::*;

use super::heap::QuadHeap;
use super::ladder::LadderQueue;
use super::{Entry, PendingQueue};
use crate::key::Key;

/// How far from "now" (the last popped time) a pushed event lands.
#[derive(Clone, Copy, Debug)]
enum Delay {
    /// Same time as now (a zero-delay child).
    Zero,
    /// `k * 1e-6` later.
    Tiny(u32),
    /// Uniform `[0, 1)` later.
    Unit(f64),
    /// `1 + Exp(1)` later.
    Phold(f64),
    /// Up to `1e6` later.
    Huge(f64),
    /// A fraction of now (earlier than now: a rollback re-insert).
    Before(f64),
    /// One of a few fixed absolute times (many equal timestamps).
    Fixed(u8),
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Push(Delay, u32),
    Pop,
    Peek,
}

/// Oracle item: `(time bits, age, tie, handle)`.
type Item = (u64, u32, u64, u32);

fn time_of(d: Delay, now: f64) -> f64 {
    match d {
        Delay::Zero => now,
        Delay::Tiny(k) => now + k as f64 * 1e-6,
        Delay::Unit(u) => now + u,
        Delay::Phold(u) => now + 1.0 - (1.0 - u).ln(),
        Delay::Huge(u) => now + u * 1e6,
        Delay::Before(u) => now * u,
        Delay::Fixed(k) => [0.0, 1.0, 1.5, 2.0, 1e-9, 1e9][k as usize % 6],
    }
}

/// Replays `ops` on `q` and on the oracle; `check` is called after each op.
fn replay<Q: PendingQueue>(q: &mut Q, ops: &[Op], check: impl Fn(&Q)) -> Result<(), TestCaseError> {
    replay_then(q, ops, check, false)
}

/// [`replay`], emptying the queue at the end by `drain_unordered` when `unordered`.
fn replay_then<Q: PendingQueue>(
    q: &mut Q,
    ops: &[Op],
    check: impl Fn(&Q),
    unordered: bool,
) -> Result<(), TestCaseError> {
    let mut oracle: BinaryHeap<Reverse<Item>> = BinaryHeap::new();
    let mut now = 0.0f64;
    let mut tie = 0u64;
    let item = |e: Entry| (e.time.to_bits(), e.age, e.tie, e.item);
    for &op in ops {
        match op {
            Op::Push(d, age) => {
                let t = time_of(d, now);
                tie += 1;
                // Handles differ from ties so a mix-up would show.
                let e = Entry::new(Key { time: t, age, tie: tie.wrapping_mul(0x9E37_79B9) }, tie as u32 ^ 0x55);
                q.push(e);
                oracle.push(Reverse(item(e)));
            }
            Op::Pop => {
                let got = q.pop().map(item);
                let want = oracle.pop().map(|r| r.0);
                prop_assert_eq!(got, want);
                if let Some(w) = want {
                    now = f64::from_bits(w.0);
                }
            }
            Op::Peek => {
                let got = q.peek();
                let want = oracle.peek().map(|r| Key { time: f64::from_bits(r.0 .0), age: r.0 .1, tie: r.0 .2 });
                prop_assert_eq!(got, want);
            }
        }
        prop_assert_eq!(q.len(), oracle.len());
        prop_assert_eq!(q.is_empty(), oracle.is_empty());
        check(q);
    }
    if unordered {
        let mut got = Vec::new();
        q.drain_unordered(|e| got.push(item(e)));
        got.sort_unstable();
        let mut want: Vec<Item> = oracle.into_iter().map(|r| r.0).collect();
        want.sort_unstable();
        prop_assert_eq!(got, want);
        prop_assert_eq!(q.len(), 0);
        prop_assert_eq!(q.pop(), None);
        // The emptied queue works as a new one.
        q.push(Entry::new(Key::at(1.0), 7));
        prop_assert_eq!(q.pop().map(|e| e.item), Some(7));
        return Ok(());
    }
    // Drain what is left.
    while let Some(Reverse(w)) = oracle.pop() {
        prop_assert_eq!(q.pop().map(item), Some(w));
    }
    prop_assert_eq!(q.pop(), None);
    Ok(())
}

fn op(delay: BoxedStrategy<Delay>) -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => (delay, prop_oneof![3 => Just(0u32), 1 => 0u32..4]).prop_map(|(d, a)| Op::Push(d, a)),
        4 => Just(Op::Pop),
        1 => Just(Op::Peek),
    ]
}

fn mixed() -> BoxedStrategy<Delay> {
    prop_oneof![
        Just(Delay::Zero),
        (0u32..1000).prop_map(Delay::Tiny),
        (0.0..1.0f64).prop_map(Delay::Unit),
        (0.0..1.0f64).prop_map(Delay::Phold),
        (0.0..1.0f64).prop_map(Delay::Huge),
        (0.0..1.0f64).prop_map(Delay::Before),
        any::<u8>().prop_map(Delay::Fixed),
    ]
    .boxed()
}

fn equal_times() -> BoxedStrategy<Delay> {
    prop_oneof![4 => Just(Delay::Zero), 4 => (0u8..3).prop_map(Delay::Fixed), 1 => (0u32..3).prop_map(Delay::Tiny)]
        .boxed()
}

fn tiny() -> BoxedStrategy<Delay> {
    prop_oneof![4 => (0u32..50).prop_map(Delay::Tiny), 1 => Just(Delay::Zero)].boxed()
}

fn large_small() -> BoxedStrategy<Delay> {
    prop_oneof![
        3 => (0u32..10).prop_map(Delay::Tiny),
        3 => (0.0..1.0f64).prop_map(Delay::Phold),
        1 => (0.0..1.0f64).prop_map(Delay::Huge),
        1 => Just(Delay::Zero),
    ]
    .boxed()
}

/// Ops with a burst of pushes first, so rungs get built.
fn ops(delay: fn() -> BoxedStrategy<Delay>) -> impl Strategy<Value = Vec<Op>> {
    (prop::collection::vec((delay(), Just(0u32)), 0..400), prop::collection::vec(op(delay()), 0..1500))
        .prop_map(|(pre, rest)| pre.into_iter().map(|(d, a)| Op::Push(d, a)).chain(rest).collect())
}

fn both(ops: &[Op]) -> Result<(), TestCaseError> {
    replay(&mut QuadHeap::default(), ops, |_| ())?;
    replay(&mut LadderQueue::default(), ops, |_| ())?;
    replay_then(&mut QuadHeap::default(), ops, |_| (), true)?;
    replay_then(&mut LadderQueue::default(), ops, |_| (), true)?;
    // Once more with the ladder's structural checks (O(len) each: every
    // third step).
    let countdown = std::cell::Cell::new(0u32);
    replay(&mut LadderQueue::default(), ops, |q| match countdown.get() {
        0 => {
            q.check();
            countdown.set(2);
        }
        n => countdown.set(n - 1),
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn oracle_mixed(ops in ops(mixed)) { both(&ops)?; }

    #[test]
    fn oracle_equal_timestamps(ops in ops(equal_times)) { both(&ops)?; }

    #[test]
    fn oracle_tiny_delays(ops in ops(tiny)) { both(&ops)?; }

    #[test]
    fn oracle_large_and_small_delays(ops in ops(large_small)) { both(&ops)?; }
}

/// SplitMix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Exp(1).
    fn exp(&mut self) -> f64 {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        -(1.0 - u).ln()
    }
}

/// The hold model: `n` pending, `cycles` pop-then-push-later operations.
fn hold<Q: PendingQueue>(n: usize, cycles: usize, inc: impl Fn(&mut Rng) -> f64) -> Vec<Entry> {
    let mut q = Q::default();
    let mut rng = Rng(42);
    let mut tie = 0u64;
    for _ in 0..n {
        q.push(Entry::new(Key { time: rng.exp(), age: 0, tie }, tie as u32));
        tie += 1;
    }
    let mut out = Vec::with_capacity(cycles);
    for _ in 0..cycles {
        let e = q.pop().expect("hold queue never empties");
        if let Some(p) = out.last() {
            assert!(Entry::ord(p) < e.ord(), "pops must increase: {p:?} then {e:?}");
        }
        out.push(e);
        let d = inc(&mut rng);
        let age = if d == 0.0 { e.age + 1 } else { 0 };
        q.push(Entry::new(Key { time: e.time + d, age, tie }, tie as u32));
        tie += 1;
    }
    assert_eq!(q.len(), n);
    out
}

#[test]
fn hold_model_pops_in_order() {
    let (n, cycles) = (10_000, 100_000);
    let phold = |r: &mut Rng| 1.0 + r.exp();
    let a = hold::<QuadHeap>(n, cycles, phold);
    let b = hold::<LadderQueue>(n, cycles, phold);
    assert_eq!(a, b);
    // Small delays with 10% zero delay (equal timestamps).
    let small = |r: &mut Rng| if r.next() < u64::MAX / 10 { 0.0 } else { 1e-3 * r.exp() };
    let a = hold::<QuadHeap>(n, cycles, small);
    let b = hold::<LadderQueue>(n, cycles, small);
    assert_eq!(a, b);
}
