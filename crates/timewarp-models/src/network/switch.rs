//! The switch: arbitration between inputs for outputs, virtual channels
//! and credits, under the input- or output-buffered microarchitecture
//! ([`Switch`]); moving packets from inputs onto links.

use timewarp::Ctx;

use super::packet::NO_DIM;
use super::{Arbitration, Msg, Network, Node, Packet, Routing, Selection, Switch, Topology, NO_VIA};

/// The bytes of a CODES credit (`credit_size`, `CREDIT_SIZE`).
const CODES_CREDIT_BYTES: f64 = 8.0;

impl Network {
    /// Escape virtual channels under adaptive routing (the dateline classes
    /// of a torus, one channel otherwise); the channels above are adaptive.
    #[inline]
    pub(crate) fn escape_vcs(&self) -> usize {
        if matches!(self.topology, Topology::Torus(_)) {
            2
        } else {
            1
        }
    }

    /// How long CODES's credit takes back: its `credit_size` (8 bytes) at
    /// the local links' bandwidth, the default of every CODES router model
    /// for every link (`local_credit_delay`, `credit_delay`).
    #[inline]
    pub(crate) fn codes_credit_delay(&self) -> f64 {
        CODES_CREDIT_BYTES / self.class_bandwidth(1)
    }

    /// Free slots of output `o`, virtual channel `vc`: output-buffer room
    /// (`room`) or downstream credits.
    #[inline(always)]
    pub(crate) fn free(&self, n: &Node, r: u32, o: usize, vc: usize, room: bool) -> u32 {
        let q = o * self.vcs as usize + vc;
        if room {
            if self.switch == Switch::Codes && o < self.ports() {
                // CODES's `vc_occupancy`: the queue here, the link and the
                // next buffer share that buffer's slots (its credits).
                return (n.input.lanes[q].credits as u32).saturating_sub(n.output.len(q) as u32);
            }
            self.buffer_of(r, o) - n.output.len(q) as u32
        } else if o >= self.ports() {
            1 // the NIC always takes a packet
        } else {
            n.input.lanes[q].credits as u32
        }
    }

    /// Whether output `o` is one of the routes of `p` at `node`.
    #[inline]
    pub(crate) fn candidate(&self, node: u32, p: &Packet, o: usize) -> bool {
        o == p.out as usize
            || (self.routing == Routing::Adaptive && o < self.ports() && self.topology.productive(node, p.dst, o))
    }

    /// The best of channels `vcs` on output `o`: the one with the most free
    /// slots (the first on a tie), its score those slots plus `bonus`.
    #[inline(always)]
    fn best_vc(
        &self,
        n: &Node,
        node: u32,
        o: usize,
        room: bool,
        vcs: impl Iterator<Item = usize>,
        bonus: u32,
    ) -> Option<(usize, u32)> {
        let mut best: Option<(usize, u32)> = None;
        for vc in vcs {
            let f = self.free(n, node, o, vc, room);
            if f > 0 && best.map_or(true, |b| f + bonus > b.1) {
                best = Some((vc, f + bonus));
            }
        }
        best
    }

