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
//! phase B — except those still spilled at the sender (their ring was full),
//! which may reach the ring after the receiver reported: entering A puts
//! them into `send_min` too. GVT is a full [`Key`], not just a time, so events tied in
//! timestamp are committed exactly when nothing can precede them any more.
//!
//! Within one process each PE also gets its own **commit horizon**, at least
//! GVT: no event can reach PE `j` any more below the minimum of what is in
//! transit, its own pending events, and, for every other PE `i`, its pending
//! minimum moved on by the model's lookahead `L` (every send to another LP
//! is at least `L` later than the event that sends it, and a PE processes
//! nothing below its pending minimum). Where many events tie at one time
//! (a TLM step), GVT, a key, passes the ties of PE `j` only after PE `i` has
//! finished its own (ties are ordered by sender); the horizon lets `j`
//! commit its step at once when `L > 0`.
//!
//! Each PE `j` also gets a **safe bound**: no event of another PE, and no
//! cancellation, can reach it below the minimum of what is in transit,
//! every other PE's pending minimum moved on by `L`, and its own moved on
//! by `2L` (to another PE and back). An event `j` processes below it can
//! never be rolled back, so it is committed as it is processed, with no
//! record (see `kernel::optimistic::pe::batch`). Proof sketch: every future
//! event of PE `i` is at least `min(P_i, R_i)` (its pending minimum, or an
//! arrival, which is at least its own bound `R_i`), so what it sends is at
//! least `L` later, which is at least `R_j`; an event cancelled later was
//! sent by an event rolled back later, itself above `min(P_i, R_i)`, so the
//! cancelled one is above `R_j` too. With one PE nothing can reach it: its
//! bound is infinite.
//!
//! Across processes (MPI) the same round gains two gates, kept by the
//! process' network and reached through the [`Network`](crate::transport::Network) the PEs use, as [`Gated`] (see
//! [`mattern`](crate::transport::mattern)): phase B waits until every message sent to this process
//! before its senders entered phase A has arrived (Mattern's white-message
//! count), and the process minimum goes to an all-gather instead of being
//! published at once. A single process' network opens every gate and
//! publishes here, at no cost.

use crate::key::Key;
use crate::segment::Control;
// std's atomics, or loom's under `--cfg loom` (see `crate::sync`).
use crate::sync::{AtomicU64, Ordering::*};

/// What a GVT round needs of the process' network: the two gates of a
/// round across processes. Defined here, and extended by
/// [`Network`](crate::transport::Network), so the round depends on no
/// transport.
pub(crate) trait Gated {
    /// False for a single process, so its branches compile away.
    const ACTIVE: bool;

    /// Whether the PEs may report for GVT round `round` (every white record
    /// sent to this process has arrived).
    fn gate_open(&self, round: u64) -> bool;

    /// Every PE of this process reported for `round`: `min` is the process
    /// minimum, for the round across processes.
    fn process_min(&self, round: u64, min: Key);
}

/// A [`Key`] in three atomics, written before a release and read after an acquire.
#[derive(Default)]
pub(crate) struct KeySlot([AtomicU64; 3]);

