//! Test models for the engine's end-to-end tests (not shipped models).
#![allow(dead_code)]

use serde::{Deserialize, Serialize};
use timewarp::{Ctx, LpId, Model, Random, Rollback};

/// LPs exchange tokens with delays 0 or 1 (many simultaneous events and
/// zero-delay chains). Each LP folds what it receives, in order, into a hash:
/// any difference in processing order changes the final state.
pub struct Ties<const SAVE: bool> {
    pub lps: u32,
    pub tokens: u32,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TieState {
    pub hash: u64,
    pub seen: u64,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct TieUndo {
    old_hash: u64,
}

/// Payload of a token that is absorbed where it lands.
pub const TRANSIENT: u32 = u32::MAX;

fn mix(h: u64, x: u64) -> u64 {
    timewarp::digest::fold(h, x)
}

impl<const SAVE: bool> Model for Ties<SAVE> {
    type State = TieState;
    type Msg = u32;
    type Undo = TieUndo;
    type Results = u64;
    const ROLLBACK: Rollback = if SAVE { Rollback::StateSaving } else { Rollback::Reverse };

    fn name(&self) -> &str {
        "ties"
    }
    fn num_lps(&self) -> u32 {
        self.lps
    }
    fn rng_streams(&self) -> u32 {
        2
    }
    fn init(&self, lp: LpId, ctx: &mut Ctx<'_, Self>) -> TieState {
        for i in 0..self.tokens {
            ctx.send(lp, (i % 3) as f64, i);
        }
        TieState { hash: lp as u64, seen: 0 }
    }
    fn forward(&self, s: &mut TieState, msg: &u32, undo: &mut TieUndo, ctx: &mut Ctx<'_, Self>) {
        undo.old_hash = s.hash;
        s.hash = mix(s.hash, ((*msg as u64) << 32) ^ ctx.now().to_bits());
        s.seen += 1;
        if *msg == TRANSIENT {
            return; // a transient token ends here
        }
        let dst = ctx.rng(0).below(self.lps as u64) as LpId;
        let delay = if ctx.rng(1).bernoulli(0.5) { 0.0 } else { 1.0 };
        ctx.send(dst, delay, (msg + 1) % TRANSIENT);
        // Now and then a zero-delay burst: two more events at this very timestamp.
        if ctx.rng(1).bernoulli(0.1) {
            ctx.send(ctx.lp(), 0.0, TRANSIENT);
            ctx.send(dst, 0.0, TRANSIENT);
        }
    }
    fn reverse(&self, s: &mut TieState, _: &u32, undo: &TieUndo, _: LpId, _: f64) {
        s.hash = undo.old_hash;
        s.seen -= 1;
    }
    fn finalize(&self, _: LpId, s: &TieState, _: f64, total: &mut u64) {
        *total += s.seen;
    }
}
