//! Which worker thread runs which PE, and when (`--scheduling`): the
//! multicore report's fixed (FM), dynamic (DM), adaptive (ADM) and
//! locality-aware adaptive (LADM) mappings (its section 3.5).
//!
//! PEs are data. Each sits in a [`Slot`] behind a lock; a worker runs one
//! scheduler iteration of a PE at a time ([`Pe::iterate`]), and a PE keeps
//! all its state between iterations, so any worker may run the next one.
//! GVT is computed among PEs, not workers: a PE that no worker runs for a
//! while only holds GVT back until some worker runs it again.
//!
//! * **fixed**: worker `w` runs PEs `w`, `w + threads`, … and no other; it
//!   holds their locks for the whole run (no cost per iteration). With
//!   several, every other iteration goes round robin, the rest to the one
//!   furthest behind in virtual time (they advance together), and the
//!   worker asks for the GVT rounds and steps all of them through an open
//!   one at once ([`SharedWorker`]).
//! * **dynamic**: every iteration a worker moves round robin to the next PE
//!   no other worker holds (`try_lock`: a busy PE is skipped, not waited for).
//!   With one worker, plain turns: PEs run apart as on threads of their own
//!   (tests use it for that).
//! * **adaptive**: dynamic, and every `detect` iterations each active worker
//!   measures its average processing time per event (APTE, wall time of its
//!   iterations that processed events over those events). A worker the OS
//!   descheduled shows it: if its APTE is the largest of the active
//!   workers' and more than `threshold` times the median of the others', in
//!   [`STRIKES`] measurements in a row, it deactivates (sleeps), so the
//!   simulation stops competing with the other process for the cores. (The
//!   smallest APTE, once the yardstick, made one slow period of any of 16
//!   workers look like interference: LADM alone ran 7× slower than fixed.)
//!   Once every active worker has run `reactivate`
//!   iterations since, one inactive worker is woken to try again (a period
//!   that doubles while woken workers deactivate again at once, up to 1,024
//!   times, and is back to `reactivate` once one stays). At least one
//!   worker stays active. The time is that of event processing only (an
//!   iteration's GVT work, fossil collection included, is not an event's).
//! * **ladm**: like fixed while no worker is inactive (each keeps its
//!   primary PEs: their data stays in its caches); a deactivated worker's
//!   PEs become orphans, and after each iteration on its own PE an active
//!   worker helps an orphan that is behind its own PE in virtual time (or
//!   any orphan, when its own PE had nothing to do or a GVT round is
//!   open), for `help` iterations.

mod adaptive;
mod idle;
mod mappings;

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering::*};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::thread::Thread;
use std::time::{Duration, Instant};

use crate::config::{Adaptivity, Scheduling};
use crate::error::Error;
use crate::model::Model;
use crate::stats::WorkerStats;

use super::super::workers::Clocks;
use super::pe::{Iteration, Pe, Runnable};
use super::Shared;
use adaptive::WARMUP;
use idle::NAP_MIN;

/// One PE, and what workers read of it without taking its lock.
pub(crate) struct Slot<'a, M: Model, Q, N, P> {
    /// `None` until its primary worker has created it.
    pe: Mutex<Option<Pe<'a, M, Q, N, P>>>,
    finished: AtomicBool,
    /// `Pe::progress_time` (its latest processed, not undone, event time)
    /// after its latest iteration (f64 bits).
    lvt: AtomicU64,
}

/// A PE's lock, held.
type Held<'g, 'a, M, Q, N, P> = MutexGuard<'g, Option<Pe<'a, M, Q, N, P>>>;

