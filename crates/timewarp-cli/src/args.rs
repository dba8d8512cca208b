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
    /// Picks sequential, conservative or optimistic from --threads, --pes and the model's lookahead; says which and why.
    Auto,
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
    /// Worker threads, 1 to 4096 (parallel modes only; per process under
    /// mpirun; conservative runs one PE per worker).
    #[arg(long, default_value_t = 1, value_parser = whole::<u32>(1, 4096), allow_negative_numbers = true)]
    pub threads: u32,
    /// Optimistic PEs (partitions of the LPs) per process, at least --threads;
    /// the worker threads run them as --scheduling says [default: --threads].
    #[arg(long, value_name = "M", value_parser = whole::<u32>(1, 65_536), allow_negative_numbers = true,
          help_heading = "Scheduling (optimistic)")]
    pub pes: Option<u32>,
    /// Which worker runs which PE: fixed (worker i runs PEs i, i+N, ...), dynamic (any
    /// free PE, round robin), adaptive (dynamic; a worker the OS deschedules
    /// sleeps), ladm (fixed; a sleeping worker's PEs are helped by the others).
    #[arg(long, value_name = "POLICY", default_value = "fixed",
          value_parser = choice::<timewarp::Scheduling>(&["fixed", "dynamic", "adaptive", "ladm"]),
          help_heading = "Scheduling (optimistic)")]
    pub scheduling: timewarp::Scheduling,
    /// Adaptive policies: a worker whose time per event is this many times
    /// the median of the other workers', twice in a row, deactivates.
    #[arg(long, value_name = "RATIO", default_value_t = 1.8, value_parser = positive_f64,
          allow_negative_numbers = true, help_heading = "Scheduling (optimistic)")]
    pub apte_threshold: f64,
    /// Adaptive policies: iterations between two measurements of a worker's
    /// time per event [default: gvt-interval / 4, at least 1,024 events' worth].
    #[arg(long, value_name = "ITERATIONS", value_parser = whole::<u32>(1, u32::MAX as u64),
          allow_negative_numbers = true, help_heading = "Scheduling (optimistic)")]
    pub detect_every: Option<u32>,
    /// Adaptive policies: iterations of each active worker between two
    /// reactivations of a sleeping one (doubling while woken workers are
    /// deactivated again at once) [default: 40 × detect-every].
    #[arg(long, value_name = "ITERATIONS", value_parser = whole::<u32>(1, u32::MAX as u64),
          allow_negative_numbers = true, help_heading = "Scheduling (optimistic)")]
    pub reactivate_every: Option<u32>,
    /// ladm: iterations a worker runs on an orphan PE before going back to its own.
    #[arg(long, value_name = "ITERATIONS", default_value_t = 10, value_parser = whole::<u32>(1, u32::MAX as u64),
          allow_negative_numbers = true, help_heading = "Scheduling (optimistic)")]
    pub help_iterations: u32,
    /// Virtual end time; events at or after it are not processed.
    #[arg(long, value_parser = positive_f64, allow_negative_numbers = true)]
    pub end: Option<f64>,
    /// Seed of every random stream.
    #[arg(long, default_value_t = 1, value_parser = whole::<u64>(0, u64::MAX), allow_negative_numbers = true)]
    pub seed: u64,
    /// Pending-event queue structure.
    #[arg(long, value_enum, default_value_t = QueueArg::Ladder)]
    pub queue: QueueArg,
    /// Kernel processes per PE (rollback and fossil-collection unit; at most
    /// one per LP of a PE is used) [default: 16, fewer where a KP would
    /// serve fewer than 16 LPs].
    #[arg(long, value_name = "KPS", value_parser = whole::<u32>(1, u32::MAX as u64), allow_negative_numbers = true)]
    pub kps_per_pe: Option<u32>,
    /// Events a PE processes between looks at its inboxes and GVT.
    #[arg(long, default_value_t = 16, value_parser = whole::<u32>(1, u32::MAX as u64), allow_negative_numbers = true)]
    pub batch: u32,
    /// Batches between GVT rounds (a worker running several PEs asks once
    /// its PEs hold 128 KiB of records, and at the latest after this many
    /// batches per PE).
    #[arg(long, default_value_t = 16, value_parser = whole::<u32>(1, u32::MAX as u64), allow_negative_numbers = true)]
    pub gvt_interval: u32,
    /// Optimistic event buffers per PE beyond the sequential need
    /// (processed, uncommitted events; optimistic runs only)
    /// [default: 8 × batch × gvt-interval, then sized by the run].
    #[arg(long, value_name = "EVENTS", value_parser = whole::<u64>(0, u64::MAX), allow_negative_numbers = true)]
    pub event_memory: Option<u64>,
    /// Placement of LPs on PEs: block, random (a permutation from --seed), or
    /// a FILE with one PE number per LP, one per line, or a JSON list
    /// (PEs numbered over all processes). Never changes the results.
    #[arg(long, value_name = "block|random|FILE", default_value = "block")]
    pub mapping: String,
    /// How far beyond GVT a PE may speculate: auto (adaptive window),
    /// unbounded, or a fixed window T in virtual time (widened to 4 of the
    /// PE's events' virtual time where narrower).
    #[arg(long, value_name = "auto|unbounded|T", default_value = "auto", value_parser = optimism, allow_negative_numbers = true)]
    pub optimism: timewarp::Optimism,
    /// Keep every event speculative: do not commit at once the events no
    /// rollback can reach any more (below GVT moved on by the model's
    /// lookahead). Never changes the results; for measuring what
    /// speculation costs.
    #[arg(long)]
    pub no_safe_events: bool,
    /// Most events in a row at one virtual time (per PE) before the run is
    /// stopped as one whose time cannot advance (0: no limit).
    #[arg(long, value_name = "EVENTS", default_value_t = timewarp::MAX_EVENTS_AT_ONE_TIME,
          value_parser = whole::<u64>(0, u64::MAX), allow_negative_numbers = true)]
    pub max_events_at_one_time: u64,
    /// For measurement, not production: hold each message between MPI
    /// processes back by this one-way latency, emulating a cluster's links
    /// on one machine (optimistic runs of 2 or more processes; see
    /// docs/scaling.md). Never changes the results.
    #[arg(long, value_name = "MICROSECONDS", allow_negative_numbers = true, help_heading = "Measurement (MPI)")]
    pub emulate_latency: Option<f64>,
    /// For measurement: cap each MPI process' outbound bandwidth at this
    /// many GB/s (messages leave one after another), with or without
    /// --emulate-latency.
    #[arg(long, value_name = "GB_PER_S", allow_negative_numbers = true, help_heading = "Measurement (MPI)")]
    pub emulate_bandwidth: Option<f64>,
    /// Write statistics and model results as JSON to this file (`-`: standard
    /// output; the summary then goes to standard error).
    #[arg(long, value_name = "FILE")]
    pub stats_json: Option<PathBuf>,
    /// Write per-PE statistics as CSV to this file, one row per PE (`-`:
    /// standard output).
    #[arg(long, value_name = "FILE")]
    pub stats_csv: Option<PathBuf>,
    /// Write the GVT series as CSV to this file: gvt, wall (seconds since
    /// event processing began), committed (events so far), one row per GVT
    /// round (`-`: standard output).
    #[arg(long, value_name = "FILE")]
    pub gvt_csv: Option<PathBuf>,
    /// Write a timeline of the run to this file: per PE (and MPI rank)
    /// spans of event batches, rollbacks, GVT rounds, fossil collection and
    /// exchanges, in the Chrome trace-event format; open it in
    /// https://ui.perfetto.dev or chrome://tracing (`-`: standard output).
    #[arg(long, value_name = "FILE")]
    pub trace_out: Option<PathBuf>,
    /// Most spans --trace-out records, all PEs together (each PE gets an
    /// equal share; past it a PE stops recording and the trace says so)
    /// [default: 1000000].
    #[arg(long, value_name = "SPANS", value_parser = whole::<u64>(1, u64::MAX), allow_negative_numbers = true)]
    pub trace_limit: Option<u64>,
    /// Print nothing on success (errors still go to stderr).
    #[arg(long, short)]
    pub quiet: bool,
    /// What `--sync auto` chose ([`EngineArgs::resolve`]); `sync` then holds it.
    #[arg(skip)]
    pub auto: Option<crate::auto::Choice>,
    /// Write checkpoints here (ckpt-<GVT>.twc; continue one with `timewarp
    /// resume FILE`). Ctrl-C or SIGTERM then writes one at the next GVT and stops.
    #[arg(long, value_name = "DIR", help_heading = "Checkpoints")]
    pub checkpoint_dir: Option<PathBuf>,
    /// A checkpoint at the first GVT at or past every multiple of this virtual time.
    #[arg(long, value_name = "T", value_parser = positive_f64, allow_negative_numbers = true, help_heading = "Checkpoints")]
    pub checkpoint_every: Option<f64>,
    /// A checkpoint every this many wall-clock seconds (at the next GVT; one process only).
    #[arg(long, value_name = "SECONDS", value_parser = positive_f64, allow_negative_numbers = true, help_heading = "Checkpoints")]
    pub checkpoint_wall: Option<f64>,
    /// How many checkpoint files to keep in --checkpoint-dir (the newest).
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = whole::<u32>(1, u32::MAX as u64),
          allow_negative_numbers = true, help_heading = "Checkpoints")]
    pub checkpoint_keep: u32,
    /// Profile the run into FILE for `timewarp partition`: per LP committed
    /// events and handler time, per LP pair committed messages (METIS graph
    /// format with a JSON header). Sequential runs in one process only.
    #[arg(long, value_name = "FILE")]
    pub profile_out: Option<PathBuf>,
}

