//! The end of a run: the [`Report`] and its statistics, built in one place
//! for every kernel, every process and every segment.
//!
//! A kernel starts from [`base_stats`], adds its PEs' figures
//! ([`parallel_stats`]); processes of an MPI run are merged by
//! [`merge_processes`], the segments of a checkpointed run by
//! [`Stats::add_earlier`]; [`finish`] runs the model's `finalize` over the
//! LPs in id order and fills the digest.

use crate::config::{Config, SyncMode};
use crate::digest::{run_digest, LpDigest, DIGEST_VERSION};
use crate::key::{Key, LpId};
use crate::lp::Lp;
use crate::model::Model;
use crate::stats::{peak_rss_bytes, GvtPoint, PeStats, Stats};

/// What a run returns: statistics and the model's results.
#[derive(Debug)]
pub struct Report<R> {
    /// Engine statistics.
    pub stats: Stats,
    /// What the model's `finalize` gathered.
    pub results: R,
    /// Per-LP history digests in LP-id order (what `verify` compares).
    pub lp_digests: Vec<LpDigest>,
    /// Committed event keys of `Config::trace_lp`, in commit order.
    pub trace: Vec<Key>,
    /// What each PE did when, if `Config::timeline` asked for it.
    pub timeline: Option<crate::timeline::Timeline>,
}

/// Statistics fields every kernel (and the merge of processes) fills the
/// same way at the start, for a model of `num_lps` LPs.
pub(crate) fn base_stats<M: Model>(model: &M, cfg: &Config, num_lps: u32) -> Stats {
    Stats {
        model: model.name().to_string(),
        sync: cfg.sync.name().to_string(),
        threads: cfg.threads,
        pes_per_process: cfg.pes_per_process(),
        scheduling: if cfg.sync == SyncMode::Optimistic { cfg.scheduling.name().into() } else { String::new() },
        ranks: 1,
        lps: num_lps as u64,
        end_time: cfg.end,
        seed: cfg.seed,
        queue: format!("{:?}", cfg.queue).to_lowercase(),
        ..Default::default()
    }
}

/// The LPs of all `pes` (each a list of ids and a list of records, index
/// for index) in id order, whatever the placement.
pub(crate) fn by_id<'a, S: 'a>(pes: impl Iterator<Item = (&'a [LpId], &'a [Lp<S>])>) -> Vec<(LpId, &'a Lp<S>)> {
    let mut all: Vec<(LpId, &Lp<S>)> = pes.flat_map(|(ids, lps)| ids.iter().copied().zip(lps)).collect();
    all.sort_by_key(|x| x.0); // runs already in order (block mapping) cost one pass
    all
}

/// Runs `finalize` over LPs in id order and fills the digest and memory figures.
pub(crate) fn finish<'a, M: Model>(
    model: &M,
    lps: impl Iterator<Item = (LpId, &'a Lp<M::State>)>,
    mut stats: Stats,
) -> Report<M::Results> {
    stats.peak_rss_bytes = peak_rss_bytes();
    finish_parts(model, lps.map(|(id, lp)| (id, lp.digest(), &lp.state)), stats)
}

/// Runs `finalize` over `(id, digest, final state)` in id order and fills
/// the digest and event rate.
pub(crate) fn finish_parts<'a, M: Model>(
    model: &M,
    lps: impl Iterator<Item = (LpId, LpDigest, &'a M::State)>,
    mut stats: Stats,
) -> Report<M::Results> {
    let mut results = M::Results::default();
    let mut lp_digests = Vec::new();
    for (id, digest, state) in lps {
        model.finalize(id, state, stats.end_time, &mut results);
        lp_digests.push(digest);
    }
    stats.digest = run_digest(lp_digests.iter().copied());
    stats.digest_version = DIGEST_VERSION;
    stats.event_rate = if stats.wall_seconds > 0.0 { stats.committed_events as f64 / stats.wall_seconds } else { 0.0 };
    Report { stats, results, lp_digests, trace: Vec::new(), timeline: None }
}

/// The statistics every parallel kernel fills the same way: start-up is the
/// slowest worker's initialisation, wall time the rest of `total`, and the
/// per-PE figures are summed.
pub(crate) fn parallel_stats<'a>(
    mut stats: Stats,
    total: f64,
    inits: impl Iterator<Item = f64>,
    pes: impl Iterator<Item = &'a PeStats>,
) -> Stats {
    stats.init_seconds = inits.fold(0.0, f64::max);
    stats.wall_seconds = total - stats.init_seconds;
    merge_pe_stats(&mut stats, pes);
    stats
}

