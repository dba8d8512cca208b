//! Distributed runs over MPI (cargo feature `mpi`): P processes × T worker
//! threads, each process one block of PEs.
//!
//! Inside a process PEs talk through memory as in a threaded run; only
//! events for another process go through MPI, consolidated per destination
//! process by the [`courier`](self) that the PEs take turns running. GVT
//! spans processes with Mattern-style counting and non-blocking collectives.
//! At the end every process sends its LPs' digests and final states, and
//! its statistics, to rank 0, which runs the model's `finalize` over all LPs
//! in id order: the digest and results are those of a sequential run.
//!
//! ```no_run
//! use timewarp::{mpi::Cluster, Config, SyncMode};
//! # let model = timewarp::verify::doc_model();
//! let cluster = Cluster::init().expect("MPI");
//! let cfg = Config { sync: SyncMode::Optimistic, threads: 2, ..Config::default() };
//! match timewarp::mpi::run(&model, &cfg, &cluster) {
//!     Ok(Some(report)) => println!("{}", report.stats.table()), // rank 0
//!     Ok(None) => {}                                           // other ranks
//!     Err(e) => {
//!         eprintln!("rank {}: {e}", cluster.rank());
//!         cluster.abort(1) // ends every process: the others would wait forever
//!     }
//! }
//! ```

mod collective;
mod conservative;
mod courier;

use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::Threading;
use serde::{Deserialize, Serialize};

use crate::digest::LpDigest;
use crate::error::Error;
use crate::event::{Inline, Queued};
use crate::kernel::optimistic::{process_stats, run_pes, Shared};
use crate::kernel::workers::merge_pe_stats;
use crate::kernel::{base_stats, by_id, finish_parts, Report, Setup};
use crate::key::{Key, LpId};
use crate::lp::Lp;
use crate::mapping::{with_place, Placement};
use crate::model::Model;
use crate::queue::{heap::QuadHeap, ladder::LadderQueue, PendingQueue};
use crate::stats::{peak_rss_bytes, RankStats, Stats};
use crate::{Config, QueueKind, SyncMode};
use courier::{Courier, Figures};

/// MPI tag of the end-of-run reports sent to rank 0.
const TAG_RESULTS: i32 = 18;

/// This process' membership of the MPI job.
pub struct Cluster {
    world: SimpleCommunicator,
    rank: usize,
    size: usize,
    // Finalises MPI when dropped: declared last so the communicator goes first.
    _universe: Universe,
}

impl Cluster {
    /// Initialises MPI (once per process) with the thread support the
    /// courier needs (`MPI_THREAD_SERIALIZED`).
    pub fn init() -> Result<Self, Error> {
        let (universe, level) = mpi::initialize_with_threading(Threading::Serialized)
            .ok_or_else(|| Error::Config("MPI is already initialised in this process".into()))?;
        if level < Threading::Serialized {
            return Err(Error::Config(format!(
                "the MPI library offers only thread level {level:?}; timewarp needs MPI_THREAD_SERIALIZED"
            )));
        }
        let world = universe.world();
        let (rank, size) = (world.rank() as usize, world.size() as usize);
        Ok(Cluster { world, rank, size, _universe: universe })
    }

    /// This process' rank, `0..size`.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Number of processes.
    pub fn size(&self) -> usize {
        self.size
    }

    /// How many processes of the job say `yes` (a collective: every
    /// process must call it). Lets the processes agree on a local check
    /// (whether a run fits in each machine's memory) before any of them
    /// starts: all refuse together, or one that refuses alone ends the job.
    pub fn count(&self, yes: bool) -> usize {
        let mut n = 0u64;
        self.world.all_reduce_into(&(yes as u64), &mut n, mpi::collective::SystemOperation::sum());
        n as usize
    }

    /// Ends every process of the job with `code` (after an error on this
    /// one, the others would otherwise wait for it forever).
    pub fn abort(&self, code: i32) -> ! {
        self.world.abort(code)
    }
}

