//! Global virtual time among the PEs of one process, without stopping them.
//!
//! A two-phase, counter-based algorithm in the Fujimoto–Hybinette / Mattern
//! family. A PE starts round `r` by bumping `round`. Every PE, at its next
//! scheduler iteration, *enters phase A*: from then on it remembers the
//! smallest key it sends to another PE (`send_min`). Once all PEs are in A,
//! each PE (phase B) drains its incoming rings — every message sent before its
//! sender entered A is visible by then — and reports
//! `min(pending queue, send_min, spilled messages)`. The last reporter takes
//! the minimum and publishes it. Messages sent after their sender entered A
//! are covered by its `send_min`; messages sent before are in some queue at
//! phase B. GVT is a full [`Key`], not just a time, so events tied in
//! timestamp are committed exactly when nothing can precede them any more.

use std::sync::atomic::{AtomicU64, Ordering::*};

use crate::key::Key;

/// A [`Key`] in three atomics, written before a release and read after an acquire.
#[derive(Default)]
struct KeySlot([AtomicU64; 3]);

impl KeySlot {
    fn store(&self, k: Key) {
        self.0[0].store(k.time.to_bits(), Relaxed);
        self.0[1].store(k.age as u64, Relaxed);
        self.0[2].store(k.tie, Relaxed);
    }
    fn load(&self) -> Key {
        Key {
            time: f64::from_bits(self.0[0].load(Relaxed)),
            age: self.0[1].load(Relaxed) as u32,
            tie: self.0[2].load(Relaxed),
        }
    }
}

/// State shared by the PEs of one process.
pub(crate) struct Gvt {
    pes: u64,
    /// Rounds started.
    round: AtomicU64,
    /// Phase-A entries, all rounds together (round r is complete at pes * r).
    a_done: AtomicU64,
    /// Phase-B reports, all rounds together.
    b_done: AtomicU64,
    /// Rounds whose value is published.
    done: AtomicU64,
    slots: Vec<KeySlot>,
    value: KeySlot,
}

/// One PE's part in the rounds.
#[derive(Default)]
pub(crate) struct Participant {
    /// Last round this PE has finished (read the value of).
    finished: u64,
    in_a: bool,
    in_b: bool,
    /// Smallest key sent to another PE since entering phase A.
    pub(crate) send_min: Option<Key>,
}

/// What a PE must do after looking at the GVT state.
pub(crate) enum Step {
    /// Nothing to do now.
    Idle,
    /// Phase B: drain the rings, then call [`Gvt::report`] with the local minimum.
    Report,
    /// A new GVT is known: fossil-collect below it.
    New(Key),
}

impl Gvt {
    pub(crate) fn new(pes: usize) -> Self {
        Gvt {
            pes: pes as u64,
            round: AtomicU64::new(0),
            a_done: AtomicU64::new(0),
            b_done: AtomicU64::new(0),
            done: AtomicU64::new(0),
            slots: (0..pes).map(|_| KeySlot::default()).collect(),
            value: KeySlot::default(),
        }
    }

    /// Asks for a new round unless one is running.
    #[inline]
    pub(crate) fn request(&self) {
        let r = self.round.load(Acquire);
        if self.done.load(Acquire) == r {
            let _ = self.round.compare_exchange(r, r + 1, AcqRel, Relaxed);
        }
    }

    /// Advances `p` through the current round as far as it can go now.
    #[inline]
    pub(crate) fn step(&self, p: &mut Participant) -> Step {
        let cur = p.finished + 1;
        if !p.in_a {
            if self.round.load(Acquire) < cur {
                return Step::Idle;
            }
            p.in_a = true;
            p.send_min = Some(Key::INF);
            self.a_done.fetch_add(1, AcqRel);
        }
        if !p.in_b {
            if self.a_done.load(Acquire) < self.pes * cur {
                return Step::Idle;
            }
            return Step::Report;
        }
        if self.done.load(Acquire) >= cur {
            let v = self.value.load();
            p.finished = cur;
            p.in_a = false;
            p.in_b = false;
            p.send_min = None;
            return Step::New(v);
        }
        Step::Idle
    }

    /// Phase B: publishes PE `pe`'s local minimum; the last reporter publishes GVT.
    pub(crate) fn report(&self, pe: usize, p: &mut Participant, local_min: Key) {
        let cur = p.finished + 1;
        self.slots[pe].store(local_min);
        p.in_b = true;
        if self.b_done.fetch_add(1, AcqRel) + 1 == self.pes * cur {
            let g = self.slots.iter().map(KeySlot::load).min().unwrap_or(Key::INF);
            self.value.store(g);
            self.done.store(cur, Release);
        }
    }

    /// Rounds completed so far.
    pub(crate) fn rounds(&self) -> u64 {
        self.done.load(Acquire)
    }
}

impl Participant {
    /// Notes a message sent to another PE (only matters during a round).
    #[inline]
    pub(crate) fn sent(&mut self, k: Key) {
        if let Some(m) = &mut self.send_min {
            if k < *m {
                *m = k;
            }
        }
    }
}
