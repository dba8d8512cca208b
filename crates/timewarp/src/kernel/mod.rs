//! Kernels: the scheduler loops that run a model under each synchronisation mode.
//!
//! They share the pieces in this module: run set-up and validation
//! ([`Setup`]), the one table that picks a kernel ([`dispatch`]), one
//! function that calls a forward handler ([`forward`]) and LP creation
//! ([`init_lp`]); the processes a run spans are the seam in [`processes`],
//! and the end of a segment in [`end`]; the report is built in
//! [`crate::report`].

pub(crate) mod check;
pub(crate) mod commit;
pub(crate) mod conservative;
pub(crate) mod end;
pub(crate) mod optimistic;
pub(crate) mod processes;
pub(crate) mod sequential;
pub(crate) mod workers;

use crate::config::{Config, SyncMode};
use crate::error::Error;
use crate::key::{Key, LpId};
use crate::lp::Lp;
use crate::model::{Ctx, Model, Outgoing, MAX_STREAMS};
use crate::queue::QueueKind;
use crate::rng::key_from_seed;
use crate::segment::{Outcome, Segment};
use processes::Processes;

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

    /// `Setup` for segment `seg` (checking that its snapshot fits the model).
    pub(crate) fn of_segment<M: Model>(model: &M, cfg: &Config, seg: &Segment<'_, M>) -> Result<Self, Error> {
        let mut s = Setup::new(model, cfg)?;
        if let Some(snap) = seg.start {
            snap.fits(model, s.num_lps)?;
        }
        s.pause = seg.pause;
        Ok(s)
    }

    /// Random stream id of stream 0 of `lp` (stream ids never depend on placement).
    #[inline]
    pub(crate) fn rng_base(lp: LpId) -> u64 {
        (lp as u64) << 32
    }
}

/// What the run measured before a kernel starts (its memory estimate): the
/// kernels receive their sizes instead of estimating them, so the estimate,
/// which counts the kernels' records, stays above them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sizes {
    /// The bytes of this process' LPs and events (the optimistic kernel's
    /// rings take at most half of it: `optimistic::ring_capacity`).
    pub(crate) model_bytes: u64,
}

/// Runs one segment of `model` under `cfg` on every process of `x`, in
/// the kernel its mode and queue name: the one table of kernels (each
/// kernel then picks its placement with `with_place!`).
pub(crate) fn dispatch<M: Model, X: Processes>(
    model: &M,
    cfg: &Config,
    seg: &Segment<'_, M>,
    x: &X,
    sizes: Sizes,
) -> Result<Outcome<M>, Error> {
    use crate::event::{Inline, Queued};
    use crate::queue::{heap::QuadHeap, ladder::LadderQueue};
    match (cfg.sync, cfg.queue) {
        (SyncMode::Sequential | SyncMode::Check, _) if x.count() > 1 => Err(Error::Option {
            option: "sync",
            problem: format!(
                "the {} mode runs in one process, but this run has {} MPI processes; use optimistic or \
                 conservative under mpirun (or run without mpirun)",
                cfg.sync.name(),
                x.count()
            ),
        }),
        (SyncMode::Sequential | SyncMode::Check, QueueKind::Ladder) => {
            sequential::run::<M, LadderQueue<Inline<M::Msg>>>(model, cfg, seg)
        }
        (SyncMode::Sequential | SyncMode::Check, QueueKind::Heap) => {
            sequential::run::<M, QuadHeap<Inline<M::Msg>>>(model, cfg, seg)
        }
        (SyncMode::Optimistic, QueueKind::Ladder) => {
            optimistic::run::<M, LadderQueue<Queued<M::Msg>>, X::Net, X>(model, cfg, seg, x, sizes)
        }
        (SyncMode::Optimistic, QueueKind::Heap) => {
            optimistic::run::<M, QuadHeap<Queued<M::Msg>>, X::Net, X>(model, cfg, seg, x, sizes)
        }
        (SyncMode::Conservative, QueueKind::Ladder) => {
            conservative::run::<M, LadderQueue<Inline<M::Msg>>, X::Windows, X>(model, cfg, seg, x)
        }
        (SyncMode::Conservative, QueueKind::Heap) => {
            conservative::run::<M, QuadHeap<Inline<M::Msg>>, X::Windows, X>(model, cfg, seg, x)
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
        lent: false,
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
    journal: Option<&mut crate::trail::Trail<M::Undo>>,
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
        lent: false,
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
            crate::bytes::human((n as u64).saturating_mul(std::mem::size_of::<T>() as u64))
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
