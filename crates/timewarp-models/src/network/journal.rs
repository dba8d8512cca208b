//! Incremental state saving for the network model: every write to a
//! [`Node`] is made through a method here that first saves what it
//! overwrites ([`Saved`]), so an optimistic rollback undoes just what an
//! event touched — a few dozen bytes — instead of restoring a copy of the
//! whole router (kilobytes, and growing with the packets it holds: copying
//! it before every event made optimistic runs slower than sequential ones,
//! and quadratic in the end time on a saturated network).
//!
//! Integer counters are undone by computation (a decrement); floating-point
//! sums, maxima and anything a write destroys are saved. Nothing is saved in
//! a run that never rolls back ([`Journal::on`] is false).

use std::collections::VecDeque;

use super::node::{Lane, Link, Node, Packet, Slot, NIL};

/// One write to a node, saved just before it happens (the model's undo
/// journal entry: `Model::Undo` of the network). Opaque outside the model.
#[derive(Clone, Copy, Debug, Default)]
pub struct Undo(pub(crate) Saved);

/// What one write changed, and what undoes it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) enum Saved {
    /// Nothing (the per-event undo record, unused).
    #[default]
    Nothing,
    /// Packet slot `s` of the input (`out` false) or output queues, as it was.
    Slot { out: bool, s: u16, old: Slot },
    /// Queue `q`'s positions (and credits, waiting link) as they were.
    Lane { out: bool, q: u16, old: Lane },
    /// A packet went into queue `q`: its positions, the free-slot list's
    /// head and (if the queue was not empty) its tail slot's link as they were.
    Push { out: bool, q: u16, lane: Lane, free: u16, tail_next: u16 },
    /// Queue `q`'s head slot left it: the queue's positions, the free-slot
    /// list's head and the slot's link as they were.
    Pop { out: bool, q: u16, lane: Lane, free: u16, next: u16 },
    /// A slot was appended to the pool.
    Grew { out: bool },
    /// Output link `o` as it was.
    Link { o: u16, old: Link },
    /// NIC `nic`'s scalars as they were.
    Nic { nic: u8, wake: f64, next: f64, next_msg: u32 },
    /// A packet was appended to NIC `nic`'s injection queue.
    NicPush { nic: u8 },
    /// NIC `nic`'s head `p` left its injection queue (`counted`: in the
    /// measured window, its bytes added to the NIC's accepted bytes).
    NicPop { nic: u8, p: Packet, counted: bool },
    /// NIC `nic`'s head was routed again; it was `p`.
    NicHead { nic: u8, p: Packet },
    /// `events += 1`.
    Event,
    /// The buffer maxima as they were.
    Maxes { input: u16, output: u16, credits: u16 },
    /// A router-to-router hop started (`hops += 1`), or (`hop` false) a
    /// packet went to the ejection link; `on_link`: it was still on its link at the end.
    Launch { hop: bool, on_link: bool },
    /// A packet of `bytes` was created; `measured`: in the window.
    Injected { bytes: u32, measured: bool },
    /// A packet of `bytes` was delivered (`in_window`: its bytes counted)
    /// and the last delivery time was `last`.
    Delivered { bytes: u16, in_window: bool, last: f64 },
    /// A measured packet's latency `lat` and `hops` were counted: the sums,
    /// extremes and histogram span as they were.
    Latency { lat: f64, hops: u16, sum: f64, queue: f64, max: f64, min: f64, hist_first: u32, hist_len: u32 },
    /// Part `part` (0 source queueing, 1 network latency) of a measured
    /// packet's latency, `x`, was counted: the split histogram's span and
    /// the part's extremes as they were.
    Split { part: u8, x: f64, first: u32, len: u32, min: f64, max: f64 },
    /// A delivery counted in batch `b`: its bytes, and (`measured`) the
    /// batch's latency sum as it was.
    Batch { b: u8, bytes: u16, measured: bool, lat: f64 },
    /// A measured message completed; its latency sum was `sum`.
    Message { sum: f64 },
    /// A message entry was appended to the reassembly list.
    PartialPush,
    /// Reassembly entry `i` counted a packet (`.2 -= 1`).
    PartialCount { i: u32 },
    /// Reassembly entry `i` (swap-removed) was `old`.
    PartialRemove { i: u32, old: (u32, u32, u32, f64) },
    /// Rank `nic`'s scalars as they were.
    Rank { nic: u8, scalars: super::workload::Scalars },
    /// One change to a list of rank `nic` (see [`ListOp`]).
    RankList { nic: u8, list: u8, op: ListOp, i: u32, v: [u32; 4] },
    /// UGAL-G: the occupancy known of the group's global channel `k` was `old`.
    Seen { k: u32, old: u16 },
    /// UGAL-G: the last broadcast's time and the pending one's were these.
    Publish { last: f64, pending: f64 },
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