impl EngineArgs {
    /// The most spans a timeline trace records (`--trace-limit`).
    pub(crate) fn trace_limit(&self) -> usize {
        self.trace_limit.map_or(timewarp::timeline::DEFAULT_LIMIT, |n| n.min(usize::MAX as u64) as usize)
    }

    /// The end time (each model sets the default of --end, see `ModelCmd`).
    pub(crate) fn end(&self) -> f64 {
        self.end.unwrap_or(timewarp::Config::default().end)
    }

    /// The engine configuration these options describe, for a run of
    /// `model` with `lps` LPs: a mapping file made by `timewarp partition`
    /// for another model or LP count is refused.
    pub(crate) fn config_for(&self, model: &str, lps: u32) -> Result<timewarp::Config, String> {
        let sync = match self.sync {
            SyncArg::Sequential => timewarp::SyncMode::Sequential,
            SyncArg::Check => timewarp::SyncMode::Check,
            SyncArg::Optimistic => timewarp::SyncMode::Optimistic,
            SyncArg::Conservative => timewarp::SyncMode::Conservative,
            // `resolve` runs first on every path; an error, not a guess, if one forgets it.
            SyncArg::Auto => return Err("internal error: --sync auto was not resolved to a mode".into()),
        };
        let cfg = timewarp::Config {
            sync,
            threads: self.threads as usize,
            pes: self.pes.map(|p| p as usize),
            scheduling: self.scheduling,
            adaptivity: timewarp::Adaptivity {
                threshold: self.apte_threshold,
                detect: self.detect_every.map(|d| d as usize),
                reactivate: self.reactivate_every.map(|r| r as usize),
                help: self.help_iterations as usize,
                ..Default::default()
            },
            end: self.end(),
            seed: self.seed,
            queue: match self.queue {
                QueueArg::Ladder => timewarp::QueueKind::Ladder,
                QueueArg::Heap => timewarp::QueueKind::Heap,
            },
            progress: !self.quiet,
            progress_sink: None,
            kps_per_pe: self.kps_per_pe.map_or(timewarp::Config::default().kps_per_pe, |k| k as usize),
            // Asked for: exactly that many (at most one per LP).
            min_lps_per_kp: if self.kps_per_pe.is_some() { 1 } else { timewarp::Config::default().min_lps_per_kp },
            batch: self.batch as usize,
            gvt_interval: self.gvt_interval as usize,
            event_memory: self.event_memory.map(|m| m.min(usize::MAX as u64) as usize),
            optimism: self.optimism,
            safe_events: !self.no_safe_events,
            trace_lp: None,
            timeline: self.trace_out.as_ref().map(|_| self.trace_limit()),
            max_events_at_one_time: self.max_events_at_one_time,
            mapping: self.mapping(model, lps)?,
            link: timewarp::LinkEmulation {
                latency_us: self.emulate_latency.unwrap_or(0.0),
                bandwidth_gbs: self.emulate_bandwidth,
            },
        };
        cfg.validate().map_err(|e| describe(&e))?;
        Ok(cfg)
    }
}

