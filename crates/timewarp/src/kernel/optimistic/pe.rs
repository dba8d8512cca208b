//! A processing element: one partition of the LPs with its own arena,
//! pending queue, KPs, links and statistics. A worker thread runs it one
//! scheduler iteration at a time (see `scheduling`: which worker, when).

use std::panic::AssertUnwindSafe;
use std::time::Instant;

use rustc_hash::FxHashMap;

use crate::arena::Arena;
use crate::error::Error;
use crate::event::{Event, Owner, Queued};
use crate::key::{Key, LpId};
use crate::lp::Lp;
use crate::mapping::Place;
use crate::model::{Model, Outgoing, Rollback, MAX_STREAMS};
use crate::progress::Progress;
use crate::queue::{Entry, PendingQueue};

use super::super::{forward, handler_panic, restore_events, start_lp, Segment, Setup};
use super::comm::{Links, Received};
use super::gvt::{Gvt, Participant, Step};
use super::kp::{Kp, SentRec};
use super::net::Network;
use super::scheduling::Runnable;
use super::transport::Transport;
use super::window::Window;
use super::Shared;
use crate::kernel::commit::Committer;
use crate::segment::Pending;
use crate::stats::PeStats;
use crate::timeline::{Recorder, SpanKind, Trace};
use crate::wire::Wire;

/// What one scheduler iteration of a PE did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Iteration {
    /// Processed this many events (possibly 0) or took in messages.
    Worked(usize),
    /// Nothing to do until GVT moves or a message comes.
    Idle,
    /// GVT passed everything (or the pause), or the run failed: the PE is done.
    Finished,
}

pub(crate) struct Pe<'a, M: Model, Q, N, P> {
    /// Global PE id (over all processes).
    id: usize,
    /// Index among this process' PEs.
    local: usize,
    net: &'a N,
    /// The way to every other PE, in this process or another.
    transport: Transport<'a, M::Msg, N>,
    model: &'a M,
    /// How this run undoes events ([`Model::rollback`], asked once).
    rollback: Rollback,
    s: &'a Setup,
    map: &'a P,
    shared: &'a Shared,
    first_lp: LpId,
    /// This PE's LPs: ids (in id order) and records, index for index.
    pub(crate) ids: Vec<LpId>,
    pub(crate) lps: Vec<Lp<M::State>>,
    kps: Vec<Kp<M::State, M::Undo>>,
    arena: Arena<Event<M::Msg, M::Undo>>,
    q: Q,
    /// Incarnations of events received from each other PE, for anti-messages.
    received: Vec<Received>,
    /// Entries in `received`, all senders together.
    received_len: usize,
    /// Cancelled events still in the queue: incarnation -> key (dropped when popped).
    cancelled: FxHashMap<u32, Key>,
    /// Next incarnation number.
    next_inc: u32,
    /// Errors raised by processed events (by arena handle, with the key):
    /// reported if the event commits, forgotten if it is undone.
    errors: FxHashMap<u32, (Key, Error)>,
    /// Exact draw counts of processed events that drew more than a packed
    /// 16-bit field holds (by arena handle; their `draws` is [`WIDE`]).
    wide_draws: FxHashMap<u32, [u64; MAX_STREAMS as usize]>,
    /// The event whose handler is running.
    current: Option<Current>,
    out: Vec<Outgoing<M::Msg>>,
    inbox: Vec<(usize, Wire<M::Msg>)>,
    part: Participant,
    uncommitted: usize,
    budget: usize,
    /// The last GVT this PE knows.
    gvt: Key,
    /// How far beyond GVT it may process.
    window: Window,
    /// Scheduler iterations since the last GVT round this PE saw end.
    since_round: usize,
    /// When this PE's first iteration ran (GVT series times count from it).
    t0: Option<Instant>,
    /// The progress line (shown by the process' PE 0 only).
    progress: Progress,
    /// Whether to time event processing (for the adaptive policies' APTE).
    timed: bool,
    /// Seconds spent processing batches since the scheduler last asked.
    busy: f64,
    batch: usize,
    gvt_interval: usize,
    pub(crate) stats: PeStats,
    pub(crate) commits: Committer,
    /// Events at or past this time are not processed now (the GVT gate as
    /// this PE last read it).
    bound: f64,
    /// Across processes: events for other PEs at or past the pause, kept
    /// here instead of sent (they would be in flight at the cut), by key.
    parked: FxHashMap<(u64, u32, u64), (LpId, M::Msg)>,
    /// Whether the run paused (for a checkpoint) rather than ended.
    pub(crate) paused: bool,
    /// This PE's timeline track (`None`: not recording).
    pub(crate) timeline: Option<Box<Recorder>>,
    /// When this PE entered the GVT round under way (while recording).
    round_start: Option<u64>,
}

