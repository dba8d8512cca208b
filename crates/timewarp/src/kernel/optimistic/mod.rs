//! The optimistic (Time Warp) kernel on worker threads.
//!
//! Worker threads run PEs ([`pe`]; which worker runs which PE, when:
//! [`scheduling`]). A PE speculates, rolls back KPs
//! ([`kp`]) on stragglers with the model's reverse handler (or saved states)
//! and the automatic random-stream rewind, cancels what undone events sent
//! (directly on its own PE, by anti-message through its
//! [`Transport`](crate::transport::Transport) elsewhere: the rings in its
//! process, the network beyond), and commits below the GVT that [`gvt`](crate::gvt)
//! computes without stopping the workers.

mod kp;
pub(crate) mod pe;
mod scheduling;
mod shared_worker;
mod window;

use std::sync::atomic::{AtomicU64, Ordering::*};
use std::sync::Mutex;
use std::time::Instant;

use crate::error::Error;
use crate::key::Key;
use crate::mapping::{with_place, Place};
use crate::model::Model;
use crate::queue::PendingQueue;
use crate::stats::{GvtPoint, WorkerStats};
use crate::Config;

use super::end::{process_end, Finished, Parts, Reach};
use super::workers::{run_workers, Failure, Ran};
use super::{Setup, Sizes};
use crate::layout::Layout;
use crate::report::{base_stats, parallel_stats};
use crate::segment::{Outcome, Pending, Segment};
use crate::stats::Stats;
use crate::transport::{Links, Network};
use pe::Pe;
use scheduling::Pool;

/// What the PEs of one process share besides their rings.
pub(crate) struct Shared {
    pub(crate) gvt: crate::gvt::Gvt,
    pub(crate) failure: Failure,
    committed: AtomicU64,
    series: Mutex<Series>,
}

impl Shared {
    /// For `pes` PEs in this process, of a model with this lookahead, for
    /// segment `seg` (a single process can also pause on request:
    /// `single`).
    pub(crate) fn new<M: Model>(pes: usize, s: &Setup, seg: &Segment<'_, M>, single: bool) -> Self {
        let control = if single { seg.control } else { None };
        let start = seg.start.map_or(0.0, |snap| snap.time());
        Shared {
            gvt: crate::gvt::Gvt::new(pes, s.lookahead).pausing(s.pause, control, start, s.end),
            failure: Failure::default(),
            committed: AtomicU64::new(0),
            series: Mutex::new(Series::default()),
        }
    }

    #[inline]
    fn failed(&self) -> bool {
        self.failure.failed()
    }

    fn add_committed(&self, n: u64) {
        self.committed.fetch_add(n, Relaxed);
    }

    fn record_round(&self, g: Key, wall: f64) {
        let point = GvtPoint { gvt: g.time, wall, committed: self.committed.load(Relaxed) };
        self.series.lock().unwrap_or_else(|p| p.into_inner()).push(point);
    }
}

/// Most points the GVT series keeps (runs with 10^5+ rounds exist).
const SERIES_MAX: usize = 4096;

/// GVT per round, thinned to at most [`SERIES_MAX`] evenly spaced points:
/// when full, every other point goes and only every `stride`-th round is
/// kept from then on.
#[derive(Default)]
struct Series {
    points: Vec<GvtPoint>,
    stride: u64,
    seen: u64,
}

impl Series {
    fn push(&mut self, p: GvtPoint) {
        let stride = self.stride.max(1);
        self.seen += 1;
        if (self.seen - 1) % stride != 0 {
            return;
        }
        if self.points.len() == SERIES_MAX {
            let mut i = 0;
            self.points.retain(|_| {
                i += 1;
                i % 2 == 1
            });
            self.stride = stride * 2;
            if (self.seen - 1) % self.stride != 0 {
                return;
            }
        }
        self.points.push(p);
    }
}

/// Ring slots per (sender, receiver) pair, each slot `slot` bytes, for a
/// model whose LPs and events take `model_bytes` in this process. A ring
/// only absorbs the sends between two drains by its receiver: what does
/// not fit waits in the sender's FIFO, so a small ring costs speed, never
/// correctness. Up to 64 PEs a PE's incoming rings hold about 65,536
/// slots in all; beyond, all the rings of the process hold about 4 M
/// slots, so their memory stops growing with the square of the thread
/// count. And all the rings of the process take at most half the model's
/// own bytes (at least [`RING_BYTES_MIN`]): on 16 PEs a 1,056-node
/// network's rings held 3–5 times what the whole sequential run did. At
/// least [`RING_SLOTS_MIN`] slots per ring (a batch's sends).
pub(crate) fn ring_capacity(pes: usize, slot: u64, model_bytes: u64) -> usize {
    let pes = pes.max(1);
    let by_pes = if pes <= 64 { (65_536 / pes).clamp(1024, 16_384) } else { (4_194_304 / (pes * pes)).max(16) };
    let rings = (pes * (pes - 1)).max(1) as u64;
    let by_bytes = ((model_bytes / 2).max(RING_BYTES_MIN) / rings.saturating_mul(slot.max(1))) as usize;
    by_pes.min(by_bytes).max(RING_SLOTS_MIN.min(by_pes))
}

