//! Errors a run can end with. Each says what was wrong and how to fix it.

use crate::key::{LpId, Time};

/// Why a simulation could not start or had to stop.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// A configuration value is impossible (the message names the option).
    #[error("invalid configuration: {0}")]
    Config(String),
    /// A field of [`Config`](crate::Config) is impossible: `option` is the
    /// field's name (a front end names its own flag for it).
    #[error("invalid configuration: {option}: {problem}")]
    Option {
        /// The `Config` field.
        option: &'static str,
        /// What is wrong and how to fix it.
        problem: String,
    },
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
    /// A handler sent an event to another LP with a delay below the lookahead
    /// the model declares between the two.
    #[error("LP {lp} at time {time}: event to LP {dst} sent with delay {delay} below the model's lookahead {lookahead} for that pair; raise the delay or declare a smaller lookahead (Model::lookahead, Model::lookahead_between)")]
    Lookahead {
        /// Sending LP.
        lp: LpId,
        /// Time of the sending event.
        time: Time,
        /// Destination LP.
        dst: LpId,
        /// The offending delay.
        delay: f64,
        /// The lookahead the model declared.
        lookahead: f64,
    },
    /// In a conservative run, an event crossed PEs with less delay than the
    /// window's lookahead: the model declared neighbours of the sending LP
    /// that do not include the destination.
    #[error("LP {lp} at time {time}: event to LP {dst} (on another PE) sent with delay {delay}, below the lookahead {lookahead} that the conservative windows take from the model's declared neighbours; list LP {dst} in Model::neighbours({lp}) or run optimistically")]
    Neighbours {
        /// Sending LP.
        lp: LpId,
        /// Time of the sending event.
        time: Time,
        /// Destination LP.
        dst: LpId,
        /// The delay.
        delay: f64,
        /// The window's lookahead.
        lookahead: f64,
    },
    /// A model handler reported an error with [`Ctx::fail`](crate::Ctx::fail).
    #[error("LP {lp} at time {time}: {message}")]
    Model {
        /// LP whose handler failed.
        lp: LpId,
        /// Time of the event.
        time: Time,
        /// What the model said.
        message: String,
    },
    /// A model handler panicked (`message` is the panic's text).
    #[error("LP {lp} at time {time}: the model's handler panicked: {message}")]
    Panic {
        /// LP whose handler panicked.
        lp: LpId,
        /// Time of the event.
        time: Time,
        /// The panic's message.
        message: String,
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
    /// The configuration needs more memory than the machine has (checked
    /// before anything is allocated), or an allocation failed.
    #[error("not enough memory: {0}")]
    Memory(String),
    /// Virtual time stopped advancing: `events` events in a row were
    /// committed at `time` (zero delays that never end).
    #[error("LP {lp} at time {time} (an event sent by LP {src}): {events} events in a row at this one virtual time; the run cannot advance (every event schedules another with delay 0?); give the model delays > 0, or raise --max-events-at-one-time (Config::max_events_at_one_time; 0: no limit)")]
    Stalled {
        /// The LP of the event that reached the limit.
        lp: LpId,
        /// The LP that sent that event (scheduling at the same time).
        src: LpId,
        /// The time that does not advance.
        time: Time,
        /// Events in a row at that time.
        events: u64,
    },
    /// The optimistic event memory cannot hold what the run needs. No
    /// kernel raises it now (a full budget throttles speculation, and the
    /// processed events no longer live in an arena of fixed capacity); kept
    /// so code that matches on it still builds.
    #[error("event memory too small: {detail}")]
    EventMemory {
        /// What is needed and how to fix it.
        detail: String,
    },
    /// A message could not be encoded for another process (the model's
    /// `Serialize` implementation failed).
    #[error("cannot encode {0}")]
    Encode(String),
    /// A worker thread could not be started (the message says why and what to do).
    #[error("{0}")]
    Threads(String),
    /// A worker thread panicked outside a forward handler (in a model's
    /// `init`, `reverse` or `commit`, or in the engine).
    #[error("a worker thread panicked: {0}")]
    WorkerPanic(String),
    /// Another process of the run speaks a different wire format (it runs
    /// another timewarp build).
    #[error("{0}: rebuild every rank from the same source")]
    Incompatible(String),
    /// A checkpoint file cannot be written, read or used (the message names
    /// the file and what is wrong with it).
    #[error("checkpoint {path}: {problem}")]
    Checkpoint {
        /// The file.
        path: String,
        /// What is wrong, and what to do.
        problem: String,
    },
    /// The run was asked to stop (SIGINT, SIGTERM) and did, at a
    /// consistent cut; `checkpoint` is the file it wrote there, if any.
    #[error("{}", interrupted_text(checkpoint))]
    Interrupted {
        /// The checkpoint written at the stop (none without a checkpoint directory).
        checkpoint: Option<String>,
    },
    /// A broken invariant of the engine itself (a bug: please report it).
    #[error("internal error (a timewarp bug, please report it): {0}")]
    Internal(String),
}

fn interrupted_text(checkpoint: &Option<String>) -> String {
    match checkpoint {
        Some(p) => format!("interrupted; wrote checkpoint {p}; continue with: timewarp resume {p}"),
        None => "interrupted (no checkpoint written: give --checkpoint-dir to be able to resume)".into(),
    }
}