/// Adds the per-PE figures into the run statistics (and keeps them per PE).
pub(crate) fn merge_pe_stats<'a>(stats: &mut Stats, pes: impl Iterator<Item = &'a PeStats>) -> u64 {
    let mut remote = 0;
    let mut remote_process = 0;
    for p in pes {
        remote_process += p.remote_process;
        stats.committed_events += p.committed;
        stats.processed_events += p.processed;
        stats.rolled_back_events += p.rolled_back;
        stats.safe_events += p.safe_events;
        stats.saved_entries += p.saved_entries;
        stats.primary_rollbacks += p.primary_rollbacks;
        stats.secondary_rollbacks += p.secondary_rollbacks;
        stats.anti_messages += p.anti_messages;
        stats.timestamp_ties += p.ties;
        stats.events_past_end += p.past_end;
        stats.peak_events += p.peak_events;
        stats.peak_speculative += p.peak_speculative;
        stats.iterations += p.iterations;
        stats.throttled_iterations += p.throttled_iterations;
        stats.throttled_seconds += p.throttled_seconds;
        stats.gvt_wait_seconds += p.gvt_wait_seconds;
        stats.event_memory_peak = stats.event_memory_peak.max(p.event_memory_peak);
        remote += p.remote;
        stats.pes.push(p.clone());
    }
    let c = stats.committed_events.max(1) as f64;
    stats.efficiency = stats.committed_events as f64 / stats.processed_events.max(1) as f64;
    stats.rollback_efficiency = 1.0 - stats.rolled_back_events as f64 / c;
    stats.remote_fraction = remote as f64 / c;
    stats.remote_process_fraction = remote_process as f64 / c;
    remote
}

/// Statistics of all processes of an MPI run, rank 0's first: counters
/// summed, times the slowest process', GVT figures rank 0's.
#[cfg(feature = "mpi")]
pub(crate) fn merge_processes<M: Model>(model: &M, cfg: &Config, all: &[(&Stats, &crate::stats::RankStats)]) -> Stats {
    let first = all[0].0;
    let mut t = base_stats(model, cfg, first.lps as u32);
    t.ranks = all.len() as u64;
    merge_pe_stats(&mut t, all.iter().flat_map(|(st, _)| st.pes.iter()));
    t.gvt_rounds = first.gvt_rounds;
    t.gvt_series = first.gvt_series.clone();
    t.workers = all.iter().flat_map(|(st, _)| st.workers.iter().cloned()).collect();
    t.event_memory_per_pe = first.event_memory_per_pe;
    t.kps_per_pe = first.kps_per_pe;
    t.event_bytes = first.event_bytes;
    t.init_seconds = all.iter().map(|(st, _)| st.init_seconds).fold(0.0, f64::max);
    t.wall_seconds = all.iter().map(|(st, _)| st.wall_seconds).fold(0.0, f64::max);
    for (_, r) in all {
        t.mpi_messages += r.mpi_messages;
        t.mpi_bytes += r.mpi_bytes;
        t.mpi_flushes.add(&r.mpi_flushes);
        t.polls += r.polls;
        t.successful_polls += r.successful_polls;
        t.mpi_seconds += r.mpi_seconds;
    }
    let events: u64 = all.iter().map(|(_, r)| r.mpi_events).sum();
    t.mpi_events_per_message = events as f64 / t.mpi_messages.max(1) as f64;
    t.rank_stats = all.iter().map(|(_, r)| (*r).clone()).collect();
    t
}

impl Stats {
    /// Adds the counters of the segments before this one (`earlier`, already
    /// summed): a resumed run reports the whole run's figures.
    pub(crate) fn add_earlier(&mut self, earlier: &Stats) {
        let c0 = earlier.committed_events as f64;
        let c1 = self.committed_events as f64;
        let remote = earlier.remote_fraction * c0 + self.remote_fraction * c1;
        let remote_process = earlier.remote_process_fraction * c0 + self.remote_process_fraction * c1;
        self.committed_events += earlier.committed_events;
        self.processed_events += earlier.processed_events;
        self.rolled_back_events += earlier.rolled_back_events;
        self.safe_events += earlier.safe_events;
        self.saved_entries += earlier.saved_entries;
        self.events_past_end += earlier.events_past_end;
        self.timestamp_ties += earlier.timestamp_ties;
        self.init_seconds += earlier.init_seconds;
        self.wall_seconds += earlier.wall_seconds;
        self.primary_rollbacks += earlier.primary_rollbacks;
        self.secondary_rollbacks += earlier.secondary_rollbacks;
        self.anti_messages += earlier.anti_messages;
        self.gvt_rounds += earlier.gvt_rounds;
        self.mpi_messages += earlier.mpi_messages;
        self.mpi_bytes += earlier.mpi_bytes;
        self.mpi_flushes.add(&earlier.mpi_flushes);
        self.polls += earlier.polls;
        self.successful_polls += earlier.successful_polls;
        self.mpi_seconds += earlier.mpi_seconds;
        self.peak_events = self.peak_events.max(earlier.peak_events);
        self.peak_speculative = self.peak_speculative.max(earlier.peak_speculative);
        self.peak_rss_bytes = self.peak_rss_bytes.max(earlier.peak_rss_bytes);
        let c = self.committed_events.max(1) as f64;
        self.efficiency = self.committed_events as f64 / self.processed_events.max(1) as f64;
        self.rollback_efficiency = 1.0 - self.rolled_back_events as f64 / c;
        self.remote_fraction = remote / c;
        self.remote_process_fraction = remote_process / c;
        self.event_rate = if self.wall_seconds > 0.0 { self.committed_events as f64 / self.wall_seconds } else { 0.0 };
        self.checkpoints += earlier.checkpoints;
        self.checkpoint_seconds += earlier.checkpoint_seconds;
        let offset = earlier.gvt_series.last().map_or(0.0, |p| p.wall);
        let mut series = earlier.gvt_series.clone();
        series.extend(self.gvt_series.iter().map(|p| GvtPoint { wall: p.wall + offset, ..*p }));
        self.gvt_series = series;
    }
}
