//! Routing a packet at a router: the cubes' dimension order (through
//! [`Topology::route`]) and its two-phase Valiant and ROMM forms, the
//! dragonfly's minimal, Valiant, UGAL-L, PAR and UGAL-G routes, the Slim Fly's
//! minimal, Valiant and UGAL-L ones, the fat-tree's up/down and its rails,
//! and the occupancy adaptive choices measure.

use timewarp::{Ctx, Random};

use super::packet::NO_DIM;
use super::topology::connections::{key, pick};

/// Marks the places of `prog-adaptive`'s later draws ([`pick`]'s `at`),
/// apart from a router's own routing draws.
const PROG_ADAPTIVE_DRAW: u64 = 1 << 40;
use super::topology::{Dragonfly, FatTree, Hop, RailSelect, SlimFly, Topology, NO_VIA, PAR_PENDING, RAIL_KEPT};

/// Random intermediate routers a Slim Fly's UGAL weighs against the minimal
/// route (CODES's `num_indirect_routes` in `slimfly.c`).
pub const SFLY_UGAL_CANDIDATES: u32 = 4;
use super::{Network, Node, Packet, Routing, Scoring};

/// A packet's routing key on a wired dragonfly (its random byte, drawn at
/// injection into `dim`, which a wired dragonfly does not use otherwise,
/// and its identity); 0 on a standard one, which needs none.
#[inline]
pub(crate) fn route_key(d: &Dragonfly, p: &Packet) -> u64 {
    if d.wiring.is_some() {
        key(p.dim, p.src, p.msg)
    } else {
        0
    }
}

impl Network {
    /// Routes `p` at `node`: its output port, and its dateline class on
    /// that link (a dragonfly: its virtual channel, the hops taken so far).
    #[inline(always)]
    pub(crate) fn route(&self, n: &Node, node: u32, p: &mut Packet) {
        match &self.topology {
            Topology::Dragonfly(d) => return self.route_dragonfly(d, n, node, p),
            Topology::FatTree(f) => return self.route_fattree(f, n, node, p),
            Topology::SlimFly(s) => return self.route_slimfly(s, node, p),
            _ => {}
        }
        if p.via != NO_VIA && node == p.via as u32 {
            // Valiant: the intermediate reached; the second phase starts
            // afresh on its own channels (class 0 on the first dimension).
            p.via = NO_VIA;
            p.dim = NO_DIM;
        }
        let toward = if p.via != NO_VIA { p.via as u32 } else { p.dst };
        match self.topology.route(node, toward) {
            None if toward != p.dst => unreachable!("a packet at its Valiant intermediate has no via"),
            None => p.out = self.ports() as u8,
            Some(step) => {
                if step.dim != p.dim {
                    p.class = 0;
                }
                if step.wraps {
                    p.class = 1;
                }
                p.dim = step.dim;
                p.out = step.port;
            }
        }
    }

    /// [`Network::route`] on a dragonfly; kept out of line so that the
    /// cubes' routing stays small enough to be inlined into its callers.
    /// PAR: a packet still on its minimal route in its source group (its
    /// intermediate group pending) is offered the Valiant route again at
    /// each router of the group after the first; leaving the group
    /// minimally drops the intermediate.
    #[inline(never)]
    pub(crate) fn route_dragonfly(&self, d: &Dragonfly, n: &Node, node: u32, p: &mut Packet) {
        if let Some(w) = d.wiring.as_deref().filter(|w| w.leaves > 0) {
            return self.route_plus(d, w, n, node, p);
        }
        if self.routing == Routing::Par && p.via != NO_VIA && p.via & PAR_PENDING != 0 {
            if d.group(node) != d.group(p.src / d.p) {
                p.via = NO_VIA;
            } else if p.hops > 0 {
                let to = p.dst / d.p;
                let (via, minimal) = if d.via_router() {
                    // CODES's prog-adaptive draws a new intermediate router
                    // at each router that reconsiders (`router_packet_receive`).
                    let draw = pick(route_key(d, p), PROG_ADAPTIVE_DRAW | node as u64, d.custom_via_draws(node, to));
                    let via = d.custom_via(node, to, draw);
                    (via, self.custom_adaptive(d, n, node, p, via, false))
                } else {
                    let via = p.via & !PAR_PENDING;
                    let minimal = if d.dally() {
                        self.codes_next_minimal(d, n, node, to, via, route_key(d, p))
                    } else {
                        self.ugal_minimal(d, n, node, to, via, route_key(d, p))
                    };
                    (via, minimal)
                };
                if minimal == Some(false) {
                    p.via = via;
                }
            }
        }
        if d.via_reached(node, p.via) {
            p.via = NO_VIA;
        }
        let pending = self.routing == Routing::Par && p.via != NO_VIA && p.via & PAR_PENDING != 0;
        match d.step_keyed(node, p.dst / d.p, if pending { NO_VIA } else { p.via }, route_key(d, p)) {
            None => p.out = (self.ports() as u32 + p.dst % d.p) as u8,
            Some(port) => {
                p.out = port;
                p.class = p.hops.min(u8::MAX as u16) as u8;
            }
        }
    }

