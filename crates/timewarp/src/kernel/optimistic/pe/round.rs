//! A PE's part in GVT rounds: what it knows of GVT, its step through each
//! round (`gvt` runs the rounds), and the hooks on each step — on entering
//! a round, on reporting, and on a new GVT (fossil collection, the window's
//! update, progress and the GVT series, the end or the pause).

use std::time::Instant;

use crate::error::Error;
use crate::event::Queued;
use crate::key::Key;
use crate::layout::PeId;
use crate::mapping::Place;
use crate::model::Model;
use crate::progress::Progress;
use crate::queue::PendingQueue;
use crate::timeline::{SpanKind, Trace};

use super::Pe;
use crate::gvt::{Gvt, Participant, Step};
use crate::transport::Network;

/// A PE's part in GVT rounds.
pub(super) struct Round {
    pub(super) part: Participant,
    /// The last GVT this PE knows (its commit horizon).
    pub(super) gvt: Key,
    /// Events below this key are final when processed (the PE's safe bound,
    /// see `gvt`): committed at once. [`NOTHING_SAFE`] when off.
    pub(super) safe: Key,
    /// Whether safe events are committed at once (`Config::safe_events`).
    safe_events: bool,
    /// The time of the last event committed at once (they are processed in
    /// order and never undone).
    pub(super) safe_time: f64,
    /// This PE's committed count as last added to the run's.
    pub(super) shared_committed: u64,
    /// Events at or past this time are not processed now (the GVT gate as
    /// this PE last read it).
    pub(super) bound: f64,
    /// Scheduler iterations since the last GVT round this PE saw end.
    since: usize,
    /// Iterations between the rounds it asks for (`--gvt-interval`).
    interval: usize,
    /// Its worker asks for the rounds (it runs several PEs).
    by_worker: bool,
    /// When this PE entered the GVT round under way (while recording).
    start: Option<u64>,
    /// When this PE's first iteration ran (GVT series times count from it).
    pub(super) t0: Option<Instant>,
    /// The progress line (shown by the process' PE 0 only).
    pub(super) progress: Progress,
}

/// A safe bound no key is below (times are `>= 0`): no event is safe.
pub(super) const NOTHING_SAFE: Key = Key { time: 0.0, age: 0, tie: 0 };

impl Round {
    /// For PE `id` of a run to `end` with `cfg`, the gate at `gate`;
    /// `alone`: the run's only PE (nothing can ever reach it).
    pub(super) fn new(cfg: &crate::Config, id: PeId, end: f64, gate: f64, alone: bool) -> Self {
        Round {
            part: Participant::default(),
            gvt: Key::at(0.0),
            safe: if cfg.safe_events && alone { Key::INF } else { NOTHING_SAFE },
            safe_events: cfg.safe_events,
            safe_time: 0.0,
            shared_committed: 0,
            bound: gate,
            since: 0,
            interval: cfg.gvt_interval,
            by_worker: false,
            start: None,
            t0: None,
            progress: Progress::new(
                cfg.progress && id.index() == 0,
                cfg.progress_sink.as_ref().filter(|_| id.index() == 0),
                end,
            ),
        }
    }

    /// Leaves the requests to the worker (see `rounds_by_worker`).
    pub(super) fn by_worker(&mut self) {
        self.by_worker = true;
    }

    /// After an iteration: asks for a round every `interval` iterations, or
    /// at once when the PE cannot go on (`stuck`: throttled or idle),
    /// unless its worker asks for them.
    #[inline]
    pub(super) fn iterated(&mut self, gvt: &Gvt, stuck: bool) {
        self.since += 1;
        if (self.since >= self.interval || stuck) && !self.by_worker {
            gvt.request();
        }
    }
}

