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
use crate::lp::Lp;
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
        let Pe { env, lps, ev, commits, stats, .. } = self;
        ev.uncommitted -= commit_front(env, lps, ev, 0..ev.kps.len(), upto, commits, stats);
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
        let Pe { env, lps, ev, commits, stats, .. } = self;
        ev.uncommitted -= commit_front(env, lps, ev, kp..kp + 1, Key::INF, commits, stats);
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

/// Commits and frees the processed events of KPs `kps` below `g` (their
/// fronts: a KP's events are in key order); returns how many. Their sent
/// records and journal entries are dropped in one go after them.
#[inline(always)]
fn commit_front<M: Model, Q, N, P: Place>(
    env: &Env<'_, M, N, P>,
    lps: &mut [Lp<M::State>],
    ev: &mut Events<M, Q>,
    kps: std::ops::Range<usize>,
    g: Key,
    commits: &mut Committer,
    stats: &mut PeStats,
) -> usize {
    // On the stack while the loop runs, as locals: through a reference they
    // were stored back after every event (the loop may call out to report
    // an error); so are what `env` gives, which reaches shared state.
    let mut st = std::mem::take(stats);
    let mut com = std::mem::take(commits);
    let (model, map, first) = (env.model, env.map, env.first_lp);
    let mut total = 0;
    for k in &mut ev.kps[kps] {
        let (mut sent, mut saved, mut n) = (0usize, 0usize, 0usize);
        for e in k.processed.as_slice().iter() {
            if e.key >= g {
                break;
            }
            n += 1;
            let lp = &mut lps[map.local_of(e.dst, first)];
            if let Err(err) = com.commit(model, lp, e.dst, &e.key, &e.msg, &e.undo, e.past_end, &mut st) {
                // Committed all the same: the other workers stop at their next look.
                env.shared.failure.fail(err);
            }
            sent += e.n_sent as usize;
            saved += e.saved as usize;
            if e.draws == WIDE {
                ev.wide_draws.remove(&k3(e.key));
            }
        }
        if n == 0 {
            continue;
        }
        k.processed.drop_front(n);
        k.sent.drop_front(sent);
        if env.rollback == Rollback::StateSaving {
            k.saved.drain(..n);
        }
        if saved > 0 {
            k.journal.drop_front(saved);
        }
        k.trim();
        total += n;
    }
    *stats = st;
    *commits = com;
    total
}
