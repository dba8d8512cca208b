//! Run statistics: one struct with stable JSON keys and a readable table.

use crate::text::{percent, seconds, sig};
use serde::{Deserialize, Serialize};

/// What a run measured. JSON keys are stable: later versions add keys, never rename.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Stats {
    /// Model name.
    pub model: String,
    /// Synchronisation mode.
    pub sync: String,
    /// Worker threads (per process).
    pub threads: usize,
    /// Optimistic PEs per process (the worker threads run them; 0 in
    /// statistics written before PEs and workers were told apart).
    #[serde(default)]
    pub pes_per_process: usize,
    /// Which worker ran which PE (`fixed`, `dynamic`, `adaptive`, `ladm`;
    /// optimistic runs only).
    #[serde(default)]
    pub scheduling: String,
    /// Processes (MPI ranks); 1 without MPI.
    pub ranks: u64,
    /// Number of LPs.
    pub lps: u64,
    /// Virtual end time.
    pub end_time: f64,
    /// Seed of the random streams.
    pub seed: u64,
    /// Pending-queue structure.
    pub queue: String,
    /// Events committed (processed and never rolled back).
    pub committed_events: u64,
    /// Events processed, including those later rolled back.
    pub processed_events: u64,
    /// Events whose processing was undone.
    pub rolled_back_events: u64,
    /// Optimistic runs: events committed as they were processed, being
    /// below what any other PE could still send (`Config::safe_events`).
    #[serde(default)]
    pub safe_events: u64,
    /// Undo-journal entries saved by processed events (`Ctx::save`; models
    /// with `Rollback::Incremental` only): per processed event, the work
    /// incremental state saving adds to each event.
    #[serde(default)]
    pub saved_entries: u64,
    /// Events sent with a timestamp at or past the end time (never stored).
    pub events_past_end: u64,
    /// Committed events whose timestamp equals the previous committed event's on the same LP.
    pub timestamp_ties: u64,
    /// Seconds spent creating LPs and initial events.
    pub init_seconds: f64,
    /// Seconds of event processing (after initialisation).
    pub wall_seconds: f64,
    /// Committed events per second of `wall_seconds`.
    pub event_rate: f64,
    /// Most events held at once.
    pub peak_events: u64,
    /// Optimistic runs: most entries held at once for speculation, summed
    /// over PEs (see [`PeStats::peak_speculative`]).
    pub peak_speculative: u64,
    /// Size of one event record in bytes.
    pub event_bytes: u64,
    /// Peak resident memory (Linux VmHWM; 0 where unknown), summed over
    /// processes: read when the run ends, before the front end builds its
    /// output, so a lower bound of the process' peak.
    pub peak_rss_bytes: u64,
    /// Digest of the committed history and final state of every LP.
    pub digest: String,
    /// Version of the digest's definition ([`crate::digest::DIGEST_VERSION`]
    /// when the run ended): compare `digest` only with digests of the same
    /// version. 0 in statistics written before versions were recorded.
    #[serde(default)]
    pub digest_version: u32,
    /// Rollbacks caused by stragglers.
    pub primary_rollbacks: u64,
    /// Rollbacks caused by cancelling an already processed event.
    pub secondary_rollbacks: u64,
    /// Anti-messages sent between PEs.
    pub anti_messages: u64,
    /// Committed / processed events.
    pub efficiency: f64,
    /// 1 - rolled back / committed (the Blue Gene paper's definition).
    pub rollback_efficiency: f64,
    /// Committed events' sends that went to another PE, per committed event.
    pub remote_fraction: f64,
    /// GVT rounds completed.
    pub gvt_rounds: u64,
    /// Optimistic runs: scheduler iterations that stopped throttled (event
    /// budget or optimism window), all PEs together (per PE in `pes`).
    #[serde(default)]
    pub throttled_iterations: u64,
    /// Optimistic runs: scheduler iterations, all PEs together.
    #[serde(default)]
    pub iterations: u64,
    /// Optimistic runs: wall seconds PEs spent throttled, summed over PEs
    /// (see [`PeStats::throttled_seconds`]).
    #[serde(default)]
    pub throttled_seconds: f64,
    /// Optimistic runs: wall seconds PEs spent with nothing to do, waiting
    /// for GVT or messages, summed over PEs.
    #[serde(default)]
    pub gvt_wait_seconds: f64,
    /// Optimistic runs: the largest event budget of any PE.
    #[serde(default)]
    pub event_memory_peak: u64,
    /// Optimistic event memory per PE (processed, uncommitted events allowed).
    pub event_memory_per_pe: u64,
    /// Kernel processes per PE.
    pub kps_per_pe: u64,
    /// Committed events' sends that went to another process, per committed event.
    pub remote_process_fraction: f64,
    /// MPI messages sent (all ranks); each carries the events of many PEs.
    pub mpi_messages: u64,
    /// Events and anti-messages per MPI message (the consolidation factor).
    pub mpi_events_per_message: f64,
    /// Bytes of those messages (all ranks; section headers and records).
    #[serde(default)]
    pub mpi_bytes: u64,
    /// Why those messages left, each counted once (all ranks).
    #[serde(default)]
    pub mpi_flushes: Flushes,
    /// Times a courier looked for incoming MPI messages (all ranks).
    pub polls: u64,
    /// Polls that found at least one message.
    pub successful_polls: u64,
    /// Seconds spent inside MPI calls (all ranks).
    pub mpi_seconds: f64,
    /// Per-process figures (MPI runs only), in rank order.
    pub rank_stats: Vec<RankStats>,
    /// Per-PE figures (of all processes, in global PE order).
    pub pes: Vec<PeStats>,
    /// Per GVT round: GVT, wall time, committed so far.
    pub gvt_series: Vec<GvtPoint>,
    /// Per worker thread (optimistic runs; of all processes, in order).
    #[serde(default)]
    pub workers: Vec<WorkerStats>,
    /// Checkpoints written (a resumed run counts those before it too).
    #[serde(default)]
    pub checkpoints: u64,
    /// Wall-clock seconds spent writing them (by a thread of their own, while the run goes on).
    #[serde(default)]
    pub checkpoint_seconds: f64,
}

