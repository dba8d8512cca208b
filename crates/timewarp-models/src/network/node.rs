//! The state of one network node (router + NIC) and the bounded packet
//! queues it is built from (the packet is packet.rs's), UGAL-G's table
//! ([`Global`], global_table.rs), and the records of the node's journal:
//! [`Saved`] (what one write changed) and [`Journal`] (the current
//! event's). How writes are saved and undone is journal.rs's, which
//! depends on this file; the node's encoding is encoding.rs's.

use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

use super::global_table::Global;
use super::histogram::Latencies;
pub(crate) use super::nic_credits::NicBuf;
use super::packet::{Back, Front, Packet};
use super::samples::Samples;
use super::workload::{Counters, Rank, Times};

/// Per queue: where its packets are, and (for a router's input queues) the
/// credits of the output virtual channel with the same index. Kept together
/// so that an event touches one cache line of them, not three vectors.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Lane {
    /// First and last packet (slot indices; [`NIL`] when empty).
    pub(crate) head: u16,
    pub(crate) tail: u16,
    len: u16,
    /// Free buffer slots at the far end of output (port, virtual channel) of this index.
    pub(crate) credits: u16,
    /// Next input queue whose head is routed to the same output as this
    /// one's ([`Link::waiting`]; input queues only).
    pub(crate) wait: u16,
}

impl Default for Lane {
    fn default() -> Self {
        Lane { head: NIL, tail: NIL, len: 0, credits: 0, wait: NIL }
    }
}

/// "No slot": the end of a queue, of the free list or of a waiting list.
pub(crate) const NIL: u16 = u16::MAX;

/// A packet in a buffer, and the next one of its queue (or of the free list).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Slot {
    p: Packet,
    pub(crate) next: u16,
}

impl Slot {
    /// Puts the packet's front half back (a journal entry's undo).
    #[inline]
    pub(crate) fn restore_front(&mut self, f: Front) {
        self.p.set_front(f);
    }

    /// Puts the packet's back half and the link back.
    #[inline]
    pub(crate) fn restore_back(&mut self, next: u16, b: Back) {
        self.p.set_back(b);
        self.next = next;
    }
}

/// Bounded FIFO queues (`cap` packets each) sharing one pool of packet
/// slots, linked per queue. A router has dozens of queues of a few packets
/// and most are empty: a slot per (queue, position) would be KBs per node,
/// and a ring buffer walks through all of them, so a large network's working
/// set would not fit in the cache. The pool holds only as many slots as the
/// node ever had packets buffered at once, reused last-freed first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[repr(C)]
pub(crate) struct Queues {
    pub(crate) lanes: Vec<Lane>,
    pub(crate) slots: Vec<Slot>,
    /// First free slot ([`NIL`]: none; the pool grows).
    pub(crate) free: u16,
    cap: u16,
}

impl Queues {
    pub(crate) fn new(queues: usize, cap: u16) -> Self {
        Queues { cap, slots: Vec::new(), free: NIL, lanes: vec![Lane::default(); queues] }
    }

    #[inline]
    pub(crate) fn len(&self, q: usize) -> usize {
        self.lanes[q].len as usize
    }

    #[inline]
    pub(crate) fn head(&self, q: usize) -> Option<&Packet> {
        let l = self.lanes[q];
        (l.len > 0).then(|| &self.slots[l.head as usize].p)
    }

