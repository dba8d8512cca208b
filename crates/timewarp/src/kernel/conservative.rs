//! Conservative synchronisation on threads: YAWNS-style lookahead windows.
//!
//! All PEs agree on the smallest pending timestamp `m`; every event with a
//! timestamp below `m + lookahead` is then safe (nothing can still be sent
//! into that window, since every send is at least `lookahead` ahead), so each
//! PE processes and commits those events in key order, with no rollback
//! machinery at all. Events for other PEs are gathered per destination and
//! handed over once per window through a mailbox shared by exactly two
//! threads; two barriers per window separate "send" from "receive" and
//! "report minimum" from "read minimum". A barrier spins, yields, then
//! parks ([`SpinBarrier`]): under load the PE that arrives last is often
//! one the OS descheduled, and a parked waiter leaves it the core.
//!
//! Across processes ([`WindowNet`], implemented over MPI in the `mpi` module)
//! a PE encodes events for another process into its [`Port`] and hands them
//! over as sections (the [`wire`](crate::transport::wire) encoding, epoch = window
//! number) into one message per destination process; between the two
//! barriers one thread per process swaps messages with every other process,
//! checks them and hands each section to its PE, and all-reduces the
//! minimum, which covers the events in transit because each sender counts
//! what it sent in its own minimum. A third barrier lets the PEs decode
//! what arrived.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::*};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::error::Error;
use crate::event::Inline;
use crate::key::Key;
use crate::layout::{Layout, PeId};
use crate::lp::Lp;
use crate::mapping::{with_place, Place};
use crate::model::{Model, Outgoing};
use crate::progress::Progress;
use crate::queue::{Entry, PendingQueue};
use crate::report::{base_stats, parallel_stats};
use crate::segment::{Outcome, Pending, Segment};
use crate::stats::{PeStats, WorkerStats};
use crate::timeline::{Recorder, SpanKind, Trace};
use crate::transport::outbox::Outbox;
use crate::transport::port::Port;
use crate::transport::wire::{sections, Section};
use crate::transport::{WindowNet, Wire};
use crate::Config;

use super::commit::Committer;
use super::end::{process_end, Finished, Parts, Reach};
use super::workers::{run_workers, Clocks, Failure, Ran, CONTENDED};
use super::{forward, handler_panic, restore_events, start_lp, Setup};

/// A barrier that spins, then yields, then sleeps on a condition variable
/// (a window's barriers are far apart in time when nothing else runs, so
/// the spin usually suffices; under load the last PE to arrive may wait
/// for a core, and yielding waiters would compete with it and with the
/// other program for as long), and gives up when another worker failed.
struct SpinBarrier {
    n: usize,
    count: AtomicUsize,
    generation: AtomicU64,
    /// Waiters asleep on `wake` (the last arriver locks and notifies only then).
    sleepers: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
}

/// Spins before a waiter yields, and how long it yields before it sleeps.
const SPINS: u32 = 64;
const YIELD_FOR: Duration = Duration::from_micros(50);

impl SpinBarrier {
    fn new(n: usize) -> Self {
        SpinBarrier {
            n,
            count: AtomicUsize::new(0),
            generation: AtomicU64::new(0),
            sleepers: AtomicUsize::new(0),
            lock: Mutex::new(()),
            wake: Condvar::new(),
        }
    }

    /// Waits for all `n` workers; false when the run failed meanwhile.
    /// Adds the seconds it waited past the spin, and its sleeps, to `w`.
    fn wait(&self, failed: &AtomicBool, w: &mut WorkerStats) -> bool {
        let g = self.generation.load(Acquire);
        if self.count.fetch_add(1, AcqRel) + 1 == self.n {
            self.count.store(0, Relaxed);
            // SeqCst with the sleepers' count: either a sleeper sees the
            // new generation before it sleeps, or this sees the sleeper.
            self.generation.fetch_add(1, SeqCst);
            if self.sleepers.load(SeqCst) > 0 {
                let _held = lock(&self.lock);
                self.wake.notify_all();
            }
            return true;
        }
        for _ in 0..SPINS {
            if self.generation.load(Acquire) != g {
                return true;
            }
            std::hint::spin_loop();
        }
        let t0 = Instant::now();
        let released = self.wait_long(g, failed, t0, &mut w.parks);
        w.wait_seconds += t0.elapsed().as_secs_f64();
        released
    }