impl Stats {
    /// A human-readable summary, one aligned `name value` row per line.
    pub fn table(&self) -> String {
        let mut rows: Vec<(&str, String)> = vec![
            ("model", self.model.clone()),
            ("sync", self.sync.clone()),
            ("threads", self.threads.to_string()),
            ("simulator processes", self.ranks.to_string()),
            ("LPs", group(self.lps)),
            ("end time", sig(self.end_time)),
            ("committed events", group(self.committed_events)),
        ];
        if self.processed_events != self.committed_events || !self.pes.is_empty() {
            rows.push(("processed events", group(self.processed_events)));
            rows.push(("rolled back events", group(self.rolled_back_events)));
            if self.safe_events > 0 {
                let share = 100.0 * self.safe_events as f64 / self.committed_events.max(1) as f64;
                rows.push((
                    "safe events",
                    format!("{} ({}) committed as processed", group(self.safe_events), percent(share / 100.0)),
                ));
            }
            rows.push((
                "rollbacks",
                format!("{} primary, {} secondary", group(self.primary_rollbacks), group(self.secondary_rollbacks)),
            ));
            rows.push(("efficiency", percent(self.efficiency)));
            rows.push(("remote events", percent(self.remote_fraction)));
            rows.push(("GVT rounds", group(self.gvt_rounds)));
        }
        if self.iterations > 0 {
            rows.push((
                "throttled",
                format!(
                    "{} of {} iterations; {} throttled, {} waiting for GVT (all PEs)",
                    group(self.throttled_iterations),
                    group(self.iterations),
                    seconds(self.throttled_seconds),
                    seconds(self.gvt_wait_seconds)
                ),
            ));
            rows.push(("event memory", format!("{} per PE at most", group(self.event_memory_peak))));
        }
        if !self.scheduling.is_empty() && (self.scheduling != "fixed" || self.pes_per_process != self.threads) {
            let sum = |f: fn(&WorkerStats) -> u64| group(self.workers.iter().map(f).sum());
            rows.push((
                "scheduling",
                format!(
                    "{}, {} PEs on {} workers; {} deactivations, {} help iterations",
                    self.scheduling,
                    self.pes_per_process,
                    self.threads,
                    sum(|w| w.deactivations),
                    sum(|w| w.help_iterations)
                ),
            ));
        }
        if !self.workers.is_empty() {
            rows.push(("workers", self.worker_summary()));
        }
        if self.ranks > 1 {
            rows.push(("remote-process events", percent(self.remote_process_fraction)));
            rows.push((
                "MPI messages",
                format!(
                    "{} ({} events, {} bytes each; sent for {})",
                    group(self.mpi_messages),
                    sig(self.mpi_events_per_message),
                    group(self.mpi_bytes / self.mpi_messages.max(1)),
                    self.mpi_flushes.describe()
                ),
            ));
            rows.push(("polls", format!("{} ({} successful)", group(self.polls), group(self.successful_polls))));
            rows.push(("time in MPI", format!("{} (all ranks)", seconds(self.mpi_seconds))));
        }
        if self.checkpoints > 0 {
            rows.push((
                "checkpoints",
                format!("{} ({} writing, beside the run)", group(self.checkpoints), seconds(self.checkpoint_seconds)),
            ));
        }
        rows.extend([
            ("timestamp ties", group(self.timestamp_ties)),
            ("init time", seconds(self.init_seconds)),
            ("wall time", seconds(self.wall_seconds)),
            ("event rate", format!("{} events/s", group(self.event_rate.round() as u64))),
            ("peak events", group(self.peak_events)),
            ("peak memory", format!("{} MiB", sig(self.peak_rss_bytes as f64 / (1u64 << 20) as f64))),
            ("digest", self.digest.clone()),
        ]);
        let w = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
        rows.iter().map(|(k, v)| format!("{k:<w$}  {v}\n")).collect()
    }
}

