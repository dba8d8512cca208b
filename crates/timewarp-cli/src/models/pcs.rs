//! PCS's command line.

use clap::Args;
use timewarp::Rollback;
use timewarp_models::pcs::{Arrivals, Pcs};

use super::{bounded, num};
use crate::args::{choice, non_negative_f64, whole};
use crate::registry::{ModelCli, RunInfo};

/// PCS options (defaults: ROSS's PCS with one mean call duration as the time unit).
#[derive(Args, Debug, Clone)]
pub(crate) struct PcsArgs {
    /// Cells along x (the grid wraps around).
    #[arg(long, default_value_t = 32, value_parser = whole::<u32>(1, u32::MAX as u64), allow_negative_numbers = true)]
    pub cells_x: u32,
    /// Cells along y.
    #[arg(long, default_value_t = 32, value_parser = whole::<u32>(1, u32::MAX as u64), allow_negative_numbers = true)]
    pub cells_y: u32,
    /// Radio channels per cell.
    #[arg(long, default_value_t = 10, value_parser = whole::<u32>(1, u32::MAX as u64), allow_negative_numbers = true)]
    pub channels: u32,
    /// Portables (subscribers) starting in each cell.
    #[arg(long, default_value_t = 16, value_parser = whole::<u32>(1, u32::MAX as u64), allow_negative_numbers = true)]
    pub portables_per_cell: u32,
    /// Call attempts per unit time by an idle portable (rates that imply
    /// more than 1e14 events before --end are refused).
    #[arg(long, default_value_t = 0.5, value_parser = non_negative_f64, allow_negative_numbers = true)]
    pub call_rate: f64,
    /// Mean call holding time.
    #[arg(long, default_value_t = 1.0, value_parser = crate::args::positive_f64, allow_negative_numbers = true)]
    pub call_duration: f64,
    /// Moves per unit time of a portable (0: no mobility).
    #[arg(long, default_value_t = 0.04, value_parser = non_negative_f64, allow_negative_numbers = true)]
    pub move_rate: f64,
    /// Call arrival process: engset (idle portables call; finite source) or poisson (per cell; Erlang-B).
    #[arg(long, default_value = "engset", value_parser = choice::<Arrivals>(&["engset", "poisson"]))]
    pub arrivals: Arrivals,
    /// How optimistic runs undo events: reverse (reverse handlers),
    /// state-saving (a copy of the cell before every event) or incremental
    /// (each write saves the old value); the same results every way.
    #[arg(long, default_value = "reverse", value_parser = choice::<Rollback>(&["reverse", "state-saving", "incremental"]))]
    pub rollback: Rollback,
}

impl PcsArgs {
    /// Refuses parameters that cannot give a run that ends (see [`MAX_EVENTS`](super::MAX_EVENTS)).
    pub(crate) fn bounded(&self, end: f64) -> Result<(), String> {
        // A call is two events (attempt, end), a move one.
        let per_portable = (2.0 * self.call_rate + self.move_rate) * end;
        let events = self.cells_x as f64 * self.cells_y as f64 * self.portables_per_cell as f64 * per_portable;
        let what = format!("--call-rate {} with --move-rate {}", num(self.call_rate), num(self.move_rate));
        bounded(events, end, &what, "lower --call-rate, --move-rate or --end")
    }

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
            rollback: self.rollback,
        }
    }
}

impl ModelCli for PcsArgs {
    type Model = Pcs;
    const NAME: &'static str = "pcs";
    const ABOUT: &'static str = "PCS cellular network: calls, handoffs and blocking on a grid of cells";
    const SUMMARY: &'static str =
        "cellular network: call blocking and handoffs on a wrap-around grid (ROSS's PCS; checked against Engset / Erlang-B)";
    const END: &'static str = "100";
    const END_HELP: &'static str = "Virtual end time, in the unit of --call-duration (one mean call at the \
        defaults); events at or after it are not processed";
    fn build(&self, run: &RunInfo) -> Result<Pcs, String> {
        let m = self.model();
        m.validate()?;
        self.bounded(run.end)?;
        Ok(m)
    }
    fn sizing(&self) -> String {
        format!(
            "--cells-x {} × --cells-y {} with --portables-per-cell {}",
            self.cells_x, self.cells_y, self.portables_per_cell
        )
    }
    fn summary(&self, r: &timewarp_models::pcs::PcsResults) -> String {
        let name = if r.formula == "engset" { "Engset" } else { "Erlang-B" };
        let exact = if self.move_rate == 0.0 {
            "exact without mobility"
        } else {
            "exact only with --move-rate 0; mobility raises blocking"
        };
        format!(
            "blocking: measured {} of new calls; {name} {} for an isolated cell ({exact})\n",
            crate::readable::sig(r.blocking_probability),
            crate::readable::sig(r.formula_blocking_probability)
        )
    }
}
