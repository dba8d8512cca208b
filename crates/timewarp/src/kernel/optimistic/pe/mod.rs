//! A processing element: one partition of the LPs with its own arena,
//! pending queue, KPs, links and statistics. A worker thread runs it one
//! scheduler iteration at a time (see `scheduling`: which worker, when).
//!
//! This file holds the PE and its worker loop; its other concerns are
//! methods in files of their own: a batch of events (`batch`), GVT rounds
//! and what a new GVT sets off (`round`), rollback and undo (`rollback`),
//! cancellation (`cancel`), fossil collection and speculative errors
//! (`fossil`), the memory budget and compaction (`throttle`).

mod batch;
mod cancel;
mod fossil;
mod rollback;
mod round;
mod throttle;

use std::time::Instant;

use rustc_hash::FxHashMap;

use crate::error::Error;
use crate::event::Queued;
use crate::key::{Key, LpId};
use crate::layout::{Layout, PeId};
use crate::lp::Lp;
use crate::mapping::Place;
use crate::model::{Model, Rollback, MAX_STREAMS};
use crate::queue::{Entry, PendingQueue};
use crate::transport::Visit;

use super::super::{restore_events, start_lp, Segment, Setup};
use super::kp::Kp;
use super::Shared;
use crate::kernel::commit::Committer;
use crate::segment::Pending;
use crate::stats::PeStats;
use crate::timeline::{Recorder, SpanKind, Trace};
use crate::transport::Wire;
use crate::transport::{Links, Network, Transport};
use batch::Batch;
use cancel::Cancels;
use round::Round;
use throttle::{Stall, Throttle};

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

/// An optimistic PE: its LPs and events, and its part in each concern of
/// Time Warp, one field per concern.
pub(crate) struct Pe<'a, M: Model, Q, N, P> {
    /// Who and where it is, and what it shares (fixed for the run).
    pub(super) env: Env<'a, M, N, P>,
    /// This PE's LPs: ids (in id order) and records, index for index.
    pub(crate) ids: Vec<LpId>,
    pub(crate) lps: Vec<Lp<M::State>>,
    /// Pending and processed events.
    pub(super) ev: Events<M, Q>,
    /// Messages to and from other PEs.
    pub(super) io: Io<'a, M, N>,
    /// Received events (for anti-messages) and cancelled ones.
    cancels: Cancels,
    /// Errors raised by processed events (by key: no two processed events
    /// share one): reported if the event commits, forgotten if it is undone.
    pub(super) errors: FxHashMap<(u64, u32, u64), (Key, Error)>,
    /// The batch: its size, the running handler and its sends, timing.
    batch: Batch<M>,
    /// The memory budget and the optimism window.
    throttle: Throttle,
    /// Since when the PE has been throttled or idle (for its statistics).
    stall: Stall,
    /// This PE's part in GVT rounds and what it knows of GVT.
    round: Round,
    pub(crate) stats: PeStats,
    pub(crate) commits: Committer,
    /// Whether the run paused (for a checkpoint) rather than ended.
    pub(crate) paused: bool,
    /// The iteration under way takes its GVT step only (`gvt_turn`).
    gvt_only: bool,
    /// This PE's timeline track (`None`: not recording).
    pub(crate) timeline: Option<Box<Recorder>>,
}

/// What a PE is and shares, fixed for the run.
pub(super) struct Env<'a, M, N, P> {
    /// Global PE id (over all processes).
    pub(super) id: PeId,
    /// Index among this process' PEs.
    pub(super) local: usize,
    pub(super) net: &'a N,
    pub(super) model: &'a M,
    /// How this run undoes events ([`Model::rollback`], asked once).
    pub(super) rollback: Rollback,
    pub(super) s: &'a Setup,
    pub(super) map: &'a P,
    pub(super) shared: &'a Shared,
    pub(super) first_lp: LpId,
}

impl<M, N, P: Place> Env<'_, M, N, P> {
    /// The global PE that events for LP `dst` go to; `None` for this one.
    #[inline]
    pub(super) fn route(&self, dst: LpId) -> Option<PeId> {
        let pe = self.map.pe_of(dst);
        (pe != self.id).then_some(pe)
    }

    /// The KP of LP `dst` (one of this PE's).
    #[inline]
    pub(super) fn kp(&self, dst: LpId) -> usize {
        self.map.kp_of_own(dst, self.first_lp)
    }

    /// The index of LP `dst` (one of this PE's) in `Pe::lps`.
    #[inline]
    pub(super) fn lp(&self, dst: LpId) -> usize {
        self.map.local_of(dst, self.first_lp)
    }
}

