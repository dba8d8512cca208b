//! The optimistic (Time Warp) kernel on worker threads.
//!
//! Each worker thread runs one PE ([`pe`]): it speculates, rolls back KPs
//! ([`kp`]) on stragglers with the model's reverse handler (or saved states)
//! and the automatic random-stream rewind, cancels what undone events sent
//! (directly on its own PE, by anti-message through the rings of [`comm`]
//! elsewhere), and commits below the GVT that [`gvt`] computes without
//! stopping the workers.

mod comm;
mod gvt;
mod kp;
mod pe;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::*};
use std::sync::Mutex;
use std::time::Instant;

use crate::error::Error;
use crate::key::Key;
use crate::mapping::BlockMapping;
use crate::model::Model;
use crate::progress::Progress;
use crate::queue::PendingQueue;
use crate::stats::GvtPoint;
use crate::Config;

use super::{base_stats, finish, Report, Setup};
use comm::Links;
use pe::Pe;

/// What the PEs of one process share besides their rings.
pub(crate) struct Shared {
    gvt: gvt::Gvt,
    failed: AtomicBool,
    error: Mutex<Option<Error>>,
    committed: AtomicU64,
    series: Mutex<Vec<GvtPoint>>,
}

impl Shared {
    fn new(pes: usize) -> Self {
        Shared {
            gvt: gvt::Gvt::new(pes),
            failed: AtomicBool::new(false),
            error: Mutex::new(None),
            committed: AtomicU64::new(0),
            series: Mutex::new(Vec::new()),
        }
    }

    /// Stops every PE; the first error is the one reported.
    fn fail(&self, e: Error) {
        let mut slot = self.error.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some(e);
        }
        self.failed.store(true, Release);
    }

    #[inline]
    fn failed(&self) -> bool {
        self.failed.load(Relaxed)
    }

    fn add_committed(&self, n: u64) {
        self.committed.fetch_add(n, Relaxed);
    }

    fn record_round(&self, g: Key, wall: f64) {
        let point = GvtPoint { gvt: g.time, wall, committed: self.committed.load(Relaxed) };
        self.series.lock().unwrap_or_else(|p| p.into_inner()).push(point);
    }
}

/// Ring slots per (sender, receiver) pair: enough to absorb a batch burst,
/// small enough that N² rings stay cheap.
fn ring_capacity(pes: usize) -> usize {
    (65_536 / pes.max(1)).clamp(1024, 16_384)
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// Runs `model` optimistically on `cfg.threads` worker threads.
pub(crate) fn run<M: Model, Q: PendingQueue>(model: &M, cfg: &Config) -> Result<Report<M::Results>, Error> {
    let s = Setup::new(model, cfg)?;
    let pes = cfg.threads;
    let map = BlockMapping::new(s.num_lps, pes, cfg.kps_per_pe);
    let shared = Shared::new(pes);
    let t0 = Instant::now();

    let done: Vec<Option<(Pe<'_, M, Q>, f64)>> = std::thread::scope(|sc| {
        let handles: Vec<_> = Links::<M::Msg>::mesh(pes, ring_capacity(pes))
            .into_iter()
            .enumerate()
            .map(|(id, links)| {
                let (s, map, shared) = (&s, &map, &shared);
                sc.spawn(move || {
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        let mut pe = Pe::<M, Q>::new(id, model, s, map, shared, links, cfg);
                        pe.init()?;
                        let init = t0.elapsed().as_secs_f64();
                        let mut progress = Progress::new(cfg.progress && id == 0, s.end);
                        let r = pe.run(&mut progress);
                        progress.finish();
                        r.map(|_| (pe, init))
                    }));
                    match r {
                        Ok(Ok(v)) => Some(v),
                        Ok(Err(e)) => {
                            shared.fail(e);
                            None
                        }
                        Err(p) => {
                            shared.fail(Error::Worker(format!("PE {id} panicked: {}", panic_text(p.as_ref()))));
                            None
                        }
                    }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().ok().flatten()).collect()
    });
    let total = t0.elapsed().as_secs_f64();
    if let Some(e) = shared.error.lock().unwrap_or_else(|p| p.into_inner()).take() {
        return Err(e);
    }
    let done: Vec<(Pe<'_, M, Q>, f64)> = done.into_iter().flatten().collect();
    if done.len() != pes {
        return Err(Error::Worker("a worker thread ended without a result".into()));
    }

    let mut stats = base_stats(model, cfg, &s);
    stats.init_seconds = done.iter().map(|d| d.1).fold(0.0, f64::max);
    stats.wall_seconds = total - stats.init_seconds;
    for (pe, _) in &done {
        let p = &pe.stats;
        stats.committed_events += p.committed;
        stats.processed_events += p.processed;
        stats.rolled_back_events += p.rolled_back;
        stats.primary_rollbacks += p.primary_rollbacks;
        stats.secondary_rollbacks += p.secondary_rollbacks;
        stats.anti_messages += p.anti_messages;
        stats.timestamp_ties += p.ties;
        stats.events_past_end += p.past_end;
        stats.peak_events += p.peak_events;
        stats.pes.push(p.clone());
    }
    let remote: u64 = done.iter().map(|d| d.0.stats.remote).sum();
    let c = stats.committed_events.max(1) as f64;
    stats.efficiency = stats.committed_events as f64 / stats.processed_events.max(1) as f64;
    stats.rollback_efficiency = 1.0 - stats.rolled_back_events as f64 / c;
    stats.remote_fraction = remote as f64 / c;
    stats.gvt_rounds = shared.gvt.rounds();
    stats.event_memory_per_pe = cfg.event_memory_per_pe() as u64;
    stats.kps_per_pe = cfg.kps_per_pe as u64;
    stats.event_bytes = std::mem::size_of::<crate::event::Event<M::Msg, M::Undo>>() as u64;
    stats.gvt_series = std::mem::take(&mut *shared.series.lock().unwrap_or_else(|p| p.into_inner()));
    let trace = done.iter().flat_map(|d| d.0.trace.iter().copied()).collect();
    let lps = done.iter().flat_map(|(pe, _)| pe.lps.iter()).enumerate().map(|(i, l)| (i as u32, l));
    let mut report = finish(model, lps, stats);
    report.trace = trace;
    Ok(report)
}
