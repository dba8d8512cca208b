//! Segments: the part of a run one kernel call covers, and the cut it
//! starts from or pauses at.
//!
//! A run that checkpoints is a series of segments; one that does not is a
//! single segment from time 0 to the end. This layer sits below both the
//! kernels (which run a segment) and the checkpoint module
//! (which strings segments together and writes their cuts to files), so
//! neither needs the other's types.

mod control;
mod snapshot;

pub use control::Control;
pub(crate) use snapshot::Pending;
pub use snapshot::Snapshot;

use crate::error::Error;
use crate::model::Model;
use crate::report::Report;

/// Which part of a run a kernel call covers: where it starts (time 0, or
/// a snapshot) and where it may pause for a checkpoint.
pub(crate) struct Segment<'a, M: Model> {
    /// The cut to start from; `None`: the model's `init`.
    pub(crate) start: Option<&'a Snapshot<M>>,
    /// Pause once every event before this time is committed (`INFINITY`: run to the end).
    pub(crate) pause: f64,
    /// Asks to pause as soon as possible (signals, a wall-clock timer).
    pub(crate) control: Option<&'a Control>,
}

impl<M: Model> Segment<'_, M> {
    /// The whole run, from time 0 to the end, without pauses.
    pub(crate) fn whole() -> Self {
        Segment { start: None, pause: f64::INFINITY, control: None }
    }

    /// Whether a pause was asked for (only polled where the kernel can cut).
    #[inline]
    pub(crate) fn stop_requested(&self) -> bool {
        self.control.is_some_and(Control::requested)
    }
}

/// How a segment ended, across all processes of the run: the report or the
/// snapshot is on the first process (rank 0) and `None` on the others (one
/// process: always there). One per segment: its size does not matter.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Outcome<M: Model> {
    /// The run reached its end.
    Done(Option<Report<M::Results>>),
    /// The run paused at a consistent cut.
    Paused(Option<Snapshot<M>>),
}

impl<M: Model> Outcome<M> {
    /// The report of a run in one process that cannot pause.
    pub(crate) fn report(self) -> Result<Report<M::Results>, Error> {
        match self {
            Outcome::Done(Some(r)) => Ok(r),
            Outcome::Done(None) => Err(Error::Internal("a run in one process ended without a report".into())),
            Outcome::Paused(_) => Err(Error::Internal("a run without pauses paused".into())),
        }
    }
}
