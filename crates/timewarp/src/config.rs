//! Run configuration shared by every kernel.

use crate::error::Error;
use crate::layout::Layout;
use crate::mapping::{Mapping, Placement};
use crate::queue::QueueKind;
use serde::Serialize;

/// Synchronisation mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum SyncMode {
    /// One event queue, no rollback machinery: the baseline.
    #[default]
    Sequential,
    /// Sequential, but every event is run forward, reversed, compared with a
    /// snapshot of the LP state, and run again (ROSS's optimistic debug).
    Check,
    /// Time Warp on `threads` worker threads: speculate, roll back stragglers,
    /// cancel with anti-messages, commit below GVT.
    Optimistic,
    /// Lookahead windows on `threads` worker threads (YAWNS): no rollback;
    /// needs a model with a positive lookahead.
    Conservative,
}

impl SyncMode {
    /// The name used on the command line and in statistics.
    pub fn name(&self) -> &'static str {
        match self {
            SyncMode::Sequential => "sequential",
            SyncMode::Check => "check",
            SyncMode::Optimistic => "optimistic",
            SyncMode::Conservative => "conservative",
        }
    }
}

/// How to run a model.
///
/// ```
/// let cfg = timewarp::Config { end: 50.0, seed: 7, ..Default::default() };
/// assert!(cfg.validate().is_ok());
/// ```
#[derive(Clone, Debug, Serialize)]
pub struct Config {
    /// Synchronisation mode.
    pub sync: SyncMode,
    /// Worker threads (parallel modes; per process under MPI).
    pub threads: usize,
    /// Optimistic PEs per process: the partitions of the LPs, which the
    /// `threads` workers run as [`scheduling`](Self::scheduling) says.
    /// `None`: one per worker. At least `threads`; other modes run one PE
    /// per worker.
    pub pes: Option<usize>,
    /// Which worker runs which PE (optimistic mode).
    pub scheduling: Scheduling,
    /// The adaptive policies' detection and help parameters.
    pub adaptivity: Adaptivity,
    /// Virtual end time: events at or after it are not processed.
    pub end: f64,
    /// Seed of every random stream.
    pub seed: u64,
    /// Pending-queue structure.
    pub queue: QueueKind,
    /// Show progress (virtual time / end time) on stderr when it is a terminal.
    pub progress: bool,
    /// Where the run also reports its progress (virtual time against end
    /// time), terminal or not, for another thread to read while it runs
    /// (an embedding program's progress bar); `None` (the default): nowhere.
    /// Never changes what is committed.
    #[serde(skip)]
    pub progress_sink: Option<crate::ProgressSink>,
    /// Kernel processes per PE (the unit of rollback and fossil collection):
    /// the most a PE uses (see [`min_lps_per_kp`](Self::min_lps_per_kp)).
    pub kps_per_pe: usize,
    /// The fewest LPs a KP serves: a PE of few LPs uses fewer than
    /// [`kps_per_pe`](Self::kps_per_pe) KPs, at least one. ROSS sizes a KP
    /// at 16 to 256 LPs ("ROSS: A High-Performance, Low Memory, Modular
    /// Time Warp System", §3.4: fewer, longer lists cost fossil collection
    /// less). Below 16 LPs a KP is nearly an LP's own list, and a PE's many
    /// short lists, each written at its own place, cost it its cache (the
    /// 1,056-node dragonfly on 16 PEs, 16.5 LPs each: 16 KPs 1.59 ×
    /// sequential time, 1 KP 1.47 ×; see docs/history/performance-2026-11.md, eighth pass). 1: exactly
    /// `kps_per_pe` (at most one per LP), what `--kps-per-pe` asks for.
    pub min_lps_per_kp: usize,
    /// Events a PE processes between two looks at its inboxes and GVT.
    pub batch: usize,
    /// Scheduler iterations (batches) between GVT rounds a PE asks for (a
    /// worker running several PEs asks for them: once its PEs hold 128 KiB
    /// of records, and at the latest after this many iterations per PE).
    pub gvt_interval: usize,
    /// Optimistic event memory per PE: how many processed, not yet committed
    /// events a PE may hold beyond what the model needs sequentially. When it
    /// is used up the PE forces a GVT round and stops speculating until GVT
    /// advances. `None`: `EVENT_MEMORY_FACTOR × batch × gvt_interval`.
    pub event_memory: Option<usize>,
    /// How far beyond GVT (in virtual time) an optimistic PE may process.
    pub optimism: Optimism,
    /// Optimistic runs: an event that nothing can roll back any more, being
    /// below what other PEs can still send (GVT moved on by the model's
    /// [`lookahead`](crate::Model::lookahead)), is committed as it is
    /// processed, with nothing kept to undo it. Never changes what is
    /// committed; `false` keeps every event speculative (to measure what
    /// speculation costs). Default `true`.
    pub safe_events: bool,
    /// Record the committed events of this LP in the report (for `verify`).
    pub trace_lp: Option<u32>,
    /// Record a timeline of at most this many spans, all PEs together, in
    /// [`Report::timeline`](crate::Report::timeline) (see
    /// [`timeline`](crate::timeline)); `None`: no timeline (the default).
    /// Never changes what is committed. A run with a checkpoint plan
    /// ([`Run::plan`](crate::Run::plan)) reports the timeline of its last
    /// segment only.
    pub timeline: Option<usize>,
    /// Placement of LPs on PEs (never changes what is committed).
    pub mapping: Mapping,
    /// Most events committed in a row at one virtual time before the run
    /// stops with [`Error::Stalled`](crate::Error::Stalled): a run whose time
    /// stopped advancing would otherwise never end. 0: no limit. In a
    /// parallel run the count is per PE.
    pub max_events_at_one_time: u64,
    /// For measurement only: an optimistic run across MPI processes holds
    /// each message between processes back as a link of this latency and
    /// bandwidth would (a cluster emulated on one machine). Never changes
    /// what is committed. Default: off.
    pub link: LinkEmulation,
}

