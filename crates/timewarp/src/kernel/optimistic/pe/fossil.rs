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

use super::{Pe, WIDE};
use crate::transport::Network;

impl<M: Model, Q: PendingQueue<Queued<M::Msg>>, N: Network, P: Place> Pe<'_, M, Q, N, P> {
    /// Commits and frees every processed event below GVT `g`; the error of
    /// a committed event that raised one ends the run.
    pub(super) fn fossil_collect(&mut self, g: Key) {
        if !self.errors.is_empty() && self.fail_below(g) {
            return;
        }
        // Pending (queue) plus processed (arena) events, sampled once a round.
        self.stats.peak_events = self.stats.peak_events.max((self.ev.q.len() + self.ev.arena.live()) as u64);
        self.cancels.trim(g.time);
        let before = self.stats.committed;
        for kp in 0..self.ev.kps.len() {
            // Journal entries of the committed events, dropped in one go.
            let mut saved = 0;
            while let Some(&h) = self.ev.kps[kp].processed.front() {
                let ev = self.ev.arena[h];
                if ev.key >= g {
                    break;
                }
                self.ev.kps[kp].processed.pop_front();
                let lp = &mut self.lps[self.env.lp(ev.dst)];
                let committed = self.commits.commit(
                    self.env.model,
                    lp,
                    ev.dst,
                    &ev.key,
                    &ev.msg,
                    &ev.undo,
                    ev.past_end,
                    &mut self.stats,
                );
                if let Err(e) = committed {
                    // Committed all the same: the other workers stop at their next look.
                    self.env.shared.failure.fail(e);
                }
                for _ in 0..ev.n_sent {
                    let rec = self.ev.kps[kp].sent.pop_front().expect("a sent record per send");
                    let pe = self.env.map.pe_of(rec.dst);
                    self.stats.remote += (pe != self.env.id) as u64;
                    self.stats.remote_process += self.io.transport.elsewhere(pe) as u64;
                }
                if self.env.rollback == Rollback::StateSaving {
                    self.ev.kps[kp].saved.pop_front();
                }
                saved += ev.saved as usize;
                if ev.draws == WIDE {
                    self.ev.wide_draws.remove(&h);
                }
                self.ev.arena.free(h);
                self.ev.uncommitted -= 1;
            }
            if saved > 0 {
                self.ev.kps[kp].journal.drain(..saved);
            }
        }
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

    /// Processed event `h` is being undone: forgets its error. A panic
    /// cannot be undone by reverse computation: that is the run's error.
    pub(super) fn forget_error(&mut self, h: u32) -> Result<(), Error> {
        if let Some((_, Error::Panic { lp, time, message })) = self.errors.remove(&h) {
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
