//! The state of one network node (router + NIC) and the bounded packet
//! queues it is built from.

use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

use super::global::{Global, OwnedTail, Tail};
use super::histogram::Latencies;
use super::journal::{Journal, Saved};

/// "No dimension yet": a packet that has not left its source router.
pub(crate) const NO_DIM: u8 = u8::MAX;

/// A packet as it waits in a buffer: its [`Header`] and what the router it
/// is at adds (when it may leave, and where to).
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Packet {
    /// When its message was created at the source NIC (ns).
    pub created: f64,
    /// When it entered the network: at the source, when its head reaches
    /// the router having become the head of its NIC queue (it may not leave
    /// before); in transit, carried in its [`Header`]. The age by which
    /// switches arbitrate.
    pub ready: f64,
    /// Source and destination node.
    pub src: u32,
    pub dst: u32,
    /// Message number at the source, and packets in that message.
    pub msg: u32,
    pub npkts: u32,
    /// Bytes in this packet (at most `u16::MAX`, which `Network::validate` checks).
    pub bytes: u32,
    /// Router-to-router hops so far.
    pub hops: u16,
    /// Dimension of the link it is on or about to take, and its dateline
    /// class there (0 before the wrap-around link, 1 after).
    pub dim: u8,
    pub class: u8,
    /// Output port chosen at the current router (routing is done once, on arrival).
    pub out: u8,
    /// Dragonfly: the Valiant intermediate group still to be reached, or
    /// [`NO_VIA`](super::NO_VIA) (minimal routing, or past it).
    pub via: u16,
}

/// What a packet carries from router to router (an `Arrive` or `Deliver`
/// message): the [`Packet`] less the fields only its current router needs.
/// 40 bytes, not the packet's 48: every event in flight is a queue entry, and the
/// pending-event queue of a large network is the simulator's biggest
/// working set (its refills were a fifth of the run time).
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Header {
    pub created: f64,
    /// When the packet entered the network (its [`Packet::ready`] at the
    /// source router): its age for arbitration at every router.
    pub entered: f64,
    pub src: u32,
    pub dst: u32,
    pub msg: u32,
    pub npkts: u32,
    pub bytes: u16,
    pub hops: u16,
    pub dim: u8,
    pub class: u8,
    pub via: u16,
}

impl Packet {
    /// What travels to the next router or NIC.
    #[inline]
    pub fn header(&self) -> Header {
        Header {
            created: self.created,
            entered: self.ready,
            src: self.src,
            dst: self.dst,
            msg: self.msg,
            npkts: self.npkts,
            bytes: self.bytes as u16,
            hops: self.hops,
            dim: self.dim,
            class: self.class,
            via: self.via,
        }
    }