/// The least bytes the rings of a process may take in all (see
/// [`ring_capacity`]): below it a ring's memory is not worth saving.
pub(crate) const RING_BYTES_MIN: u64 = 1 << 20;

/// The least slots of a ring (see [`ring_capacity`]).
pub(crate) const RING_SLOTS_MIN: usize = 64;

/// The bytes of `kps` KPs on each of a process' `pes` PEs and of the rings
/// between them, for a model whose LPs and events take `model_bytes`
/// (for the run's memory estimate, `run::memory`); the ring slots are what
/// the run uses ([`ring_capacity`]).
pub(crate) fn fixed_bytes<M: Model>(pes: usize, kps: u64, model_bytes: u64) -> (u64, u64) {
    let n = pes as u64;
    let kp = std::mem::size_of::<kp::Kp<M::State, M::Msg, M::Undo>>() as u64;
    let ring = ring_slots::<M>(pes, model_bytes) as u64 * ring_slot::<M>();
    (n.saturating_mul(kps).saturating_mul(kp), n.saturating_mul(n.saturating_sub(1)).saturating_mul(ring))
}

/// [`ring_capacity`] for `model`'s messages.
fn ring_slots<M: Model>(pes: usize, model_bytes: u64) -> usize {
    ring_capacity(pes, ring_slot::<M>(), model_bytes)
}

/// The bytes of one ring slot for `model`'s messages.
fn ring_slot<M: Model>() -> u64 {
    std::mem::size_of::<crate::transport::Wire<M::Msg>>() as u64
}

/// Runs `model` optimistically: `cfg.pes_per_process()` PEs on
/// `cfg.threads` worker threads in each process of `x`, reached through
/// network `N`, with rings sized for the `sizes` the run measured.
pub(crate) fn run<M: Model, Q: PendingQueue<crate::event::Queued<M::Msg>>, N: Network, X: Reach<N>>(
    model: &M,
    cfg: &Config,
    seg: &Segment<'_, M>,
    x: &X,
    sizes: Sizes,
) -> Result<Outcome<M>, Error> {
    let s = Setup::of_segment(model, cfg, seg)?;
    let layout = cfg.layout(x.rank(), x.count());
    let pes = layout.pes_per_process();
    let placement = cfg.placement(s.num_lps, &layout)?;
    with_place!(placement, map => {
        let net = x.connect(cfg, pes);
        // Only a single process can pause on request (processes would have to agree on when).
        let shared = Shared::new(pes, &s, seg, layout.ranks() == 1);
        let rings = ring_slots::<M>(pes, sizes.model_bytes);
        let Ran { pes: mut done, workers, total, .. } =
            run_pes::<M, Q, N, _>(model, cfg, &s, seg, map, &shared, &net, layout, rings)?;
        let stats = process_stats(model, cfg, &s, &shared, &done, workers, total);
        if !N::ACTIVE && done[0].0.paused {
            // Messages sent in the last round may still be in the rings.
            // (Across processes nothing is in flight at a cut: events for
            // other PEs at or past the mark are parked at the sender.)
            while done.iter_mut().map(|d| d.0.settle()).try_fold(false, |a, r| r.map(|b| a | b))? {}
        }
        let end = process_end(cfg, &mut done)?;
        x.end(model, cfg, stats, &net, 0, end)
    })
}

impl<M: Model, Q: PendingQueue<crate::event::Queued<M::Msg>>, N: Network, P: Place> Finished<M> for Pe<'_, M, Q, N, P> {
    fn parts(&mut self) -> Parts<'_, M::State> {
        Parts {
            paused: self.paused,
            ids: &mut self.ids,
            lps: &mut self.lps,
            trace: &self.commits.trace,
            timeline: &mut self.timeline,
        }
    }
    fn take_pending(&mut self) -> Result<Vec<Pending<M::Msg>>, Error> {
        Pe::take_pending(self)
    }
}

/// PEs after a run, each with the seconds its initialisation took.
pub(crate) type Done<'a, M, Q, N, P> = Vec<(Pe<'a, M, Q, N, P>, f64)>;

