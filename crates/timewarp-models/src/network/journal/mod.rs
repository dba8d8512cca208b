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
//! a run that never rolls back ([`Journal::on`] is false).//!
//! The records ([`Saved`], [`Journal`](super::node::Journal)) are the node's own (node.rs): this
//! module depends on the state, never the other way. Here: undoing a
//! saved write ([`Node::restore`]) and the writes to links, queues and
//! NICs; beside it the logged lists of a rank (lists.rs), the time
//! series' writes (series.rs) and the waiting lists (waiting.rs).

mod lists;
mod nic_buf;
mod series;
mod waiting;

use super::lp_io::LpIo;
use super::node::{NicBuf, Node, Queues, Saved, Undo, NIL};
use super::packet::Packet;

pub(crate) use lists::{Elem, List, Logged};

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
            Saved::NicBuf { nic, credits, sent } => self.nic_buf[nic as usize] = NicBuf { credits, sent },
            Saved::NicReady { nic, i, ready } => self.inject[nic as usize].queue[i as usize].ready = ready,
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
            Saved::LpIoPacket { .. }
            | Saved::LpIoMessage { .. }
            | Saved::LpIoPending { .. }
            | Saved::LpIoSent { .. }
            | Saved::LpIoNicStall { .. }
            | Saved::LpIoStall { .. }
            | Saved::LpIoBusy { .. }
            | Saved::LpIoNic { .. } => {
                restore_lp_io(self.lp_io.as_deref_mut().expect("lp-io entries only with its counters"), e)
            }
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
            lp_io: None,
            nic_buf: Vec::new(),
            log: super::node::Journal::default(),
        }
    }
}

/// Undoes one of `--lp-io-dir`'s entries (lp_io.rs).
fn restore_lp_io(io: &mut LpIo, e: &Saved) {
    match *e {
        Saved::LpIoPacket { nic, routers, sum, max, min } => {
            let r = &mut io.recv[nic as usize];
            r.packets -= 1;
            r.routers -= routers as u64;
            (r.lat_sum, r.lat_max, r.lat_min) = (sum, max, min);
        }
        Saved::LpIoMessage { nic, bytes } => io.recv[nic as usize].msg_bytes -= bytes,
        Saved::LpIoPending { op, i, src, msg, bytes } => match op {
            0 => drop(io.pending.pop()),
            1 => io.pending[i as usize].2 -= bytes,
            _ => {
                // Undo a swap_remove: put the old element back at `i`.
                io.pending.push((src, msg, bytes));
                let last = io.pending.len() - 1;
                io.pending.swap(i as usize, last);
            }
        },
        Saved::LpIoSent { o, bytes } => io.sent[o as usize] -= bytes as u64,
        Saved::LpIoNicStall { nic, busy } => {
            let w = &mut io.stall[nic as usize];
            w.stalled -= 1;
            w.busy = busy;
        }
        Saved::LpIoStall { o, since } => {
            io.stalled[o as usize] -= 1;
            io.since[o as usize] = since;
        }
        Saved::LpIoBusy { o, since, busy } => (io.since[o as usize], io.busy[o as usize]) = (since, busy),
        Saved::LpIoNic { nic, sent: false, bytes } => io.created[nic as usize] -= bytes as u64,
        Saved::LpIoNic { nic, sent: true, bytes } => io.injected[nic as usize] -= bytes as u64,
        _ => unreachable!("not an lp-io entry"),
    }
}

#[cfg(test)]
mod tests;
