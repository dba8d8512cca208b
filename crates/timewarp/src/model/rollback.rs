//! How the engine undoes a speculatively processed event, as a model
//! declares it and a command line names it.

use serde::{Deserialize, Serialize};

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
