//! The classic hold model on both pending queues.
//!
//! A hold operation pops the minimum and pushes it back at `time + increment`
//! (keys made unique by a counter). Sizes 10^3 .. 10^7, three increment laws:
//! `phold` = `1 + Exp(1)`, `small` = `Exp(mean 1e-3)`, `zero10` = `1 + Exp(1)`
//! with 10% zero delays (equal timestamps, next age). Throughput is in hold
//! operations. Run: `cargo bench --bench queues -- --noplot`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use timewarp::queue::{heap::QuadHeap, ladder::LadderQueue, Entry, PendingQueue};
use timewarp::Key;

/// Hold operations per timed iteration.
const BATCH: u64 = 1000;

/// SplitMix64.
struct Rng(u64);

impl Rng {
    #[inline]
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Exp(1).
    #[inline]
    fn exp(&mut self) -> f64 {
        let u = (self.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
        -(1.0 - u).ln()
    }
}

#[derive(Clone, Copy)]
enum Law {
    Phold,
    Small,
    Zero10,
}

impl Law {
    fn name(self) -> &'static str {
        match self {
            Law::Phold => "phold",
            Law::Small => "small",
            Law::Zero10 => "zero10",
        }
    }

    #[inline]
    fn inc(self, r: &mut Rng) -> f64 {
        match self {
            Law::Phold => 1.0 + r.exp(),
            Law::Small => 1e-3 * r.exp(),
            Law::Zero10 => {
                if r.next() < u64::MAX / 10 {
                    0.0
                } else {
                    1.0 + r.exp()
                }
            }
        }
    }
}

/// A queue in the hold model's steady state.
struct Hold<Q> {
    q: Q,
    rng: Rng,
    tie: u64,
    law: Law,
}

impl<Q: PendingQueue> Hold<Q> {
    fn new(n: usize, law: Law) -> Self {
        let mut h = Hold { q: Q::default(), rng: Rng(0x5EED), tie: 0, law };
        for _ in 0..n {
            let t = law.inc(&mut h.rng);
            h.push(t, 0);
        }
        // Let the time distribution settle before timing.
        for _ in 0..n.min(1_000_000) {
            h.hold();
        }
        h
    }

    #[inline]
    fn push(&mut self, time: f64, age: u32) {
        let tie = self.tie;
        self.tie += 1;
        self.q.push(Entry::new(Key { time, age, tie }, tie as u32));
    }

    #[inline]
    fn hold(&mut self) {
        let e = self.q.pop().expect("hold queue never empties");
        let d = self.law.inc(&mut self.rng);
        let age = if d == 0.0 { e.age + 1 } else { 0 };
        self.push(e.time + d, age);
    }
}

fn bench_size(c: &mut Criterion, n: usize) {
    for law in [Law::Phold, Law::Small, Law::Zero10] {
        let mut g = c.benchmark_group(format!("hold/{}", law.name()));
        g.throughput(Throughput::Elements(BATCH));
        g.sample_size(10);
        g.warm_up_time(Duration::from_secs(1));
        g.measurement_time(Duration::from_secs(if n >= 10_000_000 { 2 } else { 3 }));
        run::<QuadHeap>(&mut g, "heap", n, law);
        run::<LadderQueue>(&mut g, "ladder", n, law);
        g.finish();
    }
}

fn run<Q: PendingQueue>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    n: usize,
    law: Law,
) {
    // Built once: criterion calls the closure for every sample, and the
    // state carries on from one sample to the next.
    let mut h = Hold::<Q>::new(n, law);
    g.bench_function(BenchmarkId::new(name, n), |b| {
        b.iter(|| {
            for _ in 0..BATCH {
                h.hold();
            }
            black_box(h.q.len())
        })
    });
}

fn queues(c: &mut Criterion) {
    for n in [1_000, 10_000, 100_000, 1_000_000, 10_000_000] {
        bench_size(c, n);
    }
}

criterion_group!(benches, queues);
criterion_main!(benches);