/// The PEs of one process and the state of its workers.
pub(crate) struct Pool<'a, M: Model, Q, N, P> {
    slots: Vec<Slot<'a, M, Q, N, P>>,
    workers: usize,
    policy: Scheduling,
    adapt: Adaptivity,
    /// Iterations between two APTE measurements of a worker.
    detect: u64,
    /// Iterations each active worker runs between two reactivations.
    reactivate: u64,
    /// Events of a full batch: only full batches are timed.
    full_batch: usize,
    /// `--gvt-interval` (a worker running several PEs asks for the rounds).
    gvt_interval: usize,
    shared: &'a Shared,
    /// PEs finished (or lost to a panic).
    finished: AtomicUsize,
    active: Vec<AtomicBool>,
    active_count: AtomicUsize,
    /// Per worker: its latest APTE in seconds (f64 bits; 0: none yet).
    apte: Vec<AtomicU64>,
    /// Iterations of active workers since the last (de)activation.
    since: AtomicU64,
    /// The reactivation period is `reactivate << backoff`: it doubles each
    /// time a reactivated worker deactivates again before it has run
    /// `reactivate` iterations (the other process is still there), and is
    /// back to `reactivate` once one stays that long.
    backoff: AtomicU32,
    /// Workers deactivated by the test hook: never reactivated.
    forced: Vec<AtomicBool>,
    threads: Vec<OnceLock<Thread>>,
    /// More workers than cores: an idle worker yields its core at once.
    oversubscribed: bool,
    /// Per worker: parked while idle (see [`NAP_MIN`]); and how many are.
    parked: Vec<AtomicBool>,
    parked_count: AtomicUsize,
}

/// A worker's own bookkeeping.
struct Worker {
    w: usize,
    stats: WorkerStats,
    /// Iterations run (on any PE).
    iter: u64,
    idle: u32,
    /// Round-robin positions: among its own PEs, over all PEs, over orphans.
    own: usize,
    cursor: usize,
    orphan: usize,
    /// APTE measurement: the period so far.
    period_iters: u64,
    period_seconds: f64,
    period_events: u64,
    active_since: Instant,
    /// Iterations left before a reactivated worker counts as having stayed.
    probation: u64,
    /// Measurement periods still to skip (see [`WARMUP`]).
    warmup: u32,
    /// Measurements in a row in which it was the slow one (see [`STRIKES`]).
    strikes: u32,
    /// The other active workers' APTEs at a measurement (kept for reuse).
    others: Vec<f64>,
    /// When its current idle stretch passed the spins (None: not idle).
    waiting: Option<Instant>,
    /// Its next park's length while idle.
    nap: Duration,
    /// A yield of this idle stretch ran another thread (see [`CONTENDED`]):
    /// only then does it park.
    contended: bool,
    /// The GVT rounds as it last saw them (see [`Pool::wake_parked`]).
    seen_rounds: u64,
}

