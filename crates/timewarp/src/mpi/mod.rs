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
//! A run spans the processes of a [`Cluster`] with
//! [`Run::on`](crate::Run::on):
//!
//! ```no_run
//! use timewarp::{mpi::Cluster, Config, Run, SyncMode};
//! # let model = timewarp::verify::doc_model();
//! let cluster = Cluster::init().expect("MPI");
//! let cfg = Config { sync: SyncMode::Optimistic, threads: 2, ..Config::default() };
//! match Run::new(&model, &cfg).on(&cluster).execute() {
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

use std::sync::Arc;

use crate::checkpoint::{Control, Plan, Snapshot};
use crate::digest::LpDigest;
use crate::error::Error;
use crate::kernel::end::{ProcessEnd, Ranks, Reach};
use crate::kernel::processes::Processes;
use crate::key::{Key, LpId};
use crate::layout::Layout;
use crate::lp::Lp;
use crate::model::Model;
use crate::report::{finish, finish_parts, merge_processes, Report};
use crate::segment::{Outcome, Pending};
use crate::stats::{peak_rss_bytes, RankStats, Stats};
use crate::timeline::Timeline;
use crate::Config;
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

/// Runs `model` over every process of `cluster`:
/// `Run::new(model, cfg).on(cluster).execute()`.
#[deprecated(note = "one entry starts every run: `timewarp::Run::new(model, cfg).on(cluster).execute()`")]
pub fn run<M: Model>(model: &M, cfg: &Config, cluster: &Cluster) -> Result<Option<Report<M::Results>>, Error> {
    crate::run::Run::new(model, cfg).on(cluster).execute()
}

/// Runs `model` over every process of `cluster` with checkpoints:
/// `Run::new(model, cfg).plan(plan).control(control)`, resumed from
/// `start` if any, `.on(cluster).execute()`.
#[deprecated(note = "one entry starts every run: `timewarp::Run::new(model, cfg).plan(plan).control(control)` \
                     (and `.resume(snapshot)`), then `.on(cluster).execute()`")]
pub fn run_checkpointed<M: Model>(
    model: &M,
    cfg: &Config,
    plan: &Plan,
    control: &Control,
    start: Option<Snapshot<M>>,
    cluster: &Cluster,
) -> Result<Option<Report<M::Results>>, Error> {
    let run = crate::run::Run::new(model, cfg).plan(plan).control(control);
    match start {
        Some(snap) => run.resume(snap).on(cluster).execute(),
        None => run.on(cluster).execute(),
    }
}

impl Ranks for Cluster {
    fn rank(&self) -> usize {
        self.rank
    }
    fn count(&self) -> usize {
        self.size
    }
}

/// The optimistic kernel across processes: through a courier.
impl Reach<Courier> for Cluster {
    fn connect(&self, cfg: &Config, pes: usize) -> Courier {
        Courier::new(self.world.duplicate(), Layout::new(self.rank, self.size, pes), &cfg.link)
    }
    fn end<M: Model>(
        &self,
        model: &M,
        cfg: &Config,
        stats: Stats,
        net: &Courier,
        _: u64,
        end: ProcessEnd<'_, M>,
    ) -> Result<Outcome<M>, Error> {
        self.gather_end(model, cfg, stats, net.finish(), end)
    }
}

/// The conservative kernel across processes: one swap per window.
impl Reach<conservative::Windows> for Cluster {
    fn connect(&self, _: &Config, _: usize) -> conservative::Windows {
        conservative::Windows::new(self)
    }
    fn end<M: Model>(
        &self,
        model: &M,
        cfg: &Config,
        stats: Stats,
        net: &conservative::Windows,
        sent: u64,
        end: ProcessEnd<'_, M>,
    ) -> Result<Outcome<M>, Error> {
        self.gather_end(model, cfg, stats, net.figures(sent), end)
    }
}

impl Processes for Cluster {
    type Net = Courier;
    type Windows = conservative::Windows;

    fn share<M: Model>(&self, snap: Option<Arc<Snapshot<M>>>) -> Result<Arc<Snapshot<M>>, Error> {
        share(snap, self)
    }
}

impl Cluster {
    /// The segment's outcome: every process' part gathered on rank 0.
    fn gather_end<M: Model>(
        &self,
        model: &M,
        cfg: &Config,
        stats: Stats,
        fig: Figures,
        end: ProcessEnd<'_, M>,
    ) -> Result<Outcome<M>, Error> {
        match end {
            // Rank 0 has no use for the trace and timeline of a cut that turns out to be the end.
            ProcessEnd::Cut { lps, events, .. } => {
                gather_cut(model, cfg, self, CutPart { part: RankPart::new(self.rank, stats, fig), lps, events })
            }
            ProcessEnd::End { lps, trace, timeline } => {
                gather(model, cfg, self, Part::new(self.rank, stats, fig, &lps, trace, timeline)).map(Outcome::Done)
            }
        }
    }
}

/// A process' statistics, as every report to rank 0 carries them.
#[derive(Serialize, Deserialize)]
struct RankPart {
    stats: Stats,
    rank: RankStats,
}

impl RankPart {
    fn new(rank: usize, stats: Stats, fig: Figures) -> Self {
        let rs = RankStats {
            rank: rank as u64,
            committed_events: stats.committed_events,
            processed_events: stats.processed_events,
            wall_seconds: stats.wall_seconds,
            init_seconds: stats.init_seconds,
            mpi_messages: fig.flushes.total(),
            mpi_events: fig.events,
            mpi_bytes: fig.bytes,
            mpi_flushes: fig.flushes,
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
struct CutPart<S, Msg> {
    part: RankPart,
    lps: Vec<(LpId, Lp<S>)>,
    events: Vec<Pending<Msg>>,
}

/// Sends every process' part of the cut to rank 0, which assembles the
/// snapshot; if nothing is pending anywhere the run has in fact ended, and
/// rank 0 makes the report. Every process learns which.
fn gather_cut<M: Model>(
    model: &M,
    cfg: &Config,
    cluster: &Cluster,
    mine: CutPart<M::State, M::Msg>,
) -> Result<Outcome<M>, Error> {
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
        let all: Vec<(&Stats, &RankStats)> = parts.iter().map(|p| (&p.part.stats, &p.part.rank)).collect();
        let stats = merge_processes(model, cfg, &all);
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
        return Ok(Outcome::Paused(ended));
    }
    Ok(Outcome::Done(ended.map(|snap| {
        let lps = snap.lps.iter().enumerate().map(|(i, l)| (i as LpId, l));
        finish(model, lps, snap.stats)
    })))
}

/// Sends rank 0's snapshot to every process (each starts the next segment from it).
fn share<M: Model>(snap: Option<Arc<Snapshot<M>>>, cluster: &Cluster) -> Result<Arc<Snapshot<M>>, Error> {
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
        None => crate::checkpoint::decode(&bytes).map(Arc::new),
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
    let all: Vec<(&Stats, &RankStats)> =
        std::iter::once((&mine.stats, &mine.rank)).chain(others.iter().map(|p| (&p.stats, &p.rank))).collect();
    let mut stats = merge_processes(model, cfg, &all);
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
