//! The NICs: message creation (synthetic traffic, or a rank's send),
//! splitting into packets and the injection queues, and delivery with
//! message reassembly and the latency statistics.

use timewarp::{Ctx, Random};

use super::node::Saved;
use super::node::BATCHES;
use super::packet::{NO_DIM, NO_OUT};
use super::{Header, Msg, Network, Node, Packet, RailSelect, Routing, Topology};

impl Network {
    /// The packet now at the front of NIC `nic`'s injection queue (if any)
    /// becomes a head at `now`: the routings that decide at the source
    /// (UGAL-L, updown-adaptive; a Slim Fly's UGAL draws its candidates now,
    /// as CODES does at the source router) decide now, on the buffers as they are, and
    /// its output counts it; where the decision waits for the head to reach
    /// the router ([`decides_on_arrival`](Self::decides_on_arrival)) and it
    /// has not yet, it is left undecided for its `Ready`. Its age for arbitration starts now if its head
    /// reached the router earlier: time queued behind other packets at the
    /// source is not time in the network (counting it made injected packets
    /// look older than any transit packet past saturation, and starved
    /// transit traffic). Whether it may leave is unchanged: `ready <= now`
    /// either way.
    #[inline]
    pub(crate) fn injection_head(&self, n: &mut Node, nic: usize, ctx: &mut Ctx<'_, Self>) {
        let (router, now) = (ctx.lp(), ctx.now());
        let Some(&h) = n.inject[nic].queue.front() else { return };
        let mut h = h;
        let ugal = matches!(self.routing, Routing::Ugal | Routing::Par | Routing::UgalG | Routing::UgalCodes);
        let adaptive = ugal
            || self.routing == Routing::UpDownAdaptive
            || matches!(&self.topology, Topology::FatTree(f) if f.rails > 1 && f.select == RailSelect::Adaptive)
            || matches!(&self.topology, Topology::Dragonfly(d) if d.leaves().is_some());
        // CODES decides as the packet reaches the router
        // (`router_packet_receive`): at its `Ready`, `decide_on_arrival`;
        // until then no output takes it.
        let undecided = adaptive && h.ready > now && self.decides_on_arrival();
        if undecided {
            h.out = NO_OUT;
        } else if let (true, Topology::SlimFly(s)) = (adaptive, &self.topology) {
            self.ugal_slimfly(s, n, nic, &mut h, ctx);
        } else if adaptive {
            self.ugal(n, router, &mut h);
        }
        if h.ready < now {
            h.ready = now;
        }
        if adaptive || h.ready != n.inject[nic].queue[0].ready {
            n.nic_set_head(nic, h);
        }
        if !undecided {
            n.link_heads(h.out as usize, 1);
        }
        if n.lp_io.is_some() && h.ready <= now {
            // Its head is at the router now (a later one: at its `Ready`).
            self.lp_io_arrived(n, &h, router, now);
        }
    }

    /// Whether a source router's adaptive decision waits for the packet's
    /// head to reach it, as CODES's routers decide (`router_packet_receive`):
    /// under CODES's 1-D rule (`ugal-codes`). Otherwise a packet is decided
    /// as it heads its injection queue. (Tried on every import: Theta, the
    /// Slim Fly and Dragonfly+ moved by under 1 % of hops either way, and
    /// their cost per event rose 3-7 %: docs/codes.md.)
    #[inline]
    pub(crate) fn decides_on_arrival(&self) -> bool {
        self.routing == Routing::UgalCodes
    }

    /// The undecided head of NIC `nic` ([`NO_OUT`]) has reached router
    /// `router` at `now` (its `Ready`): the source's decision on the buffers
    /// now, as [`injection_head`](Self::injection_head) would have taken it
    /// (only `ugal-codes` comes here, a dragonfly's); its output counts it.
    pub(crate) fn decide_on_arrival(&self, n: &mut Node, nic: usize, router: u32, now: f64) {
        let Some(&h) = n.inject[nic].queue.front() else { return };
        if h.out != NO_OUT || h.ready > now {
            return;
        }
        let mut d = h;
        self.ugal(n, router, &mut d);
        // A decision routes the packet; where none is taken (no
        // intermediate, or no next hop), it is routed as it stands.
        if d.out == NO_OUT {
            self.route(n, router, &mut d);
        }
        n.nic_set_head(nic, d);
        n.link_heads(d.out as usize, 1);
    }

