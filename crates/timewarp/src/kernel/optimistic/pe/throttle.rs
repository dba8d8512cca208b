//! Throttling: what bounds a PE's speculation besides the optimism window
//! (`window`) — the event budget (`--event-memory`: processed events not
//! yet committed), the entries it holds beyond it (spilled messages,
//! cancelled events), which squeeze the window and then stop the PE, and
//! compaction of cancelled events out of its pending queue.

use crate::error::Error;
use crate::event::Queued;
use crate::key::Key;
use crate::mapping::Place;
use crate::model::Model;
use crate::queue::PendingQueue;
use crate::timeline::SpanKind;

use super::Pe;
use crate::kernel::optimistic::window::Window;
use crate::transport::Network;

/// Cancelled events in a pending queue before it is compacted (at least).
const COMPACT_MIN: usize = 1024;

/// What bounds a PE's speculation.
pub(super) struct Throttle {
    /// Most processed events not yet committed now (`--event-memory`, or
    /// sized by the run: see [`adapt`](Throttle::adapt)).
    pub(super) budget: usize,
    /// The configured budget: the size of the budget's steps and the least
    /// it shrinks to.
    base: usize,
    /// Whether the budget follows the run (no `--event-memory` given).
    auto: bool,
    /// How far beyond GVT it may process.
    pub(super) window: Window,
    /// At the last GVT round: stops on the budget, processed and rolled
    /// back events (the round's figures are the differences).
    mark: (u64, u64, u64),
}

impl Throttle {
    pub(super) fn new(cfg: &crate::Config) -> Self {
        let base = cfg.event_memory_per_pe();
        // A PE has its worker to itself when there are no more PEs than workers.
        let spare = cfg.pes_per_process() <= cfg.threads;
        Throttle {
            budget: base,
            base,
            auto: cfg.event_memory.is_none(),
            window: Window::new(cfg.optimism, spare),
            mark: (0, 0, 0),
        }
    }

    /// After a GVT round, sizes the event budget from what the round
    /// measured (`throttled`, `processed` speculatively, `rolled_back`:
    /// this PE's totals so far) when no budget was given: a round in which more than half of
    /// what was processed was undone halves it (speculation is wasted, and
    /// memory with it); a round in which the budget stopped the PE doubles
    /// it, up to the PE's live pending events (`pending`) — what a
    /// sequential run holds anyway, so optimistic memory stays within about
    /// twice a sequential run's. It never goes below the configured budget.
    /// A model whose events keep many more events pending than a fixed
    /// budget allows (TLM: the whole wavefront) otherwise spent nearly all
    /// its iterations throttled, one GVT round per few events.
    /// Returns the round's processed and undone events.
    pub(super) fn adapt(&mut self, throttled: u64, processed: u64, rolled_back: u64, pending: usize) -> (u64, u64) {
        let (t0, p0, r0) = std::mem::replace(&mut self.mark, (throttled, processed, rolled_back));
        let (stops, done, undone) = (throttled - t0, processed - p0, rolled_back - r0);
        if !self.auto {
            return (done, undone);
        }
        let cap = pending.max(self.base);
        if 2 * undone > done {
            self.budget = (self.budget / 2).max(self.base);
        } else if stops > 0 {
            self.budget = self.budget.saturating_mul(2);
        }
        self.budget = self.budget.min(cap).max(self.base);
        (done, undone)
    }
}

/// Since when a PE has been stalled, and why (`true`: throttled; `false`:
/// nothing to do): timed at the changes only, so a PE that keeps working
/// never reads the clock for it.
#[derive(Default)]
pub(super) struct Stall {
    since: Option<(std::time::Instant, bool)>,
}

impl Stall {
    /// After an iteration that processed `done` events and stopped
    /// `throttled`, or found nothing to do (`idle`): counts it and times
    /// the stall it starts or ends into `stats`.
    #[inline]
    pub(super) fn iterated(&mut self, stats: &mut crate::stats::PeStats, done: usize, throttled: bool, idle: bool) {
        stats.throttled_iterations += throttled as u64;
        stats.idle_iterations += idle as u64;
        if done > 0 {
            self.end(stats);
        } else if (throttled || idle) && self.since.is_none() {
            self.since = Some((std::time::Instant::now(), throttled));
        }
    }