/// Runs this process' PEs (those of `layout`) on `cfg.threads` workers
/// until GVT passes the end; returns them and the total seconds.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_pes<'a, M: Model, Q: PendingQueue<crate::event::Queued<M::Msg>>, N: Network, P: Place>(
    model: &'a M,
    cfg: &'a Config,
    s: &'a Setup,
    seg: &'a Segment<'a, M>,
    map: &'a P,
    shared: &'a Shared,
    net: &'a N,
    layout: Layout,
    rings: usize,
) -> Result<Ran<Pe<'a, M, Q, N, P>>, Error> {
    let pes = layout.pes_per_process();
    let t0 = Instant::now();
    // Doorbells where a worker runs several PEs (see `transport::ring`).
    let shared_workers = cfg.threads < pes;
    let links: Vec<Mutex<Option<Links<M::Msg>>>> =
        Links::<M::Msg>::mesh(&layout, rings, shared_workers).into_iter().map(|l| Mutex::new(Some(l))).collect();
    let pool = Pool::<M, Q, N, P>::new(pes, cfg, shared);
    let inits: Vec<f64> = (0..pes).map(|_| 0.0).collect();
    let inits = Mutex::new(inits);
    let workers = run_workers((0..cfg.threads).collect(), &shared.failure, |_, w| {
        // Each worker creates its own PEs (their memory is first touched
        // by the thread that will run them, under every policy but dynamic).
        for p in pool.own(w) {
            let l = links[p].lock().unwrap_or_else(|e| e.into_inner()).take();
            let l = l.ok_or_else(|| Error::Internal(format!("the links of PE {p} were taken twice")))?;
            let mut pe = Pe::<M, Q, N, P>::new(p, net, layout.rank(), layout.ranks(), model, s, map, shared, l, cfg);
            pe.init(seg)?;
            inits.lock().unwrap_or_else(|e| e.into_inner())[p] = t0.elapsed().as_secs_f64();
            pool.place(p, pe);
        }
        pool.work(w)
    })?;
    let inits = inits.into_inner().unwrap_or_else(|e| e.into_inner());
    let done = pool.into_pes()?.into_iter().zip(inits).collect();
    Ok(Ran { pes: done, workers, total: t0.elapsed().as_secs_f64(), net_events: 0 })
}

/// The statistics of this process' PEs (no digest yet).
pub(crate) fn process_stats<M: Model, Q, N, P>(
    model: &M,
    cfg: &Config,
    s: &Setup,
    shared: &Shared,
    done: &Done<'_, M, Q, N, P>,
    workers: Vec<WorkerStats>,
    total: f64,
) -> Stats {
    let inits = done.iter().map(|d| d.1);
    let mut stats = parallel_stats(base_stats(model, cfg, s.num_lps), total, inits, done.iter().map(|d| &d.0.stats));
    stats.workers = workers;
    stats.gvt_rounds = shared.gvt.rounds();
    stats.event_memory_per_pe = cfg.event_memory_per_pe() as u64;
    stats.kps_per_pe = done.first().map_or(cfg.kps_per_pe, |d| d.0.kps_in_use()) as u64;
    stats.event_bytes = std::mem::size_of::<crate::event::Event<M::Msg, M::Undo>>() as u64;
    stats.gvt_series = std::mem::take(&mut shared.series.lock().unwrap_or_else(|p| p.into_inner()).points);
    stats
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_memory_grows_gently_with_threads() {
        // A model far larger than its rings: the thread count decides.
        let big = u64::MAX / 4;
        let cap = |pes| ring_capacity(pes, 64, big);
        assert_eq!(cap(2), 16_384);
        assert_eq!(cap(16), 4096);
        assert_eq!(cap(64), 1024);
        let slots = |pes: usize| pes * (pes - 1) * cap(pes);
        for pes in [65, 100, 256, 512] {
            assert!(slots(pes) <= 4_194_304, "{pes} PEs: {} slots", slots(pes));
        }
        // Past 512 PEs the floor of 16 slots per ring takes over.
        assert_eq!(cap(1000), 16);
    }

    #[test]
    fn a_small_model_keeps_its_rings_within_half_its_own_memory() {
        let slot = 128u64;
        let bytes = |pes: usize, model: u64| (pes * (pes - 1)) as u64 * ring_capacity(pes, slot, model) as u64 * slot;
        // 64 MB of LPs and events on 16 PEs: 32 MB of rings, not 240 x 4096 slots (126 MB).
        let model = 64 << 20;
        assert!(bytes(16, model) <= model / 2, "{}", bytes(16, model));
        assert!(ring_capacity(16, slot, model) >= RING_SLOTS_MIN);
        // A tiny model gets the floor: RING_BYTES_MIN in all, or RING_SLOTS_MIN a ring.
        assert!(bytes(4, 1000) <= RING_BYTES_MIN);
        assert_eq!(ring_capacity(4, slot, 1000), (RING_BYTES_MIN / (12 * slot)) as usize);
        assert_eq!(ring_capacity(16, slot, 1000), RING_SLOTS_MIN);
        // Never more than the thread count allows, whatever the model.
        assert_eq!(ring_capacity(2, 8, 1000), 16_384);
        assert_eq!(ring_capacity(1000, slot, 1000), 16);
    }

    #[test]
    fn the_gvt_series_keeps_evenly_spaced_rounds_within_its_bound() {
        let mut s = Series::default();
        for i in 0..10_000u64 {
            s.push(GvtPoint { gvt: i as f64, wall: 0.0, committed: i });
        }
        assert!(s.points.len() <= SERIES_MAX && s.points.len() > SERIES_MAX / 4, "{}", s.points.len());
        let gaps: Vec<f64> = s.points.windows(2).map(|w| w[1].gvt - w[0].gvt).collect();
        assert_eq!(s.points[0].gvt, 0.0);
        assert!(gaps.iter().all(|&g| g == gaps[0]), "even spacing");
    }
}
