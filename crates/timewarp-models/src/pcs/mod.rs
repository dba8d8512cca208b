//! PCS: a personal communication services (cellular) network, as in ROSS.
//!
//! The service area is a `cells_x × cells_y` torus of cells (radio ports);
//! each cell is an LP with `channels` radio channels. Subscribers
//! (*portables*) are not LPs: each portable is one chain of events that
//! carries the portable's whole state in its message (the absolute times of
//! its next call attempt, of the end of its current call and of its next
//! move), ROSS's design (Carothers, Fujimoto and Lin, PADS'95; Carothers,
//! Bauer and Pearce, "ROSS", section 3.1).
//!
//! # Behaviour
//!
//! * A portable makes call attempts at rate `call_rate` (exponential
//!   inter-arrival times). An attempt while the portable is idle takes a free
//!   channel of its cell, or is *blocked* (cleared) if none is free.
//! * A call lasts an exponential time of mean `call_duration`, then frees its
//!   channel.
//! * A portable stays in a cell an exponential time of mean `1 / move_rate`
//!   (`move_rate = 0`: mobility off) and then moves to one of its cell's four
//!   neighbours (north, south, east, west with probability 1/4 each; the grid
//!   wraps around). A move during a call is a *handoff*: the old cell frees
//!   the channel, the new cell must find a free one, else the call is
//!   *dropped* (a blocked handoff).
//! * Portable-initiated model: an attempt made while the portable is already
//!   in a call finds a *busy line*. Busy lines are counted (`busy_lines`) but
//!   are not call attempts and never enter the blocking statistics.
//!
//! Events: `NextCall` (at the portable's cell), `CallEnd`, `MoveOut` (at the
//! old cell, frees the channel) and `MoveIn` (sent with zero delay to the
//! neighbour, the handoff). Moves of idle portables touch no cell state, so,
//! as in ROSS, they are not events: when an idle portable's moves come before
//! its next call, the random walk is done at once and the `NextCall` is sent
//! straight to the cell where the walk ends. Every delay is exponential, so
//! the model has zero lookahead.
//!
//! # Arrival process: Engset by default, Erlang-B as an option
//!
//! With mobility off every cell is an independent loss system with a known
//! exact blocking probability, which is what the tests validate against:
//!
//! * [`Arrivals::Engset`] (default, ROSS's model): the portables above, each
//!   idle portable generating attempts at rate `call_rate`; a busy portable
//!   generates only busy lines. A cell is then a finite-source loss system
//!   with `N = portables_per_cell` sources of offered load
//!   `alpha = call_rate × call_duration` per idle source, whose call
//!   congestion (the fraction of attempts blocked) is the Engset formula
//!   [`engset`]. This is the natural reading of "portable-initiated, busy
//!   lines not counted": a busy line is a source that cannot offer a call, which
//!   is exactly what makes the system Engset and not Erlang.
//! * [`Arrivals::Poisson`]: every cell receives new calls as a Poisson stream
//!   of rate `portables_per_cell × call_rate`, independent of how many calls
//!   are in progress (the infinite-source limit). Each accepted call is an
//!   event chain of its own (an in-call subscriber that may move and be handed
//!   off) that ends when the call ends or is dropped. A cell is then M/M/c/c
//!   with offered load `a = portables_per_cell × call_rate × call_duration`,
//!   whose blocking probability is the Erlang-B formula [`erlang_b`].
//!
//! [`Pcs::loss_formula`] gives the formula that matches the configuration.
//! With mobility on neither formula is exact. In the Engset model portables
//! then random-walk independently, so the number in a cell drifts from
//! `portables_per_cell` towards a Poisson distribution of that mean (slowly:
//! over a few mean residence times), and blocking rises above the
//! isolated-cell figure: with the defaults, from 0.67 % towards about 2.7 %
//! (a quasi-static estimate: the Engset blocking averaged over a Poisson(16)
//! population, weighted by attempts); measured 2.3 % over `[0, 100)` and
//! 2.6 % over `[0, 400)`.
//!
//! # Time unit and defaults
//!
//! ROSS's PCS uses a mean call inter-arrival time of 360, a mean call
//! duration of 180 and a mean residence time of 4,500 time units, with 10
//! channels and 16 portables per cell. Here the unit of time is one mean call
//! duration, so the same model is `call_duration = 1`, `call_rate = 180/360 =
//! 0.5` and `move_rate = 180/4500 = 0.04` (an end time of `T` here is `180 T`
//! in ROSS's units). Default grid: 32 × 32 cells. With these defaults an
//! isolated cell blocks 0.67 % of the attempts (Engset, N = 16, c = 10,
//! alpha = 0.5).
//!
//! # Reverse computation and results
//!
//! The state of a cell is integer counters only (free channels and event
//! counts), so every handler is undone exactly by the reverse handler with
//! the help of a two-field undo record (whether the request was blocked, how
//! many busy lines were counted); no state is saved and no float is summed.
//!
//! Conservation: every call attempt ends in exactly one of four ways, so over
//! the whole grid `call_attempts = calls_completed + blocked_calls +
//! handoffs_blocked + calls_in_progress` holds exactly at the end of a run,
//! where `calls_in_progress` counts the channels held at the end. (No call is
//! between two cells at the end: a `MoveIn` has the time of its `MoveOut`.)