    /// The PE processes events again (or is done): the stall's time goes
    /// to its cause.
    #[inline]
    pub(super) fn end(&mut self, stats: &mut crate::stats::PeStats) {
        if let Some((t, throttled)) = self.since.take() {
            let s = t.elapsed().as_secs_f64();
            if throttled {
                stats.throttled_seconds += s;
            } else {
                stats.gvt_wait_seconds += s;
            }
        }
    }
}

impl<M: Model, Q: PendingQueue<Queued<M::Msg>>, N: Network, P: Place> Pe<'_, M, Q, N, P> {
    /// Entries held for speculation besides processed events and received-
    /// event windows: messages waiting behind a full ring, cancelled events
    /// still in the queue. (Received windows are left out: trimmed from the
    /// front in channel order, their size follows the model's delay spread
    /// (one long delay keeps the entries behind it) more than speculation,
    /// and throttling on it slowed PHOLD at remote 1.0 by 1.3–1.7× without
    /// bounding anything speculation adds; compaction of cancelled events
    /// keeps cancel-and-resend cycles from piling up there too.)
    #[inline]
    fn held(&self) -> usize {
        self.io.transport.spilled() + self.cancels.cancelled.len()
    }

    /// How many [`held`](Self::held) entries a PE may have before its window
    /// is squeezed (twice as many stop it): one per live pending event (what
    /// a sequential run holds), plus twice the event budget (the received
    /// and cancelled entries of events the budget lets it process and undo).
    #[inline]
    fn held_limit(&self) -> usize {
        let live = self.ev.q.len().saturating_sub(self.cancels.cancelled.len());
        live.saturating_add(self.throttle.budget.saturating_mul(2))
    }

    /// Before a batch: compacts the queue if cancelled events are half of
    /// it, squeezes the window if the PE holds more than
    /// [`held_limit`](Self::held_limit), notes the peak of what it holds;
    /// returns whether it holds more than twice the limit (then it
    /// processes only the event GVT names).
    #[inline]
    pub(super) fn pressure(&mut self) -> bool {
        if self.cancels.cancelled.len() > COMPACT_MIN && 2 * self.cancels.cancelled.len() > self.ev.q.len() {
            self.compact();
        }
        let held = self.held();
        let limit = self.held_limit();
        let over = |l: usize| held > l;
        if over(limit) {
            if let Some(next) = self.ev.q.peek() {
                self.throttle.window.squeeze(next.time);
            }
        }
        let full = over(limit.saturating_mul(2));
        let spec = (self.ev.uncommitted + held + self.cancels.received_len) as u64;
        if spec > self.stats.peak_speculative {
            self.stats.peak_speculative = spec;
        }
        full
    }

    /// The next event is past the window (or the PE is `full`) and it
    /// stops: counts why.
    #[inline]
    pub(super) fn held_back(&mut self, full: bool) {
        if full {
            self.stats.throttled += 1;
        } else {
            self.stats.window_throttled += 1;
            self.throttle.window.stopped();
        }
    }

    /// Memory is full: undo processed events later than `next` (they would be
    /// redone after it anyway) so the PE can go on in timestamp order. Without
    /// this, a PE whose budget is held by events later than its next pending
    /// event would wait for a GVT that cannot pass that event. Returns true
    /// when there is room again.
    pub(super) fn make_room(&mut self, next: Key) -> Result<bool, Error> {
        for kp in 0..self.ev.kps.len() {
            if self.ev.kps[kp].processed.last().is_some_and(|e| e.key > next) {
                self.rollback(kp, next, SpanKind::Memory)?;
            }
        }
        Ok(self.ev.uncommitted < self.throttle.budget)
    }

    /// Drops every cancelled event from the pending queue at once. They are
    /// otherwise dropped when popped, which under heavy rollback leaves
    /// pending queues full of dead events far in the future (each
    /// cancel-and-resend adds one): compacting when they are half the queue
    /// bounds them by the live events, at O(1) amortised per cancellation.
    #[cold]
    fn compact(&mut self) {
        let cancelled = &mut self.cancels.cancelled;
        let q = &mut self.ev.q;
        let mut keep = Vec::with_capacity(q.len() - cancelled.len().min(q.len()));
        while let Some(e) = q.pop() {
            if cancelled.get(&e.item.inc) == Some(&e.key()) {
                cancelled.remove(&e.item.inc);
            } else {
                keep.push(e);
            }
        }
        self.stats.compactions += 1;
        for e in keep {
            q.push(e);
        }
    }
}