impl EngineArgs {
    /// These options with `--sync auto` replaced by the mode it picks for
    /// `model` on `processes` processes (`crate::auto`), the choice kept in
    /// `auto`; other modes as given. `parallel`: verify's parallel run.
    pub(crate) fn resolve<M: timewarp::Model>(&self, model: &M, processes: usize, parallel: bool) -> EngineArgs {
        let mut e = self.clone();
        if e.sync == SyncArg::Auto {
            let r = crate::auto::Resources { threads: e.threads, pes: e.pes, processes, end: e.end(), parallel };
            let c = crate::auto::choose(model, r);
            e.sync = match c.mode {
                timewarp::SyncMode::Conservative => SyncArg::Conservative,
                timewarp::SyncMode::Optimistic => SyncArg::Optimistic,
                _ => SyncArg::Sequential,
            };
            e.auto = Some(c);
        }
        e
    }

    /// When and where to write checkpoints; `command` is what followed
    /// `timewarp run` (stored so a resume can rebuild the model), `identity`
    /// the model's parameters (a resume must have the same).
    pub(crate) fn plan(
        &self,
        command: &[String],
        identity: serde_json::Value,
    ) -> Result<timewarp::checkpoint::Plan, String> {
        let plan = timewarp::checkpoint::Plan {
            dir: self.checkpoint_dir.clone(),
            every: self.checkpoint_every,
            wall: self.checkpoint_wall,
            keep: self.checkpoint_keep as usize,
            params: identity,
            command: command.to_vec(),
            inputs: Vec::new(),
        };
        plan.validate().map_err(|e| describe(&e))?;
        Ok(plan)
    }

