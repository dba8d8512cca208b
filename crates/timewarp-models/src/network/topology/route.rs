//! Routing a packet at a router: the cubes' dimension order (through
//! [`Topology::route`]), the dragonfly's minimal, Valiant and UGAL-L
//! routes, the fat-tree's up/down, and the occupancy adaptive choices
//! measure.

use timewarp::{Ctx, Random};

use super::{Dragonfly, FatTree, Hop, Topology, NO_VIA};
use crate::network::node::NO_DIM;
use crate::network::{Network, Node, Packet, Routing, Switch};

impl Network {
    /// Routes `p` at `node`: its output port, and its dateline class on
    /// that link (a dragonfly: its virtual channel, the hops taken so far).
    #[inline(always)]
    pub(crate) fn route(&self, n: &Node, node: u32, p: &mut Packet) {
        match &self.topology {
            Topology::Dragonfly(d) => return self.route_dragonfly(d, node, p),
            Topology::FatTree(f) => return self.route_fattree(f, n, node, p),
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
    #[inline(never)]
    pub(crate) fn route_dragonfly(&self, d: &Dragonfly, node: u32, p: &mut Packet) {
        if p.via != NO_VIA && d.group(node) == p.via as u32 {
            p.via = NO_VIA;
        }
        match d.step(node, p.dst / d.p, p.via) {
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
        p.out = match f.hop(node, p.dst) {
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

    /// UGAL-L's measure of output `o` here: packets in the downstream
    /// buffers (buffer slots without a credit), heads waiting for it, and
    /// packets in its output buffers.
    pub(crate) fn occupancy(&self, n: &Node, r: u32, o: usize) -> u32 {
        let v = self.vcs as usize;
        let mut q = n.links[o].heads;
        let cap = self.buffer_of(r, o);
        for vc in 0..v {
            q += cap - n.input.lanes[o * v + vc].credits as u32;
            if self.switch == Switch::OutputBuffered {
                q += n.output.len(o * v + vc) as u32;
            }
        }
        q
    }

    /// UGAL-L at the source router, as packet `p` becomes the head of its
    /// injection queue: keeps its Valiant route through `p.via` only if
    /// `q_min · H_min > q_val · H_val`, and routes it again.
    /// On a fat-tree with updown-adaptive routing: chooses the first up port again, on the buffers now.
    #[inline(never)]
    pub(crate) fn ugal(&self, n: &Node, router: u32, p: &mut Packet) {
        if self.routing == Routing::UpDownAdaptive {
            return self.route(n, router, p);
        }
        let Topology::Dragonfly(d) = &self.topology else { return };
        if self.routing != Routing::Ugal || p.via == NO_VIA || p.hops > 0 {
            return;
        }
        let to = p.dst / d.p;
        let (min, val) = (d.step(router, to, NO_VIA), d.step(router, to, p.via));
        let (Some(min), Some(val)) = (min, val) else { return };
        let q_min = self.occupancy(n, router, min as usize) * d.hops(router, to, NO_VIA);
        let q_val = self.occupancy(n, router, val as usize) * d.hops(router, to, p.via);
        if q_min <= q_val {
            p.via = NO_VIA;
        }
        self.route(n, router, p);
    }

    /// The Valiant intermediate of a packet from router `from` to node
    /// `dst`. A dragonfly: a group, uniform over those other than both ends'
    /// ([`NO_VIA`] when the route stays in one group, or no third group
    /// exists). A torus, mesh or hypercube: a router, uniform over all.
    pub(crate) fn via(&self, from: u32, dst: u32, ctx: &mut Ctx<'_, Self>) -> u16 {
        let d = match &self.topology {
            Topology::Dragonfly(d) => d,
            Topology::FatTree(_) => return NO_VIA,
            cube if self.routing == Routing::Valiant => return ctx.rng(0).below(cube.routers() as u64) as u16,
            _ => return NO_VIA,
        };
        let (gs, gd) = (d.group(from), d.group(dst / d.p));
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
}