/// A PE's events: pending in its queue, processed (not yet committed) on
/// their KPs' lists.
pub(super) struct Events<M: Model, Q> {
    pub(super) q: Q,
    pub(super) kps: Vec<Kp<M::State, M::Msg, M::Undo>>,
    /// Next incarnation number.
    pub(super) next_inc: u32,
    /// Processed events not yet committed (what the budget bounds).
    pub(super) uncommitted: usize,
    /// Exact draw counts of processed events that drew more than a packed
    /// 16-bit field holds (by key; their `draws` is [`WIDE`]).
    pub(super) wide_draws: FxHashMap<(u64, u32, u64), [u64; MAX_STREAMS as usize]>,
}

/// `Event::draws` of an event whose draw counts are kept in
/// `Events::wide_draws` (a packed value never has all four 16-bit fields at
/// 0xFFFF).
pub(super) const WIDE: u64 = u64::MAX;

impl<M: Model, Q: PendingQueue<Queued<M::Msg>>> Events<M, Q> {
    /// Queues a new pending event; returns its incarnation.
    #[inline]
    pub(super) fn enqueue(&mut self, key: Key, dst: LpId, msg: M::Msg) -> u32 {
        enqueue::<M, Q>(&mut self.q, &mut self.next_inc, key, dst, msg)
    }

    /// Times of the last processed (not undone) event of each KP.
    #[inline]
    pub(super) fn latest(&self) -> impl Iterator<Item = f64> + '_ {
        self.kps.iter().filter_map(|k| k.processed.last()).map(|e| e.key.time)
    }
}

/// [`Events::enqueue`] on the fields it touches (the send loop keeps a KP
/// borrowed beside them).
#[inline(always)]
pub(super) fn enqueue<M: Model, Q: PendingQueue<Queued<M::Msg>>>(
    q: &mut Q,
    next_inc: &mut u32,
    key: Key,
    dst: LpId,
    msg: M::Msg,
) -> u32 {
    let inc = *next_inc;
    *next_inc = inc.wrapping_add(1);
    q.push(Entry::new(key, Queued { dst, inc, msg }));
    inc
}

/// A PE's messages to and from other PEs.
pub(super) struct Io<'a, M: Model, N> {
    /// The way to every other PE, in this process or another.
    pub(super) transport: Transport<'a, M::Msg, N>,
    /// The anti-messages the last drain took in (kept for its capacity):
    /// sender, channel number, key, destination.
    pub(super) antis: Vec<(PeId, u32, Key, LpId)>,
    /// Across processes: events for other PEs at or past the pause, kept
    /// here instead of sent (they would be in flight at the cut), by key.
    pub(super) parked: FxHashMap<(u64, u32, u64), (LpId, M::Msg)>,
}

/// A key as a hash-map key.
#[inline]
pub(super) fn k3(k: Key) -> (u64, u32, u64) {
    (k.time.to_bits(), k.age, k.tie)
}

/// What the worker pool (`scheduling/`) needs of a PE: defined here, with
/// the PE, so the pool depends on the PE and not the other way round.
pub(crate) trait Runnable {
    /// One scheduler iteration.
    fn step(&mut self) -> Result<Iteration, Error>;
    /// Seconds spent processing events since the last call (timed only
    /// under the adaptive policies).
    fn take_busy(&mut self) -> f64;
    /// Counts an iteration run by a worker other than its primary one.
    fn count_foreign(&mut self);
    /// How far it has got in virtual time.
    fn progress_time(&self) -> f64;
    /// An iteration without its batch and its drain: its step through the
    /// GVT round under way; true when the PE is done.
    fn gvt_turn(&mut self) -> Result<bool, Error>;
    /// Its worker asks for the GVT rounds (it runs other PEs too): the PE
    /// asks only when it cannot go on.
    fn rounds_by_worker(&mut self);
    /// Bytes of the records of its processed, uncommitted events.
    fn held_records(&self) -> usize;
}

