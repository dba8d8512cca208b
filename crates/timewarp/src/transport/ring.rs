//! Messages between PEs of one process: one single-producer/single-consumer
//! ring per (sender, receiver) pair, so no lock or cache line is shared by
//! more than two threads. A send goes straight into its ring; only when the
//! ring is full does it wait in a sender-side FIFO per destination, which
//! [`Links::flush`] empties into the ring as room appears. Order per pair is
//! kept (nothing passes a message that waits), so an anti-message can never
//! overtake the event it cancels.

use std::collections::VecDeque;

use rtrb::{Consumer, Producer, PushError, RingBuffer};

use crate::key::{Key, LpId};

use super::wire::Wire;
use crate::layout::{Layout, PeId};

/// One PE's ends of the rings: a producer to and a consumer from every other PE.
pub(crate) struct Links<Msg> {
    tx: Vec<Option<Producer<Wire<Msg>>>>,
    spill: Vec<VecDeque<Wire<Msg>>>,
    /// Events sent so far on each outgoing channel (numbers them).
    sent: Vec<u32>,
    /// Incoming rings with the (global) PE each comes from.
    rx: Vec<(PeId, Consumer<Wire<Msg>>)>,
    spilled: usize,
}

impl<Msg: Copy> Links<Msg> {
    /// Builds the rings of the PEs of the process `layout` sees from, each
    /// of `capacity` slots; element `i` of the result belongs to local PE `i`.
    pub(crate) fn mesh(layout: &Layout, capacity: usize) -> Vec<Links<Msg>> {
        let pes = layout.pes_per_process();
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
                    links[to].rx.push((layout.global(from), c));
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

    /// Sends `w` to local PE `to`: into its ring, or behind what already
    /// waits for room there. A direct write costs one copy of the message
    /// where the FIFO cost two and a pass over every destination per batch;
    /// the ring's shared index still changes hands at most once per look of
    /// the receiver, who reads it once per drain.
    #[inline]
    pub(crate) fn send(&mut self, to: usize, w: Wire<Msg>) {
        // Nothing waits anywhere (the usual case, known from the count):
        // the destination's FIFO is not looked at. With 16 PEs on one
        // core its header was a cache miss on every send.
        let w = match &mut self.tx[to] {
            Some(p) if self.spilled == 0 || self.spill[to].is_empty() => match p.push(w) {
                Ok(()) => return,
                Err(PushError::Full(w)) => w,
            },
            _ => w,
        };
        self.spill[to].push_back(w);
        self.spilled += 1;
    }

    /// Moves messages that wait for room into their rings, as many as fit.
    #[inline]
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

    /// Hands every message waiting in this PE's incoming rings to `take`,
    /// with the global PE it came from, straight out of the ring; returns
    /// how many.
    #[inline]
    pub(crate) fn drain_with(&mut self, mut take: impl FnMut(PeId, Wire<Msg>)) -> usize {
        let mut taken = 0;
        for (from, c) in &mut self.rx {
            let n = c.slots();
            if n > 0 {
                if let Ok(chunk) = c.read_chunk(n) {
                    taken += n;
                    for w in chunk {
                        take(*from, w);
                    }
                }
            }
        }
        taken
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rings_keep_order_and_name_the_global_sender() {
        // Process 1 of 2, PEs 3, 4 and 5; rings of 2 slots, so sends spill.
        let mut links = Links::<u64>::mesh(&Layout::new(1, 2, 3), 2);
        let k = |t: f64| Key::new(t, 0, 0, 0);
        assert_eq!(links[0].send_event(2, k(2.0), 7, 10), 0);
        assert_eq!(links[0].send_event(2, k(1.0), 7, 11), 1);
        assert_eq!(links[0].spilled(), 0, "both fit in the ring");
        links[0].send(2, Wire::Anti { key: k(2.0), dst: 7, cseq: 0 });
        assert_eq!((links[0].spilled(), links[0].spilled_min()), (1, k(2.0)), "one waits for room");
        links[0].flush();
        assert_eq!(links[0].spilled(), 1, "still no room");
        let mut got = Vec::new();
        assert_eq!(links[2].drain_with(|from, w| got.push((from, w))), 2);
        links[0].send_event(2, k(3.0), 7, 12);
        assert_eq!(links[0].spilled(), 2, "nothing passes a waiting message");
        links[0].flush();
        links[2].drain_with(|from, w| got.push((from, w)));
        assert_eq!(links[0].spilled(), 0);
        let seen: Vec<(usize, u32)> = got
            .iter()
            .map(|(from, w)| match w {
                Wire::Event { cseq, .. } => (from.index(), *cseq),
                Wire::Anti { cseq, .. } => (from.index(), 100 + *cseq),
            })
            .collect();
        assert_eq!(seen, [(3, 0), (3, 1), (3, 100), (3, 2)]);
        assert_eq!(links[1].drain_with(|from, w| got.push((from, w))), 0, "nothing for PE 4");
    }
}
