//! The sequential kernel: one pending queue, no rollback machinery.
//!
//! Every speedup is measured against it. Events are committed the moment
//! they are processed. `--sync check` runs the same loop through
//! [`checked_forward`](super::check::checked_forward).

use std::time::Instant;

use crate::config::SyncMode;
use crate::error::Error;
use crate::event::Inline;
use crate::key::Key;
use crate::layout::PeId;
use crate::lp::Lp;
use crate::model::{Model, Outgoing};
use crate::partition::Profile;
use crate::progress::Progress;
use crate::queue::{Entry, PendingQueue};
use crate::stats::PeStats;
use crate::timeline::{Recorder, SpanKind, Timeline, Trace, SEQUENTIAL_CHUNK};
use crate::Config;

use super::commit::Committer;
use super::end::{alone, ProcessEnd};
use super::{check::checked_forward, forward, handler_panic, restore_events, start_lp, Setup};
use crate::report::{base_stats, Report};
use crate::segment::{Outcome, Pending, Segment};

/// Events between two progress updates (a power of two: a mask test).
const PROGRESS_EVERY: u64 = 1 << 16;

/// Events between two looks at a pause request (a power of two).
const CONTROL_EVERY: u64 = 1 << 10;

/// How many events ahead the loop prefetches LP records.
const PREFETCH: usize = 4;

/// Runs `model` sequentially (or in check mode) with pending queue `Q`.
pub(crate) fn run<M: Model, Q: PendingQueue<Inline<M::Msg>>>(
    model: &M,
    cfg: &Config,
    seg: &Segment<'_, M>,
) -> Result<Outcome<M>, Error> {
    match (seg.pause.is_finite() || seg.control.is_some(), cfg.timeline.is_some()) {
        (true, false) => run_segment::<M, Q, true, false, false>(model, cfg, seg, None),
        (false, false) => run_segment::<M, Q, false, false, false>(model, cfg, seg, None),
        (true, true) => run_segment::<M, Q, true, false, true>(model, cfg, seg, None),
        (false, true) => run_segment::<M, Q, false, false, true>(model, cfg, seg, None),
    }
}

/// [`run`] from time 0 to the end, counting committed events, handler time
/// and messages per LP into `profile` when `PROFILE` (a constant, so the
/// loop without it is the loop that never had it: a run-time `Option` test
/// cost 2.6 % of the instructions per event, callgrind; `docs/partitioning.md`).
pub(crate) fn run_profiled<M: Model, Q: PendingQueue<Inline<M::Msg>>, const PROFILE: bool>(
    model: &M,
    cfg: &Config,
    profile: Option<&mut Profile>,
) -> Result<Report<M::Results>, Error> {
    run_segment::<M, Q, false, PROFILE, false>(model, cfg, &Segment::whole(), profile)?.report()
}

/// The loop: looking for a pause between events when `PAUSABLE`, profiling
/// when `PROFILE`, recording a timeline span every
/// [`SEQUENTIAL_CHUNK`] events when `TRACE` (constants, so the loop of a
/// plain run is the loop that never had any: the pause tests cost 1.5 % of
/// the instructions per event, callgrind).
fn run_segment<
    M: Model,
    Q: PendingQueue<Inline<M::Msg>>,
    const PAUSABLE: bool,
    const PROFILE: bool,
    const TRACE: bool,