mod cell;
mod results;

use serde::{Deserialize, Serialize};
use std::str::FromStr;
use timewarp::{Ctx, LpId, Model, Random, Rollback};

use cell::Field;
pub use cell::{Cell, Kind, PcsMsg, PcsUndo};
use results::ratio;
pub use results::{engset, erlang_b, CallCounts, CellResults, PcsResults};

/// "No such time": the timer of an event that never happens (ROSS's `HUGE_VAL`;
/// finite so that messages serialise to JSON as numbers).
pub const NEVER: f64 = f64::MAX;

/// How new calls arrive at a cell (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arrivals {
    /// Each idle portable attempts calls at `call_rate`; busy lines are not
    /// attempts (ROSS's portable-initiated model). Exact answer: Engset.
    #[default]
    Engset,
    /// Each cell receives a Poisson stream of `portables_per_cell × call_rate`
    /// new calls. Exact answer: Erlang-B.
    Poisson,
}

impl Arrivals {
    /// The name used on the command line (`engset`, `poisson`).
    pub fn name(&self) -> &'static str {
        match self {
            Arrivals::Engset => "engset",
            Arrivals::Poisson => "poisson",
        }
    }
}

impl FromStr for Arrivals {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "engset" => Ok(Arrivals::Engset),
            "poisson" | "erlang-b" | "erlang" => Ok(Arrivals::Poisson),
            _ => Err(format!("--arrivals is engset or poisson, got {s:?}")),
        }
    }
}

/// PCS parameters. Time unit: one mean call duration at the defaults (see the module docs).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Pcs {
    /// Cells along x (the grid wraps around).
    pub cells_x: u32,
    /// Cells along y (the grid wraps around).
    pub cells_y: u32,
    /// Radio channels per cell.
    pub channels: u32,
    /// Portables (subscribers) per cell at the start; with
    /// [`Arrivals::Poisson`] it only scales the arrival rate.
    pub portables_per_cell: u32,
    /// Call attempts per unit time by one idle portable (1 / mean inter-arrival time).
    pub call_rate: f64,
    /// Mean call duration (holding time).
    pub call_duration: f64,
    /// Moves per unit time of one portable (1 / mean residence time); 0: no mobility.
    pub move_rate: f64,
    /// Arrival process: Engset (finite source) or Poisson (Erlang-B).
    pub arrivals: Arrivals,
    /// How optimistic runs undo events: [`Rollback::Reverse`] (default,
    /// reverse handlers), [`Rollback::StateSaving`] (a copy of the cell) or
    /// [`Rollback::Incremental`] (each write saves the field's old value).
    /// The same results every way; kept to measure one against the others.
    #[serde(default)]
    pub rollback: Rollback,
}

impl Default for Pcs {
    /// ROSS's PCS configuration in units of the mean call duration: 32 × 32
    /// cells, 10 channels, 16 portables per cell, call rate 0.5, duration 1,
    /// move rate 0.04, Engset (portable-initiated) arrivals.
    fn default() -> Self {
        Pcs {
            cells_x: 32,
            cells_y: 32,
            channels: 10,
            portables_per_cell: 16,
            call_rate: 0.5,
            call_duration: 1.0,
            move_rate: 0.04,
            arrivals: Arrivals::Engset,
            rollback: Rollback::Reverse,
        }
    }
}

