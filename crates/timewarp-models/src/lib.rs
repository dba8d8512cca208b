//! Models shipped with timewarp. Each lives in its own folder and is
//! validated against an answer known independently of the engine.
//!
//! ```
//! use timewarp::{run, Config, SyncMode};
//! use timewarp_models::phold::Phold;
//!
//! let model = Phold { lps: 64, population: 2, ..Phold::default() };
//! let seq = run(&model, &Config { end: 5.0, ..Config::default() }).unwrap();
//! let opt = run(&model, &Config { end: 5.0, sync: SyncMode::Optimistic, threads: 2, ..Config::default() }).unwrap();
//! assert_eq!(seq.stats.digest, opt.stats.digest); // every mode commits the same history
//! assert_eq!(seq.results.processed, seq.stats.committed_events);
//! ```
#![warn(missing_docs, unreachable_pub)]

pub mod network;
pub mod pcs;
pub mod phold;
pub mod tlm;