    /// [`Network::route`] on a fat-tree (out of line, as the dragonfly's):
    /// up/down; updown-adaptive takes the up port with the least
    /// [`Network::occupancy`] now (updown's port on a tie, then the lowest). The virtual
    /// channel is free: up/down routes cannot deadlock (every route climbs
    /// then descends, so no cycle of channel dependencies exists).
    #[inline(never)]
    pub(crate) fn route_fattree(&self, f: &FatTree, n: &Node, node: u32, p: &mut Packet) {
        let hop = if f.rails == 1 { f.hop(node, p.dst) } else { f.hop_on(node, p.dst, (p.via & !RAIL_KEPT) as u32) };
        p.out = match hop {
            Hop::Eject(nic) => self.ports() as u32 + nic,
            Hop::Down(port) => port as u32,
            Hop::Up { pick, .. } if self.routing == Routing::UpDown => pick as u32,
            Hop::Up { base, n: up, pick } => {
                // Ties go to updown's destination-digit port, not the lowest:
                // at low load every port ties, and the lowest would take it all.
                let best = (base..base + up).min_by_key(|&o| (self.occupancy(n, node, o), o != pick, o));
                best.expect("a switch below the top has up ports") as u32
            }
        } as u8;
    }

    /// [`Network::route`] on a Slim Fly (out of line, as the dragonfly's):
    /// minimally to the packet's Valiant intermediate router while it has
    /// one, then minimally to its destination's router; its virtual channel
    /// is the hops taken so far (at most 4), as CODES's `slimfly.c` moves
    /// a packet up one channel per hop.
    #[inline(never)]
    pub(crate) fn route_slimfly(&self, s: &SlimFly, node: u32, p: &mut Packet) {
        if p.via != NO_VIA && node == p.via as u32 {
            p.via = NO_VIA;
        }
        let toward = if p.via != NO_VIA { p.via as u32 } else { p.dst / s.p };
        match s.step(node, toward) {
            None => p.out = (self.ports() as u32 + p.dst % s.p) as u8,
            Some(port) => {
                p.out = port;
                p.class = p.hops.min(u8::MAX as u16) as u8;
            }
        }
    }

    /// UGAL on a Slim Fly at the source router, as CODES's `slimfly.c`
    /// (`do_adaptive_routing`) does it: [`SFLY_UGAL_CANDIDATES`] routers
    /// drawn uniformly (one equal to the destination's router, then one
    /// equal to this router, moved to the next as CODES moves it, modulo
    /// `2q² − 1`), weighed by [`Network::sfly_ugal_choice`]. A packet for
    /// this router's own nodes draws nothing, as in CODES. `nic`: the
    /// injection queue whose head `p` is.
    pub(crate) fn ugal_slimfly(&self, s: &SlimFly, n: &Node, nic: usize, p: &mut Packet, ctx: &mut Ctx<'_, Self>) {
        let (router, to) = (ctx.lp(), p.dst / s.p);
        if router == to {
            return;
        }
        let mut draws = [0u32; SFLY_UGAL_CANDIDATES as usize];
        for d in draws.iter_mut() {
            *d = ctx.rng(0).below(s.routers() as u64) as u32;
        }
        p.via = self.sfly_ugal_choice(s, n, (router, to), nic, ctx.now(), &draws).map_or(NO_VIA, |v| v as u16);
        self.route(n, router, p);
    }

