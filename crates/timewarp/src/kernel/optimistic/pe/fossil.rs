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

use super::{k3, Env, Events, Pe, WIDE};
use crate::kernel::commit::Committer;
use crate::stats::PeStats;
use crate::transport::Network;

impl<M: Model, Q: PendingQueue<Queued<M::Msg>>, N: Network, P: Place> Pe<'_, M, Q, N, P> {
    /// Commits and frees every processed event below `upto` (the PE's
    /// horizon or, where they are known to be final, more; at least GVT
    /// `g`); the error of an event below GVT ends the run.
    pub(super) fn fossil_collect(&mut self, g: Key, upto: Key) {
        if !self.errors.is_empty() && self.fail_below(g) {
            return;
        }
        // Pending (queue) plus processed events, sampled once a round.
        self.stats.peak_events = self.stats.peak_events.max((self.ev.q.len() + self.ev.uncommitted) as u64);
        self.cancels.trim(g.time);
        let Pe { env, ev, commits, stats, .. } = self;
        ev.uncommitted -= commit_front(env, ev, 0..ev.kps.len(), upto, commits, stats);
        // What this PE committed since it last said so, safe events
        // included, goes into the run's count (of the GVT series).
        self.env.shared.add_committed(self.stats.committed - self.round.shared_committed);
        self.round.shared_committed = self.stats.committed;
    }

    /// Every processed event of KP `kp` is final (all are below an event
    /// that is): commits them, before that event.
    #[cold]
    #[inline(never)]
    pub(super) fn commit_kp(&mut self, kp: usize) {
        let Pe { env, ev, commits, stats, .. } = self;
        ev.uncommitted -= commit_front(env, ev, kp..kp + 1, Key::INF, commits, stats);
    }

    /// Another PE failed: if this PE holds a committed error of an earlier
    /// event, that one is the run's (every event below a reported error's
    /// key is processed for good, since that key is below GVT).
    pub(super) fn report_earlier_error(&mut self) {
        if let Some(k) = self.env.shared.failure.key() {
            self.fail_below(k);
        }
    }

    /// The time of the earliest processed event that raised an error
    /// (infinite if none did).
    #[cold]
    pub(super) fn earliest_error_time(&self) -> f64 {
        self.errors.values().map(|(k, _)| k.time).fold(f64::INFINITY, f64::min)
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

/// Commits and frees the processed events of KPs `kps` below `g` (their
/// fronts: a KP's events are in key order); returns how many. Their LPs
/// took them into their history as they were processed, so the records are
/// not read again (see [`Committer::commit_processed`]): how many are below
/// `g` is one look at the newest or a binary search, and their sent records
/// and journal entries end where the first event left starts its own.
#[inline(always)]
fn commit_front<M: Model, Q, N, P: Place>(
    env: &Env<'_, M, N, P>,
    ev: &mut Events<M, Q>,
    kps: std::ops::Range<usize>,
    g: Key,
    commits: &mut Committer,
    stats: &mut PeStats,
) -> usize {
    let mut total = 0;
    for k in &mut ev.kps[kps] {
        let events = k.processed.as_slice();
        let n = match events.last() {
            None => continue,
            Some(e) if e.key < g => events.len(),
            Some(_) => events.partition_point(|e| e.key < g),
        };
        if n == 0 {
            continue;
        }
        if let Err(err) = commits.commit_processed(env.model, &events[..n], stats) {
            // Committed all the same: the other workers stop at their next look.
            env.shared.failure.fail(err);
        }
        if !ev.wide_draws.is_empty() {
            for e in events[..n].iter().filter(|e| e.draws == WIDE) {
                ev.wide_draws.remove(&k3(e.key));
            }
        }
        match events.get(n) {
            Some(next) => {
                let (sent_at, saved_at) = (next.sent_at, next.saved_at);
                k.sent.drop_to(sent_at);
                k.journal.drop_to(saved_at);
            }
            None => {
                k.sent.clear();
                k.journal.clear();
            }
        }
        k.processed.drop_front(n);
        if env.rollback == Rollback::StateSaving {
            k.saved.drain(..n);
        }
        k.trim();
        total += n;
    }
    total
}
