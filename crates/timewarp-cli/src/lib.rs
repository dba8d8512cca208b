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

mod action;
mod app;
mod args;
mod auto;
mod command;
mod csv_stats;
mod draw;
mod effective;
pub mod embed;
mod execute;
mod expand;
mod html_report;
#[cfg(feature = "models")]
mod models;
mod network;
mod partition;
mod plot;
mod procs;
mod program;
mod readable;
mod registry;
mod rerun;
mod resume;
mod run_file;
mod run_options;
mod signals;
mod stats_out;
mod sweep;
mod trace_out;

pub use app::App;
pub use registry::{ModelCli, RunInfo};

// The shipped models, for unit tests (`crate::shipped()`).
#[cfg(all(test, feature = "models"))]
use app::shipped;
