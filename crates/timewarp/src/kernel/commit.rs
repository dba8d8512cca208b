//! The one commit step of every kernel: what happens to an event once it can
//! never be undone — the model's commit handler, the LP's history digest,
//! the statistics and the trace for `verify`. The sequential and
//! conservative kernels commit an event right after processing it, the
//! optimistic kernel when GVT passes it; all of them come through here, so
//! a new effect of committing (an output stream, a checkpoint) is added once.

use crate::error::Error;
use crate::event::Event;
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
        self.advance(dst, key)
    }

    /// Counts one more committed event, `key` of LP `dst`, towards the
    /// events in a row at one time.
    #[inline(always)]
    fn advance(&mut self, dst: LpId, key: &Key) -> Result<(), Error> {
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

    /// Commits the processed events `done` of an optimistic KP, in key
    /// order, whose LPs took them into their history as they were
    /// processed ([`Lp::record_commit`], undone by a rollback), as were
    /// the statistics of ties and of sends past the end. So only the model's
    /// commit handler looks at each event, and the default one, which does
    /// nothing, leaves the loop empty: the records are not read again (on a
    /// 1,056-node dragonfly on 16 PEs, reading them back missed the cache
    /// about 1.6 times an event). The events in a row at one time are
    /// counted from their keys' first and last runs.
    #[inline(always)]
    pub(crate) fn commit_processed<M: Model>(
        &mut self,
        model: &M,
        done: &[Event<M::Msg, M::Undo>],
        stats: &mut PeStats,
    ) -> Result<(), Error> {
        let (Some(first), Some(last)) = (done.first(), done.last()) else { return Ok(()) };
        for e in done {
            model.commit(&e.msg, &e.undo, e.dst, e.key.time);
        }
        if let Some(lp) = self.trace_lp {
            self.trace.extend(done.iter().filter(|e| e.dst == lp).map(|e| e.key));
        }
        let n = done.len() as u64;
        stats.committed += n;
        if n >= self.limit {
            // A run inside may reach the limit: count event by event (rare).
            let mut error = Ok(());
            for e in done {
                if let (Err(x), Ok(())) = (self.advance(e.dst, &e.key), &error) {
                    error = Err(x);
                }
            }
            return error;
        }
        // Keys in order: the events at one time are together, and only the
        // first run, which may go on from the last commit, can be as long
        // as the limit (any other is shorter than `done`).
        let carried = if first.key.time == self.at { self.run } else { 0 };
        let head = done.partition_point(|e| e.key.time == first.key.time) as u64;
        let mut error = Ok(());
        // As `advance` counts: the event that makes the run `limit` long,
        // and never the first of a run.
        let limit = self.limit.max(2);
        if carried + head >= limit {
            let i = (limit - 1).saturating_sub(carried);
            let e = &done[i as usize];
            error = Err(Error::Stalled { lp: e.dst, src: e.key.src(), time: e.key.time, events: carried + i + 1 });
        }
        if head == n {
            (self.at, self.run) = (first.key.time, carried + n);
        } else {
            let tail = n - done.partition_point(|e| e.key.time < last.key.time) as u64;
            (self.at, self.run) = (last.key.time, tail);
        }
        error
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Ctx;

    struct Nil;
    impl Model for Nil {
        type State = ();
        type Msg = ();
        type Undo = ();
        type Results = ();
        fn name(&self) -> &str {
            "nil"
        }
        fn num_lps(&self) -> u32 {
            1
        }
        fn init(&self, _: LpId, _: &mut Ctx<'_, Self>) {}
        fn forward(&self, _: &mut (), _: &(), _: &mut (), _: &mut Ctx<'_, Self>) {}
    }

    #[test]
    fn committing_a_slice_stops_where_event_by_event_would() {
        // Key order with long runs at one time, committed in slices of
        // random length: the first error and the count carried on must be
        // those of committing one event at a time.
        let mut x = 7u64;
        let mut rand = |n: u64| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) % n
        };
        for limit in [1, 2, 3, 5, 17, 40] {
            for round in 0..50 {
                let (mut t, mut events) = (0.0, Vec::new());
                for i in 0..400u64 {
                    if rand(4 + round % 20) == 0 {
                        t += 1.0;
                    }
                    events.push(Event::<(), ()>::new(Key::new(t, 0, i as u32, 0), (i % 5) as u32, 0, ()));
                }
                let cfg = crate::Config { max_events_at_one_time: limit, ..crate::Config::default() };
                let (mut one, mut slices) = (Committer::new(&cfg), Committer::new(&cfg));
                let (mut by_one, mut by_slice) = (None, None);
                let mut stats = PeStats::default();
                for e in &events {
                    if let (Err(err), None) = (one.advance(e.dst, &e.key), &by_one) {
                        by_one = Some(err.to_string());
                    }
                }
                let mut end = 0;
                while end < events.len() {
                    let done = &events[end..(end + 1 + rand(60) as usize).min(events.len())];
                    end += done.len();
                    if let (Err(err), None) = (slices.commit_processed(&Nil, done, &mut stats), &by_slice) {
                        by_slice = Some(err.to_string());
                    }
                    // The run carried on: the events up to `end` at the last one's time.
                    let t = events[end - 1].key.time;
                    let run = events[..end].iter().rev().take_while(|e| e.key.time == t).count() as u64;
                    assert_eq!((slices.at, slices.run), (t, run));
                }
                assert_eq!(by_slice, by_one, "limit {limit}, round {round}");
                assert_eq!(stats.committed, 400);
            }
        }
    }
}
