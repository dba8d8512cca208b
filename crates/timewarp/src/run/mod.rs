//! Starting a run: [`Run`], the one entry to every run — from time 0 or
//! from a checkpoint, writing checkpoints or not, in this process or in
//! every process of an MPI job. The options are the [`Config`]'s and the
//! plan's; the engine picks the path.
//!
//! Below the entry: the segment loop every run goes through (`driver.rs`),
//! the background writer of its checkpoints and their wall-clock timer
//! (`writer.rs`, `timer.rs`), a snapshot made ready to resume from
//! (`resume.rs`), the memory a run needs ([`memory`]: checked before
//! anything is allocated, and the sizes the kernels receive), and the
//! sequential profile ([`profile`](crate::profile)).

mod deprecated;
mod driver;
pub mod memory;
mod profile;
mod resume;
mod timer;
mod writer;

#[allow(deprecated)]
pub use deprecated::run;
pub use profile::profile;

use crate::checkpoint::{Control, Plan, Snapshot};
use crate::config::Config;
use crate::error::Error;
use crate::kernel::processes::One;
use crate::model::Model;
#[cfg(feature = "mpi")]
use crate::mpi::Cluster;
use crate::report::Report;
use driver::drive;

/// A run of a model, built from its options and started with `execute`:
/// the one way to start a run.
///
/// [`Run::new`] takes the model and its [`Config`]; before `execute` a run
/// may get a checkpoint [`Plan`] ([`Run::plan`]), a [`Control`] that asks
/// it to pause ([`Run::control`]), a [`Snapshot`] to resume from
/// ([`Run::resume`]) and, built with the `mpi` feature, the processes of an
/// MPI job to span (`Run::on`). `P` is where it runs: `()`, this process
/// (`execute` returns the report); `&Cluster`, every process of the job
/// (`execute` returns the report on rank 0 and `None` elsewhere).
///
/// ```
/// use timewarp::checkpoint::{self, Control, Plan};
/// use timewarp::{Config, Run};
/// # let model = timewarp::verify::doc_model();
/// let cfg = Config { end: 20.0, ..Config::default() };
/// let whole = Run::new(&model, &cfg).execute().unwrap();
///
/// // The same run, writing a checkpoint at 10, then resumed from it.
/// let dir = std::env::temp_dir().join(format!("tw-run-doc-{}", std::process::id()));
/// let plan = Plan { dir: Some(dir.clone()), every: Some(10.0), keep: 1, ..Plan::default() };
/// let control = Control::default();
/// let with = Run::new(&model, &cfg).plan(&plan).control(&control).execute().unwrap();
/// let snap = checkpoint::File::open(&checkpoint::list(&dir).unwrap()[0]).unwrap().load(&model, None).unwrap();
/// let resumed = Run::new(&model, &cfg).resume(snap).execute().unwrap();
/// assert_eq!(with.stats.digest, whole.stats.digest);
/// assert_eq!(resumed.stats.digest, whole.stats.digest);
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[must_use = "a run does nothing until `execute`"]
pub struct Run<'a, M: Model, P = ()> {
    model: &'a M,
    cfg: &'a Config,
    plan: Option<&'a Plan>,
    control: Option<&'a Control>,
    start: Option<Snapshot<M>>,
    processes: P,
}

impl<'a, M: Model> Run<'a, M> {
    /// A run of `model` under `cfg` from time 0, in this process, writing
    /// no checkpoint.
    ///
    /// ```
    /// # let model = timewarp::verify::doc_model();
    /// let report = timewarp::Run::new(&model, &timewarp::Config::default()).execute().unwrap();
    /// assert!(report.stats.committed_events > 0);
    /// ```
    pub fn new(model: &'a M, cfg: &'a Config) -> Self {
        Run { model, cfg, plan: None, control: None, start: None, processes: () }
    }

    /// Runs it in this process: its report, or what went wrong
    /// (configuration, a handler sending into the past or below the
    /// lookahead, a reverse handler that does not restore state in check
    /// mode, a run stopped through its [`Control`]: [`Error::Interrupted`], ...).
    ///
    /// ```
    /// use timewarp::{Config, Run, SyncMode};
    /// # let model = timewarp::verify::doc_model();
    /// let seq = Run::new(&model, &Config::default()).execute().unwrap();
    /// let opt = Config { sync: SyncMode::Optimistic, threads: 2, ..Config::default() };
    /// assert_eq!(Run::new(&model, &opt).execute().unwrap().stats.digest, seq.stats.digest);
    /// ```
    pub fn execute(self) -> Result<Report<M::Results>, Error> {
        let Run { model, cfg, plan, control, start, processes: () } = self;
        drive(model, cfg, &One, plan, control, start)?
            .ok_or_else(|| Error::Internal("a run in one process ended without a report".into()))
    }