/// Locks `m`, taking the value of a lock poisoned by a panic (the panic
/// itself is the run's error).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl<'a, M: Model, Q, N, P> Pool<'a, M, Q, N, P>
where
    Pe<'a, M, Q, N, P>: Runnable,
{
    /// A pool of `pes` PEs (not yet created) for `cfg.threads` workers.
    pub(crate) fn new(pes: usize, cfg: &crate::Config, shared: &'a Shared) -> Self {
        let workers = cfg.threads;
        Pool {
            slots: (0..pes)
                .map(|_| Slot { pe: Mutex::new(None), finished: AtomicBool::new(false), lvt: AtomicU64::new(0) })
                .collect(),
            workers,
            policy: cfg.scheduling,
            adapt: cfg.adaptivity.clone(),
            detect: cfg.adaptivity.detect_every(cfg.gvt_interval, cfg.batch) as u64,
            reactivate: cfg.adaptivity.reactivate_every(cfg.gvt_interval, cfg.batch) as u64,
            full_batch: cfg.batch,
            gvt_interval: cfg.gvt_interval,
            shared,
            finished: AtomicUsize::new(0),
            active: (0..workers).map(|_| AtomicBool::new(true)).collect(),
            active_count: AtomicUsize::new(workers),
            apte: (0..workers).map(|_| AtomicU64::new(0)).collect(),
            since: AtomicU64::new(0),
            backoff: AtomicU32::new(0),
            forced: (0..workers).map(|_| AtomicBool::new(false)).collect(),
            threads: (0..workers).map(|_| OnceLock::new()).collect(),
            oversubscribed: std::thread::available_parallelism().map_or(true, |n| workers > n.get()),
            parked: (0..workers).map(|_| AtomicBool::new(false)).collect(),
            parked_count: AtomicUsize::new(0),
        }
    }

    /// The PEs whose primary worker is `w`.
    pub(crate) fn own(&self, w: usize) -> impl Iterator<Item = usize> {
        (w..self.slots.len()).step_by(self.workers)
    }

    /// The primary worker of PE `p`.
    #[inline]
    fn primary(&self, p: usize) -> usize {
        p % self.workers
    }

    /// Puts PE `p`, created by its primary worker, in its slot.
    pub(crate) fn place(&self, p: usize, pe: Pe<'a, M, Q, N, P>) {
        *lock(&self.slots[p].pe) = Some(pe);
    }

    /// The PEs after the run, in order.
    pub(crate) fn into_pes(self) -> Result<Vec<Pe<'a, M, Q, N, P>>, Error> {
        self.slots
            .into_iter()
            .map(|s| {
                s.pe.into_inner()
                    .unwrap_or_else(|p| p.into_inner())
                    .ok_or_else(|| Error::Internal("a PE was never created".into()))
            })
            .collect()
    }

    /// Worker `w`'s part of the run, after it created its own PEs: runs PEs
    /// as the policy says until every PE has finished.
    pub(crate) fn work(&self, w: usize) -> Result<WorkerStats, Error> {
        let _ = self.threads[w].set(std::thread::current());
        let clocks = Clocks::start();
        let now = Instant::now();
        let mut me = Worker {
            w,
            stats: WorkerStats::default(),
            iter: 0,
            idle: 0,
            own: 0,
            cursor: w,
            orphan: 0,
            period_iters: 0,
            probation: 0,
            warmup: WARMUP,
            strikes: 0,
            others: Vec::with_capacity(self.workers),
            period_seconds: 0.0,
            period_events: 0,
            active_since: now,
            waiting: None,
            nap: NAP_MIN,
            contended: false,
            seen_rounds: 0,
        };
        let r = match self.policy {
            Scheduling::Dynamic | Scheduling::Adaptive => self.dynamic(&mut me),
            Scheduling::Ladm => self.ladm(&mut me),
            _ => self.fixed(&mut me),
        };
        if self.active[w].load(Relaxed) {
            me.stats.active_seconds += me.active_since.elapsed().as_secs_f64();
        }
        if let Some(t) = me.waiting.take() {
            me.stats.wait_seconds += t.elapsed().as_secs_f64();
        }
        clocks.finish(&mut me.stats);
        // Sleepers look again now rather than at their next timeout.
        for t in self.threads.iter().filter_map(OnceLock::get) {
            t.unpark();
        }
        r.map(|()| me.stats)
    }

    fn all_finished(&self) -> bool {
        self.finished.load(Acquire) == self.slots.len()
    }

    /// Marks PE `p` finished (once).
    fn finish(&self, p: usize) {
        if !self.slots[p].finished.swap(true, AcqRel) {
            self.finished.fetch_add(1, AcqRel);
        }
    }

    /// Runs one iteration of PE `p` on worker `me`.
    fn run_one(&self, me: &mut Worker, p: usize, pe: &mut Pe<'a, M, Q, N, P>) -> Result<Iteration, Error> {
        if let Some((w, at, ms)) = self.adapt.stall {
            if w == me.w && me.iter == at {
                std::thread::sleep(Duration::from_millis(ms));
            }
        }
        me.iter += 1;
        me.stats.iterations += 1;
        let r = pe.step()?;
        if self.primary(p) != me.w {
            pe.count_foreign();
        }
        // Read only while some worker sleeps (LADM's help compares them);
        // an older value looks further behind, so its PE is helped sooner.
        if self.policy == Scheduling::Ladm && self.active_count.load(Relaxed) < self.workers {
            self.slots[p].lvt.store(pe.progress_time().to_bits(), Relaxed);
        }
        if r == Iteration::Finished {
            self.finish(p);
        }
        if self.policy.adapts() {
            // Event processing only: an iteration that also fossil-collects
            // a round's events (or drains a burst) is not slower at events.
            let busy = pe.take_busy();
            if let Iteration::Worked(n) = r {
                if n >= self.full_batch {
                    me.period_seconds += busy;
                    me.period_events += n as u64;
                }
            }
        }
        Ok(r)
    }
}
