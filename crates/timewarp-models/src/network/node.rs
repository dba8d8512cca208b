//! The state of one network node (router + NIC) and the bounded packet
//! queues it is built from.

use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

use super::histogram::Histogram;

/// "No dimension yet": a packet that has not left its source router.
pub(crate) const NO_DIM: u8 = u8::MAX;

/// A packet, as it travels and as it waits in a buffer.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Packet {
    /// When its message was created at the source NIC (ns).
    pub created: f64,
    /// When it became eligible to leave the buffer it is in.
    pub ready: f64,
    /// Source and destination node.
    pub src: u32,
    pub dst: u32,
    /// Message number at the source, and packets in that message.
    pub msg: u32,
    pub npkts: u32,
    /// Bytes in this packet.
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

/// Per queue: where its packets are, and (for a router's input queues) the
/// credits of the output virtual channel with the same index. Kept together
/// so that an event touches one cache line of them, not three vectors.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Lane {
    /// First and last packet (slot indices; [`NIL`] when empty).
    head: u16,
    tail: u16,
    len: u16,
    /// Free buffer slots at the far end of output (port, virtual channel) of this index.
    pub(crate) credits: u16,
}

impl Default for Lane {
    fn default() -> Self {
        Lane { head: NIL, tail: NIL, len: 0, credits: 0 }
    }
}

/// "No slot": the end of a queue or of the free list.
const NIL: u16 = u16::MAX;

/// A packet in a buffer, and the next one of its queue (or of the free list).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Slot {
    p: Packet,
    next: u16,
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
    slots: Vec<Slot>,
    /// First free slot ([`NIL`]: none; the pool grows).
    free: u16,
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
    #[inline]
    pub(crate) fn push(&mut self, q: usize, p: Packet) -> Option<usize> {
        if self.lanes[q].len >= self.cap {
            return None;
        }
        let s = match self.free {
            NIL => {
                // At most every queue full: queues × cap slots, below u16::MAX (`Network::validate` checks it).
                self.slots.push(Slot { p, next: NIL });
                (self.slots.len() - 1) as u16
            }
            s => {
                self.free = self.slots[s as usize].next;
                self.slots[s as usize] = Slot { p, next: NIL };
                s
            }
        };
        let l = &mut self.lanes[q];
        match l.tail {
            NIL => l.head = s,
            t => self.slots[t as usize].next = s,
        }
        l.tail = s;
        l.len += 1;
        Some(l.len as usize)
    }

    #[inline]
    pub(crate) fn pop(&mut self, q: usize) -> Packet {
        let l = &mut self.lanes[q];
        debug_assert!(l.len > 0);
        let s = l.head;
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
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
    /// min, distribution; their hops (sum and sum of squares).
    pub lat_n: u64,
    pub lat_sum: f64,
    pub lat_max: f64,
    pub lat_min: f64,
    pub hist: Histogram,
    pub hop_sum: u64,
    pub hop_sq: u64,
    /// Messages created in the window and delivered whole: count, latency sum.
    pub msg_n: u64,
    pub msg_lat_sum: f64,
}

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
}

/// One LP: a router with its NICs (one, except on a dragonfly).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
    pub(crate) ranks: Vec<super::rank::Rank>,
}
