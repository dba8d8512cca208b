//! The run driver: the one segment loop every run goes through, in one
//! process or several, checkpointing or not.
//!
//! A run is a series of segments (one, without a plan): each is one call of
//! the kernel table ([`dispatch`]) over the run's [`Processes`], with the
//! sizes the memory estimate gives the kernels ([`Sizes`]); a segment
//! that pauses hands back a snapshot (on rank 0), which is written to a
//! file by the [`Writer`] and shared with every process to start the next.
//! Everything that differs between one process and MPI — the network, how
//! the end of a segment is gathered, how a snapshot reaches every
//! process — is behind the seam, so this loop is written once.

use std::sync::Arc;

use super::memory::{self, Estimate};
use super::resume::prepare;
use super::timer::Timer;
use super::writer::Writer;
use crate::checkpoint::{file_path, header, Plan};
use crate::config::Config;
use crate::error::Error;
use crate::kernel::processes::Processes;
use crate::kernel::{dispatch, Sizes};
use crate::model::Model;
use crate::report::Report;
use crate::segment::{Control, Outcome, Segment, Snapshot};

/// Runs `model` from time 0 (or from `start`) to the end on every process
/// of `x`, writing checkpoints as `plan` says (`None`: one segment, no
/// pauses). A stop request through `control` (one process only: across
/// processes they would have to agree on the moment) writes a checkpoint
/// and ends the run with [`Error::Interrupted`]. Rank 0 gets the report;
/// the others `None`.
pub(crate) fn drive<M: Model, X: Processes>(
    model: &M,
    cfg: &Config,
    x: &X,
    plan: Option<&Plan>,
    control: Option<&Control>,
    start: Option<Snapshot<M>>,
) -> Result<Option<Report<M::Results>>, Error> {
    check(cfg, x, plan)?;
    let control = control.filter(|_| x.count() == 1);
    let mut start: Option<Arc<Snapshot<M>>> = match start {
        Some(s) => Some(Arc::new(prepare(s, cfg)?)),
        None => {
            memory::check(model, cfg, x.count())?;
            None
        }
    };
    // The optimistic kernel sizes its rings by what this process' LPs and
    // events take (the same estimate whether the run starts or resumes).
    let own = Estimate::of(model, cfg, x.count());
    let sizes = Sizes { model_bytes: own.lps.saturating_add(own.events) };
    let _timer = plan.and_then(|p| p.wall).zip(control).map(|(w, c)| Timer::start(c.clone(), w));
    let mut writer = Writer::default();
    loop {
        let from = start.as_ref().map_or(0.0, |s| s.time());
        let pause = plan.map_or(f64::INFINITY, |p| p.next_mark(from));
        let seg = Segment { start: start.as_deref(), pause, control };
        match dispatch(model, cfg, &seg, x, sizes)? {
            Outcome::Done(mut report) => {
                if let Some(report) = &mut report {
                    if let Some(s) = &start {
                        report.stats.add_earlier(&s.stats);
                    }
                    let (seconds, failed) = writer.wait()?;
                    report.stats.checkpoint_seconds += seconds;
                    report.stats.checkpoints -= failed;
                }
                return Ok(report);
            }
            Outcome::Paused(snap) => {
                let earlier = start.take();
                let (snap, path) = match snap {
                    // Rank 0: the whole snapshot.
                    Some(snap) => {
                        let (snap, path) = to_writer(model, cfg, x, plan, &mut writer, snap, earlier)?;
                        (Some(snap), path)
                    }
                    None => (None, None),
                };
                if control.is_some_and(Control::interrupted) {
                    // The checkpoint the stop is for: its failure is the run's.
                    if let Some(e) = writer.wait_for_stop() {
                        return Err(e);
                    }
                    return Err(Error::Interrupted { checkpoint: path.map(|p| p.display().to_string()) });
                }
                if let Some(c) = control {
                    c.reset_timer();
                }
                start = Some(x.share(snap)?);
            }
        }
    }
}

/// What a run's plan may not ask in this run: invalid options, or a
/// wall-clock timer across processes; makes the checkpoint directory (rank 0).
fn check<X: Processes>(cfg: &Config, x: &X, plan: Option<&Plan>) -> Result<(), Error> {
    if let Some(plan) = plan {
        plan.validate()?;
    }
    cfg.validate()?;
    if cfg.link.is_on() && x.count() == 1 {
        return Err(Error::Option {
            option: cfg.link.option(),
            problem: "link emulation holds back messages between MPI processes, and this run has one process: start \
                      it under mpirun with 2 or more processes (an MPI build), or drop the option"
                .into(),
        });
    }
    if let Some(plan) = plan {
        if x.count() > 1 && plan.wall.is_some() {
            return Err(Error::Option {
                option: "checkpoint-wall",
                problem: "not offered under MPI (the processes would have to agree on the moment); use \
                          --checkpoint-every, in virtual time"
                    .into(),
            });
        }
        if x.rank() == 0 {
            plan.make_dir()?;
        }
    }
    Ok(())
}

/// Rank 0 at a pause: the segment's snapshot with the earlier segments'
/// statistics (and the last checkpoint's writing time), handed to the
/// background writer when the plan has a directory; its file's path.
fn to_writer<M: Model, X: Processes>(
    model: &M,
    cfg: &Config,
    x: &X,
    plan: Option<&Plan>,
    writer: &mut Writer<M>,
    mut snap: Snapshot<M>,
    earlier: Option<Arc<Snapshot<M>>>,
) -> Result<(Arc<Snapshot<M>>, Option<std::path::PathBuf>), Error> {
    if let Some(s) = &earlier {
        snap.stats.add_earlier(&s.stats);
    }
    // The segment that started from it is over: only a writer may still hold it.
    drop(earlier);
    let (seconds, failed) = writer.wait()?;
    snap.stats.checkpoint_seconds += seconds;
    snap.stats.checkpoints -= failed;
    let dir = plan.and_then(|p| p.dir.as_ref().map(|d| (p, d)));
    if dir.is_some() {
        snap.stats.checkpoints += 1;
    }
    let snap = Arc::new(snap);
    let path = dir.map(|(plan, dir)| {
        let path = file_path(dir, &snap);
        let head = header(plan, cfg, model.name(), &snap, x.count() as u64);
        writer.write(dir.clone(), path.clone(), head, snap.clone(), plan.keep);
        path
    });
    Ok((snap, path))
}
