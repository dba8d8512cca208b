//! The network model's front end, apart from the generic one: its options
//! and their checks, the CODES import, jobs and workloads, the
//! latency-load curve and the network's figures.
//!
//! Under cargo feature `models` (the shipped models): `model_args.rs`
//! (`NetworkArgs`, its options and its `ModelCli` impl), `model_build.rs`
//! (how they become a `Network`, and the bounds on a run), `wired.rs` (its
//! Dragonfly+ and the dragonflies wired by connection files),
//! `workload_args.rs` (the workload options) over `job_args.rs` (`--job`
//! specs, placements, `--baseline-alone` runs) and `codes_apps.rs` (CODES's
//! workload files and the application skeletons they name), `samples_csv.rs` (the
//! time-series CSV), `lp_io.rs` (CODES's LP-IO files of `--lp-io-dir`),
//! `steady.rs` (the steady-state note after a run), `applies.rs` (which
//! options apply to a configuration, for the report) and `codes/` (CODES
//! configurations read as options). Built always, as they read files and
//! run the program again rather than name the model: `curve/` (`timewarp
//! curve`, its steady-state rule in `curve/rule.rs`) and `draw/` (a run's
//! links as a heatmap, its topology map and time series).

#[cfg(feature = "models")]
mod applies;
#[cfg(feature = "models")]
pub(crate) mod codes;
#[cfg(feature = "models")]
mod codes_apps;
pub(crate) mod curve;
pub(crate) mod draw;
#[cfg(feature = "models")]
mod job_args;
#[cfg(feature = "models")]
mod lp_io;
#[cfg(feature = "models")]
mod model_args;
#[cfg(feature = "models")]
mod model_build;
#[cfg(feature = "models")]
mod samples_csv;
#[cfg(feature = "models")]
mod steady;
#[cfg(feature = "models")]
mod wired;
#[cfg(feature = "models")]
mod workload_args;

#[cfg(feature = "models")]
pub(crate) use applies::network_option_applies;
#[cfg(feature = "models")]
pub(crate) use model_args::NetworkArgs;