/// A key as a hash-map key.
#[inline]
fn k3(k: Key) -> (u64, u32, u64) {
    (k.time.to_bits(), k.age, k.tie)
}

/// `Event::draws` of an event whose draw counts are kept in `Pe::wide_draws`
/// (a packed value never has all four 16-bit fields at 0xFFFF).
const WIDE: u64 = u64::MAX;

/// Cancelled events in a pending queue before it is compacted (at least).
const COMPACT_MIN: usize = 1024;

/// The event whose forward handler is running: its arena record, its KP,
/// and its LP's stream counters before it (so the draws of a handler that
/// panics can be counted, and rewound if it is rolled back).
#[derive(Clone, Copy)]
struct Current {
    h: u32,
    kp: usize,
    before: [u64; MAX_STREAMS as usize],
}

impl<M: Model, Q: PendingQueue<Queued<M::Msg>>, N: Network, P: Place> Runnable for Pe<'_, M, Q, N, P> {
    #[inline]
    fn step(&mut self) -> Result<Iteration, Error> {
        self.iterate()
    }

    #[inline]
    fn take_busy(&mut self) -> f64 {
        std::mem::take(&mut self.busy)
    }

    #[inline]
    fn count_foreign(&mut self) {
        self.stats.foreign_iterations += 1;
    }

    /// The time of the latest event this PE has processed and not undone
    /// (LADM helps orphan PEs that are behind). Computed when asked: the
    /// event loop stays as it is for the policies that never ask.
    fn progress_time(&self) -> f64 {
        let last = self.kps.iter().filter_map(|k| k.processed.back()).map(|&h| self.arena[h].key.time);
        last.fold(self.gvt.time, f64::max)
    }
}

impl<M: Model, Q, N, P> Pe<'_, M, Q, N, P> {
    /// The KPs of this PE (`Config::kps_per_pe`, capped at the LPs per PE).
    pub(crate) fn kps_in_use(&self) -> usize {
        self.kps.len()
    }
}