    /// Notes on options this run will not use as given (on stderr; none with `--quiet`).
    pub(crate) fn notes(&self, cfg: &timewarp::Config, num_lps: u32, pes: usize) -> Vec<String> {
        let mut notes = Vec::new();
        if self.quiet {
            return notes;
        }
        let optimistic = cfg.sync == timewarp::SyncMode::Optimistic;
        if self.event_memory.is_some() && !optimistic {
            notes.push(format!(
                "note: --event-memory applies to optimistic runs only; ignored with --sync {}",
                cfg.sync.name()
            ));
        }
        // Below the events a PE processes between two GVT rounds it asks for, the
        // budget runs out before each round: the PE stalls until GVT advances.
        let round = cfg.batch.saturating_mul(cfg.gvt_interval);
        if optimistic && self.event_memory.is_some() && cfg.event_memory_per_pe() < round {
            notes.push(format!(
                "note: --event-memory {} is below the {round} events a PE processes between GVT rounds (--batch × \
                 --gvt-interval): it throttles speculation and slows the run; the default is {}",
                cfg.event_memory_per_pe(),
                timewarp::EVENT_MEMORY_FACTOR.saturating_mul(round)
            ));
        }
        if cfg.scheduling != timewarp::Scheduling::default() && !optimistic {
            notes.push(format!(
                "note: --scheduling applies to optimistic runs only; ignored with --sync {}",
                cfg.sync.name()
            ));
        }
        if self.trace_limit.is_some() && self.trace_out.is_none() {
            notes.push("note: --trace-limit bounds the --trace-out timeline; ignored without --trace-out".into());
        }
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        if cfg.threads > 4 * cores {
            notes.push(format!(
                "warning: --threads {} on {cores} cores: workers take turns on the cores and wait for each other \
                 (start-up, GVT rounds); use at most {cores} for speed",
                cfg.threads
            ));
        }
        let kps = cfg.kps_in_use(num_lps, pes);
        if self.kps_per_pe.is_some() && optimistic && kps < cfg.kps_per_pe {
            notes.push(format!(
                "note: --kps-per-pe {} is more than the {kps} LPs of a PE; using {kps} KPs per PE",
                cfg.kps_per_pe
            ));
        }
        notes
    }

