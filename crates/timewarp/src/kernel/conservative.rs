//! Conservative synchronisation on threads: YAWNS-style lookahead windows.
//!
//! All PEs agree on the smallest pending timestamp `m`; every event with a
//! timestamp below `m + lookahead` is then safe (nothing can still be sent
//! into that window, since every send is at least `lookahead` ahead), so each
//! PE processes and commits those events in key order, with no rollback
//! machinery at all. Events for other PEs are gathered per destination and
//! handed over once per window through a mailbox shared by exactly two
//! threads; two spinning barriers per window separate "send" from "receive"
//! and "report minimum" from "read minimum".

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::*};
use std::sync::Mutex;
use std::time::Instant;

use crate::error::Error;
use crate::event::Inline;
use crate::key::Key;
use crate::lp::Lp;
use crate::mapping::BlockMapping;
use crate::model::{Model, Outgoing};
use crate::progress::Progress;
use crate::queue::{Entry, PendingQueue};
use crate::stats::PeStats;
use crate::Config;

use super::workers::{parallel_stats, run_workers, Failure};
use super::{base_stats, finish, forward, init_lp, Report, Setup};

/// A barrier that spins (then yields) instead of sleeping on a condition
/// variable, and gives up when another worker failed.
struct SpinBarrier {
    n: usize,
    count: AtomicUsize,
    generation: AtomicU64,
}

impl SpinBarrier {
    fn new(n: usize) -> Self {
        SpinBarrier { n, count: AtomicUsize::new(0), generation: AtomicU64::new(0) }
    }

    /// Waits for all `n` workers; false when the run failed meanwhile.
    fn wait(&self, failed: &AtomicBool) -> bool {
        let g = self.generation.load(Acquire);
        if self.count.fetch_add(1, AcqRel) + 1 == self.n {
            self.count.store(0, Relaxed);
            self.generation.fetch_add(1, Release);
            return true;
        }
        let mut spins = 0u32;
        while self.generation.load(Acquire) == g {
            if failed.load(Relaxed) {
                return false;
            }
            spins += 1;
            if spins > 64 {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
        true
    }
}

/// What the workers share.
struct Shared<Msg> {
    pes: usize,
    /// `mail[from * pes + to]`: events from PE `from` for PE `to`.
    mail: Vec<Mutex<Vec<Outgoing<Msg>>>>,
    /// Smallest pending timestamp of each PE (f64 bits).
    mins: Vec<AtomicU64>,
    barrier: SpinBarrier,
    failure: Failure,
}

/// One PE of the conservative kernel.
struct Pe<'a, M: Model, Q> {
    id: usize,
    model: &'a M,
    s: &'a Setup,
    map: &'a BlockMapping,
    first_lp: u32,
    lps: Vec<Lp<M::State>>,
    q: Q,
    out: Vec<Outgoing<M::Msg>>,
    outbox: Vec<Vec<Outgoing<M::Msg>>>,
    stats: PeStats,
    windows: u64,
    /// Most events queued at once.
    peak: usize,
    trace: Vec<Key>,
    trace_lp: Option<u32>,
}

impl<M: Model, Q: PendingQueue<Inline<M::Msg>>> Pe<'_, M, Q> {
    /// Local events into the queue, others into the outbox of their PE.
    fn route(&mut self) -> Result<(), Error> {
        for o in self.out.drain(..) {
            let pe = self.map.pe_of(o.dst);
            if pe == self.id {
                self.q.push(Entry::new(o.key, Inline { dst: o.dst, msg: o.msg }));
                self.peak = self.peak.max(self.q.len());
            } else {
                self.outbox[pe].push(o);
            }
        }
        Ok(())
    }

    fn init(&mut self) -> Result<(), Error> {
        for lp in self.map.lps_of(self.id) {
            let (rec, dropped) = init_lp(self.model, self.s, lp, &mut self.out)?;
            self.lps.push(rec);
            self.stats.past_end += dropped as u64;
            self.route()?;
        }
        Ok(())
    }

