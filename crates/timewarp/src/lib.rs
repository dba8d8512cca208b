//! # timewarp
//!
//! A parallel discrete-event simulation engine in the line of ROSS: models
//! are sets of logical processes (LPs) exchanging time-stamped events, run
//! sequentially or in parallel with identical committed results.
//!
//! A model implements [`Model`]; [`run`] executes it under a [`Config`] and
//! returns a [`Report`] with statistics ([`Stats`]) and the model's results.
//! Start with the [`guide`] for model writers: concepts, a complete model,
//! choosing a mode, checking a model and troubleshooting. See also the
//! [`Model`] docs and `examples/` in the
//! repository for a commented model to copy.
//!
//! Determinism: events are totally ordered by [`Key`] — timestamp, zero-delay
//! generation, then sender LP and the sender's send counter — which depends
//! only on the model's own history. The `digest` in [`Stats`] summarises every
//! committed event and the final state of every LP, so runs in different
//! modes can be compared with one string.
#![warn(missing_docs, unreachable_pub)]

mod bytes;
pub mod checkpoint;
mod config;
pub mod digest;
mod error;
mod event;
pub mod guide;
mod gvt;
mod kernel;
mod key;
mod layout;
mod lp;
mod mapping;
pub mod memory;
mod model;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod partition;
mod prefetch;
mod progress;
pub mod queue;
mod report;
mod rng;
mod segment;
mod stats;
mod sync;
pub mod text;
pub mod timeline;
mod trail;
mod transport;
pub mod verify;

pub use config::{
    Adaptivity, Config, LinkEmulation, Optimism, Scheduling, SyncMode, DETECT_EVENTS, EVENT_MEMORY_FACTOR,
    MAX_EVENTS_AT_ONE_TIME, MIN_LPS_PER_KP,
};
pub use error::Error;
pub use key::{Key, LpId, Time};
pub use mapping::Mapping;
pub use model::{Ctx, Lent, Model, Rollback, MAX_STREAMS};
pub use queue::QueueKind;
pub use report::Report;
pub use rng::{Random, ReversibleRng, Stream};
pub use stats::{Flushes, GvtPoint, PeStats, RankStats, Stats, WorkerStats};

use event::Inline;
use queue::{heap::QuadHeap, ladder::LadderQueue};

/// Runs `model` under `cfg`.
///
/// Errors say what was wrong (configuration, a handler sending into the past
/// or below the lookahead, a reverse handler that does not restore state in
/// check mode, ...).
pub fn run<M: Model>(model: &M, cfg: &Config) -> Result<Report<M::Results>, Error> {
    checkpoint::drive(model, cfg, &kernel::processes::One, None, None, None)?
        .ok_or_else(|| Error::Internal("a run in one process ended without a report".into()))
}

/// Runs `model` sequentially and profiles it: per LP committed events and
/// handler time, per LP pair committed messages (the input of
/// [`partition`]). Profiles are collected by the sequential kernel, which
/// commits every event it processes, so nothing is counted twice; `cfg.sync`
/// must be `Sequential`. The header's `model`, `lps`, `seed`, `end` and
/// `committed_events` are filled in; `params` is the caller's.
///
/// ```
/// use timewarp::{Config, Model};
/// # use timewarp::{Ctx, LpId};
/// # struct Ring;
/// # impl Model for Ring {
/// #     type State = (); type Msg = (); type Undo = (); type Results = ();
/// #     fn name(&self) -> &str { "ring" }
/// #     fn num_lps(&self) -> u32 { 4 }
/// #     fn lookahead(&self) -> f64 { 1.0 }
/// #     fn init(&self, lp: LpId, ctx: &mut Ctx<'_, Self>) { if lp == 0 { ctx.send(0, 1.0, ()) } }
/// #     fn forward(&self, _: &mut (), _: &(), _: &mut (), ctx: &mut Ctx<'_, Self>) {
/// #         ctx.send((ctx.lp() + 1) % 4, 1.0, ());
/// #     }
/// #     fn reverse(&self, _: &mut (), _: &(), _: &(), _: LpId, _: f64) {}
/// # }
/// let (report, profile) = timewarp::profile(&Ring, &Config { end: 9.0, ..Config::default() }).unwrap();
/// let g = profile.graph();
/// assert_eq!(g.total_events(), report.stats.committed_events);
/// assert_eq!(g.edge_weight(0, 1), Some(2)); // 0 -> 1 at times 2 and 6
/// ```
pub fn profile<M: Model>(model: &M, cfg: &Config) -> Result<(Report<M::Results>, partition::Profile), Error> {
    if cfg.sync != SyncMode::Sequential {
        return Err(Error::Config(format!(
            "profiles are collected by the sequential kernel (it commits every event it processes); \
             run with --sync sequential, not {}",
            cfg.sync.name()
        )));
    }
    cfg.validate()?;
    memory::check(model, cfg, 1)?;
    let mut p = partition::Profile::new(model.num_lps());
    let report = match cfg.queue {
        QueueKind::Ladder => {
            kernel::sequential::run_profiled::<M, LadderQueue<Inline<M::Msg>>, true>(model, cfg, Some(&mut p))?
        }
        QueueKind::Heap => {
            kernel::sequential::run_profiled::<M, QuadHeap<Inline<M::Msg>>, true>(model, cfg, Some(&mut p))?
        }
    };
    p.header.model = model.name().to_string();
    p.header.seed = cfg.seed;
    p.header.end = cfg.end;
    p.header.committed_events = report.stats.committed_events;
    Ok((report, p))
}
