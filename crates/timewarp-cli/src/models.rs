//! Command-line front ends of the shipped models: their options and defaults.

use crate::args::{non_negative_f64, probability, EngineArgs};
use clap::{Args, Subcommand};
use timewarp_models::phold::Phold;

/// PHOLD options (defaults: the reference configuration of the papers).
#[derive(Args, Debug, Clone)]
pub(crate) struct PholdArgs {
    /// Number of LPs.
    #[arg(long, default_value_t = 16_384, value_parser = clap::value_parser!(u32).range(1..))]
    pub lps: u32,
    /// Initial events per LP.
    #[arg(long, default_value_t = 10)]
    pub population: u32,
    /// Mean of the exponential part of each delay.
    #[arg(long, default_value_t = 1.0, value_parser = non_negative_f64, allow_negative_numbers = true)]
    pub mean: f64,
    /// Minimum delay added to every event (the model's lookahead).
    #[arg(long, default_value_t = 1.0, value_parser = non_negative_f64, allow_negative_numbers = true)]
    pub lookahead: f64,
    /// Probability that an event goes to an LP drawn uniformly from all LPs instead of to itself.
    #[arg(long, default_value_t = 0.1, value_parser = probability, allow_negative_numbers = true)]
    pub remote: f64,
    /// Busy-work iterations per event (event grain).
    #[arg(long, default_value_t = 0)]
    pub compute: u32,
}

impl PholdArgs {
    pub(crate) fn model(&self) -> Phold {
        Phold {
            lps: self.lps,
            population: self.population,
            mean: self.mean,
            lookahead: self.lookahead,
            remote: self.remote,
            compute: self.compute,
        }
    }
}

/// The models `run` knows.
#[derive(Subcommand, Debug, Clone)]
pub(crate) enum ModelCmd {
    /// PHOLD synthetic benchmark: every event schedules one new event.
    Phold {
        #[command(flatten)]
        model: PholdArgs,
        #[command(flatten)]
        engine: EngineArgs,
    },
}

/// One line per model for `timewarp list`.
pub(crate) const MODELS: &[(&str, &str)] =
    &[("phold", "synthetic benchmark: every event schedules one new event (Fujimoto; ROSS's PHOLD)")];
