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

use crate::checkpoint::{Control, Pending, Plan, Snapshot};
use crate::digest::LpDigest;
use crate::error::Error;
use crate::event::{Inline, Queued};
use crate::kernel::optimistic::{process_stats, run_pes, take_cut, Shared};
use crate::kernel::workers::merge_pe_stats;
use crate::kernel::{base_stats, by_id, finish_parts, Report, Segment, Setup};
use crate::key::{Key, LpId};
use crate::lp::Lp;
use crate::mapping::{with_place, Placement};
use crate::model::Model;
use crate::queue::{heap::QuadHeap, ladder::LadderQueue, PendingQueue};
use crate::stats::{peak_rss_bytes, RankStats, Stats};
use crate::timeline::Timeline;
use crate::transport::Layout;
use crate::{Config, QueueKind, SyncMode};
use courier::{Courier, Figures};

/// MPI tag of the end-of-run reports sent to rank 0.
const TAG_RESULTS: i32 = 18;

/// MPI tag of the parts of a snapshot sent to rank 0 at a pause.
const TAG_CUT: i32 = 20;

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
    match segment(model, cfg, &Segment::whole(), cluster)? {
        Ended::Done(r) => Ok(r),
        Ended::Paused(_) => Err(Error::Internal("a run without pauses paused".into())),
    }
}

/// [`checkpoint::run`](crate::checkpoint::run) over every process of
/// `cluster`: at each mark of `plan` the processes send their LPs and
/// pending events to rank 0, which writes the checkpoint (one file, which
/// resumes on any number of processes) and sends the whole snapshot back
/// to every process for the next segment. Every process must call it with
/// the same arguments (`start`: each reads the same checkpoint). Pauses on
/// request (`--checkpoint-wall`, signals) need the processes to agree on a
/// moment and are offered in one process only (`control`): across
/// processes `plan.wall` is refused.
pub fn run_checkpointed<M: Model>(
    model: &M,
    cfg: &Config,
    plan: &Plan,
    control: &Control,
    start: Option<Snapshot<M>>,
    cluster: &Cluster,
) -> Result<Option<Report<M::Results>>, Error> {
    if cluster.size == 1 {
        return crate::checkpoint::run(model, cfg, plan, control, start).map(Some);
    }
    plan.validate()?;
    cfg.validate()?;
    if plan.wall.is_some() {
        return Err(Error::Option {
            option: "checkpoint-wall",
            problem: "not offered under MPI (the processes would have to agree on the moment); use \
                      --checkpoint-every, in virtual time"
                .into(),
        });
    }
    if cluster.rank == 0 {
        plan.make_dir()?;
    }
    let mut start = match start {
        Some(s) => Some(crate::checkpoint::prepare(s, cfg)?),
        None => {
            crate::memory::check(model, cfg, cluster.size)?;
            None
        }
    };
    let mut written = Vec::new();
    loop {
        let from = start.as_ref().map_or(0.0, |s| s.time());
        let seg = Segment { start: start.as_ref(), pause: plan.next_mark(from), control: None };
        match segment(model, cfg, &seg, cluster)? {
            Ended::Done(mut r) => {
                if let (Some(r), Some(s)) = (&mut r, &start) {
                    r.stats.add_earlier(&s.stats);
                }
                return Ok(r);
            }
            Ended::Paused(mut snap) => {
                if let Some(snap) = &mut snap {
                    // Rank 0: the whole snapshot.
                    if let Some(s) = &start {
                        snap.stats.add_earlier(&s.stats);
                    }
                    if let Some(dir) = &plan.dir {
                        let t = std::time::Instant::now();
                        snap.stats.checkpoints += 1;
                        let header = crate::checkpoint::header(plan, cfg, model.name(), snap, cluster.size as u64);
                        let path = crate::checkpoint::file_path(dir, snap);
                        // As in one process: a checkpoint that cannot be written (a full disk) is a warning.
                        match crate::checkpoint::save(dir, &path, &header, snap, plan.keep, &mut written) {
                            Ok(()) => snap.stats.checkpoint_seconds += t.elapsed().as_secs_f64(),
                            Err(e) => {
                                crate::checkpoint::warn_unwritten(&e);
                                snap.stats.checkpoints -= 1;
                            }
                        }
                    }
                }
                start = Some(share(snap, cluster)?);
            }
        }
    }
}

/// How one segment across processes ended.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Ended<M: Model> {
    /// At the end: the report on rank 0.
    Done(Option<Report<M::Results>>),
    /// At a pause: the whole snapshot on rank 0.
    Paused(Option<Snapshot<M>>),
}