impl Pcs {
    /// Checks the parameters, saying what is wrong (messages name the CLI flags).
    pub fn validate(&self) -> Result<(), String> {
        if self.cells_x == 0 {
            return Err("--cells-x must be at least 1".into());
        }
        if self.cells_y == 0 {
            return Err("--cells-y must be at least 1".into());
        }
        if self.cells_x.checked_mul(self.cells_y).is_none() {
            return Err(format!(
                "--cells-x {} × --cells-y {} cells is more than the {} LPs supported",
                self.cells_x,
                self.cells_y,
                u32::MAX
            ));
        }
        if self.channels == 0 {
            return Err("--channels must be at least 1".into());
        }
        if self.portables_per_cell == 0 {
            return Err("--portables-per-cell must be at least 1".into());
        }
        if !(self.call_rate.is_finite() && self.call_rate >= 0.0) {
            return Err(format!("--call-rate must be a finite number >= 0, got {}", self.call_rate));
        }
        if !(self.call_duration.is_finite() && self.call_duration > 0.0) {
            return Err(format!("--call-duration must be a finite number > 0, got {}", self.call_duration));
        }
        if !(self.move_rate.is_finite() && self.move_rate >= 0.0) {
            return Err(format!("--move-rate must be a finite number >= 0, got {}", self.move_rate));
        }
        Ok(())
    }

    /// Number of cells (LPs).
    pub fn cells(&self) -> u32 {
        self.cells_x.saturating_mul(self.cells_y)
    }

    /// Blocking probability of one isolated cell (exact when `move_rate == 0`):
    /// Engset or Erlang-B according to [`Pcs::arrivals`].
    pub fn loss_formula(&self) -> f64 {
        match self.arrivals {
            Arrivals::Engset => engset(self.channels, self.portables_per_cell, self.call_rate * self.call_duration),
            Arrivals::Poisson => {
                erlang_b(self.channels, f64::from(self.portables_per_cell) * self.call_rate * self.call_duration)
            }
        }
    }

    /// The name of [`Pcs::loss_formula`]: `engset` or `erlang-b`.
    pub fn loss_formula_name(&self) -> &'static str {
        match self.arrivals {
            Arrivals::Engset => "engset",
            Arrivals::Poisson => "erlang-b",
        }
    }

    /// The cell one step from `cell` in `direction` (0 west, 1 east, 2 south, 3 north), wrapping around.
    #[inline]
    pub fn neighbour(&self, cell: LpId, direction: u64) -> LpId {
        let (x, y) = (cell % self.cells_x, cell / self.cells_x);
        let (x, y) = match direction {
            0 => ((x + self.cells_x - 1) % self.cells_x, y),
            1 => ((x + 1) % self.cells_x, y),
            2 => (x, (y + self.cells_y - 1) % self.cells_y),
            _ => (x, (y + 1) % self.cells_y),
        };
        y * self.cells_x + x
    }

    /// `t` plus an exponential time of rate `rate`; [`NEVER`] if the rate is 0
    /// (or so small that the time is not a finite number).
    #[inline]
    fn after(&self, ctx: &mut Ctx<'_, Self>, t: f64, rate: f64) -> f64 {
        if rate > 0.0 {
            let next = t + ctx.rng(0).exponential(1.0 / rate);
            if next < NEVER {
                return next;
            }
        }
        NEVER
    }

    /// Under [`Rollback::Incremental`], saves field `f` before a write.
    #[inline(always)]
    fn keep(ctx: &mut Ctx<'_, Self>, s: &Cell, f: Field) {
        if ctx.saving() {
            ctx.save(PcsUndo { field: f, old: s.get(f), ..PcsUndo::default() });
        }
    }

    /// Sends `p`'s next event at absolute time `t` to `dst`.
    #[inline]
    fn send_at(ctx: &mut Ctx<'_, Self>, dst: LpId, t: f64, p: PcsMsg) {
        let delay = (t - ctx.now()).max(0.0);
        ctx.send(dst, delay, p);
    }

    /// Schedules the next event of an idle portable: its next call, in the
    /// cell where its moves until then take it. No event if it never calls.
    #[inline]
    fn send_idle(&self, mut p: PcsMsg, ctx: &mut Ctx<'_, Self>) {
        if p.next_call == NEVER {
            return; // a Poisson-mode call that ended, or call_rate 0: the chain ends
        }
        let mut cell = ctx.lp();
        while p.next_move < p.next_call {
            cell = self.neighbour(cell, ctx.rng(0).below(4));
            p.next_move = self.after(ctx, p.next_move, self.move_rate);
        }
        p.kind = Kind::NextCall;
        Self::send_at(ctx, cell, p.next_call, p);
    }

    /// Schedules the next event of a portable in a call here: counts the busy
    /// lines before the call ends or leaves, then sends `CallEnd` or `MoveOut`.
    #[inline]
    fn send_busy(&self, s: &mut Cell, mut p: PcsMsg, undo: &mut PcsUndo, ctx: &mut Ctx<'_, Self>) {
        let leave = p.call_end.min(p.next_move);
        let end = ctx.end_time();
        while p.next_call < leave {
            if p.next_call < end {
                Self::keep(ctx, s, Field::BusyLines);
                s.busy_lines += 1; // only attempts the run reaches are counted
                undo.busy_lines += 1;
            }
            p.next_call = self.after(ctx, p.next_call, self.call_rate);
        }
        let (kind, t) =
            if p.call_end <= p.next_move { (Kind::CallEnd, p.call_end) } else { (Kind::MoveOut, p.next_move) };
        p.kind = kind;
        Self::send_at(ctx, ctx.lp(), t, p);
    }

    /// Takes a channel for the call `p` (starting or handed off), or counts the
    /// request as blocked. Returns whether a channel was taken.
    #[inline]
    fn seize(s: &mut Cell, undo: &mut PcsUndo, ctx: &mut Ctx<'_, Self>) -> bool {
        if s.free_channels == 0 {
            undo.blocked = true;
            false
        } else {
            Self::keep(ctx, s, Field::FreeChannels);
            s.free_channels -= 1;
            true
        }
    }
}

