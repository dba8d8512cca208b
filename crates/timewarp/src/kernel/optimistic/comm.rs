//! Messages between PEs of one process: one single-producer/single-consumer
//! ring per (sender, receiver) pair, so no lock or cache line is shared by
//! more than two threads. Sends wait in a sender-side FIFO per destination
//! and move into the ring as one chunk per batch (or later, if the ring is
//! full); order per pair is kept, so an anti-message can never overtake the
//! event it cancels.

use std::collections::VecDeque;

use rtrb::{Consumer, Producer, RingBuffer};

use crate::key::{Key, LpId};

/// What travels between PEs.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Wire<Msg> {
    /// A new event for `dst`.
    Event { key: Key, dst: LpId, msg: Msg },
    /// Cancel the event with this key sent earlier to `dst`.
    Anti { key: Key, dst: LpId },
}

impl<Msg> Wire<Msg> {
    pub(crate) fn key(&self) -> Key {
        match self {
            Wire::Event { key, .. } | Wire::Anti { key, .. } => *key,
        }
    }
}

/// One PE's ends of the rings: a producer to and a consumer from every other PE.
pub(crate) struct Links<Msg> {
    tx: Vec<Option<Producer<Wire<Msg>>>>,
    spill: Vec<VecDeque<Wire<Msg>>>,
    rx: Vec<Consumer<Wire<Msg>>>,
    spilled: usize,
}

impl<Msg: Copy> Links<Msg> {
    /// Builds the rings of `pes` PEs; element `i` of the result belongs to PE `i`.
    pub(crate) fn mesh(pes: usize, capacity: usize) -> Vec<Links<Msg>> {
        let mut links: Vec<Links<Msg>> = (0..pes)
            .map(|_| Links {
                tx: (0..pes).map(|_| None).collect(),
                spill: (0..pes).map(|_| VecDeque::new()).collect(),
                rx: Vec::new(),
                spilled: 0,
            })
            .collect();
        for from in 0..pes {
            for to in 0..pes {
                if from != to {
                    let (p, c) = RingBuffer::new(capacity);
                    links[from].tx[to] = Some(p);
                    links[to].rx.push(c);
                }
            }
        }
        links
    }

    /// Sends `w` to PE `to`. Messages wait in a per-destination FIFO until
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

    /// Smallest key among messages still spilled here (they are in flight).
    pub(crate) fn spilled_min(&self) -> Key {
        if self.spilled == 0 {
            return Key::INF;
        }
        self.spill.iter().flatten().map(|w| w.key()).min().unwrap_or(Key::INF)
    }

    /// Moves every message waiting in this PE's incoming rings into `into`.
    #[inline]
    pub(crate) fn drain_into(&mut self, into: &mut Vec<Wire<Msg>>) {
        for c in &mut self.rx {
            let n = c.slots();
            if n > 0 {
                if let Ok(chunk) = c.read_chunk(n) {
                    into.extend(chunk);
                }
            }
        }
    }
}
