//! Fossil collection and speculative errors: below a new GVT a PE commits
//! its processed events (commit handler, digest, statistics) and frees
//! them. An error a processed event raised is kept with it: committing the
//! event ends the run with it, undoing the event forgets it.

use crate::error::Error;
use crate::event::Queued;
use crate::key::Key;
use crate::mapping::Place;
use crate::model::{Model, Rollback};
use crate::queue::PendingQueue;

use super::{k3, Pe, WIDE};
use crate::transport::Network;

impl<M: Model, Q: PendingQueue<Queued<M::Msg>>, N: Network, P: Place> Pe<'_, M, Q, N, P> {
    /// Commits and frees every processed event below GVT `g`; the error of
    /// a committed event that raised one ends the run.
    pub(super) fn fossil_collect(&mut self, g: Key) {
        if !self.errors.is_empty() && self.fail_below(g) {
            return;
        }
        // Pending (queue) plus processed events, sampled once a round.
        self.stats.peak_events = self.stats.peak_events.max((self.ev.q.len() + self.ev.uncommitted) as u64);
        self.cancels.trim(g.time);
        let before = self.stats.committed;
        let (model, map, first, rollback) = (self.env.model, self.env.map, self.env.first_lp, self.env.rollback);
        // The statistics on the stack while the loop runs: as a field they
        // were stored back after every event (the loop may call out to
        // report an error).
        let mut stats = std::mem::take(&mut self.stats);
        let mut commits = std::mem::take(&mut self.commits);
        for k in &mut self.ev.kps {
            // Sent records and journal entries of the committed events,
            // dropped in one go after them.
            let (mut sent, mut saved, mut n) = (0usize, 0usize, 0usize);
            for ev in k.processed.as_slice().iter() {
                if ev.key >= g {
                    break;
                }
                n += 1;
                let lp = &mut self.lps[map.local_of(ev.dst, first)];
                let committed = commits.commit(model, lp, ev.dst, &ev.key, &ev.msg, &ev.undo, ev.past_end, &mut stats);
                if let Err(e) = committed {
                    // Committed all the same: the other workers stop at their next look.
                    self.env.shared.failure.fail(e);
                }
                sent += ev.n_sent as usize;
                saved += ev.saved as usize;
                if ev.draws == WIDE {
                    self.ev.wide_draws.remove(&k3(ev.key));
                }
            }
            if n == 0 {
                continue;
            }
            k.processed.drop_front(n);
            k.sent.drop_front(sent);
            if rollback == Rollback::StateSaving {
                k.saved.drain(..n);
            }
            if saved > 0 {
                k.journal.drop_front(saved);
            }
            k.trim();
            self.ev.uncommitted -= n;
        }
        self.stats = stats;
        self.commits = commits;
        self.env.shared.add_committed(self.stats.committed - before);
    }

    /// Another PE failed: if this PE holds a committed error of an earlier
    /// event, that one is the run's (every event below a reported error's
    /// key is processed for good, since that key is below GVT).
    pub(super) fn report_earlier_error(&mut self) {
        if let Some(k) = self.env.shared.failure.key() {
            self.fail_below(k);
        }
    }

    /// Ends the run with the error of the earliest processed event below
    /// `bound` that raised one, if any; true if there was one.
    fn fail_below(&mut self, bound: Key) -> bool {
        let first = self.errors.iter().filter(|(_, (k, _))| *k < bound).min_by_key(|(_, (k, _))| *k).map(|(h, _)| *h);
        let Some((key, e)) = first.and_then(|h| self.errors.remove(&h)) else { return false };
        self.env.shared.failure.fail_at(key, e);
        true
    }

    /// Processed event `key` is being undone: forgets its error. A panic
    /// cannot be undone by reverse computation: that is the run's error.
    pub(super) fn forget_error(&mut self, key: Key) -> Result<(), Error> {
        if let Some((_, Error::Panic { lp, time, message })) = self.errors.remove(&k3(key)) {
            // (Incremental models can be undone: what they saved is kept as it is written.)
            if self.env.rollback == Rollback::Reverse {
                return Err(Error::Panic {
                    lp,
                    time,
                    message: format!(
                        "{message} (in a speculative event that is now being rolled back; the state a \
                         reverse-computation model leaves after a panic cannot be undone: make the handler \
                         not panic, or use Rollback::StateSaving)"
                    ),
                });
            }
        }
        Ok(())
    }
}
