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
//!
//! The records ([`Saved`], [`Journal`]) are the node's own (node.rs): this
//! file depends on the state, never the other way.

use std::collections::VecDeque;

use super::node::{Journal, ListOp, Node, Queues, Saved, Undo, NIL};
use super::packet::Packet;
use super::samples::{Row, Samples};
use super::workload::{Rank, EXPECT, POSTED, REQS, UNEXPECTED};

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
            Saved::SlotFront { out, s, f } => self.queues(out).slots[s as usize].restore_front(f),
            Saved::SlotBack { out, s, next, b } => self.queues(out).slots[s as usize].restore_back(next, b),
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
            Saved::Heads { o, delta } => {
                let l = &mut self.links[o as usize];
                l.heads = l.heads.wrapping_add_signed(-(delta as i32));
            }
            Saved::WaitFor { o, q, q_wait, last_wait, waiting, waiting_last } => {
                let l = &mut self.links[o as usize];
                l.heads = l.heads.wrapping_sub(1);
                (l.waiting, l.waiting_last) = (waiting, waiting_last);
                if waiting_last != NIL {
                    self.input.lanes[waiting_last as usize].wait = last_wait;
                }
                self.input.lanes[q as usize].wait = q_wait;
            }
            Saved::DoneWaiting { o, q, prev, waiting, waiting_last } => {
                let l = &mut self.links[o as usize];
                l.heads = l.heads.wrapping_add(1);
                (l.waiting, l.waiting_last) = (waiting, waiting_last);
                if prev != NIL {
                    self.input.lanes[prev as usize].wait = q;
                }
            }
            Saved::Wake { o, wake } => self.links[o as usize].wake = wake,
            Saved::Launched { o, lane, last_input, on_link, free, busy } => {
                let l = &mut self.links[o as usize];
                l.packets -= 1;
                (l.last_input, l.free, l.busy) = (last_input, free, busy);
                if lane != NIL {
                    self.input.lanes[lane as usize].credits += 1;
                    self.counts.hops -= 1;
                }
                self.counts.on_links -= on_link as u64;
            }
            Saved::LastInput { o, old } => self.links[o as usize].last_input = old,
            Saved::Nic { nic, wake, next, next_msg } => {
                let q = &mut self.inject[nic as usize];
                (q.wake, q.next, q.next_msg) = (wake, next, next_msg);
            }
            // Saved back then front: the front, restored first, puts the packet back.
            Saved::NicPopFront { nic, f } => {
                let mut p = Packet::default();
                p.set_front(f);
                self.inject[nic as usize].queue.push_front(p);
            }
            Saved::NicPopBack { nic, counted, b } => {
                let q = &mut self.inject[nic as usize];
                q.sent_bytes_w -= if counted { b.bytes() as u64 } else { 0 };
                q.queue[0].set_back(b);
            }
            Saved::NicHeadFront { nic, f } => self.inject[nic as usize].queue[0].set_front(f),
            Saved::NicHeadBack { nic, b } => self.inject[nic as usize].queue[0].set_back(b),
            Saved::Event => self.counts.events -= 1,
            Saved::Arrived { q, lane, free, tail_next } => {
                self.counts.events -= 1;
                self.restore(&Saved::Push { out: false, q, lane, free, tail_next });
            }
            Saved::CreditEvent { q } => {
                self.counts.events -= 1;
                self.input.lanes[q as usize].credits -= 1;
            }
            Saved::WakeEvent { o, wake } => {
                self.counts.events -= 1;
                self.links[o as usize].wake = wake;
            }
            Saved::Maxes { input, output, credits } => {
                let c = &mut self.counts;
                (c.max_input, c.max_output, c.max_credits) = (input, output, credits);
            }
            Saved::Injected { nic, bytes, measured } => {
                self.inject[nic as usize].queue.pop_back();
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
            Saved::Latency { lat, hops, min, hist_first, hist_len } => {
                let c = &mut self.counts;
                c.lat_n -= 1;
                c.lat_min = min;
                c.hist.all.unadd(lat, hist_first, hist_len);
                c.hop_sum -= hops as u64;
                c.hop_sq -= hops as u64 * hops as u64;
            }
            Saved::LatencySums { sum, queue, max } => {
                let c = &mut self.counts;
                (c.lat_sum, c.queue_sum, c.lat_max) = (sum, queue, max);
            }
            Saved::Split { part, x, first, len } => {
                let sp = self.counts.hist.split.as_deref_mut().expect("split histograms to undo");
                sp.parts[part as usize].unadd(x, first, len);
            }
            Saved::SplitExtremes { part, min, max } => {
                let sp = self.counts.hist.split.as_deref_mut().expect("split histograms to undo");
                (sp.min[part as usize], sp.max[part as usize]) = (min, max);
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
            Saved::RankCounters { nic, c } => self.ranks[nic as usize].set_counters(c),
            Saved::RankTimes { nic, t } => self.ranks[nic as usize].set_times(t),
            Saved::RankList { nic, list, op, i, v } => self.ranks[nic as usize].undo_list(list, op, i, v),
            Saved::Seen { k, old } => self.global.as_deref_mut().expect("a UGAL-G table").seen[k as usize] = old,
            Saved::Publish { last, pending } => {
                let g = self.global.as_deref_mut().expect("a UGAL-G table");
                (g.last, g.pending) = (last, pending);
            }
            Saved::SampleGrow { from } => {
                let rows = &mut self.series().rows;
                rows.truncate(from as usize);
                rows[from as usize - 1].occ.clear();
            }
            Saved::SampleInjected => self.open_row().injected -= 1,
            Saved::SampleDelivered { lat, bytes, sum, first, len } => {
                let r = self.open_row();
                r.delivered -= 1;
                r.bytes -= bytes as u64;
                r.lat_sum = sum;
                r.hist.unadd(lat, first, len);
            }
            Saved::SampleExtremes { min, max } => {
                let r = self.open_row();
                (r.lat_min, r.lat_max) = (min, max);
            }
            Saved::SampleJob { job, bytes, sum } => {
                let c = &mut self.open_row().jobs[job as usize];
                c.bytes -= bytes as u64;
                c.packets -= 1;
                c.lat_sum = sum;
            }
            Saved::SampleBusy { o, old } => self.open_row().busy[o as usize] = old,
            Saved::JobTotal { job, bytes, sum } => {
                let c = &mut self.series().jobs[job as usize];
                c.bytes -= bytes as u64;
                c.packets -= 1;
                c.lat_sum = sum;
            }
        }
    }

    // Writing methods: each saves what it overwrites, then writes.

    // A link's writes, each saving only the fields it changes.

    /// Output link `o` gains (`delta` 1) or loses (−1) an input head routed to it.
    #[inline(always)]
    pub(crate) fn link_heads(&mut self, o: usize, delta: i8) {
        self.log.save(|| Saved::Heads { o: o as u16, delta });
        let l = &mut self.links[o];
        l.heads = l.heads.wrapping_add_signed(delta as i32);
    }

    /// Sets output link `o`'s pending wake-up.
    #[inline(always)]
    pub(crate) fn link_wake(&mut self, o: usize, wake: f64) {
        let old = self.links[o].wake;
        self.log.save(|| Saved::Wake { o: o as u16, wake: old });
        self.links[o].wake = wake;
    }

    /// Output link `o` launches a packet (of input `from`, if any): busy
    /// until `free`, its busy time grown by `busy`; a hop takes a credit of
    /// the downstream buffer, kept at input lane `lane` (`None`: the
    /// ejection link); `on_link`: it is still on the link at the end.
    #[inline(always)]
    pub(crate) fn launch_on(
        &mut self,
        o: usize,
        from: Option<usize>,
        (free, busy): (f64, f64),
        lane: Option<usize>,
        on_link: bool,
    ) {
        let l = &self.links[o];
        let (last_input, old_free, old_busy) = (l.last_input, l.free, l.busy);
        let lane16 = lane.map_or(NIL, |q| q as u16);
        self.log.save(|| Saved::Launched {
            o: o as u16,
            lane: lane16,
            last_input,
            on_link,
            free: old_free,
            busy: old_busy,
        });
        let l = &mut self.links[o];
        if let Some(i) = from {
            l.last_input = i as u16;
        }
        l.free = free;
        l.packets += 1;
        l.busy += busy;
        if let Some(q) = lane {
            self.input.lanes[q].credits -= 1;
            self.counts.hops += 1;
        }
        self.counts.on_links += on_link as u64;
    }

    /// Output link `o`'s last input (round-robin arbitration) becomes `i`.
    #[inline(always)]
    pub(crate) fn link_last_input(&mut self, o: usize, i: usize) {
        let old = self.links[o].last_input;
        self.log.save(|| Saved::LastInput { o: o as u16, old });
        self.links[o].last_input = i as u16;
    }

    /// A credit event gives input queue `q` a credit back: undone from the
    /// event's record (`undo`), as is the event's count.
    #[inline(always)]
    pub(crate) fn credit_event(&mut self, q: usize, undo: &mut Undo) {
        self.log.record(undo, || Saved::CreditEvent { q: q as u16 });
        self.input.lanes[q].credits += 1;
    }

    /// A wake-up event at `now` clears output link `o`'s pending wake-up:
    /// undone from the event's record (`undo`), as is the event's count.
    #[inline(always)]
    pub(crate) fn wake_event(&mut self, o: usize, now: f64, undo: &mut Undo) {
        self.log.record(undo, || Saved::WakeEvent { o: o as u16, wake: now });
        self.links[o].wake = -1.0;
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
        queues.push(q, p, out, log, None)
    }

    /// An arrival puts its packet into input queue `q`: the positions'
    /// entry goes into the event's record (`undo`), with the event's count.
    #[inline]
    pub(crate) fn arrive(&mut self, q: usize, p: Packet, undo: &mut Undo) -> Option<usize> {
        self.input.push(q, p, false, &mut self.log, Some(undo))
    }

    /// Takes the head of input (`out` false) or output queue `q`.
    #[inline]
    pub(crate) fn pop(&mut self, out: bool, q: usize) -> Packet {
        let (queues, log) = if out { (&mut self.output, &mut self.log) } else { (&mut self.input, &mut self.log) };
        queues.pop(q, out, log)
    }

    fn queues(&mut self, out: bool) -> &mut Queues {
        if out {
            &mut self.output
        } else {
            &mut self.input
        }
    }

    /// Appends the new packet `p` to NIC `nic`'s injection queue and
    /// counts it (`measured`: in the window). One entry for both.
    #[inline]
    pub(crate) fn nic_inject(&mut self, nic: usize, p: Packet, measured: bool) {
        let bytes = p.bytes;
        self.log.save(|| Saved::Injected { nic: nic as u8, bytes, measured });
        self.inject[nic].queue.push_back(p);
        let c = &mut self.counts;
        c.injected += 1;
        if measured {
            c.injected_w += 1;
            c.injected_bytes_w += bytes as u64;
        }
    }

    /// Takes the head of NIC `nic`'s injection queue.
    #[inline]
    pub(crate) fn nic_pop(&mut self, nic: usize, counted: bool) -> Packet {
        let q = &mut self.inject[nic];
        let p = q.queue.pop_front().expect("a packet at the head of the injection queue");
        q.sent_bytes_w += if counted { p.bytes as u64 } else { 0 };
        let (f, b) = p.halves();
        self.log.save(|| Saved::NicPopBack { nic: nic as u8, counted, b });
        self.log.save(|| Saved::NicPopFront { nic: nic as u8, f });
        p
    }

    /// Replaces the head of NIC `nic`'s injection queue (routed again).
    #[inline]
    pub(crate) fn nic_set_head(&mut self, nic: usize, h: Packet) {
        let (f, b) = self.inject[nic].queue[0].halves();
        self.log.save(|| Saved::NicHeadFront { nic: nic as u8, f });
        self.log.save(|| Saved::NicHeadBack { nic: nic as u8, b });
        self.inject[nic].queue[0] = h;
    }

    /// The time series (`--sample-every` runs only).
    #[inline]
    fn series(&mut self) -> &mut Samples {
        self.samples.as_deref_mut().expect("a time series")
    }

    /// The time series' open row: the current event's interval.
    #[inline]
    fn open_row(&mut self) -> &mut Row {
        self.series().rows.last_mut().expect("an open row")
    }

    /// Opens the rows up to interval `k` (beyond the open one, of
    /// intervals `t` ns long), closing the open one and any between with
    /// the buffers' occupancy `occ` (the state before this event,
    /// unchanged since the last one). `free[o]`: when network port `o`'s
    /// last packet ends (cut at the run's end): the part of it past an
    /// interval's end moves to the next one, so a busy fraction is the
    /// link's time busy within the interval.
    pub(crate) fn sample_grow(&mut self, k: usize, t: f64, occ: Vec<u16>, free: &[f64]) {
        let from = self.series().rows.len();
        let mut carry = vec![0.0; free.len()];
        for (o, &f) in free.iter().enumerate() {
            let over = f - from as f64 * t;
            if over > 0.0 {
                let b = &mut self.open_row().busy[o];
                let old = *b;
                *b -= over;
                self.log.save(|| Saved::SampleBusy { o: o as u16, old });
                carry[o] = over;
            }
        }
        let rows = &mut self.samples.as_deref_mut().expect("a time series").rows;
        let (ports, jobs) = (rows[0].busy.len(), rows[0].jobs.len());
        rows[from - 1].occ.clone_from(&occ);
        while rows.len() <= k {
            let j = rows.len();
            let mut row = Row::new(ports, jobs);
            for (o, &f) in free.iter().enumerate() {
                let next = if j < k { (f - (j + 1) as f64 * t).max(0.0) } else { 0.0 };
                row.busy[o] = carry[o] - next;
                carry[o] = next;
            }
            if j < k {
                row.occ.clone_from(&occ);
            }
            rows.push(row);
        }
        self.log.save(|| Saved::SampleGrow { from: from as u32 });
    }

    /// Counts a packet created in the open row.
    #[inline]
    pub(crate) fn sample_injected(&mut self) {
        self.log.save(|| Saved::SampleInjected);
        self.open_row().injected += 1;
    }

    /// Counts a delivered packet of `bytes` and latency `lat` of job `job`
    /// (when there are several) in its job's totals and, `sampling`, in the
    /// open row.
    #[inline(never)]
    pub(crate) fn sample_delivered(&mut self, lat: f64, bytes: u16, job: Option<usize>, sampling: bool) {
        if let Some(j) = job {
            let c = &mut self.series().jobs[j];
            let sum = c.lat_sum;
            c.bytes += bytes as u64;
            c.packets += 1;
            c.lat_sum += lat;
            self.log.save(|| Saved::JobTotal { job: j as u16, bytes, sum });
        }
        if !sampling {
            return;
        }
        let r = self.open_row();
        let (sum, min, max) = (r.lat_sum, r.lat_min, r.lat_max);
        let (first, len) = r.hist.span();
        r.delivered += 1;
        r.bytes += bytes as u64;
        r.lat_sum += lat;
        r.lat_min = if r.delivered == 1 { lat } else { min.min(lat) };
        r.lat_max = max.max(lat);
        r.hist.add(lat);
        let old = job.map(|j| {
            let c = &mut r.jobs[j];
            let sum = c.lat_sum;
            c.bytes += bytes as u64;
            c.packets += 1;
            c.lat_sum += lat;
            sum
        });
        self.log.save(|| Saved::SampleDelivered { lat, bytes, sum, first, len });
        self.log.save(|| Saved::SampleExtremes { min, max });
        if let (Some(j), Some(sum)) = (job, old) {
            self.log.save(|| Saved::SampleJob { job: j as u16, bytes, sum });
        }
    }

    /// Adds `ns` to network port `o`'s busy time in the open row.
    #[inline]
    pub(crate) fn sample_busy(&mut self, o: usize, ns: f64) {
        let b = &mut self.open_row().busy[o];
        let old = *b;
        *b += ns;
        self.log.save(|| Saved::SampleBusy { o: o as u16, old });
    }
}

