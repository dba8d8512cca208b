//! GVT rounds on a worker that runs several PEs (`--pes` above `--threads`,
//! fixed scheduling): the worker, not each PE, asks for rounds, and while
//! one is open it takes every PE's step through it at once.
//!
//! A round waits for each PE to enter it and report. Taken at each PE's own
//! turn, a round on one worker running 16 PEs lasted about 90 iterations,
//! and each PE asked for one after `--gvt-interval` iterations of its own:
//! about 3,100 events between rounds, 16 times what a PE on a worker of its
//! own runs. Their records, sends, journal entries and queue nodes outgrew
//! the core's cache: on the 1,056-node dragonfly, 1 worker × 16 PEs missed
//! a 2 MB last-level cache (simulated) 7.4 times per committed event where
//! the sequential kernel misses it 0.2 times. Now a pass over the PEs each
//! time the round moves on (a PE entered or reported) ends a round within
//! three passes, and the worker asks for one once its PEs hold
//! [`ROUND_BYTES`] of records (about 1,000 events there: 1.5 misses per
//! event, and fresher safe bounds commit 7.3 % of events as processed,
//! none before) or when none of its PEs can go on, but not before
//! `--gvt-interval` × ⌈√n⌉ iterations (`n` PEs: a round's cost grows with
//! them; sooner, TLM 2-D, whose PEs wait for one another at every step,
//! ran three times the rounds and 6 % more instructions an event), and at
//! the latest every `--gvt-interval` × `n` (what its PEs asked before).

use crate::gvt::Gvt;

/// Bytes of records of processed, uncommitted events a worker's PEs hold
/// before it asks for a round: with their sends, journal entries and
/// queue nodes, a few hundred KB, a share of a core's 1–2 MB cache.
/// (Dragonfly 1,056, 1 × 16 PEs: 64 KB ran twice the rounds for the same
/// time; 256 KB and more held twice the events per round and missed more.)
pub(super) const ROUND_BYTES: usize = 128 << 10;

/// The GVT bookkeeping of a worker that runs several PEs.
pub(super) struct SharedWorker {
    /// Worker iterations between the rounds it asks for, at most.
    every: u64,
    /// ... and at least, when it asks early.
    least: u64,
    /// Per PE: bytes of records it held after its latest iteration.
    held: Vec<usize>,
    /// Their sum.
    total: usize,
    /// Iterations in a row that processed no event.
    stuck: usize,
    /// Iterations since the last round ended.
    since: u64,
    /// Rounds completed, as it last saw them.
    rounds: u64,
    /// Where the rounds stood after its last pass over its PEs.
    seen: Option<(u64, u64, u64)>,
}

impl SharedWorker {
    /// For a worker running `pes` PEs of a run with `gvt_interval`; `None`
    /// for one PE (it asks for its own rounds and steps at each iteration).
    pub(super) fn new(gvt_interval: usize, pes: usize, gvt: &Gvt) -> Option<Self> {
        (pes > 1).then(|| SharedWorker {
            every: (gvt_interval as u64).saturating_mul(pes as u64).max(1),
            least: (gvt_interval as u64).saturating_mul(ceil_sqrt(pes as u64)).max(1),
            held: vec![0; pes],
            total: 0,
            stuck: 0,
            since: 0,
            rounds: gvt.rounds(),
            seen: None,
        })
    }

    /// Whether to step every PE through the open round now: once each time
    /// the round moves on (a PE entered or reported, here or elsewhere).
    #[inline]
    pub(super) fn pass_due(&self, gvt: &Gvt) -> bool {
        gvt.round_open() && self.seen != Some(gvt.progress())
    }

    /// After a pass over its PEs.
    #[inline]
    pub(super) fn passed(&mut self, gvt: &Gvt) {
        self.seen = Some(gvt.progress());
    }

    /// Its `j`-th PE now holds `bytes` of records.
    #[inline]
    pub(super) fn holds(&mut self, j: usize, bytes: usize) {
        self.total = self.total - self.held[j] + bytes;
        self.held[j] = bytes;
    }

    /// After an iteration of one of its `live` PEs, which processed no event
    /// (`stuck`) or some: asks for a round when it is time.
    #[inline]
    pub(super) fn iterated(&mut self, gvt: &Gvt, stuck: bool, live: usize) {
        let done = gvt.rounds();
        if done != self.rounds {
            (self.rounds, self.since) = (done, 0);
        }
        self.since += 1;
        self.stuck = if stuck { self.stuck + 1 } else { 0 };
        let early = self.total >= ROUND_BYTES || self.stuck >= live;
        if self.since >= self.every || (self.since >= self.least && early) {
            gvt.request();
        }
    }
}

/// ⌈√n⌉.
fn ceil_sqrt(n: u64) -> u64 {
    (1..).find(|r| r * r >= n).unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_pe_asks_for_its_own_rounds() {
        assert!(SharedWorker::new(16, 1, &Gvt::new(1, 0.0)).is_none());
    }

    #[test]
    fn a_worker_asks_every_interval_times_its_pes_at_the_latest() {
        let gvt = Gvt::new(4, 0.0);
        let mut w = SharedWorker::new(2, 4, &gvt).expect("several PEs");
        for _ in 0..7 {
            w.iterated(&gvt, false, 4);
        }
        assert!(!gvt.round_open());
        w.iterated(&gvt, false, 4);
        assert!(gvt.round_open());
        // A pass is due once per move of the round.
        assert!(w.pass_due(&gvt));
        w.passed(&gvt);
        assert!(!w.pass_due(&gvt));
    }

    #[test]
    fn held_records_or_stuck_pes_ask_early_but_not_before_the_interval() {
        let gvt = Gvt::new(4, 0.0);
        let mut w = SharedWorker::new(4, 4, &gvt).expect("several PEs");
        w.holds(0, ROUND_BYTES / 2);
        w.holds(1, ROUND_BYTES / 2);
        w.holds(0, ROUND_BYTES / 2 - 1);
        assert_eq!(w.total, ROUND_BYTES - 1);
        w.holds(2, 1);
        // At least 4 × ⌈√4⌉ iterations apart.
        for _ in 0..7 {
            w.iterated(&gvt, false, 4);
        }
        assert!(!gvt.round_open(), "not before 8 iterations");
        w.iterated(&gvt, false, 4);
        assert!(gvt.round_open(), "the records fill the budget");

        let gvt = Gvt::new(4, 0.0);
        let mut w = SharedWorker::new(4, 4, &gvt).expect("several PEs");
        for stuck in [true, true, true, true, true, false, true, true, true] {
            w.iterated(&gvt, stuck, 4);
            assert!(!gvt.round_open(), "some PE went on");
        }
        w.iterated(&gvt, true, 4);
        assert!(gvt.round_open(), "no PE could go on");
    }
}