    /// Appends `p` to queue `q`; returns its new length, or `None` if the
    /// queue is full (a flow-control error, which the caller reports).
    /// What it overwrites is saved in `log` (`out`: these are output queues);
    /// `record`: an arrival's own undo record, which takes the positions'
    /// entry (see [`Saved::Arrived`]).
    #[inline]
    pub(crate) fn push(
        &mut self,
        q: usize,
        p: Packet,
        out: bool,
        log: &mut Journal,
        record: Option<&mut Undo>,
    ) -> Option<usize> {
        if self.lanes[q].len >= self.cap {
            return None;
        }
        let (lane, free) = (self.lanes[q], self.free);
        let tail_next = if lane.tail == NIL { NIL } else { self.slots[lane.tail as usize].next };
        // One entry for the positions, two for the slot taken (three, not five: journal.rs).
        let s = match free {
            NIL => {
                // At most every queue full: queues × cap slots, below u16::MAX (`Network::validate` checks it).
                log.save(|| Saved::Grew { out });
                self.slots.push(Slot { p, next: NIL });
                (self.slots.len() - 1) as u16
            }
            s => {
                let old = self.slots[s as usize];
                let (f, b) = old.p.halves();
                log.save(|| Saved::SlotFront { out, s, f });
                log.save(|| Saved::SlotBack { out, s, next: old.next, b });
                self.free = old.next;
                self.slots[s as usize] = Slot { p, next: NIL };
                s
            }
        };
        match record {
            Some(u) => log.record(u, || Saved::Arrived { q: q as u16, lane, free, tail_next }),
            None => log.save(|| Saved::Push { out, q: q as u16, lane, free, tail_next }),
        }
        let l = &mut self.lanes[q];
        match l.tail {
            NIL => l.head = s,
            t => self.slots[t as usize].next = s,
        }
        l.tail = s;
        l.len += 1;
        Some(l.len as usize)
    }

    /// Takes the head of queue `q` (what it overwrites saved in `log`).
    #[inline]
    pub(crate) fn pop(&mut self, q: usize, out: bool, log: &mut Journal) -> Packet {
        let old = self.lanes[q];
        debug_assert!(old.len > 0);
        let s = old.head;
        let (free, next) = (self.free, self.slots[s as usize].next);
        log.save(|| Saved::Pop { out, q: q as u16, lane: old, free, next });
        let l = &mut self.lanes[q];
        let slot = &mut self.slots[s as usize];
        l.head = slot.next;
        l.len -= 1;
        if l.len == 0 {
            l.tail = NIL;
        }
        slot.next = self.free;
        self.free = s;
        slot.p
    }

    /// The head of every non-empty queue, with the queue's index (a scan
    /// over the positions, which are small and adjacent, not the slots).
    /// Only adaptive routing needs it, on the cubes' routers of a few dozen
    /// queues: fixed routes read an output's waiting list instead.
    #[inline]
    pub(crate) fn heads(&self) -> impl Iterator<Item = (usize, &Packet)> + '_ {
        self.lanes.iter().enumerate().filter(|(_, l)| l.len > 0).map(move |(q, l)| (q, &self.slots[l.head as usize].p))
    }

    /// Packets in every queue.
    pub(crate) fn total(&self) -> u64 {
        self.lanes.iter().map(|l| l.len as u64).sum()
    }
}

/// One output link (a network port's, or the ejection link to the NIC).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Link {
    /// When it is next free.
    pub(crate) free: f64,
    /// Time of the wake-up event pending for it, or -1.
    pub(crate) wake: f64,
    /// Packets sent, and busy time within the measured window.
    pub(crate) packets: u64,
    pub(crate) busy: f64,
    /// Input heads (of a virtual channel or the injection queue, ready or
    /// not) whose dimension-order output this is: under dimension-order
    /// routing, when it is 0 nothing waits here and when it is 1 the caller's
    /// packet is the only candidate, so the output need not scan its inputs.
    pub(crate) heads: u32,
    /// First network input queue whose head is routed here, linked through
    /// [`Lane::wait`]: with fixed routes the output finds its contenders
    /// without scanning a high-radix router's hundreds of queues.
    pub(crate) waiting: u16,
    /// The last queue of that list: heads join at the end, so the list is
    /// roughly oldest first and the scan for the oldest rarely replaces its pick.
    pub(crate) waiting_last: u16,
    /// The input queue it last served (round-robin arbitration).
    pub(crate) last_input: u16,
}

impl Default for Link {
    fn default() -> Self {
        Link { free: 0.0, wake: -1.0, packets: 0, busy: 0.0, heads: 0, waiting: NIL, waiting_last: NIL, last_input: 0 }
    }
}

