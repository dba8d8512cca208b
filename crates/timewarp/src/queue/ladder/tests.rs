//! The ladder queue's own tests: output in key order with its invariants
//! checked, and its tiers' edge cases (one-time bottoms, huge spreads,
//! inserts behind the current position, storage that stops growing). Both
//! queues against `BinaryHeap` are in `queue/tests.rs`.

use super::*;

fn e(time: f64, age: u32, tie: u64) -> Entry {
    Entry { time, tie, age, item: tie as u32 }
}

/// Pops everything, checking order (and invariants now and then).
fn drain(q: &mut LadderQueue) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    let mut countdown = 0;
    while let Some(x) = q.pop() {
        if countdown == 0 {
            q.check();
            countdown = 61;
        }
        countdown -= 1;
        if let Some(p) = out.last() {
            assert!(p.ord() < x.ord(), "{p:?} then {x:?}");
        }
        out.push(x);
    }
    assert!(q.is_empty());
    out
}

fn lcg(x: &mut u64) -> u64 {
    *x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    *x >> 11
}

fn unit(x: &mut u64) -> f64 {
    lcg(x) as f64 / (1u64 << 53) as f64
}

#[test]
fn default_is_empty_and_works() {
    let mut q = LadderQueue::default();
    assert!(q.is_empty());
    assert_eq!(q.peek(), None);
    assert_eq!(q.pop(), None);
    q.push(e(0.0, 0, 1));
    q.push(e(0.0, 0, 0));
    q.check();
    assert_eq!(q.peek(), Some(e(0.0, 0, 0).key()));
    assert_eq!(drain(&mut q), vec![e(0.0, 0, 0), e(0.0, 0, 1)]);
}

#[test]
fn sorted_output_random_times() {
    let mut q = LadderQueue::new();
    let mut x = 7;
    let mut want = Vec::new();
    for i in 0..10_000u64 {
        let v = e(unit(&mut x) * 100.0, 0, i);
        want.push(v);
        q.push(v);
    }
    q.check();
    want.sort_by_key(Entry::ord);
    assert_eq!(q.peek(), Some(want[0].key()));
    assert_eq!(drain(&mut q), want);
}

#[test]
fn all_same_time_zero_delay_chains() {
    // 5000 events at one time; each pop schedules a zero-delay child.
    let mut q = LadderQueue::new();
    for i in 0..5000u64 {
        q.push(e(3.0, 0, i * 7 % 5000));
    }
    let mut last = None::<(u64, u32, u64)>;
    let mut tie = 5000;
    for _ in 0..20_000 {
        let x = q.pop().unwrap();
        assert!(last < Some(x.ord()));
        last = Some(x.ord());
        if x.age < 3 {
            q.push(e(3.0, x.age + 1, tie));
            tie += 1;
        }
    }
    q.check();
    assert!(q.is_empty());
}

#[test]
fn inserts_inside_a_long_one_time_bottom_use_the_overflow_heap() {
    // A TLM step under conservative windows: many pulses at one time
    // (age 0) already in Bottom when pulses from another PE arrive with
    // ties between theirs; each popped pulse schedules its cell's scatter
    // at the same time (age 1) and pulses for the next step. Checked
    // against a sorted set.
    let mut q = LadderQueue::new();
    let mut want = std::collections::BTreeSet::new();
    let mut x = 7u64;
    for i in 0..3000u64 {
        q.push(e(1.0, 0, 2 * i));
        want.insert((1.0f64.to_bits(), 0, 2 * i));
    }
    let mut used_overflow = false;
    let mut tie = 10_000;
    for step in 0..12_000 {
        let Some(got) = q.pop() else { break };
        let w = want.pop_first().unwrap();
        assert_eq!(got.ord(), w);
        if step == 0 {
            for i in 0..2000u64 {
                let k = 2 * (i * 7 % 2000) + 1; // distinct, in scrambled order
                q.push(e(1.0, 0, k));
                want.insert((1.0f64.to_bits(), 0, k));
            }
        }
        if got.age == 0 {
            for (t, age) in [(got.time, 1), (got.time + 1.0, 0)] {
                tie += 1 + lcg(&mut x) % 5;
                let k = if age == 1 { 1_000_000 - tie } else { tie };
                q.push(e(t, age, k));
                want.insert((t.to_bits(), age, k));
            }
        }
        used_overflow |= !q.overflow.is_empty();
        if lcg(&mut x) & 63 == 0 {
            q.check();
        }
    }
    assert!(used_overflow, "the test should exercise the overflow heap");
    while let Some(got) = q.pop() {
        assert_eq!(got.ord(), want.pop_first().unwrap());
    }
    assert!(want.is_empty());
}

