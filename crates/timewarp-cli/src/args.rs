//! Command-line options shared by every model (`#[command(flatten)]`-ed into each).

use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// Synchronisation modes offered on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum SyncArg {
    /// One queue, no rollback: the baseline.
    Sequential,
    /// Sequential with every event run forward, reversed, compared and re-run.
    Check,
    /// Time Warp on --threads worker threads (speculate, roll back, commit below GVT).
    Optimistic,
    /// Lookahead windows on --threads worker threads (no rollback; needs a positive lookahead).
    Conservative,
}

/// Pending-queue structures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum QueueArg {
    /// Ladder queue with adaptive bucket widths (fastest measured).
    Ladder,
    /// 4-ary heap.
    Heap,
}

/// Engine options.
#[derive(Args, Debug, Clone)]
pub(crate) struct EngineArgs {
    /// Synchronisation mode.
    #[arg(long, value_enum, default_value_t = SyncArg::Sequential)]
    pub sync: SyncArg,
    /// Worker threads (parallel modes only).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub threads: u32,
    /// Virtual end time; events at or after it are not processed [default: the model's].
    #[arg(long, value_parser = positive_f64, allow_negative_numbers = true)]
    pub end: Option<f64>,
    /// Seed of every random stream.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Pending-event queue structure.
    #[arg(long, value_enum, default_value_t = QueueArg::Ladder)]
    pub queue: QueueArg,
    /// Kernel processes per PE (rollback and fossil-collection unit).
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..))]
    pub kps_per_pe: u32,
    /// Events a PE processes between looks at its inboxes and GVT.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..))]
    pub batch: u32,
    /// Batches between GVT rounds.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..))]
    pub gvt_interval: u32,
    /// Optimistic event buffers per PE beyond the sequential need
    /// (processed, uncommitted events) [default: 8 × batch × gvt-interval].
    #[arg(long, value_name = "EVENTS")]
    pub event_memory: Option<u64>,
    /// Placement of LPs on PEs: block, random (a permutation from --seed), or
    /// a FILE with one PE number per LP, one per line, or a JSON list
    /// (PEs numbered over all processes). Never changes the results.
    #[arg(long, value_name = "block|random|FILE", default_value = "block")]
    pub mapping: String,
    /// How far beyond GVT a PE may speculate: auto (adaptive window),
    /// unbounded, or a fixed window T in virtual time.
    #[arg(long, value_name = "auto|unbounded|T", default_value = "auto", value_parser = optimism, allow_negative_numbers = true)]
    pub optimism: timewarp::Optimism,
    /// Write statistics and model results as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub stats_json: Option<PathBuf>,
    /// Print nothing on success (errors still go to stderr).
    #[arg(long, short)]
    pub quiet: bool,
}

impl EngineArgs {
    /// The parallel configuration `verify` compares with sequential
    /// (`--sync sequential`, the default, means optimistic here).
    pub(crate) fn config_for_verify(&self, default_end: f64) -> Result<timewarp::Config, String> {
        let mut a = self.clone();
        if a.sync == SyncArg::Sequential {
            a.sync = SyncArg::Optimistic;
        }
        a.config(default_end)
    }

    /// The engine configuration these options describe.
    pub(crate) fn config(&self, default_end: f64) -> Result<timewarp::Config, String> {
        let sync = match self.sync {
            SyncArg::Sequential => timewarp::SyncMode::Sequential,
            SyncArg::Check => timewarp::SyncMode::Check,
            SyncArg::Optimistic => timewarp::SyncMode::Optimistic,
            SyncArg::Conservative => timewarp::SyncMode::Conservative,
        };
        let cfg = timewarp::Config {
            sync,
            threads: self.threads as usize,
            end: self.end.unwrap_or(default_end),
            seed: self.seed,
            queue: match self.queue {
                QueueArg::Ladder => timewarp::QueueKind::Ladder,
                QueueArg::Heap => timewarp::QueueKind::Heap,
            },
            progress: !self.quiet,
            kps_per_pe: self.kps_per_pe as usize,
            batch: self.batch as usize,
            gvt_interval: self.gvt_interval as usize,
            event_memory: self.event_memory.map(|m| m.min(usize::MAX as u64) as usize),
            optimism: self.optimism,
            trace_lp: None,
            mapping: self.mapping()?,
        };
        cfg.validate().map_err(|e| describe(&e))?;
        Ok(cfg)
    }
}

impl EngineArgs {
    fn mapping(&self) -> Result<timewarp::Mapping, String> {
        match self.mapping.as_str() {
            "block" => Ok(timewarp::Mapping::Block),
            "random" => Ok(timewarp::Mapping::Random),
            path => {
                let text = std::fs::read_to_string(path).map_err(|e| {
                    format!("--mapping {path}: cannot read the mapping file ({e}); give block, random or a file")
                })?;
                timewarp::Mapping::parse_table(&text).map_err(|e| format!("--mapping {path}: {e}"))
            }
        }
    }
}

/// An engine error as the command line says it: a bad configuration field
/// is named by its flag (`threads` -> `--threads`).
pub(crate) fn describe(e: &timewarp::Error) -> String {
    match e {
        timewarp::Error::Option { option, problem } => {
            format!("invalid configuration: --{}: {problem}", option.replace('_', "-"))
        }
        e => e.to_string(),
    }
}

/// `auto`, `unbounded` or a finite window >= 0.
pub(crate) fn optimism(s: &str) -> Result<timewarp::Optimism, String> {
    s.parse()
}

/// A finite number > 0.
pub(crate) fn positive_f64(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("'{s}' is not a number"))?;
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(format!("must be a finite number > 0, got {s}"))
    }
}

/// A finite number >= 0.
pub(crate) fn non_negative_f64(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("'{s}' is not a number"))?;
    if v.is_finite() && v >= 0.0 {
        Ok(v)
    } else {
        Err(format!("must be a finite number >= 0, got {s}"))
    }
}

/// A probability in [0, 1].
pub(crate) fn probability(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("'{s}' is not a number"))?;
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("must be a probability in [0, 1], got {s}"))
    }
}