/// A cluster's link, emulated between the MPI processes of one machine
/// (`--emulate-latency`, `--emulate-bandwidth`; for measurement, not for
/// production runs): a message of `n` bytes arrives `latency + n /
/// bandwidth` after it left, each process' messages leaving one after
/// another.
///
/// ```
/// let ib = timewarp::LinkEmulation { latency_us: 2.0, bandwidth_gbs: Some(12.5) };
/// assert!(ib.is_on() && !timewarp::LinkEmulation::default().is_on());
/// let cfg = timewarp::Config { link: ib, sync: timewarp::SyncMode::Optimistic, ..Default::default() };
/// assert!(cfg.validate().is_ok());
/// // Only the optimistic courier holds messages back.
/// assert!(timewarp::Config { link: ib, ..Default::default() }.validate().is_err());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct LinkEmulation {
    /// One-way latency of a message, in microseconds (0: none).
    pub latency_us: f64,
    /// Outbound bandwidth of each process, in GB/s (`None`: no cap).
    pub bandwidth_gbs: Option<f64>,
}

impl LinkEmulation {
    /// Whether it delays anything.
    pub fn is_on(&self) -> bool {
        self.latency_us > 0.0 || self.bandwidth_gbs.is_some()
    }

    /// The option that turned it on, for errors (the latency's if both did).
    pub(crate) fn option(&self) -> &'static str {
        if self.latency_us > 0.0 {
            "emulate_latency"
        } else {
            "emulate_bandwidth"
        }
    }

    fn check(&self) -> Result<(), (&'static str, String)> {
        if !(self.latency_us.is_finite() && self.latency_us >= 0.0 && self.latency_us <= 1e6) {
            return Err((
                "emulate_latency",
                format!("a latency must be between 0 and 1,000,000 microseconds, got {}", self.latency_us),
            ));
        }
        match self.bandwidth_gbs {
            Some(b) if !(b.is_finite() && b >= 1e-6) => Err((
                "emulate_bandwidth",
                format!("a bandwidth must be a finite number of GB/s, at least 0.000001 (1 kB/s), got {b}"),
            )),
            _ => Ok(()),
        }
    }
}

