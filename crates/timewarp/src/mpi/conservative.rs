//! Conservative windows across processes: once per window one thread per
//! process swaps the encoded events with every other process (one message
//! per pair and window, possibly empty, so each side knows what to wait
//! for) and all-reduces the minimum that bounds the next window.

use std::sync::Mutex;
use std::time::Instant;

use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use crate::error::Error;
use crate::transport::WindowNet;

use super::courier::Figures;
use super::Cluster;

/// MPI tag of a window's events.
const TAG_WINDOW: i32 = 19;

/// The MPI side of conservative windows.
pub(crate) struct Windows {
    inner: Mutex<(Comm, Figures)>,
    rank: usize,
    ranks: usize,
}

/// Makes the communicator shareable: MPI runs at MPI_THREAD_SERIALIZED and
/// every call is made under the mutex.
struct Comm(SimpleCommunicator);
// SAFETY: see above; the handle is only used under `Windows::inner`.
unsafe impl Send for Comm {}

impl Windows {
    /// The windows of this process of `cluster`, on a communicator of their own.
    pub(crate) fn new(cluster: &Cluster) -> Self {
        let (rank, ranks) = (cluster.rank, cluster.size);
        Windows { inner: Mutex::new((Comm(cluster.world.duplicate()), Figures::default())), rank, ranks }
    }

    /// What was counted, with the `sent` events to other processes.
    pub(crate) fn figures(&self, sent: u64) -> Figures {
        let mut fig = self.inner.lock().unwrap_or_else(|p| p.into_inner()).1;
        fig.events = sent;
        fig
    }
}

impl WindowNet for Windows {
    const ACTIVE: bool = true;

    fn swap(&self, out: &mut [Vec<u8>], local_min: f64, received: &mut Vec<Vec<u8>>) -> Result<f64, Error> {
        let mut guard = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let (Comm(comm), fig) = &mut *guard;
        let t = Instant::now();
        let others = || (0..self.ranks).filter(|&q| q != self.rank);
        mpi::request::scope(|scope| {
            let sends: Vec<_> = others()
                .map(|q| comm.process_at_rank(q as i32).immediate_send_with_tag(scope, &out[q][..], TAG_WINDOW))
                .collect();
            for q in others() {
                let (bytes, _) = comm.process_at_rank(q as i32).receive_vec_with_tag::<u8>(TAG_WINDOW);
                received.push(bytes);
            }
            for s in sends {
                s.wait_without_status();
            }
        });
        for (q, b) in out.iter_mut().enumerate() {
            if q != self.rank {
                fig.bytes += b.len() as u64;
            }
            b.clear();
        }
        let mut g = f64::INFINITY;
        comm.all_reduce_into(&local_min, &mut g, SystemOperation::min());
        fig.flushes.window += (self.ranks - 1) as u64;
        fig.polls += (self.ranks - 1) as u64;
        fig.successful_polls += received.iter().filter(|b| !b.is_empty()).count() as u64;
        fig.mpi_seconds += t.elapsed().as_secs_f64();
        Ok(g)
    }
}