#[test]
fn huge_spread_builds_rungs() {
    let mut q = LadderQueue::new();
    let mut x = 99;
    let mut want = Vec::new();
    for i in 0..20_000u64 {
        // Log-uniform over 1e-9 .. 1e9, plus some exact zeros.
        let t = if i % 97 == 0 { 0.0 } else { 10f64.powf(unit(&mut x) * 18.0 - 9.0) };
        let v = e(t, (i % 3) as u32, i);
        want.push(v);
        q.push(v);
    }
    want.sort_by_key(Entry::ord);
    let mut got = Vec::new();
    let mut deepest = 0;
    while let Some(v) = q.pop() {
        deepest = deepest.max(q.rungs());
        got.push(v);
    }
    assert_eq!(got, want);
    assert!(deepest > 1, "expected finer rungs, got {deepest}");
}

#[test]
fn inserts_before_current_position() {
    // Start draining, then insert keys before what Bottom and the rungs
    // hold (including before times already popped).
    let mut q = LadderQueue::new();
    let mut x = 5;
    let mut oracle = std::collections::BTreeSet::new();
    for i in 0..3000u64 {
        let v = e(unit(&mut x) * 10.0, 0, i);
        oracle.insert((v.ord(), v.item));
        q.push(v);
    }
    for round in 0..200u64 {
        for _ in 0..10 {
            let got = q.pop().unwrap();
            let want = oracle.pop_first().unwrap();
            assert_eq!((got.ord(), got.item), want);
        }
        q.check();
        let now = oracle.first().map_or(0.0, |k| f64::from_bits(k.0 .0));
        for j in 0..12u64 {
            let tie = 10_000 + round * 100 + j;
            let t = match j % 4 {
                0 => now * unit(&mut x),        // before the current time
                1 => now,                       // at the current time
                2 => now + unit(&mut x) * 1e-6, // just after
                _ => now + unit(&mut x) * 20.0, // anywhere later
            };
            let v = e(t, (j % 2) as u32, tie);
            oracle.insert((v.ord(), v.item));
            q.push(v);
        }
        q.check();
    }
    let rest: Vec<_> = drain(&mut q).iter().map(|v| (v.ord(), v.item)).collect();
    assert_eq!(rest, oracle.into_iter().collect::<Vec<_>>());
}

#[test]
fn empty_refill_cycles() {
    let mut q = LadderQueue::new();
    let mut x = 3;
    let mut tie = 0;
    let mut base = 0.0;
    for cycle in 0..50 {
        let n = [1, 2, 60, 500, 3000][cycle % 5];
        let mut want = Vec::new();
        for _ in 0..n {
            let t = if cycle % 7 == 0 { base } else { base + unit(&mut x) * 5.0 };
            let v = e(t, 0, tie);
            tie += 1;
            want.push(v);
            q.push(v);
        }
        want.sort_by_key(Entry::ord);
        assert_eq!(drain(&mut q), want);
        // Sometimes restart from earlier times (as after a rollback).
        base = if cycle % 3 == 0 { 0.0 } else { base + 5.0 };
    }
}

#[test]
fn bottom_grown_by_inserts_becomes_rung() {
    // Keys that all land in Bottom (below every rung) force a conversion.
    let mut q = LadderQueue::new();
    for i in 0..100u64 {
        q.push(e(100.0 + i as f64, 0, i));
    }
    assert_eq!(q.pop().unwrap().tie, 0);
    let mut x = 11;
    for i in 0..1000u64 {
        q.push(e(100.0 + unit(&mut x), 0, 1000 + i));
        q.check();
    }
    assert!(q.rungs() >= 1);
    let out = drain(&mut q);
    assert_eq!(out.len(), 1099);
}

#[test]
fn steady_state_does_not_grow_storage() {
    // Hold model: after warm-up, capacities stay put.
    let mut q = LadderQueue::new();
    let mut x = 17;
    let mut tie = 0u64;
    for _ in 0..2000 {
        q.push(e(unit(&mut x) * 2.0, 0, tie));
        tie += 1;
    }
    let cap = |q: &LadderQueue| {
        q.top.capacity()
            + q.bottom.capacity()
            + q.spill.capacity()
            + q.pool.nodes.capacity()
            + q.rungs.iter().map(|r| r.heads.capacity()).sum::<usize>()
    };
    let mut hold = |q: &mut LadderQueue, n: usize| {
        for _ in 0..n {
            let v = q.pop().unwrap();
            let inc = 1.0 - unit(&mut x).ln();
            q.push(e(v.time + inc, 0, tie));
            tie += 1;
        }
    };
    // Warm up: capacities creep up to the largest sizes seen, then stop.
    hold(&mut q, 1_000_000);
    let c1 = cap(&q);
    hold(&mut q, 400_000);
    let c2 = cap(&q);
    assert!(c2 <= c1 + c1 / 50, "{c1} -> {c2}");
}
