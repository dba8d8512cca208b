//! # timewarp
//!
//! A parallel discrete-event simulation engine in the line of ROSS: models
//! are sets of logical processes (LPs) exchanging time-stamped events, run
//! sequentially or in parallel with identical committed results.
//!
//! A model implements [`Model`]; a [`Run`] executes it under a [`Config`]
//! and returns a [`Report`] with statistics ([`Stats`]) and the model's
//! results.
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
//!
//! ```
//! # let model = timewarp::verify::doc_model();
//! use timewarp::{Config, Run, SyncMode};
//! let seq = Run::new(&model, &Config::default()).execute().unwrap();
//! let opt = Config { sync: SyncMode::Optimistic, threads: 2, ..Config::default() };
//! assert_eq!(Run::new(&model, &opt).execute().unwrap().stats.digest, seq.stats.digest);
//! ```
//!
//! This file only declares the modules and says what is public.
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
mod model;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod partition;
mod prefetch;
mod progress;
pub mod queue;
mod report;
mod rng;
mod run;
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
pub use progress::ProgressSink;
pub use queue::QueueKind;
pub use report::Report;
pub use rng::{Random, ReversibleRng, Stream};
// `memory`: the estimate a run checks, public for front ends that check first.
#[allow(deprecated)]
pub use run::{memory, profile, run, Run};
pub use stats::{Flushes, GvtPoint, PeStats, RankStats, Stats, WorkerStats};
