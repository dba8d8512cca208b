//! The courier: the one place a process talks MPI while its PEs run, the
//! MPI implementation of [`Network`].
//!
//! There is no courier thread. Whichever PE finds the courier free when it
//! hands over its sections (once per batch) does the courier's work, so with
//! one PE per process no thread ever waits and with several they take turns.
//! The work, in order:
//!
//! 1. Sections from every local PE pile up in one message per destination
//!    process ([`Outbox`]: consolidation, the multicore report's
//!    optimisation 1).
//! 2. Messages go out as one non-blocking send each, for one of four
//!    reasons counted in [`Flushes`]: *size*, the message reached
//!    [`SEND_BYTES`]; *idle*, the PE at the courier processed nothing in
//!    its last batch (it would wait on the others, and they may wait on
//!    what this process holds); *time*, it holds a record no later than the
//!    next event of this process' least advanced busy PE (the receivers,
//!    running at about the same pace, are likely there: it would be a
//!    straggler if it waited); *age*, its first section has waited as long
//!    as the run takes to cover a quarter of the model's lookahead (at its
//!    [`Pace`], measured from GVT), within [`FLUSH_AGE_MIN`] and
//!    [`FLUSH_AGE_MAX`]. So records needed soon leave at once (a network's
//!    next hop) and those far ahead of every PE wait and share messages
//!    (PHOLD's, up to 4 ms). A GVT round forces nothing out: its white
//!    records leave by these rules and the round waits for them (a PE entering the round
//!    waits for the courier to hand its records over). Sending once
//!    followed polling, which comes at every visit while messages arrive,
//!    and every round forced all messages out: optimistic runs sent 1–5
//!    events a message. Finished sends are recycled.
//! 3. Polling for incoming messages is adaptive (optimisation 2): an empty
//!    poll doubles the number of visits before the next, a fruitful one
//!    halves it, between 1 and [`MAX_INTERVAL`]. While a GVT round knows
//!    white records are still to arrive, every visit polls (but does not
//!    send: the round's white records all left when it started); while it
//!    only sums the counts, polls keep the cadence (polling at every visit
//!    then found a message in 2% of polls). An arrived message
//!    is checked and split into sections once ([`sections`]); each section
//!    goes, undecoded and uncopied, to its PE, and its records are counted
//!    by colour.
//! 4. With `--emulate-latency` / `--emulate-bandwidth` (measurement
//!    only), a message that leaves is first held back by an emulated
//!    link ([`Delay`]) and posted at the first visit past its arrival
//!    moment; it is counted as sent (and by its reason) when it leaves the
//!    outbox.
//! 5. GVT across processes: the round of [`mattern`](crate::transport::mattern)
//!    (white-message counting), over two non-blocking collectives per round
//!    that this courier provides ([`Collectives`]): an all-reduce of the
//!    white records sent to each process and an all-gather of the process
//!    minima.

use std::sync::atomic::{AtomicBool, Ordering::*};
use std::sync::{Mutex, MutexGuard, TryLockError};
use std::time::{Duration, Instant};

use mpi::collective::SystemOperation;
use mpi::request::{Request, StaticScope};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use crate::config::LinkEmulation;
use crate::error::Error;
use crate::gvt::{Gated, Gvt};
use crate::key::Key;
use crate::layout::Layout;
use crate::stats::Flushes;
use crate::transport::delay::Delay;
use crate::transport::mattern::{Collectives, Gates, Round};
use crate::transport::outbox::Outbox;
use crate::transport::pace::Pace;
use crate::transport::port::Port;
use crate::transport::wire::{sections, Section};
use crate::transport::{Network, Visit};

use super::collective::Collective;

/// MPI tag of consolidated event messages.
pub(crate) const TAG_EVENTS: i32 = 17;

/// A destination's message this large is sent at once.
pub(crate) const SEND_BYTES: usize = 64 << 10;

/// The longest a destination's message waits after its first section,
/// whatever its records' times: while it waits, a GVT round may wait for
/// it. Longer consolidates more where the model allows it (PHOLD `-n 4`
/// on 2 cores, remote 0.1: 3 events a message at 50 µs, 48 at 2 ms, 97 at
/// 4 ms, with fewer rollbacks).
pub(crate) const FLUSH_AGE_MAX: Duration = Duration::from_millis(4);