    /// The virtual channel `p` may take on output `o` now and how good it is
    /// (higher is better: adaptive channels first, then the most free slots),
    /// or `None` if `o` is not a route of `p` or nothing there is free.
    #[inline]
    pub(crate) fn usable(&self, n: &Node, node: u32, p: &Packet, o: usize, room: bool) -> Option<(usize, u32)> {
        let v = self.vcs as usize;
        let eject = self.ports();
        // `best_vc` is generic, not a closure over `dyn Iterator`: once `usable`
        // grew past the inliner's limit, that closure was called out of line
        // and fetched every channel through a virtual call (issue 60).
        if o >= eject {
            return if p.out as usize == o { self.best_vc(n, node, o, room, 0..v, 0) } else { None };
        }
        match self.routing {
            Routing::DimensionOrder
            | Routing::Minimal
            | Routing::Valiant
            | Routing::Ugal
            | Routing::UgalCodes
            | Routing::Par
            | Routing::NonMinimalLeaf
            | Routing::UgalG
            | Routing::Romm
            | Routing::UpDown
            | Routing::UpDownAdaptive => {
                if o != p.out as usize {
                    return None;
                }
                let two_phase = matches!(self.routing, Routing::Valiant | Routing::Romm);
                if two_phase && !matches!(self.topology, Topology::Dragonfly(_) | Topology::SlimFly(_)) {
                    // Valiant and ROMM on a cube: phase 0 (to the intermediate) on even
                    // channels, phase 1 on odd ones; on a torus each phase's
                    // two dateline classes too (`v mod 4 = 2 class + phase`).
                    let phase = (p.via == NO_VIA) as usize;
                    return match self.topology {
                        Topology::Torus(_) => {
                            self.best_vc(n, node, o, room, (2 * p.class as usize + phase..v).step_by(4), 0)
                        }
                        _ => self.best_vc(n, node, o, room, (phase..v).step_by(2), 0),
                    };
                }
                // The channels the packet may use: on a torus those of its
                // dateline class (`v mod 2`); on a dragonfly exactly its hop
                // number; on a mesh, hypercube or fat-tree all.
                match self.topology {
                    Topology::Torus(_) => self.best_vc(n, node, o, room, (p.class as usize..v).step_by(2), 0),
                    Topology::Dragonfly(_) | Topology::SlimFly(_) => {
                        self.best_vc(n, node, o, room, std::iter::once(p.class as usize), 0)
                    }
                    _ => self.best_vc(n, node, o, room, 0..v, 0),
                }
            }
            Routing::Adaptive => {
                let e = self.escape_vcs();
                if self.topology.productive(node, p.dst, o) {
                    if let Some(b) = self.best_vc(n, node, o, room, e..v, 1 << 16) {
                        return Some(b);
                    }
                }
                if o != p.out as usize {
                    return None;
                }
                let escape = if e == 2 { p.class as usize } else { 0 };
                self.best_vc(n, node, o, room, std::iter::once(escape), 0)
            }
        }
    }

    /// The best output for `p` now under adaptive routing: (port, channel)
    /// among its routes whose link is free (`room`: whatever the link) and
    /// that have a free slot; adaptive channels first, then by the
    /// [`Selection`] measure, then by free slots, then the lowest port.
    pub(crate) fn best_route(&self, n: &Node, node: u32, p: &Packet, room: bool, now: f64) -> Option<(usize, usize)> {
        let mut best: Option<(usize, usize, (u32, u32))> = None;
        for o in 0..self.outputs() {
            if !self.candidate(node, p, o) || (!room && n.links[o].free > now) {
                continue;
            }
            if let Some((vc, score)) = self.usable(n, node, p, o, room) {
                let rank = match self.selection {
                    Selection::Load => (score, 0),
                    // Adaptive before escape, then the least contended port.
                    Selection::Contention => {
                        (score >> 16 << 16 | (0xFFFF - self.contention(n, node, o, now).min(0xFFFF)), score)
                    }
                };
                if best.map_or(true, |b| rank > b.2) {
                    best = Some((o, vc, rank));
                }
            }
        }
        best.map(|b| (b.0, b.1))
    }

    /// Packets at this router contending for output `o`: ready input heads
    /// that may take it, and (output-buffered) packets in its output buffers.
    pub(crate) fn contention(&self, n: &Node, node: u32, o: usize, now: f64) -> u32 {
        let v = self.vcs as usize;
        let queued: usize = match self.switch {
            Switch::OutputBuffered | Switch::Codes => (0..v).map(|vc| n.output.len(o * v + vc)).sum(),
            Switch::InputBuffered => 0,
        };
        (self.oldest_for(n, node, o, false, now).1 + queued) as u32
    }

    /// Schedules a wake-up for output `o` at the time its link frees, unless one is pending.
    #[inline]
    pub(crate) fn ensure_wake(&self, n: &mut Node, o: usize, ctx: &mut Ctx<'_, Self>) {
        let l = &n.links[o];
        if l.wake != l.free {
            let free = l.free;
            n.link_wake(o, free);
            ctx.send(ctx.lp(), free - ctx.now(), Msg::Wake { port: o as u8 });
        }
    }