    /// Whether NIC `nic` of router `lp` creates synthetic messages: every
    /// node under synthetic traffic; with jobs, those of a synthetic job.
    pub(crate) fn generates(&self, lp: u32, nic: u32) -> bool {
        match (self.jobs.as_deref(), self.topology.node(lp, nic)) {
            (None, _) => true,
            (Some(j), Some(node)) => j.synthetic(node).is_some(),
            (Some(_), None) => false,
        }
    }

    /// Whether a delivered message is a rank's (not a synthetic job's).
    #[inline]
    pub(crate) fn of_ranks(&self, p: &Header) -> bool {
        self.jobs.as_deref().map_or(true, |j| j.synthetic(p.src).is_none())
    }

    /// A new message at NIC `nic`: its packets join the NIC's injection queue.
    pub(crate) fn generate(&self, n: &mut Node, nic: usize, ctx: &mut Ctx<'_, Self>) {
        let router = ctx.lp();
        let me = self.topology.node(router, nic as u32).expect("only NICs with a node create messages");
        let nodes = self.topology.nodes();
        let job = self.jobs.as_deref().and_then(|j| j.synthetic(me));
        let dst = match (self.probe, job) {
            (Some((_, d)), _) => d,
            // A synthetic job's traffic: uniform among its other nodes.
            (None, Some(job)) => match job.nodes.len() {
                0 | 1 => me,
                k => {
                    let d = job.nodes[ctx.rng(0).below(k as u64 - 1) as usize];
                    if d == me {
                        job.nodes[k - 1]
                    } else {
                        d
                    }
                }
            },
            (None, None) => {
                let k0 = match &self.topology {
                    Topology::Torus(d) | Topology::Mesh(d) => d[0],
                    Topology::Hypercube(_) => 2,
                    Topology::Dragonfly(d) => d.group_nodes(),
                    Topology::FatTree(f) => f.per_leaf(),
                    Topology::SlimFly(s) => s.q * s.p,
                };
                let shape = match &self.topology {
                    Topology::Torus(d) | Topology::Mesh(d) => d.as_slice(),
                    _ => std::slice::from_ref(&k0),
                };
                self.traffic.destination_in(me, nodes, shape, &mut ctx.rng(0))
            }
        };
        n.save_nic(nic);
        let q = &mut n.inject[nic];
        let msg = q.next_msg;
        q.next_msg = q.next_msg.wrapping_add(1);
        self.enqueue(n, nic, me, dst, self.message_bytes, msg, ctx);
        let more = self.messages.map_or(true, |m| n.inject[nic].next_msg < m);
        if self.probe.is_none() && self.load > 0.0 && more {
            let gap = self.next_gap(false, &mut ctx.rng(1));
            ctx.send(router, gap, Msg::Generate { nic: nic as u8 });
        }
    }

