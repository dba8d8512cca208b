//! Kernels: the scheduler loops that run a model under each synchronisation mode.
//!
//! They share the pieces in this module: run set-up and validation
//! ([`Setup`]), one function that calls a forward handler ([`forward`]), LP
//! creation ([`init_lp`]) and the final report ([`finish`]).

pub(crate) mod check;
pub(crate) mod commit;
pub(crate) mod conservative;
pub(crate) mod optimistic;
pub(crate) mod sequential;
pub(crate) mod workers;

use crate::checkpoint::{Control, Snapshot};
use crate::digest::run_digest;
use crate::error::Error;
use crate::key::{Key, LpId};
use crate::lp::Lp;
use crate::model::{Ctx, Model, Outgoing, MAX_STREAMS};
use crate::rng::key_from_seed;
use crate::stats::{peak_rss_bytes, Stats};
use crate::Config;
use std::collections::VecDeque;

/// What a run returns: statistics and the model's results.
#[derive(Debug)]
pub struct Report<R> {
    /// Engine statistics.
    pub stats: Stats,
    /// What the model's `finalize` gathered.
    pub results: R,
    /// Per-LP history digests in LP-id order (what `verify` compares).
    pub lp_digests: Vec<crate::digest::LpDigest>,
    /// Committed event keys of `Config::trace_lp`, in commit order.
    pub trace: Vec<Key>,
    /// What each PE did when, if `Config::timeline` asked for it.
    pub timeline: Option<crate::timeline::Timeline>,
}

/// Values every kernel derives once from the model and configuration.
pub(crate) struct Setup {
    pub(crate) num_lps: u32,
    pub(crate) streams: usize,
    pub(crate) lookahead: f64,
    pub(crate) end: f64,
    pub(crate) rng_key: u64,
    /// Events at or past this time are kept, not processed: the run pauses
    /// there for a checkpoint (`end` or more: it runs to the end).
    pub(crate) pause: f64,
    /// When this process' run started (timeline spans count from it).
    pub(crate) started: std::time::Instant,
}

impl Setup {
    pub(crate) fn new<M: Model>(model: &M, cfg: &Config) -> Result<Self, Error> {
        cfg.validate()?;
        let num_lps = model.num_lps();
        if num_lps == 0 {
            return Err(Error::Config(format!("model {} has 0 LPs; it needs at least 1", model.name())));
        }
        let streams = model.rng_streams();
        if streams > MAX_STREAMS {
            return Err(Error::Config(format!(
                "model {} declares {streams} random streams per LP; at most {MAX_STREAMS} are supported",
                model.name()
            )));
        }
        let lookahead = model.lookahead();
        if !(lookahead.is_finite() && lookahead >= 0.0) {
            return Err(Error::Config(format!(
                "model {} declares lookahead {lookahead}; it must be finite and >= 0",
                model.name()
            )));
        }
        Ok(Setup {
            num_lps,
            streams: streams as usize,
            lookahead,
            end: cfg.end,
            rng_key: key_from_seed(cfg.seed),
            pause: f64::INFINITY,
            started: std::time::Instant::now(),
        })
    }

    /// Random stream id of stream 0 of `lp` (stream ids never depend on placement).
    #[inline]
    pub(crate) fn rng_base(lp: LpId) -> u64 {
        (lp as u64) << 32
    }
}

/// Runs one segment of `model` under `cfg` in the kernel its mode and queue name.
pub(crate) fn dispatch<M: Model>(model: &M, cfg: &Config, seg: &Segment<'_, M>) -> Result<Outcome<M>, Error> {
    use crate::event::{Inline, Queued};
    use crate::queue::{heap::QuadHeap, ladder::LadderQueue};
    use crate::{QueueKind, SyncMode};
    match (cfg.sync, cfg.queue) {
        (SyncMode::Sequential | SyncMode::Check, QueueKind::Ladder) => {
            sequential::run::<M, LadderQueue<Inline<M::Msg>>>(model, cfg, seg)
        }
        (SyncMode::Sequential | SyncMode::Check, QueueKind::Heap) => {
            sequential::run::<M, QuadHeap<Inline<M::Msg>>>(model, cfg, seg)
        }
        (SyncMode::Optimistic, QueueKind::Ladder) => optimistic::run::<M, LadderQueue<Queued<M::Msg>>>(model, cfg, seg),
        (SyncMode::Optimistic, QueueKind::Heap) => optimistic::run::<M, QuadHeap<Queued<M::Msg>>>(model, cfg, seg),
        (SyncMode::Conservative, QueueKind::Ladder) => {
            conservative::run::<M, LadderQueue<Inline<M::Msg>>>(model, cfg, seg)
        }
        (SyncMode::Conservative, QueueKind::Heap) => conservative::run::<M, QuadHeap<Inline<M::Msg>>>(model, cfg, seg),
    }
}

