//! The `timewarp` command line as a library: `run`, `verify`, `resume`,
//! `sweep`, `plot`, `report`, run files and statistics files for any model
//! whose options implement [`ModelCli`]. The `timewarp` binary registers the
//! shipped models with [`App`]; a model crate registers its own the same way
//! and gets the whole front end:
//!
//! ```no_run
//! # use timewarp_cli::App;
//! # #[derive(clap::Args, Debug)] struct MyArgs {}
//! # impl timewarp_cli::ModelCli for MyArgs {
//! #     type Model = timewarp_models::phold::Phold;
//! #     const NAME: &'static str = "mine"; const ABOUT: &'static str = "mine"; const END: &'static str = "10";
//! #     fn build(&self, _: &timewarp_cli::RunInfo) -> Result<Self::Model, String> { Ok(Default::default()) }
//! # }
//! fn main() -> std::process::ExitCode {
//!     App::new("mine").model::<MyArgs>().main()
//! }
//! ```
//!
//! See [`ModelCli`] for a complete example, and `examples/tandem` in the
//! repository for a model crate that uses it.
//!
//! This file only declares the modules and says what is public.

mod action;
mod app;
mod args;
mod auto;
#[cfg(feature = "models")]
mod codes;
mod command;
mod config;
mod csv_stats;
mod curve;
pub mod embed;
mod execute;
#[cfg(feature = "models")]
mod jobs;
#[cfg(feature = "models")]
mod models;
mod partition;
mod plot;
mod procs;
mod program;
mod readable;
mod registry;
mod report;
mod resume;
mod signals;
mod stats_out;
mod sweep;
mod trace_out;
#[cfg(feature = "models")]
mod workload_args;

pub use app::App;
pub use registry::{ModelCli, RunInfo};