/// What a node counts.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[repr(C)] // the fields every event touches first, in one cache line
pub(crate) struct Counts {
    /// Events this node processed (committed ones, in the final state).
    pub events: u64,
    /// Router-to-router hops started here.
    pub hops: u64,
    /// Most packets ever held by one input buffer (virtual channel) and by
    /// one output buffer, and the most credits ever held for one.
    pub max_input: u16,
    pub max_output: u16,
    pub max_credits: u16,
    /// Packets created here and delivered here, over the whole run.
    pub injected: u64,
    pub delivered: u64,
    /// Packets that were on a link when the run ended (they arrive at or after the end).
    pub on_links: u64,
    /// Packets created in the measured window `[warmup, end)`, and their bytes.
    pub injected_w: u64,
    pub injected_bytes_w: u64,
    /// Bytes delivered in the measured window.
    pub delivered_bytes_w: u64,
    /// Latency of delivered packets created in the window: count, sum, max,
    /// min, distribution (and, when asked for, the distributions of its
    /// two parts); their hops (sum and sum of squares).
    pub lat_n: u64,
    pub lat_sum: f64,
    pub lat_max: f64,
    pub lat_min: f64,
    pub hist: Latencies,
    pub hop_sum: u64,
    pub hop_sq: u64,
    /// Of that latency, the time spent before entering the network
    /// (queued at the source NIC and crossing its link), summed.
    pub queue_sum: f64,
    /// Messages created in the window and delivered whole: count, latency sum.
    pub msg_n: u64,
    pub msg_lat_sum: f64,
    /// When the last packet was delivered here (0: none): a finite
    /// workload's figures are rates over the time the network was active.
    pub last_delivery: f64,
    /// The window `[warmup, end)` cut into [`BATCHES`] equal batches (open
    /// runs only: synthetic traffic without `--messages`), by delivery
    /// time: bytes delivered, and measured packets' count and latency sum.
    /// Their spread tells whether the run was long enough.
    pub batch_bytes: [u64; BATCHES],
    pub batch_n: [u64; BATCHES],
    pub batch_lat: [f64; BATCHES],
}

/// Batches of the measured window for the batch-means confidence intervals.
pub(crate) const BATCHES: usize = 10;

/// One NIC's injection side.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Nic {
    /// The injection queue (unbounded: the source queue).
    pub(crate) queue: VecDeque<Packet>,
    /// Time of the pending injection wake-up (the next packet's head reaches the router), or -1.
    pub(crate) wake: f64,
    /// Earliest time the next injected packet's head can reach the router.
    pub(crate) next: f64,
    /// Messages created here so far.
    pub(crate) next_msg: u32,
    /// Bytes of its packets that entered the network (left this queue for
    /// the router) in the measured window: this node's accepted throughput.
    pub(crate) sent_bytes_w: u64,
}

/// One LP: a router with its NICs (one, except on a dragonfly).
/// Encoded field by field in this order, the UGAL-G table and the time
/// series (if any) with the ranks at the end (`Tail`, encoding.rs).
#[derive(Clone, Debug, PartialEq)]
#[repr(C)] // what every event touches first: two cache lines, not the struct's seven
pub struct Node {
    /// Input buffers, one per (network port, virtual channel).
    pub(crate) input: Queues,
    /// Output links: network ports, then one ejection link per NIC.
    pub(crate) links: Vec<Link>,
    pub(crate) counts: Counts,
    /// The NICs' injection sides.
    pub(crate) inject: Vec<Nic>,
    /// Output buffers per (port incl. ejection, virtual channel); empty
    /// (capacity 0 queues) for input-buffered switches.
    pub(crate) output: Queues,
    /// Messages being reassembled here: (source, message, packets still missing, created).
    pub(crate) partial: Vec<(u32, u32, u32, f64)>,
    /// Trace workloads: each NIC's rank (empty under synthetic traffic).
    pub(crate) ranks: Vec<Rank>,
    /// UGAL-G: what this router knows of its group's global channels
    /// (global.rs); `None` under every other routing.
    pub(crate) global: Option<Box<Global>>,
    /// `--sample-every`: this router's time series (samples.rs); `None`
    /// otherwise, and then out of the encoding.
    pub(crate) samples: Option<Box<Samples>>,
    /// `--lp-io-dir`: CODES's per-terminal and per-port counters (lp_io.rs);
    /// `None` otherwise. Never encoded: the digest does not depend on it.
    pub(crate) lp_io: Option<Box<super::lp_io::LpIo>>,
    /// `--nic-buffer`: each NIC's credits for its router's terminal input
    /// (nic_buffer.rs); empty without one, and then out of the encoding.
    pub(crate) nic_buf: Vec<NicBuf>,
    /// What the current event overwrote (optimistic runs; empty between events).
    pub(crate) log: Journal,
}

