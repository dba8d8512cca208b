//! The model API: what a simulation model implements and what its handlers see.
//!
//! A model is a set of logical processes (LPs) that change state only by
//! exchanging time-stamped messages. The engine is generic over the model
//! type, so every handler call is monomorphised: several LP kinds in one model
//! are expressed with enums for `State` and `Msg`, never trait objects.

use crate::error::Error;
use crate::key::{Key, LpId, Time};
use crate::rng::Stream;
use serde::{de::DeserializeOwned, Serialize};
use std::fmt::Debug;

/// Most random streams an LP may have (per-event draw counts are packed into 4 × 16 bits).
pub const MAX_STREAMS: u32 = 4;

/// How the engine undoes a speculatively processed event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rollback {
    /// The model's [`Model::reverse`] handler undoes the forward handler
    /// (ROSS-style reverse computation), helped by the per-event undo record.
    Reverse,
    /// The engine snapshots the LP state (`Clone`) before every event and
    /// restores it; [`Model::reverse`] is never called.
    StateSaving,
}

/// A simulation model.
///
/// See `examples/` for a complete, commented model; in short:
///
/// ```
/// use timewarp::{Model, Ctx, LpId, Random, Config, Sync};
///
/// /// Each LP bounces one token to its right neighbour and counts visits.
/// struct Ring { lps: u32 }
///
/// impl Model for Ring {
///     type State = u64;  // visits
///     type Msg = ();
///     type Undo = ();
///     type Results = u64; // total visits
///     fn name(&self) -> &str { "ring" }
///     fn num_lps(&self) -> u32 { self.lps }
///     fn lookahead(&self) -> f64 { 1.0 }
///     fn init(&self, lp: LpId, ctx: &mut Ctx<'_, Self>) -> u64 {
///         if lp == 0 { ctx.send(0, 1.0, ()); }
///         0
///     }
///     fn forward(&self, visits: &mut u64, _: &(), _: &mut (), ctx: &mut Ctx<'_, Self>) {
///         *visits += 1;
///         let next = (ctx.lp() + 1) % self.lps;
///         let delay = 1.0 + ctx.rng(0).exponential(1.0);
///         ctx.send(next, delay, ());
///     }
///     fn reverse(&self, visits: &mut u64, _: &(), _: &(), _: LpId, _: f64) {
///         *visits -= 1; // the engine rewinds the random stream itself
///     }
///     fn finalize(&self, _: LpId, visits: &u64, total: &mut u64) { *total += visits; }
/// }
///
/// let cfg = Config { end: 100.0, ..Config::default() };
/// let report = timewarp::run(&Ring { lps: 8 }, &cfg).unwrap();
/// assert_eq!(report.results, report.stats.committed_events);
/// ```
pub trait Model: Sized + Send + std::marker::Sync + 'static {
    /// State of one LP. Several LP kinds: make it an enum. (Deserialize: an
    /// MPI run gathers the final states on rank 0 for `finalize`.)
    type State: Clone + Send + Serialize + DeserializeOwned + Debug;
    /// Message carried by an event. Several kinds: make it an enum.
    type Msg: Copy + Send + Debug + Serialize + DeserializeOwned;
    /// Per-event undo record written by `forward`, read by `reverse`
    /// (ROSS's `tw_bf` bitfield, generalised: branch flags, overwritten values).
    type Undo: Copy + Default + Send + Debug;
    /// What `finalize` gathers over all LPs (reported as `model_results`).
    type Results: Default + Serialize + Send;

    /// How speculative events are undone.
    const ROLLBACK: Rollback = Rollback::Reverse;

    /// Short model name (used in statistics and error messages).
    fn name(&self) -> &str;
    /// Number of LPs; ids are `0..num_lps`.
    fn num_lps(&self) -> u32;
    /// Smallest delay any event sent by a handler will have (0 if unknown).
    /// Conservative synchronisation needs it positive; sends below it are errors.
    fn lookahead(&self) -> f64 {
        0.0
    }
    /// Random streams per LP (at most [`MAX_STREAMS`]).
    fn rng_streams(&self) -> u32 {
        1
    }
    /// Creates the state of LP `lp` at time 0 and schedules its first events
    /// with `ctx.send` (initial delays need only be `>= 0`).
    fn init(&self, lp: LpId, ctx: &mut Ctx<'_, Self>) -> Self::State;
    /// Processes one event: update `state`, record in `undo` what `reverse`
    /// needs, send new events with `ctx.send`.
    fn forward(&self, state: &mut Self::State, msg: &Self::Msg, undo: &mut Self::Undo, ctx: &mut Ctx<'_, Self>);
    /// Undoes `forward` exactly (reverse computation). Random draws and sends
    /// are undone by the engine. Needed unless `ROLLBACK` is `StateSaving`.
    fn reverse(&self, state: &mut Self::State, msg: &Self::Msg, undo: &Self::Undo, lp: LpId, now: Time) {
        let _ = (state, msg, undo, now);
        panic!(
            "model {} has Rollback::Reverse but no reverse handler (LP {lp}); implement Model::reverse or set ROLLBACK = Rollback::StateSaving",
            self.name()
        );
    }
    /// Runs once per committed event, in timestamp order per LP, after the
    /// event can no longer be rolled back: the only place for irreversible
    /// side effects (output, I/O).
    fn commit(&self, msg: &Self::Msg, undo: &Self::Undo, lp: LpId, now: Time) {
        let _ = (msg, undo, lp, now);
    }
    /// Gathers results from each LP's final state; called in LP-id order.
    fn finalize(&self, lp: LpId, state: &Self::State, results: &mut Self::Results) {
        let _ = (lp, state, results);
    }
}

/// An event a handler asked to send, before the kernel routes it.
#[derive(Clone, Copy, Debug)]
pub struct Outgoing<Msg> {
    /// Destination LP.
    pub dst: LpId,
    /// Position in the total order.
    pub key: Key,
    /// Payload.
    pub msg: Msg,
}

/// What a handler sees: the current time, its LP, sends and random streams.
///
/// Sends are buffered and routed by the kernel after the handler returns, so
/// the same handler code runs under every synchronisation mode.
pub struct Ctx<'a, M: Model> {
    pub(crate) now: Time,
    pub(crate) lp: LpId,
    pub(crate) age: u32,
    pub(crate) num_lps: u32,
    pub(crate) min_delay: f64,
    pub(crate) end: Time,
    pub(crate) rng_key: u64,
    pub(crate) rng_base: u64,
    pub(crate) seq: &'a mut u32,
    pub(crate) counters: &'a mut [u64],
    pub(crate) out: &'a mut Vec<Outgoing<M::Msg>>,
    pub(crate) past_end: u32,
    pub(crate) error: Option<Error>,
}

