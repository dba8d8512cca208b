//! A cell's state, the events between cells, and the undo record.

use serde::{Deserialize, Serialize};

use super::NEVER;

/// State of one cell: free channels and counters only (exactly reversible).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Cell {
    /// Channels not in use.
    pub free_channels: u32,
    /// New-call attempts (busy lines excluded).
    pub call_attempts: u64,
    /// New calls blocked for want of a free channel.
    pub blocked_calls: u64,
    /// Attempts by portables already in a call (not counted as attempts).
    pub busy_lines: u64,
    /// Calls that ended normally here.
    pub calls_completed: u64,
    /// Calls handed off into this cell.
    pub handoff_attempts: u64,
    /// Handoffs into this cell that found no free channel (calls dropped).
    pub handoffs_blocked: u64,
}

/// What an event does to the portable (or call) it carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Kind {
    /// The portable attempts a call in this cell.
    NextCall,
    /// The portable's call ends in this cell.
    CallEnd,
    /// The portable leaves this cell during a call (frees the channel).
    MoveOut,
    /// The portable enters this cell during a call (the handoff).
    MoveIn,
    /// [`Arrivals::Poisson`](super::Arrivals::Poisson) only: the cell's next new call arrives.
    Arrival,
}

/// An event: its kind and the state of the portable it carries (absolute times).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PcsMsg {
    /// What the event does.
    pub kind: Kind,
    /// Time of the portable's next call attempt ([`NEVER`] for a Poisson-mode call).
    pub next_call: f64,
    /// Time the current call ends; [`NEVER`] when the portable is idle.
    pub call_end: f64,
    /// Time of the portable's next move; [`NEVER`] without mobility.
    pub next_move: f64,
}

impl PcsMsg {
    pub(super) fn arrival() -> Self {
        PcsMsg { kind: Kind::Arrival, next_call: NEVER, call_end: NEVER, next_move: NEVER }
    }
}

/// Undo record: whether the event's request (a call or a handoff) was blocked,
/// and how many busy lines it counted.
/// Under [`Rollback::Incremental`](timewarp::Rollback::Incremental) also one saved write: a field of the
/// cell and its old value.
#[derive(Clone, Copy, Debug, Default)]
pub struct PcsUndo {
    pub(super) blocked: bool,
    pub(super) busy_lines: u32,
    pub(super) field: Field,
    pub(super) old: u64,
}

/// A counter of [`Cell`] (incremental state saving).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Field {
    #[default]
    FreeChannels,
    CallAttempts,
    BlockedCalls,
    BusyLines,
    CallsCompleted,
    HandoffAttempts,
    HandoffsBlocked,
}

impl Cell {
    pub(super) fn get(&self, f: Field) -> u64 {
        match f {
            Field::FreeChannels => self.free_channels.into(),
            Field::CallAttempts => self.call_attempts,
            Field::BlockedCalls => self.blocked_calls,
            Field::BusyLines => self.busy_lines,
            Field::CallsCompleted => self.calls_completed,
            Field::HandoffAttempts => self.handoff_attempts,
            Field::HandoffsBlocked => self.handoffs_blocked,
        }
    }

    pub(super) fn set(&mut self, f: Field, v: u64) {
        match f {
            Field::FreeChannels => self.free_channels = v as u32,
            Field::CallAttempts => self.call_attempts = v,
            Field::BlockedCalls => self.blocked_calls = v,
            Field::BusyLines => self.busy_lines = v,
            Field::CallsCompleted => self.calls_completed = v,
            Field::HandoffAttempts => self.handoff_attempts = v,
            Field::HandoffsBlocked => self.handoffs_blocked = v,
        }
    }
}
