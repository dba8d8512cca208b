//! Rollback: a PE undoes, newest first, the processed events of a KP from
//! a key on — model state (reverse handler, saved state or journal),
//! random streams, send counter — cancels what they sent, and puts them
//! back in its pending queue.

use crate::error::Error;
use crate::event::{Event, Queued};
use crate::key::Key;
use crate::mapping::Place;
use crate::model::{Model, Rollback};
use crate::queue::{Entry, PendingQueue};
use crate::timeline::{SpanKind, Trace};

use super::{k3, Pe, WIDE};
use crate::transport::Network;

impl<M: Model, Q: PendingQueue<Queued<M::Msg>>, N: Network, P: Place> Pe<'_, M, Q, N, P> {
    /// Undoes, newest first, every processed event of KP `kp` whose key is
    /// `>= bound`; `why` names the cause in the timeline (looked at once
    /// per rollback, not per event).
    pub(super) fn rollback(&mut self, kp: usize, bound: Key, why: SpanKind) -> Result<(), Error> {
        let mark = self.timeline.mark();
        let (mut undone, mut latest) = (0u64, bound.time);
        while let Some(e) = self.ev.kps[kp].processed.last() {
            let time = e.key.time;
            if e.key < bound {
                break;
            }
            if undone == 0 {
                latest = time;
            }
            undone += 1;
            let Some(ev) = self.ev.kps[kp].processed.pop() else { break };
            self.undo(kp, ev)?;
        }
        if undone > 0 {
            self.timeline.span(mark, why, undone, latest - bound.time);
        }
        Ok(())
    }

    /// Undoes one processed event: model state, random streams, send counter,
    /// and every event it sent; the event goes back to the pending queue.
    fn undo(&mut self, kp: usize, ev: Event<M::Msg, M::Undo>) -> Result<(), Error> {
        if !self.errors.is_empty() {
            self.forget_error(ev.key)?;
        }
        let draws = if ev.draws == WIDE {
            self.ev.wide_draws.remove(&k3(ev.key)).expect("wide draw counts of a processed event")
        } else {
            std::array::from_fn(|s| (ev.draws >> (16 * s)) & 0xFFFF)
        };
        let lp = &mut self.lps[self.env.lp(ev.dst)];
        let k = &mut self.ev.kps[kp];
        let n_sent = k.sent.end_pos().wrapping_sub(ev.sent_at);
        match self.env.rollback {
            Rollback::Reverse => self.env.model.reverse(&mut lp.state, &ev.msg, &ev.undo, ev.dst, ev.key.time),
            Rollback::StateSaving => lp.state = k.saved.pop_back().expect("a saved state per processed event"),
            Rollback::Incremental => {
                let journal = &mut k.journal;
                for _ in 0..journal.end_pos().wrapping_sub(ev.saved_at) {
                    let entry = journal.pop().expect("the entries a processed event saved");
                    self.env.model.restore(&mut lp.state, &entry);
                }
                if M::RESTORE_RECORD {
                    self.env.model.restore(&mut lp.state, &ev.undo);
                }
            }
        }
        for (c, d) in lp.counters.iter_mut().zip(draws) {
            *c -= d;
        }
        self.stats.ties -= lp.unrecord(&ev.key, ev.prev_time) as u64;
        self.stats.past_end -= ev.past_end as u64;
        lp.seq = lp.seq.wrapping_sub(n_sent);
        for _ in 0..n_sent {
            let rec = self.ev.kps[kp].sent.pop().expect("a sent record per send");
            self.cancel(rec)?;
        }
        self.ev.q.push(Entry::new(ev.key, Queued { dst: ev.dst, inc: ev.inc, msg: ev.msg }));
        self.ev.uncommitted -= 1;
        self.stats.rolled_back += 1;
        Ok(())
    }
}