    /// Message `msg` of `message_bytes` from node `me` (NIC `nic` here) to
    /// node `dst`: its packets join the NIC's injection queue.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn enqueue(
        &self,
        n: &mut Node,
        nic: usize,
        me: u32,
        dst: u32,
        message_bytes: u32,
        msg: u32,
        ctx: &mut Ctx<'_, Self>,
    ) {
        let now = ctx.now();
        let router = ctx.lp();
        let via = match &self.topology {
            // A multi-rail fat-tree's packets carry their rail where others carry an intermediate.
            Topology::FatTree(f) if f.rails > 1 => self.rail(f, me, message_bytes, ctx),
            _ => self.via(router, dst, ctx),
        };
        let npkts = message_bytes.div_ceil(self.packet_bytes);
        let wired = matches!(&self.topology, Topology::Dragonfly(d) if d.wiring.is_some());
        let was_empty = n.inject[nic].queue.is_empty();
        let measured = now >= self.warmup;
        n.save_nic(nic);
        for j in 0..npkts {
            let bytes = (message_bytes - j * self.packet_bytes).min(self.packet_bytes);
            // `--nic-buffer`: without a slot it waits at the NIC (nic_buffer.rs).
            let starts = n.nic_buf.is_empty() || self.nic_take_slot(n, nic);
            let q = &mut n.inject[nic];
            let ready = if starts {
                let ready = (now + self.class_latency(0) + self.router_delay).max(q.next);
                q.next = ready + self.serialisation(bytes);
                ready
            } else {
                f64::INFINITY
            };
            // CODES's 1-D dragonfly draws an intermediate group per packet
            // (as it reaches the source router), not per message.
            let via = if j > 0 && self.routing == Routing::UgalCodes { self.via(router, dst, ctx) } else { via };
            let mut p = Packet {
                created: now,
                ready,
                src: me,
                dst,
                msg,
                npkts,
                bytes,
                hops: 0,
                // A wired dragonfly's routing draw (route.rs, `route_key`).
                dim: if wired { ctx.rng(0).below(256) as u8 } else { NO_DIM },
                class: 0,
                out: 0,
                via,
            };
            self.route(n, router, &mut p);
            n.nic_inject(nic, p, measured);
            n.lp_io_nic(nic, false, bytes);
            if self.sample_every.is_some() {
                n.sample_injected();
            }
        }
        if was_empty {
            self.injection_head(n, nic, ctx);
            self.try_input(n, self.ports() * self.vcs as usize + nic, ctx);
        }
    }

    /// A packet's last byte arrived here (the run ends at `end`); whether
    /// its message is now whole.
    pub(crate) fn deliver(&self, n: &mut Node, p: &Header, now: f64, end: f64) -> bool {
        let c = &mut n.counts;
        let in_window = now >= self.warmup;
        let last = c.last_delivery;
        n.log.save(|| Saved::Delivered { bytes: p.bytes, in_window, last });
        c.delivered += 1;
        c.last_delivery = now;
        if in_window {
            c.delivered_bytes_w += p.bytes as u64;
        }
        let measured = p.created >= self.warmup;
        if measured {
            let lat = now - p.created;
            let (sum, queue, max, min) = (c.lat_sum, c.queue_sum, c.lat_max, c.lat_min);
            let (hist_first, hist_len) = c.hist.all.span();
            n.log.save(|| Saved::Latency { lat, hops: p.hops, min, hist_first, hist_len });
            n.log.save(|| Saved::LatencySums { sum, queue, max });
            c.lat_n += 1;
            c.lat_sum += lat;
            c.queue_sum += p.entered - p.created;
            c.lat_max = c.lat_max.max(lat);
            c.lat_min = if c.lat_n == 1 { lat } else { c.lat_min.min(lat) };
            c.hist.all.add(lat);
            c.hop_sum += p.hops as u64;
            c.hop_sq += p.hops as u64 * p.hops as u64;
            if let Some(sp) = c.hist.split.as_deref_mut() {
                for (i, x) in [p.entered - p.created, now - p.entered].into_iter().enumerate() {
                    let (first, len) = sp.parts[i].span();
                    let (min, max) = (sp.min[i], sp.max[i]);
                    n.log.save(|| Saved::Split { part: i as u8, x, first, len });
                    n.log.save(|| Saved::SplitExtremes { part: i as u8, min, max });
                    sp.add(i, x);
                }
            }
        }
        if (self.sample_every.is_some() || self.jobs.is_some()) && n.samples.is_some() {
            n.sample_delivered(now - p.created, p.bytes, self.job_of(p.src), self.sample_every.is_some());
        }
        if in_window && self.open() && now < end {
            let b = (((now - self.warmup) / (end - self.warmup) * BATCHES as f64) as usize).min(BATCHES - 1);
            let c = &mut n.counts;
            let lat = c.batch_lat[b];
            n.log.save(|| Saved::Batch { b: b as u8, bytes: p.bytes, measured, lat });
            c.batch_bytes[b] += p.bytes as u64;
            if measured {
                c.batch_n[b] += 1;
                c.batch_lat[b] += now - p.created;
            }
        }
        let done = if p.npkts == 1 {
            true
        } else if let Some(i) = n.partial.iter().position(|e| e.0 == p.src && e.1 == p.msg) {
            let last = n.partial[i].2 == 1;
            if last {
                let old = n.partial.swap_remove(i);
                n.log.save(|| Saved::PartialRemove { i: i as u32, old });
            } else {
                n.partial[i].2 -= 1;
                n.log.save(|| Saved::PartialCount { i: i as u32 });
            }
            last
        } else {
            n.partial.push((p.src, p.msg, p.npkts - 1, p.created));
            n.log.save(|| Saved::PartialPush);
            false
        };
        if done && measured {
            let c = &mut n.counts;
            let sum = c.msg_lat_sum;
            n.log.save(|| Saved::Message { sum });
            c.msg_n += 1;
            c.msg_lat_sum += now - p.created;
        }
        done
    }
}