/// Which part of a run a kernel call covers: where it starts (time 0, or
/// a snapshot) and where it may pause for a checkpoint.
pub(crate) struct Segment<'a, M: Model> {
    /// The cut to start from; `None`: the model's `init`.
    pub(crate) start: Option<&'a Snapshot<M>>,
    /// Pause once every event before this time is committed (`INFINITY`: run to the end).
    pub(crate) pause: f64,
    /// Asks to pause as soon as possible (signals, a wall-clock timer).
    pub(crate) control: Option<&'a Control>,
}

impl<M: Model> Segment<'_, M> {
    /// The whole run, from time 0 to the end, without pauses.
    pub(crate) fn whole() -> Self {
        Segment { start: None, pause: f64::INFINITY, control: None }
    }

    /// `Setup` for this segment.
    pub(crate) fn setup(&self, model: &M, cfg: &Config) -> Result<Setup, Error> {
        let mut s = Setup::new(model, cfg)?;
        if let Some(snap) = self.start {
            snap.fits(model, s.num_lps)?;
        }
        s.pause = self.pause;
        Ok(s)
    }

    /// Whether a pause was asked for (only polled where the kernel can cut).
    #[inline]
    pub(crate) fn stop_requested(&self) -> bool {
        self.control.is_some_and(Control::requested)
    }
}

/// What a kernel call ends with (one per segment: its size does not matter).
#[allow(clippy::large_enum_variant)]
pub(crate) enum Outcome<M: Model> {
    /// The run reached its end.
    Done(Report<M::Results>),
    /// The run paused at a consistent cut.
    Paused(Box<Snapshot<M>>),
}

impl<M: Model> Outcome<M> {
    /// The report of a run that cannot pause.
    pub(crate) fn report(self) -> Result<Report<M::Results>, Error> {
        match self {
            Outcome::Done(r) => Ok(r),
            Outcome::Paused(_) => Err(Error::Internal("a run without pauses paused".into())),
        }
    }
}

/// Creates LP `lp` (or takes it from the segment's snapshot) and puts its
/// initial events in `out` (from a snapshot, the events are restored by
/// [`restore_events`] instead).
pub(crate) fn start_lp<M: Model>(
    model: &M,
    s: &Setup,
    seg: &Segment<'_, M>,
    lp: LpId,
    out: &mut Vec<Outgoing<M::Msg>>,
) -> Result<(Lp<M::State>, u32), Error> {
    match seg.start {
        Some(snap) => Ok((snap.lps[lp as usize].clone(), 0)),
        None => init_lp(model, s, lp, out),
    }
}

/// Puts the snapshot's pending events for LPs that `mine` accepts in `out`.
pub(crate) fn restore_events<M: Model>(
    seg: &Segment<'_, M>,
    mine: impl Fn(LpId) -> bool,
    out: &mut Vec<Outgoing<M::Msg>>,
) {
    if let Some(snap) = seg.start {
        out.extend(snap.events.iter().filter(|e| mine(e.dst)).map(|e| Outgoing { dst: e.dst, key: e.key, msg: e.msg }));
    }
}

/// Creates LP `lp` and puts its initial events in `out`.
pub(crate) fn init_lp<M: Model>(
    model: &M,
    s: &Setup,
    lp: LpId,
    out: &mut Vec<Outgoing<M::Msg>>,
) -> Result<(Lp<M::State>, u32), Error> {
    let mut seq = 0;
    let mut counters = [0u64; MAX_STREAMS as usize];
    let mut ctx = Ctx::<M> {
        model,
        now: 0.0,
        lp,
        age: 0,
        num_lps: s.num_lps,
        checked: false,
        end: s.end,
        rng_key: s.rng_key,
        rng_base: Setup::rng_base(lp),
        seq: &mut seq,
        counters: &mut counters[..s.streams],
        out,
        past_end: 0,
        error: None,
        journal: None,
    };
    let state = model.init(lp, &mut ctx);
    if let Some(e) = ctx.error {
        return Err(e);
    }
    let past_end = ctx.past_end;
    Ok((Lp::new(state, seq, counters), past_end))
}