/// Default of [`Config::max_events_at_one_time`].
pub const MAX_EVENTS_AT_ONE_TIME: u64 = 10_000_000;

/// How far an optimistic PE may speculate beyond GVT (`--optimism`).
///
/// ```
/// use timewarp::Optimism;
/// assert_eq!("auto".parse::<Optimism>(), Ok(Optimism::Auto));
/// assert_eq!("2.5".parse::<Optimism>(), Ok(Optimism::Window(2.5)));
/// assert!("-1".parse::<Optimism>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Optimism {
    /// An adaptive window (POSE's speculative window): after a GVT round
    /// with rollbacks it shrinks to their average distance from GVT,
    /// after a round without it doubles.
    #[default]
    Auto,
    /// No window: a PE processes any pending event (memory still bounded).
    Unbounded,
    /// A fixed window: only events at most this far beyond GVT are
    /// processed; a PE widens it to the virtual time of a few of its
    /// events where it is narrower (a window of less than an event's time
    /// would cost a GVT round per event).
    Window(f64),
}

impl Optimism {
    /// The name used on the command line.
    pub fn name(&self) -> String {
        match self {
            Optimism::Auto => "auto".into(),
            Optimism::Unbounded => "unbounded".into(),
            Optimism::Window(t) => t.to_string(),
        }
    }

    /// A window must be a finite virtual time >= 0.
    fn check(&self) -> Result<(), String> {
        match self {
            Optimism::Window(t) if !(t.is_finite() && *t >= 0.0) => Err(format!(
                "the optimism window must be a finite virtual time >= 0 beyond GVT (or auto, or unbounded), got {t}"
            )),
            _ => Ok(()),
        }
    }
}

impl std::str::FromStr for Optimism {
    type Err = String;

    /// `auto`, `unbounded`, or a finite window T >= 0 in virtual time.
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(Optimism::Auto),
            "unbounded" => Ok(Optimism::Unbounded),
            _ => {
                let t: f64 =
                    s.parse().map_err(|_| format!("'{s}' is neither auto, unbounded nor a window in virtual time"))?;
                let w = Optimism::Window(t);
                w.check()?;
                Ok(w)
            }
        }
    }
}

/// Which worker thread runs which optimistic PE (`--scheduling`), after the
/// multicore report's section 3.5. Every policy commits the same events;
/// they differ in how a run copes with a worker the operating system
/// deschedules (another process on the same cores).
///
/// ```
/// use timewarp::Scheduling;
/// assert_eq!("ladm".parse::<Scheduling>(), Ok(Scheduling::Ladm));
/// assert_eq!(Scheduling::Dynamic.name(), "dynamic");
/// assert!("round-robin".parse::<Scheduling>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Scheduling {
    /// FM: worker `w` runs PEs `w`, `w + threads`, … and no other.
    #[default]
    Fixed,
    /// DM: every iteration a worker moves on, round robin, to the next PE
    /// no other worker is running.
    Dynamic,
    /// ADM: dynamic, and a worker whose time per event is far above the
    /// others' (descheduled by the OS) deactivates until reactivated.
    Adaptive,
    /// LADM: fixed while all is well; a deactivated worker's PEs become
    /// orphans that the active workers help when they fall behind.
    Ladm,
}

impl Scheduling {
    /// Every policy, in the order the command line lists them.
    pub const ALL: [Scheduling; 4] = [Scheduling::Fixed, Scheduling::Dynamic, Scheduling::Adaptive, Scheduling::Ladm];

    /// The name used on the command line and in statistics.
    pub fn name(&self) -> &'static str {
        match self {
            Scheduling::Fixed => "fixed",
            Scheduling::Dynamic => "dynamic",
            Scheduling::Adaptive => "adaptive",
            Scheduling::Ladm => "ladm",
        }
    }

    /// Whether workers deactivate when their time per event says they were descheduled.
    pub fn adapts(&self) -> bool {
        matches!(self, Scheduling::Adaptive | Scheduling::Ladm)
    }
}