/// The shortest: a few batches (what every message waited before the age
/// followed the model's lookahead; a model of lookahead 0 keeps it).
pub(crate) const FLUSH_AGE_MIN: Duration = Duration::from_micros(50);

/// A message waits at most the wall-clock time the run takes to cover this
/// share of the model's lookahead (at its [`Pace`]), within
/// [`FLUSH_AGE_MIN`]..[`FLUSH_AGE_MAX`]: a record is at least a lookahead
/// ahead of the event that sent it, so while the run covers a quarter of
/// it the receivers are unlikely to reach it. PHOLD (lookahead 1, about 20
/// time units a second) waits the most; a network's next hop (lookahead a
/// link's latency, nanoseconds) leaves after about the least (the Theta
/// preset rolled back 2–5× more when every message waited 1 ms).
pub(crate) const LOOKAHEAD_SHARE: f64 = 0.25;

/// Most courier visits between two polls.
pub(crate) const MAX_INTERVAL: u32 = 64;

/// What a courier counted.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Figures {
    pub(crate) events: u64,
    pub(crate) bytes: u64,
    pub(crate) polls: u64,
    pub(crate) successful_polls: u64,
    pub(crate) mpi_seconds: f64,
    pub(crate) flushes: Flushes,
}

/// A send in flight and the bytes it reads.
struct Sending {
    req: Request<'static, [u8], StaticScope>,
    buf: Vec<u8>,
}

/// The courier's MPI side: the communicator, the messages being built and
/// sent, and the collectives of GVT rounds.
struct Mpi {
    comm: SimpleCommunicator,
    outbox: Outbox,
    sending: Vec<Sending>,
    spare: Vec<Sending>,
    /// Messages an emulated link still holds back (`--emulate-latency`),
    /// with their destinations.
    delay: Option<Delay<(usize, Vec<u8>)>>,
    /// The all-reduce of white-record counts, and the all-gather of minima.
    white: Collective,
    mins: Collective,
    fig: Figures,
}

// SAFETY: the communicator and requests are MPI handles; MPI was initialised
// with at least MPI_THREAD_SERIALIZED (checked in `Cluster::init`), and every
// call on them is made under the courier's mutex, one thread at a time.
unsafe impl Send for Mpi {}

/// The courier's state: only the PE holding the lock touches it.
struct Inner {
    mpi: Mpi,
    /// Per local PE: the time of its next event at its last visit
    /// (infinite after an idle one).
    fronts: Vec<f64>,
    /// Visits since the last poll, and visits between polls.
    visits: u32,
    interval: u32,
    /// This process' part of the GVT round.
    round: Round,
    /// Virtual time per wall-clock second (how long a message may wait).
    pace: Pace,
}

/// A process' courier, shared by its PEs.
pub(crate) struct Courier {
    layout: Layout,
    inner: Mutex<Inner>,
    /// Sections that arrived for each local PE, and whether any wait.
    inbound: Vec<Mutex<Vec<Section>>>,
    has: Vec<AtomicBool>,
    /// The PEs' side of the GVT rounds across processes.
    gates: Gates,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Courier {
    /// A courier for the process `layout` sees from, talking on `comm` (a
    /// communicator of its own), over an emulated `link` if it is on.
    pub(crate) fn new(comm: SimpleCommunicator, layout: Layout, link: &LinkEmulation) -> Self {
        let (ranks, pes) = (layout.ranks(), layout.pes_per_process());
        Courier {
            layout,
            inner: Mutex::new(Inner {
                mpi: Mpi {
                    comm,
                    outbox: Outbox::new(ranks),
                    sending: Vec::new(),
                    spare: Vec::new(),
                    delay: Delay::new(link),
                    white: Collective::new(ranks, ranks),
                    mins: Collective::new(3, 3 * ranks),
                    fig: Figures::default(),
                },
                fronts: vec![f64::INFINITY; pes],
                visits: 0,
                interval: 1,
                round: Round::new(layout.rank()),
                pace: Pace::default(),
            }),
            inbound: (0..pes).map(|_| Mutex::new(Vec::new())).collect(),
            has: (0..pes).map(|_| AtomicBool::new(false)).collect(),
            gates: Gates::new(&layout),
        }
    }

    /// Waits for the last sends and returns what the courier counted. Call
    /// after the PEs stopped (GVT passed everything, so nothing is in flight).
    pub(crate) fn finish(&self) -> Figures {
        let mpi = &mut lock(&self.inner).mpi;
        let t = Instant::now();
        // Held messages were all received before GVT passed the end (the
        // rounds count them): none is left, unless the run failed.
        if let Some(held) = mpi.delay.as_mut().map(|d| d.drain().collect::<Vec<_>>()) {
            for (to, buf) in held {
                mpi.post(to, buf);
            }
        }
        for s in mpi.sending.drain(..) {
            s.req.wait_without_status();
        }
        mpi.fig.mpi_seconds += t.elapsed().as_secs_f64();
        mpi.fig
    }
}

impl Gated for Courier {
    const ACTIVE: bool = true;

