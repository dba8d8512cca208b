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
}

/// Fixed-capacity FIFO queues in one flat buffer (one allocation however
/// many ports and virtual channels: a state snapshot is one copy).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Queues {
    cap: u16,
    slots: Vec<Packet>,
    head: Vec<u16>,
    len: Vec<u16>,
}

impl Queues {
    pub(crate) fn new(queues: usize, cap: u16) -> Self {
        Queues {
            cap,
            slots: vec![Packet::default(); queues * cap as usize],
            head: vec![0; queues],
            len: vec![0; queues],
        }
    }

    #[inline]
    pub(crate) fn len(&self, q: usize) -> usize {
        self.len[q] as usize
    }

    #[inline]
    pub(crate) fn is_full(&self, q: usize) -> bool {
        self.len[q] == self.cap
    }

    #[inline]
    pub(crate) fn head(&self, q: usize) -> Option<&Packet> {
        (self.len[q] > 0).then(|| &self.slots[q * self.cap as usize + self.head[q] as usize])
    }

    /// Appends `p` to queue `q`. A full queue is a flow-control bug (credits
    /// let a sender overrun its receiver): it panics, which the engine turns
    /// into an error naming the LP and time.
    #[inline]
    pub(crate) fn push(&mut self, q: usize, p: Packet) -> usize {
        assert!(
            self.len[q] < self.cap,
            "flow control violated: a packet arrived at a full buffer (queue {q}, capacity {})",
            self.cap
        );
        let i = (self.head[q] + self.len[q]) % self.cap;
        self.slots[q * self.cap as usize + i as usize] = p;
        self.len[q] += 1;
        self.len[q] as usize
    }

    #[inline]
    pub(crate) fn pop(&mut self, q: usize) -> Packet {
        debug_assert!(self.len[q] > 0);
        let p = self.slots[q * self.cap as usize + self.head[q] as usize];
        self.head[q] = (self.head[q] + 1) % self.cap;
        self.len[q] -= 1;
        p
    }

    /// Packets in every queue.
    pub(crate) fn total(&self) -> u64 {
        self.len.iter().map(|&l| l as u64).sum()
    }
}

/// What a node counts.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Counts {
    /// Events this node processed (committed ones, in the final state).
    pub events: u64,
    /// Router-to-router hops started here.
    pub hops: u64,
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
    /// Most packets ever held by one input buffer (virtual channel) and by
    /// one output buffer, and the most credits ever held for one.
    pub max_input: u16,
    pub max_output: u16,
    pub max_credits: u16,
    /// Per output port: packets sent and busy time in the window.
    pub link_packets: Vec<u64>,
    pub link_busy: Vec<f64>,
}

/// One node: a router with its NIC.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// Input buffers, one per (network port, virtual channel).
    pub(crate) input: Queues,
    /// The NIC's injection queue (unbounded: the source queue).
    pub(crate) inject: VecDeque<Packet>,
    /// Output buffers per (port incl. ejection, virtual channel); empty
    /// (capacity 0 queues) for input-buffered switches.
    pub(crate) output: Queues,
    /// Free buffer slots at the far end of each (network port, virtual channel).
    pub(crate) credits: Vec<u16>,
    /// When each output link (network ports, then ejection) is next free.
    pub(crate) link_free: Vec<f64>,
    /// Time of the wake-up event pending for each output link, or -1.
    pub(crate) wake: Vec<f64>,
    /// Time of the pending injection wake-up (the next packet's head reaches the router), or -1.
    pub(crate) inject_wake: f64,
    /// Earliest time the next injected packet's head can reach the router.
    pub(crate) inject_next: f64,
    /// Messages created here so far.
    pub(crate) next_msg: u32,
    /// Messages being reassembled here: (source, message, packets still missing, created).
    pub(crate) partial: Vec<(u32, u32, u32, f64)>,
    pub(crate) counts: Counts,
}
