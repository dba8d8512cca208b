//! The courier: the one place a process talks MPI while its PEs run.
//!
//! There is no courier thread. Whichever PE finds the courier free when it
//! hands over its sections (once per batch) does the courier's work, so with
//! one PE per process no thread ever waits and with several they take turns.
//! The work, in order:
//!
//! 1. Sections from every local PE pile up in one buffer per destination
//!    process (consolidation, the multicore report's optimisation 1).
//! 2. Buffers go out as one non-blocking send each when they grow past
//!    [`SEND_BYTES`], when a poll is due, or when a GVT round starts;
//!    finished sends are recycled.
//! 3. Polling for incoming messages is adaptive (optimisation 2): an empty
//!    poll doubles the number of visits before the next, a fruitful one
//!    halves it, between 1 and [`MAX_INTERVAL`]. While a GVT round waits for
//!    white records to arrive, every visit polls (but does not send: the
//!    round's white records all left when it started). An arrived message
//!    is checked and split into sections once ([`sections`]); each section
//!    goes, undecoded and uncopied, to its PE, and its records are counted
//!    by colour.
//! 4. GVT across processes, Mattern-style with two non-blocking collectives
//!    per round: once every local PE is in phase A (so all it sent before is
//!    "white" and counted), an all-reduce sums the white records sent to each
//!    process; the process lets its PEs report once it has received that
//!    many; an all-gather of the process minima gives GVT, which is
//!    published to the PEs.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::*};
use std::sync::{Mutex, MutexGuard, TryLockError};
use std::time::Instant;

use mpi::collective::SystemOperation;
use mpi::request::{Request, StaticScope};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use crate::error::Error;
use crate::kernel::optimistic::gvt::{Gvt, KeySlot};
use crate::kernel::optimistic::net::Network;
use crate::kernel::port::Port;
use crate::key::Key;
use crate::wire::{sections, Section};

use super::collective::Collective;

/// MPI tag of consolidated event messages.
pub(crate) const TAG_EVENTS: i32 = 17;

/// A destination buffer this large is sent without waiting for a poll.
pub(crate) const SEND_BYTES: usize = 64 << 10;

/// Most courier visits between two polls.
pub(crate) const MAX_INTERVAL: u32 = 64;

/// What a courier counted.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Figures {
    pub(crate) messages: u64,
    pub(crate) events: u64,
    pub(crate) polls: u64,
    pub(crate) successful_polls: u64,
    pub(crate) mpi_seconds: f64,
}

/// A send in flight and the bytes it reads.
struct Sending {
    req: Request<'static, [u8], StaticScope>,
    buf: Vec<u8>,
}

/// Where the GVT round of this process stands (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    Idle,
    Counting,
    Waiting { target: u64 },
    Reporting,
    Gathering,
}

/// The courier's state: only the PE holding the lock touches it.
struct Inner {
    comm: SimpleCommunicator,
    /// Outgoing bytes and record counts per destination process.
    bufs: Vec<Vec<u8>>,
    counts: Vec<u64>,
    sending: Vec<Sending>,
    spare: Vec<Sending>,
    pool: Vec<Vec<u8>>,
    /// Visits since the last poll, and visits between polls.
    visits: u32,
    interval: u32,
    /// The GVT round in progress (or next), and where it stands.
    round: u64,
    phase: Phase,
    /// The all-reduce of white-record counts, and the all-gather of minima.
    white: Collective,
    mins: Collective,
    /// Records received with colour < round, == round, == round + 1.
    recv_white: u64,
    recv_at: [u64; 2],
    fig: Figures,
}

// SAFETY: the communicator and requests are MPI handles; MPI was initialised
// with at least MPI_THREAD_SERIALIZED (checked in `Cluster::init`), and every
// call on them is made under the courier's mutex, one thread at a time.
unsafe impl Send for Inner {}

