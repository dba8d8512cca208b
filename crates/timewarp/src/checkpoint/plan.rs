//! A run's checkpoint plan: when and where it writes checkpoints, and what
//! a resume needs to rebuild and check the model (recorded in each file's
//! header).

use std::path::PathBuf;

use super::file::{params_hash, Header, FORMAT_VERSION};
use super::Input;
use crate::config::Config;
use crate::error::Error;
use crate::model::Model;
use crate::segment::Snapshot;

/// When and where a run writes checkpoints.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Directory of the checkpoint files (`None`: write none; a stop request
    /// then ends the run at its next cut without one).
    pub dir: Option<PathBuf>,
    /// A checkpoint at the first GVT at or past every multiple of this virtual time.
    pub every: Option<f64>,
    /// A checkpoint every this many wall-clock seconds (at the next cut).
    pub wall: Option<f64>,
    /// How many checkpoint files to keep in `dir` (the newest; at least 1).
    pub keep: usize,
    /// The model's parameters (a resume must give the same).
    pub params: serde_json::Value,
    /// The front end's command line, stored so a resume can rebuild the model.
    pub command: Vec<String>,
    /// The input files the run read at start ([`fingerprint`](super::fingerprint)), which a
    /// resume checks ([`File::check_inputs`](super::File::check_inputs)) before reading them again.
    pub inputs: Vec<Input>,
}

impl Default for Plan {
    fn default() -> Self {
        Plan {
            dir: None,
            every: None,
            wall: None,
            keep: 2,
            params: serde_json::Value::Null,
            command: Vec::new(),
            inputs: Vec::new(),
        }
    }
}

impl Plan {
    /// Checks the values, saying which option is wrong.
    pub fn validate(&self) -> Result<(), Error> {
        let bad = |option, problem: String| Err(Error::Option { option, problem });
        if let Some(v) = self.every {
            if !(v.is_finite() && v > 0.0) {
                return bad("checkpoint-every", format!("must be a virtual time > 0, got {v}"));
            }
        }
        if let Some(w) = self.wall {
            if !(w.is_finite() && w > 0.0) {
                return bad("checkpoint-wall", format!("must be a number of seconds > 0, got {w}"));
            }
        }
        if self.keep == 0 {
            return bad("checkpoint-keep", "must be at least 1 (the newest checkpoint)".into());
        }
        if self.dir.is_none() && (self.every.is_some() || self.wall.is_some()) {
            return bad(
                "checkpoint-dir",
                "--checkpoint-every and --checkpoint-wall need a directory to write to".into(),
            );
        }
        Ok(())
    }

    /// Creates the checkpoint directory (before a run: a bad path should not cost one).
    pub(crate) fn make_dir(&self) -> Result<(), Error> {
        match &self.dir {
            Some(dir) => std::fs::create_dir_all(dir).map_err(|e| Error::Checkpoint {
                path: dir.display().to_string(),
                problem: format!("cannot create the checkpoint directory: {e}"),
            }),
            None => Ok(()),
        }
    }

    /// The first mark strictly after virtual time `t` (`INFINITY`: none).
    pub(crate) fn next_mark(&self, t: f64) -> f64 {
        match self.every {
            Some(v) => {
                let m = ((t / v).floor() + 1.0) * v;
                // Guard against rounding: a mark is always past `t`.
                if m > t {
                    m
                } else {
                    m + v
                }
            }
            None => f64::INFINITY,
        }
    }
}

/// The header of a checkpoint of `snap`.
pub(crate) fn header<M: Model>(plan: &Plan, cfg: &Config, model: &str, snap: &Snapshot<M>, ranks: u64) -> Header {
    Header {
        format: FORMAT_VERSION,
        engine: env!("CARGO_PKG_VERSION").to_string(),
        model: model.to_string(),
        params: plan.params.clone(),
        params_hash: params_hash(&plan.params),
        command: plan.command.clone(),
        seed: cfg.seed,
        cut: snap.cut,
        end: cfg.end,
        lps: snap.lps.len() as u64,
        events: snap.events.len() as u64,
        committed_events: snap.stats.committed_events,
        sync: cfg.sync.name().to_string(),
        threads: cfg.threads,
        ranks,
        digest_version: crate::digest::DIGEST_VERSION,
        inputs: Some(plan.inputs.clone()),
    }
}