/// A node's journal of the current event: what [`Node`]'s writing methods
/// saved, handed to the engine (`Ctx::save`) when the event's handler
/// returns. Never part of the state's value (skipped in its encoding and
/// comparison): it is empty between events.
#[derive(Clone, Debug, Default)]
pub(crate) struct Journal {
    /// Whether anything is saved (only where events may be rolled back).
    pub(crate) on: bool,
    pub(crate) entries: Vec<Saved>,
}

impl PartialEq for Journal {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Journal {
    #[inline(always)]
    pub(crate) fn save(&mut self, e: impl FnOnce() -> Saved) {
        if self.on {
            self.entries.push(e());
        }
    }
}

/// An element of a rank's list, as four words in a journal entry.
pub(crate) trait Elem: Copy {
    fn enc(self) -> [u32; 4];
    fn dec(v: [u32; 4]) -> Self;
}

impl Elem for (u32, u32) {
    fn enc(self) -> [u32; 4] {
        [self.0, self.1, 0, 0]
    }
    fn dec(v: [u32; 4]) -> Self {
        (v[0], v[1])
    }
}

impl Elem for (u32, u32, u32, u32) {
    fn enc(self) -> [u32; 4] {
        [self.0, self.1, self.2, self.3]
    }
    fn dec(v: [u32; 4]) -> Self {
        (v[0], v[1], v[2], v[3])
    }
}

impl Elem for (u32, bool, u32) {
    fn enc(self) -> [u32; 4] {
        [self.0, self.1 as u32, self.2, 0]
    }
    fn dec(v: [u32; 4]) -> Self {
        (v[0], v[1] != 0, v[2])
    }
}

/// The list operations a rank's state needs, on `Vec` and `VecDeque` alike.
pub(crate) trait List<T> {
    fn len(&self) -> usize;
    fn at(&mut self, i: usize) -> &mut T;
    fn push(&mut self, v: T);
    fn pop(&mut self) -> Option<T>;
    fn insert(&mut self, i: usize, v: T);
    fn remove(&mut self, i: usize) -> T;
}

impl<T> List<T> for Vec<T> {
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn at(&mut self, i: usize) -> &mut T {
        &mut self[i]
    }
    fn push(&mut self, v: T) {
        Vec::push(self, v)
    }
    fn pop(&mut self) -> Option<T> {
        Vec::pop(self)
    }
    fn insert(&mut self, i: usize, v: T) {
        Vec::insert(self, i, v)
    }
    fn remove(&mut self, i: usize) -> T {
        Vec::remove(self, i)
    }
}

impl<T> List<T> for VecDeque<T> {
    fn len(&self) -> usize {
        VecDeque::len(self)
    }
    fn at(&mut self, i: usize) -> &mut T {
        &mut self[i]
    }
    fn push(&mut self, v: T) {
        self.push_back(v)
    }
    fn pop(&mut self) -> Option<T> {
        self.pop_back()
    }
    fn insert(&mut self, i: usize, v: T) {
        VecDeque::insert(self, i, v)
    }
    fn remove(&mut self, i: usize) -> T {
        VecDeque::remove(self, i).expect("an element to remove")
    }
}

/// Writes to list `list` of rank `nic`, each saved in the journal first.
pub(crate) struct Logged<'a, T: Elem, L: List<T>> {
    pub(crate) items: &'a mut L,
    pub(crate) log: &'a mut Journal,
    pub(crate) nic: u8,
    pub(crate) list: u8,
    pub(crate) _t: std::marker::PhantomData<T>,
}

impl<T: Elem, L: List<T>> Logged<'_, T, L> {
    fn save(&mut self, op: ListOp, i: usize, v: T) {
        let (nic, list) = (self.nic, self.list);
        self.log.save(|| Saved::RankList { nic, list, op, i: i as u32, v: v.enc() });
    }
    pub(crate) fn push(&mut self, v: T) {
        self.save(ListOp::Push, 0, v);
        self.items.push(v);
    }
    pub(crate) fn remove(&mut self, i: usize) -> T {
        let v = self.items.remove(i);
        self.save(ListOp::Remove, i, v);
        v
    }
    pub(crate) fn swap_remove(&mut self, i: usize) -> T {
        let last = self.items.len() - 1;
        let v = *self.items.at(i);
        self.save(ListOp::SwapRemove, i, v);
        let moved = *self.items.at(last);
        *self.items.at(i) = moved;
        self.items.pop();
        v
    }
    pub(crate) fn set(&mut self, i: usize, v: T) {
        let old = *self.items.at(i);
        self.save(ListOp::Set, i, old);
        *self.items.at(i) = v;
    }
    /// Keeps the elements `keep` says yes to, in order (removed back to front).
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        for i in (0..self.items.len()).rev() {
            if !keep(self.items.at(i)) {
                self.remove(i);
            }
        }
    }
    pub(crate) fn clear(&mut self) {
        self.retain(|_| false);
    }
}