/// Calls the forward handler of `lp` for the event `(key, msg)`; sends go to
/// `out`. Returns the number of sends dropped for being past the end time.
/// `journal` takes what an incremental model saves ([`Ctx::save`]): `None`
/// where nothing is ever rolled back.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn forward<M: Model>(
    model: &M,
    s: &Setup,
    lp: &mut Lp<M::State>,
    dst: LpId,
    key: &Key,
    msg: &M::Msg,
    undo: &mut M::Undo,
    out: &mut Vec<Outgoing<M::Msg>>,
    journal: Option<&mut VecDeque<M::Undo>>,
) -> Result<u32, Error> {
    let mut ctx = Ctx::<M> {
        model,
        now: key.time,
        lp: dst,
        age: key.age,
        num_lps: s.num_lps,
        checked: true,
        end: s.end,
        rng_key: s.rng_key,
        rng_base: Setup::rng_base(dst),
        seq: &mut lp.seq,
        counters: &mut lp.counters[..s.streams],
        out,
        past_end: 0,
        error: None,
        journal,
    };
    model.forward(&mut lp.state, msg, undo, &mut ctx);
    match ctx.error {
        None => Ok(ctx.past_end),
        Some(e) => Err(e),
    }
}

/// Reserves room for `n` more items in `v`, or says that `what` do not fit
/// (an allocation failure would abort the process).
pub(crate) fn reserve<T>(v: &mut Vec<T>, n: usize, what: &str) -> Result<(), Error> {
    v.try_reserve_exact(n).map_err(|_| {
        Error::Memory(format!(
            "cannot allocate {} for {n} {what}; make the model smaller",
            crate::memory::human((n as u64).saturating_mul(std::mem::size_of::<T>() as u64))
        ))
    })
}

/// The error for a handler of `lp` that panicked at `time` with payload `p`.
/// Kernels catch panics around their loops, not around every handler call
/// (that would keep the compiler from inlining the handler), and track
/// which event is being processed.
pub(crate) fn handler_panic(lp: LpId, time: f64, p: &(dyn std::any::Any + Send)) -> Error {
    Error::Panic { lp, time, message: panic_text(p) }
}

/// The text of a panic's payload.
pub(crate) fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// The LPs of all `pes` (each a list of ids and a list of records, index
/// for index) in id order, whatever the placement.
pub(crate) fn by_id<'a, S: 'a>(pes: impl Iterator<Item = (&'a [LpId], &'a [Lp<S>])>) -> Vec<(LpId, &'a Lp<S>)> {
    let mut all: Vec<(LpId, &Lp<S>)> = pes.flat_map(|(ids, lps)| ids.iter().copied().zip(lps)).collect();
    all.sort_by_key(|x| x.0); // runs already in order (block mapping) cost one pass
    all
}

/// Runs `finalize` over LPs in id order and fills the digest and memory figures.
pub(crate) fn finish<'a, M: Model>(
    model: &M,
    lps: impl Iterator<Item = (LpId, &'a Lp<M::State>)>,
    mut stats: Stats,
) -> Report<M::Results> {
    stats.peak_rss_bytes = peak_rss_bytes();
    finish_parts(model, lps.map(|(id, lp)| (id, lp.digest(), &lp.state)), stats)
}

/// Runs `finalize` over `(id, digest, final state)` in id order and fills
/// the digest and event rate.
pub(crate) fn finish_parts<'a, M: Model>(
    model: &M,
    lps: impl Iterator<Item = (LpId, crate::digest::LpDigest, &'a M::State)>,
    mut stats: Stats,
) -> Report<M::Results> {
    let mut results = M::Results::default();
    let mut lp_digests = Vec::new();
    for (id, digest, state) in lps {
        model.finalize(id, state, stats.end_time, &mut results);
        lp_digests.push(digest);
    }
    stats.digest = run_digest(lp_digests.iter().copied());
    stats.digest_version = crate::digest::DIGEST_VERSION;
    stats.event_rate = if stats.wall_seconds > 0.0 { stats.committed_events as f64 / stats.wall_seconds } else { 0.0 };
    Report { stats, results, lp_digests, trace: Vec::new(), timeline: None }
}

/// Statistics fields every kernel fills the same way at the start.
pub(crate) fn base_stats<M: Model>(model: &M, cfg: &Config, s: &Setup) -> Stats {
    Stats {
        model: model.name().to_string(),
        sync: cfg.sync.name().to_string(),
        threads: cfg.threads,
        pes_per_process: cfg.pes_per_process(),
        scheduling: if cfg.sync == crate::SyncMode::Optimistic { cfg.scheduling.name().into() } else { String::new() },
        ranks: 1,
        lps: s.num_lps as u64,
        end_time: cfg.end,
        seed: cfg.seed,
        queue: format!("{:?}", cfg.queue).to_lowercase(),
        ..Default::default()
    }
}
