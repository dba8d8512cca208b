//! Kernel processes: the unit of rollback and fossil collection.
//!
//! A KP groups a few LPs of one PE and keeps their processed events in
//! processing order, which is also key order (a straggler rolls back every
//! later event first). Rollback pops from the back, fossil collection from the
//! front; neither ever scans all LPs.

use std::collections::VecDeque;

use crate::event::Event;
use crate::key::{Key, LpId};
use crate::trail::Trail;

/// An event sent by a processed event, kept so it can be cancelled.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SentRec {
    pub(crate) dst: LpId,
    pub(crate) key: Key,
    /// Incarnation of the event when it is on this PE, else its number on
    /// the channel to its PE (what an anti-message names it by).
    pub(crate) inc: u32,
}

/// Processed, not yet committed events of a group of LPs.
pub(crate) struct Kp<S, Msg, U> {
    /// Processed events in processing (= key) order, the records themselves:
    /// rollback takes them from the back, fossil collection from the front,
    /// so a KP's events need no arena, handles or free list (a third of what
    /// an optimistic event cost beyond a sequential one went there).
    pub(crate) processed: Trail<Event<Msg, U>>,
    /// Sends of those events, in the same order (each event owns `n_sent` of them).
    pub(crate) sent: Trail<SentRec>,
    /// LP state before each processed event (state-saving models only).
    pub(crate) saved: VecDeque<S>,
    /// What those events saved, in the same order (incremental models
    /// only; each event owns `saved` entries): rollback gives entries back
    /// from the end, fossil collection drops them from the front.
    pub(crate) journal: Trail<U>,
    /// The journal's length before the running handler's first entry.
    pub(crate) journal_mark: usize,
}

impl<S, Msg, U> Kp<S, Msg, U> {
    pub(crate) fn new() -> Self {
        Kp {
            processed: Trail::new(),
            sent: Trail::new(),
            saved: VecDeque::new(),
            journal: Trail::new(),
            journal_mark: 0,
        }
    }

    /// After fossil collection: gives back memory a burst of speculation
    /// left in the lists, so memory follows what is held now.
    #[inline]
    pub(crate) fn trim(&mut self) {
        self.processed.trim();
        self.sent.trim();
        self.journal.trim();
    }
}
