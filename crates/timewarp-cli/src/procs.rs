//! The processes of a run: one, or MPI's (feature `mpi`), and how a run
//! starts on them.

use crate::args;
use timewarp::checkpoint::{Control, Plan, Snapshot};
use timewarp::{Model, Run};

/// The processes of this run: MPI's when built with the `mpi` feature.
pub(crate) struct Procs {
    #[cfg(feature = "mpi")]
    cluster: timewarp::mpi::Cluster,
}

impl Procs {
    pub(crate) fn init() -> Result<Self, String> {
        #[cfg(not(feature = "mpi"))]
        if let Some((var, size)) = mpi_launcher() {
            return Err(format!(
                "this timewarp was built without MPI, but an MPI launcher started it as one of {size} processes \
                 ({var}={size}): each would run the whole model alone; build it with \
                 `cargo build --release -p timewarp-cli --features mpi --target-dir target/mpi` (see the README, MPI), or run it without mpirun"
            ));
        }
        Ok(Procs {
            #[cfg(feature = "mpi")]
            cluster: timewarp::mpi::Cluster::init().map_err(|e| e.to_string())?,
        })
    }
    pub(crate) fn rank(&self) -> usize {
        #[cfg(feature = "mpi")]
        return self.cluster.rank();
        #[cfg(not(feature = "mpi"))]
        0
    }
    pub(crate) fn size(&self) -> usize {
        #[cfg(feature = "mpi")]
        return self.cluster.size();
        #[cfg(not(feature = "mpi"))]
        1
    }
    /// An error on this process alone: with other processes waiting for this
    /// one, say which rank failed and end them all; else return it.
    pub(crate) fn alone(&self, e: String) -> String {
        #[cfg(feature = "mpi")]
        if self.size() > 1 {
            // One write: a line that the abort banner mpirun prints into
            // the same pipe cannot split (`eprintln!` writes it in pieces).
            let line = format!("error (rank {}): {e}\n", self.rank());
            let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), line.as_bytes());
            self.cluster.abort(1)
        }
        e
    }

    /// The outcome of a check each process makes on its own (the machine's
    /// memory): refused on every process, it is returned (rank 0 prints it
    /// once); refused on some only, those say so and end the job.
    pub(crate) fn agree<T>(&self, local: Result<T, String>) -> Result<T, String> {
        #[cfg(feature = "mpi")]
        if self.size() > 1 {
            let refused = self.cluster.count(local.is_err());
            if refused > 0 && refused < self.size() {
                if let Err(e) = local {
                    return Err(self.alone(e));
                }
                // Wait for a refusing process to end the job.
                loop {
                    std::thread::sleep(std::time::Duration::from_secs(1));
                }
            }
        }
        local
    }

    /// Runs `model` here (and on every MPI process), with checkpoints as
    /// `ck` says; the report comes back on rank 0 only.
    pub(crate) fn run<M: Model>(
        &self,
        model: &M,
        cfg: &timewarp::Config,
        ck: Checkpoints<'_, M>,
    ) -> Result<Option<timewarp::Report<M::Results>>, timewarp::Error> {
        let mut run = Run::new(model, cfg);
        // Pausing on request needs a directory for the checkpoint.
        let none = Control::default();
        let control = if ck.plan.dir.is_some() || ck.stoppable { ck.control } else { &none };
        // A plain run gets neither: without a plan and a control the
        // kernels run their instances that never look for a pause (the
        // sequential loop's pause tests cost 1.5 % of its instructions).
        if ck.plan.dir.is_some() || ck.start.is_some() || ck.stoppable {
            run = run.plan(&ck.plan).control(control);
        }
        if let Some(snap) = ck.start {
            run = run.resume(snap);
        }
        #[cfg(feature = "mpi")]
        return run.on(&self.cluster).execute();
        #[cfg(not(feature = "mpi"))]
        run.execute().map(Some)
    }

    /// A run's error as the command line says it; one that only this
    /// process may have hit ends the whole MPI job.
    pub(crate) fn failed(&self, e: timewarp::Error) -> String {
        match e {
            // The same on every process (checked before any message): each
            // returns it and rank 0 alone prints it.
            e @ (timewarp::Error::Config(_) | timewarp::Error::Option { .. }) => args::describe(&e),
            e => self.alone(args::describe(&e)),
        }
    }
}

/// A run's checkpoint plan, the snapshot it starts from, and what can ask it to pause.
pub(crate) struct Checkpoints<'a, M: Model> {
    pub(crate) plan: Plan,
    pub(crate) start: Option<Snapshot<M>>,
    pub(crate) control: &'a Control,
    /// The run takes `control` even without a checkpoint directory, and
    /// an interruption is an error returned, not the process ended (an
    /// embedded run: [`crate::embed`]).
    pub(crate) stoppable: bool,
}

/// The launcher variable and process count when an MPI launcher (OpenMPI,
/// MPICH / Hydra, PMIx) started this process as one of several.
#[cfg(not(feature = "mpi"))]
fn mpi_launcher() -> Option<(&'static str, u64)> {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS"].into_iter().find_map(|var| {
        let size: u64 = std::env::var(var).ok()?.trim().parse().ok()?;
        (size > 1).then_some((var, size))
    })
}

/// This process' rank under an MPI launcher (0 without one): only rank 0
/// speaks, so the job's error is printed once.
pub(crate) fn launcher_rank() -> u64 {
    ["OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"]
        .into_iter()
        .find_map(|var| std::env::var(var).ok()?.trim().parse().ok())
        .unwrap_or(0)
}