impl Model for Pcs {
    type State = Cell;
    type Msg = PcsMsg;
    type Undo = PcsUndo;
    type Results = PcsResults;

    fn name(&self) -> &str {
        "pcs"
    }

    fn num_lps(&self) -> u32 {
        self.cells()
    }

    fn initial_events(&self) -> u64 {
        match self.arrivals {
            Arrivals::Engset => self.cells() as u64 * self.portables_per_cell as u64,
            Arrivals::Poisson => self.cells() as u64,
        }
    }

    fn init(&self, _lp: LpId, ctx: &mut Ctx<'_, Self>) -> Cell {
        match self.arrivals {
            Arrivals::Engset => {
                for _ in 0..self.portables_per_cell {
                    let next_call = self.after(ctx, 0.0, self.call_rate);
                    let next_move = self.after(ctx, 0.0, self.move_rate);
                    self.send_idle(PcsMsg { kind: Kind::NextCall, next_call, call_end: NEVER, next_move }, ctx);
                }
            }
            Arrivals::Poisson => {
                let t = self.after(ctx, 0.0, f64::from(self.portables_per_cell) * self.call_rate);
                if t < NEVER {
                    Self::send_at(ctx, ctx.lp(), t, PcsMsg::arrival());
                }
            }
        }
        Cell { free_channels: self.channels, ..Cell::default() }
    }