impl Node {
    /// Input queue `q`'s head (routed to `out`) starts waiting for its output.
    #[inline]
    pub(crate) fn wait_for(&mut self, q: usize, out: usize) {
        let l = &self.links[out];
        let (waiting, waiting_last) = (l.waiting, l.waiting_last);
        let q_wait = self.input.lanes[q].wait;
        let last_wait = if waiting_last != NIL { self.input.lanes[waiting_last as usize].wait } else { NIL };
        self.log.save(|| Saved::WaitFor { o: out as u16, q: q as u16, q_wait, last_wait, waiting, waiting_last });
        let l = &mut self.links[out];
        l.heads = l.heads.wrapping_add(1);
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
        let next = self.input.lanes[q].wait;
        let (waiting, waiting_last) = (self.links[out].waiting, self.links[out].waiting_last);
        let (mut prev, mut at) = (NIL, waiting);
        while at as usize != q {
            debug_assert!(at != NIL, "input {q} was not waiting for output {out}");
            prev = at;
            at = self.input.lanes[at as usize].wait;
        }
        self.log.save(|| Saved::DoneWaiting { o: out as u16, q: q as u16, prev, waiting, waiting_last });
        self.links[out].heads = self.links[out].heads.wrapping_sub(1);
        match prev {
            NIL => self.links[out].waiting = next,
            p => self.input.lanes[p as usize].wait = next,
        }
        if next == NIL {
            self.links[out].waiting_last = prev;
        }
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

/// A rank's lists are undone here, with the node's other writes.
impl Rank {
    /// Undoes one saved change to list `list`.
    pub(crate) fn undo_list(&mut self, list: u8, op: ListOp, i: u32, v: [u32; 4]) {
        match list {
            REQS => undo_list(&mut self.reqs, op, i, v),
            POSTED => undo_list(&mut self.posted, op, i, v),
            UNEXPECTED => undo_list(&mut self.unexpected, op, i, v),
            EXPECT => undo_list(&mut self.expect, op, i, v),
            _ => undo_list(&mut self.early, op, i, v),
        }
    }
}

#[cfg(test)]
impl Node {
    /// For tests: a router with `input` queues and `links` output links,
    /// and nothing else (no NIC, rank, table or series; not saving).
    pub(crate) fn bare(input: Queues, links: usize) -> Node {
        Node {
            input,
            links: vec![super::node::Link::default(); links],
            counts: super::node::Counts { hist: super::histogram::Latencies::new(false), ..Default::default() },
            inject: Vec::new(),
            output: Queues::new(0, 1),
            partial: Vec::new(),
            ranks: Vec::new(),
            global: None,
            samples: None,
            log: Journal::default(),
        }
    }
}

#[cfg(test)]
#[path = "journal_tests.rs"]
mod tests;
