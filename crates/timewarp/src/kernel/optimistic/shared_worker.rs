//! GVT rounds on a worker that runs several PEs (`--pes` above `--threads`,
//! fixed scheduling): the worker, not each PE, asks for rounds, and while
//! one is open it takes every PE's step through it at once.
//!
//! A round waits for each PE to enter it and report. Taken at each PE's own
//! turn, a round on one worker running 16 PEs lasted about 90 iterations,
//! so rounds could come no closer than about 1,400 events; and each PE
//! asking after `--gvt-interval` iterations of its own put 16 times as many
//! events between rounds as on a worker of its own. Those events' records,
//! sends and journal entries outgrew the core's cache: on the 1,056-node
//! dragonfly, 1 worker × 16 PEs missed the last-level cache 7.4 times per
//! committed event (a 2 MB one, simulated) where the sequential kernel
//! misses it 0.2 times. Stepping every PE through an open round when the
//! rounds move on, and asking every `--gvt-interval` × ⌈√n⌉ iterations of
//! the worker (`n` PEs: what a round costs grows with them, what it holds
//! with the iterations between), it misses 1.6 times.

use crate::gvt::Gvt;

/// The GVT bookkeeping of a worker that runs several PEs.
pub(super) struct SharedWorker {
    /// Worker iterations between the rounds it asks for.
    every: u64,
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
        (pes > 1).then(|| {
            let root = (1..).find(|r: &u64| r * r >= pes as u64).unwrap_or(1);
            SharedWorker {
                every: (gvt_interval as u64).saturating_mul(root).max(1),
                since: 0,
                rounds: gvt.rounds(),
                seen: None,
            }
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

    /// After an iteration of one of its PEs: asks for a round every `every`.
    #[inline]
    pub(super) fn iterated(&mut self, gvt: &Gvt) {
        let done = gvt.rounds();
        if done != self.rounds {
            (self.rounds, self.since) = (done, 0);
        }
        self.since += 1;
        if self.since >= self.every {
            gvt.request();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worker_asks_for_rounds_by_its_own_iterations() {
        let gvt = Gvt::new(4, 0.0);
        assert!(SharedWorker::new(16, 1, &gvt).is_none());
        // 4 PEs: every 16 × 2 iterations; 5 PEs: 16 × 3.
        assert_eq!(SharedWorker::new(16, 4, &gvt).map(|w| w.every), Some(32));
        assert_eq!(SharedWorker::new(16, 5, &gvt).map(|w| w.every), Some(48));
        let mut w = SharedWorker::new(2, 4, &gvt).expect("several PEs");
        assert!(!gvt.round_open());
        for _ in 0..3 {
            w.iterated(&gvt);
        }
        assert!(!gvt.round_open());
        w.iterated(&gvt);
        assert!(gvt.round_open());
        // A pass is due once per move of the round.
        assert!(w.pass_due(&gvt));
        w.passed(&gvt);
        assert!(!w.pass_due(&gvt));
    }
}
