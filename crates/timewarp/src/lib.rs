//! # timewarp
//!
//! A parallel discrete-event simulation engine in the line of ROSS: models
//! are sets of logical processes (LPs) exchanging time-stamped events, run
//! sequentially or in parallel with identical committed results.
//!
//! A model implements [`Model`]; [`run`] executes it under a [`Config`] and
//! returns a [`Report`] with statistics ([`Stats`]) and the model's results.
//! See the [`Model`] docs for a complete example and `examples/` in the
//! repository for a commented model to copy.
//!
//! Determinism: events are totally ordered by [`Key`] — timestamp, zero-delay
//! generation, then sender LP and the sender's send counter — which depends
//! only on the model's own history. The `digest` in [`Stats`] summarises every
//! committed event and the final state of every LP, so runs in different
//! modes can be compared with one string.
#![warn(missing_docs, unreachable_pub)]

mod arena;
pub mod checkpoint;
mod config;
pub mod digest;
mod error;
mod event;
mod kernel;
mod key;
mod lp;
mod mapping;
pub mod memory;
mod model;
#[cfg(feature = "mpi")]
pub mod mpi;
mod progress;
pub mod queue;
mod rng;
mod stats;
pub mod verify;
mod wire;

pub use config::{Config, Optimism, SyncMode, EVENT_MEMORY_FACTOR, MAX_EVENTS_AT_ONE_TIME};
pub use error::Error;
pub use kernel::Report;
pub use key::{Key, LpId, Time};
pub use mapping::Mapping;
pub use model::{Ctx, Model, Rollback, MAX_STREAMS};
pub use queue::QueueKind;
pub use rng::{Random, ReversibleRng, Stream};
pub use stats::{GvtPoint, PeStats, RankStats, Stats};

/// Runs `model` under `cfg`.
///
/// Errors say what was wrong (configuration, a handler sending into the past
/// or below the lookahead, a reverse handler that does not restore state in
/// check mode, ...).
pub fn run<M: Model>(model: &M, cfg: &Config) -> Result<Report<M::Results>, Error> {
    cfg.validate()?;
    memory::check(model, cfg, 1)?;
    kernel::dispatch(model, cfg, &kernel::Segment::whole())?.report()
}
