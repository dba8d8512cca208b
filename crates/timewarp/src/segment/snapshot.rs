//! A consistent cut of a run: every LP's record and every pending event.

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::key::{Key, LpId};
use crate::lp::Lp;
use crate::model::Model;
use crate::stats::Stats;

/// An event not yet processed at the cut.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(crate) struct Pending<Msg> {
    pub(crate) dst: LpId,
    pub(crate) key: Key,
    pub(crate) msg: Msg,
}

/// The state of a run at a cut: every event below the cut time ([`Snapshot::time`]) is
/// committed and none at or after it processed. Kernels take one at the
/// start of a segment and hand one back when they pause; a checkpoint file
/// holds one.
pub struct Snapshot<M: Model> {
    /// GVT at the cut: the smallest pending key.
    pub(crate) cut: Key,
    /// Every LP's record, index = LP id.
    pub(crate) lps: Vec<Lp<M::State>>,
    /// Every pending event, in no particular order.
    pub(crate) events: Vec<Pending<M::Msg>>,
    /// Statistics of the run up to the cut (counters summed over its segments).
    pub(crate) stats: Stats,
}

impl<M: Model> std::fmt::Debug for Snapshot<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("cut", &self.cut)
            .field("lps", &self.lps.len())
            .field("events", &self.events.len())
            .finish()
    }
}

impl<M: Model> Snapshot<M> {
    /// Builds a snapshot from LP records in any order (each id once) and
    /// pending events; the cut is the smallest pending key.
    pub(crate) fn assemble(mut lps: Vec<(LpId, Lp<M::State>)>, events: Vec<Pending<M::Msg>>, stats: Stats) -> Self {
        lps.sort_by_key(|x| x.0); // runs already in order (block mapping) cost one pass
        let cut = events.iter().map(|e| e.key).min().unwrap_or(Key::INF);
        Snapshot { cut, lps: lps.into_iter().map(|x| x.1).collect(), events, stats }
    }

    /// Virtual time of the cut (GVT when it was taken).
    pub fn time(&self) -> f64 {
        self.cut.time
    }

    /// Number of pending events.
    pub fn pending_events(&self) -> usize {
        self.events.len()
    }

    /// Events committed before the cut.
    pub fn committed_events(&self) -> u64 {
        self.stats.committed_events
    }

    /// Statistics of the run up to the cut.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Checks that this snapshot can start a run of `model` with `num_lps` LPs.
    pub(crate) fn fits(&self, model: &M, num_lps: u32) -> Result<(), Error> {
        if self.lps.len() != num_lps as usize {
            return Err(Error::Config(format!(
                "the snapshot holds {} LPs but model {} has {num_lps}; resume with the parameters it was taken with",
                self.lps.len(),
                model.name()
            )));
        }
        if let Some(e) = self.events.iter().find(|e| e.dst >= num_lps) {
            return Err(Error::Config(format!("the snapshot holds an event for LP {}, beyond the model's LPs", e.dst)));
        }
        Ok(())
    }

    /// Drops the pending events at or after `end` (a resume with an
    /// earlier end time); returns how many.
    pub(crate) fn truncate(&mut self, end: f64) -> u64 {
        let before = self.events.len();
        self.events.retain(|e| e.key.time < end);
        (before - self.events.len()) as u64
    }
}