impl<M: Model, Q: PendingQueue<Queued<M::Msg>>, N: Network, P: Place> Pe<'_, M, Q, N, P> {
    /// Takes this iteration's GVT step (cheap atomic loads unless a round
    /// is on) and runs its hook; `t0`: when the PE started. Returns whether
    /// the PE is done (GVT passed everything or the pause).
    #[inline]
    pub(super) fn gvt_step(&mut self, t0: Instant) -> Result<bool, Error> {
        let gvt: &Gvt = &self.env.shared.gvt;
        self.round.bound = gvt.gate();
        match gvt.step(&mut self.round.part, self.env.net) {
            Step::Idle => Ok(false),
            Step::Enter => self.on_enter().map(|()| false),
            Step::Report => self.on_report().map(|()| false),
            Step::New(g) => Ok(self.on_new_gvt(g, t0)),
        }
    }

    /// A round started: enter its phase A.
    fn on_enter(&mut self) -> Result<(), Error> {
        let gvt: &Gvt = &self.env.shared.gvt;
        self.round.start = self.timeline.mark();
        self.io.transport.enter_round(gvt, self.round.part.current())?;
        gvt.enter(&mut self.round.part);
        // Messages still spilled (their ring was full) reach the ring only
        // later, possibly after their receiver has reported: count them as
        // sent during the round.
        self.round.part.sent(self.io.transport.spilled_min());
        Ok(())
    }

    /// Phase B: take in what arrived and report this PE's minima.
    fn on_report(&mut self) -> Result<(), Error> {
        let gvt: &Gvt = &self.env.shared.gvt;
        let mark = self.timeline.mark();
        let t = Instant::now();
        self.drain()?;
        let (pending, transit) = self.local_min();
        let lvt = self.latest_time();
        gvt.report(self.env.local, &mut self.round.part, pending, transit, lvt, self.env.net);
        self.stats.gvt_seconds += t.elapsed().as_secs_f64();
        self.timeline.span(mark, SpanKind::GvtReport, 0, 0.0);
        Ok(())
    }

    /// A new GVT `g` is known: commit below this PE's horizon, adapt the
    /// window, show progress and record the round (PE 0 of the process);
    /// returns whether the PE is done.
    fn on_new_gvt(&mut self, g: Key, t0: Instant) -> bool {
        let gvt: &Gvt = &self.env.shared.gvt;
        let t = Instant::now();
        // This PE commits up to its horizon (GVT across processes).
        let h = if N::ACTIVE { g } else { gvt.horizon(self.env.local) };
        self.round.gvt = h;
        if self.round.safe_events && !N::ACTIVE {
            self.round.safe = gvt.safe(self.env.local);
        }
        let (before, since) = (self.stats.committed, self.round.shared_committed);
        let mark = self.timeline.mark();
        // Processed events below both the safe bound and every event still
        // pending here are final too: nothing can reach them any more.
        let upto = h.max(self.round.safe.min(self.ev.q.peek().unwrap_or(Key::INF)));
        // Errors only below GVT itself: every PE has processed every event
        // below it, so the earliest error of all is among those (below the
        // horizon another PE may not yet have met an earlier one).
        self.fossil_collect(g, upto);
        self.timeline.span(mark, SpanKind::FossilCollection, self.stats.committed - before, h.time);
        self.timeline.span(self.round.start.take(), SpanKind::GvtRound, self.round.part.current() - 1, g.time);
        let pending = self.ev.q.len().saturating_sub(self.cancels.cancelled.len());
        // Speculation is judged on the events that were speculative: a safe
        // event is never undone, and would make any share of waste look small.
        let speculative = self.stats.processed - self.stats.safe_events;
        let (done, undone) = self.throttle.adapt(self.stats.throttled, speculative, self.stats.rolled_back, pending);
        // Events committed at once count as committed in this round.
        self.throttle.window.new_gvt(h.time, self.stats.committed - since, done, undone);
        self.stats.event_memory_peak = self.stats.event_memory_peak.max(self.throttle.budget as u64);
        self.round.since = 0;
        self.stats.gvt_seconds += t.elapsed().as_secs_f64();
        if self.env.local == 0 {
            self.round.progress.update(g.time.min(self.env.s.end));
            self.env.shared.record_round(g, t0.elapsed().as_secs_f64());
        }
        // Everything before the gate is committed and nothing after it
        // processed: a cut (every PE decides alike on the same round's
        // value and gate).
        let gate = gvt.gate();
        if g == Key::INF || g.time >= gate {
            self.paused = gate < self.env.s.end;
            self.round.progress.finish();
            return true;
        }
        false
    }

    /// Smallest keys this PE may still process (pending events) and cause
    /// elsewhere directly (messages it sent during this round, messages
    /// still spilled).
    fn local_min(&mut self) -> (Key, Key) {
        let q = self.ev.q.peek().unwrap_or(Key::INF);
        let sent = self.round.part.send_min.unwrap_or(Key::INF);
        (q, sent.min(self.io.transport.spilled_min()))
    }
}