    /// The wait past the spin: yields, and once a yield ran another
    /// thread (the cores are contended, see [`CONTENDED`]) and
    /// [`YIELD_FOR`] has passed, sleeps (waking every millisecond to look
    /// at `failed`). On free cores it keeps yielding: a sleeper would
    /// start the next window a wake-up late.
    #[cold]
    fn wait_long(&self, g: u64, failed: &AtomicBool, t0: Instant, sleeps: &mut u64) -> bool {
        let mut contended = false;
        while self.generation.load(Acquire) == g {
            if failed.load(Relaxed) {
                return false;
            }
            if !contended || t0.elapsed() < YIELD_FOR {
                let t = Instant::now();
                std::thread::yield_now();
                contended |= t.elapsed() >= CONTENDED;
                continue;
            }
            let held = lock(&self.lock);
            self.sleepers.fetch_add(1, SeqCst);
            if self.generation.load(SeqCst) == g {
                *sleeps += 1;
                let _ = self.wake.wait_timeout(held, Duration::from_millis(1));
            }
            self.sleepers.fetch_sub(1, SeqCst);
        }
        true
    }
}

/// What the workers of one process share.
struct Shared<Msg> {
    pes: usize,
    /// Messages for each process and their record counts, and the sections
    /// that arrived for each local PE.
    net_out: Mutex<Outbox>,
    net_in: Vec<Mutex<Vec<Section>>>,
    /// Events sent to other processes.
    net_events: AtomicU64,
    /// The minimum over all processes (f64 bits).
    global_min: AtomicU64,
    /// `mail[from * pes + to]`: events from PE `from` for PE `to`.
    mail: Vec<Mutex<Vec<Outgoing<Msg>>>>,
    /// Smallest pending timestamp of each PE (f64 bits).
    mins: Vec<AtomicU64>,
    barrier: SpinBarrier,
    failure: Failure,
    /// Whether the PEs stop at this window for a checkpoint (written by PE
    /// 0 between two barriers, read by all after the second).
    stop: AtomicBool,
}

/// What a conservative PE reads and never writes: who it is, where the
/// run's PEs are, the model and the run's set-up.
struct Env<'a, M, W, P> {
    /// Global PE id, index in this process, and where the run's PEs are.
    id: PeId,
    local: usize,
    layout: Layout,
    net: &'a W,
    model: &'a M,
    s: &'a Setup,
    map: &'a P,
    /// Smallest delay of any event between PEs ([`window_lookahead`]).
    lookahead: f64,
    /// The id of this PE's first LP (block mapping's index base).
    first_lp: u32,
}

/// One PE of the conservative kernel.
pub(crate) struct Pe<'a, M: Model, Q, W, P> {
    env: Env<'a, M, W, P>,
    /// Events for other processes, and the earliest sent this window.
    port: Port,
    net_min: f64,
    /// This PE's LPs: ids (in id order) and records, index for index.
    pub(crate) ids: Vec<u32>,
    pub(crate) lps: Vec<Lp<M::State>>,
    q: Q,
    out: Vec<Outgoing<M::Msg>>,
    outbox: Vec<Vec<Outgoing<M::Msg>>>,
    pub(crate) stats: PeStats,
    windows: u64,
    /// The event being processed (LP, time), for the error if a handler panics.
    at: (u32, f64),
    /// The key of the event whose handler failed: PEs that fail in the same
    /// window report the earliest, as sequential does, whichever is first.
    failed_at: Option<Key>,
    /// Most events queued at once.
    peak: usize,
    pub(crate) commits: Committer,
    /// Whether the run paused (for a checkpoint) rather than ended.
    pub(crate) paused: bool,
    /// This PE's timeline track (`None`: not recording).
    pub(crate) timeline: Option<Box<Recorder>>,
    /// Its worker's figures (one worker per PE); `wait_seconds` grows in
    /// the barriers.
    worker: WorkerStats,
}

