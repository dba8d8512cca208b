//! The model API: what a simulation model implements and what its handlers see.
//!
//! A model is a set of logical processes (LPs) that change state only by
//! exchanging time-stamped messages. The engine is generic over the model
//! type, so every handler call is monomorphised: several LP kinds in one model
//! are expressed with enums for `State` and `Msg`, never trait objects.

mod ctx;
mod rollback;

use crate::key::{LpId, Time};
use serde::{de::DeserializeOwned, Serialize};
use std::fmt::Debug;

pub(crate) use ctx::Outgoing;
pub use ctx::{Ctx, Lent};
pub use rollback::Rollback;

/// Most random streams an LP may have (per-event draw counts are packed into 4 × 16 bits).
pub const MAX_STREAMS: u32 = 4;

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
