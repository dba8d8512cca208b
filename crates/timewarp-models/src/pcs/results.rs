//! The run's figures: call counters per cell and over the grid, blocking
//! probabilities, and the closed-form loss formulas they are checked against.

use serde::{Deserialize, Serialize};

/// Call counters of one cell or of the whole grid.
///
/// Conservation: `call_attempts == calls_completed + blocked_calls +
/// handoffs_blocked + calls_in_progress`.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct CallCounts {
    /// New-call attempts (busy lines excluded).
    pub call_attempts: u64,
    /// New calls blocked.
    pub blocked_calls: u64,
    /// Attempts by portables already in a call (not counted as attempts).
    pub busy_lines: u64,
    /// Calls that ended normally.
    pub calls_completed: u64,
    /// Handoffs (moves during a call) into the cell or cells.
    pub handoff_attempts: u64,
    /// Handoffs blocked (calls dropped).
    pub handoffs_blocked: u64,
    /// Calls still in progress at the end (channels in use).
    pub calls_in_progress: u64,
}

impl CallCounts {
    pub(super) fn add(&mut self, o: &CallCounts) {
        self.call_attempts += o.call_attempts;
        self.blocked_calls += o.blocked_calls;
        self.busy_lines += o.busy_lines;
        self.calls_completed += o.calls_completed;
        self.handoff_attempts += o.handoff_attempts;
        self.handoffs_blocked += o.handoffs_blocked;
        self.calls_in_progress += o.calls_in_progress;
    }

    /// New-call blocking: `blocked_calls / call_attempts` (0 without attempts).
    pub fn blocking_probability(&self) -> f64 {
        ratio(self.blocked_calls, self.call_attempts)
    }

    /// `handoffs_blocked / handoff_attempts` (0 without handoffs).
    pub fn handoff_blocking_probability(&self) -> f64 {
        ratio(self.handoffs_blocked, self.handoff_attempts)
    }
}

/// Final figures of one cell.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct CellResults {
    /// Column of the cell.
    pub x: u32,
    /// Row of the cell.
    pub y: u32,
    /// The cell's counters.
    #[serde(flatten)]
    pub counts: CallCounts,
    /// `blocked_calls / call_attempts` (0 without attempts).
    pub blocking_probability: f64,
    /// `handoffs_blocked / handoff_attempts` (0 without handoffs).
    pub handoff_blocking_probability: f64,
}

/// Totals over the grid, and every cell's figures.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct PcsResults {
    /// Counters summed over all cells.
    #[serde(flatten)]
    pub counts: CallCounts,
    /// New-call blocking: `blocked_calls / call_attempts` (0 without attempts).
    pub blocking_probability: f64,
    /// `handoffs_blocked / handoff_attempts` (0 without handoffs).
    pub handoff_blocking_probability: f64,
    /// ROSS's "Blocking Probability": `(blocked_calls + handoffs_blocked) / call_attempts`.
    pub combined_blocking_probability: f64,
    /// The analytic new-call blocking of one isolated cell,
    /// [`Pcs::loss_formula`](super::Pcs::loss_formula): exact without mobility (`move_rate` 0), a
    /// reference otherwise (mobility raises blocking; see the module docs).
    #[serde(default)]
    pub formula_blocking_probability: f64,
    /// Which formula that is: `engset` or `erlang-b` (as `--arrivals` says).
    #[serde(default)]
    pub formula: String,
    /// Per-cell figures, in LP-id order (`id = y × cells_x + x`).
    pub cells: Vec<CellResults>,
}

pub(super) fn ratio(num: u64, den: u64) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}

/// Erlang-B blocking probability of an M/M/c/c system with `channels` servers
/// and offered load `offered` (Erlangs), by the stable recursion
/// `B(0) = 1, B(c) = a B(c-1) / (c + a B(c-1))`.
pub fn erlang_b(channels: u32, offered: f64) -> f64 {
    let mut b = 1.0;
    for c in 1..=channels {
        b = offered * b / (f64::from(c) + offered * b);
    }
    b
}

/// Engset call congestion (the fraction of attempts blocked) of a loss system
/// with `channels` servers and `sources` sources, each offering `alpha` =
/// (attempt rate while idle) × (mean holding time), by the recursion
/// `E(0) = 1, E(c) = (N - c) alpha E(c-1) / (c + (N - c) alpha E(c-1))`.
/// Zero when `sources <= channels` (nobody is ever blocked).
pub fn engset(channels: u32, sources: u32, alpha: f64) -> f64 {
    if sources <= channels {
        return 0.0;
    }
    let mut e = 1.0;
    for c in 1..=channels {
        let t = f64::from(sources - c) * alpha * e;
        e = t / (f64::from(c) + t);
    }
    e
}
