//! The model API: what a simulation model implements and what its handlers see.
//!
//! A model is a set of logical processes (LPs) that change state only by
//! exchanging time-stamped messages. The engine is generic over the model
//! type, so every handler call is monomorphised: several LP kinds in one model
//! are expressed with enums for `State` and `Msg`, never trait objects.

use crate::error::Error;
use crate::key::{Key, LpId, Time};
use crate::rng::Stream;
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use std::fmt::Debug;

/// Most random streams an LP may have (per-event draw counts are packed into 4 × 16 bits).
pub const MAX_STREAMS: u32 = 4;

/// How the engine undoes a speculatively processed event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rollback {
    /// The model's [`Model::reverse`] handler undoes the forward handler
    /// (ROSS-style reverse computation), helped by the per-event undo record.
    #[default]
    Reverse,
    /// The engine snapshots the LP state (`Clone`) before every event and
    /// restores it; [`Model::reverse`] is never called. Cheapest for small
    /// states; its cost grows with the state's size.
    StateSaving,
    /// Incremental state saving: the forward handler records, with
    /// [`Ctx::save`], what it is about to overwrite (one [`Model::Undo`]
    /// per write: which field, and its old value), and a rollback hands those
    /// entries back, newest first, to [`Model::restore`]. A rollback costs
    /// what the event touched, not the state's size: the choice for large
    /// states (a router's buffers) whose handlers are too intricate to
    /// reverse by computation. [`Model::reverse`] is never called.
    Incremental,
}

impl Rollback {
    /// The name used on command lines (`reverse`, `state-saving`, `incremental`).
    ///
    /// ```
    /// use timewarp::Rollback;
    /// assert_eq!(Rollback::StateSaving.name().parse::<Rollback>(), Ok(Rollback::StateSaving));
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Rollback::Reverse => "reverse",
            Rollback::StateSaving => "state-saving",
            Rollback::Incremental => "incremental",
        }
    }
}

impl std::str::FromStr for Rollback {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "reverse" => Ok(Rollback::Reverse),
            "state-saving" | "whole" => Ok(Rollback::StateSaving),
            "incremental" => Ok(Rollback::Incremental),
            _ => Err(format!("unknown rollback '{s}' (reverse, state-saving, incremental)")),
        }
    }
}

