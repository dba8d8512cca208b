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
use crate::event::Inline;
use crate::kernel::conservative::{process_stats, run_pes, take_cut, Ran};
use crate::kernel::{by_id, Segment};
use crate::key::Key;
use crate::mapping::{with_place, Placement};
use crate::model::Model;
use crate::queue::PendingQueue;
use crate::timeline::Timeline;
use crate::transport::{Layout, WindowNet};
use crate::Config;

use super::courier::Figures;
use super::{gather, gather_cut, Cluster, CutPart, Ended, Part, RankPart};

/// MPI tag of a window's events.
const TAG_WINDOW: i32 = 19;

/// The MPI side of conservative windows.
struct Windows {
    inner: Mutex<(Comm, Figures)>,
    layout: Layout,
}

/// Makes the communicator shareable: MPI runs at MPI_THREAD_SERIALIZED and
/// every call is made under the mutex.
struct Comm(SimpleCommunicator);
// SAFETY: see above; the handle is only used under `Windows::inner`.
unsafe impl Send for Comm {}

impl WindowNet for Windows {
    const ACTIVE: bool = true;

    fn exchange(&self, out: &mut [Vec<u8>], local_min: f64, received: &mut Vec<Vec<u8>>) -> Result<f64, Error> {
        let mut guard = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let (Comm(comm), fig) = &mut *guard;
        let t = Instant::now();
        let (rank, ranks) = (self.layout.rank(), self.layout.ranks());
        let others = || (0..ranks).filter(|&q| q != rank);
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
        for b in out.iter_mut() {
            b.clear();
        }
        let mut g = f64::INFINITY;
        comm.all_reduce_into(&local_min, &mut g, SystemOperation::min());
        fig.messages += (ranks - 1) as u64;
        fig.polls += (ranks - 1) as u64;
        fig.successful_polls += received.iter().filter(|b| !b.is_empty()).count() as u64;
        fig.mpi_seconds += t.elapsed().as_secs_f64();
        Ok(g)
    }
}

/// Runs `model` conservatively over every process of `cluster`.
pub(crate) fn run<M: Model, Q: PendingQueue<Inline<M::Msg>>>(
    model: &M,
    cfg: &Config,
    seg: &Segment<'_, M>,
    cluster: &Cluster,
) -> Result<Ended<M>, Error> {
    let s = seg.setup(model, cfg)?;
    let rank = cluster.rank;
    let layout = Layout::of(cfg, rank, cluster.size);
    let placement = Placement::for_run(cfg, s.num_lps, &layout)?;
    with_place!(placement, map => {
        let net = Windows { inner: Mutex::new((Comm(cluster.world.duplicate()), Figures::default())), layout };
        let Ran { pes: mut done, total, net_events: sent } =
            run_pes::<M, Q, Windows, _>(model, cfg, &s, seg, map, &net, layout)?;
        let stats = process_stats(model, cfg, &s, &done, total);
        let mut fig = net.inner.lock().unwrap_or_else(|p| p.into_inner()).1;
        fig.events = sent;
        if done[0].0.paused {
            let (lps, events) = take_cut(&mut done);
            return gather_cut(model, cfg, cluster, CutPart { part: RankPart::new(rank, stats, fig), lps, events });
        }
        let trace: Vec<Key> = done.iter().flat_map(|d| d.0.commits.trace.iter().copied()).collect();
        let timeline = Timeline::gather(cfg, done.iter_mut().map(|d| d.0.timeline.take()));
        let lps = by_id(done.iter().map(|(pe, _)| (&pe.ids[..], &pe.lps[..])));
        gather(model, cfg, cluster, Part::new(rank, stats, fig, &lps, trace, timeline)).map(Ended::Done)
    })
}