    /// The intermediate router UGAL takes on Slim Fly `s` at `router` for
    /// router `to` from uniform draws `draws`, or `None` (minimal): each
    /// candidate costs its next output's [`Network::sfly_first_hop_occupancy`]
    /// × its hops (to it and on to the destination), the minimal route its
    /// own × its 1 or 2 hops, and the first cheapest candidate is taken only
    /// when `q_min · H_min > q_val · H_val + T` (CODES: T = 0, its costs
    /// divided by `H_min`, the same order).
    pub(crate) fn sfly_ugal_choice(
        &self,
        s: &SlimFly,
        n: &Node,
        (router, to): (u32, u32),
        nic: usize,
        now: f64,
        draws: &[u32],
    ) -> Option<u32> {
        let min = s.step(router, to)?;
        let cost_min = self.sfly_first_hop_occupancy(n, router, min as usize, nic, now) * s.hops(router, to);
        let mut cands = [(0u32, 0u32); SFLY_UGAL_CANDIDATES as usize];
        for (c, &d) in cands.iter_mut().zip(draws) {
            let v = s.ugal_candidate(d, router, to);
            // A candidate at either end is the minimal route at its cost.
            let cost = match s.step(router, v) {
                Some(val) if v != to => {
                    self.sfly_first_hop_occupancy(n, router, val as usize, nic, now)
                        * (s.hops(router, v) + s.hops(v, to))
                }
                _ => cost_min,
            };
            *c = (v, cost);
        }
        SlimFly::ugal_pick(cost_min, &cands[..draws.len().min(cands.len())], self.ugal_threshold)
    }

    /// The queue CODES's Slim Fly UGAL reads for output `o` of router `r`:
    /// `vc_occupancy[o][0]`, the first-hop virtual channel only (CODES puts
    /// a packet on channel `my_N_hop`, so channel 0 holds just the packets
    /// this router's own nodes sent out of `o`): those waiting here at `now`
    /// (the other injection queues' heads routed to `o` that have reached
    /// the router, as CODES counts a packet once its router holds it, and
    /// channel 0's output buffer) and those in the channel-0 buffer
    /// downstream not yet credited back. Transit traffic on `o`'s other
    /// channels is not seen.
    pub(crate) fn sfly_first_hop_occupancy(&self, n: &Node, r: u32, o: usize, nic: usize, now: f64) -> u32 {
        let lane = o * self.vcs as usize;
        let mut q = self.buffer_of(r, o) - n.input.lanes[lane].credits as u32;
        if self.switch.output_queued() {
            q += n.output.len(lane) as u32;
        }
        let waiting = n.inject.iter().enumerate().filter(|&(i, _)| i != nic);
        q + waiting.filter(|(_, q)| q.queue.front().is_some_and(|h| h.out as usize == o && h.ready <= now)).count()
            as u32
    }

    /// The rail of a message of `bytes` from node `me` on a multi-rail
    /// fat-tree: its dedicated rail, or (random) one drawn uniformly; under
    /// adaptive selection a message above [`FatTree::select_limit`] bytes
    /// starts from its dedicated rail, to be weighed at the leaf
    /// ([`Network::least_loaded_rail`]), and a smaller one keeps it, marked
    /// [`RAIL_KEPT`] (CODES's `rail_select_limit`).
    pub(crate) fn rail(&self, f: &FatTree, me: u32, bytes: u32, ctx: &mut Ctx<'_, Self>) -> u16 {
        match f.select {
            RailSelect::Random => ctx.rng(0).below(f.rails as u64) as u16,
            RailSelect::Adaptive if bytes <= f.select_limit => f.dedicated_rail(me) as u16 | RAIL_KEPT,
            _ => f.dedicated_rail(me) as u16,
        }
    }