impl<M: Model, Q: PendingQueue<Inline<M::Msg>>, W: WindowNet, P: Place> Pe<'_, M, Q, W, P> {
    /// Local events into the queue, others into the outbox of their PE
    /// (or the buffer of their process).
    fn route(&mut self) -> Result<(), Error> {
        for o in self.out.drain(..) {
            let pe = self.env.map.pe_of(o.dst);
            if pe == self.env.id {
                self.q.push(Entry::new(o.key, Inline { dst: o.dst, msg: o.msg }));
                self.peak = self.peak.max(self.q.len());
            } else if let Some(local) = if W::ACTIVE {
                self.env.layout.local_of(pe)
            } else {
                Some(pe.index()) // one process: a global id is the local index
            } {
                self.outbox[local].push(o);
            } else {
                self.port.send_event(pe, o.key, o.dst, o.msg)?;
                self.net_min = self.net_min.min(o.key.time);
            }
        }
        Ok(())
    }

    /// Between barriers B and C, on one PE per process: swap messages with
    /// the other processes, hand each section that arrived to its PE (which
    /// decodes it), and agree on the minimum. (Not "exchange": that names
    /// the optimistic network's polling.)
    fn swap_with_processes(&mut self, sh: &Shared<M::Msg>) -> Result<(), Error> {
        let local = sh.mins.iter().map(|a| f64::from_bits(a.load(Relaxed))).fold(f64::INFINITY, f64::min);
        let mut received = Vec::new();
        let g = {
            let mut outbox = lock(&sh.net_out);
            // One message per pair and window, possibly without a section.
            let (out, records) = outbox.seal();
            sh.net_events.fetch_add(records, Relaxed);
            self.env.net.swap(out, local, &mut received)?
        };
        for bytes in received {
            for sec in sections(bytes)? {
                let (dst_pe, epoch) = (sec.head.dst_pe, sec.head.epoch);
                let Some(pe) = self.env.layout.local_of(dst_pe).filter(|_| epoch == self.windows) else {
                    return Err(Error::Internal(format!(
                        "process of PE {} received events for PE {dst_pe} of window {epoch} in window {}",
                        self.env.id, self.windows
                    )));
                };
                lock(&sh.net_in[pe]).push(sec);
            }
        }
        sh.global_min.store(g.to_bits(), Relaxed);
        Ok(())
    }

    /// Decodes the sections that arrived for this PE into `out`.
    fn take_in(&mut self, sh: &Shared<M::Msg>) -> Result<(), Error> {
        std::mem::swap(&mut *lock(&sh.net_in[self.env.local]), &mut self.port.inbound);
        for sec in self.port.inbound.drain(..) {
            for w in sec.records::<M::Msg>() {
                match w? {
                    Wire::Event { key, dst, msg, .. } => self.out.push(Outgoing { dst, key, msg }),
                    Wire::Anti { .. } => {
                        return Err(Error::Internal("an anti-message reached a conservative run".into()))
                    }
                }
            }
        }
        Ok(())
    }

    pub(crate) fn init(&mut self, seg: &Segment<'_, M>) -> Result<(), Error> {
        self.ids = self.env.map.lps_of(self.env.id);
        for i in 0..self.ids.len() {
            let (rec, dropped) = start_lp(self.env.model, self.env.s, seg, self.ids[i], &mut self.out)?;
            self.lps.push(rec);
            self.stats.past_end += dropped as u64;
            self.route()?;
        }
        let (map, id) = (self.env.map, self.env.id);
        restore_events(seg, |dst| map.pe_of(dst) == id, &mut self.out);
        self.route()
    }

    /// The pending events of a paused run.
    pub(crate) fn take_pending(&mut self) -> Vec<Pending<M::Msg>> {
        let mut v = Vec::with_capacity(self.q.len());
        self.q.drain_unordered(|e| v.push(Pending { dst: e.item.dst, key: e.key(), msg: e.item.msg }));
        v
    }

    /// Window after window until the end, a cut, or another PE's failure.
    fn run(&mut self, sh: &Shared<M::Msg>, seg: &Segment<'_, M>, progress: &mut Progress) -> Result<(), Error> {
        loop {
            // From here to the window: hand-over, barriers, exchange.
            let sync = self.timeline.mark();
            let Some(m) = self.next_minimum(sh, seg)? else { return Ok(()) };
            self.timeline.span(sync, SpanKind::Sync, 0, m);
            if m == f64::INFINITY {
                return Ok(());
            }
            // Every event before `m` is committed and none after processed: a cut.
            if m >= self.env.s.pause || (!W::ACTIVE && sh.stop.load(Relaxed)) {
                self.paused = true;
                return Ok(());
            }
            if self.env.id.index() == 0 {
                progress.update(m);
            }
            // Rounding is monotone, so every send (delay >= lookahead) from an
            // event at t >= m lands at or after `window`.
            let window = (m + self.env.lookahead).min(self.env.s.pause);
            self.windows += 1;
            let (mark, before) = (self.timeline.mark(), self.stats.committed);
            self.process_window(window)?;
            self.timeline.span(mark, SpanKind::Window, self.stats.committed - before, window);
        }
    }

    /// Hands over what the last window sent, and agrees with every PE (and
    /// process) on the smallest pending time; `None` when another PE failed.
    fn next_minimum(&mut self, sh: &Shared<M::Msg>, seg: &Segment<'_, M>) -> Result<Option<f64>, Error> {
        let pes = sh.pes;
        // Hand over what the last window sent to other PEs.
        for to in 0..pes {
            if !self.outbox[to].is_empty() {
                lock(&sh.mail[self.env.local * pes + to]).append(&mut self.outbox[to]);
            }
        }
        if W::ACTIVE && self.port.waiting() {
            self.port.epoch = self.windows;
            self.port.hand_over(&mut lock(&sh.net_out));
        }
        if !sh.barrier.wait(sh.failure.flag(), &mut self.worker) {
            return Ok(None);
        }
        for from in 0..pes {
            let mut inbox = std::mem::take(&mut *lock(&sh.mail[from * pes + self.env.local]));
            self.out.append(&mut inbox);
            self.route()?;
        }
        // What this PE sent to other processes is in transit: it counts here.
        let local = self.q.peek().map_or(f64::INFINITY, |k| k.time).min(self.net_min);
        self.net_min = f64::INFINITY;
        sh.mins[self.env.local].store(local.to_bits(), Relaxed);
        // A stop request across processes would need agreeing on: there
        // only the marks (`pause`) cut.
        if self.env.local == 0 && !W::ACTIVE {
            sh.stop.store(seg.stop_requested(), Relaxed);
        }
        if !sh.barrier.wait(sh.failure.flag(), &mut self.worker) {
            return Ok(None);
        }
        let m = if W::ACTIVE {
            if self.env.local == 0 {
                let mark = self.timeline.mark();
                self.swap_with_processes(sh)?;
                self.timeline.span(mark, SpanKind::Exchange, 0, 0.0);
            }
            if !sh.barrier.wait(sh.failure.flag(), &mut self.worker) {
                return Ok(None);
            }
            self.take_in(sh)?;
            self.route()?;
            f64::from_bits(sh.global_min.load(Relaxed))
        } else {
            sh.mins.iter().map(|a| f64::from_bits(a.load(Relaxed))).fold(f64::INFINITY, f64::min)
        };
        Ok(Some(m))
    }

    /// Processes and commits, in key order, every pending event below `window`.
    #[inline]
    fn process_window(&mut self, window: f64) -> Result<(), Error> {
        while let Some(k) = self.q.peek() {
            if k.time >= window {
                break;
            }
            let e = self.q.pop().expect("peeked");
            let (key, dst, msg) = (e.key(), e.item.dst, e.item.msg);
            self.at = (dst, key.time);
            let lp = &mut self.lps[self.env.map.local_of(dst, self.env.first_lp)];
            let mut undo = M::Undo::default();
            let dropped = forward(self.env.model, self.env.s, lp, dst, &key, &msg, &mut undo, &mut self.out, None)
                .inspect_err(|_| self.failed_at = Some(key))?;
            self.commits.commit(self.env.model, lp, dst, &key, &msg, &undo, dropped, &mut self.stats)?;
            for o in &self.out {
                let pe = self.env.map.pe_of(o.dst);
                if pe != self.env.id {
                    // What keeps the window safe; `Ctx::send` checked the
                    // pair's lookahead, which may be smaller for pairs
                    // the model did not declare as neighbours.
                    if o.key.time < key.time + self.env.lookahead {
                        return Err(Error::Neighbours {
                            lp: dst,
                            time: key.time,
                            dst: o.dst,
                            delay: o.key.time - key.time,
                            lookahead: self.env.lookahead,
                        });
                    }
                    self.stats.remote += 1;
                }
                self.stats.remote_process += !self.env.layout.is_local(pe) as u64;
            }
            self.route()?;
        }
        Ok(())
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The lookahead of the windows: the smallest delay an event can have
/// between LPs on different PEs. From the model's declared neighbours and
/// per-pair lookaheads where it declares them (a network whose low-latency
/// links stay inside PEs gets wider windows), else its global lookahead.
/// Infinite when nothing can cross PEs. Refuses a model whose windows would
/// be empty.
pub(crate) fn window_lookahead<M: Model>(model: &M, s: &Setup, map: &impl Place) -> Result<f64, Error> {
    let mut la = f64::INFINITY;
    if map.pes() > 1 {
        for lp in 0..s.num_lps {
            let Some(list) = model.neighbours(lp) else {
                la = la.min(s.lookahead);
                continue;
            };
            for d in list {
                if d >= s.num_lps {
                    return Err(Error::Config(format!(
                        "model {} declares LP {d} a neighbour of LP {lp}, but it has only {} LPs",
                        model.name(),
                        s.num_lps
                    )));
                }
                if d != lp && map.pe_of(d) != map.pe_of(lp) {
                    let l = model.lookahead_between(lp, d);
                    if !(l.is_finite() && l >= 0.0) {
                        return Err(Error::Config(format!(
                            "model {} declares lookahead {l} from LP {lp} to LP {d}; it must be finite and >= 0",
                            model.name()
                        )));
                    }
                    la = la.min(l);
                }
            }
        }
    }
    if la <= 0.0 {
        return Err(Error::Config(format!(
            "model {} has lookahead 0 between LPs on different PEs: conservative synchronisation needs a \
             positive lookahead (every event to another PE sent at least that far ahead); run optimistically",
            model.name()
        )));
    }
    // A window ends at m + lookahead: where that rounds to m no event fits
    // and the run would loop for ever. Rounding is monotone, so a lookahead
    // that moves the end time moves every earlier time too.
    if s.end + la <= s.end {
        let least = s.end * f64::EPSILON;
        return Err(Error::Config(format!(
            "model {} has lookahead {la:e} between LPs on different PEs, too small to advance virtual time near \
             the end time {} ({} + {la:e} rounds to {}): conservative windows could not move; use a lookahead of \
             at least about {least:.1e}, an earlier end time, or run optimistically",
            model.name(),
            s.end,
            s.end,
            s.end
        )));
    }
    Ok(la)
}

/// Runs `model` conservatively on `cfg.threads` worker threads in each
/// process of `x`, reached through network `W`.
pub(crate) fn run<M: Model, Q: PendingQueue<Inline<M::Msg>>, W: WindowNet, X: Reach<W>>(
    model: &M,
    cfg: &Config,
    seg: &Segment<'_, M>,
    x: &X,
) -> Result<Outcome<M>, Error> {
    let s = Setup::of_segment(model, cfg, seg)?;
    let layout = cfg.layout(x.rank(), x.count());
    let placement = cfg.placement(s.num_lps, &layout)?;
    with_place!(placement, map => {
        let net = x.connect(cfg, layout.pes_per_process());
        let Ran { pes: mut done, workers, total, net_events, .. } =
            run_pes::<M, Q, W, _>(model, cfg, &s, seg, map, &net, layout)?;
        let mut stats = process_stats(model, cfg, &s, &done, total);
        stats.workers = workers;
        let end = process_end(cfg, &mut done)?;
        x.end(model, cfg, stats, &net, net_events, end)
    })
}

impl<M: Model, Q: PendingQueue<Inline<M::Msg>>, W: WindowNet, P: Place> Finished<M> for Pe<'_, M, Q, W, P> {
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
        Ok(Pe::take_pending(self))
    }
}

