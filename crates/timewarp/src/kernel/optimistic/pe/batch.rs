//! A batch of a PE's events: pop, check, process each (rolling its KP back
//! first when it is a straggler), and record what its handler did so that
//! it can be undone; a handler's panic is caught once per batch.

use std::panic::AssertUnwindSafe;
use std::time::Instant;

use crate::error::Error;
use crate::event::{Event, Queued};
use crate::key::{Key, LpId};
use crate::mapping::Place;
use crate::model::{Model, Outgoing, Rollback, MAX_STREAMS};
use crate::queue::PendingQueue;
use crate::timeline::{SpanKind, Trace};

use super::{enqueue, k3, Events, Pe, WIDE};
use crate::kernel::optimistic::kp::SentRec;
use crate::kernel::{forward, handler_panic};
use crate::layout::PeId;
use crate::stats::PeStats;
use crate::transport::{Network, Transport};

/// A PE's batches: how many events, the running handler and its sends,
/// and the time they take.
pub(super) struct Batch<M: Model> {
    /// Most events per batch (`--batch`).
    size: usize,
    /// The sends of the running handler.
    pub(super) out: Vec<Outgoing<M::Msg>>,
    /// The event whose handler is running.
    current: Option<Current>,
    /// The safe event whose handler is running (it has no record).
    safe: Option<(Key, LpId)>,
    /// Whether to time event processing (for the adaptive policies' APTE).
    timed: bool,
    /// Seconds spent processing batches since the scheduler last asked.
    pub(super) busy: f64,
}

impl<M: Model> Batch<M> {
    pub(super) fn new(cfg: &crate::Config) -> Self {
        Batch {
            size: cfg.batch,
            out: Vec::with_capacity(64),
            current: None,
            safe: None,
            timed: cfg.scheduling.adapts(),
            busy: 0.0,
        }
    }
}

/// The event whose forward handler is running (the last on its KP's
/// processed list): its KP, and its LP's stream counters before it (so the
/// draws of a handler that panics can be counted, and rewound if it is
/// rolled back).
#[derive(Clone, Copy)]
struct Current {
    kp: usize,
    before: [u64; MAX_STREAMS as usize],
}