impl<'a, M: Model, Q: PendingQueue<Queued<M::Msg>>, N: Network, P: Place> Pe<'a, M, Q, N, P> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        local: usize,
        net: &'a N,
        rank: usize,
        ranks: usize,
        model: &'a M,
        s: &'a Setup,
        map: &'a P,
        shared: &'a Shared,
        links: Links<M::Msg>,
        cfg: &crate::Config,
    ) -> Self {
        let pes = cfg.pes_per_process();
        let id = rank * pes + local;
        Pe {
            id,
            local,
            net,
            transport: Transport::new(local, rank, ranks, pes, links, net),
            model,
            rollback: model.rollback(),
            s,
            map,
            shared,
            first_lp: map.first_lp(id),
            ids: Vec::new(),
            lps: Vec::new(),
            kps: (0..map.kps_per_pe()).map(|_| Kp::new()).collect(),
            arena: Arena::with_capacity(u32::MAX as usize - 1),
            q: Q::default(),
            received: (0..map.pes()).map(|_| Received::default()).collect(),
            received_len: 0,
            cancelled: FxHashMap::default(),
            next_inc: 0,
            errors: FxHashMap::default(),
            wide_draws: FxHashMap::default(),
            current: None,
            out: Vec::with_capacity(64),
            inbox: Vec::new(),
            part: Participant::default(),
            uncommitted: 0,
            budget: cfg.event_memory_per_pe(),
            gvt: Key::at(0.0),
            window: Window::new(cfg.optimism),
            since_round: 0,
            t0: None,
            progress: Progress::new(cfg.progress && id == 0, s.end),
            timed: cfg.scheduling.adapts(),
            busy: 0.0,
            batch: cfg.batch,
            gvt_interval: cfg.gvt_interval,
            stats: PeStats::default(),
            commits: Committer::new(cfg),
            bound: shared.gvt.gate(),
            parked: FxHashMap::default(),
            paused: false,
            timeline: Recorder::new(cfg, s.started, ranks * pes, rank, id),
            round_start: None,
        }
    }

    /// Creates this PE's LPs and routes their initial events.
    pub(crate) fn init(&mut self, seg: &Segment<'_, M>) -> Result<(), Error> {
        let ids = self.map.lps_of(self.id);
        super::super::reserve(&mut self.lps, ids.len(), "LP records")?;
        let mut out = std::mem::take(&mut self.out);
        let (map, id) = (self.map, self.id);
        restore_events(seg, |dst| map.pe_of(dst) == id, &mut out);
        for o in out.drain(..) {
            self.enqueue_new(o.key, o.dst, o.msg);
        }
        for &lp in &ids {
            let (rec, dropped) = start_lp(self.model, self.s, seg, lp, &mut out)?;
            self.lps.push(rec);
            self.stats.past_end += dropped as u64;
            for o in out.drain(..) {
                match self.route(o.dst) {
                    None => {
                        self.enqueue_new(o.key, o.dst, o.msg);
                    }
                    Some(pe) => {
                        self.transport.send_event(pe, o.key, o.dst, o.msg)?;
                    }
                }
            }
        }
        self.out = out;
        self.ids = ids;
        Ok(())
    }

    /// The global PE that events for LP `dst` go to; `None` for this one.
    #[inline]
    fn route(&self, dst: LpId) -> Option<usize> {
        let pe = self.map.pe_of(dst);
        (pe != self.id).then_some(pe)
    }

    /// One scheduler iteration: inboxes, GVT, a batch of events. A worker
    /// thread calls it until it returns [`Iteration::Finished`] (GVT passed
    /// everything, the pause, or the run failed), on any worker: the PE
    /// keeps everything between two calls.
    pub(crate) fn iterate(&mut self) -> Result<Iteration, Error> {
        let gvt: &Gvt = &self.shared.gvt;
        let t0 = *self.t0.get_or_insert_with(Instant::now);
        self.stats.iterations += 1;
        if self.shared.failed() {
            self.report_earlier_error();
            self.progress.finish();
            return Ok(Iteration::Finished);
        }
        let received = self.drain()?;
        self.bound = gvt.gate();
        // GVT participation: cheap atomic loads unless a round is on.
        match gvt.step(&mut self.part, self.net) {
            Step::Idle => {}
            Step::Enter => {
                self.round_start = self.timeline.mark();
                self.transport.enter_round(gvt, self.part.current())?;
                gvt.enter(&mut self.part);
                // Messages still spilled (their ring was full) reach the
                // ring only later, possibly after their receiver has
                // reported: count them as sent during the round.
                self.part.sent(self.transport.spilled_min());
            }
            Step::Report => {
                let mark = self.timeline.mark();
                let t = Instant::now();
                self.drain()?;
                let (pending, transit) = self.local_min();
                let lvt = self.kps.iter().filter_map(|k| k.processed.back()).map(|&h| self.arena[h].key.time);
                let lvt = lvt.fold(0.0, f64::max);
                gvt.report(self.local, &mut self.part, pending, transit, lvt, self.net);
                self.stats.gvt_seconds += t.elapsed().as_secs_f64();
                self.timeline.span(mark, SpanKind::GvtReport, 0, 0.0);
            }
            Step::New(g) => {
                let t = Instant::now();
                // This PE commits up to its horizon (GVT across processes).
                let h = if N::ACTIVE { g } else { gvt.horizon(self.local) };
                self.gvt = h;
                let before = self.stats.committed;
                let mark = self.timeline.mark();
                self.fossil_collect(h);
                self.timeline.span(mark, SpanKind::FossilCollection, self.stats.committed - before, h.time);
                self.timeline.span(self.round_start.take(), SpanKind::GvtRound, self.part.current() - 1, g.time);
                self.window.new_gvt(h.time, self.stats.committed - before);
                self.since_round = 0;
                self.stats.gvt_seconds += t.elapsed().as_secs_f64();
                if self.local == 0 {
                    self.progress.update(g.time.min(self.s.end));
                    self.shared.record_round(g, t0.elapsed().as_secs_f64());
                }
                // Everything before the gate is committed and nothing
                // after it processed: a cut (every PE decides alike on
                // the same round's value and gate).
                let gate = gvt.gate();
                if g == Key::INF || g.time >= gate {
                    self.paused = gate < self.s.end;
                    self.progress.finish();
                    return Ok(Iteration::Finished);
                }
            }
        }
        // A handler's panic is its event's error, kept like any other
        // (caught per batch: per event would keep handlers from inlining).
        let timed = self.timed.then(Instant::now);
        let batch = self.timeline.mark();
        let (done, throttled) = match std::panic::catch_unwind(AssertUnwindSafe(|| self.process_batch())) {
            Ok(r) => r?,
            Err(p) => {
                let Some(Current { h, kp, before }) = self.current.take() else { std::panic::resume_unwind(p) };
                let (dst, time) = (self.arena[h].dst, self.arena[h].key.time);
                // A reverse-computation model's panicked event can never
                // be undone; a state-saving or incremental one's can (what
                // it saved before the panic is in its journal).
                self.record(h, self.arena[h].key, dst, kp, before, 0, Some(handler_panic(dst, time, p.as_ref())))?;
                (1, false)
            }
        };
        if let Some(t) = timed {
            self.busy += t.elapsed().as_secs_f64();
        }
        if done > 0 {
            self.timeline.span(batch, SpanKind::Batch, done as u64, self.gvt.time);
        }
        // Only flushes that hand something to another process are exchanges.
        let exchange = if N::ACTIVE && self.transport.waiting() { self.timeline.mark() } else { None };
        self.transport.flush(gvt)?;
        self.timeline.span(exchange, SpanKind::Exchange, 0, 0.0);
        self.since_round += 1;
        if self.since_round >= self.gvt_interval || throttled || (done == 0 && received == 0) {
            gvt.request();
        }
        Ok(if done == 0 && received == 0 { Iteration::Idle } else { Iteration::Worked(done) })
    }

    /// Smallest keys this PE may still process (pending events) and cause
    /// elsewhere directly (messages it sent during this round, messages
    /// still spilled).
    fn local_min(&mut self) -> (Key, Key) {
        let q = self.q.peek().unwrap_or(Key::INF);
        let sent = self.part.send_min.unwrap_or(Key::INF);
        (q, sent.min(self.transport.spilled_min()))
    }

    /// Takes in messages from other PEs (of this process or another).
    fn drain(&mut self) -> Result<usize, Error> {
        let mut inbox = std::mem::take(&mut self.inbox);
        let n = self.transport.drain_into(&mut inbox)?;
        for (from, w) in inbox.drain(..) {
            match w {
                Wire::Event { key, dst, cseq, msg } => {
                    let inc = self.enqueue_new(key, dst, msg);
                    self.received[from].push(cseq, key.time, inc);
                    self.received_len += 1;
                }
                Wire::Anti { key, dst, cseq } => self.annihilate(from, cseq, key, dst)?,
            }
        }
        self.inbox = inbox;
        Ok(n)
    }

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
        self.transport.spilled() + self.cancelled.len()
    }

    /// How many [`held`](Self::held) entries a PE may have before its window
    /// is squeezed (twice as many stop it): one per live pending event (what
    /// a sequential run holds), plus twice the event budget (the received
    /// and cancelled entries of events the budget lets it process and undo).
    #[inline]
    fn held_limit(&self) -> usize {
        self.q.len().saturating_sub(self.cancelled.len()).saturating_add(self.budget.saturating_mul(2))
    }

    /// Processes up to `batch` events; returns (processed, throttled).
    ///
    /// A PE stops early (throttled) at an event past its optimism window,
    /// when its processed events fill the event budget, or when what else
    /// it holds for speculation exceeds twice [`held_limit`](Self::held_limit)
    /// (past the limit itself the window is squeezed); the event GVT names
    /// is processed in any case, so the run never stalls.
    fn process_batch(&mut self) -> Result<(usize, bool), Error> {
        let mut n = 0;
        if self.cancelled.len() > COMPACT_MIN && 2 * self.cancelled.len() > self.q.len() {
            self.compact();
        }
        let held = self.held();
        let limit = self.held_limit();
        let over = |l: usize| held > l;
        if over(limit) {
            if let Some(next) = self.q.peek() {
                self.window.squeeze(next.time);
            }
        }
        let full = over(limit.saturating_mul(2));
        let spec = (self.uncommitted + held + self.received_len) as u64;
        if spec > self.stats.peak_speculative {
            self.stats.peak_speculative = spec;
        }
        let horizon = self.window.horizon();
        while n < self.batch {
            let Some(e) = self.q.pop() else { break };
            // The kernel is memory-bound: start loading the LP of an event a
            // few places ahead.
            if let Some(next) = self.q.upcoming(4) {
                if let Some(lp) = self.lps.get(self.map.local_of(next.dst, self.first_lp)) {
                    crate::arena::prefetch(lp);
                }
            }
            let key = e.key();
            if !self.cancelled.is_empty() && self.cancelled.get(&e.item.inc) == Some(&key) {
                self.cancelled.remove(&e.item.inc);
                continue; // a cancelled event: dropped here
            }
            if key.time >= self.bound {
                // Past the gate (a pause for a checkpoint): wait for GVT.
                self.q.push(e);
                return Ok((n, true));
            }
            if (key.time > horizon || full) && key > self.gvt {
                self.q.push(e);
                if full {
                    self.stats.throttled += 1;
                } else {
                    self.stats.window_throttled += 1;
                    self.window.stopped();
                }
                return Ok((n, true));
            }
            let kp = self.map.kp_of(e.item.dst);
            let straggler = self.kps[kp].processed.back().is_some_and(|&h| self.arena[h].key > key);
            if straggler {
                self.stats.primary_rollbacks += 1;
                self.window.rolled_back(key.time);
                self.rollback(kp, key, SpanKind::Straggler)?;
            } else if self.uncommitted >= self.budget && !self.make_room(key)? {
                // Optimistic memory used up and every processed event precedes
                // this one: stop speculating until GVT moves past them.
                self.q.push(e);
                self.stats.throttled += 1;
                return Ok((n, true));
            }
            self.process(key, e.item, kp)?;
            n += 1;
        }
        Ok((n, false))
    }

    /// Memory is full: undo processed events later than `next` (they would be
    /// redone after it anyway) so the PE can go on in timestamp order. Without
    /// this, a PE whose budget is held by events later than its next pending
    /// event would wait for a GVT that cannot pass that event. Returns true
    /// when there is room again.
    fn make_room(&mut self, next: Key) -> Result<bool, Error> {
        for kp in 0..self.kps.len() {
            if self.kps[kp].processed.back().is_some_and(|&h| self.arena[h].key > next) {
                self.rollback(kp, next, SpanKind::Memory)?;
            }
        }
        Ok(self.uncommitted < self.budget)
    }

    /// Runs the forward handler of a pending event, keeps it in the arena
    /// on its KP's processed list, and routes its sends.
    fn process(&mut self, key: Key, item: Queued<M::Msg>, kp: usize) -> Result<(), Error> {
        let mut rec = Event::new(key, item.dst, item.msg);
        rec.moved(Owner::Pending, Owner::Processed);
        rec.inc = item.inc;
        let h = self.arena.alloc(rec).ok_or_else(|| Error::EventMemory {
            detail: format!("PE {} holds more than {} processed events", self.id, u32::MAX - 1),
        })?;
        let lp = &mut self.lps[self.map.local_of(item.dst, self.first_lp)];
        if self.rollback == Rollback::StateSaving {
            self.kps[kp].saved.push_back(lp.state.clone());
        }
        let before = lp.counters;
        // If the handler panics, `iterate` finishes the event from here.
        self.current = Some(Current { h, kp, before });
        let k = &mut self.kps[kp];
        // What an incremental model saves goes straight to its KP's journal.
        let journal = (self.rollback == Rollback::Incremental).then(|| {
            k.journal_mark = k.journal.len();
            &mut k.journal
        });
        let undo = &mut self.arena[h].undo;
        let r = forward(self.model, self.s, lp, item.dst, &key, &item.msg, undo, &mut self.out, journal);
        self.current = None;
        // An error (bad send, panic) stays with the event: it stops the run
        // only if the event commits (a speculative state may be wrong).
        let (past_end, error) = match r {
            Ok(p) => (p, None),
            Err(e) => (0, Some(e)),
        };
        self.record(h, key, item.dst, kp, before, past_end, error)
    }

    /// Finishes processed event `h` of KP `kp` after its handler ran: its
    /// draws (from the LP's stream counters `before`), sends and error; puts
    /// it on its KP's processed list and routes its sends.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn record(
        &mut self,
        h: u32,
        key: Key,
        dst: LpId,
        kp: usize,
        before: [u64; MAX_STREAMS as usize],
        past_end: u32,
        error: Option<Error>,
    ) -> Result<(), Error> {
        let rec = &mut self.arena[h];
        let lp = &self.lps[self.map.local_of(dst, self.first_lp)];
        let mut draws = 0u64;
        let mut wide = false;
        for (s, (now, was)) in lp.counters.iter().zip(before).take(self.s.streams).enumerate() {
            let d = now - was;
            wide |= d >= 0xFFFF;
            draws |= (d & 0xFFFF) << (16 * s);
        }
        rec.draws = if wide { WIDE } else { draws };
        rec.n_sent = self.out.len() as u32;
        rec.past_end = past_end;
        if self.rollback == Rollback::Incremental {
            let k = &self.kps[kp];
            rec.saved = (k.journal.len() - k.journal_mark) as u32;
            self.stats.saved_entries += rec.saved as u64;
        }
        if wide {
            self.wide_draws.insert(h, std::array::from_fn(|s| lp.counters[s] - before[s]));
        }
        if let Some(e) = error {
            self.errors.insert(h, (key, e));
        }
        self.kps[kp].processed.push_back(h);
        self.uncommitted += 1;
        self.stats.processed += 1;
        let mut result = Ok(());
        // By index: `route` and the transport borrow `self` (no take and put back).
        for i in 0..self.out.len() {
            let o = self.out[i];
            let inc = match self.route(o.dst) {
                None => self.enqueue_new(o.key, o.dst, o.msg),
                Some(_) if N::ACTIVE && o.key.time >= self.s.pause => {
                    self.parked.insert(k3(o.key), (o.dst, o.msg));
                    0
                }
                Some(pe) => {
                    self.part.sent(o.key);
                    self.transport.send_event(pe, o.key, o.dst, o.msg).unwrap_or_else(|e| {
                        result = Err(e);
                        0
                    })
                }
            };
            self.kps[kp].sent.push_back(SentRec { dst: o.dst, key: o.key, inc });
        }
        self.out.clear();
        result
    }

    /// Undoes, newest first, every processed event of KP `kp` whose key is
    /// `>= bound`; `why` names the cause in the timeline (looked at once
    /// per rollback, not per event).
    fn rollback(&mut self, kp: usize, bound: Key, why: SpanKind) -> Result<(), Error> {
        let mark = self.timeline.mark();
        let (mut undone, mut latest) = (0u64, bound.time);
        while let Some(&h) = self.kps[kp].processed.back() {
            let time = self.arena[h].key.time;
            if self.arena[h].key < bound {
                break;
            }
            if undone == 0 {
                latest = time;
            }
            undone += 1;
            self.kps[kp].processed.pop_back();
            self.undo(kp, h)?;
        }
        if undone > 0 {
            self.timeline.span(mark, why, undone, latest - bound.time);
        }
        Ok(())
    }

    /// Undoes one processed event: model state, random streams, send counter,
    /// and every event it sent; the event goes back to the pending queue.
    fn undo(&mut self, kp: usize, h: u32) -> Result<(), Error> {
        let ev = self.arena[h];
        if !self.errors.is_empty() {
            if let Some((_, Error::Panic { lp, time, message })) = self.errors.remove(&h) {
                // (Incremental models can be undone: what they saved is kept as it is written.)
                if self.rollback == Rollback::Reverse {
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
        }
        let draws = if ev.draws == WIDE {
            self.wide_draws.remove(&h).expect("wide draw counts of a processed event")
        } else {
            std::array::from_fn(|s| (ev.draws >> (16 * s)) & 0xFFFF)
        };
        let lp = &mut self.lps[self.map.local_of(ev.dst, self.first_lp)];
        match self.rollback {
            Rollback::Reverse => self.model.reverse(&mut lp.state, &ev.msg, &ev.undo, ev.dst, ev.key.time),
            Rollback::StateSaving => {
                lp.state = self.kps[kp].saved.pop_back().expect("a saved state per processed event")
            }
            Rollback::Incremental => {
                let journal = &mut self.kps[kp].journal;
                for _ in 0..ev.saved {
                    let entry = journal.pop_back().expect("the entries a processed event saved");
                    self.model.restore(&mut lp.state, &entry);
                }
            }
        }
        for (c, d) in lp.counters.iter_mut().zip(draws) {
            *c -= d;
        }
        lp.seq = lp.seq.wrapping_sub(ev.n_sent);
        for _ in 0..ev.n_sent {
            let rec = self.kps[kp].sent.pop_back().expect("a sent record per send");
            self.cancel(rec)?;
        }
        debug_assert_eq!(ev.owner, Owner::Processed);
        self.q.push(Entry::new(ev.key, Queued { dst: ev.dst, inc: ev.inc, msg: ev.msg }));
        self.arena.free(h);
        self.uncommitted -= 1;
        self.stats.rolled_back += 1;
        Ok(())
    }

    /// Cancels an event sent by an event being undone.
    fn cancel(&mut self, rec: SentRec) -> Result<(), Error> {
        match self.route(rec.dst) {
            None => return self.kill(rec.inc, rec.dst, rec.key),
            Some(_) if N::ACTIVE && rec.key.time >= self.s.pause => {
                self.parked.remove(&k3(rec.key));
                return Ok(());
            }
            Some(pe) => self.transport.send_anti(pe, rec.key, rec.dst, rec.inc)?,
        }
        self.part.sent(rec.key);
        self.stats.anti_messages += 1;
        Ok(())
    }

    /// An anti-message arrived: find the event it cancels and kill it.
    fn annihilate(&mut self, from: usize, cseq: u32, key: Key, dst: LpId) -> Result<(), Error> {
        let inc = self.received[from]
            .get(cseq)
            .ok_or_else(|| Error::Internal(format!("anti-message for an unknown event {key:?} to LP {dst}")))?;
        self.kill(inc, dst, key)
    }

    /// Cancels the event of incarnation `inc`: if it was processed, its KP is
    /// rolled back first (secondary rollback; it returns to the queue); then
    /// it is marked to be dropped when popped.
    fn kill(&mut self, inc: u32, dst: LpId, key: Key) -> Result<(), Error> {
        let kp = self.map.kp_of(dst);
        let arena = &self.arena;
        let found = self.kps[kp].processed.binary_search_by(|&h| arena[h].key.cmp(&key));
        if let Ok(i) = found {
            let h = self.kps[kp].processed[i];
            if self.arena[h].inc == inc {
                self.stats.secondary_rollbacks += 1;
                self.window.rolled_back(key.time);
                self.rollback(kp, key, SpanKind::Cancellation)?;
            }
        }
        self.cancelled.insert(inc, key);
        Ok(())
    }

    /// Queues a new pending event; returns its incarnation.
    #[inline]
    fn enqueue_new(&mut self, key: Key, dst: LpId, msg: M::Msg) -> u32 {
        let inc = self.next_inc;
        self.next_inc = self.next_inc.wrapping_add(1);
        self.q.push(Entry::new(key, Queued { dst, inc, msg }));
        inc
    }

    /// Another PE failed: if this PE holds a committed error of an earlier
    /// event, that one is the run's (every event below a reported error's
    /// key is processed for good, since that key is below GVT).
    fn report_earlier_error(&mut self) {
        if let Some(k) = self.shared.failure.key() {
            self.fail_below(k);
        }
    }

    /// Ends the run with the error of the earliest processed event below
    /// `bound` that raised one, if any; true if there was one.
    fn fail_below(&mut self, bound: Key) -> bool {
        let first = self.errors.iter().filter(|(_, (k, _))| *k < bound).min_by_key(|(_, (k, _))| *k).map(|(h, _)| *h);
        let Some((key, e)) = first.and_then(|h| self.errors.remove(&h)) else { return false };
        self.shared.failure.fail_at(key, e);
        true
    }

    /// Drops every cancelled event from the pending queue at once. They are
    /// otherwise dropped when popped, which under heavy rollback leaves
    /// pending queues full of dead events far in the future (each
    /// cancel-and-resend adds one): compacting when they are half the queue
    /// bounds them by the live events, at O(1) amortised per cancellation.
    #[cold]
    fn compact(&mut self) {
        let mut keep = Vec::with_capacity(self.q.len() - self.cancelled.len().min(self.q.len()));
        while let Some(e) = self.q.pop() {
            if self.cancelled.get(&e.item.inc) == Some(&e.key()) {
                self.cancelled.remove(&e.item.inc);
            } else {
                keep.push(e);
            }
        }
        self.stats.compactions += 1;
        for e in keep {
            self.q.push(e);
        }
    }

    /// After a pause, with every worker stopped: moves what waits behind a
    /// full ring into it and takes in what arrived; returns whether anything
    /// moved (the caller repeats over all PEs until nothing does).
    pub(crate) fn settle(&mut self) -> Result<bool, Error> {
        let spilled = self.transport.spilled();
        self.transport.flush(&self.shared.gvt)?;
        let received = self.drain()?;
        Ok(spilled > 0 || received > 0)
    }

    /// The pending events of a paused PE: its queue without the cancelled
    /// ones, and the events it parked for other processes.
    pub(crate) fn take_pending(&mut self) -> Result<Vec<Pending<M::Msg>>, Error> {
        if self.uncommitted > 0 {
            return Err(Error::Internal(format!(
                "PE {} paused with {} processed events not committed",
                self.id, self.uncommitted
            )));
        }
        let mut v = Vec::with_capacity(self.q.len() + self.parked.len());
        let cancelled = &mut self.cancelled;
        self.q.drain_unordered(|e| {
            if cancelled.get(&e.item.inc) == Some(&e.key()) {
                cancelled.remove(&e.item.inc);
            } else {
                v.push(Pending { dst: e.item.dst, key: e.key(), msg: e.item.msg });
            }
        });
        for ((t, age, tie), (dst, msg)) in self.parked.drain() {
            v.push(Pending { dst, key: Key { time: f64::from_bits(t), age, tie }, msg });
        }
        Ok(v)
    }

    /// Commits and frees every processed event below GVT `g`; the error of
    /// a committed event that raised one ends the run.
    fn fossil_collect(&mut self, g: Key) {
        if !self.errors.is_empty() && self.fail_below(g) {
            return;
        }
        // Pending (queue) plus processed (arena) events, sampled once a round.
        self.stats.peak_events = self.stats.peak_events.max((self.q.len() + self.arena.live()) as u64);
        for r in &mut self.received {
            self.received_len -= r.trim(g.time);
        }
        let before = self.stats.committed;
        for kp in 0..self.kps.len() {
            // Journal entries of the committed events, dropped in one go.
            let mut saved = 0;
            while let Some(&h) = self.kps[kp].processed.front() {
                let ev = self.arena[h];
                if ev.key >= g {
                    break;
                }
                self.kps[kp].processed.pop_front();
                let lp = &mut self.lps[self.map.local_of(ev.dst, self.first_lp)];
                let committed = self.commits.commit(
                    self.model,
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
                    self.shared.failure.fail(e);
                }
                for _ in 0..ev.n_sent {
                    let rec = self.kps[kp].sent.pop_front().expect("a sent record per send");
                    let pe = self.map.pe_of(rec.dst);
                    self.stats.remote += (pe != self.id) as u64;
                    self.stats.remote_process += self.transport.elsewhere(pe) as u64;
                }
                if self.rollback == Rollback::StateSaving {
                    self.kps[kp].saved.pop_front();
                }
                saved += ev.saved as usize;
                if ev.draws == WIDE {
                    self.wide_draws.remove(&h);
                }
                self.arena.free(h);
                self.uncommitted -= 1;
            }
            if saved > 0 {
                self.kps[kp].journal.drain(..saved);
            }
        }
        self.shared.add_committed(self.stats.committed - before);
    }
}
