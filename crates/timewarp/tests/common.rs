//! Test models for the engine's end-to-end tests (not shipped models).
#![allow(dead_code)]

use serde::{Deserialize, Serialize};
use timewarp::{Ctx, LpId, Model, Random, Rollback};

/// How [`Ties`] is undone: [`Rollback::Reverse`].
pub const REVERSE: u8 = 0;
/// [`Rollback::StateSaving`].
pub const SAVING: u8 = 1;
/// [`Rollback::Incremental`].
pub const INCREMENTAL: u8 = 2;
/// [`Rollback::Incremental`], saving through a journal lent to the state
/// (`Ctx::save_into`) instead of `Ctx::save`.
pub const LENT: u8 = 3;

/// LPs exchange tokens with delays 0 or 1 (many simultaneous events and
/// zero-delay chains). Each LP folds what it receives, in order, into a hash:
/// any difference in processing order changes the final state. `R` says how
/// it is undone ([`REVERSE`], [`SAVING`], [`INCREMENTAL`]).
pub struct Ties<const R: u8> {
    pub lps: u32,
    pub tokens: u32,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TieState {
    pub hash: u64,
    pub seen: u64,
    /// [`LENT`]: the engine's journal while a handler runs; empty otherwise.
    #[serde(skip)]
    pub log: timewarp::Lent<TieUndo>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TieUndo {
    /// The old hash (incremental: the old value of field `field`).
    old_hash: u64,
    /// Incremental: 0 the hash, 1 the count.
    field: u8,
}

/// Payload of a token that is absorbed where it lands.
pub const TRANSIENT: u32 = u32::MAX;

fn mix(h: u64, x: u64) -> u64 {
    timewarp::digest::fold(h, x)
}

impl<const R: u8> Model for Ties<R> {
    type State = TieState;
    type Msg = u32;
    type Undo = TieUndo;
    type Results = u64;
    const ROLLBACK: Rollback = match R {
        REVERSE => Rollback::Reverse,
        SAVING => Rollback::StateSaving,
        _ => Rollback::Incremental,
    };

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
        TieState { hash: lp as u64, seen: 0, log: timewarp::Lent::default() }
    }
    fn forward(&self, s: &mut TieState, msg: &u32, undo: &mut TieUndo, ctx: &mut Ctx<'_, Self>) {
        undo.old_hash = s.hash;
        let x = ((*msg as u64) << 32) ^ ctx.now().to_bits();
        if R == LENT {
            ctx.save_into(
                s,
                |s| &mut s.log,
                |s, _| {
                    s.log.push(TieUndo { old_hash: s.hash, field: 0 });
                    s.hash = mix(s.hash, x >> 7);
                    s.log.push(TieUndo { old_hash: s.seen, field: 1 });
                    s.seen += 1;
                    s.log.push(TieUndo { old_hash: s.hash, field: 0 });
                    s.hash = mix(undo.old_hash, x);
                },
            );
        } else if R == INCREMENTAL {
            // Several entries per event, one field saved twice: restoring
            // them in any order but newest first leaves a wrong hash.
            ctx.save(TieUndo { old_hash: s.hash, field: 0 });
            s.hash = mix(s.hash, x >> 7);
            ctx.save(TieUndo { old_hash: s.seen, field: 1 });
            s.seen += 1;
            ctx.save(TieUndo { old_hash: s.hash, field: 0 });
            s.hash = mix(undo.old_hash, x);
        } else {
            s.hash = mix(s.hash, x);
            s.seen += 1;
        }
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
    fn restore(&self, s: &mut TieState, old: &TieUndo) {
        match old.field {
            0 => s.hash = old.old_hash,
            _ => s.seen = old.old_hash,
        }
    }
    fn finalize(&self, _: LpId, s: &TieState, _: f64, total: &mut u64) {
        *total += s.seen;
    }
}
