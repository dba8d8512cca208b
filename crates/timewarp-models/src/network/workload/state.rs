//! A rank's run-time state: what each NIC with a rank holds in its node
//! (rolled back with it). Its execution is `ranks.rs`'s, the journal's
//! entries for it `journal.rs`'s.

use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// What a rank is doing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Phase {
    /// Not started (or the NIC has no rank).
    #[default]
    Idle,
    /// In a `compute`, until its `Step` event.
    Computing,
    /// Blocked until request `.0` completes (`recv`, `wait`).
    WaitFor(u32),
    /// Blocked until every outstanding request completes.
    WaitAll,
    /// Past its last operation.
    Done,
    /// Blocked in a probe until a matching message is here (variants are
    /// only ever added last: the state's encoding enters the run digest).
    Probe,
    /// Blocked in a blocking send of a rendezvous message until its
    /// clear-to-send arrives (rendezvous.rs).
    Rendezvous,
}

/// One rank's run-time state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Rank {
    /// Index of its current operation.
    pub(crate) pc: u32,
    pub(crate) phase: Phase,
    /// When the current block began, total time blocked, finish time.
    pub(crate) since: f64,
    pub(crate) comm: f64,
    pub(crate) finish: f64,
    /// Next request id and next message number.
    pub(crate) next_req: u32,
    pub(crate) next_send: u32,
    /// Outstanding isend/irecv requests in order: (id, complete, operation).
    pub(crate) reqs: VecDeque<(u32, bool, u32)>,
    /// Receives posted and not matched: (source, tag, request, operation).
    pub(crate) posted: Vec<(u32, u32, u32, u32)>,
    /// Messages released and not matched, in release order: (source, k).
    pub(crate) unexpected: Vec<(u32, u32)>,
    /// Per source, the ordinal of its next message to release.
    pub(crate) expect: Vec<(u32, u32)>,
    /// Messages complete but ahead of an earlier one from their source.
    pub(crate) early: Vec<(u32, u32)>,
    /// Rendezvous messages under way (rendezvous.rs): (peer, k, request,
    /// operation); a send's peer carries [`SENDING`]. Encoded after the
    /// rank only while this or `control` is not empty (encoding.rs), so
    /// eager runs keep their encoding and digests.
    #[serde(skip)]
    pub(crate) rdv: Vec<(u32, u32, u32, u32)>,
    /// Control messages (request- and clear-to-send) this rank has sent.
    #[serde(skip)]
    pub(crate) control: u32,
}

/// Set in a [`Rank::rdv`] entry's peer when the rank is the sender.
pub(crate) const SENDING: u32 = 1 << 31;
/// A [`Rank::rdv`] entry's request of a blocking send (which has none).
pub(crate) const NO_REQ: u32 = u32::MAX;
/// A [`Rank::rdv`] entry's request of a collective's send, which nothing
/// waits for (the send half of a sendrecv: the collective ends with its
/// receives).
pub(crate) const DETACHED: u32 = u32::MAX - 1;

/// An outstanding request: (id, complete, operation).
pub(crate) type Req = (u32, bool, u32);
/// A posted receive: (source, tag, request, operation).
pub(crate) type Posted = (u32, u32, u32, u32);

/// A rank's counters and phase, as a journal entry saves them (its times
/// are another: an entry holds 24 bytes).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Counters {
    pc: u32,
    phase: Phase,
    next_req: u32,
    next_send: u32,
    control: u32,
}

/// A rank's times, as a journal entry saves them.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Times {
    since: f64,
    comm: f64,
    finish: f64,
}

/// The rank's lists, by number in a journal entry.
pub(crate) const REQS: u8 = 0;
pub(crate) const POSTED: u8 = 1;
pub(crate) const UNEXPECTED: u8 = 2;
pub(crate) const EXPECT: u8 = 3;
pub(crate) const EARLY: u8 = 4;
pub(crate) const RDV: u8 = 5;

impl Rank {
    pub(crate) fn set_counters(&mut self, c: Counters) {
        (self.pc, self.phase, self.next_req, self.next_send) = (c.pc, c.phase, c.next_req, c.next_send);
        self.control = c.control;
    }

    pub(crate) fn set_times(&mut self, t: Times) {
        (self.since, self.comm, self.finish) = (t.since, t.comm, t.finish);
    }

    /// The scalar fields, in the two parts two journal entries save.
    pub(crate) fn scalars(&self) -> (Counters, Times) {
        (
            Counters {
                pc: self.pc,
                phase: self.phase,
                next_req: self.next_req,
                next_send: self.next_send,
                control: self.control,
            },
            Times { since: self.since, comm: self.comm, finish: self.finish },
        )
    }
}
