//! Events as the kernels keep them: a processed event's record (on its
//! KP's list until it commits or is undone) and a pending event in a queue.

use crate::key::{Key, LpId};

/// A processed event's record: fixed size, `Copy`, no heap data.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Event<Msg, Undo> {
    /// Position in the total order.
    pub key: Key,
    /// Destination LP.
    pub dst: LpId,
    /// Position of its first send in its KP's list of sent records (see
    /// [`Trail::start`](crate::trail::Trail::start)): the sends of the
    /// events after it start where its own end.
    pub sent_at: u32,
    /// Random draws made by the forward handler: 16 bits per stream.
    pub draws: u64,
    /// Sends the forward handler dropped for being past the end time.
    pub past_end: u32,
    /// Incarnation: which pending event this record was (see [`Queued`]).
    pub inc: u32,
    /// Position of its first entry in its KP's journal (incremental
    /// models; as `sent_at`).
    pub saved_at: u32,
    /// Its LP's `last_time` before it: the LP's history records the event
    /// as it is processed, and a rollback restores this.
    pub prev_time: f64,
    /// The model's message.
    pub msg: Msg,
    /// The model's undo record, written by the forward handler.
    pub undo: Undo,
}

impl<Msg, Undo: Default> Event<Msg, Undo> {
    /// The record of pending event `inc` as its handler starts: what the
    /// handler did is filled in after it.
    #[inline]
    pub(crate) fn new(key: Key, dst: LpId, inc: u32, msg: Msg) -> Self {
        Event {
            key,
            dst,
            sent_at: 0,
            draws: 0,
            past_end: 0,
            inc,
            saved_at: 0,
            prev_time: 0.0,
            msg,
            undo: Undo::default(),
        }
    }
}

/// A pending event as the kernels without rollback keep it: inside its
/// queue entry (the key is the entry's), with no undo record and no
/// bookkeeping. Those kernels are memory-bound, and one place per event
/// instead of an arena record plus a queue entry doubled their speed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Inline<Msg> {
    /// Destination LP.
    pub dst: LpId,
    /// The model's message.
    pub msg: Msg,
}

/// A pending event in an optimistic PE's queue: the event itself (kept in
/// the queue entry, as in the kernels without rollback) and its incarnation,
/// a number unique among the PE's live events that names it for cancellation
/// — keys alone cannot, since a cancelled event and its re-sent successor may
/// share one. Only processed events take an arena record.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Queued<Msg> {
    /// Destination LP.
    pub dst: LpId,
    /// Incarnation number.
    pub inc: u32,
    /// The model's message.
    pub msg: Msg,
}