/// PEs after a run, each with the seconds its initialisation took.
pub(crate) type Done<'a, M, Q, W, P> = Vec<(Pe<'a, M, Q, W, P>, f64)>;

/// Runs this process' PEs (those of `layout`); returns them, the total
/// seconds and the events sent to other processes.
pub(crate) fn run_pes<'a, M: Model, Q: PendingQueue<Inline<M::Msg>>, W: WindowNet, P: Place>(
    model: &'a M,
    cfg: &'a Config,
    s: &'a Setup,
    seg: &'a Segment<'a, M>,
    map: &'a P,
    net: &'a W,
    layout: Layout,
) -> Result<Ran<Pe<'a, M, Q, W, P>>, Error> {
    let pes = layout.pes_per_process();
    let lookahead = window_lookahead(model, s, map)?;
    let sh = Shared::<M::Msg> {
        pes,
        net_out: Mutex::new(Outbox::new(layout.ranks())),
        net_in: (0..pes).map(|_| Mutex::new(Vec::new())).collect(),
        net_events: AtomicU64::new(0),
        global_min: AtomicU64::new(0),
        mail: (0..pes * pes).map(|_| Mutex::new(Vec::new())).collect(),
        mins: (0..pes).map(|_| AtomicU64::new(0)).collect(),
        barrier: SpinBarrier::new(pes),
        failure: Failure::default(),
        stop: AtomicBool::new(false),
    };
    let t0 = Instant::now();
    let done = run_workers((0..pes).collect(), &sh.failure, |local, _| {
        let id = layout.global(local);
        let mut pe = Pe::<M, Q, W, P> {
            env: Env { id, local, layout, net, model, s, map, lookahead, first_lp: map.first_lp(id) },
            port: Port::new(local, layout),
            net_min: f64::INFINITY,
            ids: Vec::new(),
            lps: Vec::new(),
            peak: 0,
            q: Q::default(),
            out: Vec::with_capacity(64),
            outbox: (0..pes).map(|_| Vec::new()).collect(),
            stats: PeStats::default(),
            windows: 0,
            at: (0, 0.0),
            failed_at: None,
            commits: Committer::new(cfg),
            paused: false,
            timeline: Recorder::new(cfg, s.started, layout.pes(), layout.rank(), id),
            worker: WorkerStats::default(),
        };
        pe.init(seg)?;
        let init = t0.elapsed().as_secs_f64();
        let mut progress = Progress::new(
            cfg.progress && id.index() == 0,
            cfg.progress_sink.as_ref().filter(|_| id.index() == 0),
            s.end,
        );
        let clocks = Clocks::start();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| pe.run(&sh, seg, &mut progress)))
            .unwrap_or_else(|p| Err(handler_panic(pe.at.0, pe.at.1, p.as_ref())));
        // Every PE finishes the window it is in before it sees the failure,
        // so the earliest event's error of the window is among those recorded.
        let r = match (r, pe.failed_at) {
            (Err(e), Some(key)) => {
                sh.failure.fail_at(key, e);
                Ok(())
            }
            (r, _) => r,
        };
        clocks.finish(&mut pe.worker);
        pe.worker.iterations = pe.windows;
        if r.is_ok() && !pe.paused {
            progress.reached_end();
        }
        progress.finish();
        pe.stats.processed = pe.stats.committed;
        pe.stats.peak_events = pe.peak as u64;
        r.map(|_| (pe, init))
    })?;
    let net_events = sh.net_events.load(Relaxed);
    let workers = done.iter().map(|d| d.0.worker.clone()).collect();
    Ok(Ran { pes: done, workers, total: t0.elapsed().as_secs_f64(), net_events })
}