/// Runs one segment in the mode `cfg` names.
fn segment<M: Model>(model: &M, cfg: &Config, seg: &Segment<'_, M>, cluster: &Cluster) -> Result<Ended<M>, Error> {
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
        (SyncMode::Optimistic, QueueKind::Ladder) => {
            optimistic::<M, LadderQueue<Queued<M::Msg>>>(model, cfg, seg, cluster)
        }
        (SyncMode::Optimistic, QueueKind::Heap) => optimistic::<M, QuadHeap<Queued<M::Msg>>>(model, cfg, seg, cluster),
        (SyncMode::Conservative, QueueKind::Ladder) => {
            conservative::run::<M, LadderQueue<Inline<M::Msg>>>(model, cfg, seg, cluster)
        }
        (SyncMode::Conservative, QueueKind::Heap) => {
            conservative::run::<M, QuadHeap<Inline<M::Msg>>>(model, cfg, seg, cluster)
        }
    }
}

fn optimistic<M: Model, Q: PendingQueue<Queued<M::Msg>>>(
    model: &M,
    cfg: &Config,
    seg: &Segment<'_, M>,
    cluster: &Cluster,
) -> Result<Ended<M>, Error> {
    let s = seg.setup(model, cfg)?;
    let rank = cluster.rank;
    let layout = Layout::of(cfg, rank, cluster.size);
    let placement = Placement::for_run(cfg, s.num_lps, &layout)?;
    with_place!(placement, map => {
        let courier = Courier::new(cluster.world.duplicate(), layout);
        let shared = Shared::new(layout.pes_per_process(), &s, seg, false);
        let rings = crate::kernel::optimistic::ring_capacity(layout.pes_per_process());
        let (mut done, workers, total) =
            run_pes::<M, Q, Courier, _>(model, cfg, &s, seg, map, &shared, &courier, layout, rings)?;
        let fig = courier.finish();
        let stats = process_stats(model, cfg, &s, &shared, &done, workers, total);
        if done[0].0.paused {
            let (lps, events) = take_cut(&mut done)?;
            return gather_cut(model, cfg, cluster, CutPart { part: RankPart::new(rank, stats, fig), lps, events });
        }
        let trace: Vec<Key> = done.iter().flat_map(|d| d.0.commits.trace.iter().copied()).collect();
        let timeline = Timeline::gather(cfg, done.iter_mut().map(|d| d.0.timeline.take()));
        let lps = by_id(done.iter().map(|(pe, _)| (&pe.ids[..], &pe.lps[..])));
        gather(model, cfg, cluster, Part::new(rank, stats, fig, &lps, trace, timeline)).map(Ended::Done)
    })
}

/// A process' statistics, as every report to rank 0 carries them.
#[derive(Serialize, Deserialize)]
pub(crate) struct RankPart {
    stats: Stats,
    rank: RankStats,
}

impl RankPart {
    pub(crate) fn new(rank: usize, stats: Stats, fig: Figures) -> Self {
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
            peak_rss_bytes: peak_rss_bytes(),
        };
        RankPart { stats, rank: rs }
    }
}

/// What one process sends rank 0 at a pause: its LPs and pending events.
#[derive(Serialize, Deserialize)]
#[serde(bound(deserialize = "S: serde::de::DeserializeOwned, Msg: serde::de::DeserializeOwned"))]
pub(crate) struct CutPart<S, Msg> {
    part: RankPart,
    lps: Vec<(LpId, Lp<S>)>,
    events: Vec<Pending<Msg>>,
}

/// Sends every process' part of the cut to rank 0, which assembles the
/// snapshot; if nothing is pending anywhere the run has in fact ended, and
/// rank 0 makes the report. Every process learns which.
pub(crate) fn gather_cut<M: Model>(
    model: &M,
    cfg: &Config,
    cluster: &Cluster,
    mine: CutPart<M::State, M::Msg>,
) -> Result<Ended<M>, Error> {
    let encode = |e: postcard::Error| Error::Encode(format!("a process' part of a checkpoint: {e}"));
    let ended = if cluster.rank != 0 {
        let bytes = postcard::to_allocvec(&mine).map_err(encode)?;
        cluster.world.process_at_rank(0).send_with_tag(&bytes[..], TAG_CUT);
        None
    } else {
        let mut parts = vec![mine];
        for r in 1..cluster.size {
            let (bytes, _) = cluster.world.process_at_rank(r as i32).receive_vec_with_tag::<u8>(TAG_CUT);
            let part: CutPart<M::State, M::Msg> = postcard::from_bytes(&bytes)
                .map_err(|e| Error::Internal(format!("the checkpoint part of rank {r} is unreadable: {e}")))?;
            parts.push(part);
        }
        let stats = merge_rank_parts(model, cfg, parts.iter().map(|p| &p.part));
        let mut lps = Vec::new();
        let mut events = Vec::new();
        for p in parts {
            lps.extend(p.lps);
            events.extend(p.events);
        }
        Some(Snapshot::assemble(lps, events, stats))
    };
    // Does the run go on? Rank 0 knows.
    let mut more = ended.as_ref().map_or(0u8, |s: &Snapshot<M>| (s.pending_events() > 0) as u8);
    cluster.world.process_at_rank(0).broadcast_into(&mut more);
    if more == 1 {
        return Ok(Ended::Paused(ended));
    }
    Ok(Ended::Done(ended.map(|snap| {
        let lps = snap.lps.iter().enumerate().map(|(i, l)| (i as LpId, l));
        crate::kernel::finish(model, lps, snap.stats)
    })))
}

