//! Command-line front ends of the shipped models: their options and defaults.

use crate::args::{non_negative_f64, probability, EngineArgs};
use clap::{Args, Subcommand};
use timewarp_models::pcs::{Arrivals, Pcs};
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

/// PCS options (defaults: ROSS's PCS with one mean call duration as the time unit).
#[derive(Args, Debug, Clone)]
pub(crate) struct PcsArgs {
    /// Cells along x (the grid wraps around).
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..))]
    pub cells_x: u32,
    /// Cells along y.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..))]
    pub cells_y: u32,
    /// Radio channels per cell.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    pub channels: u32,
    /// Portables (subscribers) starting in each cell.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..))]
    pub portables_per_cell: u32,
    /// Call attempts per unit time by an idle portable.
    #[arg(long, default_value_t = 0.5, value_parser = non_negative_f64, allow_negative_numbers = true)]
    pub call_rate: f64,
    /// Mean call holding time.
    #[arg(long, default_value_t = 1.0, value_parser = crate::args::positive_f64, allow_negative_numbers = true)]
    pub call_duration: f64,
    /// Moves per unit time of a portable (0: no mobility).
    #[arg(long, default_value_t = 0.04, value_parser = non_negative_f64, allow_negative_numbers = true)]
    pub move_rate: f64,
    /// Call arrival process: engset (idle portables call; finite source) or poisson (per cell; Erlang-B).
    #[arg(long, default_value = "engset", value_parser = |s: &str| s.parse::<Arrivals>())]
    pub arrivals: Arrivals,
}

impl PcsArgs {
    pub(crate) fn model(&self) -> Pcs {
        Pcs {
            cells_x: self.cells_x,
            cells_y: self.cells_y,
            channels: self.channels,
            portables_per_cell: self.portables_per_cell,
            call_rate: self.call_rate,
            call_duration: self.call_duration,
            move_rate: self.move_rate,
            arrivals: self.arrivals,
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
    /// PCS cellular network: calls, handoffs and blocking on a grid of cells.
    Pcs {
        #[command(flatten)]
        model: PcsArgs,
        #[command(flatten)]
        engine: EngineArgs,
    },
}

/// One line per model for `timewarp list`.
pub(crate) const MODELS: &[(&str, &str)] = &[
    ("phold", "synthetic benchmark: every event schedules one new event (Fujimoto; ROSS's PHOLD)"),
    ("pcs", "cellular network: call blocking and handoffs on a wrap-around grid (ROSS's PCS; checked against Engset / Erlang-B)"),
];
