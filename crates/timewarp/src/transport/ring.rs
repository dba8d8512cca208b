//! Messages between PEs of one process: one single-producer/single-consumer
//! ring per (sender, receiver) pair, so no lock or cache line is shared by
//! more than two threads. A send goes straight into its ring; only when the
//! ring is full does it wait in a sender-side FIFO per destination, which
//! [`Links::flush`] empties into the ring as room appears. Order per pair is
//! kept (nothing passes a message that waits), so an anti-message can never
//! overtake the event it cancels.
//!
//! Where workers run several PEs each, every PE also has a doorbell: a word
//! with a bit per sender, set after each message that sender puts in its
//! ring. A drain then reads one word and only the rings it names, where it
//! used to read the shared index of every ring: on 16 PEs on one worker that
//! look cost 15 cache lines a turn for the 4 or so rings that held anything.
//! With one PE per worker the rings' indices are read by one core and
//! written by one other, and a doorbell would be a line all senders write:
//! there is none.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::key::{Key, LpId};
// rtrb's ring and std's atomics, or loom's under `--cfg loom` (see `crate::sync`).
use crate::sync::spsc::{Consumer, Producer, PushError, RingBuffer};
use crate::sync::{AtomicU64, Ordering};

use super::wire::Wire;
use crate::layout::{Layout, PeId};

/// A PE's doorbell: bit `i` set means incoming ring `i` may hold messages
/// (on a line of its own: senders write it, its PE clears it).
#[repr(align(64))]
#[derive(Default)]
struct Bell(AtomicU64);

/// The most incoming rings a doorbell covers (one bit each).
const BELL_BITS: usize = 64;

/// One PE's ends of the rings: a producer to and a consumer from every other PE.
pub(crate) struct Links<Msg> {
    tx: Vec<Option<Producer<Wire<Msg>>>>,
    spill: Vec<VecDeque<Wire<Msg>>>,
    /// Events sent so far on each outgoing channel (numbers them).
    sent: Vec<u32>,
    /// Incoming rings with the (global) PE each comes from.
    rx: Vec<(PeId, Consumer<Wire<Msg>>)>,
    spilled: usize,
    /// This PE's doorbell, if the process' PEs have them.
    bell: Option<Arc<Bell>>,
    /// Per destination: its doorbell and this PE's bit on it (empty
    /// without doorbells).
    knock: Vec<Option<(Arc<Bell>, u64)>>,
}