/// A simulation model.
///
/// See `examples/` for a complete, commented model; in short:
///
/// ```
/// use timewarp::{Model, Ctx, LpId, Random, Config, SyncMode};
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
///     fn finalize(&self, _: LpId, visits: &u64, _end: f64, total: &mut u64) { *total += visits; }
/// }
///
/// let cfg = Config { end: 100.0, ..Config::default() };
/// let report = timewarp::Run::new(&Ring { lps: 8 }, &cfg).execute().unwrap();
/// assert_eq!(report.results, report.stats.committed_events);
/// ```
pub trait Model: Sized + Send + std::marker::Sync + 'static {
    /// State of one LP. Several LP kinds: make it an enum. (Deserialize: an
    /// MPI run gathers the final states on rank 0 for `finalize`, and a
    /// checkpoint stores them; Sync: the worker threads that resume a run
    /// read one snapshot.)
    type State: Clone + Send + std::marker::Sync + Serialize + DeserializeOwned + Debug;
    /// Message carried by an event. Several kinds: make it an enum.
    type Msg: Copy + Send + std::marker::Sync + Debug + Serialize + DeserializeOwned;
    /// Per-event undo record written by `forward`, read by `reverse`
    /// (ROSS's `tw_bf` bitfield, generalised: branch flags, overwritten values).
    /// Under [`Rollback::Incremental`] also the type of one entry of an
    /// event's undo journal ([`Ctx::save`], [`restore`](Self::restore)).
    type Undo: Copy + Default + Send + Debug;
    /// What `finalize` gathers over all LPs (reported as `model_results`).
    type Results: Default + Serialize + Send;

    /// How speculative events are undone.
    const ROLLBACK: Rollback = Rollback::Reverse;

    /// Under [`Rollback::Incremental`]: whether a rollback also hands the
    /// event's own undo record — the forward handler's third argument,
    /// `Undo::default()` unless it writes one — to
    /// [`restore`](Self::restore), after the event's journal entries.
    /// The record is kept for every speculative event anyway; a model that
    /// saves one entry in every event writes it there, and its journal
    /// holds one entry fewer per event. Off by default: the record is then
    /// ignored under `Incremental`. With it on, restoring the default
    /// record must change nothing.
    ///
    /// ```
    /// use timewarp::{Config, Ctx, LpId, Model, Random, Rollback, SyncMode};
    ///
    /// /// Counts visits (in the record) and keeps the latest time (in the journal).
    /// struct Visits;
    /// #[derive(Clone, Copy, Debug, Default)]
    /// enum Old { #[default] Nothing, Visit, Last(f64) }
    /// impl Model for Visits {
    ///     type State = (u64, f64);
    ///     type Msg = ();
    ///     type Undo = Old;
    ///     type Results = u64;
    ///     const ROLLBACK: Rollback = Rollback::Incremental;
    ///     const RESTORE_RECORD: bool = true;
    ///     fn name(&self) -> &str { "visits" }
    ///     fn num_lps(&self) -> u32 { 4 }
    ///     fn lookahead(&self) -> f64 { 0.5 }
    ///     fn init(&self, lp: LpId, ctx: &mut Ctx<'_, Self>) -> (u64, f64) {
    ///         ctx.send(lp, 1.0, ());
    ///         (0, 0.0)
    ///     }
    ///     fn forward(&self, s: &mut (u64, f64), _: &(), undo: &mut Old, ctx: &mut Ctx<'_, Self>) {
    ///         if ctx.saving() {
    ///             *undo = Old::Visit; // restored after the journal's entries
    ///             ctx.save(Old::Last(s.1));
    ///         }
    ///         s.0 += 1;
    ///         s.1 = ctx.now();
    ///         let next = (ctx.lp() + 1) % 4;
    ///         let delay = 0.5 + ctx.rng(0).exponential(1.0);
    ///         ctx.send(next, delay, ());
    ///     }
    ///     fn reverse(&self, _: &mut (u64, f64), _: &(), _: &Old, _: LpId, _: f64) {}
    ///     fn restore(&self, s: &mut (u64, f64), old: &Old) {
    ///         match *old {
    ///             Old::Nothing => {}
    ///             Old::Visit => s.0 -= 1,
    ///             Old::Last(t) => s.1 = t,
    ///         }
    ///     }
    ///     fn finalize(&self, _: LpId, s: &(u64, f64), _: f64, total: &mut u64) { *total += s.0; }
    /// }
    ///
    /// let seq = timewarp::Run::new(&Visits, &Config { end: 50.0, ..Config::default() }).execute().unwrap();
    /// let check = Config { end: 50.0, sync: SyncMode::Check, ..Config::default() };
    /// assert_eq!(timewarp::Run::new(&Visits, &check).execute().unwrap().stats.digest, seq.stats.digest);
    /// let opt = Config {
    ///     end: 50.0,
    ///     sync: SyncMode::Optimistic,
    ///     threads: 2,
    ///     safe_events: false,
    ///     ..Config::default()
    /// };
    /// let r = timewarp::Run::new(&Visits, &opt).execute().unwrap();
    /// assert_eq!(r.stats.digest, seq.stats.digest);
    /// // One journal entry per processed event: the other is in the record.
    /// assert_eq!(r.stats.saved_entries, r.stats.processed_events);
    /// ```
    const RESTORE_RECORD: bool = false;

    /// How speculative events are undone in this run (default
    /// [`ROLLBACK`](Self::ROLLBACK)): a model that implements more than one
    /// way (reverse handlers and [`Ctx::save`] calls, say) can let its user
    /// choose, to measure one against the other. The engine asks once per
    /// run; the answer must not change during it.
    ///
    /// ```
    /// use timewarp::{Ctx, LpId, Model, Rollback};
    ///
    /// /// A counter that can be rolled back either way.
    /// struct Count { rollback: Rollback }
    ///
    /// impl Model for Count {
    ///     type State = u64;
    ///     type Msg = ();
    ///     type Undo = ();
    ///     type Results = u64;
    ///     fn rollback(&self) -> Rollback { self.rollback }
    ///     fn name(&self) -> &str { "count" }
    ///     fn num_lps(&self) -> u32 { 2 }
    ///     fn init(&self, lp: LpId, ctx: &mut Ctx<'_, Self>) -> u64 {
    ///         ctx.send(lp, 1.0, ());
    ///         0
    ///     }
    ///     fn forward(&self, n: &mut u64, _: &(), _: &mut (), ctx: &mut Ctx<'_, Self>) {
    ///         *n += 1;
    ///         ctx.send(ctx.lp(), 1.0, ());
    ///     }
    ///     fn reverse(&self, n: &mut u64, _: &(), _: &(), _: LpId, _: f64) { *n -= 1; }
    ///     fn finalize(&self, _: LpId, n: &u64, _: f64, total: &mut u64) { *total += n; }
    /// }
    ///
    /// for rollback in [Rollback::Reverse, Rollback::StateSaving] {
    ///     let cfg = timewarp::Config { end: 10.0, sync: timewarp::SyncMode::Check, ..Default::default() };
    ///     assert_eq!(timewarp::Run::new(&Count { rollback }, &cfg).execute().unwrap().results, 18);
    /// }
    /// ```
    fn rollback(&self) -> Rollback {
        Self::ROLLBACK
    }

    /// About how many events [`init`](Self::init) sends over all LPs
    /// (default: one per LP). The engine uses it only to estimate, before
    /// allocating anything, whether a run fits in the machine's memory.
    fn initial_events(&self) -> u64 {
        self.num_lps() as u64
    }

    /// About how many bytes the states hold on the heap, over all LPs,
    /// beyond the state values themselves (buffers a state owns through a
    /// `Vec`, say: what [`init`](Self::init) creates and what they fill up to
    /// in an ordinary run; default 0). Like
    /// [`initial_events`](Self::initial_events), only for the memory
    /// estimate ([`memory::Estimate`](crate::memory::Estimate)): a run whose
    /// estimate exceeds the machine's memory or the process's limit
    /// (`ulimit -v`) is refused with [`Error::Memory`](crate::Error::Memory)
    /// before anything is allocated, instead of aborting when an
    /// allocation fails. Count what grows with the model's size; an
    /// estimate within a third of the measured peak is good enough.
    ///
    /// ```
    /// use timewarp::{Ctx, LpId, Model};
    ///
    /// /// Every LP keeps a history of `len` values.
    /// struct History { lps: u32, len: usize }
    ///
    /// impl Model for History {
    ///     type State = Vec<f64>;
    ///     type Msg = ();
    ///     type Undo = ();
    ///     type Results = ();
    ///     fn name(&self) -> &str { "history" }
    ///     fn num_lps(&self) -> u32 { self.lps }
    ///     fn state_heap_bytes(&self) -> u64 {
    ///         // Each LP's Vec: its values, and the allocator's header.
    ///         self.lps as u64 * (self.len * std::mem::size_of::<f64>() + 16) as u64
    ///     }
    ///     fn init(&self, _: LpId, _: &mut Ctx<'_, Self>) -> Vec<f64> { vec![0.0; self.len] }
    ///     fn forward(&self, _: &mut Vec<f64>, _: &(), _: &mut (), _: &mut Ctx<'_, Self>) {}
    ///     fn reverse(&self, _: &mut Vec<f64>, _: &(), _: &(), _: LpId, _: f64) {}
    ///     fn finalize(&self, _: LpId, _: &Vec<f64>, _: f64, _: &mut ()) {}
    /// }
    ///
    /// // A million LPs of a million values each: 8 TB, refused up front.
    /// let m = History { lps: 1_000_000, len: 1_000_000 };
    /// let e = timewarp::Run::new(&m, &timewarp::Config::default()).execute().unwrap_err();
    /// assert!(matches!(e, timewarp::Error::Memory(_)), "{e}");
    /// ```
    fn state_heap_bytes(&self) -> u64 {
        0
    }

    /// Short model name (used in statistics and error messages).
    fn name(&self) -> &str;
    /// Number of LPs; ids are `0..num_lps`.
    fn num_lps(&self) -> u32;
    /// Smallest delay of any event a handler sends to *another* LP (0 if
    /// unknown); a send to the LP itself may have any delay `>= 0` (a
    /// switch's internal stages, a zero-delay wake-up). Sends below it are
    /// errors. Conservative synchronisation needs a positive lookahead
    /// between LPs on different PEs.
    fn lookahead(&self) -> f64 {
        0.0
    }
    /// Smallest delay of an event from LP `src` to another LP `dst` (per-link
    /// latencies of a network model), never below [`lookahead`](Self::lookahead)
    /// (a send is checked against both). Defaults to `lookahead`.
    /// Called on every send to another LP: keep it cheap. A send below it is
    /// an error naming the LP, time, delay and this lookahead.
    ///
    /// ```
    /// # use timewarp::{Ctx, LpId, Model};
    /// /// LPs on a line; the link from LP i to LP i+1 takes i+1 time units.
    /// struct Line;
    /// impl Model for Line {
    ///     type State = (); type Msg = (); type Undo = (); type Results = ();
    ///     fn name(&self) -> &str { "line" }
    ///     fn num_lps(&self) -> u32 { 4 }
    ///     fn lookahead(&self) -> f64 { 1.0 }
    ///     fn lookahead_between(&self, src: LpId, dst: LpId) -> f64 { src.min(dst) as f64 + 1.0 }
    ///     fn neighbours(&self, lp: LpId) -> Option<Vec<LpId>> {
    ///         Some([lp.checked_sub(1), (lp < 3).then(|| lp + 1)].into_iter().flatten().collect())
    ///     }
    ///     fn init(&self, _: LpId, _: &mut Ctx<'_, Self>) {}
    ///     fn forward(&self, _: &mut (), _: &(), _: &mut (), _: &mut Ctx<'_, Self>) {}
    /// }
    /// assert_eq!(Line.lookahead_between(2, 3), 3.0);
    /// ```
    #[inline]
    fn lookahead_between(&self, src: LpId, dst: LpId) -> f64 {
        let _ = (src, dst);
        self.lookahead()
    }
    /// The LPs that `lp` may send events to, besides itself, when the model
    /// knows them (the links of a network). Conservative windows then use the
    /// smallest [`lookahead_between`](Self::lookahead_between) over the pairs
    /// the placement actually puts on different PEs, instead of the global
    /// [`lookahead`](Self::lookahead). `None` (the default): any LP. Called
    /// once per LP at the start of a conservative run; a send to another PE
    /// outside the declared neighbours that would break the window is an error.
    fn neighbours(&self, lp: LpId) -> Option<Vec<LpId>> {
        let _ = lp;
        None
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
    /// Undoes one write of a forward handler, recorded with [`Ctx::save`]
    /// (incremental state saving, [`Rollback::Incremental`]): a rollback
    /// calls it for every entry the event saved, newest first. Random
    /// draws and sends are undone by the engine.
    ///
    /// ```
    /// use timewarp::{Config, Ctx, LpId, Model, Random, Rollback, SyncMode};
    ///
    /// /// A big table of which each event changes one cell.
    /// struct Table;
    /// #[derive(Clone, Copy, Debug, Default)]
    /// struct Old { cell: usize, value: u64 }
    ///
    /// impl Model for Table {
    ///     type State = Vec<u64>;
    ///     type Msg = ();
    ///     type Undo = Old;
    ///     type Results = u64;
    ///     const ROLLBACK: Rollback = Rollback::Incremental;
    ///     fn name(&self) -> &str { "table" }
    ///     fn num_lps(&self) -> u32 { 4 }
    ///     fn lookahead(&self) -> f64 { 0.5 }
    ///     fn init(&self, _: LpId, ctx: &mut Ctx<'_, Self>) -> Vec<u64> {
    ///         ctx.send(ctx.lp(), 1.0, ());
    ///         vec![0; 4096]
    ///     }
    ///     fn forward(&self, t: &mut Vec<u64>, _: &(), _: &mut Old, ctx: &mut Ctx<'_, Self>) {
    ///         let cell = ctx.rng(0).below(4096) as usize;
    ///         ctx.save(Old { cell, value: t[cell] }); // before the write
    ///         t[cell] += 1;
    ///         let to = ctx.rng(0).below(4) as LpId;
    ///         let delay = 0.5 + ctx.rng(0).exponential(1.0);
    ///         ctx.send(to, delay, ());
    ///     }
    ///     fn restore(&self, t: &mut Vec<u64>, old: &Old) {
    ///         t[old.cell] = old.value;
    ///     }
    ///     fn finalize(&self, _: LpId, t: &Vec<u64>, _: f64, total: &mut u64) {
    ///         *total += t.iter().sum::<u64>();
    ///     }
    /// }
    ///
    /// let seq = timewarp::Run::new(&Table, &Config { end: 50.0, ..Config::default() }).execute().unwrap();
    /// let opt = Config { end: 50.0, sync: SyncMode::Optimistic, threads: 2, ..Config::default() };
    /// assert_eq!(timewarp::Run::new(&Table, &opt).execute().unwrap().stats.digest, seq.stats.digest);
    /// let check = Config { end: 50.0, sync: SyncMode::Check, ..Config::default() };
    /// assert_eq!(timewarp::Run::new(&Table, &check).execute().unwrap().stats.digest, seq.stats.digest);
    /// ```
    fn restore(&self, state: &mut Self::State, entry: &Self::Undo) {
        let _ = (state, entry);
        panic!("model {} has Rollback::Incremental but no restore handler; implement Model::restore", self.name());
    }
    /// Runs once per committed event, in timestamp order per LP, after the
    /// event can no longer be rolled back: the only place for irreversible
    /// side effects (output, I/O).
    fn commit(&self, msg: &Self::Msg, undo: &Self::Undo, lp: LpId, now: Time) {
        let _ = (msg, undo, lp, now);
    }
    /// Gathers results from each LP's final state; called in LP-id order
    /// (`end` is the run's end time, for rates and time averages).
    fn finalize(&self, lp: LpId, state: &Self::State, end: Time, results: &mut Self::Results) {
        let _ = (lp, state, end, results);
    }
}