impl std::str::FromStr for Scheduling {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Scheduling::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| format!("'{s}' is not a scheduling policy; use fixed, dynamic, adaptive or ladm"))
    }
}

/// Parameters of the adaptive policies.
///
/// The threshold and the help period are the multicore report's (1.8, 10
/// iterations). Its detection period, a quarter of the GVT interval, is
/// 64 events with our defaults: two undisturbed workers' times per event
/// over 64 events ranged 340–820 ns (5th–99th percentile) on the
/// development machine, so 1.8 tripped dozens of times a run without any
/// other process. The period is therefore at least [`DETECT_EVENTS`]
/// events' worth of batches (a descheduled worker still stands out: a time
/// slice of a few milliseconds is several times a period), and the
/// reactivation period keeps the report's ratio to it, 40.
///
/// ```
/// let a = timewarp::Adaptivity::default();
/// assert_eq!(a.threshold, 1.8);
/// assert_eq!(a.detect_every(16, 16), 64);       // 1,024 events in batches of 16
/// assert_eq!(a.detect_every(1024, 16), 256);    // T_gvt / 4 when that is longer
/// assert_eq!(a.reactivate_every(16, 16), 2560); // 40 detection periods
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Adaptivity {
    /// A worker whose average processing time per event (APTE) is the
    /// largest and more than this many times the median of the other
    /// active workers', two measurements in a row, deactivates.
    pub threshold: f64,
    /// Scheduler iterations between two APTE measurements of a worker
    /// (`None`: see [`Adaptivity::detect_every`]).
    pub detect: Option<usize>,
    /// Iterations of the active workers, each, between two reactivations
    /// of an inactive worker (`None`: 40 detection periods).
    pub reactivate: Option<usize>,
    /// Iterations a LADM worker runs on an orphan PE before it goes back to its own.
    pub help: usize,
    /// Test hook: worker `.0` deactivates after `.1` iterations and stays
    /// inactive (no reactivation) until the run ends; no other worker
    /// deactivates.
    #[doc(hidden)]
    pub force_deactivate: Option<(usize, u64)>,
    /// Test hook: worker `.0` sleeps `.2` milliseconds once, after `.1`
    /// iterations, holding whatever PE it runs (a worker the OS descheduled).
    #[doc(hidden)]
    pub stall: Option<(usize, u64, u64)>,
}

/// Events a default APTE measurement period covers at least.
pub const DETECT_EVENTS: usize = 1024;

impl Default for Adaptivity {
    fn default() -> Self {
        Adaptivity { threshold: 1.8, detect: None, reactivate: None, help: 10, force_deactivate: None, stall: None }
    }
}

impl Adaptivity {
    /// Iterations between APTE measurements for a GVT interval of
    /// `gvt_interval` iterations of `batch` events: a quarter of the GVT
    /// interval, but at least [`DETECT_EVENTS`] events.
    pub fn detect_every(&self, gvt_interval: usize, batch: usize) -> usize {
        self.detect.unwrap_or((gvt_interval / 4).max(DETECT_EVENTS.div_ceil(batch.max(1)))).max(1)
    }

    /// Iterations between reactivations (40 detection periods unless set).
    pub fn reactivate_every(&self, gvt_interval: usize, batch: usize) -> usize {
        self.reactivate.unwrap_or(self.detect_every(gvt_interval, batch).saturating_mul(40)).max(1)
    }

    /// The option at fault and what is wrong with it.
    fn check(&self) -> Result<(), (&'static str, String)> {
        if !(self.threshold.is_finite() && self.threshold > 1.0) {
            return Err((
                "apte_threshold",
                format!("the APTE threshold must be a finite ratio > 1 (the report uses 1.8), got {}", self.threshold),
            ));
        }
        for (option, v) in
            [("detect_every", self.detect), ("reactivate_every", self.reactivate), ("help_iterations", Some(self.help))]
        {
            if v == Some(0) {
                return Err((option, "must be at least 1 (an iteration count)".into()));
            }
        }
        Ok(())
    }
}