    #[inline]
    fn forward(&self, s: &mut Cell, m: &PcsMsg, undo: &mut PcsUndo, ctx: &mut Ctx<'_, Self>) {
        let mut p = *m;
        match m.kind {
            Kind::NextCall => {
                Self::keep(ctx, s, Field::CallAttempts);
                s.call_attempts += 1;
                if Self::seize(s, undo, ctx) {
                    p.call_end = self.after(ctx, m.next_call, 1.0 / self.call_duration);
                    p.next_call = self.after(ctx, m.next_call, self.call_rate);
                    self.send_busy(s, p, undo, ctx);
                } else {
                    Self::keep(ctx, s, Field::BlockedCalls);
                    s.blocked_calls += 1;
                    p.next_call = self.after(ctx, m.next_call, self.call_rate);
                    self.send_idle(p, ctx);
                }
            }
            Kind::Arrival => {
                Self::keep(ctx, s, Field::CallAttempts);
                s.call_attempts += 1;
                let rate = f64::from(self.portables_per_cell) * self.call_rate;
                let t = self.after(ctx, ctx.now(), rate);
                Self::send_at(ctx, ctx.lp(), t, PcsMsg::arrival());
                if Self::seize(s, undo, ctx) {
                    let now = ctx.now();
                    p.call_end = self.after(ctx, now, 1.0 / self.call_duration);
                    p.next_move = self.after(ctx, now, self.move_rate);
                    self.send_busy(s, p, undo, ctx);
                } else {
                    Self::keep(ctx, s, Field::BlockedCalls);
                    s.blocked_calls += 1;
                }
            }
            Kind::CallEnd => {
                Self::keep(ctx, s, Field::FreeChannels);
                s.free_channels += 1;
                Self::keep(ctx, s, Field::CallsCompleted);
                s.calls_completed += 1;
                p.call_end = NEVER;
                self.send_idle(p, ctx);
            }
            Kind::MoveOut => {
                Self::keep(ctx, s, Field::FreeChannels);
                s.free_channels += 1;
                let dst = self.neighbour(ctx.lp(), ctx.rng(0).below(4));
                p.kind = Kind::MoveIn;
                ctx.send(dst, 0.0, p);
            }
            Kind::MoveIn => {
                Self::keep(ctx, s, Field::HandoffAttempts);
                s.handoff_attempts += 1;
                p.next_move = self.after(ctx, m.next_move, self.move_rate);
                if Self::seize(s, undo, ctx) {
                    self.send_busy(s, p, undo, ctx);
                } else {
                    Self::keep(ctx, s, Field::HandoffsBlocked);
                    s.handoffs_blocked += 1;
                    p.call_end = NEVER;
                    self.send_idle(p, ctx);
                }
            }
        }
    }

    #[inline]
    fn reverse(&self, s: &mut Cell, m: &PcsMsg, undo: &PcsUndo, _: LpId, _: f64) {
        s.busy_lines -= u64::from(undo.busy_lines);
        match m.kind {
            Kind::NextCall | Kind::Arrival => {
                s.call_attempts -= 1;
                if undo.blocked {
                    s.blocked_calls -= 1;
                } else {
                    s.free_channels += 1;
                }
            }
            Kind::CallEnd => {
                s.free_channels -= 1;
                s.calls_completed -= 1;
            }
            Kind::MoveOut => s.free_channels -= 1,
            Kind::MoveIn => {
                s.handoff_attempts -= 1;
                if undo.blocked {
                    s.handoffs_blocked -= 1;
                } else {
                    s.free_channels += 1;
                }
            }
        }
    }

    fn restore(&self, s: &mut Cell, e: &PcsUndo) {
        s.set(e.field, e.old);
    }

    fn rollback(&self) -> Rollback {
        self.rollback
    }

    fn finalize(&self, lp: LpId, s: &Cell, _end: f64, r: &mut PcsResults) {
        let counts = CallCounts {
            call_attempts: s.call_attempts,
            blocked_calls: s.blocked_calls,
            busy_lines: s.busy_lines,
            calls_completed: s.calls_completed,
            handoff_attempts: s.handoff_attempts,
            handoffs_blocked: s.handoffs_blocked,
            calls_in_progress: u64::from(self.channels - s.free_channels),
        };
        r.cells.push(CellResults {
            x: lp % self.cells_x,
            y: lp / self.cells_x,
            counts,
            blocking_probability: counts.blocking_probability(),
            handoff_blocking_probability: counts.handoff_blocking_probability(),
        });
        r.counts.add(&counts);
        // finalize has no "last LP" call: keep the ratios of the totals current.
        let t = &r.counts;
        r.blocking_probability = t.blocking_probability();
        r.handoff_blocking_probability = t.handoff_blocking_probability();
        r.combined_blocking_probability = ratio(t.blocked_calls + t.handoffs_blocked, t.call_attempts);
        if r.formula.is_empty() {
            r.formula_blocking_probability = self.loss_formula();
            r.formula = self.loss_formula_name().into();
        }
    }
}

#[cfg(test)]
mod tests;
