//! The optimistic kernel's seam to other processes.
//!
//! A PE never calls MPI itself. It encodes what it sends to a PE of another
//! process into its [`Port`] (one buffer per destination PE, in the
//! [`wire`](crate::wire) encoding); once per batch its transport hands the
//! buffers to the process' courier through [`Network::exchange`], which
//! consolidates them per destination process whatever PE wrote them, and
//! takes back the sections that arrived for it. Within a section, and from
//! one PE to another, order is kept, so an anti-message never overtakes its
//! event.
//!
//! [`NoNet`] is the network of a single process: every method is
//! unreachable and the transport's test for another process folds away at
//! compile time.

use crate::error::Error;
use crate::kernel::port::Port;
use crate::key::Key;

use super::gvt::Gvt;

/// A process' link to the others, shared by its PEs.
pub(crate) trait Network: Sync {
    /// False for the single-process stand-in, so its branches compile away.
    const ACTIVE: bool;

    /// Hands the sections waiting in `port` (of local PE `pe`) to the
    /// courier, lets it do its work (send, poll, GVT), and moves the
    /// sections that arrived for `pe` into `port.inbound`. Without `force`
    /// it gives up at once when another PE holds the courier.
    fn exchange(&self, pe: usize, port: &mut Port, gvt: &Gvt, force: bool) -> Result<(), Error>;

    /// Moves what arrived for local PE `pe` into `port.inbound` (everything
    /// the courier counted as received before this call).
    fn collect(&self, pe: usize, port: &mut Port);

    /// Local PE `pe` enters phase A of a GVT round: `sent[q]` is how many
    /// records it has sent to process `q` so far (all of them white).
    fn snapshot(&self, pe: usize, sent: &[u64]);

    /// Whether the PEs may report for GVT round `round` (every white record
    /// sent to this process has arrived).
    fn gate_open(&self, round: u64) -> bool;

    /// Every PE of this process reported for `round`: `min` is the process
    /// minimum, for the round across processes.
    fn process_min(&self, round: u64, min: Key);
}

/// The network of a run in one process.
pub(crate) struct NoNet;

impl Network for NoNet {
    const ACTIVE: bool = false;
    fn exchange(&self, _: usize, _: &mut Port, _: &Gvt, _: bool) -> Result<(), Error> {
        unreachable!("a single-process run has no network")
    }
    fn collect(&self, _: usize, _: &mut Port) {
        unreachable!("a single-process run has no network")
    }
    fn snapshot(&self, _: usize, _: &[u64]) {
        unreachable!("a single-process run has no network")
    }
    fn gate_open(&self, _: u64) -> bool {
        true
    }
    fn process_min(&self, _: u64, _: Key) {
        unreachable!("a single-process run publishes GVT itself")
    }
}