    fn run(&mut self, sh: &Shared<M::Msg>, progress: &mut Progress) -> Result<(), Error> {
        let pes = sh.pes;
        loop {
            // Hand over what the last window sent to other PEs.
            for to in 0..pes {
                if !self.outbox[to].is_empty() {
                    sh.mail[self.id * pes + to].lock().unwrap_or_else(|p| p.into_inner()).append(&mut self.outbox[to]);
                }
            }
            if !sh.barrier.wait(sh.failure.flag()) {
                return Ok(());
            }
            for from in 0..pes {
                let mut inbox =
                    std::mem::take(&mut *sh.mail[from * pes + self.id].lock().unwrap_or_else(|p| p.into_inner()));
                self.out.append(&mut inbox);
                self.route()?;
            }
            let local = self.q.peek().map_or(f64::INFINITY, |k| k.time);
            sh.mins[self.id].store(local.to_bits(), Relaxed);
            if !sh.barrier.wait(sh.failure.flag()) {
                return Ok(());
            }
            let m = sh.mins.iter().map(|a| f64::from_bits(a.load(Relaxed))).fold(f64::INFINITY, f64::min);
            if m == f64::INFINITY {
                return Ok(());
            }
            if self.id == 0 {
                progress.update(m);
            }
            // Rounding is monotone, so every send (delay >= lookahead) from an
            // event at t >= m lands at or after `window`.
            let window = m + self.s.lookahead;
            self.windows += 1;
            while let Some(k) = self.q.peek() {
                if k.time >= window {
                    break;
                }
                let e = self.q.pop().expect("peeked");
                let (key, dst, msg) = (e.key(), e.item.dst, e.item.msg);
                let lp = &mut self.lps[(dst - self.first_lp) as usize];
                let mut undo = M::Undo::default();
                let dropped = forward(self.model, self.s, lp, dst, &key, &msg, &mut undo, &mut self.out)?;
                self.model.commit(&msg, &undo, dst, key.time);
                self.stats.ties += lp.record_commit(&key) as u64;
                if self.trace_lp == Some(dst) {
                    self.trace.push(key);
                }
                self.stats.past_end += dropped as u64;
                self.stats.committed += 1;
                for o in &self.out {
                    self.stats.remote += (self.map.pe_of(o.dst) != self.id) as u64;
                }
                self.route()?;
            }
        }
    }
}

/// Runs `model` conservatively on `cfg.threads` worker threads.
pub(crate) fn run<M: Model, Q: PendingQueue<Inline<M::Msg>>>(
    model: &M,
    cfg: &Config,
) -> Result<Report<M::Results>, Error> {
    let s = Setup::new(model, cfg)?;
    if s.lookahead <= 0.0 {
        return Err(Error::Config(format!(
            "model {} declares lookahead {}: conservative synchronisation needs a positive lookahead \
             (every event sent at least that far ahead); use --sync optimistic",
            model.name(),
            s.lookahead
        )));
    }
    let pes = cfg.threads;
    let map = BlockMapping::new(s.num_lps, pes, 1);
    let sh = Shared::<M::Msg> {
        pes,
        mail: (0..pes * pes).map(|_| Mutex::new(Vec::new())).collect(),
        mins: (0..pes).map(|_| AtomicU64::new(0)).collect(),
        barrier: SpinBarrier::new(pes),
        failure: Failure::default(),
    };
    let t0 = Instant::now();
    let done = run_workers((0..pes).collect(), &sh.failure, |id, _| {
        let mut pe = Pe::<M, Q> {
            id,
            model,
            s: &s,
            map: &map,
            first_lp: map.lps_of(id).start,
            lps: Vec::new(),
            peak: 0,
            q: Q::default(),
            out: Vec::with_capacity(64),
            outbox: (0..pes).map(|_| Vec::new()).collect(),
            stats: PeStats::default(),
            windows: 0,
            trace: Vec::new(),
            trace_lp: cfg.trace_lp,
        };
        pe.init()?;
        let init = t0.elapsed().as_secs_f64();
        let mut progress = Progress::new(cfg.progress && id == 0, s.end);
        let r = pe.run(&sh, &mut progress);
        progress.finish();
        pe.stats.processed = pe.stats.committed;
        pe.stats.peak_events = pe.peak as u64;
        r.map(|_| (pe, init))
    })?;
    let total = t0.elapsed().as_secs_f64();
    let inits = done.iter().map(|d| d.1);
    let mut stats = parallel_stats(base_stats(model, cfg, &s), total, inits, done.iter().map(|d| &d.0.stats));
    stats.gvt_rounds = done[0].0.windows;
    stats.kps_per_pe = 1;
    stats.event_bytes = std::mem::size_of::<Entry<Inline<M::Msg>>>() as u64;
    let trace = done.iter().flat_map(|d| d.0.trace.iter().copied()).collect();
    let lps = done.iter().flat_map(|(pe, _)| pe.lps.iter()).enumerate().map(|(i, l)| (i as u32, l));
    let mut report = finish(model, lps, stats);
    report.trace = trace;
    Ok(report)
}
