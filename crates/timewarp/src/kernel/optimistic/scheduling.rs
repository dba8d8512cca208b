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

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering::*};
use std::sync::{Mutex, MutexGuard, OnceLock, TryLockError};
use std::thread::Thread;
use std::time::{Duration, Instant};

use crate::config::{Adaptivity, Scheduling};
use crate::error::Error;
use crate::model::Model;
use crate::stats::WorkerStats;

use super::super::workers::{Clocks, CONTENDED};
use super::pe::{Iteration, Pe, Runnable};
use super::shared_worker::SharedWorker;
use super::Shared;

/// One PE, and what workers read of it without taking its lock.
pub(crate) struct Slot<'a, M: Model, Q, N, P> {
    /// `None` until its primary worker has created it.
    pe: Mutex<Option<Pe<'a, M, Q, N, P>>>,
    finished: AtomicBool,
    /// `Pe::progress_time` (its latest processed, not undone, event time)
    /// after its latest iteration (f64 bits).
    lvt: AtomicU64,
}

/// Measurements in a row in which a worker must be the slow one before it
/// deactivates: one slow period (a page fault storm, a timer tick on its
/// core) is not interference; a hog on its core shows in every period.
const STRIKES: u32 = 2;

/// Most doublings of the reactivation period (2^10 = 1,024 times `reactivate`).
const MAX_BACKOFF: u32 = 10;

/// Measurement periods a worker skips after it starts or wakes: its first
/// events run on caches the other workers filled (and, at the start, on
/// memory touched for the first time), which looks like interference.
const WARMUP: u32 = 1;

/// Passes an idle worker spins before it gives its core away.
const SPINS: u32 = 16;

/// How long an idle worker yields its core before it parks: long enough
/// for a GVT round among running workers, short beside a time slice.
const YIELD_FOR: Duration = Duration::from_micros(50);

/// An idle worker's first and longest park. Under load it frees the core
/// for the worker the OS descheduled (whose PE holds GVT back) or for the
/// other program, rather than competing with both for time slices; a
/// change in the GVT rounds wakes it sooner (see [`Pool::wake_parked`]).
const NAP_MIN: Duration = Duration::from_micros(50);
const NAP_MAX: Duration = Duration::from_millis(1);

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

/// LADM: whether a worker whose own PE did (`worked`) or did not do work
/// helps an orphan PE at virtual time `orphan` when its own PE is at
/// `ahead`. An idle worker helps any orphan; a busy one helps orphans
/// behind it, and, while a GVT round is open (`round_open`), every orphan:
/// the round waits for each PE to enter and report, and an orphan that
/// only looks ahead (its latest event, not the stragglers waiting in its
/// inbox) held GVT back until the helper's PE caught up or its worker
/// woke, while every other PE, and under MPI every other process,
/// speculated on (issue 42: 15 times slower than `fixed`).
/// ADM and LADM: whether a worker of APTE `mine` is the slow one among
/// the active workers, whose other APTEs are `others` (reordered): the
/// largest of all, and more than `threshold` times the median of the
/// others. The median, not the smallest: among 16 workers one is always
/// lucky, and measured against it any other looked descheduled.
fn slowest_by(mine: f64, others: &mut [f64], threshold: f64) -> bool {
    if others.is_empty() || others.iter().any(|&a| a > mine) {
        return false;
    }
    let mid = others.len() / 2;
    let (_, &mut median, _) = others.select_nth_unstable_by(mid, f64::total_cmp);
    mine > threshold * median
}