impl<Msg: Copy> Links<Msg> {
    /// Builds the rings of the PEs of the process `layout` sees from, each
    /// of `capacity` slots; element `i` of the result belongs to local PE `i`.
    /// `shared`: workers run several PEs each, so PEs get doorbells (up to
    /// 65 PEs: a bit per incoming ring).
    pub(crate) fn mesh(layout: &Layout, capacity: usize, shared: bool) -> Vec<Links<Msg>> {
        let pes = layout.pes_per_process();
        let bells = shared && pes > 1 && pes - 1 <= BELL_BITS;
        let mut links: Vec<Links<Msg>> = (0..pes)
            .map(|_| Links {
                tx: (0..pes).map(|_| None).collect(),
                spill: (0..pes).map(|_| VecDeque::new()).collect(),
                sent: vec![0; pes],
                rx: Vec::new(),
                spilled: 0,
                bell: bells.then(|| Arc::new(Bell::default())),
                knock: Vec::new(),
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
        if bells {
            for from in 0..pes {
                let knock = (0..pes)
                    .map(|to| {
                        if to == from {
                            return None;
                        }
                        // `from`'s place among `to`'s incoming rings.
                        let bit = if from < to { from } else { from - 1 };
                        links[to].bell.clone().map(|b| (b, 1u64 << bit))
                    })
                    .collect();
                links[from].knock = knock;
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
                Ok(()) => return ring_bell(&self.knock, to),
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
                        ring_bell(&self.knock, to);
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
        let Some(bell) = &self.bell else {
            for (from, c) in &mut self.rx {
                taken += take_ring(*from, c, &mut take);
            }
            return taken;
        };
        // Cleared before the rings are read (acquire: every message whose
        // bit is seen is seen): a message that lands after it sets its bit
        // again, for the next drain.
        let mut bits = bell.0.swap(0, Ordering::Acquire);
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if let Some((from, c)) = self.rx.get_mut(i) {
                taken += take_ring(*from, c, &mut take);
            }
        }
        taken
    }
}

/// Rings `to`'s doorbell (from a sender's `knock`) after a message went in
/// its ring (release: whoever sees the bit sees the message).
#[inline(always)]
fn ring_bell(knock: &[Option<(Arc<Bell>, u64)>], to: usize) {
    if let Some(Some((bell, bit))) = knock.get(to) {
        bell.0.fetch_or(*bit, Ordering::Release);
    }
}

/// Hands every message in ring `c` (from global PE `from`) to `take`,
/// straight out of the ring; returns how many.
#[inline(always)]
fn take_ring<Msg: Copy>(from: PeId, c: &mut Consumer<Wire<Msg>>, take: &mut impl FnMut(PeId, Wire<Msg>)) -> usize {
    let n = c.slots();
    if n > 0 {
        if let Ok(chunk) = c.read_chunk(n) {
            for w in chunk {
                take(from, w);
            }
            return n;
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rings_keep_order_and_name_the_global_sender() {
        for bells in [false, true] {
            rings_keep_order(bells);
        }
    }

    fn rings_keep_order(bells: bool) {
        // Process 1 of 2, PEs 3, 4 and 5; rings of 2 slots, so sends spill.
        let mut links = Links::<u64>::mesh(&Layout::new(1, 2, 3), 2, bells);
        assert_eq!(links[2].bell.is_some(), bells);
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

    #[test]
    fn a_doorbell_names_the_rings_that_hold_messages_and_loses_none() {
        // One process of 5 PEs with doorbells: PE 4 hears from 0 and 3 only.
        let mut links = Links::<u64>::mesh(&Layout::new(0, 1, 5), 8, true);
        let k = |t: f64| Key::new(t, 0, 0, 0);
        links[0].send_event(4, k(1.0), 9, 1);
        links[3].send_event(4, k(2.0), 9, 2);
        let bell = links[4].bell.clone().expect("PEs sharing workers have doorbells");
        assert_eq!(bell.0.load(Ordering::Relaxed), 0b1001, "rings 0 and 3 of PE 4");
        let mut got = Vec::new();
        assert_eq!(links[4].drain_with(|from, w| got.push((from.index(), w.key().time))), 2);
        assert_eq!(got, [(0, 1.0), (3, 2.0)]);
        assert_eq!(bell.0.load(Ordering::Relaxed), 0, "cleared by the drain");
        // A message sent after the drain rings again; one spilled rings once it is in the ring.
        for t in 3..12 {
            links[1].send_event(4, k(t as f64), 9, t);
        }
        assert_eq!(links[1].spilled(), 1, "8 slots, 9 sends");
        assert_eq!(links[4].drain_with(|from, w| got.push((from.index(), w.key().time))), 8);
        links[1].flush();
        assert_eq!(bell.0.load(Ordering::Relaxed), 0b0010, "the flushed message rang");
        assert_eq!(links[4].drain_with(|from, w| got.push((from.index(), w.key().time))), 1);
        assert_eq!(got.len(), 11);
        // Senders to another PE ring its bell, on which PE 4's ring is bit 3.
        links[4].send_event(0, k(1.0), 0, 0);
        assert_eq!(links[0].bell.as_ref().map(|b| b.0.load(Ordering::Relaxed)), Some(0b1000));
    }
}

/// Model-checked (`scripts/loom.sh`): the rings and doorbells of PEs on
/// different threads, under every interleaving and every outcome their
/// orderings allow (up to `LOOM_MAX_PREEMPTIONS` forced switches), built
/// on loom's atomics and a loom model of rtrb's ring (`crate::sync`).
#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;

    use ::loom::thread;

    fn k(t: u32) -> Key {
        Key::at(t as f64)
    }

    /// What `drain_with` took: (sending local PE, time), in order.
    fn drain(links: &mut Links<u64>, got: &mut Vec<(usize, u32)>) -> usize {
        links.drain_with(|from, w| got.push((from.index(), w.key().time as u32)))
    }

    #[test]
    fn a_ring_keeps_order_through_spills_and_loses_nothing() {
        // Two PEs, a ring of 2 slots and 5 messages: the sender finds the
        // ring full, spills, flushes as room appears (a chunk write), and
        // the positions wrap (they run over 0..4).
        ::loom::model(|| {
            let mut links = Links::<u64>::mesh(&Layout::new(0, 1, 2), 2, false);
            let mut rx = links.pop().expect("PE 1");
            let mut tx = links.pop().expect("PE 0");
            let sender = thread::spawn(move || {
                for t in 0..5 {
                    tx.send_event(1, k(t), 0, 0);
                    tx.flush();
                }
                while tx.spilled() > 0 {
                    thread::yield_now();
                    tx.flush();
                }
            });
            let mut got = Vec::new();
            while got.len() < 5 {
                if drain(&mut rx, &mut got) == 0 {
                    thread::yield_now();
                }
            }
            sender.join().expect("sender");
            assert_eq!(got, (0..5).map(|t| (0, t)).collect::<Vec<_>>(), "every message, in order");
            assert_eq!(drain(&mut rx, &mut got), 0, "nothing twice");
        });
    }

    #[test]
    fn a_doorbell_loses_no_wake_up() {
        // Three PEs sharing workers (doorbells): PEs 0 and 1 each send two
        // messages to PE 2 (rings of 1 slot: the second spills until PE 2
        // has taken the first), while PE 2 drains twice. Whatever the
        // interleaving, a ring that still holds a message has its bit set
        // (the next drain reads it), and a drain after both senders are
        // done takes everything left, each ring in order.
        ::loom::model(|| {
            let mut links = Links::<u64>::mesh(&Layout::new(0, 1, 3), 1, true);
            let mut rx = links.pop().expect("PE 2");
            let senders: Vec<_> = links
                .into_iter()
                .enumerate()
                .map(|(pe, mut tx)| {
                    thread::spawn(move || {
                        for t in 0..2 {
                            tx.send_event(2, k(10 * pe as u32 + t), 0, 0);
                        }
                        tx.flush();
                        tx
                    })
                })
                .collect();
            let mut got = Vec::new();
            for _ in 0..2 {
                drain(&mut rx, &mut got);
            }
            let mut senders: Vec<Links<u64>> = senders.into_iter().map(|s| s.join().expect("sender")).collect();
            let bell = rx.bell.clone().expect("PEs sharing workers have doorbells");
            let bits = bell.0.load(Ordering::Relaxed);
            for (i, (_, c)) in rx.rx.iter().enumerate() {
                assert!(c.slots() == 0 || bits & (1 << i) != 0, "ring {i} holds a message its bit does not name");
            }
            // What still waits for room: once in the ring, it rings too.
            drain(&mut rx, &mut got);
            for tx in &mut senders {
                tx.flush();
            }
            drain(&mut rx, &mut got);
            let mut per_sender: Vec<Vec<u32>> = vec![Vec::new(); 2];
            for &(from, t) in &got {
                per_sender[from].push(t);
            }
            assert_eq!(per_sender, [vec![0, 1], vec![10, 11]], "every message once, in order per ring");
            assert_eq!(senders.iter().map(Links::spilled).sum::<usize>(), 0);
        });
    }
}
