//! The processes a run spans: one (a run on threads) or several (MPI).
//!
//! Every parallel kernel runs its PEs in this process and hands what they
//! hold at the end of the segment to its network's [`Reach::end`], which
//! makes the segment's outcome — in one process directly, across processes
//! by gathering on rank 0. The one segment loop (`run/driver.rs`) and
//! the one kernel table ([`dispatch`](super::dispatch)) serve both cases
//! through this seam.

use std::sync::Arc;

use crate::config::Config;
use crate::error::Error;
use crate::model::Model;
use crate::segment::{Outcome, Snapshot};
use crate::stats::Stats;

use super::end::{alone, ProcessEnd, Ranks, Reach};
use crate::transport::{Alone, Network, NoNet, WindowNet};

/// The processes of a run, with the network each parallel kernel uses
/// between them.
pub(crate) trait Processes: Reach<Self::Net> + Reach<Self::Windows> {
    /// How the optimistic kernel reaches other processes.
    type Net: Network;
    /// How the conservative kernel reaches other processes.
    type Windows: WindowNet;
    /// After a pause: rank 0's snapshot (`Some` there) on every process,
    /// each starting the next segment from it.
    fn share<M: Model>(&self, snap: Option<Arc<Snapshot<M>>>) -> Result<Arc<Snapshot<M>>, Error>;
}

/// A run in this process alone.
pub(crate) struct One;

impl Ranks for One {
    fn rank(&self) -> usize {
        0
    }
    fn count(&self) -> usize {
        1
    }
}

impl Reach<NoNet> for One {
    fn connect(&self, _: &Config, _: usize) -> NoNet {
        NoNet
    }
    fn end<M: Model>(
        &self,
        m: &M,
        _: &Config,
        s: Stats,
        _: &NoNet,
        _: u64,
        e: ProcessEnd<'_, M>,
    ) -> Result<Outcome<M>, Error> {
        Ok(alone(m, s, e))
    }
}

impl Reach<Alone> for One {
    fn connect(&self, _: &Config, _: usize) -> Alone {
        Alone
    }
    fn end<M: Model>(
        &self,
        m: &M,
        _: &Config,
        s: Stats,
        _: &Alone,
        _: u64,
        e: ProcessEnd<'_, M>,
    ) -> Result<Outcome<M>, Error> {
        Ok(alone(m, s, e))
    }
}

impl Processes for One {
    type Net = NoNet;
    type Windows = Alone;

    fn share<M: Model>(&self, snap: Option<Arc<Snapshot<M>>>) -> Result<Arc<Snapshot<M>>, Error> {
        snap.ok_or_else(|| Error::Internal("a run in one process paused without a snapshot".into()))
    }
}