#[inline]
fn worth_helping(worked: bool, round_open: bool, orphan: f64, ahead: f64) -> bool {
    !worked || round_open || orphan < ahead
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

    /// After a pass: spin, yield, then park when there was nothing to do.
    /// (Not "pause", which names a checkpoint cut.)
    #[inline]
    fn back_off(&self, me: &mut Worker, worked: bool) {
        if self.parked_count.load(Relaxed) > 0 {
            self.wake_parked(me);
        }
        if worked {
            if me.idle > 0 {
                me.idle = 0;
                me.nap = NAP_MIN;
                me.contended = false;
                if let Some(t) = me.waiting.take() {
                    me.stats.wait_seconds += t.elapsed().as_secs_f64();
                }
            }
            return;
        }
        // Nothing to do until GVT moves or a message comes: with more
        // workers than cores, give the core to one that has work (a
        // descheduled PE holds GVT back for a whole time slice).
        me.idle += 1;
        if me.idle <= SPINS && !self.oversubscribed {
            std::hint::spin_loop();
            return;
        }
        let now = Instant::now();
        if !me.contended || now.duration_since(*me.waiting.get_or_insert(now)) < YIELD_FOR {
            me.waiting.get_or_insert(now);
            std::thread::yield_now();
            me.contended |= now.elapsed() >= CONTENDED;
            return;
        }
        // Still nothing: a yield would hand the core back and forth with
        // every other runnable thread (the other program, and workers the
        // OS descheduled) for as long as the wait lasts.
        me.stats.parks += 1;
        self.parked[me.w].store(true, Relaxed);
        self.parked_count.fetch_add(1, AcqRel);
        std::thread::park_timeout(me.nap);
        self.parked_count.fetch_sub(1, AcqRel);
        self.parked[me.w].store(false, Relaxed);
        me.nap = (me.nap * 2).min(NAP_MAX);
    }

    /// While some worker is parked: once the GVT rounds moved (a round
    /// was asked for, or one ended), wakes the parked workers, whose PEs
    /// must step through the round (or may run again under the new GVT).
    #[cold]
    fn wake_parked(&self, me: &mut Worker) {
        let gvt = &self.shared.gvt;
        let seen = 2 * gvt.rounds() + gvt.round_open() as u64;
        if seen == me.seen_rounds {
            return;
        }
        me.seen_rounds = seen;
        for (v, t) in self.threads.iter().enumerate() {
            if v != me.w && self.parked[v].load(Relaxed) {
                if let Some(t) = t.get() {
                    t.unpark();
                }
            }
        }
    }

    /// FM: the worker's own PEs, locked for the whole run. With several,
    /// every other iteration goes round robin (each PE drains its inbox and
    /// takes its part in GVT rounds), the rest to the one furthest behind
    /// in virtual time of those that processed events last time: PEs that
    /// share a worker then advance together, where round robin alone lets
    /// a sparse PE race ahead of a dense one and be rolled back.
    fn fixed(&self, me: &mut Worker) -> Result<(), Error> {
        let mut mine: Vec<(usize, Held<'_, 'a, M, Q, N, P>)> =
            self.own(me.w).map(|p| (p, lock(&self.slots[p].pe))).collect();
        let (n, mut live) = (mine.len(), mine.len());
        // Per own PE: its progress time after its latest iteration, if it processed events.
        let mut at: Vec<Option<f64>> = vec![None; n];
        let (mut i, mut turn) = (0, false);
        let gvt = &self.shared.gvt;
        let mut shared = SharedWorker::new(self.gvt_interval, n, gvt);
        if shared.is_some() {
            for (_, g) in mine.iter_mut() {
                if let Some(pe) = g.as_mut() {
                    pe.rounds_by_worker();
                }
            }
        }
        while live > 0 {
            if let Some(sw) = shared.as_mut().filter(|sw| sw.pass_due(gvt)) {
                // The round waits for each PE: step them all now.
                for (j, (p, guard)) in mine.iter_mut().enumerate() {
                    if self.slots[*p].finished.load(Relaxed) {
                        continue;
                    }
                    let pe = guard.as_mut().ok_or_else(|| Error::Internal(format!("PE {p} was not created")))?;
                    if pe.gvt_turn()? {
                        self.finish(*p);
                        at[j] = None;
                        live -= 1;
                    }
                    sw.holds(j, pe.held_records());
                }
                sw.passed(gvt);
                continue;
            }
            turn = !turn;
            let behind = if n > 1 && turn {
                (0..n).filter_map(|j| at[j].map(|t| (t, j))).min_by(|a, b| a.0.total_cmp(&b.0)).map(|(_, j)| j)
            } else {
                None
            };
            let j = behind.unwrap_or_else(|| {
                let j = i;
                i = (i + 1) % n;
                j
            });
            let (p, guard) = &mut mine[j];
            if self.slots[*p].finished.load(Relaxed) {
                at[j] = None;
                continue;
            }
            let pe = guard.as_mut().ok_or_else(|| Error::Internal(format!("PE {p} was not created")))?;
            let r = self.run_one(me, *p, pe)?;
            if let Some(sw) = &mut shared {
                sw.holds(j, pe.held_records());
                sw.iterated(gvt, !matches!(r, Iteration::Worked(k) if k > 0), live);
            }
            at[j] = match r {
                Iteration::Worked(k) if k > 0 && n > 1 => Some(pe.progress_time()),
                _ => None,
            };
            if r == Iteration::Finished {
                live -= 1;
            }
            self.back_off(me, matches!(r, Iteration::Worked(_)));
        }
        Ok(())
    }

    /// Runs one iteration of PE `p` if no other worker holds it; `None` if
    /// one does (or it is not created yet).
    fn try_run(&self, me: &mut Worker, p: usize) -> Result<Option<Iteration>, Error> {
        match self.slots[p].pe.try_lock() {
            Ok(mut g) => match g.as_mut() {
                Some(pe) => self.run_one(me, p, pe).map(Some),
                None => {
                    // Its creator failed: nobody will ever create it.
                    if self.shared.failure.failed() {
                        self.finish(p);
                    }
                    Ok(None)
                }
            },
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Poisoned(_)) => {
                // A handler panicked outside the PE's own catch: the run has failed.
                self.finish(p);
                Ok(None)
            }
        }
    }

    /// DM and ADM: the next PE no other worker holds, every iteration.
    fn dynamic(&self, me: &mut Worker) -> Result<(), Error> {
        let m = self.slots.len();
        while !self.all_finished() {
            if self.policy.adapts() && !self.active[me.w].load(Acquire) {
                self.sleep(me);
                continue;
            }
            let mut ran = None;
            for k in 0..m {
                let p = (me.cursor + k) % m;
                if self.slots[p].finished.load(Acquire) {
                    continue;
                }
                if let Some(r) = self.try_run(me, p)? {
                    ran = Some(r);
                    me.cursor = p + 1;
                    break;
                }
            }
            self.back_off(me, matches!(ran, Some(Iteration::Worked(_))));
            if self.policy.adapts() {
                self.adapt(me);
            }
        }
        Ok(())
    }

    /// LADM: its own PEs, and orphans of inactive workers that fall behind.
    fn ladm(&self, me: &mut Worker) -> Result<(), Error> {
        let own: Vec<usize> = self.own(me.w).collect();
        let m = self.slots.len();
        while !self.all_finished() {
            if !self.active[me.w].load(Acquire) {
                self.sleep(me);
                continue;
            }
            let mut worked = false;
            let mut ahead = f64::INFINITY;
            if let Some(&p) = own.get(me.own % own.len().max(1)) {
                me.own += 1;
                if !self.slots[p].finished.load(Acquire) {
                    // A helper may hold it right after this worker woke.
                    if let Some(r) = self.try_run(me, p)? {
                        worked = matches!(r, Iteration::Worked(_));
                    }
                    ahead = f64::from_bits(self.slots[p].lvt.load(Relaxed));
                }
            }
            if self.active_count.load(Relaxed) < self.workers {
                worked |= self.help(me, m, worked, ahead)?;
            }
            self.back_off(me, worked);
            self.adapt(me);
        }
        Ok(())
    }

    /// LADM's help: up to `help` iterations on an orphan PE (of an inactive
    /// worker) behind `ahead`, or on any orphan when the worker's own PE had
    /// nothing to do or a GVT round is open (so a PE no worker owns never
    /// holds GVT back; see [`worth_helping`]); true if
    /// it did work. (Also running other workers' free PEs when idle, not
    /// only orphans, measured no better with a hog on 2 cores.)
    fn help(&self, me: &mut Worker, m: usize, worked: bool, ahead: f64) -> Result<bool, Error> {
        let round_open = self.shared.gvt.round_open();
        for k in 0..m {
            let q = (me.orphan + k) % m;
            let slot = &self.slots[q];
            if self.active[self.primary(q)].load(Relaxed) || slot.finished.load(Acquire) {
                continue;
            }
            if !worth_helping(worked, round_open, f64::from_bits(slot.lvt.load(Relaxed)), ahead) {
                continue;
            }
            let Ok(mut g) = slot.pe.try_lock() else { continue };
            let Some(pe) = g.as_mut() else { continue };
            me.orphan = q + 1;
            let mut did = false;
            for _ in 0..self.adapt.help {
                let r = self.run_one(me, q, pe)?;
                me.stats.help_iterations += 1;
                did |= matches!(r, Iteration::Worked(_));
                if r == Iteration::Finished {
                    break;
                }
            }
            return Ok(did);
        }
        Ok(false)
    }

    /// ADM and LADM: measures APTE every `detect` iterations, deactivates
    /// this worker if it is the slow one, and reactivates one inactive
    /// worker every `reactivate` iterations of each active worker.
    fn adapt(&self, me: &mut Worker) {
        if let Some((w, at)) = self.adapt.force_deactivate {
            // The hook's deactivation is the only one (no measurement races it).
            if w == me.w && me.iter >= at && !self.forced[w].load(Relaxed) && self.deactivate(me.w) {
                self.forced[w].store(true, Relaxed);
                me.stats.deactivations += 1;
            }
            return;
        }
        me.period_iters += 1;
        if me.period_iters < self.detect {
            return;
        }
        me.period_iters = 0;
        if me.warmup > 0 {
            // The first periods after starting or waking are slow for
            // reasons of their own (first touch, caches another worker
            // filled): not a sign of interference.
            me.warmup -= 1;
        } else if me.period_events > 0 {
            let apte = me.period_seconds / me.period_events as f64;
            self.apte[me.w].store(apte.to_bits(), Relaxed);
            me.others.clear();
            for v in (0..self.workers).filter(|&v| v != me.w) {
                let a = f64::from_bits(self.apte[v].load(Relaxed));
                if a > 0.0 && self.active[v].load(Relaxed) {
                    me.others.push(a);
                }
            }
            me.strikes = if slowest_by(apte, &mut me.others, self.adapt.threshold) { me.strikes + 1 } else { 0 };
            if me.strikes >= STRIKES && self.deactivate(me.w) {
                me.strikes = 0;
                me.stats.deactivations += 1;
                me.period_seconds = 0.0;
                me.period_events = 0;
                if me.probation > 0 {
                    // Woken too early: the other process is still there.
                    me.probation = 0;
                    let b = self.backoff.load(Relaxed);
                    self.backoff.store((b + 1).min(MAX_BACKOFF), Relaxed);
                }
                return;
            }
        }
        if me.probation > 0 {
            me.probation = me.probation.saturating_sub(self.detect);
            if me.probation == 0 {
                // It stayed: the cores are free again; wake others promptly.
                self.backoff.store(0, Relaxed);
            }
        }
        me.period_seconds = 0.0;
        me.period_events = 0;
        let since = self.since.fetch_add(self.detect, Relaxed) + self.detect;
        let active = self.active_count.load(Relaxed);
        let due = (self.reactivate << self.backoff.load(Relaxed)).saturating_mul(active as u64);
        if active < self.workers && since >= due && self.since.swap(0, AcqRel) >= due {
            self.reactivate_one();
        }
    }

    /// Deactivates worker `w` unless it is the last active one.
    fn deactivate(&self, w: usize) -> bool {
        let mut n = self.active_count.load(Acquire);
        while n > 1 {
            match self.active_count.compare_exchange(n, n - 1, AcqRel, Acquire) {
                Ok(_) => {
                    self.forget_aptes();
                    self.active[w].store(false, Release);
                    self.since.store(0, Relaxed);
                    return true;
                }
                Err(now) => n = now,
            }
        }
        false
    }

    /// After the active workers changed, times per event measured before
    /// do not compare with those measured after (fewer workers share the
    /// cores and memory, a woken one runs on cold caches): each worker
    /// measures anew.
    fn forget_aptes(&self) {
        for a in &self.apte {
            a.store(0, Relaxed);
        }
    }

    /// Wakes one inactive worker (not one the test hook deactivated).
    fn reactivate_one(&self) {
        for v in 0..self.workers {
            if !self.active[v].load(Acquire) && !self.forced[v].load(Relaxed) {
                self.active_count.fetch_add(1, AcqRel);
                self.forget_aptes();
                self.active[v].store(true, Release);
                if let Some(t) = self.threads[v].get() {
                    t.unpark();
                }
                return;
            }
        }
    }

    /// An inactive worker sleeps until reactivated or the run ends.
    fn sleep(&self, me: &mut Worker) {
        me.stats.active_seconds += me.active_since.elapsed().as_secs_f64();
        let asleep = Instant::now();
        // An idle stretch that ends in sleep counts once, as sleep.
        if let Some(t) = me.waiting.take() {
            me.stats.wait_seconds += asleep.duration_since(t).as_secs_f64();
        }
        (me.idle, me.nap, me.contended) = (0, NAP_MIN, false);
        while !self.active[me.w].load(Acquire) && !self.all_finished() {
            std::thread::park_timeout(Duration::from_millis(1));
        }
        if self.active[me.w].load(Acquire) {
            me.stats.reactivations += 1;
            me.probation = self.reactivate;
        }
        me.warmup = WARMUP;
        me.strikes = 0;
        let now = Instant::now();
        me.stats.wait_seconds += now.duration_since(asleep).as_secs_f64();
        me.active_since = now;
        me.period_iters = 0;
        me.period_seconds = 0.0;
        me.period_events = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::{slowest_by, worth_helping};

    #[test]
    fn the_slow_worker_is_measured_against_the_median_of_the_others() {
        // A hog on one core: its worker takes about twice as long per event.
        assert!(slowest_by(2.0, &mut [1.0], 1.8), "two workers: the other is the median");
        assert!(slowest_by(2.0, &mut [1.0, 1.1, 0.9, 1.05, 0.95], 1.8));
        // Sixteen workers alone: one lucky period is no yardstick.
        let mut alone = [1.0, 1.1, 0.5, 1.2, 0.9, 1.05, 0.95, 1.15, 1.0, 1.1, 0.98, 1.02, 1.1, 0.97, 1.0];
        assert!(!slowest_by(1.3, &mut alone, 1.8), "1.3 is 2.6 × the smallest but 1.3 × the median");
        assert!(!slowest_by(2.0, &mut [1.0, 2.5], 1.8), "not the slowest");
        assert!(!slowest_by(5.0, &mut [], 1.8), "alone: nobody to compare with");
        assert!(!slowest_by(1.7, &mut [1.0, 1.0, 1.0], 1.8), "within the threshold");
    }
    use crate::gvt::Gvt;

    #[test]
    fn ladm_helps_an_orphan_ahead_of_a_busy_worker_only_while_a_gvt_round_waits() {
        let (orphan, own) = (5.0, 3.0);
        // No round: a busy worker keeps to its own PE (locality) ...
        assert!(!worth_helping(true, false, orphan, own));
        // ... but a round needs every PE, orphans ahead included (issue 42).
        assert!(worth_helping(true, true, orphan, own));
        // Behind, or an idle worker: always helped.
        assert!(worth_helping(true, false, own - 1.0, own));
        assert!(worth_helping(false, false, orphan, own));
        assert!(!worth_helping(true, false, f64::INFINITY, f64::INFINITY));
    }

    #[test]
    fn a_gvt_round_is_open_from_its_request_until_its_value_is_published() {
        let gvt = Gvt::new(2, 0.0);
        assert!(!gvt.round_open());
        gvt.request();
        assert!(gvt.round_open());
        gvt.request(); // one round at a time
        gvt.publish(1, crate::key::Key::at(1.0));
        assert!(!gvt.round_open());
        gvt.request();
        assert!(gvt.round_open());
    }
}