    #[inline]
    fn gate_open(&self, round: u64) -> bool {
        self.gates.gate_open(round)
    }

    fn process_min(&self, round: u64, min: Key) {
        self.gates.process_min(round, min);
    }
}

impl Network for Courier {
    fn exchange(&self, pe: usize, port: &mut Port, gvt: &Gvt, visit: Visit) -> Result<(), Error> {
        let mut inner = match self.inner.try_lock() {
            Ok(g) => g,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) if visit != Visit::Round => {
                self.collect(pe, port);
                return Ok(());
            }
            Err(TryLockError::WouldBlock) => lock(&self.inner),
        };
        if port.waiting() {
            port.hand_over(&mut inner.mpi.outbox);
        }
        match visit {
            Visit::Busy(next) => inner.fronts[pe] = next,
            Visit::Idle => inner.fronts[pe] = f64::INFINITY,
            Visit::Round => {}
        }
        inner.work(self, gvt, visit == Visit::Idle)?;
        drop(inner);
        self.collect(pe, port);
        Ok(())
    }

    fn collect(&self, pe: usize, port: &mut Port) {
        if self.has[pe].load(Acquire) {
            let mut q = lock(&self.inbound[pe]);
            // Cleared under the lock the courier sets it under: a delivery
            // can never be left behind with the flag down.
            self.has[pe].store(false, Relaxed);
            if port.inbound.is_empty() {
                std::mem::swap(&mut *q, &mut port.inbound);
            } else {
                port.inbound.append(&mut q);
            }
        }
    }

    fn snapshot(&self, pe: usize, sent: &[u64]) {
        self.gates.snapshot(pe, sent);
    }
}

impl Inner {
    /// One visit: finish sends, send what is due (everything if `idle`),
    /// poll when due, advance GVT. A visit that had to wait for the lock (a
    /// PE entering a GVT round) is no different: its records are in the
    /// outbox, and they leave with everyone else's by the sending rules
    /// (one message per process, not one per PE).
    fn work(&mut self, c: &Courier, gvt: &Gvt, idle: bool) -> Result<(), Error> {
        let t = Instant::now();
        self.mpi.reap();
        self.mpi.release(t);
        self.visits += 1;
        // Only white records hold a GVT round up, and they all left at the
        // start of the round: once the round knows how many to expect and
        // some are missing, poll at every visit; otherwise (also while the
        // count is being summed) keep the cadence.
        let urgent = self.round.short_of_white();
        let due = self.visits >= self.interval;
        self.pace.observe(t, gvt.time());
        let front = self.fronts.iter().copied().fold(f64::INFINITY, f64::min);
        let age = self.pace.wall(LOOKAHEAD_SHARE * gvt.lookahead()).clamp(FLUSH_AGE_MIN, FLUSH_AGE_MAX);
        self.mpi.send_due(t, idle, front, age);
        if urgent || due {
            let found = self.poll(c)?;
            if due {
                self.visits = 0;
                self.interval = if found { (self.interval / 2).max(1) } else { (self.interval * 2).min(MAX_INTERVAL) };
            }
        }
        self.round.advance(&c.gates, gvt, &mut self.mpi)?;
        self.mpi.fig.mpi_seconds += t.elapsed().as_secs_f64();
        Ok(())
    }

    /// Receives every event message waiting; true if there was one.
    fn poll(&mut self, c: &Courier) -> Result<bool, Error> {
        self.mpi.fig.polls += 1;
        let mut found = false;
        while let Some(m) = self.mpi.comm.any_process().immediate_matched_probe_with_tag(TAG_EVENTS) {
            let (bytes, _) = m.matched_receive_vec::<u8>();
            found = true;
            self.deliver(c, bytes)?;
        }
        self.mpi.fig.successful_polls += found as u64;
        Ok(found)
    }