    /// The packet whose header arrived (not yet routed).
    #[inline]
    pub fn arrived(h: &Header) -> Packet {
        Packet {
            created: h.created,
            // In transit a packet may leave at once; its age is the network's.
            ready: h.entered,
            src: h.src,
            dst: h.dst,
            msg: h.msg,
            npkts: h.npkts,
            bytes: h.bytes as u32,
            hops: h.hops,
            dim: h.dim,
            class: h.class,
            out: 0,
            via: h.via,
        }
    }
}

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
    /// What it overwrites is saved in `log` (`out`: these are output queues).
    #[inline]
    pub(crate) fn push(&mut self, q: usize, p: Packet, out: bool, log: &mut Journal) -> Option<usize> {
        if self.lanes[q].len >= self.cap {
            return None;
        }
        let (lane, free) = (self.lanes[q], self.free);
        let tail_next = if lane.tail == NIL { NIL } else { self.slots[lane.tail as usize].next };
        // One entry for the positions, one for the slot taken (two, not four: journal.rs).
        let s = match free {
            NIL => {
                // At most every queue full: queues × cap slots, below u16::MAX (`Network::validate` checks it).
                log.save(|| Saved::Grew { out });
                self.slots.push(Slot { p, next: NIL });
                (self.slots.len() - 1) as u16
            }
            s => {
                let old = self.slots[s as usize];
                log.save(|| Saved::Slot { out, s, old });
                self.free = old.next;
                self.slots[s as usize] = Slot { p, next: NIL };
                s
            }
        };
        log.save(|| Saved::Push { out, q: q as u16, lane, free, tail_next });
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

impl Node {
    /// Input queue `q`'s head (routed to `out`) starts waiting for its output.
    #[inline]
    pub(crate) fn wait_for(&mut self, q: usize, out: usize) {
        self.save_lane(q);
        let last = self.links[out].waiting_last;
        if last != NIL {
            self.save_lane(last as usize);
        }
        let l = self.link_mut(out);
        l.heads += 1;
        let last = std::mem::replace(&mut l.waiting_last, q as u16);
        match last {
            NIL => l.waiting = q as u16,
            t => self.input.lanes[t as usize].wait = q as u16,
        }
        self.input.lanes[q].wait = NIL;
    }

    /// Input queue `q`'s head (routed to `out`) leaves.
    #[inline]
    pub(crate) fn done_waiting(&mut self, q: usize, out: usize) {
        self.link_mut(out).heads -= 1;
        let next = self.input.lanes[q].wait;
        let (mut prev, mut at) = (NIL, self.links[out].waiting);
        while at as usize != q {
            debug_assert!(at != NIL, "input {q} was not waiting for output {out}");
            prev = at;
            at = self.input.lanes[at as usize].wait;
        }
        match prev {
            NIL => self.links[out].waiting = next,
            p => {
                self.save_lane(p as usize);
                self.input.lanes[p as usize].wait = next
            }
        }
        if next == NIL {
            self.links[out].waiting_last = prev;
        }
    }

    /// Saves input lane `q` before a write to it.
    #[inline(always)]
    fn save_lane(&mut self, q: usize) {
        let old = self.input.lanes[q];
        self.log.save(|| Saved::Lane { out: false, q: q as u16, old });
    }

    /// The network input queues whose heads wait for output `o`.
    #[inline]
    pub(crate) fn waiting(&self, o: usize) -> impl Iterator<Item = usize> + '_ {
        let mut at = self.links[o].waiting;
        std::iter::from_fn(move || {
            (at != NIL).then(|| {
                let q = at as usize;
                at = self.input.lanes[q].wait;
                q
            })
        })
    }
}

/// One LP: a router with its NICs (one, except on a dragonfly).
/// Encoded field by field in this order, the UGAL-G table (if any) with
/// the ranks at the end ([`Tail`]).
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
    pub(crate) ranks: Vec<super::workload::Rank>,
    /// UGAL-G: what this router knows of its group's global channels
    /// (global.rs); `None` under every other routing.
    pub(crate) global: Option<Box<Global>>,
    /// What the current event overwrote (optimistic runs; empty between events).
    pub(crate) log: Journal,
}

/// A [`Node`] as it is encoded (its journal, empty between events, left out).
#[derive(Serialize)]
struct Encoded<'a> {
    input: &'a Queues,
    links: &'a [Link],
    counts: &'a Counts,
    inject: &'a [Nic],
    output: &'a Queues,
    partial: &'a [(u32, u32, u32, f64)],
    ranks: Tail<'a>,
}

/// A [`Node`] as it is decoded.
#[derive(Deserialize)]
struct Decoded {
    input: Queues,
    links: Vec<Link>,
    counts: Counts,
    inject: Vec<Nic>,
    output: Queues,
    partial: Vec<(u32, u32, u32, f64)>,
    ranks: OwnedTail,
}

impl Serialize for Node {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Encoded {
            input: &self.input,
            links: &self.links,
            counts: &self.counts,
            inject: &self.inject,
            output: &self.output,
            partial: &self.partial,
            ranks: Tail(&self.ranks, self.global.as_deref()),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let e = Decoded::deserialize(d)?;
        Ok(Node {
            input: e.input,
            links: e.links,
            counts: e.counts,
            inject: e.inject,
            output: e.output,
            partial: e.partial,
            ranks: e.ranks.0,
            global: e.ranks.1,
            log: Journal::default(),
        })
    }
}