/// One write to a node, saved just before it happens (the model's undo
/// journal entry: `Model::Undo` of the network). Opaque outside the model.
#[derive(Clone, Copy, Debug, Default)]
pub struct Undo(pub(crate) Saved);

/// What one write changed, and what undoes it: 32 bytes (the assertion
/// below keeps it so). Every speculative event keeps its entries until it
/// commits, so their size is most of an optimistic run's memory beyond the
/// state, and the bytes each event writes: a packet, a link or a rank's
/// scalars, larger than one entry, are saved as two halves (each restores
/// its own fields, in either order), and a link's writes save only the
/// fields they change.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) enum Saved {
    /// Nothing (the per-event undo record, unused).
    #[default]
    Nothing,
    /// Packet slot `s` of the input (`out` false) or output queues, as it
    /// was: its packet's front half, and (`SlotBack`) its back half and link.
    SlotFront {
        out: bool,
        s: u16,
        f: Front,
    },
    SlotBack {
        out: bool,
        s: u16,
        next: u16,
        b: Back,
    },
    /// A packet went into queue `q`: its positions, the free-slot list's
    /// head and (if the queue was not empty) its tail slot's link as they were.
    Push {
        out: bool,
        q: u16,
        lane: Lane,
        free: u16,
        tail_next: u16,
    },
    /// Queue `q`'s head slot left it: the queue's positions, the free-slot
    /// list's head and the slot's link as they were.
    Pop {
        out: bool,
        q: u16,
        lane: Lane,
        free: u16,
        next: u16,
    },
    /// A slot was appended to the pool.
    Grew {
        out: bool,
    },
    /// Output link `o`'s count of input heads routed to it went up by
    /// `delta` (±1).
    Heads {
        o: u16,
        delta: i8,
    },
    /// Input queue `q` joined output link `o`'s waiting list (at its end):
    /// the list's ends, `q`'s link and the old last queue's link as they
    /// were; the link's heads went up by one. One entry where a lane, the
    /// old last lane and the list took three.
    WaitFor {
        o: u16,
        q: u16,
        q_wait: u16,
        last_wait: u16,
        waiting: u16,
        waiting_last: u16,
    },
    /// Input queue `q` left output link `o`'s waiting list: the list's ends
    /// as they were, and the queue before it (`prev`, or `NIL`), whose link
    /// was `q`; the link's heads went down by one.
    DoneWaiting {
        o: u16,
        q: u16,
        prev: u16,
        waiting: u16,
        waiting_last: u16,
    },
    /// Output link `o`'s pending wake-up, as it was.
    Wake {
        o: u16,
        wake: f64,
    },
    /// Output link `o` launched a packet (`packets += 1`): its last input,
    /// when it frees and its busy time were these; a hop (`hops += 1`)
    /// took a credit of input lane `lane`, or (`lane` `NIL`) the packet went
    /// to the ejection link; `on_link`: it was still on its link at the
    /// end. One entry where the link, the lane and the counts took three.
    Launched {
        o: u16,
        lane: u16,
        last_input: u16,
        on_link: bool,
        free: f64,
        busy: f64,
    },
    /// Output link `o`'s last input (round-robin arbitration), as it was.
    LastInput {
        o: u16,
        old: u16,
    },
    /// NIC `nic`'s scalars as they were.
    Nic {
        nic: u8,
        wake: f64,
        next: f64,
        next_msg: u32,
    },
    /// NIC `nic`'s head left its injection queue (`counted`: in the
    /// measured window, its bytes added to the NIC's accepted bytes): its
    /// back half, then (restored first, putting the packet back) its front.
    NicPopBack {
        nic: u8,
        counted: bool,
        b: Back,
    },
    NicPopFront {
        nic: u8,
        f: Front,
    },
    /// NIC `nic`'s head was routed again; its halves were these.
    NicHeadFront {
        nic: u8,
        f: Front,
    },
    NicHeadBack {
        nic: u8,
        b: Back,
    },
    /// `--nic-buffer`: NIC `nic`'s credits and sent packets as they were.
    NicBuf {
        nic: u8,
        credits: u16,
        sent: u16,
    },
    /// `--nic-buffer`: packet `i` of NIC `nic`'s queue took a slot; its
    /// `ready` was `ready` (infinite: it waited at the NIC).
    NicReady {
        nic: u8,
        i: u32,
        ready: f64,
    },
    /// `events += 1`.
    Event,
    /// An arrival event: `events += 1`, and its packet went into input
    /// queue `q` (as in `Push`). Kept in the event's record, restored after
    /// the journal: the queue's other writes in the event (the slot, a
    /// later pop) touch other fields or are undone before it.
    Arrived {
        q: u16,
        lane: Lane,
        free: u16,
        tail_next: u16,
    },
    /// A credit event: `events += 1` and input lane `q`'s `credits += 1`
    /// (undone by computation; kept in the event's record, not the
    /// journal, where a whole lane was saved for it).
    CreditEvent {
        q: u16,
    },
    /// A wake-up event: `events += 1`, and output link `o`'s pending
    /// wake-up, `wake` (the event's time), cleared (kept in the record).
    WakeEvent {
        o: u16,
        wake: f64,
    },
    /// The buffer maxima as they were.
    Maxes {
        input: u16,
        output: u16,
        credits: u16,
    },
    /// A packet of `bytes` was created and appended to NIC `nic`'s
    /// injection queue; `measured`: in the window.
    Injected {
        nic: u8,
        bytes: u32,
        measured: bool,
    },
    /// A packet of `bytes` was delivered (`in_window`: its bytes counted)
    /// and the last delivery time was `last`.
    Delivered {
        bytes: u16,
        in_window: bool,
        last: f64,
    },
    /// A measured packet's latency `lat` and `hops` were counted: the
    /// histogram span and minimum as they were, then (`LatencySums`) the
    /// sums and maximum.
    Latency {
        lat: f64,
        hops: u16,
        min: f64,
        hist_first: u32,
        hist_len: u32,
    },
    LatencySums {
        sum: f64,
        queue: f64,
        max: f64,
    },
    /// Part `part` (0 source queueing, 1 network latency) of a measured
    /// packet's latency, `x`, was counted: the split histogram's span and
    /// the part's extremes as they were.
    Split {
        part: u8,
        x: f64,
        first: u32,
        len: u32,
    },
    /// The extremes of part `part`, as they were.
    SplitExtremes {
        part: u8,
        min: f64,
        max: f64,
    },
    /// A delivery counted in batch `b`: its bytes, and (`measured`) the
    /// batch's latency sum as it was.
    Batch {
        b: u8,
        bytes: u16,
        measured: bool,
        lat: f64,
    },
    /// A measured message completed; its latency sum was `sum`.
    Message {
        sum: f64,
    },
    /// A message entry was appended to the reassembly list.
    PartialPush,
    /// Reassembly entry `i` counted a packet (`.2 -= 1`).
    PartialCount {
        i: u32,
    },
    /// Reassembly entry `i` (swap-removed) was `old`.
    PartialRemove {
        i: u32,
        old: (u32, u32, u32, f64),
    },
    /// Rank `nic`'s scalars as they were: its counters and phase, then its times.
    RankCounters {
        nic: u8,
        c: Counters,
    },
    RankTimes {
        nic: u8,
        t: Times,
    },
    /// One change to a list of rank `nic` (see [`ListOp`]).
    RankList {
        nic: u8,
        list: u8,
        op: ListOp,
        i: u32,
        v: [u32; 4],
    },
    /// UGAL-G: the occupancy known of the group's global channel `k` was `old`.
    Seen {
        k: u32,
        old: u16,
    },
    /// UGAL-G: the last broadcast's time and the pending one's were these.
    Publish {
        last: f64,
        pending: f64,
    },
    /// Time series: rows were opened; there were `from`, the last of them
    /// open (its occupancy not yet read).
    SampleGrow {
        from: u32,
    },
    /// Time series: a packet was created in the open row.
    SampleInjected,
    /// Time series: a packet of `bytes` and latency `lat` was delivered in
    /// the open row; its latency sum, extremes and histogram span as they were.
    SampleDelivered {
        lat: f64,
        bytes: u16,
        sum: f64,
        first: u32,
        len: u32,
    },
    /// Time series: the open row's latency extremes, as they were.
    SampleExtremes {
        min: f64,
        max: f64,
    },
    /// Time series: job `job`'s cell of the open row counted a packet of
    /// `bytes`; its latency sum was `sum`.
    SampleJob {
        job: u16,
        bytes: u16,
        sum: f64,
    },
    /// Time series: network port `o`'s busy time in the open row was `old`.
    SampleBusy {
        o: u16,
        old: f64,
    },
    /// `--lp-io-dir`: NIC `nic` received a packet that crossed `routers`
    /// routers; its latency sum and extremes were these.
    LpIoPacket {
        nic: u8,
        routers: u16,
        sum: f64,
        max: f64,
        min: f64,
    },
    /// `--lp-io-dir`: NIC `nic` received the last packet of a message of `bytes`.
    LpIoMessage {
        nic: u8,
        bytes: u64,
    },
    /// `--lp-io-dir`: a message's reassembly entry `i`: pushed (`op` 0),
    /// grown by `bytes` (1), or removed by a swap (2), when it was this.
    LpIoPending {
        op: u8,
        i: u32,
        src: u32,
        msg: u32,
        bytes: u64,
    },
    /// `--lp-io-dir`: output link `o` sent a packet of `bytes`.
    LpIoSent {
        o: u16,
        bytes: u32,
    },
    /// `--lp-io-dir` with `--nic-buffer`: NIC `nic`'s packet waited for a
    /// slot (`stalled += 1`); its busy time was `busy`.
    LpIoNicStall {
        nic: u8,
        busy: f64,
    },
    /// `--lp-io-dir`: a packet found output `o` without a credit; its busy
    /// period's start was `since`.
    LpIoStall {
        o: u16,
        since: f64,
    },
    /// `--lp-io-dir`: output `o`'s busy period (from `since`) closed; its
    /// busy time was `busy`.
    LpIoBusy {
        o: u16,
        since: f64,
        busy: f64,
    },
    /// `--lp-io-dir`: NIC `nic` created (`sent` false) or sent onto its
    /// link a packet of `bytes`.
    LpIoNic {
        nic: u8,
        sent: bool,
        bytes: u32,
    },
    /// Several jobs: job `job`'s run totals here counted a packet of
    /// `bytes`; its latency sum was `sum`.
    JobTotal {
        job: u16,
        bytes: u16,
        sum: f64,
    },
}

