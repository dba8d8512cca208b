//! Kernels: the scheduler loops that run a model under each synchronisation mode.
//!
//! They share the pieces in this module: run set-up and validation
//! ([`Setup`]), one function that calls a forward handler ([`forward`]), LP
//! creation ([`init_lp`]) and the final report ([`finish`]).

pub(crate) mod check;
pub(crate) mod commit;
pub(crate) mod conservative;
pub(crate) mod optimistic;
pub(crate) mod port;
pub(crate) mod sequential;
pub(crate) mod workers;

use crate::digest::run_digest;
use crate::error::Error;
use crate::key::{Key, LpId};
use crate::lp::Lp;
use crate::model::{Ctx, Model, Outgoing, MAX_STREAMS};
use crate::rng::key_from_seed;
use crate::stats::{peak_rss_bytes, Stats};
use crate::Config;

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
}

/// Values every kernel derives once from the model and configuration.
pub(crate) struct Setup {
    pub(crate) num_lps: u32,
    pub(crate) streams: usize,
    pub(crate) lookahead: f64,
    pub(crate) end: f64,
    pub(crate) rng_key: u64,
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
        Ok(Setup { num_lps, streams: streams as usize, lookahead, end: cfg.end, rng_key: key_from_seed(cfg.seed) })
    }

    /// Random stream id of stream 0 of `lp` (stream ids never depend on placement).
    #[inline]
    pub(crate) fn rng_base(lp: LpId) -> u64 {
        (lp as u64) << 32
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
    stats.event_rate = if stats.wall_seconds > 0.0 { stats.committed_events as f64 / stats.wall_seconds } else { 0.0 };
    Report { stats, results, lp_digests, trace: Vec::new() }
}

/// Statistics fields every kernel fills the same way at the start.
pub(crate) fn base_stats<M: Model>(model: &M, cfg: &Config, s: &Setup) -> Stats {
    Stats {
        model: model.name().to_string(),
        sync: cfg.sync.name().to_string(),
        threads: cfg.threads,
        ranks: 1,
        lps: s.num_lps as u64,
        end_time: cfg.end,
        seed: cfg.seed,
        queue: format!("{:?}", cfg.queue).to_lowercase(),
        ..Default::default()
    }
}