>(
    model: &M,
    cfg: &Config,
    seg: &Segment<'_, M>,
    mut profile: Option<&mut Profile>,
) -> Result<Outcome<M>, Error> {
    let s = Setup::of_segment(model, cfg, seg)?;
    let check = cfg.sync == SyncMode::Check;
    let mut stats = base_stats(model, cfg, s.num_lps);
    let t0 = Instant::now();

    let mut out = Vec::with_capacity(64);
    let (mut lps, mut q, past_end, mut peak) = start::<M, Q>(model, &s, seg, &mut out)?;
    let mut first = Vec::new();
    let mut journal = crate::trail::Trail::new();
    stats.init_seconds = t0.elapsed().as_secs_f64();

    let t1 = Instant::now();
    let mut progress = Progress::new(cfg.progress, cfg.progress_sink.as_ref(), s.end);
    let mut pe = PeStats::default();
    let mut commits = Committer::new(cfg);
    let mut timeline = if TRACE { Recorder::new(cfg, s.started, 1, 0, PeId::new(0)) } else { None };
    let mut chunk = timeline.mark();
    // The event being processed, for the error if a handler panics.
    let mut at = (0, 0.0);
    // The loop's result: whether it paused (rather than ran out of events).
    let looped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| -> Result<bool, Error> {
        let pause = s.pause;
        while let Some(e) = q.pop() {
            // Any point between two events is a cut: the next mark, or (below)
            // a pause asked for.
            if PAUSABLE && e.time >= pause {
                return Ok(put_back(&mut q, e));
            }
            // Warm the cache for the LP a few events ahead (the memory-bound part).
            if let Some(next) = q.upcoming(PREFETCH) {
                if let Some(lp) = lps.get(next.dst as usize) {
                    crate::prefetch::prefetch(lp);
                }
            }
            let ev = Event { key: e.key(), dst: e.item.dst, msg: e.item.msg };
            at = (ev.dst, ev.key.time);
            let lp = &mut lps[ev.dst as usize];
            let mut undo = M::Undo::default();
            let started = if PROFILE { Some(Instant::now()) } else { None };
            let dropped = if check {
                checked_forward(model, &s, lp, ev.dst, &ev.key, &ev.msg, &mut undo, &mut out, &mut first, &mut journal)?
            } else {
                forward(model, &s, lp, ev.dst, &ev.key, &ev.msg, &mut undo, &mut out, None)?
            };
            if PROFILE {
                if let (Some(p), Some(t)) = (profile.as_deref_mut(), started) {
                    p.record(ev.dst, ev.key.src(), t.elapsed().as_nanos() as u64);
                }
            }
            commits.commit(model, lp, ev.dst, &ev.key, &ev.msg, &undo, dropped, &mut pe)?;
            enqueue::<M, Q>(&mut q, &mut out, &mut peak);
            if pe.committed & (PROGRESS_EVERY - 1) == 0 {
                progress.update(ev.key.time);
            }
            if TRACE && pe.committed & (SEQUENTIAL_CHUNK - 1) == 0 {
                timeline.span(chunk, SpanKind::Events, SEQUENTIAL_CHUNK, ev.key.time);
                chunk = timeline.mark();
            }
            if PAUSABLE && pe.committed & (CONTROL_EVERY - 1) == 0 && seg.stop_requested() && !q.is_empty() {
                return Ok(true);
            }
        }
        Ok(false)
    }));
    let paused = match looped {
        Ok(r) => r?,
        Err(p) => return Err(handler_panic(at.0, at.1, p.as_ref())),
    };
    if !paused {
        progress.reached_end();
    }
    progress.finish();
    if TRACE && pe.committed & (SEQUENTIAL_CHUNK - 1) != 0 {
        timeline.span(chunk, SpanKind::Events, pe.committed & (SEQUENTIAL_CHUNK - 1), at.1);
    }

    stats.wall_seconds = t1.elapsed().as_secs_f64();
    stats.committed_events = pe.committed;
    stats.processed_events = pe.committed;
    stats.efficiency = 1.0;
    stats.rollback_efficiency = 1.0;
    stats.timestamp_ties = pe.ties;
    stats.events_past_end = past_end + pe.past_end;
    stats.peak_events = peak as u64;
    stats.event_bytes = std::mem::size_of::<Entry<Inline<M::Msg>>>() as u64;
    let timeline = Timeline::gather(cfg, std::iter::once(timeline));
    Ok(alone(model, stats, end::<M, Q>(paused, q, &mut lps, commits.trace, timeline)))
}

/// The LP records of a segment's start and the pending queue with their
/// first events (and a snapshot's); the sends past the end dropped, and
/// the queue's peak.
#[allow(clippy::type_complexity)]
fn start<M: Model, Q: PendingQueue<Inline<M::Msg>>>(
    model: &M,
    s: &Setup,
    seg: &Segment<'_, M>,
    out: &mut Vec<Outgoing<M::Msg>>,
) -> Result<(Vec<Lp<M::State>>, Q, u64, usize), Error> {
    let mut lps: Vec<Lp<M::State>> = Vec::new();
    super::reserve(&mut lps, s.num_lps as usize, "LP records")?;
    let mut q = Q::default();
    let (mut past_end, mut peak) = (0u64, 0usize);
    for lp in 0..s.num_lps {
        let (rec, dropped) = start_lp(model, s, seg, lp, out)?;
        lps.push(rec);
        past_end += dropped as u64;
        enqueue::<M, Q>(&mut q, out, &mut peak);
    }
    restore_events(seg, |_| true, out);
    enqueue::<M, Q>(&mut q, out, &mut peak);
    Ok((lps, q, past_end, peak))
}

/// What the process holds when the loop stops: a cut (`paused`: the LPs
/// and the pending events) or the end.
fn end<M: Model, Q: PendingQueue<Inline<M::Msg>>>(
    paused: bool,
    mut q: Q,
    lps: &mut Vec<Lp<M::State>>,
    trace: Vec<Key>,
    timeline: Option<Timeline>,
) -> ProcessEnd<'_, M> {
    if paused {
        let mut events = Vec::with_capacity(q.len());
        q.drain_unordered(|e| events.push(Pending { dst: e.item.dst, key: e.key(), msg: e.item.msg }));
        let lps = std::mem::take(lps).into_iter().enumerate().map(|(i, l)| (i as u32, l)).collect();
        ProcessEnd::Cut { lps, events, trace, timeline }
    } else {
        let lps = lps.iter().enumerate().map(|(i, l)| (i as u32, l)).collect();
        ProcessEnd::End { lps, trace, timeline }
    }
}

/// Puts back the first event past the pause (out of the loop's way).
#[cold]
#[inline(never)]
fn put_back<P: Copy + Send, Q: PendingQueue<P>>(q: &mut Q, e: Entry<P>) -> bool {
    q.push(e);
    true
}

/// Moves the handler's sends into the pending queue.
#[inline]
fn enqueue<M: Model, Q: PendingQueue<Inline<M::Msg>>>(
    q: &mut Q,
    out: &mut Vec<crate::model::Outgoing<M::Msg>>,
    peak: &mut usize,
) {
    for o in out.drain(..) {
        q.push(Entry::new(o.key, Inline { dst: o.dst, msg: o.msg }));
    }
    *peak = (*peak).max(q.len());
}

/// The event being processed.
struct Event<Msg> {
    key: crate::key::Key,
    dst: crate::key::LpId,
    msg: Msg,
}