/// Undoes one list change on `items`.
pub(crate) fn undo_list<T: Elem, L: List<T>>(items: &mut L, op: ListOp, i: u32, v: [u32; 4]) {
    let i = i as usize;
    match op {
        ListOp::Push => drop(items.pop()),
        ListOp::Remove => items.insert(i, T::dec(v)),
        ListOp::SwapRemove => {
            items.push(T::dec(v));
            let last = items.len() - 1;
            let moved = *items.at(i);
            *items.at(i) = *items.at(last);
            *items.at(last) = moved;
        }
        ListOp::Set => *items.at(i) = T::dec(v),
    }
}

impl Node {
    /// Undoes one saved write (the network's `Model::restore`).
    pub(crate) fn restore(&mut self, e: &Saved) {
        match *e {
            Saved::Nothing => {}
            Saved::Slot { out, s, old } => self.queues(out).slots[s as usize] = old,
            Saved::Lane { out, q, old } => self.queues(out).lanes[q as usize] = old,
            Saved::Push { out, q, lane, free, tail_next } => {
                let qs = self.queues(out);
                if lane.tail != NIL {
                    qs.slots[lane.tail as usize].next = tail_next;
                }
                (qs.lanes[q as usize], qs.free) = (lane, free);
            }
            Saved::Pop { out, q, lane, free, next } => {
                let qs = self.queues(out);
                qs.slots[lane.head as usize].next = next;
                (qs.lanes[q as usize], qs.free) = (lane, free);
            }
            Saved::Grew { out } => drop(self.queues(out).slots.pop()),
            Saved::Link { o, old } => self.links[o as usize] = old,
            Saved::Nic { nic, wake, next, next_msg } => {
                let q = &mut self.inject[nic as usize];
                (q.wake, q.next, q.next_msg) = (wake, next, next_msg);
            }
            Saved::NicPush { nic } => drop(self.inject[nic as usize].queue.pop_back()),
            Saved::NicPop { nic, p, counted } => {
                let q = &mut self.inject[nic as usize];
                q.sent_bytes_w -= if counted { p.bytes as u64 } else { 0 };
                q.queue.push_front(p);
            }
            Saved::NicHead { nic, p } => self.inject[nic as usize].queue[0] = p,
            Saved::Event => self.counts.events -= 1,
            Saved::Maxes { input, output, credits } => {
                let c = &mut self.counts;
                (c.max_input, c.max_output, c.max_credits) = (input, output, credits);
            }
            Saved::Launch { hop, on_link } => {
                self.counts.hops -= hop as u64;
                self.counts.on_links -= on_link as u64;
            }
            Saved::Injected { bytes, measured } => {
                let c = &mut self.counts;
                c.injected -= 1;
                c.injected_w -= measured as u64;
                c.injected_bytes_w -= if measured { bytes as u64 } else { 0 };
            }
            Saved::Delivered { bytes, in_window, last } => {
                let c = &mut self.counts;
                c.delivered -= 1;
                c.last_delivery = last;
                c.delivered_bytes_w -= if in_window { bytes as u64 } else { 0 };
            }
            Saved::Latency { lat, hops, sum, queue, max, min, hist_first, hist_len } => {
                let c = &mut self.counts;
                c.lat_n -= 1;
                (c.lat_sum, c.queue_sum, c.lat_max, c.lat_min) = (sum, queue, max, min);
                c.hist.all.unadd(lat, hist_first, hist_len);
                c.hop_sum -= hops as u64;
                c.hop_sq -= hops as u64 * hops as u64;
            }
            Saved::Split { part, x, first, len, min, max } => {
                let sp = self.counts.hist.split.as_deref_mut().expect("split histograms to undo");
                let i = part as usize;
                sp.parts[i].unadd(x, first, len);
                (sp.min[i], sp.max[i]) = (min, max);
            }
            Saved::Batch { b, bytes, measured, lat } => {
                let c = &mut self.counts;
                c.batch_bytes[b as usize] -= bytes as u64;
                if measured {
                    c.batch_n[b as usize] -= 1;
                    c.batch_lat[b as usize] = lat;
                }
            }
            Saved::Message { sum } => {
                self.counts.msg_n -= 1;
                self.counts.msg_lat_sum = sum;
            }
            Saved::PartialPush => drop(self.partial.pop()),
            Saved::PartialCount { i } => self.partial[i as usize].2 += 1,
            Saved::PartialRemove { i, old } => {
                self.partial.push(old);
                let last = self.partial.len() - 1;
                self.partial.swap(i as usize, last);
            }
            Saved::Rank { nic, scalars } => self.ranks[nic as usize].set_scalars(scalars),
            Saved::RankList { nic, list, op, i, v } => self.ranks[nic as usize].undo_list(list, op, i, v),
            Saved::Seen { k, old } => self.global.as_deref_mut().expect("a UGAL-G table").seen[k as usize] = old,
            Saved::Publish { last, pending } => {
                let g = self.global.as_deref_mut().expect("a UGAL-G table");
                (g.last, g.pending) = (last, pending);
            }
        }
    }