    /// Hands the sections of one message to their PEs, as they are (each PE
    /// decodes its own), and counts their records by colour.
    fn deliver(&mut self, c: &Courier, bytes: Vec<u8>) -> Result<(), Error> {
        for sec in sections(bytes)? {
            let Some(local) = c.layout.local_of(sec.head.dst_pe) else {
                return Err(Error::Internal(format!(
                    "process {} received events for PE {}, which is not its own",
                    c.layout.rank(),
                    sec.head.dst_pe
                )));
            };
            self.round.arrived(sec.head.epoch, u64::from(sec.head.count))?;
            // The flag is set under the lock the PE clears it under.
            let mut q = lock(&c.inbound[local]);
            q.push(sec);
            c.has[local].store(true, Release);
        }
        Ok(())
    }
}

impl Mpi {
    /// Recycles the buffers of finished sends.
    fn reap(&mut self) {
        if self.sending.is_empty() {
            return;
        }
        let mut keep = std::mem::take(&mut self.spare);
        for s in self.sending.drain(..) {
            match s.req.test() {
                Ok(_) => self.outbox.recycle(s.buf),
                Err(req) => keep.push(Sending { req, buf: s.buf }),
            }
        }
        self.spare = std::mem::replace(&mut self.sending, keep);
    }

    /// Sends each message that is due at `now`, this process' PEs having
    /// got to virtual time `front`: full, any (`idle`), holding a record no
    /// later than `front` (its receivers are likely there too), or older
    /// than `age`.
    fn send_due(&mut self, now: Instant, idle: bool, front: f64, age: Duration) {
        for to in 0..self.outbox.ranks() {
            let Some((bytes, born, first)) = self.outbox.waiting(to) else { continue };
            let why = if bytes >= SEND_BYTES {
                &mut self.fig.flushes.size
            } else if idle {
                &mut self.fig.flushes.idle
            } else if first <= front {
                &mut self.fig.flushes.time
            } else if now.saturating_duration_since(born) >= age {
                &mut self.fig.flushes.age
            } else {
                continue;
            };
            *why += 1;
            self.send(to, now);
        }
    }

    /// Sends the message for process `to` (it holds something), or gives
    /// it to the emulated link; the caller counts why.
    fn send(&mut self, to: usize, now: Instant) {
        if let Some((buf, records)) = self.outbox.take(to) {
            self.fig.events += records;
            self.fig.bytes += buf.len() as u64;
            match &mut self.delay {
                Some(d) => {
                    d.hold(now, buf.len(), (to, buf));
                }
                None => self.post(to, buf),
            }
        }
    }

    /// Posts the messages the emulated link has delivered by `now`.
    fn release(&mut self, now: Instant) {
        while let Some((to, buf)) = self.delay.as_mut().and_then(|d| d.due(now)) {
            self.post(to, buf);
        }
    }

    /// One non-blocking send of `buf` to process `to`.
    fn post(&mut self, to: usize, buf: Vec<u8>) {
        // SAFETY: the heap bytes of `buf` stay put and unchanged until the
        // request completes: `buf` is kept beside it in `sending` and only
        // recycled after `test` succeeded.
        let bytes: &'static [u8] = unsafe { &*(buf.as_slice() as *const [u8]) };
        let req = self.comm.process_at_rank(to as i32).immediate_send_with_tag(StaticScope, bytes, TAG_EVENTS);
        self.sending.push(Sending { req, buf });
    }
}

impl Collectives for Mpi {
    fn start_sum(&mut self, fill: impl FnOnce(&mut [u64])) {
        let comm = &self.comm;
        self.white
            .start(fill, |out, inp| comm.immediate_all_reduce_into(StaticScope, out, inp, SystemOperation::sum()));
    }

    fn sum_done(&mut self) -> Option<&[u64]> {
        self.white.done()
    }

    fn start_gather(&mut self, words: [u64; 3]) {
        let comm = &self.comm;
        self.mins
            .start(|out| out.copy_from_slice(&words), |out, inp| comm.immediate_all_gather_into(StaticScope, out, inp));
    }

    fn gather_done(&mut self) -> Option<&[u64]> {
        self.mins.done()
    }
}

impl Drop for Mpi {
    fn drop(&mut self) {
        // A send still in flight here means the run failed and the process
        // is about to abort: leak what MPI may still read rather than free
        // it under MPI's feet (the collectives do the same for theirs).
        for s in self.sending.drain(..) {
            std::mem::forget(s);
        }
    }
}