/// Default [`Config::min_lps_per_kp`]: ROSS's smallest KP.
pub const MIN_LPS_PER_KP: usize = 16;

/// Default optimistic memory is this many times `batch × gvt_interval` (ROSS's C).
pub const EVENT_MEMORY_FACTOR: usize = 8;

/// Most events a PE's arena can hold (handles are `u32`).
const MAX_EVENT_MEMORY: usize = u32::MAX as usize - 1;

impl Default for Config {
    fn default() -> Self {
        Config {
            sync: SyncMode::Sequential,
            threads: 1,
            pes: None,
            scheduling: Scheduling::default(),
            adaptivity: Adaptivity::default(),
            end: 20.0,
            seed: 1,
            queue: QueueKind::default(),
            progress: false,
            progress_sink: None,
            kps_per_pe: 16,
            min_lps_per_kp: MIN_LPS_PER_KP,
            batch: 16,
            gvt_interval: 16,
            event_memory: None,
            optimism: Optimism::Auto,
            safe_events: true,
            trace_lp: None,
            timeline: None,
            mapping: Mapping::Block,
            max_events_at_one_time: MAX_EVENTS_AT_ONE_TIME,
            link: LinkEmulation::default(),
        }
    }
}

impl Config {
    /// PEs per process: [`pes`](Self::pes), or one per worker thread.
    ///
    /// ```
    /// let cfg = timewarp::Config { threads: 2, pes: Some(8), ..Default::default() };
    /// assert_eq!(cfg.pes_per_process(), 8);
    /// assert_eq!(timewarp::Config { threads: 2, ..Default::default() }.pes_per_process(), 2);
    /// ```
    pub fn pes_per_process(&self) -> usize {
        self.pes.unwrap_or(self.threads)
    }

    /// Process `rank` of `ranks` of a run under this configuration: the
    /// optimistic mode runs [`pes_per_process`](Self::pes_per_process) PEs
    /// per process, the conservative one a PE per worker thread.
    pub(crate) fn layout(&self, rank: usize, ranks: usize) -> Layout {
        let pes = if self.sync == SyncMode::Optimistic { self.pes_per_process() } else { self.threads };
        Layout::new(rank, ranks, pes)
    }

    /// Places the `num_lps` LPs of a run on every PE of `layout` (all
    /// processes), with the KPs per PE its mode uses: `kps_per_pe` when
    /// optimistic, one when conservative (it never rolls back). The one
    /// place a kernel's placement is built.
    pub(crate) fn placement(&self, num_lps: u32, layout: &Layout) -> Result<Placement, Error> {
        let (kps, min_lps) =
            if self.sync == SyncMode::Optimistic { (self.kps_per_pe, self.min_lps_per_kp) } else { (1, 1) };
        Placement::new(&self.mapping, num_lps, layout.pes(), kps, min_lps, self.seed)
    }

    /// The optimistic event memory per PE this configuration gives.
    pub fn event_memory_per_pe(&self) -> usize {
        // Saturating: `validate` refuses a product that does not fit.
        self.event_memory.unwrap_or(EVENT_MEMORY_FACTOR.saturating_mul(self.batch).saturating_mul(self.gvt_interval))
    }

    /// The KPs per PE an optimistic run of `num_lps` LPs on `pes` PEs (over
    /// all processes) uses under the block mapping: `kps_per_pe`, or fewer
    /// where a PE holds fewer than `min_lps_per_kp` LPs per KP; at least one.
    ///
    /// ```
    /// let cfg = timewarp::Config::default();
    /// assert_eq!(cfg.kps_in_use(1 << 18, 16), 16); // 16,384 LPs a PE
    /// assert_eq!(cfg.kps_in_use(1024, 16), 4); // 64 LPs a PE: 16 a KP
    /// assert_eq!(cfg.kps_in_use(264, 16), 1); // 16.5 LPs a PE
    /// let exact = timewarp::Config { kps_per_pe: 16, min_lps_per_kp: 1, ..cfg };
    /// assert_eq!(exact.kps_in_use(264, 16), 16);
    /// assert_eq!(exact.kps_in_use(64, 16), 4); // one KP per LP at most
    /// ```
    pub fn kps_in_use(&self, num_lps: u32, pes: usize) -> usize {
        crate::mapping::kps_capped(
            self.kps_per_pe,
            self.min_lps_per_kp,
            crate::mapping::max_lps_per_pe(num_lps, pes) as usize,
        )
    }