/// A process' courier, shared by its PEs.
pub(crate) struct Courier {
    rank: usize,
    ranks: usize,
    threads: usize,
    inner: Mutex<Inner>,
    /// Sections that arrived for each local PE, and whether any wait.
    inbound: Vec<Mutex<Vec<Section>>>,
    has: Vec<AtomicBool>,
    /// Per local PE and destination process: records sent before phase A.
    snaps: Vec<Vec<AtomicU64>>,
    /// The GVT gates across processes: rounds whose white records have all
    /// arrived, and rounds whose process minimum is in `proc_min`.
    gate: AtomicU64,
    proc_done: AtomicU64,
    proc_min: KeySlot,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Courier {
    /// A courier for process `rank` of `ranks`, each with `threads` PEs,
    /// talking on `comm` (a communicator of its own).
    pub(crate) fn new(comm: SimpleCommunicator, rank: usize, ranks: usize, threads: usize) -> Self {
        Courier {
            rank,
            ranks,
            threads,
            inner: Mutex::new(Inner {
                comm,
                bufs: vec![Vec::new(); ranks],
                counts: vec![0; ranks],
                sending: Vec::new(),
                spare: Vec::new(),
                pool: Vec::new(),
                visits: 0,
                interval: 1,
                round: 1,
                phase: Phase::Idle,
                white: Collective::new(ranks, ranks),
                mins: Collective::new(3, 3 * ranks),
                recv_white: 0,
                recv_at: [0; 2],
                fig: Figures::default(),
            }),
            inbound: (0..threads).map(|_| Mutex::new(Vec::new())).collect(),
            has: (0..threads).map(|_| AtomicBool::new(false)).collect(),
            snaps: (0..threads).map(|_| (0..ranks).map(|_| AtomicU64::new(0)).collect()).collect(),
            gate: AtomicU64::new(0),
            proc_done: AtomicU64::new(0),
            proc_min: KeySlot::default(),
        }
    }

    /// Waits for the last sends and returns what the courier counted. Call
    /// after the PEs stopped (GVT passed everything, so nothing is in flight).
    pub(crate) fn finish(&self) -> Figures {
        let mut inner = lock(&self.inner);
        let t = Instant::now();
        for s in inner.sending.drain(..) {
            s.req.wait_without_status();
        }
        inner.fig.mpi_seconds += t.elapsed().as_secs_f64();
        inner.fig
    }
}

impl Network for Courier {
    const ACTIVE: bool = true;

    fn exchange(&self, pe: usize, port: &mut Port, gvt: &Gvt, force: bool) -> Result<(), Error> {
        let mut inner = match self.inner.try_lock() {
            Ok(g) => g,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) if !force => {
                self.collect(pe, port);
                return Ok(());
            }
            Err(TryLockError::WouldBlock) => lock(&self.inner),
        };
        if port.waiting() {
            let Inner { bufs, counts, .. } = &mut *inner;
            port.hand_over(bufs, counts);
        }
        inner.work(self, gvt, force)?;
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
        for (slot, &n) in self.snaps[pe].iter().zip(sent) {
            slot.store(n, Relaxed);
        }
    }

    #[inline]
    fn gate_open(&self, round: u64) -> bool {
        self.gate.load(Acquire) >= round
    }

    fn process_min(&self, round: u64, min: Key) {
        self.proc_min.store(min);
        self.proc_done.store(round, Release);
    }
}

impl Inner {
    /// One visit: finish sends, send and poll when due, advance GVT.
    fn work(&mut self, c: &Courier, gvt: &Gvt, force: bool) -> Result<(), Error> {
        let t = Instant::now();
        self.reap();
        self.visits += 1;
        // Only white records hold a GVT round up, and they all left at the
        // start of the round (see `advance_gvt`): while the round waits for
        // them to arrive, poll at every visit; otherwise keep the cadence.
        let urgent = force || matches!(self.phase, Phase::Counting | Phase::Waiting { .. });
        let due = force || self.visits >= self.interval;
        self.send_all(c, if due { 0 } else { SEND_BYTES });
        if urgent || due {
            let found = self.poll(c)?;
            if due {
                self.visits = 0;
                self.interval = if found { (self.interval / 2).max(1) } else { (self.interval * 2).min(MAX_INTERVAL) };
            }
        }
        self.advance_gvt(c, gvt)?;
        self.fig.mpi_seconds += t.elapsed().as_secs_f64();
        Ok(())
    }

    /// Recycles the buffers of finished sends.
    fn reap(&mut self) {
        if self.sending.is_empty() {
            return;
        }
        let mut keep = std::mem::take(&mut self.spare);
        for s in self.sending.drain(..) {
            match s.req.test() {
                Ok(_) => {
                    let mut buf = s.buf;
                    buf.clear();
                    self.pool.push(buf);
                }
                Err(req) => keep.push(Sending { req, buf: s.buf }),
            }
        }
        self.spare = std::mem::replace(&mut self.sending, keep);
    }

    /// Sends every destination buffer holding at least `min_bytes` (and something).
    fn send_all(&mut self, c: &Courier, min_bytes: usize) {
        for to in 0..c.ranks {
            if self.bufs[to].is_empty() || self.bufs[to].len() < min_bytes {
                continue;
            }
            let fresh = self.pool.pop().unwrap_or_default();
            let buf = std::mem::replace(&mut self.bufs[to], fresh);
            self.fig.messages += 1;
            self.fig.events += std::mem::take(&mut self.counts[to]);
            // SAFETY: the heap bytes of `buf` stay put and unchanged until
            // the request completes: `buf` is kept beside it in `sending`
            // and only recycled after `test` succeeded.
            let bytes: &'static [u8] = unsafe { &*(buf.as_slice() as *const [u8]) };
            let req = self.comm.process_at_rank(to as i32).immediate_send_with_tag(StaticScope, bytes, TAG_EVENTS);
            self.sending.push(Sending { req, buf });
        }
    }

