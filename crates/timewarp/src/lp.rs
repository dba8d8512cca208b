//! Per-LP records: model state, send counter, random stream counters, and the
//! committed-history digest that `verify` compares across modes.

use crate::digest::{fold_event, hash_value, unfold_event, LpDigest};
use crate::key::Key;
use crate::model::MAX_STREAMS;
use serde::{Deserialize, Serialize};

/// One logical process as the kernel stores it (and a checkpoint keeps it). The engine's fields come
/// first, in one cache line, and the model's state right after them, so
/// that a large state's leading fields share lines with them (left to
/// itself the compiler may put a large state first and the engine's fields
/// a dozen lines away: one more cache miss per event).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[repr(C)]
pub(crate) struct Lp<S> {
    /// Draw counters of the LP's random streams.
    pub counters: [u64; MAX_STREAMS as usize],
    /// Running hash of committed events.
    pub history: u64,
    /// Committed events.
    pub committed: u64,
    /// Timestamp of the last committed event (for `timestamp_ties`).
    pub last_time: f64,
    /// Send counter: the second half of the tie-breaker of every event sent.
    pub seq: u32,
    /// The model's state.
    pub state: S,
}

impl<S: Serialize> Lp<S> {
    /// A fresh LP record around `state`.
    pub(crate) fn new(state: S, seq: u32, counters: [u64; MAX_STREAMS as usize]) -> Self {
        Lp { state, seq, counters, history: 0, committed: 0, last_time: -1.0 }
    }

    /// Records a committed event; returns true when its timestamp ties with
    /// the previous committed event of this LP.
    #[inline]
    pub(crate) fn record_commit(&mut self, key: &Key) -> bool {
        self.history = fold_event(self.history, key);
        self.committed += 1;
        let tie = key.time == self.last_time;
        self.last_time = key.time;
        tie
    }

    /// Takes back [`record_commit`](Self::record_commit) of its newest
    /// event `key` (the optimistic kernel records an event as it processes
    /// it, and undoes it here if the event is undone); `previous`: the
    /// time of the LP's event before it, as `last_time` was. Returns
    /// whether `key` had been counted as a tie.
    #[inline]
    pub(crate) fn unrecord(&mut self, key: &Key, previous: f64) -> bool {
        self.history = unfold_event(self.history, key);
        self.committed -= 1;
        self.last_time = previous;
        key.time == previous
    }

    /// This LP's contribution to the run digest.
    pub(crate) fn digest(&self) -> LpDigest {
        LpDigest { history: self.history, committed: self.committed, state: hash_value(&self.state) }
    }
}