    /// Checks the values that do not depend on the model.
    pub fn validate(&self) -> Result<(), Error> {
        let bad = |option, problem: String| Err(Error::Option { option, problem });
        if !(self.end.is_finite() && self.end > 0.0) {
            return bad("end", format!("the end time must be a finite number > 0, got {}", self.end));
        }
        if self.threads == 0 {
            return bad("threads", "must be at least 1".into());
        }
        if let Some(pes) = self.pes {
            if pes < self.threads {
                return bad(
                    "pes",
                    format!(
                        "{pes} PEs cannot keep {} worker threads busy (a PE runs on one worker at a time); give at \
                         least as many PEs as threads",
                        self.threads
                    ),
                );
            }
            if pes != self.threads && self.sync != SyncMode::Optimistic {
                return bad(
                    "pes",
                    format!(
                        "only the optimistic mode runs more PEs ({pes}) than worker threads ({t}); drop --pes, give \
                         --pes {t} (a resume keeps the checkpoint's --pes unless given) or use --sync optimistic",
                        t = self.threads
                    ),
                );
            }
        }
        self.adaptivity.check().map_err(|(option, problem)| Error::Option { option, problem })?;
        for (option, v) in [
            ("kps_per_pe", self.kps_per_pe),
            ("min_lps_per_kp", self.min_lps_per_kp),
            ("batch", self.batch),
            ("gvt_interval", self.gvt_interval),
        ] {
            if v == 0 {
                return bad(option, "must be at least 1".into());
            }
        }
        if self.event_memory.is_none() {
            let budget = EVENT_MEMORY_FACTOR.checked_mul(self.batch).and_then(|b| b.checked_mul(self.gvt_interval));
            if !matches!(budget, Some(b) if b <= MAX_EVENT_MEMORY) {
                return bad(
                    "batch",
                    format!(
                        "the default event memory, {EVENT_MEMORY_FACTOR} × batch {} × gvt-interval {}, is more than the \
                         {MAX_EVENT_MEMORY} events a PE can hold; lower --batch or --gvt-interval, or give --event-memory",
                        self.batch, self.gvt_interval
                    ),
                );
            }
        }
        // Only optimistic runs speculate: elsewhere the budget is not used.
        if self.event_memory == Some(0) && self.sync == SyncMode::Optimistic {
            return bad(
                "event_memory",
                "0 leaves no room to process even one event speculatively (event memory too small); the minimum is 1"
                    .into(),
            );
        }
        self.optimism.check().map_err(|problem| Error::Option { option: "optimism", problem })?;
        self.link.check().map_err(|(option, problem)| Error::Option { option, problem })?;
        if self.link.is_on() && self.sync != SyncMode::Optimistic {
            return bad(
                self.link.option(),
                format!(
                    "link emulation holds back the optimistic courier's messages between MPI processes; the {} mode \
                     has none: use --sync optimistic, or drop the option",
                    self.sync.name()
                ),
            );
        }
        if self.timeline == Some(0) {
            return bad("timeline", "a timeline of at most 0 spans would record nothing; give at least 1".into());
        }
        if matches!(self.sync, SyncMode::Sequential | SyncMode::Check) && self.threads != 1 {
            return bad(
                "threads",
                format!(
                    "the {} mode runs on one thread, so {} threads need a parallel mode (optimistic or conservative)",
                    self.sync.name(),
                    self.threads
                ),
            );
        }
        Ok(())
    }
}