impl<M: Model, Q: PendingQueue<Queued<M::Msg>>, N: Network, P: Place> Pe<'_, M, Q, N, P> {
    /// Processes a batch; returns (processed, throttled). A handler's panic
    /// is its event's error, kept like any other (caught per batch: per
    /// event would keep handlers from inlining).
    #[inline]
    pub(super) fn run_batch(&mut self) -> Result<(usize, bool), Error> {
        let timed = self.batch.timed.then(Instant::now);
        let mark = self.timeline.mark();
        let (done, throttled) = match std::panic::catch_unwind(AssertUnwindSafe(|| self.process_batch())) {
            Ok(r) => r?,
            Err(p) => {
                if let Some((key, dst)) = self.batch.safe.take() {
                    // Final, so committed in the end: its error ends the run
                    // once GVT passes it (an earlier one may come first).
                    self.errors.insert(k3(key), (key, handler_panic(dst, key.time, p.as_ref())));
                    self.batch.out.clear();
                    self.stats.processed += 1;
                    return Ok((1, false));
                }
                let Some(Current { kp, before }) = self.batch.current.take() else { std::panic::resume_unwind(p) };
                let Some(&Event { key, dst, .. }) = self.ev.kps[kp].processed.last() else {
                    std::panic::resume_unwind(p)
                };
                // A reverse-computation model's panicked event can never
                // be undone; a state-saving or incremental one's can (what
                // it saved before the panic is in its journal).
                let error = Some(handler_panic(dst, key.time, p.as_ref()));
                self.record(key, dst, kp, before, 0, error)?;
                (1, false)
            }
        };
        if let Some(t) = timed {
            self.batch.busy += t.elapsed().as_secs_f64();
        }
        if done > 0 {
            self.timeline.span(mark, SpanKind::Batch, done as u64, self.round.gvt.time);
        }
        Ok((done, throttled))
    }

    /// Processes up to `batch` events; returns (processed, throttled).
    ///
    /// An event below the PE's safe bound is final: it is committed as it
    /// is processed, with no record, whatever the limits. Of the others a
    /// PE stops early (throttled) at an event past its optimism window,
    /// when its processed events fill the event budget, or when what else
    /// it holds for speculation is too much (see [`pressure`](Self::pressure));
    /// the event GVT names is processed in any case, so the run never stalls.
    fn process_batch(&mut self) -> Result<(usize, bool), Error> {
        // Safe events first: within a batch none comes after an event that
        // is not (the queue gives keys in order; what this PE sends, and
        // what a rollback puts back, comes later than the event doing it).
        let mut n = 0;
        if self.ev.q.peek().is_some_and(|k| k.time_bits() < self.round.safe.time_bits()) {
            let (done, stop) = self.safe_batch()?;
            if stop {
                return Ok((done, true));
            }
            n = done;
        }
        self.batch_loop::<false>(n)
    }

    /// The safe events at the head of the queue, up to a batch: a loop of
    /// its own, called once a batch, so the speculative one keeps its shape.
    #[inline(never)]
    fn safe_batch(&mut self) -> Result<(usize, bool), Error> {
        self.batch_loop::<true>(0)
    }

    /// Processes events until the batch holds `batch` (`n` done already);
    /// returns (processed, stopped early). `SAFE`: the safe events at the
    /// head of the queue only, committed as processed, up to the first
    /// that is not; safe below the bound's time (an event at it may be
    /// below the bound too, but a time is one compare). Otherwise the
    /// speculative events, with their limits.
    #[inline(always)]
    fn batch_loop<const SAFE: bool>(&mut self, mut n: usize) -> Result<(usize, bool), Error> {
        let safe = self.round.safe.time_bits();
        let full = !SAFE && self.pressure();
        let mut horizon = self.throttle.window.horizon();
        if !SAFE && !self.errors.is_empty() {
            // An event this PE processed failed: what lies beyond it is lost
            // if the error holds, so the PE waits for GVT to reach it (and
            // the run ends as soon as sequential would end it) instead of
            // speculating on.
            horizon = horizon.min(self.earliest_error_time());
        }
        while n < self.batch.size {
            let Some(e) = self.ev.q.pop() else { break };
            // The kernel is memory-bound: start loading the LP of an event a
            // few places ahead.
            if let Some(next) = self.ev.q.upcoming(4) {
                if let Some(lp) = self.lps.get(self.env.lp(next.dst)) {
                    crate::prefetch::prefetch(lp);
                }
            }
            let key = e.key();
            if self.cancels.dropped(e.item.inc, key) {
                continue; // a cancelled event: dropped here
            }
            if key.time >= self.round.bound {
                // Past the gate (a pause for a checkpoint): wait for GVT.
                self.ev.q.push(e);
                return Ok((n, true));
            }
            if SAFE {
                if key.time_bits() >= safe {
                    self.ev.q.push(e);
                    break;
                }
                self.process_safe(key, e.item)?;
                n += 1;
                continue;
            }
            if (key.time > horizon || full) && key > self.round.gvt {
                self.ev.q.push(e);
                self.held_back(full);
                return Ok((n, true));
            }
            let kp = self.env.kp(e.item.dst);
            let straggler = self.ev.kps[kp].processed.last().is_some_and(|p| p.key > key);
            if straggler {
                self.stats.primary_rollbacks += 1;
                self.throttle.window.rolled_back(key.time);
                self.rollback(kp, key, SpanKind::Straggler)?;
            } else if self.ev.uncommitted >= self.throttle.budget && !self.make_room(key)? {
                // Optimistic memory used up and every processed event precedes
                // this one: stop speculating until GVT moves past them.
                self.ev.q.push(e);
                self.stats.throttled += 1;
                return Ok((n, true));
            }
            self.process(key, e.item, kp)?;
            n += 1;
        }
        Ok((n, false))
    }

    /// Runs the forward handler of a safe pending event and commits it, as
    /// the sequential kernel does; routes its sends. Its KP's processed
    /// events are all final too (every one below it; later ones are rolled
    /// back first): they are committed before it, so each LP commits in
    /// key order.
    #[inline]
    fn process_safe(&mut self, key: Key, item: Queued<M::Msg>) -> Result<(), Error> {
        if self.ev.uncommitted > 0 {
            let kp = self.env.kp(item.dst);
            if let Some(last) = self.ev.kps[kp].processed.last() {
                if last.key > key {
                    self.stats.primary_rollbacks += 1;
                    self.throttle.window.rolled_back(key.time);
                    self.rollback(kp, key, SpanKind::Straggler)?;
                }
                if self.ev.kps[kp].processed.last().is_some() {
                    self.commit_kp(kp);
                }
            }
        }
        let lp = &mut self.lps[self.env.lp(item.dst)];
        // If the handler panics, `run_batch` keeps its error from here.
        self.batch.safe = Some((key, item.dst));
        let mut undo = M::Undo::default();
        let r =
            forward(self.env.model, self.env.s, lp, item.dst, &key, &item.msg, &mut undo, &mut self.batch.out, None);
        self.batch.safe = None;
        // Its error ends the run once GVT passes it, as a speculative
        // event's does: an earlier event elsewhere may still raise one.
        let past_end = r.unwrap_or_else(|e| {
            self.errors.insert(k3(key), (key, e));
            0
        });
        let committed =
            self.commits.commit(self.env.model, lp, item.dst, &key, &item.msg, &undo, past_end, &mut self.stats);
        if let Err(e) = committed {
            self.env.shared.failure.fail(e);
        }
        self.stats.processed += 1;
        self.stats.safe_events += 1;
        self.round.safe_time = key.time;
        self.send_all::<false>(0)
    }

    /// Runs the forward handler of a pending event, kept (with what undoes
    /// it) at the back of its KP's processed list, and routes its sends.
    fn process(&mut self, key: Key, item: Queued<M::Msg>, kp: usize) -> Result<(), Error> {
        let lp = &mut self.lps[self.env.lp(item.dst)];
        let k = &mut self.ev.kps[kp];
        if self.env.rollback == Rollback::StateSaving {
            k.saved.push_back(lp.state.clone());
        }
        let before = lp.counters;
        // If the handler panics, `run_batch` finishes the event from here.
        self.batch.current = Some(Current { kp, before });
        k.processed.push(Event::new(key, item.dst, item.inc, item.msg));
        let Some(rec) = k.processed.last_mut() else { unreachable!("just pushed") };
        // What an incremental model saves goes straight to its KP's journal.
        let journal = (self.env.rollback == Rollback::Incremental).then(|| {
            k.journal_mark = k.journal.len();
            &mut k.journal
        });
        let r = forward(
            self.env.model,
            self.env.s,
            lp,
            item.dst,
            &key,
            &rec.msg,
            &mut rec.undo,
            &mut self.batch.out,
            journal,
        );
        self.batch.current = None;
        // An error (bad send, panic) stays with the event: it stops the run
        // only if the event commits (a speculative state may be wrong).
        let (past_end, error) = match r {
            Ok(p) => (p, None),
            Err(e) => (0, Some(e)),
        };
        self.record(key, item.dst, kp, before, past_end, error)
    }

    /// Finishes the processed event at the back of KP `kp`'s list after its
    /// handler ran: its draws (from the LP's stream counters `before`),
    /// sends and error; routes its sends.
    #[inline(always)]
    fn record(
        &mut self,
        key: Key,
        dst: LpId,
        kp: usize,
        before: [u64; MAX_STREAMS as usize],
        past_end: u32,
        error: Option<Error>,
    ) -> Result<(), Error> {
        let lp = &mut self.lps[self.env.lp(dst)];
        let k = &mut self.ev.kps[kp];
        let mut draws = 0u64;
        let mut wide = false;
        for (s, (now, was)) in lp.counters.iter().zip(before).take(self.env.s.streams).enumerate() {
            let d = now - was;
            wide |= d >= 0xFFFF;
            draws |= (d & 0xFFFF) << (16 * s);
        }
        let (saved, saved_at) = if self.env.rollback == Rollback::Incremental {
            match k.journal.checked_len().and_then(|n| n.checked_sub(k.journal_mark)) {
                Some(n) => (n as u32, k.journal.start().wrapping_add(k.journal_mark as u32)),
                None => return Err(lost_journal(&mut k.journal, dst, key)),
            }
        } else {
            (0, k.journal.end_pos())
        };
        // The LP's history takes the event now, while its record is at
        // hand: committing then needs no look at the event (a rollback
        // takes it back out).
        let prev_time = lp.last_time;
        self.stats.ties += lp.record_commit(&key) as u64;
        self.stats.past_end += past_end as u64;
        let Some(rec) = k.processed.last_mut() else { unreachable!("the event is on its list") };
        rec.draws = if wide { WIDE } else { draws };
        rec.sent_at = k.sent.end_pos();
        rec.past_end = past_end;
        rec.saved_at = saved_at;
        rec.prev_time = prev_time;
        self.stats.saved_entries += saved as u64;
        if wide {
            self.ev.wide_draws.insert(k3(key), std::array::from_fn(|s| lp.counters[s] - before[s]));
        }
        if let Some(e) = error {
            self.errors.insert(k3(key), (key, e));
        }
        self.ev.uncommitted += 1;
        self.stats.processed += 1;
        self.send_all::<true>(kp)
    }

    /// Routes the sends of the event just processed on KP `kp`: queued here,
    /// parked at the pause, or sent to their PE; keeps a record of each
    /// (`RECORD`; a safe event's sends are never cancelled: `kp` is not
    /// used, and 0 will do).
    /// Remote sends are counted here (and uncounted if cancelled), so that
    /// fossil collection drops sent records without looking at them.
    #[inline(always)]
    fn send_all<const RECORD: bool>(&mut self, kp: usize) -> Result<(), Error> {
        // Field by field: the KP's sent records stay borrowed across the
        // loop while the queue and the transport take the sends (a send
        // costs what a sequential one does plus its record).
        let Pe { env, ev, io, round, stats, batch, .. } = self;
        let Events { q, kps, next_inc, .. } = ev;
        let sent = &mut kps[kp].sent;
        if RECORD {
            sent.reserve(batch.out.len());
        }
        let mut result = Ok(());
        for o in batch.out.iter().copied() {
            let inc = match env.route(o.dst) {
                None => enqueue::<M, Q>(q, next_inc, o.key, o.dst, o.msg),
                Some(pe) => {
                    count_remote::<M, N>(stats, &io.transport, pe, 1);
                    if N::ACTIVE && o.key.time >= env.s.pause {
                        io.parked.insert(k3(o.key), (o.dst, o.msg));
                        0
                    } else {
                        round.part.sent(o.key);
                        io.transport.send_event(pe, o.key, o.dst, o.msg).unwrap_or_else(|e| {
                            result = Err(e);
                            0
                        })
                    }
                }
            };
            if RECORD {
                sent.push(SentRec { dst: o.dst, key: o.key, inc });
            }
        }
        batch.out.clear();
        result
    }

    /// Counts (`n` = 1) or uncounts (`n` = -1, the send was cancelled) a
    /// send to PE `pe` in the committed-remote statistics.
    #[inline(always)]
    pub(super) fn count_remote(&mut self, pe: crate::layout::PeId, n: i64) {
        count_remote::<M, N>(&mut self.stats, &self.io.transport, pe, n);
    }
}

/// [`Pe::count_remote`] on the fields it touches.
#[inline(always)]
fn count_remote<M: Model, N: Network>(stats: &mut PeStats, transport: &Transport<'_, M::Msg, N>, pe: PeId, n: i64) {
    stats.remote = stats.remote.wrapping_add_signed(n);
    if N::ACTIVE && transport.elsewhere(pe) {
        stats.remote_process = stats.remote_process.wrapping_add_signed(n);
    }
}

/// The journal a handler replaced while it was lent (`Ctx::save_into`):
/// lost, not undoable, so the run stops here. Cold: kept off the event path.
#[cold]
#[inline(never)]
fn lost_journal<U>(journal: &mut crate::trail::Trail<U>, dst: LpId, key: Key) -> Error {
    journal.clear();
    let message = "the handler replaced the journal `Ctx::save_into` lent it (push onto it only)";
    Error::Model { lp: dst, time: key.time, message: message.into() }
}