impl<M: Model, Q: PendingQueue<Queued<M::Msg>>, N: Network, P: Place> Runnable for Pe<'_, M, Q, N, P> {
    #[inline]
    fn step(&mut self) -> Result<Iteration, Error> {
        self.iterate()
    }

    #[inline]
    fn take_busy(&mut self) -> f64 {
        std::mem::take(&mut self.batch.busy)
    }

    #[inline]
    fn count_foreign(&mut self) {
        self.stats.foreign_iterations += 1;
    }

    /// The time of the latest event this PE has processed and not undone
    /// (LADM helps orphan PEs that are behind). Computed when asked: the
    /// event loop stays as it is for the policies that never ask.
    fn progress_time(&self) -> f64 {
        self.latest_time().max(self.round.gvt.time)
    }

    #[inline]
    fn gvt_turn(&mut self) -> Result<bool, Error> {
        // An iteration without its batch: `gvt_step` keeps one caller, and
        // stays inlined there with the fossil collection in it (with two,
        // a speculative event on one PE cost 1–2 % more).
        self.gvt_only = true;
        let r = self.iterate();
        self.gvt_only = false;
        r.map(|i| i == Iteration::Finished)
    }

    fn rounds_by_worker(&mut self) {
        self.round.by_worker();
    }

    #[inline]
    fn held_records(&self) -> usize {
        self.ev.uncommitted * std::mem::size_of::<crate::event::Event<M::Msg, M::Undo>>()
    }
}

impl<M: Model, Q: PendingQueue<Queued<M::Msg>>, N, P> Pe<'_, M, Q, N, P> {
    /// The time of the latest event this PE processed and has not undone,
    /// a safe one included (0 before the first).
    fn latest_time(&self) -> f64 {
        self.ev.latest().fold(self.round.safe_time, f64::max)
    }
}