    /// Head of input `i` (network inputs `0..ports·vcs`, then one injection queue per NIC).
    #[inline(always)]
    pub(crate) fn input_head<'n>(&self, n: &'n Node, i: usize) -> Option<&'n Packet> {
        let inject = self.ports() * self.vcs as usize;
        if i >= inject {
            n.inject[i - inject].queue.front()
        } else {
            n.input.head(i)
        }
    }

    /// Takes the head of input `i` and returns the credit for its buffer upstream.
    #[inline]
    pub(crate) fn take_input(&self, n: &mut Node, i: usize, ctx: &mut Ctx<'_, Self>) -> Packet {
        let v = self.vcs as usize;
        let inject = self.ports() * v;
        if i >= inject {
            let p = n.nic_pop(i - inject, ctx.now() >= self.warmup);
            if !n.nic_buf.is_empty() {
                self.nic_left(n, i - inject, &p, ctx);
            }
            n.lp_io_nic(i - inject, true, p.bytes);
            self.injection_head(n, i - inject, ctx);
            n.link_heads(p.out as usize, -1);
            return p;
        }
        let p = n.pop(false, i);
        n.done_waiting(i, p.out as usize);
        if let Some(out) = n.input.head(i).map(|h| h.out as usize) {
            n.wait_for(i, out);
        }
        let (port, vc) = (i / v, i % v);
        let (up, back) = self.topology.link(ctx.lp(), port).expect("an input port with a link");
        // The buffer frees when the tail has left (`lag` after the head);
        // CODES's router frees it as the packet, whole, moves on.
        let delay = if self.switch == Switch::Codes {
            self.codes_credit_delay()
        } else {
            self.lag(ctx.lp(), &p, p.out as usize) + self.latency(ctx.lp(), port)
        };
        ctx.send(up, delay, Msg::Credit { port: back as u8, vc: vc as u8 });
        p
    }

    /// Puts `p` on output link `o`, virtual channel `vc` (the link is free);
    /// `from`: the input queue it came from, if the output arbitrated for it.
    pub(crate) fn launch(
        &self,
        n: &mut Node,
        mut p: Packet,
        o: usize,
        vc: usize,
        from: Option<usize>,
        ctx: &mut Ctx<'_, Self>,
    ) {
        let now = ctx.now();
        let s = self.lag(ctx.lp(), &p, o);
        let (end, w) = (ctx.end_time(), self.warmup);
        // What a link's record gets: its new free time and the busy time
        // counted past the warm-up.
        let link = |busy: f64| (now + busy, ((now + busy).min(end) - now.max(w)).max(0.0));
        if o >= self.ports() {
            // A node of a multi-rail fat-tree has an ejection link per rail
            // (one NIC link here): R packets may come off the tree at once.
            let busy = match &self.topology {
                Topology::FatTree(f) if f.rails > 1 => s / f.rails as f64,
                _ => s,
            };
            let delay = self.class_latency(0) + s;
            n.launch_on(o, from, link(busy), None, now + delay >= end);
            n.lp_io_sent(o, p.bytes, now);
            ctx.send(ctx.lp(), delay, Msg::Deliver { pkt: p.header() });
            return;
        }
        if self.sample_every.is_some() {
            n.sample_busy(o, ((now + s).min(end) - now).max(0.0));
        }
        let v = self.vcs as usize;
        let delay = self.latency(ctx.lp(), o) + self.router_delay;
        n.launch_on(o, from, link(s), Some(o * v + vc), now + delay >= end);
        n.lp_io_sent(o, p.bytes, now);
        p.hops += 1;
        if vc >= self.escape_vcs() && self.routing == Routing::Adaptive {
            // An adaptive hop: should the packet take the escape channels
            // later, it starts there in class 0 of its dimension (minimal
            // routes never cross a ring's dateline twice).
            p.dim = NO_DIM;
            p.class = 0;
        }
        // Bandwidths first: `lag` above has just asked, and most runs have
        // one bandwidth, so the topology's match is seldom reached.
        if !self.uniform_bandwidth() {
            let unwired = match &self.topology {
                // (A wired dragonfly's `dim` holds its routing draw instead.)
                Topology::Dragonfly(d) => d.wiring.is_none(),
                Topology::SlimFly(_) => true,
                _ => false,
            };
            if unwired {
                // Remember the classes crossed, for `lag` downstream.
                p.dim = if p.dim == NO_DIM { 0 } else { p.dim } | 1 << self.link_class(ctx.lp(), o);
            }
        }
        let (next, port) = self.topology.link(ctx.lp(), o).expect("a route takes existing links");
        ctx.send(next, delay, Msg::Arrive { pkt: p.header(), port: port as u8, vc: vc as u8 });
    }

    /// Tries to move the head of input `i` on (and, through `try_output`,
    /// the heads behind it).
    pub(crate) fn try_input(&self, n: &mut Node, i: usize, ctx: &mut Ctx<'_, Self>) {
        let now = ctx.now();
        let node = ctx.lp();
        let v = self.vcs as usize;
        loop {
            let Some(&p) = self.input_head(n, i) else { return };
            if p.ready > now {
                return self.wait_ready(n, i, &p, ctx);
            }
            let adaptive = !self.fixed_route();
            match self.switch {
                // The output picks the oldest packet that can go (this one or
                // an older one) and moves the input it took from on.
                Switch::InputBuffered => {
                    if !adaptive {
                        return self.try_output(n, p.out as usize, Some(i), ctx);
                    }
                    return self.try_routes(n, &p, ctx);
                }
                Switch::OutputBuffered | Switch::Codes => {
                    let to = if adaptive {
                        self.best_route(n, node, &p, true, now)
                    } else {
                        let o = p.out as usize;
                        self.usable(n, node, &p, o, true).map(|(vc, _)| (o, vc))
                    };
                    let Some((o, vc)) = to else { return };
                    if self.arbitration == Arbitration::RoundRobin {
                        n.link_last_input(o, i);
                    }
                    let p = self.take_input(n, i, ctx);
                    let len = n.push(true, o * v + vc, p).expect("room in the output buffer was checked");
                    if len as u16 > n.counts.max_output {
                        n.save_maxes();
                        n.counts.max_output = len as u16;
                    }
                    self.try_output(n, o, None, ctx);
                }
            }
        }
    }

    /// An injected packet whose head has not reached the router yet: wake
    /// the NIC when it has. Out of line, as is [`try_routes`](Self::try_routes):
    /// `try_input`'s common path keeps fewer values live (issue 60).
    #[cold]
    #[inline(never)]
    fn wait_ready(&self, n: &mut Node, i: usize, p: &Packet, ctx: &mut Ctx<'_, Self>) {
        let nic = i - self.ports() * self.vcs as usize;
        // `--nic-buffer`: still at the NIC, waiting for a credit (its own event).
        if p.ready == f64::INFINITY {
            return;
        }
        if n.inject[nic].wake != p.ready {
            n.save_nic(nic);
            n.inject[nic].wake = p.ready;
            ctx.send(ctx.lp(), p.ready - ctx.now(), Msg::Ready { nic: nic as u8 });
        }
    }

    /// Input-buffered, adaptive: the best of `p`'s routes now, or a wake-up
    /// at the first of them to free (credits come as events).
    #[inline(never)]
    fn try_routes(&self, n: &mut Node, p: &Packet, ctx: &mut Ctx<'_, Self>) {
        let (node, now) = (ctx.lp(), ctx.now());
        if let Some((o, _)) = self.best_route(n, node, p, false, now) {
            return self.try_output(n, o, None, ctx);
        }
        for o in 0..self.outputs() {
            if self.candidate(node, p, o) && n.links[o].free > now {
                self.ensure_wake(n, o, ctx);
            }
        }
    }

    /// The oldest input head that waits for output `o` and may use it now
    /// (`room`: output-buffered, there is room in an output buffer for it;
    /// otherwise a virtual channel with a credit): (input, virtual channel),
    /// and how many heads wait for `o`.
    pub(crate) fn oldest_for(
        &self,
        n: &Node,
        node: u32,
        o: usize,
        room: bool,
        now: f64,
    ) -> (Option<(usize, usize)>, usize) {
        // (rank by the arbitration, age, input, virtual channel)
        let mut best: Option<(u32, f64, usize, usize)> = None;
        let mut waiting = 0;
        let inject = self.ports() * self.vcs as usize;
        let nics = n.inject.iter().enumerate().filter_map(|(t, nic)| nic.queue.front().map(|p| (inject + t, p)));
        let (arbitration, inputs, last) = (self.arbitration, inject + n.inject.len(), n.links[o].last_input as usize);
        let mut consider = |i: usize, p: &Packet| {
            if p.ready > now || !self.candidate(node, p, o) {
                return;
            }
            waiting += 1;
            let rank = match arbitration {
                Arbitration::Age => 0,
                // Inputs after the last one served come first, in order.
                Arbitration::RoundRobin => ((i + inputs - last - 1) % inputs) as u32,
                Arbitration::TransitFirst => (i >= inject) as u32,
            };
            // Then the oldest, the lowest input on a tie (inputs come in any order).
            if best.is_some_and(|b| (b.0, b.1, b.2) <= (rank, p.ready, i)) {
                return;
            }
            if let Some((vc, _)) = self.usable(n, node, p, o, room) {
                best = Some((rank, p.ready, i, vc));
            }
        };
        if self.fixed_route() {
            // Only the heads routed to `o` can take it: its waiting list.
            for i in n.waiting(o) {
                consider(i, n.input.head(i).expect("a waiting queue has a head"));
            }
            nics.for_each(|(i, p)| consider(i, p));
        } else {
            n.input.heads().chain(nics).for_each(|(i, p)| consider(i, p));
        }
        (best.map(|b| (b.2, b.3)), waiting)
    }

    /// Output `o` may have become usable (its link is free, a credit came, a
    /// packet is waiting): sends the oldest packet that can go, then moves on
    /// the buffers that freed.
    pub(crate) fn try_output(&self, n: &mut Node, o: usize, from: Option<usize>, ctx: &mut Ctx<'_, Self>) {
        let now = ctx.now();
        let v = self.vcs as usize;
        match self.switch {
            Switch::InputBuffered => {
                let dor = self.fixed_route();
                let (best, waiting) = match (from, n.links[o].heads) {
                    (_, 0) if dor => return,
                    // The caller's ready head is the only one for `o`.
                    (Some(i), 1) if dor => {
                        let p = self.input_head(n, i).expect("the caller's head");
                        (self.usable(n, ctx.lp(), p, o, false).map(|(vc, _)| (i, vc)), 1)
                    }
                    _ => self.oldest_for(n, ctx.lp(), o, false, now),
                };
                if waiting > 0 && n.links[o].free > now {
                    return self.ensure_wake(n, o, ctx);
                }
                let Some((i, vc)) = best else { return };
                let p = self.take_input(n, i, ctx);
                self.launch(n, p, o, vc, Some(i), ctx);
                if waiting > 1 {
                    self.ensure_wake(n, o, ctx);
                }
                self.try_input(n, i, ctx);
            }
            Switch::OutputBuffered | Switch::Codes => {
                let queued = (0..v).any(|vc| n.output.len(o * v + vc) > 0);
                if n.links[o].free > now {
                    if queued {
                        self.ensure_wake(n, o, ctx);
                    }
                    if self.switch == Switch::Codes {
                        // A credit makes room here too: CODES moves a queued
                        // packet in as it comes (`router_buf_update`).
                        self.fill_output(n, o, now, ctx);
                    }
                    return;
                }
                let mut best: Option<(f64, usize)> = None;
                for vc in 0..v {
                    let Some(p) = n.output.head(o * v + vc) else { continue };
                    let credit = o >= self.ports() || n.input.lanes[o * v + vc].credits > 0;
                    if credit && best.map_or(true, |b| p.ready < b.0) {
                        best = Some((p.ready, vc));
                    }
                }
                let Some((_, vc)) = best else {
                    if self.switch == Switch::Codes {
                        self.fill_output(n, o, now, ctx); // a credit, and nothing queued
                    }
                    return;
                };
                let p = n.pop(true, o * v + vc);
                self.launch(n, p, o, vc, None, ctx);
                if (0..v).any(|vc| n.output.len(o * v + vc) > 0) {
                    self.ensure_wake(n, o, ctx);
                }
                self.fill_output(n, o, now, ctx);
            }
        }
    }

    /// Room in an output queue of `o`: the oldest input heads for it move in.
    fn fill_output(&self, n: &mut Node, o: usize, now: f64, ctx: &mut Ctx<'_, Self>) {
        if self.fixed_route() && n.links[o].heads == 0 {
            return;
        }
        while let (Some((i, _)), _) = self.oldest_for(n, ctx.lp(), o, true, now) {
            self.try_input(n, i, ctx);
        }
    }
}