impl Stats {
    /// The workers' time, all together: how long they ran, waited in the
    /// kernel's own waits, and (where the OS says) ran on a core or waited
    /// for one.
    fn worker_summary(&self) -> String {
        let sum = |f: fn(&WorkerStats) -> f64| self.workers.iter().map(f).sum::<f64>();
        let mut s = format!(
            "{} for {}, {} of it waiting",
            self.workers.len(),
            seconds(sum(|w| w.seconds)),
            seconds(sum(|w| w.wait_seconds))
        );
        let os = |f: fn(&WorkerStats) -> Option<f64>| self.workers.iter().map(f).sum::<Option<f64>>();
        if let (Some(cpu), Some(queued)) = (os(|w| w.cpu_seconds), os(|w| w.descheduled_seconds)) {
            s += &format!("; {} on a core, {} descheduled", seconds(cpu), seconds(queued));
        }
        s + " (all workers)"
    }
}

/// Per-PE counters, merged into the run statistics.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct PeStats {
    /// Events committed on this PE.
    pub committed: u64,
    /// Events processed (committed + rolled back + in progress at the end).
    pub processed: u64,
    /// Events whose processing was undone.
    pub rolled_back: u64,
    /// Events committed as they were processed (safe: see `Config::safe_events`).
    #[serde(default)]
    pub safe_events: u64,
    /// Rollbacks caused by a straggler.
    pub primary_rollbacks: u64,
    /// Rollbacks caused by cancelling an already processed event.
    pub secondary_rollbacks: u64,
    /// Committed events' sends that went to another PE.
    pub remote: u64,
    /// Committed events' sends that went to another process.
    pub remote_process: u64,
    /// Anti-messages sent to other PEs.
    pub anti_messages: u64,
    /// Committed events whose timestamp ties the previous one of their LP
    /// (an optimistic PE counts an event as it processes it and uncounts
    /// it if it is undone: at the end, committed events only).
    pub ties: u64,
    /// Sends dropped for being past the end time (committed events only,
    /// counted as `ties` is).
    pub past_end: u64,
    /// Times the optimistic memory was full and the PE stopped speculating.
    pub throttled: u64,
    /// Times the PE stopped at an event beyond its optimism window.
    pub window_throttled: u64,
    /// Scheduler iterations that stopped on the event budget or the
    /// optimism window (throttled) ...
    #[serde(default)]
    pub throttled_iterations: u64,
    /// ... and that found nothing to do before GVT moved or a message came.
    #[serde(default)]
    pub idle_iterations: u64,
    /// Wall seconds from an iteration that stopped throttled to the next
    /// one that processed events: time this PE's speculation limits cost.
    #[serde(default)]
    pub throttled_seconds: f64,
    /// Wall seconds from an iteration with nothing to do to the next one
    /// that processed events: time spent waiting for GVT or for messages.
    #[serde(default)]
    pub gvt_wait_seconds: f64,
    /// The largest event budget this PE ran with (it follows the run when
    /// `--event-memory` is not given).
    #[serde(default)]
    pub event_memory_peak: u64,
    /// Undo-journal entries saved by processed events (incremental state saving).
    #[serde(default)]
    pub saved_entries: u64,
    /// Most entries held at once for speculation: processed, uncommitted
    /// events, received-event windows (for anti-messages), messages waiting
    /// behind a full ring and cancelled events still queued.
    pub peak_speculative: u64,
    /// Times the pending queue was rebuilt without its cancelled events.
    #[serde(default)]
    pub compactions: u64,
    /// Seconds spent in GVT rounds and fossil collection.
    pub gvt_seconds: f64,
    /// Most events held at once (pending and processed, sampled once a GVT round).
    pub peak_events: u64,
    /// Scheduler iterations run on this PE.
    #[serde(default)]
    pub iterations: u64,
    /// Of those, iterations run by a worker other than the PE's primary one
    /// (worker `pe % threads`).
    #[serde(default)]
    pub foreign_iterations: u64,
}