/// Sends rank 0's snapshot to every process (each starts the next segment from it).
fn share<M: Model>(snap: Option<Snapshot<M>>, cluster: &Cluster) -> Result<Snapshot<M>, Error> {
    let root = cluster.world.process_at_rank(0);
    let mut bytes = match &snap {
        Some(s) => crate::checkpoint::encode(s)?,
        None => Vec::new(),
    };
    let mut len = bytes.len() as u64;
    root.broadcast_into(&mut len);
    bytes.resize(len as usize, 0);
    root.broadcast_into(&mut bytes[..]);
    match snap {
        Some(s) => Ok(s),
        None => crate::checkpoint::decode(&bytes),
    }
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
    timeline: Option<Timeline>,
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
    timeline: Option<Timeline>,
}

impl<'a, S: Serialize> Part<'a, S> {
    fn new(
        rank: usize,
        stats: Stats,
        fig: Figures,
        lps: &[(LpId, &'a Lp<S>)],
        trace: Vec<Key>,
        timeline: Option<Timeline>,
    ) -> Self {
        let RankPart { stats, rank: rs } = RankPart::new(rank, stats, fig);
        Part {
            stats,
            rank: rs,
            ids: lps.iter().map(|l| l.0).collect(),
            digests: lps.iter().map(|l| l.1.digest()).collect(),
            states: lps.iter().map(|l| &l.1.state).collect(),
            trace,
            timeline,
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
    // Every rank's tracks in one timeline (rank 0 writes one file).
    report.timeline = mine.timeline;
    for p in others {
        if let (Some(all), Some(t)) = (report.timeline.as_mut(), p.timeline) {
            all.merge(t);
        }
    }
    Ok(Some(report))
}

/// Run statistics of all processes: counters summed, times the slowest process'.
fn merge_ranks<M: Model, S>(model: &M, cfg: &Config, mine: &Part<'_, S>, others: &[PartIn<impl Sized>]) -> Stats {
    let all: Vec<(&Stats, &RankStats)> =
        std::iter::once((&mine.stats, &mine.rank)).chain(others.iter().map(|p| (&p.stats, &p.rank))).collect();
    merge_stats(model, cfg, &all)
}

/// [`merge_ranks`] for the parts of a cut.
fn merge_rank_parts<'a, M: Model>(model: &M, cfg: &Config, parts: impl Iterator<Item = &'a RankPart>) -> Stats {
    let all: Vec<(&Stats, &RankStats)> = parts.map(|p| (&p.stats, &p.rank)).collect();
    merge_stats(model, cfg, &all)
}

/// Statistics of all processes, rank 0's first.
fn merge_stats<M: Model>(model: &M, cfg: &Config, all: &[(&Stats, &RankStats)]) -> Stats {
    let s = Setup {
        num_lps: all[0].0.lps as u32,
        streams: 0,
        lookahead: 0.0,
        end: cfg.end,
        rng_key: 0,
        pause: f64::INFINITY,
        started: std::time::Instant::now(),
    };
    let mut t = base_stats(model, cfg, &s);
    t.ranks = all.len() as u64;
    merge_pe_stats(&mut t, all.iter().flat_map(|(st, _)| st.pes.iter()));
    let first = all[0].0;
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
        t.polls += r.polls;
        t.successful_polls += r.successful_polls;
        t.mpi_seconds += r.mpi_seconds;
    }
    let events: u64 = all.iter().map(|(_, r)| r.mpi_events).sum();
    t.mpi_events_per_message = events as f64 / t.mpi_messages.max(1) as f64;
    t.rank_stats = all.iter().map(|(_, r)| (*r).clone()).collect();
    t
}
