//! Messages between PEs of one process: one single-producer/single-consumer
//! ring per (sender, receiver) pair, so no lock or cache line is shared by
//! more than two threads. Sends wait in a sender-side FIFO per destination
//! and move into the ring as one chunk per batch (or later, if the ring is
//! full); order per pair is kept, so an anti-message can never overtake the
//! event it cancels.

use std::collections::VecDeque;

use rtrb::{Consumer, Producer, RingBuffer};

use crate::key::{Key, LpId};
use crate::wire::Wire;

/// One PE's ends of the rings: a producer to and a consumer from every other PE.
pub(crate) struct Links<Msg> {
    tx: Vec<Option<Producer<Wire<Msg>>>>,
    spill: Vec<VecDeque<Wire<Msg>>>,
    /// Events sent so far on each outgoing channel (numbers them).
    sent: Vec<u32>,
    /// Incoming rings with the (global) PE each comes from.
    rx: Vec<(usize, Consumer<Wire<Msg>>)>,
    spilled: usize,
}

impl<Msg: Copy> Links<Msg> {
    /// Builds the rings of the `pes` PEs of a process whose first PE has
    /// global id `base`; element `i` of the result belongs to local PE `i`.
    pub(crate) fn mesh(pes: usize, base: usize, capacity: usize) -> Vec<Links<Msg>> {
        let mut links: Vec<Links<Msg>> = (0..pes)
            .map(|_| Links {
                tx: (0..pes).map(|_| None).collect(),
                spill: (0..pes).map(|_| VecDeque::new()).collect(),
                sent: vec![0; pes],
                rx: Vec::new(),
                spilled: 0,
            })
            .collect();
        for from in 0..pes {
            for to in 0..pes {
                if from != to {
                    let (p, c) = RingBuffer::new(capacity);
                    links[from].tx[to] = Some(p);
                    links[to].rx.push((base + from, c));
                }
            }
        }
        links
    }

    /// Sends a new event to local PE `to`; returns its number on that channel,
    /// which an anti-message for it will carry.
    #[inline]
    pub(crate) fn send_event(&mut self, to: usize, key: Key, dst: LpId, msg: Msg) -> u32 {
        let cseq = self.sent[to];
        self.sent[to] = cseq.wrapping_add(1);
        self.send(to, Wire::Event { key, dst, cseq, msg });
        cseq
    }

    /// Sends `w` to local PE `to`. Messages wait in a per-destination FIFO until
    /// [`flush`](Self::flush) moves them into the ring as one chunk: one
    /// update of the ring's shared index per batch instead of per message
    /// (the index's cache line is what the two cores would fight over).
    #[inline]
    pub(crate) fn send(&mut self, to: usize, w: Wire<Msg>) {
        self.spill[to].push_back(w);
        self.spilled += 1;
    }

    /// Moves waiting messages into their rings, as many as fit.
    pub(crate) fn flush(&mut self) {
        if self.spilled == 0 {
            return;
        }
        for (to, q) in self.spill.iter_mut().enumerate() {
            if q.is_empty() {
                continue;
            }
            if let Some(p) = &mut self.tx[to] {
                let n = p.slots().min(q.len());
                if n > 0 {
                    if let Ok(chunk) = p.write_chunk_uninit(n) {
                        chunk.fill_from_iter(q.drain(..n));
                        self.spilled -= n;
                    }
                }
            }
        }
    }

    /// Messages waiting here for room in their ring.
    #[inline]
    pub(crate) fn spilled(&self) -> usize {
        self.spilled
    }

    /// Smallest key among messages still spilled here (they are in flight).
    pub(crate) fn spilled_min(&self) -> Key {
        if self.spilled == 0 {
            return Key::INF;
        }
        self.spill.iter().flatten().map(|w| w.key()).min().unwrap_or(Key::INF)
    }

    /// Moves every message waiting in this PE's incoming rings into `into`,
    /// each with the global PE it came from.
    #[inline]
    pub(crate) fn drain_into(&mut self, into: &mut Vec<(usize, Wire<Msg>)>) {
        for (from, c) in &mut self.rx {
            let n = c.slots();
            if n > 0 {
                if let Ok(chunk) = c.read_chunk(n) {
                    into.extend(chunk.into_iter().map(|w| (*from, w)));
                }
            }
        }
    }
}

/// What a PE remembers of the events one other PE sent it: their
/// incarnations by channel number, so an anti-message finds its event in
/// O(1). Entries arrive in channel order (append only) and leave from the
/// front once GVT has passed their timestamp (the event is committed or was
/// cancelled by then, and no anti-message can still come for it). Compared
/// with a hash map of every received event this touches memory sequentially.
#[derive(Default)]
pub(crate) struct Received {
    /// Channel number of the front entry.
    base: u32,
    /// (timestamp, incarnation) per channel number from `base`.
    slots: VecDeque<(f64, u32)>,
}

impl Received {
    /// Records event number `cseq` (the next on the channel).
    #[inline]
    pub(crate) fn push(&mut self, cseq: u32, time: f64, inc: u32) {
        debug_assert_eq!(cseq, self.base.wrapping_add(self.slots.len() as u32), "channel numbers arrive in order");
        self.slots.push_back((time, inc));
    }

    /// Incarnation of event number `cseq`, if it is still remembered.
    pub(crate) fn get(&self, cseq: u32) -> Option<u32> {
        self.slots.get(cseq.wrapping_sub(self.base) as usize).map(|s| s.1)
    }

    /// Forgets the front entries whose timestamp is below GVT time `t`;
    /// returns how many.
    pub(crate) fn trim(&mut self, t: f64) -> usize {
        let before = self.slots.len();
        while self.slots.front().is_some_and(|s| s.0 < t) {
            self.slots.pop_front();
            self.base = self.base.wrapping_add(1);
        }
        before - self.slots.len()
    }
}