/// Per worker thread of an optimistic run: how the scheduling policy used it.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct WorkerStats {
    /// Scheduler iterations this worker ran (on any PE).
    pub iterations: u64,
    /// Seconds the worker was active (not deactivated).
    pub active_seconds: f64,
    /// Times it deactivated (its time per event said it was descheduled).
    pub deactivations: u64,
    /// Times it was reactivated.
    pub reactivations: u64,
    /// Iterations it spent on orphan PEs of deactivated workers (LADM).
    pub help_iterations: u64,
    /// Wall seconds from the worker's first iteration to its last (the
    /// conservative kernel: from its PE's first window to its end).
    #[serde(default)]
    pub seconds: f64,
    /// Of those, seconds it spent waiting in the kernel's own waits past
    /// their short spin: yielding or parked while it had nothing to do
    /// (optimistic), in a window's barrier (conservative), or deactivated.
    #[serde(default)]
    pub wait_seconds: f64,
    /// Times it went to sleep in those waits (parked while idle, asleep in
    /// a barrier) rather than keep a core it had no use for.
    #[serde(default)]
    pub parks: u64,
    /// Seconds the OS ran it on a core (Linux `/proc/thread-self/schedstat`;
    /// absent where the system does not say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_seconds: Option<f64>,
    /// Seconds it was ready to run but waited on a run queue for a core
    /// (descheduled: other programs or workers had the cores; same source).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub descheduled_seconds: Option<f64>,
}