impl KeySlot {
    pub(crate) fn store(&self, k: Key) {
        self.0[0].store(k.time.to_bits(), Relaxed);
        self.0[1].store(k.age as u64, Relaxed);
        self.0[2].store(k.tie, Relaxed);
    }
    pub(crate) fn load(&self) -> Key {
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
    /// Per PE: smallest pending key.
    slots: Vec<KeySlot>,
    /// Per PE: smallest key sent during the round or still spilled.
    transit: Vec<KeySlot>,
    /// Per PE: commit horizon of the last round (single process only).
    horizons: Vec<KeySlot>,
    /// Per PE: safe bound of the last round (single process only).
    safe: Vec<KeySlot>,
    /// The model's lookahead: no send to another LP is sooner.
    lookahead: f64,
    value: KeySlot,
    /// No PE processes an event at or past this time (bits of an f64): the
    /// segment's pause, or, while pausing on request is possible, a gate
    /// the last reporter of each round moves on unless a pause was asked
    /// for (see [`Gvt::pausable`]). It only grows, so a PE that reads an
    /// old value stops early, never late.
    gate: AtomicU64,
    /// How the gate moves when the run may be asked to pause.
    pausable: Option<Pausable>,
    /// Per PE: the latest time it processed, as of its last report (f64 bits).
    lvt: Vec<AtomicU64>,
}

/// A single-process run that a [`Control`] may ask to pause.
struct Pausable {
    control: Control,
    pause: f64,
    start: f64,
    end: f64,
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
    /// A round started: do what must precede phase A, then call [`Gvt::enter`].
    Enter,
    /// Phase B: drain the rings, then call [`Gvt::report`] with the local minimum.
    Report,
    /// A new GVT is known: fossil-collect below it.
    New(Key),
}

impl Gvt {
    /// Rounds among `pes` PEs of a model whose sends to other LPs are at
    /// least `lookahead` later than the event sending them.
    pub(crate) fn new(pes: usize, lookahead: f64) -> Self {
        Gvt {
            pes: pes as u64,
            round: AtomicU64::new(0),
            a_done: AtomicU64::new(0),
            b_done: AtomicU64::new(0),
            done: AtomicU64::new(0),
            slots: (0..pes).map(|_| KeySlot::default()).collect(),
            transit: (0..pes).map(|_| KeySlot::default()).collect(),
            horizons: (0..pes).map(|_| KeySlot::default()).collect(),
            safe: (0..pes).map(|_| KeySlot::default()).collect(),
            lookahead,
            value: KeySlot::default(),
            gate: AtomicU64::new(f64::INFINITY.to_bits()),
            pausable: None,
            lvt: (0..pes).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// PEs process no event at or past `pause`; if `control` is given (a
    /// single process), they can also pause on request: the gate then starts
    /// just past `start` and follows GVT at twice the distance PEs
    /// speculate ahead of it, so a request stops the run soon after.
    pub(crate) fn pausing(mut self, pause: f64, control: Option<&Control>, start: f64, end: f64) -> Self {
        let gate = match control {
            Some(c) => {
                self.pausable = Some(Pausable { control: c.clone(), pause, start, end });
                // Not a share of `end`: with `--end 1e15` that would lie past
                // every event of a run that ends on its own, and a request
                // would never stop it. The first round moves it on.
                pause.min(next_up(start))
            }
            None => pause,
        };
        self.gate.store(gate.to_bits(), Relaxed);
        self
    }

    /// Events at or past this time are not processed now (see `gate`).
    #[inline]
    pub(crate) fn gate(&self) -> f64 {
        f64::from_bits(self.gate.load(Relaxed))
    }

    /// After round value `g`: moves the gate on unless a pause was asked for.
    fn move_gate(&self, g: Key) {
        let Some(p) = &self.pausable else { return };
        if p.control.requested() || g == Key::INF {
            return;
        }
        let lvt = self.lvt.iter().map(|a| f64::from_bits(a.load(Relaxed))).fold(g.time, f64::max);
        // At least a little ahead even when no PE speculates: a share of
        // what is left (short runs) or of the way come so far (`--end 1e15`:
        // the gate then grows geometrically, a few hundred rounds from the
        // first event to any time, and a request overshoots by ~3 %).
        let floor = ((p.end - g.time) / 1024.0).min((g.time - p.start) / 32.0);
        let lead = (2.0 * (lvt - g.time)).max(floor);
        // Strictly past GVT, or every PE would take this round for a pause.
        let gate = self.gate().max(p.pause.min((g.time + lead).max(next_up(g.time))));
        self.gate.store(gate.to_bits(), Relaxed);
    }

    /// Asks for a new round unless one is running.
    #[inline]
    pub(crate) fn request(&self) {
        let r = self.round.load(Acquire);
        if self.done.load(Acquire) == r {
            let _ = self.round.compare_exchange(r, r + 1, AcqRel, Relaxed);
        }
    }

    /// Advances `p` through the current round as far as it can go now
    /// (`net` opens the gate of phase B).
    #[inline]
    pub(crate) fn step<N: Gated>(&self, p: &mut Participant, net: &N) -> Step {
        let cur = p.finished + 1;
        if !p.in_a {
            if self.round.load(Acquire) < cur {
                return Step::Idle;
            }
            return Step::Enter;
        }
        if !p.in_b {
            if self.a_done.load(Acquire) < self.pes * cur || (N::ACTIVE && !net.gate_open(cur)) {
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

    /// Phase A: from now on `p` remembers the smallest key it sends.
    pub(crate) fn enter(&self, p: &mut Participant) {
        p.in_a = true;
        p.send_min = Some(Key::INF);
        self.a_done.fetch_add(1, AcqRel);
    }

    /// Phase B: publishes PE `pe`'s smallest pending key and smallest key in
    /// transit; the last reporter publishes GVT and every PE's horizon (or,
    /// across processes, hands the process minimum to `net`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn report<N: Gated>(
        &self,
        pe: usize,
        p: &mut Participant,
        pending: Key,
        transit: Key,
        lvt: f64,
        net: &N,
    ) {
        let cur = p.finished + 1;
        self.lvt[pe].store(lvt.to_bits(), Relaxed);
        self.slots[pe].store(pending);
        self.transit[pe].store(transit);
        p.in_b = true;
        if self.b_done.fetch_add(1, AcqRel) + 1 == self.pes * cur {
            let pending: Vec<Key> = self.slots.iter().map(KeySlot::load).collect();
            let transit = self.transit.iter().map(KeySlot::load).min().unwrap_or(Key::INF);
            let g = pending.iter().copied().min().unwrap_or(Key::INF).min(transit);
            if N::ACTIVE {
                net.process_min(cur, g);
            } else {
                for (pe, (h, safe)) in horizons(&pending, transit, self.lookahead).into_iter().enumerate() {
                    self.horizons[pe].store(h);
                    self.safe[pe].store(safe);
                }
                // Before publishing: every PE reads the gate of this round with its value.
                self.move_gate(g);
                self.publish(cur, g);
            }
        }
    }

    /// Commit horizon of PE `pe` in the last round (at least its GVT; in a
    /// single process only: across processes it is GVT).
    pub(crate) fn horizon(&self, pe: usize) -> Key {
        self.horizons[pe].load()
    }

    /// Safe bound of PE `pe` in the last round (at least its horizon; in a
    /// single process only): an event it processes below it is final.
    pub(crate) fn safe(&self, pe: usize) -> Key {
        self.safe[pe].load()
    }

    /// Publishes `g` as the GVT of round `cur`.
    pub(crate) fn publish(&self, cur: u64, g: Key) {
        self.value.store(g);
        self.done.store(cur, Release);
    }

    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    /// True once every PE of this process is in phase A of round `cur`.
    pub(crate) fn all_entered(&self, cur: u64) -> bool {
        self.round.load(Acquire) >= cur && self.a_done.load(Acquire) >= self.pes * cur
    }

    /// True while a round has started and its value is not published yet:
    /// every PE of the process must step through it before GVT moves.
    #[inline]
    pub(crate) fn round_open(&self) -> bool {
        self.done.load(Acquire) < self.round.load(Acquire)
    }

    /// Where the rounds stand: changes whenever a round starts, a PE
    /// enters or reports, or a value is published.
    #[inline]
    pub(crate) fn progress(&self) -> (u64, u64, u64) {
        (self.round.load(Acquire), self.a_done.load(Acquire), self.b_done.load(Acquire))
    }

    /// Rounds completed so far.
    pub(crate) fn rounds(&self) -> u64 {
        self.done.load(Acquire)
    }

    /// The model's lookahead (no send to another LP is sooner).
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn lookahead(&self) -> f64 {
        self.lookahead
    }

    /// The time of the latest published GVT (0 before the first; read
    /// without ordering: for estimates, such as the courier's pace).
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn time(&self) -> f64 {
        self.value.load().time
    }
}

/// Every PE's commit horizon and safe bound. The horizon: the smallest of
/// `transit`, its own pending minimum, and every other PE's pending minimum
/// moved on by `lookahead`. The safe bound: the same with its own pending
/// minimum moved on twice (what it sends another PE may send it back).
fn horizons(pending: &[Key], transit: Key, lookahead: f64) -> Vec<(Key, Key)> {
    // What PE i may still send to another PE: nothing below this.
    let reach = |k: Key| if lookahead > 0.0 && k != Key::INF { k.max(Key::at(k.time + lookahead)) } else { k };
    // The smallest and second smallest reach, for "every other PE".
    let (mut first, mut second) = ((Key::INF, usize::MAX), Key::INF);
    for (i, &k) in pending.iter().enumerate() {
        let r = reach(k);
        if r < first.0 {
            second = first.0;
            first = (r, i);
        } else if r < second {
            second = r;
        }
    }
    let alone = pending.len() == 1;
    pending
        .iter()
        .enumerate()
        .map(|(j, &own)| {
            let others = if j == first.1 { second } else { first.0 };
            let back = if alone { Key::INF } else { reach(reach(own)) };
            (transit.min(own).min(others), transit.min(back).min(others))
        })
        .collect()
}

impl Participant {
    /// The round this PE takes part in next (or now).
    #[inline]
    pub(crate) fn current(&self) -> u64 {
        self.finished + 1
    }

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

/// The smallest f64 above `x` (a time: finite, not NaN; `f64::next_up`
/// needs Rust 1.86).
fn next_up(x: f64) -> f64 {
    if x == 0.0 {
        return f64::from_bits(1);
    }
    let bits = x.to_bits();
    f64::from_bits(if x > 0.0 { bits + 1 } else { bits - 1 })
}

#[cfg(test)]
mod tests;

/// Model-checked (`scripts/loom.sh`): a GVT round among PEs on their own
/// threads that process events and send each other messages meanwhile,
/// under every interleaving and every outcome the orderings allow (up to
/// `LOOM_MAX_PREEMPTIONS` forced switches), on loom's atomics and a loom
/// model of the rings (`crate::sync`).
#[cfg(all(test, loom))]
mod loom_tests;