    /// The files the engine options make a run read: a `--mapping` file.
    pub(crate) fn inputs(&self) -> Vec<timewarp::checkpoint::InputFiles> {
        match self.mapping.as_str() {
            "block" | "random" => Vec::new(),
            path => vec![timewarp::checkpoint::InputFiles::new(format!("--mapping {path}"), vec![path.into()])],
        }
    }

    fn mapping(&self, model: &str, lps: u32) -> Result<timewarp::Mapping, String> {
        match self.mapping.as_str() {
            "block" => Ok(timewarp::Mapping::Block),
            "random" => Ok(timewarp::Mapping::Random),
            path => {
                let text = std::fs::read_to_string(path).map_err(|e| {
                    format!("--mapping {path}: cannot read the mapping file ({e}); give block, random or a file")
                })?;
                if let Some(o) = timewarp::partition::mapping_origin(&text) {
                    if o.model != model || o.lps != lps {
                        return Err(format!(
                            "--mapping {path} was made (scheme {}) from a profile of {} with {} LPs, but this run \
                             is {model} with {lps} LPs; profile this model (--profile-out) and partition that",
                            timewarp::text::printable(&o.scheme),
                            timewarp::text::printable(&o.model),
                            o.lps
                        ));
                    }
                }
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

/// A parser of whole numbers in `min..=max` whose message says the range
/// (clap's own integer parsers say "invalid digit found in string" for -5).
pub(crate) fn whole<T>(min: u64, max: u64) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static
where
    T: TryFrom<u64> + Clone + Send + Sync + 'static,
{
    move |s: &str| {
        let range = if max == u64::MAX { format!(">= {min}") } else { format!("from {min} to {max}") };
        let v: i128 = s.trim().parse().map_err(|_| format!("must be a whole number {range}, got '{s}'"))?;
        if v < min as i128 || v > max as i128 {
            return Err(format!("must be a whole number {range}, got {v}"));
        }
        T::try_from(v as u64).map_err(|_| format!("must be a whole number {range}, got {v}"))
    }
}

/// A parser that accepts exactly `names` (clap lists them and suggests the
/// nearest on a typo) and converts the name with `T`'s `FromStr`.
pub(crate) fn choice<T>(names: &'static [&'static str]) -> impl clap::builder::TypedValueParser<Value = T>
where
    T: std::str::FromStr<Err = String> + Clone + Send + Sync + 'static,
{
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(names).try_map(|s| s.parse::<T>())
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

/// A finite number >= 0 (the shipped models' options).
#[cfg_attr(not(feature = "models"), allow(dead_code))]
pub(crate) fn non_negative_f64(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("'{s}' is not a number"))?;
    if v.is_finite() && v >= 0.0 {
        Ok(v)
    } else {
        Err(format!("must be a finite number >= 0, got {s}"))
    }
}

/// A probability in [0, 1] (the shipped models' options).
#[cfg_attr(not(feature = "models"), allow(dead_code))]
pub(crate) fn probability(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("'{s}' is not a number"))?;
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("must be a probability in [0, 1], got {s}"))
    }
}

/// `os` with the engine's switches given a value as clap takes them:
/// `--quiet=true` as `--quiet`, `--quiet=false` left out (a script can pass
/// `--quiet=$QUIET`; clap's switches take no value).
pub(crate) fn switches(os: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let flags: Vec<String> = EngineArgs::augment_args(clap::Command::new("engine"))
        .get_arguments()
        .filter(|a| matches!(a.get_action(), clap::ArgAction::SetTrue))
        .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
        .collect();
    let mut out = Vec::with_capacity(os.len());
    let mut rest = false; // after `--`: values, not options
    for t in os {
        let switch =
            t.to_str().filter(|_| !rest).and_then(|s| s.split_once('=')).filter(|(f, _)| flags.iter().any(|x| x == f));
        rest |= t == "--";
        match switch {
            Some((f, "true")) => out.push(std::ffi::OsString::from(f)),
            Some((_, "false")) => {}
            _ => out.push(t),
        }
    }
    out
}