/// Runs `model` over every process of `cluster` (each with `cfg.threads`
/// worker threads). Every process must call it with the same model and
/// configuration. Rank 0 gets the report; the others get `None`. On an
/// error, call [`Cluster::abort`].
pub fn run<M: Model>(model: &M, cfg: &Config, cluster: &Cluster) -> Result<Option<Report<M::Results>>, Error> {
    if cluster.size == 1 {
        return crate::run(model, cfg).map(Some);
    }
    cfg.validate()?;
    crate::memory::check(model, cfg, cluster.size)?;
    match (cfg.sync, cfg.queue) {
        (SyncMode::Sequential | SyncMode::Check, _) => Err(Error::Option {
            option: "sync",
            problem: format!(
                "the {} mode runs in one process, but this run has {} MPI processes; use optimistic or \
                 conservative under mpirun (or run without mpirun)",
                cfg.sync.name(),
                cluster.size
            ),
        }),
        (SyncMode::Optimistic, QueueKind::Ladder) => optimistic::<M, LadderQueue<Queued<M::Msg>>>(model, cfg, cluster),
        (SyncMode::Optimistic, QueueKind::Heap) => optimistic::<M, QuadHeap<Queued<M::Msg>>>(model, cfg, cluster),
        (SyncMode::Conservative, QueueKind::Ladder) => {
            conservative::run::<M, LadderQueue<Inline<M::Msg>>>(model, cfg, cluster)
        }
        (SyncMode::Conservative, QueueKind::Heap) => {
            conservative::run::<M, QuadHeap<Inline<M::Msg>>>(model, cfg, cluster)
        }
    }
}

fn optimistic<M: Model, Q: PendingQueue<Queued<M::Msg>>>(
    model: &M,
    cfg: &Config,
    cluster: &Cluster,
) -> Result<Option<Report<M::Results>>, Error> {
    let s = Setup::new(model, cfg)?;
    let (rank, ranks) = (cluster.rank, cluster.size);
    let placement = Placement::new(&cfg.mapping, s.num_lps, ranks * cfg.threads, cfg.kps_per_pe, cfg.seed)?;
    with_place!(placement, map => {
        let courier = Courier::new(cluster.world.duplicate(), rank, ranks, cfg.threads);
        let shared = Shared::new(cfg.threads, s.lookahead);
        let rings = crate::kernel::optimistic::ring_capacity(cfg.threads);
        let (done, total) = run_pes::<M, Q, Courier, _>(model, cfg, &s, map, &shared, &courier, rank, ranks, rings)?;
        let fig = courier.finish();
        let stats = process_stats(model, cfg, &s, &shared, &done, total);
        let trace: Vec<Key> = done.iter().flat_map(|d| d.0.commits.trace.iter().copied()).collect();
        let lps = by_id(done.iter().map(|(pe, _)| (&pe.ids[..], &pe.lps[..])));
        gather(model, cfg, cluster, Part::new(rank, stats, fig, &lps, trace))
    })
}

/// What one process sends rank 0 at the end (borrowing its LP states).
#[derive(Serialize)]
struct Part<'a, S> {
    stats: Stats,
    rank: RankStats,
    ids: Vec<LpId>,
    digests: Vec<LpDigest>,
    states: Vec<&'a S>,
    trace: Vec<Key>,
}

/// The same, as rank 0 reads it back.
#[derive(Deserialize)]
struct PartIn<S> {
    stats: Stats,
    rank: RankStats,
    ids: Vec<LpId>,
    digests: Vec<LpDigest>,
    states: Vec<S>,
    trace: Vec<Key>,
}