    /// CODES's adaptive rail selection at the leaf `router` of node `me`:
    /// from its dedicated rail, the first rail whose up links hold strictly
    /// fewer packets ([`Network::occupancy`] summed over its up ports).
    fn least_loaded_rail(&self, f: &FatTree, n: &Node, router: u32, me: u32) -> u32 {
        let k = f.k as usize;
        let up = f.leaf_up() as usize;
        let load = |j: u32| (0..up).map(|i| self.occupancy(n, router, k + j as usize * k + i)).sum::<u32>();
        let first = f.dedicated_rail(me);
        let (mut best, mut least) = (first, load(first));
        for i in 1..f.rails {
            let j = (first + i) % f.rails;
            let l = load(j);
            if l < least {
                (best, least) = (j, l);
            }
        }
        best
    }

    /// UGAL-L's measure of output `o` here: packets in the downstream
    /// buffers (buffer slots without a credit), heads waiting for it, and
    /// packets in its output buffers.
    pub(crate) fn occupancy(&self, n: &Node, r: u32, o: usize) -> u32 {
        let v = self.vcs as usize;
        let mut q = n.links[o].heads;
        let cap = self.buffer_of(r, o);
        for vc in 0..v {
            q += cap - n.input.lanes[o * v + vc].credits as u32;
            if self.switch.output_queued() {
                q += n.output.len(o * v + vc) as u32;
            }
        }
        q
    }

    /// UGAL-L at the source router, as packet `p` becomes the head of its
    /// injection queue: keeps its Valiant route through `p.via` only if
    /// `q_min · H_min > q_val · H_val + T` ([`Network::ugal_threshold`]),
    /// and routes it again. PAR decides the same way, but a packet sent
    /// minimally keeps its intermediate group, marked pending
    /// ([`PAR_PENDING`]), for the next routers of its group to reconsider.
    /// UGAL-G decides as UGAL-L with each route's global channel added
    /// ([`Network::ugal_g_minimal`]).
    /// On a fat-tree with updown-adaptive routing: chooses the first up port again, on the buffers now.
    #[inline(never)]
    pub(crate) fn ugal(&self, n: &Node, router: u32, p: &mut Packet) {
        if let Topology::FatTree(f) = &self.topology {
            if f.rails > 1 && f.select == RailSelect::Adaptive && p.hops == 0 && p.via & RAIL_KEPT == 0 {
                p.via = self.least_loaded_rail(f, n, router, p.src) as u16;
            }
            return self.route(n, router, p);
        }
        let Topology::Dragonfly(d) = &self.topology else { return };
        if d.leaves().is_some() && (self.routing != Routing::Ugal || p.via == NO_VIA || p.hops > 0) {
            // A Dragonfly+ decides at every router (plus.rs); at the source, now.
            return self.route(n, router, p);
        }
        let ugal = matches!(self.routing, Routing::Ugal | Routing::Par | Routing::UgalG | Routing::UgalCodes);
        if !ugal || p.via == NO_VIA || p.hops > 0 {
            return;
        }
        let par = self.routing == Routing::Par;
        let via = if par { p.via & !PAR_PENDING } else { p.via };
        let choice = if self.routing == Routing::UgalG {
            self.ugal_g_minimal(d, n, router, p.dst / d.p, via)
        } else if d.via_router() {
            self.custom_adaptive(d, n, router, p, via, true)
        } else if d.dally() || self.routing == Routing::UgalCodes {
            self.codes_next_minimal(d, n, router, p.dst / d.p, via, route_key(d, p))
        } else {
            self.ugal_minimal(d, n, router, p.dst / d.p, via, route_key(d, p))
        };
        let Some(minimal) = choice else { return };
        // CODES's prog-adaptive reconsiders only a route that leaves the group.
        let stays = d.via_router() && d.group(router) == d.group(p.dst / d.p);
        p.via = match (minimal, par && !stays) {
            (false, _) => via,
            (true, false) => NO_VIA,
            (true, true) => via | PAR_PENDING,
        };
        self.route(n, router, p);
    }