impl<'a, M: Model> Ctx<'a, M> {
    /// Current virtual time (the timestamp of the event being processed).
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// The LP whose handler is running.
    #[inline]
    pub fn lp(&self) -> LpId {
        self.lp
    }

    /// Number of LPs in the model.
    #[inline]
    pub fn num_lps(&self) -> u32 {
        self.num_lps
    }

    /// Virtual end time of the run (events at or past it are never processed).
    #[inline]
    pub fn end_time(&self) -> Time {
        self.end
    }

    /// Sends `msg` to LP `dst`, to arrive at `now + delay`.
    ///
    /// `delay` must be finite, `>= 0` and `>=` the model's lookahead (during
    /// `init` only `>= 0`). A violation stops the run with an error naming the
    /// LP and time; the event is not sent.
    #[inline]
    pub fn send(&mut self, dst: LpId, delay: f64, msg: M::Msg) {
        if !(delay >= self.min_delay && delay.is_finite()) {
            self.fail_send(delay);
            return;
        }
        if dst >= self.num_lps {
            if self.error.is_none() {
                self.error = Some(Error::BadDestination { lp: self.lp, time: self.now, dst, num_lps: self.num_lps });
            }
            return;
        }
        let time = self.now + delay;
        if time >= self.end {
            // Never processed in any mode: not stored, not ordered.
            self.past_end += 1;
            return;
        }
        let age = if time == self.now { self.age.wrapping_add(1) } else { 0 };
        let key = Key::new(time, age, self.lp, *self.seq);
        *self.seq = self.seq.wrapping_add(1);
        self.out.push(Outgoing { dst, key, msg });
    }

    #[cold]
    fn fail_send(&mut self, delay: f64) {
        if self.error.is_some() {
            return;
        }
        self.error = Some(if delay < 0.0 || !delay.is_finite() {
            Error::BadDelay { lp: self.lp, time: self.now, delay }
        } else {
            Error::Lookahead { lp: self.lp, time: self.now, delay, lookahead: self.min_delay }
        });
    }

    /// Random stream `s` (`0..rng_streams`) of this LP. Draws are counted and
    /// rewound by the engine on rollback.
    #[inline]
    pub fn rng(&mut self, s: u32) -> Stream<'_> {
        let i = s as usize;
        assert!(
            i < self.counters.len(),
            "random stream {s} requested but the model declares {} (Model::rng_streams)",
            self.counters.len()
        );
        Stream::new(self.rng_key, self.rng_base + s as u64, &mut self.counters[i])
    }
}
