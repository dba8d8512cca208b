//! Models shipped with timewarp. Each lives in its own folder and is
//! validated against an answer known independently of the engine.
//!
//! ```
//! use timewarp::{Config, Run, SyncMode};
//! use timewarp_models::phold::Phold;
//!
//! let model = Phold { lps: 64, population: 2, ..Phold::default() };
//! let seq = Run::new(&model, &Config { end: 5.0, ..Config::default() }).execute().unwrap();
//! let cfg = Config { end: 5.0, sync: SyncMode::Optimistic, threads: 2, ..Config::default() };
//! let opt = Run::new(&model, &cfg).execute().unwrap();
//! assert_eq!(seq.stats.digest, opt.stats.digest); // every mode commits the same history
//! assert_eq!(seq.results.processed, seq.stats.committed_events);
//! ```
#![warn(missing_docs, unreachable_pub)]

pub mod network;
pub mod pcs;
pub mod phold;
pub mod tlm;
