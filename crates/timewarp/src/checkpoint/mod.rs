//! Checkpoint and restart at a consistent cut.
//!
//! A GVT is a consistent cut: nothing below it can change. A run that
//! checkpoints is a series of *segments*: a kernel runs until every event
//! before the next mark is committed and none at or after it is processed
//! (or, asked by a signal or a timer through [`Control`], until the next
//! cut it can make: the next event, window or GVT round), and hands back a
//! [`Snapshot`] — every LP's record (state, random-stream counters, send
//! counter, history digest) and every pending event. The snapshot goes to
//! a file (`file.rs`: the format; `directory.rs`: the files of a
//! directory) and starts the next segment, in any mode, on any number of
//! threads or processes: the committed history, and so the digest, is that
//! of a run that never stopped.
//!
//! This module is the format and the [`Plan`]; the segment loop that
//! writes checkpoints and resumes from them is the run's
//! ([`Run`](crate::Run)).
//!
//! ```
//! use timewarp::checkpoint::{self, Control, Plan};
//! use timewarp::Run;
//! # let model = timewarp::verify::doc_model();
//! let dir = std::env::temp_dir().join(format!("tw-ckpt-doc-{}", std::process::id()));
//! let cfg = timewarp::Config { end: 20.0, ..Default::default() };
//! let plan = Plan { dir: Some(dir.clone()), every: Some(5.0), ..Plan::default() };
//! let control = Control::default();
//! let with = Run::new(&model, &cfg).plan(&plan).control(&control).execute().unwrap();
//! assert_eq!(with.stats.digest, Run::new(&model, &cfg).execute().unwrap().stats.digest);
//! // Continue from the checkpoint at 15 (or later): the same digest.
//! let last = checkpoint::list(&dir).unwrap().pop().unwrap();
//! let snap = checkpoint::File::open(&last).unwrap().load(&model, None).unwrap();
//! let resumed = Run::new(&model, &cfg).resume(snap).execute().unwrap();
//! assert_eq!(resumed.stats.digest, with.stats.digest);
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```

mod directory;
mod file;
mod inputs;
mod plan;
#[cfg(test)]
mod tests;

pub use directory::list;
pub(crate) use directory::{file_path, save};
#[cfg(feature = "mpi")]
pub(crate) use file::{decode, encode};
pub use file::{params_hash, File, Header, FORMAT_VERSION};
pub use inputs::{fingerprint, Input, InputFiles};
pub(crate) use plan::header;
pub use plan::Plan;
// Defined below the kernels (which take and make them); their public home is here.
pub use crate::segment::{Control, Snapshot};

use crate::config::Config;
use crate::error::Error;
use crate::model::Model;
use crate::report::Report;

/// Runs `model` from time 0 (or from `start`) to the end, writing
/// checkpoints as `plan` says; a stop request through `control` writes one
/// and ends the run with [`Error::Interrupted`].
///
/// ```
/// # #![allow(deprecated)]
/// use timewarp::checkpoint::{self, Control, Plan};
/// # let model = timewarp::verify::doc_model();
/// let cfg = timewarp::Config { end: 20.0, ..Default::default() };
/// let old = checkpoint::run(&model, &cfg, &Plan::default(), &Control::default(), None).unwrap();
/// let new = timewarp::Run::new(&model, &cfg).plan(&Plan::default()).control(&Control::default()).execute();
/// assert_eq!(old.stats.digest, new.unwrap().stats.digest);
/// ```
#[deprecated(note = "one entry starts every run: `timewarp::Run::new(model, cfg).plan(plan).control(control)` \
                     (and `.resume(snapshot)`), then `.execute()`")]
pub fn run<M: Model>(
    model: &M,
    cfg: &Config,
    plan: &Plan,
    control: &Control,
    start: Option<Snapshot<M>>,
) -> Result<Report<M::Results>, Error> {
    let run = crate::run::Run::new(model, cfg).plan(plan).control(control);
    match start {
        Some(snap) => run.resume(snap).execute(),
        None => run.execute(),
    }
}
