//! The kernels' seams to other processes: [`Network`] for the optimistic
//! kernel, [`WindowNet`] for the conservative one.
//!
//! A PE never calls MPI itself. It encodes what it sends to a PE of another
//! process into its [`Port`] (one buffer per destination PE, in the
//! [`wire`](super::wire) encoding); once per batch its transport hands the
//! buffers to the process' courier through [`Network::exchange`], which
//! consolidates them per destination process whatever PE wrote them
//! ([`Outbox`](super::outbox::Outbox)), and takes back the sections that
//! arrived for it. Within a section, and from one PE to another, order is
//! kept, so an anti-message never overtakes its event.
//!
//! [`NoNet`] and [`Alone`] are the networks of a single process: every
//! method is unreachable and the kernels' tests for another process fold
//! away at compile time.

use crate::error::Error;
use crate::gvt::{Gated, Gvt};
use crate::key::Key;

use super::port::Port;

/// Why a PE visits the courier.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Visit {
    /// After a batch that processed events, its next event at this time
    /// (how far it got): what is due leaves.
    Busy(f64),
    /// After a batch that processed none (no event, or held back): the PE
    /// would wait on the others, and they may wait on what it holds, so
    /// everything waiting leaves.
    Idle,
    /// Entering a GVT round: the PE waits for the courier, and everything
    /// leaves when the round starts.
    Round,
}

/// A process' link to the others, shared by its PEs; its [`Gated`] are
/// what a GVT round asks of it.
pub(crate) trait Network: Gated + Sync {
    /// Hands the sections waiting in `port` (of local PE `pe`) to the
    /// courier, lets it do its work (send, poll, GVT), and moves the
    /// sections that arrived for `pe` into `port.inbound`. Unless the PE is
    /// entering a round it gives up at once when another PE holds the courier.
    fn exchange(&self, pe: usize, port: &mut Port, gvt: &Gvt, visit: Visit) -> Result<(), Error>;

    /// Moves what arrived for local PE `pe` into `port.inbound` (everything
    /// the courier counted as received before this call).
    fn collect(&self, pe: usize, port: &mut Port);

    /// Local PE `pe` enters phase A of a GVT round: `sent[q]` is how many
    /// records it has sent to process `q` so far (all of them white).
    fn snapshot(&self, pe: usize, sent: &[u64]);
}

/// The network of an optimistic run in one process.
pub(crate) struct NoNet;

impl Gated for NoNet {
    const ACTIVE: bool = false;
    fn gate_open(&self, _: u64) -> bool {
        true
    }
    fn process_min(&self, _: u64, _: Key) {
        unreachable!("a single-process run publishes GVT itself")
    }
}

impl Network for NoNet {
    fn exchange(&self, _: usize, _: &mut Port, _: &Gvt, _: Visit) -> Result<(), Error> {
        unreachable!("a single-process run has no network")
    }
    fn collect(&self, _: usize, _: &mut Port) {
        unreachable!("a single-process run has no network")
    }
    fn snapshot(&self, _: usize, _: &[u64]) {
        unreachable!("a single-process run has no network")
    }
}

/// How a conservative run reaches other processes.
pub(crate) trait WindowNet: std::marker::Sync {
    /// False for [`Alone`], so its branches compile away.
    const ACTIVE: bool;
    /// Called by one thread per process between windows: sends `out[q]` (the
    /// message for process `q`, in the [`wire`](super::wire) encoding,
    /// emptied) to every other process, appends the messages the others sent
    /// here to `received`, and returns the minimum of `local_min` over all
    /// processes.
    /// (Named for the all-to-all swap it is: "exchange" names the
    /// optimistic network's hand-over and polling.)
    fn swap(&self, out: &mut [Vec<u8>], local_min: f64, received: &mut Vec<Vec<u8>>) -> Result<f64, Error>;
}

/// The network of a conservative run in one process.
pub(crate) struct Alone;

impl WindowNet for Alone {
    const ACTIVE: bool = false;
    fn swap(&self, _: &mut [Vec<u8>], _: f64, _: &mut Vec<Vec<u8>>) -> Result<f64, Error> {
        unreachable!("a single-process run has no network")
    }
}