/// An event a handler asked to send, before the kernel routes it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Outgoing<Msg> {
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
    pub(crate) model: &'a M,
    pub(crate) now: Time,
    pub(crate) lp: LpId,
    pub(crate) age: u32,
    pub(crate) num_lps: u32,
    /// False during `init`, where delays need only be `>= 0`.
    pub(crate) checked: bool,
    pub(crate) end: Time,
    pub(crate) rng_key: u64,
    pub(crate) rng_base: u64,
    pub(crate) seq: &'a mut u32,
    pub(crate) counters: &'a mut [u64],
    pub(crate) out: &'a mut Vec<Outgoing<M::Msg>>,
    pub(crate) past_end: u32,
    pub(crate) error: Option<Error>,
    /// Where [`Ctx::save`] records (an optimistic or check run of an
    /// incremental model); `None` when nothing can be rolled back.
    pub(crate) journal: Option<&'a mut crate::trail::Trail<M::Undo>>,
    /// Whether [`Ctx::save_into`] lends the journal now (a nested
    /// lending is an error).
    pub(crate) lent: bool,
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
    /// `delay` must be finite and `>= 0`; to another LP also `>=`
    /// [`Model::lookahead_between`] (not during `init`). A violation is an
    /// error naming the LP and time; the event is not sent. In an optimistic
    /// run the error stays with the event and stops the run only if the
    /// event is committed: an event later rolled back was never processed.
    #[inline]
    pub fn send(&mut self, dst: LpId, delay: f64, msg: M::Msg) {
        if !(delay >= 0.0 && delay.is_finite()) || dst >= self.num_lps {
            self.fail_send(dst, delay, 0.0);
            return;
        }
        if dst != self.lp && self.checked {
            // Both bounds hold: the optimistic kernel's commit horizons rely
            // on the global one (`Model::lookahead`).
            let lookahead = self.model.lookahead_between(self.lp, dst).max(self.model.lookahead());
            #[allow(clippy::neg_cmp_op_on_partial_ord)] // a NaN lookahead is violated too
            if !(delay >= lookahead) {
                self.fail_send(dst, delay, lookahead);
                return;
            }
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

    /// Keeps the first error of this handler call: what is wrong with a
    /// send of `delay` to `dst` whose lookahead is `lookahead`.
    #[cold]
    #[inline(never)]
    fn fail_send(&mut self, dst: LpId, delay: f64, lookahead: f64) {
        if self.error.is_some() {
            return;
        }
        let (lp, time) = (self.lp, self.now);
        self.error = Some(if !(delay >= 0.0 && delay.is_finite()) {
            Error::BadDelay { lp, time, delay }
        } else if dst >= self.num_lps {
            Error::BadDestination { lp, time, dst, num_lps: self.num_lps }
        } else {
            Error::Lookahead { lp, time, dst, delay, lookahead }
        });
    }

    /// Reports that this event found the model in a state it must never be
    /// in (an invariant broken): the run stops with `message`, naming the LP
    /// and time, once the event is committed. In an optimistic run an event
    /// that is later rolled back may see such a state (it was processed
    /// speculatively, on inputs that are being cancelled): its error is
    /// discarded with it. Unlike a panic it costs nothing and prints
    /// nothing. The handler should return without further changes.
    ///
    /// ```
    /// # use timewarp::{Ctx, LpId, Model};
    /// struct Counter;
    /// impl Model for Counter {
    ///     type State = u32; type Msg = i32; type Undo = (); type Results = ();
    ///     const ROLLBACK: timewarp::Rollback = timewarp::Rollback::StateSaving;
    ///     fn name(&self) -> &str { "counter" }
    ///     fn num_lps(&self) -> u32 { 1 }
    ///     fn init(&self, _: LpId, ctx: &mut Ctx<'_, Self>) -> u32 { ctx.send(0, 1.0, -1); 0 }
    ///     fn forward(&self, n: &mut u32, d: &i32, _: &mut (), ctx: &mut Ctx<'_, Self>) {
    ///         match n.checked_add_signed(*d) {
    ///             Some(v) => *n = v,
    ///             None => ctx.fail(format!("count {n} cannot change by {d}")),
    ///         }
    ///     }
    /// }
    /// let e = timewarp::Run::new(&Counter, &timewarp::Config { end: 5.0, ..Default::default() }).execute().unwrap_err();
    /// assert_eq!(e.to_string(), "LP 0 at time 1: count 0 cannot change by -1");
    /// ```
    #[cold]
    pub fn fail(&mut self, message: impl Into<String>) {
        if self.error.is_none() {
            self.error = Some(Error::Model { lp: self.lp, time: self.now, message: message.into() });
        }
    }

    /// Records `entry` in this event's undo journal, for a model with
    /// [`Rollback::Incremental`]: call it *before* each write it undoes
    /// (the old value, or what [`Model::restore`] needs). Entries are given
    /// back newest first when the event is rolled back. In a run that never
    /// rolls back (sequential, conservative) it does nothing; see
    /// [`saving`](Self::saving). Example: [`Model::restore`].
    #[inline]
    pub fn save(&mut self, entry: M::Undo) {
        if let Some(j) = &mut self.journal {
            j.push(entry);
        }
    }

    /// What `Ctx::save_into` found wrong: entries saved through `Ctx`
    /// while it lent the journal (they went to its stand-in and would be
    /// lost), or a nested lending. The event fails.
    #[cold]
    #[inline(never)]
    fn saved_while_lent(&mut self) {
        self.fail(
            "saved through Ctx (or lent again) inside Ctx::save_into, which lends the journal: push onto the lent vector instead",
        );
    }

    /// [`save`](Self::save) for each entry, in order (a handler that
    /// gathers its entries first hands them over in one go).
    ///
    /// ```
    /// # use timewarp::{Ctx, Model};
    /// # fn hand_over<M: Model>(ctx: &mut Ctx<'_, M>, gathered: &mut Vec<M::Undo>) {
    /// ctx.save_all(gathered.drain(..));
    /// # }
    /// ```
    #[inline]
    pub fn save_all(&mut self, entries: impl IntoIterator<Item = M::Undo>) {
        if let Some(j) = &mut self.journal {
            j.extend(entries);
        }
    }

    /// [`save`](Self::save) for every entry of `entries`, in order, leaving
    /// it empty (its capacity kept for the next event): one copy, where
    /// [`save_all`](Self::save_all) moves entry by entry. For a handler
    /// that gathers its entries in a vector of its own.
    ///
    /// ```
    /// # use timewarp::{Ctx, Model};
    /// # fn hand_over<M: Model>(ctx: &mut Ctx<'_, M>, gathered: &mut Vec<M::Undo>) {
    /// ctx.save_vec(gathered);
    /// assert!(gathered.is_empty());
    /// # }
    /// ```
    #[inline]
    pub fn save_vec(&mut self, entries: &mut Vec<M::Undo>) {
        match &mut self.journal {
            Some(j) => j.append(entries),
            None => entries.clear(),
        }
    }

    /// Runs `f` with this event's journal lent to `slot(s)` (a [`Lent`] in
    /// the LP state `s`): what `f` pushes onto it is saved as if by
    /// [`save`](Self::save), in order, with no copy afterwards
    /// ([`save_vec`](Self::save_vec) copies). For a handler that saves from
    /// deep inside its state's own methods. Where nothing is ever rolled
    /// back (see [`saving`](Self::saving)) `f` just runs, and what it pushes
    /// is dropped. Replacing the lent value (rather than pushing onto it)
    /// loses the journal: the run stops with an error. Inside `f`, save
    /// only through the lent vector: where the journal keeps entries,
    /// [`save`](Self::save) and its kin, or a nested `save_into`, fail the
    /// event (their entries would be lost).
    ///
    /// ```
    /// use timewarp::{Ctx, Lent, Model};
    /// struct Node { log: Lent<u64>, x: u64 }
    /// # fn handler<M: Model<Undo = u64>>(ctx: &mut Ctx<'_, M>, n: &mut Node) {
    /// ctx.save_into(n, |n| &mut n.log, |n, _ctx| {
    ///     n.log.push(n.x); // the old value, for `restore`
    ///     n.x += 1;
    /// });
    /// # }
    /// ```
    #[inline]
    pub fn save_into<S>(
        &mut self,
        s: &mut S,
        slot: fn(&mut S) -> &mut Lent<M::Undo>,
        f: impl FnOnce(&mut S, &mut Self),
    ) {
        if self.lent {
            // Lent again from inside: the slot holds the journal, keep it.
            self.saved_while_lent();
            return f(s, self);
        }
        let Some(j) = self.journal.as_deref_mut() else {
            f(s, self);
            return slot(s).0.clear();
        };
        std::mem::swap(&mut slot(s).0, j.items_mut());
        self.lent = true;
        // Given back even if `f` panics: the kernel undoes a panicked
        // event of an incremental model from its journal.
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(s, self)));
        self.lent = false;
        if let Some(j) = self.journal.as_deref_mut() {
            std::mem::swap(&mut slot(s).0, j.items_mut());
        }
        if let Err(p) = r {
            std::panic::resume_unwind(p);
        }
        // What `Ctx::save` put in the journal's stand-in meanwhile.
        if !slot(s).0.is_empty() {
            slot(s).0.clear();
            self.saved_while_lent();
        }
    }

    /// Whether [`save`](Self::save) keeps its entries: false where nothing
    /// is ever rolled back, so a handler may skip working out what to save.
    #[inline]
    pub fn saving(&self) -> bool {
        self.journal.is_some()
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

/// A vector an LP state holds for [`Ctx::save_into`]: while a handler runs
/// it is the engine's journal (earlier events' entries included), so it
/// can only be pushed onto; otherwise it is empty.
///
/// ```
/// let mut log = timewarp::Lent::<u32>::default();
/// log.push(7);
/// assert_eq!(log.len(), 1);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lent<U>(Vec<U>);

impl<U> Lent<U> {
    /// Saves `u` (appends it to the journal while lent).
    #[inline(always)]
    pub fn push(&mut self, u: U) {
        self.0.push(u);
    }

    /// Entries held (while lent: the journal's, earlier events' included).
    #[inline]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether it holds no entry.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The entries held, oldest first.
    #[inline]
    pub fn as_slice(&self) -> &[U] {
        &self.0
    }
}