    /// UGAL's choice at router `router` for a packet to router `to` that
    /// may go through group `via`: whether the minimal route wins,
    /// `q_min · H_min ≤ q_val · H_val + T` (`q`: [`Network::occupancy`] of
    /// each route's next output here, `H`: each route's hops from here), or
    /// `None` when either route has no next hop.
    #[inline]
    pub(crate) fn ugal_minimal(
        &self,
        d: &Dragonfly,
        n: &Node,
        router: u32,
        to: u32,
        via: u16,
        key: u64,
    ) -> Option<bool> {
        let (min, val) = (d.step_keyed(router, to, NO_VIA, key)?, d.step_keyed(router, to, via, key)?);
        let q_min = self.occupancy(n, router, min as usize) * d.hops_keyed(router, to, NO_VIA, key);
        let q_val = self.occupancy(n, router, val as usize) * d.hops_keyed(router, to, via, key);
        // Integers below 2^53: with T = 0 exactly the integer comparison.
        Some(q_min as f64 <= q_val as f64 + self.ugal_threshold)
    }

    /// CODES's comparison of a minimal and a non-minimal candidate scored
    /// `q_min` and `q_non` (a5958cf: `do_global_adaptive_routing` in
    /// `dragonfly-custom.cxx`, `dfdally_prog_adaptive_routing` in
    /// `dragonfly-dally.cxx`): minimal unless `q_min > T` and `q_min >
    /// q_non`, with `q_non` doubled under delta scoring (the Dally's
    /// `route_scoring_metric="delta"`, the custom model's `minimal-bias=1`);
    /// `T` = [`Network::ugal_threshold`]. No hop weighting.
    #[inline]
    pub(crate) fn codes_minimal(&self, q_min: u32, q_non: u32) -> bool {
        let q_non = if self.scoring == Scoring::Delta { 2 * q_non as u64 } else { q_non as u64 };
        !(q_min as f64 > self.ugal_threshold && q_min as u64 > q_non)
    }

    /// CODES's choice between one candidate of each route at `router` for
    /// a packet to router `to` that may go through group `via`:
    /// [`Network::codes_minimal`] of the occupancy of each route's next
    /// output here, no hop weighting; `None` when either route has no next
    /// hop. It serves two models. `dragonfly_dally` (its alpha score): the
    /// candidates are ours, the packet's own draw of each route, where
    /// CODES takes the least congested of all minimal (and non-minimal)
    /// connections, the best of two draws among global ones. The 1-D
    /// `dragonfly` (`ugal-codes`; `do_adaptive_routing` in `dragonfly.c`,
    /// a5958cf): exactly CODES's, one port per route (the three channels'
    /// `vc_occupancy` plus `queued_count` there) and threshold 0, as CODES
    /// has none.
    #[inline]
    pub(crate) fn codes_next_minimal(
        &self,
        d: &Dragonfly,
        n: &Node,
        router: u32,
        to: u32,
        via: u16,
        key: u64,
    ) -> Option<bool> {
        let (min, val) = (d.step_keyed(router, to, NO_VIA, key)?, d.step_keyed(router, to, via, key)?);
        Some(self.codes_minimal(self.occupancy(n, router, min as usize), self.occupancy(n, router, val as usize)))
    }

    /// CODES's dragonfly-custom adaptive choice (`do_global_adaptive_routing`,
    /// a5958cf) at `router` for packet `p` that may go through router `via`:
    /// two draws of each route (the packet's own and a second, which may
    /// name the same gateway: CODES forces its second draw apart, not
    /// modelled, docs/network.md), each scored by the occupancy of its first
    /// port here, the less congested of each pair (the first on a tie);
    /// non-minimal by [`Network::codes_minimal`]. The draw kept becomes the
    /// packet's (its routing byte), so the route goes by the channel
    /// scored; at a later router (`source` false) a minimal packet keeps its
    /// own. A packet for its own group (`do_local_adaptive_routing`) has one
    /// draw of each route. `None` when a route has no next hop.
    pub(crate) fn custom_adaptive(
        &self,
        d: &Dragonfly,
        n: &Node,
        router: u32,
        p: &mut Packet,
        via: u16,
        source: bool,
    ) -> Option<bool> {
        let to = p.dst / d.p;
        let pair = if d.group(router) == d.group(to) { 1 } else { 2 };
        let best = |via: u16| -> Option<(u32, u8)> {
            let mut best: Option<(u32, u8)> = None;
            for &dim in &[p.dim, p.dim ^ 0x80][..pair] {
                let port = d.step_keyed(router, to, via, key(dim, p.src, p.msg))?;
                let q = self.occupancy(n, router, port as usize);
                if best.map_or(true, |b| q < b.0) {
                    best = Some((q, dim));
                }
            }
            best
        };
        let (min, non) = (best(NO_VIA)?, best(via)?);
        let minimal = self.codes_minimal(min.0, non.0);
        if minimal && source {
            p.dim = min.1;
        } else if !minimal {
            p.dim = non.1;
        }
        Some(minimal)
    }