/// The statistics of this process' PEs (no digest yet).
pub(crate) fn process_stats<M: Model, Q, W, P>(
    model: &M,
    cfg: &Config,
    s: &Setup,
    done: &Done<'_, M, Q, W, P>,
    total: f64,
) -> crate::stats::Stats {
    let inits = done.iter().map(|d| d.1);
    let mut stats = parallel_stats(base_stats(model, cfg, s.num_lps), total, inits, done.iter().map(|d| &d.0.stats));
    stats.gvt_rounds = done[0].0.windows;
    stats.kps_per_pe = 1;
    stats.event_bytes = std::mem::size_of::<Entry<Inline<M::Msg>>>() as u64;
    stats
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On contended cores (busy threads, two per core), a waiter whose
    /// peer is late sleeps rather than yield for the whole wait (the peer
    /// arrives only once it sees the waiter asleep), and is woken by the
    /// last arriver; many rounds of three keep in step.
    #[test]
    fn a_barrier_waiter_sleeps_on_contended_cores_until_the_last_arrives() {
        let b = SpinBarrier::new(2);
        let failed = AtomicBool::new(false);
        let mut w = WorkerStats::default();
        let stop = AtomicBool::new(false);
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        std::thread::scope(|s| {
            for _ in 0..2 * cores {
                s.spawn(|| {
                    while !stop.load(Relaxed) {
                        std::hint::spin_loop();
                    }
                });
            }
            s.spawn(|| {
                // Bounded, so a barrier that never sleeps fails the assertion below instead of hanging.
                let t = Instant::now();
                while b.sleepers.load(SeqCst) == 0 && t.elapsed() < Duration::from_secs(10) {
                    std::thread::yield_now();
                }
                assert!(b.wait(&failed, &mut WorkerStats::default()));
            });
            assert!(b.wait(&failed, &mut w));
            stop.store(true, Relaxed);
        });
        assert!(w.parks >= 1 && w.wait_seconds > 0.0, "{w:?}");
        let b = SpinBarrier::new(3);
        let done = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for id in 0..3 {
                let (b, failed, done) = (&b, &failed, &done);
                s.spawn(move || {
                    let mut w = WorkerStats::default();
                    for round in 0..300u64 {
                        if round % 3 == id {
                            std::thread::sleep(Duration::from_micros(200));
                        }
                        assert!(b.wait(failed, &mut w));
                        // Nobody passes round r before all three reached it.
                        assert!(done.fetch_add(1, SeqCst) >= 3 * round as usize);
                    }
                });
            }
        });
        assert_eq!(done.load(SeqCst), 900);
    }
}