impl<M: Model, Q, N, P> Pe<'_, M, Q, N, P> {
    /// The KPs of this PE (`Config::kps_per_pe`, capped at the LPs per PE).
    pub(crate) fn kps_in_use(&self) -> usize {
        self.ev.kps.len()
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
        let layout = Layout::new(rank, ranks, pes);
        let id = layout.global(local);
        let rollback = model.rollback();
        Pe {
            env: Env { id, local, net, model, rollback, s, map, shared, first_lp: map.first_lp(id) },
            ids: Vec::new(),
            lps: Vec::new(),
            ev: Events {
                q: Q::default(),
                kps: (0..map.kps_per_pe()).map(|_| Kp::new()).collect(),
                next_inc: 0,
                uncommitted: 0,
                wide_draws: FxHashMap::default(),
            },
            io: Io {
                transport: Transport::new(local, layout, links, net),
                antis: Vec::new(),
                parked: FxHashMap::default(),
            },
            cancels: Cancels::new(map.pes()),
            errors: FxHashMap::default(),
            batch: Batch::new(cfg),
            throttle: Throttle::new(cfg),
            stall: Stall::default(),
            round: Round::new(cfg, id, s.end, shared.gvt.gate(), layout.pes() == 1),
            stats: PeStats::default(),
            commits: Committer::new(cfg),
            paused: false,
            gvt_only: false,
            timeline: Recorder::new(cfg, s.started, layout.pes(), rank, id),
        }
    }

    /// Creates this PE's LPs and routes their initial events.
    pub(crate) fn init(&mut self, seg: &Segment<'_, M>) -> Result<(), Error> {
        let ids = self.env.map.lps_of(self.env.id);
        super::super::reserve(&mut self.lps, ids.len(), "LP records")?;
        let mut out = std::mem::take(&mut self.batch.out);
        let (map, id) = (self.env.map, self.env.id);
        restore_events(seg, |dst| map.pe_of(dst) == id, &mut out);
        for o in out.drain(..) {
            self.ev.enqueue(o.key, o.dst, o.msg);
        }
        for &lp in &ids {
            let (rec, dropped) = start_lp(self.env.model, self.env.s, seg, lp, &mut out)?;
            self.lps.push(rec);
            self.stats.past_end += dropped as u64;
            for o in out.drain(..) {
                match self.env.route(o.dst) {
                    None => {
                        self.ev.enqueue(o.key, o.dst, o.msg);
                    }
                    Some(pe) => {
                        self.io.transport.send_event(pe, o.key, o.dst, o.msg)?;
                    }
                }
            }
        }
        self.batch.out = out;
        self.ids = ids;
        Ok(())
    }

    /// One scheduler iteration: inboxes, GVT, a batch of events, flush. A
    /// worker thread calls it until it returns [`Iteration::Finished`] (GVT
    /// passed everything, the pause, or the run failed), on any worker: the
    /// PE keeps everything between two calls.
    pub(crate) fn iterate(&mut self) -> Result<Iteration, Error> {
        let t0 = *self.round.t0.get_or_insert_with(Instant::now);
        self.stats.iterations += u64::from(!self.gvt_only);
        if self.env.shared.failed() {
            self.report_earlier_error();
            self.round.progress.finish();
            return Ok(Iteration::Finished);
        }
        // A GVT-only turn takes in nothing: phase B drains in its report,
        // and the rest waits for the PE's own iteration (on 1 worker × 16
        // PEs these turns were 42 % of the looks at the 15 incoming rings).
        let received = if self.gvt_only { 0 } else { self.drain()? };
        if self.gvt_step(t0)? {
            self.stall.end(&mut self.stats);
            return Ok(Iteration::Finished);
        }
        if self.gvt_only {
            return Ok(Iteration::Idle);
        }
        let (done, throttled) = self.run_batch()?;
        self.flush(done == 0)?;
        let idle = done == 0 && received == 0;
        self.stall.iterated(&mut self.stats, done, throttled, idle && !throttled);
        self.round.iterated(&self.env.shared.gvt, throttled || idle);
        Ok(if idle { Iteration::Idle } else { Iteration::Worked(done) })
    }

    /// Takes in messages from other PEs (of this process or another):
    /// events straight from the transport into the queue, anti-messages
    /// after them (each follows its event on its channel, so the event is
    /// in by then, and cancelling may roll back, which needs the whole PE).
    pub(super) fn drain(&mut self) -> Result<usize, Error> {
        let mut antis = std::mem::take(&mut self.io.antis);
        let (ev, cancels) = (&mut self.ev, &mut self.cancels);
        let n = self.io.transport.drain_with(|from, w| match w {
            Wire::Event { key, dst, cseq, msg } => {
                let inc = ev.enqueue(key, dst, msg);
                cancels.received(from, cseq, key.time, inc);
            }
            Wire::Anti { key, dst, cseq } => antis.push((from, cseq, key, dst)),
        })?;
        for (from, cseq, key, dst) in antis.drain(..) {
            self.annihilate(from, cseq, key, dst)?;
        }
        self.io.antis = antis;
        Ok(n)
    }

    /// Moves what waits for another PE on (only flushes that hand something
    /// to another process are exchanges in the timeline); `idle`: the batch
    /// processed nothing.
    fn flush(&mut self, idle: bool) -> Result<(), Error> {
        let exchange = if N::ACTIVE && self.io.transport.waiting() { self.timeline.mark() } else { None };
        // (Read only across processes: one process never visits a courier.)
        let next = if N::ACTIVE && !idle { self.ev.q.peek() } else { None };
        let visit = next.map_or(Visit::Idle, |k| Visit::Busy(k.time));
        self.io.transport.flush(&self.env.shared.gvt, visit)?;
        self.timeline.span(exchange, SpanKind::Exchange, 0, 0.0);
        Ok(())
    }

    /// After a pause, with every worker stopped: moves what waits behind a
    /// full ring into it and takes in what arrived; returns whether anything
    /// moved (the caller repeats over all PEs until nothing does).
    pub(crate) fn settle(&mut self) -> Result<bool, Error> {
        let spilled = self.io.transport.spilled();
        self.io.transport.flush(&self.env.shared.gvt, Visit::Idle)?;
        let received = self.drain()?;
        Ok(spilled > 0 || received > 0)
    }

    /// The pending events of a paused PE: its queue without the cancelled
    /// ones, and the events it parked for other processes.
    pub(crate) fn take_pending(&mut self) -> Result<Vec<Pending<M::Msg>>, Error> {
        if self.ev.uncommitted > 0 {
            return Err(Error::Internal(format!(
                "PE {} paused with {} processed events not committed",
                self.env.id, self.ev.uncommitted
            )));
        }
        let mut v = Vec::with_capacity(self.ev.q.len() + self.io.parked.len());
        let cancelled = &mut self.cancels.cancelled;
        self.ev.q.drain_unordered(|e| {
            if cancelled.get(&e.item.inc) == Some(&e.key()) {
                cancelled.remove(&e.item.inc);
            } else {
                v.push(Pending { dst: e.item.dst, key: e.key(), msg: e.item.msg });
            }
        });
        for ((t, age, tie), (dst, msg)) in self.io.parked.drain() {
            v.push(Pending { dst, key: Key { time: f64::from_bits(t), age, tie }, msg });
        }
        Ok(v)
    }
}