    /// Runs it on every process of `cluster` (each with `cfg.threads`
    /// worker threads). Every process must build the same run: the same
    /// model, configuration and plan, and the same checkpoint to resume
    /// from. Pauses on request ([`Run::control`]) need the processes to
    /// agree on a moment and are honoured in one process only; across
    /// processes `plan.wall` is refused. On an error, call
    /// [`Cluster::abort`] (the other processes would wait forever).
    ///
    /// ```no_run
    /// use timewarp::{mpi::Cluster, Config, Run, SyncMode};
    /// # let model = timewarp::verify::doc_model();
    /// let cluster = Cluster::init().expect("MPI");
    /// let cfg = Config { sync: SyncMode::Optimistic, threads: 2, ..Config::default() };
    /// match Run::new(&model, &cfg).on(&cluster).execute() {
    ///     Ok(Some(report)) => println!("{}", report.stats.table()), // rank 0
    ///     Ok(None) => {}                                           // other ranks
    ///     Err(e) => {
    ///         eprintln!("rank {}: {e}", cluster.rank());
    ///         cluster.abort(1)
    ///     }
    /// }
    /// ```
    #[cfg(feature = "mpi")]
    pub fn on(self, cluster: &'a Cluster) -> Run<'a, M, &'a Cluster> {
        let Run { model, cfg, plan, control, start, processes: () } = self;
        Run { model, cfg, plan, control, start, processes: cluster }
    }
}

#[cfg(feature = "mpi")]
impl<'a, M: Model> Run<'a, M, &'a Cluster> {
    /// Runs it on every process of its cluster: the report on rank 0,
    /// `None` on the others. At each mark of a plan the processes send
    /// their LPs and pending events to rank 0, which writes the checkpoint
    /// (one file, which resumes on any number of processes) and sends the
    /// whole snapshot back to every process for the next segment. A job of
    /// one process runs as [`Run::execute`] in this process does.
    ///
    /// See [`Run::on`] for an example.
    pub fn execute(self) -> Result<Option<Report<M::Results>>, Error> {
        let Run { model, cfg, plan, control, start, processes: cluster } = self;
        if cluster.size() == 1 {
            return Run { model, cfg, plan, control, start, processes: () }.execute().map(Some);
        }
        drive(model, cfg, cluster, plan, control, start)
    }
}

impl<'a, M: Model, P> Run<'a, M, P> {
    /// Writes checkpoints as `plan` says (a directory, marks in virtual or
    /// wall-clock time, how many files to keep); without a plan a run is
    /// one segment from its start to the end.
    ///
    /// ```
    /// use timewarp::checkpoint::{list, Plan};
    /// # let model = timewarp::verify::doc_model();
    /// let dir = std::env::temp_dir().join(format!("tw-plan-doc-{}", std::process::id()));
    /// let plan = Plan { dir: Some(dir.clone()), every: Some(5.0), keep: 2, ..Plan::default() };
    /// let cfg = timewarp::Config { end: 20.0, ..Default::default() };
    /// timewarp::Run::new(&model, &cfg).plan(&plan).execute().unwrap();
    /// assert_eq!(list(&dir).unwrap().len(), 2); // the newest two of 5, 10, 15
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn plan(mut self, plan: &'a Plan) -> Self {
        self.plan = Some(plan);
        self
    }

    /// Lets `control` ask the run to pause at its next cut (signals, a
    /// timer): it writes a checkpoint there (when the plan has a directory)
    /// and ends with [`Error::Interrupted`]. Give one only where a pause
    /// may be asked: a run with neither a control nor a plan's marks runs
    /// the kernels' instances that never look for one (cheaper per event).
    ///
    /// ```
    /// use timewarp::checkpoint::Control;
    /// use timewarp::{Error, Run};
    /// # let model = timewarp::verify::doc_model();
    /// let control = Control::default();
    /// control.interrupt();
    /// let cfg = timewarp::Config { end: 1000.0, ..Default::default() };
    /// let e = Run::new(&model, &cfg).control(&control).execute().err();
    /// assert!(matches!(e, Some(Error::Interrupted { checkpoint: None })), "{e:?}");
    /// ```
    pub fn control(mut self, control: &'a Control) -> Self {
        self.control = Some(control);
        self
    }

    /// Starts from `snapshot` (a checkpoint read with
    /// [`File::load`](crate::checkpoint::File::load)) instead of the
    /// model's `init`: the committed history, and so the digest, is that of
    /// a run that never stopped. The run may be in another mode, on other
    /// threads or processes, and end earlier than the checkpoint's.
    ///
    /// See [`Run`] for an example.
    pub fn resume(mut self, snapshot: Snapshot<M>) -> Self {
        self.start = Some(snapshot);
        self
    }
}
