//! The one commit step of every kernel: what happens to an event once it can
//! never be undone — the model's commit handler, the LP's history digest,
//! the statistics and the trace for `verify`. The sequential and
//! conservative kernels commit an event right after processing it, the
//! optimistic kernel when GVT passes it; all of them come through here, so
//! a new effect of committing (an output stream, a checkpoint) is added once.

use crate::key::{Key, LpId};
use crate::lp::Lp;
use crate::model::Model;
use crate::stats::PeStats;

/// Commits events of one PE (or of the sequential loop).
pub(crate) struct Committer {
    /// The LP whose committed keys are traced.
    trace_lp: Option<LpId>,
    /// Its committed keys, in commit order.
    pub(crate) trace: Vec<Key>,
}

impl Committer {
    pub(crate) fn new(trace_lp: Option<LpId>) -> Self {
        Committer { trace_lp, trace: Vec::new() }
    }

    /// Commits event `key` of LP `dst` (record `lp`), whose handler sent
    /// `past_end` events past the end time.
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
    ) {
        model.commit(msg, undo, dst, key.time);
        stats.ties += lp.record_commit(key) as u64;
        if self.trace_lp == Some(dst) {
            self.trace.push(*key);
        }
        stats.past_end += past_end as u64;
        stats.committed += 1;
    }
}