    /// Receives every event message waiting; true if there was one.
    fn poll(&mut self, c: &Courier) -> Result<bool, Error> {
        self.fig.polls += 1;
        let mut found = false;
        while let Some(m) = self.comm.any_process().immediate_matched_probe_with_tag(TAG_EVENTS) {
            let (bytes, _) = m.matched_receive_vec::<u8>();
            found = true;
            self.deliver(c, bytes)?;
        }
        self.fig.successful_polls += found as u64;
        Ok(found)
    }

    /// Hands the sections of one message to their PEs, as they are (each PE
    /// decodes its own), and counts their records by colour.
    fn deliver(&mut self, c: &Courier, bytes: Vec<u8>) -> Result<(), Error> {
        for sec in sections(bytes)? {
            let local = (sec.head.dst_pe as usize).wrapping_sub(c.rank * c.threads);
            if local >= c.threads {
                return Err(Error::Internal(format!(
                    "process {} received events for PE {}, which is not its own",
                    c.rank, sec.head.dst_pe
                )));
            }
            let n = sec.head.count as u64;
            match sec.head.epoch {
                e if e < self.round => self.recv_white += n,
                e if e == self.round => self.recv_at[0] += n,
                e if e == self.round + 1 => self.recv_at[1] += n,
                e => {
                    return Err(Error::Internal(format!(
                        "a message of GVT round {e} reached process {} in round {}",
                        c.rank, self.round
                    )))
                }
            }
            // The flag is set under the lock the PE clears it under.
            let mut q = lock(&c.inbound[local]);
            q.push(sec);
            c.has[local].store(true, Release);
        }
        Ok(())
    }

    /// Moves this process' part of the GVT round on as far as it can go now.
    fn advance_gvt(&mut self, c: &Courier, gvt: &Gvt) -> Result<(), Error> {
        loop {
            match self.phase {
                Phase::Idle => {
                    if !gvt.all_entered(self.round) {
                        return Ok(());
                    }
                    // Every white record of this process is in `bufs` or sent
                    // (PEs hand theirs over before entering phase A): send them.
                    self.send_all(c, 0);
                    let comm = &self.comm;
                    self.white.start(
                        |out| {
                            for (q, o) in out.iter_mut().enumerate() {
                                *o = c.snaps.iter().map(|pe| pe[q].load(Relaxed)).sum();
                            }
                        },
                        |out, inp| comm.immediate_all_reduce_into(StaticScope, out, inp, SystemOperation::sum()),
                    );
                    self.phase = Phase::Counting;
                }
                Phase::Counting => {
                    let Some(counts) = self.white.done() else { return Ok(()) };
                    let target = counts[c.rank];
                    self.phase = Phase::Waiting { target };
                }
                Phase::Waiting { target } => {
                    if self.recv_white < target {
                        return Ok(());
                    }
                    if self.recv_white > target {
                        return Err(Error::Internal(format!(
                            "process {} received {} white records in GVT round {}, {} were sent",
                            c.rank, self.recv_white, self.round, target
                        )));
                    }
                    c.gate.store(self.round, Release);
                    self.phase = Phase::Reporting;
                }
                Phase::Reporting => {
                    if c.proc_done.load(Acquire) < self.round {
                        return Ok(());
                    }
                    let k = c.proc_min.load();
                    let comm = &self.comm;
                    self.mins.start(
                        |out| out.copy_from_slice(&[k.time.to_bits(), k.age as u64, k.tie]),
                        |out, inp| comm.immediate_all_gather_into(StaticScope, out, inp),
                    );
                    self.phase = Phase::Gathering;
                }
                Phase::Gathering => {
                    let Some(all) = self.mins.done() else { return Ok(()) };
                    let g = all
                        .chunks_exact(3)
                        .map(|w| Key { time: f64::from_bits(w[0]), age: w[1] as u32, tie: w[2] })
                        .min()
                        .unwrap_or(Key::INF);
                    gvt.publish(self.round, g);
                    self.recv_white += self.recv_at[0];
                    self.recv_at = [self.recv_at[1], 0];
                    self.round += 1;
                    self.phase = Phase::Idle;
                }
            }
        }
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        // A send still in flight here means the run failed and the process
        // is about to abort: leak what MPI may still read rather than free
        // it under MPI's feet (the collectives do the same for theirs).
        for s in self.sending.drain(..) {
            std::mem::forget(s);
        }
    }
}