    /// The Valiant intermediate of a packet from router `from` to node
    /// `dst`. A dragonfly: a group, uniform over those other than both ends'
    /// ([`NO_VIA`] when the route stays in one group, or no third group
    /// exists; under `ugal-codes` uniform over all but the source's, the
    /// destination's giving none, drawn for each packet as CODES's 1-D
    /// model draws it); CODES's
    /// `dragonfly_custom` ([`Dragonfly::via_router`]): a
    /// router, as [`Network::custom_via`] draws it. A torus, mesh or hypercube: a router, uniform over all
    /// (Valiant), or over the minimal quadrant of the two ends (ROMM). A
    /// Slim Fly: a router, uniform over all.
    pub(crate) fn via(&self, from: u32, dst: u32, ctx: &mut Ctx<'_, Self>) -> u16 {
        let d = match &self.topology {
            Topology::Dragonfly(d) => d,
            Topology::FatTree(_) => return NO_VIA,
            // Uniform over all routers, as CODES draws it (one that is the
            // source's router or the destination's is a minimal route).
            // UGAL draws its candidates as the packet leaves ([`Network::ugal_slimfly`]).
            Topology::SlimFly(s) if self.routing == Routing::Valiant => {
                let (v, to) = (ctx.rng(0).below(s.routers() as u64) as u32, dst / s.p);
                return if v == from || v == to || from == to { NO_VIA } else { v as u16 };
            }
            Topology::SlimFly(_) => return NO_VIA,
            cube if self.routing == Routing::Valiant => return ctx.rng(0).below(cube.routers() as u64) as u16,
            cube if self.routing == Routing::Romm => {
                let (count, pick) = cube.quadrant(from, dst);
                return pick(ctx.rng(0).below(count)) as u16;
            }
            _ => return NO_VIA,
        };
        if d.via_router() {
            return self.custom_via(d, from, dst / d.p, ctx);
        }
        let (gs, gd) = (d.group(from), d.group(dst / d.p));
        if self.routing == Routing::UgalCodes && gs != gd {
            return d.codes_1d_via(gs, gd, ctx.rng(0).below(d.g as u64 - 1) as u32);
        }
        if self.routing == Routing::Minimal || gs == gd || d.g < 3 {
            return NO_VIA;
        }
        let mut v = ctx.rng(0).below(d.g as u64 - 2) as u32;
        // Skip the two ends' groups, lower one first.
        for skip in [gs.min(gd), gs.max(gd)] {
            v += (v >= skip) as u32;
        }
        v as u16
    }

    /// CODES's `dragonfly_custom` intermediate router for a packet from
    /// router `from` to router `to` ([`Dragonfly::custom_via`] of a draw
    /// uniform below [`Dragonfly::custom_via_draws`]); none under minimal
    /// routing or between nodes of one router.
    pub(crate) fn custom_via(&self, d: &Dragonfly, from: u32, to: u32, ctx: &mut Ctx<'_, Self>) -> u16 {
        if self.routing == Routing::Minimal || from == to {
            return NO_VIA;
        }
        d.custom_via(from, to, ctx.rng(0).below(d.custom_via_draws(from, to) as u64) as u32)
    }
}

#[cfg(test)]
#[path = "custom_tests.rs"]
mod custom_tests;

#[cfg(test)]
#[path = "codes_1d_tests.rs"]
mod codes_1d_tests;