impl<'a, S: Serialize> Part<'a, S> {
    fn new(rank: usize, stats: Stats, fig: Figures, lps: &[(LpId, &'a Lp<S>)], trace: Vec<Key>) -> Self {
        let rss = peak_rss_bytes();
        let rs = RankStats {
            rank: rank as u64,
            committed_events: stats.committed_events,
            processed_events: stats.processed_events,
            wall_seconds: stats.wall_seconds,
            init_seconds: stats.init_seconds,
            mpi_messages: fig.messages,
            mpi_events: fig.events,
            polls: fig.polls,
            successful_polls: fig.successful_polls,
            mpi_seconds: fig.mpi_seconds,
            peak_rss_bytes: rss,
        };
        Part {
            stats,
            rank: rs,
            ids: lps.iter().map(|l| l.0).collect(),
            digests: lps.iter().map(|l| l.1.digest()).collect(),
            states: lps.iter().map(|l| &l.1.state).collect(),
            trace,
        }
    }
}

/// Sends every process' part to rank 0, which merges them into the report.
fn gather<M: Model>(
    model: &M,
    cfg: &Config,
    cluster: &Cluster,
    mine: Part<'_, M::State>,
) -> Result<Option<Report<M::Results>>, Error> {
    let encode = |e: postcard::Error| Error::Encode(format!("the end-of-run report: {e}"));
    if cluster.rank != 0 {
        let bytes = postcard::to_allocvec(&mine).map_err(encode)?;
        cluster.world.process_at_rank(0).send_with_tag(&bytes[..], TAG_RESULTS);
        return Ok(None);
    }
    let mut others = Vec::with_capacity(cluster.size - 1);
    for r in 1..cluster.size {
        let (bytes, _) = cluster.world.process_at_rank(r as i32).receive_vec_with_tag::<u8>(TAG_RESULTS);
        let part: PartIn<M::State> = postcard::from_bytes(&bytes)
            .map_err(|e| Error::Internal(format!("the end-of-run report of rank {r} is unreadable: {e}")))?;
        others.push(part);
    }
    let mut stats = merge_ranks(model, cfg, &mine, &others);
    stats.peak_rss_bytes = mine.rank.peak_rss_bytes + others.iter().map(|p| p.rank.peak_rss_bytes).sum::<u64>();
    // Any placement: put every process' LPs back in id order.
    let own = mine.ids.iter().zip(&mine.digests).zip(&mine.states).map(|((&i, d), s)| (i, *d, *s));
    let rest = others.iter().flat_map(|p| p.ids.iter().zip(&p.digests).zip(&p.states).map(|((&i, d), s)| (i, *d, s)));
    let mut all: Vec<(LpId, LpDigest, &M::State)> = own.chain(rest).collect();
    all.sort_by_key(|x| x.0);
    let mut report = finish_parts(model, all.into_iter(), stats);
    report.trace = mine.trace.iter().chain(others.iter().flat_map(|p| p.trace.iter())).copied().collect();
    Ok(Some(report))
}

/// Run statistics of all processes: counters summed, times the slowest process'.
fn merge_ranks<M: Model, S>(model: &M, cfg: &Config, mine: &Part<'_, S>, others: &[PartIn<impl Sized>]) -> Stats {
    let all: Vec<(&Stats, &RankStats)> =
        std::iter::once((&mine.stats, &mine.rank)).chain(others.iter().map(|p| (&p.stats, &p.rank))).collect();
    let s = Setup { num_lps: mine.stats.lps as u32, streams: 0, lookahead: 0.0, end: cfg.end, rng_key: 0 };
    let mut t = base_stats(model, cfg, &s);
    t.ranks = all.len() as u64;
    merge_pe_stats(&mut t, all.iter().flat_map(|(st, _)| st.pes.iter()));
    let first = &mine.stats;
    t.gvt_rounds = first.gvt_rounds;
    t.gvt_series = first.gvt_series.clone();
    t.event_memory_per_pe = first.event_memory_per_pe;
    t.kps_per_pe = first.kps_per_pe;
    t.event_bytes = first.event_bytes;
    t.init_seconds = all.iter().map(|(st, _)| st.init_seconds).fold(0.0, f64::max);
    t.wall_seconds = all.iter().map(|(st, _)| st.wall_seconds).fold(0.0, f64::max);
    for (_, r) in &all {
        t.mpi_messages += r.mpi_messages;
        t.polls += r.polls;
        t.successful_polls += r.successful_polls;
        t.mpi_seconds += r.mpi_seconds;
    }
    let events: u64 = all.iter().map(|(_, r)| r.mpi_events).sum();
    t.mpi_events_per_message = events as f64 / t.mpi_messages.max(1) as f64;
    t.rank_stats = all.iter().map(|(_, r)| (*r).clone()).collect();
    t
}
