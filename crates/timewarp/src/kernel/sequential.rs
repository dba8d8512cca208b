//! The sequential kernel: one pending queue, no rollback machinery.
//!
//! Every speedup is measured against it. Events are committed the moment
//! they are processed. `--sync check` runs the same loop through
//! [`checked_forward`](super::check::checked_forward).

use std::time::Instant;

use crate::arena::Arena;
use crate::config::Sync;
use crate::error::Error;
use crate::event::Pending;
use crate::lp::Lp;
use crate::model::Model;
use crate::progress::Progress;
use crate::queue::{Entry, PendingQueue};
use crate::Config;

use super::{base_stats, check::checked_forward, finish, forward, init_lp, Report, Setup};

/// Events between two progress updates (a power of two: a mask test).
const PROGRESS_EVERY: u64 = 1 << 16;

/// How many events ahead the loop prefetches event records.
const PREFETCH: usize = 8;

/// Runs `model` sequentially (or in check mode) with pending queue `Q`.
pub(crate) fn run<M: Model, Q: PendingQueue>(model: &M, cfg: &Config) -> Result<Report<M::Results>, Error> {
    let s = Setup::new(model, cfg)?;
    let check = cfg.sync == Sync::Check;
    let mut stats = base_stats(model, cfg, &s);
    let t0 = Instant::now();

    let n = s.num_lps as usize;
    let mut lps: Vec<Lp<M::State>> = Vec::with_capacity(n);
    let mut arena: Arena<Pending<M::Msg>> = Arena::with_capacity(u32::MAX as usize - 1);
    let mut q = Q::default();
    let mut out = Vec::with_capacity(64);
    let mut first = Vec::new();
    let mut past_end = 0u64;

    for lp in 0..s.num_lps {
        let (rec, dropped) = init_lp(model, &s, lp, &mut out)?;
        if lp == 0 {
            // Most models give every LP a similar initial population: size the
            // arena once instead of doubling (and copying) it many times.
            arena.reserve(out.len().saturating_mul(n).min(1 << 28));
        }
        lps.push(rec);
        past_end += dropped as u64;
        enqueue::<M, Q>(&mut arena, &mut q, &mut out)?;
    }
    stats.init_seconds = t0.elapsed().as_secs_f64();

    let t1 = Instant::now();
    let mut progress = Progress::new(cfg.progress, s.end);
    let (mut committed, mut ties) = (0u64, 0u64);
    let mut trace = Vec::new();
    while let Some(e) = q.pop() {
        // Warm the caches for what comes next: the record PREFETCH events
        // ahead, and the LP of the one half as far (its record is warm by now).
        if let Some(h) = q.upcoming(PREFETCH) {
            arena.prefetch(h);
        }
        if let Some(h) = q.upcoming(PREFETCH / 2) {
            if let Some(lp) = lps.get(arena[h].dst as usize) {
                crate::arena::prefetch(lp);
            }
        }
        // Copy the record out and free its slot first: the LIFO free list
        // then hands this warm slot to the event's first send.
        let ev = arena[e.handle];
        arena.free(e.handle);
        let lp = &mut lps[ev.dst as usize];
        let dropped = if check {
            checked_forward(model, &s, lp, ev.dst, &ev.key, &ev.msg, &mut out, &mut first)?
        } else {
            let mut undo = M::Undo::default();
            let d = forward(model, &s, lp, ev.dst, &ev.key, &ev.msg, &mut undo, &mut out)?;
            model.commit(&ev.msg, &undo, ev.dst, ev.key.time);
            d
        };
        ties += lp.record_commit(&ev.key) as u64;
        if cfg.trace_lp == Some(ev.dst) {
            trace.push(ev.key);
        }
        past_end += dropped as u64;
        committed += 1;
        enqueue::<M, Q>(&mut arena, &mut q, &mut out)?;
        if committed & (PROGRESS_EVERY - 1) == 0 {
            progress.update(ev.key.time);
        }
    }
    progress.finish();

    stats.wall_seconds = t1.elapsed().as_secs_f64();
    stats.committed_events = committed;
    stats.processed_events = committed;
    stats.efficiency = 1.0;
    stats.rollback_efficiency = 1.0;
    stats.timestamp_ties = ties;
    stats.events_past_end = past_end;
    stats.peak_events = arena.high_water() as u64;
    stats.event_bytes = std::mem::size_of::<Pending<M::Msg>>() as u64;
    let mut report = finish(model, lps.iter().enumerate().map(|(i, l)| (i as u32, l)), stats);
    report.trace = trace;
    Ok(report)
}

/// Moves the handler's sends into the arena and the pending queue.
#[inline]
fn enqueue<M: Model, Q: PendingQueue>(
    arena: &mut Arena<Pending<M::Msg>>,
    q: &mut Q,
    out: &mut Vec<crate::model::Outgoing<M::Msg>>,
) -> Result<(), Error> {
    for o in out.drain(..) {
        let h = arena.alloc(Pending { key: o.key, dst: o.dst, msg: o.msg }).ok_or_else(|| Error::EventMemory {
            detail: format!("more than {} pending events in one PE", u32::MAX - 1),
        })?;
        q.push(Entry::new(o.key, h));
    }
    Ok(())
}