/// A change to a list, and how it is undone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ListOp {
    /// Appended at the end: undone by removing the last element.
    Push,
    /// Element `i` (`v`) removed, order kept: undone by inserting it back.
    Remove,
    /// Element `i` (`v`) removed by swapping the last into its place.
    SwapRemove,
    /// Element `i` was `v` before it was changed.
    Set,
}

/// A node's journal of the current event: where [`Node`]'s writing methods
/// save, the engine's own journal lent for the handler (`Ctx::save_into`). Never part of the state's value (skipped in its encoding and
/// comparison): it is empty between events.
#[derive(Clone, Debug, Default)]
pub(crate) struct Journal {
    /// Whether anything is saved (only where events may be rolled back).
    pub(crate) on: bool,
    /// The engine's journal while lent (earlier events' entries first); empty otherwise.
    pub(crate) entries: timewarp::Lent<Undo>,
}

const _: () = assert!(std::mem::size_of::<Saved>() == 32, "a journal entry must stay 32 bytes");

impl PartialEq for Journal {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Journal {
    #[inline(always)]
    pub(crate) fn save(&mut self, e: impl FnOnce() -> Saved) {
        if self.on {
            self.entries.push(Undo(e()));
        }
    }

    /// Puts `e` in the event's own record `undo` instead (restored after
    /// the journal's entries, `Model::RESTORE_RECORD`): one entry an event
    /// may keep there, its count and at most one write made with it.
    #[inline(always)]
    pub(crate) fn record(&self, undo: &mut Undo, e: impl FnOnce() -> Saved) {
        if self.on {
            *undo = Undo(e());
        }
    }
}