    // Writing methods: each saves what it overwrites, then writes.

    /// Output link `o`, to be changed.
    #[inline(always)]
    pub(crate) fn link_mut(&mut self, o: usize) -> &mut Link {
        let old = self.links[o];
        self.log.save(|| Saved::Link { o: o as u16, old });
        &mut self.links[o]
    }

    /// Input queue `q`'s lane (its credits), to be changed.
    #[inline(always)]
    pub(crate) fn lane_mut(&mut self, q: usize) -> &mut Lane {
        let old = self.input.lanes[q];
        self.log.save(|| Saved::Lane { out: false, q: q as u16, old });
        &mut self.input.lanes[q]
    }

    /// NIC `nic`'s scalars are about to change.
    #[inline(always)]
    pub(crate) fn save_nic(&mut self, nic: usize) {
        let q = &self.inject[nic];
        let (wake, next, next_msg) = (q.wake, q.next, q.next_msg);
        self.log.save(|| Saved::Nic { nic: nic as u8, wake, next, next_msg });
    }

    /// The buffer maxima are about to change.
    #[inline(always)]
    pub(crate) fn save_maxes(&mut self) {
        let c = &self.counts;
        let (input, output, credits) = (c.max_input, c.max_output, c.max_credits);
        self.log.save(|| Saved::Maxes { input, output, credits });
    }

    /// Appends `p` to input (`out` false) or output queue `q`: its new
    /// length, or `None` if the queue is full.
    #[inline]
    pub(crate) fn push(&mut self, out: bool, q: usize, p: Packet) -> Option<usize> {
        let (queues, log) = if out { (&mut self.output, &mut self.log) } else { (&mut self.input, &mut self.log) };
        queues.push(q, p, out, log)
    }

    /// Takes the head of input (`out` false) or output queue `q`.
    #[inline]
    pub(crate) fn pop(&mut self, out: bool, q: usize) -> Packet {
        let (queues, log) = if out { (&mut self.output, &mut self.log) } else { (&mut self.input, &mut self.log) };
        queues.pop(q, out, log)
    }

    fn queues(&mut self, out: bool) -> &mut super::node::Queues {
        if out {
            &mut self.output
        } else {
            &mut self.input
        }
    }

    /// Appends `p` to NIC `nic`'s injection queue.
    #[inline]
    pub(crate) fn nic_push(&mut self, nic: usize, p: Packet) {
        self.log.save(|| Saved::NicPush { nic: nic as u8 });
        self.inject[nic].queue.push_back(p);
    }

    /// Takes the head of NIC `nic`'s injection queue.
    #[inline]
    pub(crate) fn nic_pop(&mut self, nic: usize, counted: bool) -> Packet {
        let q = &mut self.inject[nic];
        let p = q.queue.pop_front().expect("a packet at the head of the injection queue");
        q.sent_bytes_w += if counted { p.bytes as u64 } else { 0 };
        self.log.save(|| Saved::NicPop { nic: nic as u8, p, counted });
        p
    }

    /// Replaces the head of NIC `nic`'s injection queue (routed again).
    #[inline]
    pub(crate) fn nic_set_head(&mut self, nic: usize, h: Packet) {
        let p = self.inject[nic].queue[0];
        self.log.save(|| Saved::NicHead { nic: nic as u8, p });
        self.inject[nic].queue[0] = h;
    }

    /// Takes this event's saved writes, for the engine's journal (`Ctx::save_all`).
    #[inline]
    pub(crate) fn flush<'a>(&'a mut self) -> impl Iterator<Item = Undo> + 'a {
        self.log.entries.drain(..).map(Undo)
    }
}
