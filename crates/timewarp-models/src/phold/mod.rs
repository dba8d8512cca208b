//! PHOLD: the classic synthetic PDES benchmark (Fujimoto), as in ROSS.
//!
//! Every LP starts with `population` events. Processing an event schedules
//! exactly one new event at `now + lookahead + Exp(mean)`, sent with
//! probability `remote` to an LP drawn uniformly from all LPs (possibly
//! itself), otherwise to itself. The destination rule depends only on random
//! draws, never on where LPs are placed, so every mode commits the same
//! history. The event population is constant: a known answer the tests check.
//!
//! Two variants of the multicore report change only where an event goes
//! ([`destination`]): local / regional / remote blocks ([`Regional`]) and
//! the hierarchical topology with Pareto activity ([`Hierarchy`]).

mod destination;

use serde::{Deserialize, Serialize};
use timewarp::{Ctx, LpId, Model, Random};

pub use destination::{Hierarchy, Regional};

/// PHOLD parameters.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Phold {
    /// Number of LPs.
    pub lps: u32,
    /// Initial events per LP.
    pub population: u32,
    /// Mean of the exponential part of every delay.
    pub mean: f64,
    /// Constant part of every delay (the model's lookahead).
    pub lookahead: f64,
    /// Probability that an event goes to a uniformly drawn LP instead of itself.
    pub remote: f64,
    /// Busy-work iterations per event (event grain).
    pub compute: u32,
    /// Local / regional / remote blocks (`None`: the classic rule, where a
    /// non-remote event stays on its LP).
    pub regional: Option<Regional>,
    /// The hierarchical topology (`None`: none).
    pub hierarchy: Option<Hierarchy>,
}

impl Default for Phold {
    /// The reference configuration: 16,384 LPs, 10 events each, delay 1 + Exp(1), 10% remote.
    fn default() -> Self {
        Phold {
            lps: 16_384,
            population: 10,
            mean: 1.0,
            lookahead: 1.0,
            remote: 0.1,
            compute: 0,
            regional: None,
            hierarchy: None,
        }
    }
}

/// State of one PHOLD LP.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct PholdState {
    /// Events this LP processed.
    pub processed: u64,
    /// Events it sent to another LP.
    pub sent_remote: u64,
    /// Result of the busy work (kept so it cannot be optimised away).
    pub work: u64,
}

/// Undo record: whether the event was sent remotely, and the overwritten work value.
#[derive(Clone, Copy, Debug, Default)]
pub struct PholdUndo {
    remote: bool,
    work: u64,
}

/// Totals over all LPs.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct PholdResults {
    /// Events processed (equals the engine's committed events).
    pub processed: u64,
    /// Events sent to another LP.
    pub sent_remote: u64,
}

impl Phold {
    /// Checks the parameters, saying what is wrong.
    pub fn validate(&self) -> Result<(), String> {
        if self.lps == 0 {
            return Err("--lps must be at least 1".into());
        }
        if !(self.mean.is_finite() && self.mean >= 0.0) {
            return Err(format!("--mean must be a finite number >= 0, got {}", self.mean));
        }
        if !(self.lookahead.is_finite() && self.lookahead >= 0.0) {
            return Err(format!("--lookahead must be a finite number >= 0, got {}", self.lookahead));
        }
        if !(0.0..=1.0).contains(&self.remote) {
            return Err(format!("--remote is a probability in [0, 1], got {}", self.remote));
        }
        match (&self.regional, &self.hierarchy) {
            (Some(_), Some(_)) => {
                Err("--nodes / --pes-per-node / --regional and --hierarchy are two different topologies; give one"
                    .into())
            }
            (Some(r), None) => r.validate(self.lps, self.remote),
            (None, Some(h)) => h.validate(self.lps),
            (None, None) => Ok(()),
        }
    }

    /// Where an event processed by `ctx.lp()` goes (see [`destination`]).
    #[inline]
    fn destination(&self, ctx: &mut Ctx<'_, Self>) -> LpId {
        let lp = ctx.lp();
        if let Some(h) = &self.hierarchy {
            if self.remote > 0.0 && ctx.rng(0).uniform() < self.remote {
                return h.destination(lp, &mut ctx.rng(0));
            }
            return lp;
        }
        if let Some(r) = &self.regional {
            return r.destination(lp, self.lps, self.remote, &mut ctx.rng(0));
        }
        let remote = self.remote > 0.0 && ctx.rng(0).uniform() < self.remote;
        if remote {
            ctx.rng(0).below(self.lps as u64) as LpId
        } else {
            lp
        }
    }

    /// Busy-work iterations of an event of `lp`.
    #[inline]
    fn compute_of(&self, lp: LpId) -> u32 {
        match &self.hierarchy {
            Some(h) if h.skewed_compute => {
                (self.compute as f64 * h.compute_weight(lp)).round().min(u32::MAX as f64) as u32
            }
            _ => self.compute,
        }
    }

    #[inline]
    fn delay(&self, ctx: &mut Ctx<'_, Self>) -> f64 {
        self.lookahead + ctx.rng(0).exponential(self.mean)
    }
}

/// Busy work of `n` dependent multiply-adds (the multicore report's EPC knob).
#[inline]
fn busy(seed: u64, n: u32) -> u64 {
    let mut x = seed;
    for _ in 0..n {
        x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407));
    }
    x
}

impl Model for Phold {
    type State = PholdState;
    type Msg = ();
    type Undo = PholdUndo;
    type Results = PholdResults;

    fn name(&self) -> &str {
        "phold"
    }

    fn num_lps(&self) -> u32 {
        self.lps
    }

    fn lookahead(&self) -> f64 {
        self.lookahead
    }

    fn initial_events(&self) -> u64 {
        self.lps as u64 * self.population as u64
    }

    fn init(&self, _lp: LpId, ctx: &mut Ctx<'_, Self>) -> PholdState {
        for _ in 0..self.population {
            let d = self.delay(ctx);
            ctx.send(ctx.lp(), d, ());
        }
        PholdState::default()
    }

    #[inline]
    fn forward(&self, s: &mut PholdState, _: &(), undo: &mut PholdUndo, ctx: &mut Ctx<'_, Self>) {
        s.processed += 1;
        if self.compute > 0 {
            undo.work = s.work;
            s.work = busy(s.work ^ s.processed, self.compute_of(ctx.lp()));
        }
        let dst = self.destination(ctx);
        if dst != ctx.lp() {
            s.sent_remote += 1;
            undo.remote = true;
        }
        let d = self.delay(ctx);
        ctx.send(dst, d, ());
    }

    #[inline]
    fn reverse(&self, s: &mut PholdState, _: &(), undo: &PholdUndo, _: LpId, _: f64) {
        if undo.remote {
            s.sent_remote -= 1;
        }
        if self.compute > 0 {
            s.work = undo.work;
        }
        s.processed -= 1;
    }

    fn finalize(&self, _: LpId, s: &PholdState, _end: f64, r: &mut PholdResults) {
        r.processed += s.processed;
        r.sent_remote += s.sent_remote;
    }
}

#[cfg(test)]
mod tests;
