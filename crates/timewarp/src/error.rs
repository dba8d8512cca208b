//! Errors a run can end with. Each says what was wrong and how to fix it.

use crate::key::{LpId, Time};

/// Why a simulation could not start or had to stop.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// A configuration value is impossible (the message names the option).
    #[error("invalid configuration: {0}")]
    Config(String),
    /// A handler sent an event with a negative, infinite or NaN delay.
    #[error("LP {lp} at time {time}: event sent with delay {delay}; delays must be finite and >= 0 (an event cannot be scheduled into the past)")]
    BadDelay {
        /// Sending LP.
        lp: LpId,
        /// Time of the sending event.
        time: Time,
        /// The offending delay.
        delay: f64,
    },
    /// A handler sent an event with a delay below the model's declared lookahead.
    #[error("LP {lp} at time {time}: event sent with delay {delay} below the model's lookahead {lookahead}; raise the delay or declare a smaller lookahead")]
    Lookahead {
        /// Sending LP.
        lp: LpId,
        /// Time of the sending event.
        time: Time,
        /// The offending delay.
        delay: f64,
        /// The lookahead the model declared.
        lookahead: f64,
    },
    /// A handler sent an event to an LP that does not exist.
    #[error("LP {lp} at time {time}: event sent to LP {dst}, but the model has only {num_lps} LPs (ids 0..{num_lps})")]
    BadDestination {
        /// Sending LP.
        lp: LpId,
        /// Time of the sending event.
        time: Time,
        /// The offending destination.
        dst: LpId,
        /// Number of LPs in the model.
        num_lps: u32,
    },
    /// A handler drew more random numbers in one event than the engine can rewind.
    #[error("LP {lp} at time {time}: one event drew {draws} numbers from random stream {stream}; at most 65535 per event and stream can be rolled back")]
    TooManyDraws {
        /// LP.
        lp: LpId,
        /// Event time.
        time: Time,
        /// Stream index.
        stream: u32,
        /// Draws made.
        draws: u64,
    },
    /// `--sync check` found a reverse handler that does not restore the state.
    #[error("check failed for model {model}, LP {lp}, event at time {time} (sent by LP {src}): {detail}")]
    Check {
        /// Model name.
        model: String,
        /// LP whose state differs.
        lp: LpId,
        /// Event time.
        time: Time,
        /// Sender of the event.
        src: LpId,
        /// What differs (field path and values where the state type allows).
        detail: String,
    },
    /// The optimistic event memory cannot hold what the run needs.
    #[error("event memory too small: {detail}")]
    EventMemory {
        /// What is needed and how to fix it.
        detail: String,
    },
    /// A worker thread panicked (a model handler bug).
    #[error("worker thread failed: {0}")]
    Worker(String),
}
