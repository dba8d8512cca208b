//! Checkpoint and restart at a consistent cut.
//!
//! A GVT is a consistent cut: nothing below it can change. A run that
//! checkpoints is a series of *segments*: a kernel runs until every event
//! before the next mark is committed and none at or after it is processed
//! (or, asked by a signal or a timer through [`Control`], until the next
//! cut it can make: the next event, window or GVT round), and hands back a
//! [`Snapshot`] — every LP's record (state, random-stream counters, send
//! counter, history digest) and every pending event. The snapshot goes to
//! a [`file`] and starts the next segment, in any mode, on any number of
//! threads or processes: the committed history, and so the digest, is that
//! of a run that never stopped.
//!
//! ```
//! use timewarp::checkpoint::{self, Control, Plan};
//! # let model = timewarp::verify::doc_model();
//! let dir = std::env::temp_dir().join(format!("tw-ckpt-doc-{}", std::process::id()));
//! let cfg = timewarp::Config { end: 20.0, ..Default::default() };
//! let plan = Plan { dir: Some(dir.clone()), every: Some(5.0), ..Plan::default() };
//! let with = checkpoint::run(&model, &cfg, &plan, &Control::default(), None).unwrap();
//! assert_eq!(with.stats.digest, timewarp::run(&model, &cfg).unwrap().stats.digest);
//! // Continue from the checkpoint at 15 (or later): the same digest.
//! let last = checkpoint::list(&dir).unwrap().pop().unwrap();
//! let snap = checkpoint::File::open(&last).unwrap().load(&model, None).unwrap();
//! let resumed = checkpoint::run(&model, &cfg, &Plan::default(), &Control::default(), Some(snap)).unwrap();
//! assert_eq!(resumed.stats.digest, with.stats.digest);
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```

mod driver;
mod file;
mod inputs;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering::*};
use std::sync::Arc;
use std::time::Duration;

pub(crate) use driver::drive;
#[cfg(feature = "mpi")]
pub(crate) use file::{decode, encode};
pub use file::{params_hash, File, Header, FORMAT_VERSION};
pub use inputs::{fingerprint, Input, InputFiles};
// Defined below the kernels (which take and make them); their public home is here.
pub use crate::segment::{Control, Snapshot};

use crate::error::Error;
use crate::kernel::processes::One;
use crate::model::Model;
use crate::report::Report;
use crate::Config;

/// When and where a run writes checkpoints.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Directory of the checkpoint files (`None`: write none; a stop request
    /// then ends the run at its next cut without one).
    pub dir: Option<PathBuf>,
    /// A checkpoint at the first GVT at or past every multiple of this virtual time.
    pub every: Option<f64>,
    /// A checkpoint every this many wall-clock seconds (at the next cut).
    pub wall: Option<f64>,
    /// How many checkpoint files to keep in `dir` (the newest; at least 1).
    pub keep: usize,
    /// The model's parameters (a resume must give the same).
    pub params: serde_json::Value,
    /// The front end's command line, stored so a resume can rebuild the model.
    pub command: Vec<String>,
    /// The input files the run read at start ([`fingerprint`]), which a
    /// resume checks ([`File::check_inputs`]) before reading them again.
    pub inputs: Vec<Input>,
}

impl Default for Plan {
    fn default() -> Self {
        Plan {
            dir: None,
            every: None,
            wall: None,
            keep: 2,
            params: serde_json::Value::Null,
            command: Vec::new(),
            inputs: Vec::new(),
        }
    }
}

impl Plan {
    /// Checks the values, saying which option is wrong.
    pub fn validate(&self) -> Result<(), Error> {
        let bad = |option, problem: String| Err(Error::Option { option, problem });
        if let Some(v) = self.every {
            if !(v.is_finite() && v > 0.0) {
                return bad("checkpoint-every", format!("must be a virtual time > 0, got {v}"));
            }
        }
        if let Some(w) = self.wall {
            if !(w.is_finite() && w > 0.0) {
                return bad("checkpoint-wall", format!("must be a number of seconds > 0, got {w}"));
            }
        }
        if self.keep == 0 {
            return bad("checkpoint-keep", "must be at least 1 (the newest checkpoint)".into());
        }
        if self.dir.is_none() && (self.every.is_some() || self.wall.is_some()) {
            return bad(
                "checkpoint-dir",
                "--checkpoint-every and --checkpoint-wall need a directory to write to".into(),
            );
        }
        Ok(())
    }

    /// Creates the checkpoint directory (before a run: a bad path should not cost one).
    pub(crate) fn make_dir(&self) -> Result<(), Error> {
        match &self.dir {
            Some(dir) => std::fs::create_dir_all(dir).map_err(|e| Error::Checkpoint {
                path: dir.display().to_string(),
                problem: format!("cannot create the checkpoint directory: {e}"),
            }),
            None => Ok(()),
        }
    }

    /// The first mark strictly after virtual time `t` (`INFINITY`: none).
    pub(crate) fn next_mark(&self, t: f64) -> f64 {
        match self.every {
            Some(v) => {
                let m = ((t / v).floor() + 1.0) * v;
                // Guard against rounding: a mark is always past `t`.
                if m > t {
                    m
                } else {
                    m + v
                }
            }
            None => f64::INFINITY,
        }
    }
}

/// Runs `model` from time 0 (or from `start`) to the end, writing
/// checkpoints as `plan` says; a stop request through `control` writes one
/// and ends the run with [`Error::Interrupted`].
///
/// A checkpoint is written by a thread of its own while the run goes on
/// from the same snapshot (both only read it); the next one waits for it,
/// so files appear, and are rotated, in order. One that cannot be written
/// (a full disk) is a warning on stderr and the run goes on; only a stop's
/// checkpoint failing is the run's error.
pub fn run<M: Model>(
    model: &M,
    cfg: &Config,
    plan: &Plan,
    control: &Control,
    start: Option<Snapshot<M>>,
) -> Result<Report<M::Results>, Error> {
    drive(model, cfg, &One, Some(plan), Some(control), start)?
        .ok_or_else(|| Error::Internal("a run in one process ended without a report".into()))
}

/// Says that a periodic checkpoint could not be written (a full disk):
/// not the run's error, which goes on (one process and under MPI alike).
pub(crate) fn warn_unwritten(e: &Error) {
    eprintln!("warning: {e}; the run goes on without this checkpoint");
}

/// A write under way: its seconds and the files written, oldest first; or
/// why it failed, and the files written before.
type Writing = std::thread::JoinHandle<Result<(f64, Vec<PathBuf>), (Error, Vec<PathBuf>)>>;

/// Writes checkpoints one at a time on a thread of its own.
///
/// A checkpoint that cannot be written (a full disk) does not end the run:
/// the error goes to stderr as a warning, the files written before stay,
/// and the next checkpoint is tried as planned (the disk may have room by
/// then). Only the checkpoint of a stop request fails the run.
struct Writer<M: Model> {
    running: Option<Writing>,
    written: Vec<PathBuf>,
    _model: std::marker::PhantomData<fn() -> M>,
}

impl<M: Model> Default for Writer<M> {
    fn default() -> Self {
        Writer { running: None, written: Vec::new(), _model: std::marker::PhantomData }
    }
}

impl<M: Model> Writer<M> {
    /// Starts writing `snap` to `path` in `dir` (keeping `keep` files).
    fn write(&mut self, dir: PathBuf, path: PathBuf, header: Header, snap: Arc<Snapshot<M>>, keep: usize) {
        let mut written = std::mem::take(&mut self.written);
        self.running = Some(std::thread::spawn(move || {
            let t = std::time::Instant::now();
            match save(&dir, &path, &header, &snap, keep, &mut written) {
                Ok(()) => Ok((t.elapsed().as_secs_f64(), written)),
                Err(e) => Err((e, written)),
            }
        }));
    }

    /// Waits for the write under way; returns the seconds it took and
    /// whether it failed (1, after a warning) or not (0).
    fn wait(&mut self) -> Result<(f64, u64), Error> {
        match self.finish()? {
            Ok(seconds) => Ok((seconds, 0)),
            Err(e) => {
                warn_unwritten(&e);
                Ok((0.0, 1))
            }
        }
    }

    /// Waits for the write of a stop's checkpoint: why it failed, if it did.
    fn wait_for_stop(&mut self) -> Option<Error> {
        match self.finish() {
            Ok(Ok(_)) => None,
            Ok(Err(e)) | Err(e) => Some(e),
        }
    }

    /// The write's outcome: its seconds, or why it failed (outer error: the writer panicked).
    fn finish(&mut self) -> Result<Result<f64, Error>, Error> {
        let Some(h) = self.running.take() else { return Ok(Ok(0.0)) };
        let outcome = h
            .join()
            .map_err(|p| Error::Internal(format!("checkpoint writer: {}", crate::kernel::panic_text(p.as_ref()))))?;
        Ok(match outcome {
            Ok((seconds, written)) => {
                self.written = written;
                Ok(seconds)
            }
            Err((e, written)) => {
                self.written = written;
                Err(e)
            }
        })
    }
}

/// Where a checkpoint of `snap` goes in `dir`: `ckpt-<GVT>.twc`.
pub(crate) fn file_path<M: Model>(dir: &Path, snap: &Snapshot<M>) -> PathBuf {
    dir.join(format!("ckpt-{}.twc", snap.time()))
}

/// The header of a checkpoint of `snap`.
pub(crate) fn header<M: Model>(plan: &Plan, cfg: &Config, model: &str, snap: &Snapshot<M>, ranks: u64) -> Header {
    Header {
        format: FORMAT_VERSION,
        engine: env!("CARGO_PKG_VERSION").to_string(),
        model: model.to_string(),
        params: plan.params.clone(),
        params_hash: params_hash(&plan.params),
        command: plan.command.clone(),
        seed: cfg.seed,
        cut: snap.cut,
        end: cfg.end,
        lps: snap.lps.len() as u64,
        events: snap.events.len() as u64,
        committed_events: snap.stats.committed_events,
        sync: cfg.sync.name().to_string(),
        threads: cfg.threads,
        ranks,
        digest_version: crate::digest::DIGEST_VERSION,
        inputs: Some(plan.inputs.clone()),
    }
}

/// A snapshot ready to start a run of `cfg`: its events past a new, earlier
/// end dropped; a later end refused (events past the old end were never
/// created).
pub(crate) fn prepare<M: Model>(mut snap: Snapshot<M>, cfg: &Config) -> Result<Snapshot<M>, Error> {
    let old = snap.stats.end_time;
    if old > 0.0 && cfg.end > old {
        return Err(Error::Option {
            option: "end",
            problem: format!(
                "the checkpoint's run ends at {old}; a resume can end there or earlier, not at {} (events past {old} \
                 were never created)",
                cfg.end
            ),
        });
    }
    if cfg.end <= snap.time() && snap.pending_events() > 0 {
        return Err(Error::Option {
            option: "end",
            problem: format!(
                "the checkpoint is at time {}; a resume must end after it, not at {}",
                snap.time(),
                cfg.end
            ),
        });
    }
    let dropped = snap.truncate(cfg.end);
    snap.stats.events_past_end += dropped;
    snap.stats.end_time = cfg.end;
    Ok(snap)
}

/// Writes `snap` to `path` in `dir` and keeps the newest `keep` checkpoint
/// files there (`written`: this run's, oldest first).
pub(crate) fn save<M: Model>(
    dir: &Path,
    path: &Path,
    header: &Header,
    snap: &Snapshot<M>,
    keep: usize,
    written: &mut Vec<PathBuf>,
) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::Checkpoint {
        path: dir.display().to_string(),
        problem: format!("cannot create the checkpoint directory: {e}"),
    })?;
    file::write(path, header, snap)?;
    let path = path.to_path_buf();
    written.retain(|p| p != &path);
    written.push(path);
    // Keep the newest: this run's files, and older ones found in the directory.
    let mut all = list(dir)?;
    all.retain(|p| !written.contains(p));
    all.extend(written.iter().cloned());
    let excess = all.len().saturating_sub(keep);
    for old in all.drain(..excess) {
        let _ = std::fs::remove_file(&old);
        written.retain(|p| p != &old);
    }
    Ok(())
}

/// The checkpoint files `ckpt-<time>.twc` in `dir`, oldest (earliest cut) first.
pub fn list(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let rd = std::fs::read_dir(dir).map_err(|e| Error::Checkpoint {
        path: dir.display().to_string(),
        problem: format!("cannot list the checkpoint directory: {e}"),
    })?;
    let mut found: Vec<(f64, PathBuf)> = rd
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let t: f64 = name.strip_prefix("ckpt-")?.strip_suffix(".twc")?.parse().ok()?;
            Some((t, e.path()))
        })
        .collect();
    found.sort_by(|a, b| a.0.total_cmp(&b.0));
    Ok(found.into_iter().map(|x| x.1).collect())
}

/// Rings `control` every `seconds` of wall-clock time until dropped.
struct Timer {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Timer {
    fn start(control: Control, seconds: f64) -> Timer {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let period = Duration::from_secs_f64(seconds);
        let thread = std::thread::Builder::new()
            .name("timewarp checkpoint timer".into())
            .spawn(move || loop {
                let due = std::time::Instant::now() + period;
                while std::time::Instant::now() < due {
                    std::thread::park_timeout(due.saturating_duration_since(std::time::Instant::now()));
                    if flag.load(Acquire) {
                        return;
                    }
                }
                control.ring();
            })
            .ok();
        Timer { stop, thread }
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        self.stop.store(true, Release);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}
