//! What a handler sees ([`Ctx`]): the current time, its LP, sends, saves
//! and random streams; and [`Lent`], the journal lent to an LP state.

use crate::error::Error;
use crate::key::{Key, LpId, Time};
use crate::rng::Stream;

use super::Model;

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
    /// [`Rollback::Incremental`](super::Rollback::Incremental): call it *before* each write it undoes
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