/// Why a process' MPI messages left (the courier's flush rules): each
/// message counts under one reason, so they add up to the messages sent.
///
/// ```
/// let mut f = timewarp::Flushes { size: 1, age: 2, ..Default::default() };
/// f.add(&timewarp::Flushes { idle: 3, ..Default::default() });
/// assert_eq!((f.total(), f.describe()), (6, "size 1, age 2, idle 3".to_string()));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flushes {
    /// The destination's message reached its size limit.
    pub size: u64,
    /// It held a record no later than the time this process' PEs had got
    /// to: its receivers are likely there too, and would roll back on it.
    pub time: u64,
    /// Its oldest record had waited the flush age.
    pub age: u64,
    /// The PE at the courier could go no further (nothing to process, or
    /// held back): it would wait on the others, and they on what it holds.
    pub idle: u64,
    /// A conservative window ended: one message per other process.
    pub window: u64,
}

impl Flushes {
    /// Adds `other`'s counts.
    pub fn add(&mut self, other: &Flushes) {
        self.size += other.size;
        self.time += other.time;
        self.age += other.age;
        self.idle += other.idle;
        self.window += other.window;
    }

    /// Messages counted.
    pub fn total(&self) -> u64 {
        self.size + self.time + self.age + self.idle + self.window
    }

    /// `size 3, age 10, ...` with the reasons that occurred.
    pub fn describe(&self) -> String {
        let all =
            [("size", self.size), ("time", self.time), ("age", self.age), ("idle", self.idle), ("window", self.window)];
        all.iter().filter(|(_, n)| *n > 0).map(|(w, n)| format!("{w} {n}")).collect::<Vec<_>>().join(", ")
    }
}

/// One process of an MPI run.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RankStats {
    /// MPI rank.
    pub rank: u64,
    /// Events committed by this process' PEs.
    pub committed_events: u64,
    /// Events processed by them.
    pub processed_events: u64,
    /// Seconds of event processing.
    pub wall_seconds: f64,
    /// Seconds of initialisation.
    pub init_seconds: f64,
    /// MPI messages this process sent.
    pub mpi_messages: u64,
    /// Events and anti-messages in them.
    pub mpi_events: u64,
    /// Bytes of those messages.
    #[serde(default)]
    pub mpi_bytes: u64,
    /// Why those messages left.
    #[serde(default)]
    pub mpi_flushes: Flushes,
    /// Polls for incoming messages, and those that found some.
    pub polls: u64,
    /// Polls that found at least one message.
    pub successful_polls: u64,
    /// Seconds inside MPI calls.
    pub mpi_seconds: f64,
    /// Peak resident memory of this process.
    pub peak_rss_bytes: u64,
}

/// One GVT round as seen by PE 0.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct GvtPoint {
    /// The new GVT (virtual time).
    pub gvt: f64,
    /// Seconds since event processing began.
    pub wall: f64,
    /// Events committed by all PEs so far.
    pub committed: u64,
}

/// 1234567 -> "1,234,567".
fn group(n: u64) -> String {
    crate::text::count(n)
}

/// Peak resident set size of this process in bytes (0 where unknown).
pub(crate) fn peak_rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grouping_and_table() {
        assert_eq!(group(0), "0");
        assert_eq!(group(999), "999");
        assert_eq!(group(1000), "1,000");
        assert_eq!(group(1234567), "1,234,567");
        let s = Stats { committed_events: 5, processed_events: 5, ..Default::default() };
        let t = s.table();
        assert!(t.contains("committed events"));
        assert!(!t.contains("rolled back"));
        #[cfg(target_os = "linux")]
        assert!(peak_rss_bytes() > 0);
    }

    #[test]
    fn a_run_records_its_digest_version_and_older_statistics_still_load() {
        use crate::digest::DIGEST_VERSION;
        let r = crate::Run::new(&crate::verify::doc_model(), &crate::Config::default()).execute().unwrap();
        assert_eq!(r.stats.digest_version, DIGEST_VERSION);
        let mut json = serde_json::to_value(&r.stats).unwrap();
        assert_eq!(json["digest_version"], DIGEST_VERSION);
        // A file written before the field existed: version 0, unknown.
        json.as_object_mut().unwrap().remove("digest_version").unwrap();
        let old: Stats = serde_json::from_value(json).unwrap();
        assert_eq!((old.digest_version, old.digest), (0, r.stats.digest));
    }
}
