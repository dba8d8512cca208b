//! The one commit step of every kernel: what happens to an event once it can
//! never be undone — the model's commit handler, the LP's history digest,
//! the statistics and the trace for `verify`. The sequential and
//! conservative kernels commit an event right after processing it, the
//! optimistic kernel when GVT passes it; all of them come through here, so
//! a new effect of committing (an output stream, a checkpoint) is added once.

use crate::error::Error;
use crate::key::{Key, LpId};
use crate::lp::Lp;
use crate::model::Model;
use crate::stats::PeStats;

/// Commits events of one PE (or of the sequential loop).
#[derive(Default)]
pub(crate) struct Committer {
    /// The LP whose committed keys are traced.
    trace_lp: Option<LpId>,
    /// Its committed keys, in commit order.
    pub(crate) trace: Vec<Key>,
    /// Most events in a row at one virtual time before the run counts as
    /// one that cannot advance (`Config::max_events_at_one_time`).
    limit: u64,
    /// The time of the last committed event and how many in a row had it.
    at: f64,
    run: u64,
}

impl Committer {
    pub(crate) fn new(cfg: &crate::Config) -> Self {
        let limit = if cfg.max_events_at_one_time == 0 { u64::MAX } else { cfg.max_events_at_one_time };
        Committer { trace_lp: cfg.trace_lp, trace: Vec::new(), limit, at: f64::NAN, run: 0 }
    }

    /// Commits event `key` of LP `dst` (record `lp`), whose handler sent
    /// `past_end` events past the end time. The event is committed either
    /// way; the error says that too many events in a row had its time (a
    /// run whose virtual time stopped advancing).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn commit<M: Model>(
        &mut self,
        model: &M,
        lp: &mut Lp<M::State>,
        dst: LpId,
        key: &Key,
        msg: &M::Msg,
        undo: &M::Undo,
        past_end: u32,
        stats: &mut PeStats,
    ) -> Result<(), Error> {
        model.commit(msg, undo, dst, key.time);
        stats.ties += lp.record_commit(key) as u64;
        if self.trace_lp == Some(dst) {
            self.trace.push(*key);
        }
        stats.past_end += past_end as u64;
        stats.committed += 1;
        if key.time == self.at {
            self.run += 1;
            if self.run >= self.limit {
                return Err(Error::Stalled { lp: dst, src: key.src(), time: key.time, events: self.run });
            }
        } else {
            self.at = key.time;
            self.run = 1;
        }
        Ok(())
    }
}
