//! The network's memory, estimated before it is built: what its routers,
//! NICs and queues hold on the heap ([`Model::state_heap_bytes`]), and how
//! far the NICs' source queues grow when the offered load is more than the
//! routers can carry away ([`Network::source_backlog`]).
//!
//! Calibrated against the peak resident memory of runs (docs/history/performance-2026-11.md,
//! "Memory"); the engine adds its LP records and events
//! ([`timewarp::memory::Estimate`]).

use std::mem::size_of;

use timewarp::Model;

use super::global_table::Global;
use super::node::{Lane, Link, Nic, Slot};
use super::packet::Packet;
use super::{Network, Routing, Topology};

/// What the allocator adds to each block (glibc: a 16-byte header, sizes
/// rounded up to 16).
const PER_BLOCK: u64 = 32;

/// A router's latency histogram at an ordinary load: a few dozen of its
/// buckets (histogram.rs), as `u32` counts.
const HISTOGRAM: u64 = 64 * 4;

/// Bytes per router that [`Model::state_heap_bytes`] counts.
pub(super) fn per_router(n: &Network) -> u64 {
    let (ports, outs) = (n.ports() as u64, n.outputs() as u64);
    let vcs = n.vcs as u64;
    let lanes = |queues: u64| queues * vcs * size_of::<Lane>() as u64 + PER_BLOCK;
    // What `init` gives each router: its input queues' positions on every
    // port and virtual channel (and its output queues' when output-buffered),
    // its links and its NICs.
    let output = if n.switch.output_queued() { lanes(outs) } else { 0 };
    let nics = (outs - ports) * size_of::<Nic>() as u64 + PER_BLOCK;
    let links = outs * size_of::<Link>() as u64 + PER_BLOCK;
    let global = match &n.topology {
        // UGAL-G's table: one entry per global channel of the group.
        Topology::Dragonfly(d) if n.routing == Routing::UgalG => {
            (size_of::<Global>() + d.a as usize * d.h as usize * 2) as u64 + 2 * PER_BLOCK
        }
        _ => 0,
    };
    // What a run adds: packet slots as packets are buffered (the slot
    // vectors double as they fill: about one slot per port at ordinary
    // loads, rounded up), the packets waiting at the NICs, the histogram.
    let slots = (ports + 1).next_power_of_two() * size_of::<Slot>() as u64 + PER_BLOCK;
    let waiting = (outs - ports) * 4 * size_of::<Packet>() as u64;
    lanes(ports) + output + links + nics + global + slots + waiting + HISTOGRAM + PER_BLOCK
}

impl Network {
    /// Packets that wait in the NICs' source queues at `end` at least,
    /// when the offered load is more than the routers' network links can
    /// carry away (0 when it is not): each of a router's NICs offers
    /// `load × terminal bandwidth` bytes per ns, and at most its share of
    /// all the router's network links' bandwidth leaves (an upper bound on
    /// what the network accepts, so this is a lower bound on the backlog).
    pub fn source_backlog(&self, end: f64) -> f64 {
        if !self.open() || self.load <= 0.0 || !end.is_finite() {
            return 0.0;
        }
        let offered = self.load * self.class_bandwidth(0);
        let nodes = self.topology.nodes() as f64;
        // Bandwidth out of all routers: every network port at the fastest
        // class's (an upper bound; a fat-tree's top ports go unused).
        let fastest = self.class_bandwidth(1).max(self.class_bandwidth(2));
        let out = self.topology.routers() as f64 * self.ports() as f64 * fastest;
        // A node's traffic to its own router's NICs needs no network link.
        let carried = out / nodes + self.class_bandwidth(0) * self.topology.terminals() as f64 / nodes;
        let excess = (offered - carried).max(0.0);
        excess * end / self.packet_bytes.min(self.message_bytes) as f64 * nodes
    }

    /// Bytes the backlog of [`source_backlog`](Self::source_backlog) holds
    /// (a source queue's packets, with the room its doubling leaves).
    pub fn source_backlog_bytes(&self, end: f64) -> f64 {
        self.source_backlog(end) * size_of::<Packet>() as f64 * 1.5
    }
}

/// [`Model::state_heap_bytes`] of `n`.
pub(super) fn state_heap_bytes(n: &Network) -> u64 {
    per_router(n).saturating_mul(n.num_lps() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::Dragonfly;

    fn torus(dims: Vec<u32>) -> Network {
        Network { topology: Topology::Torus(dims), ..Network::default() }
    }

    #[test]
    fn the_estimate_grows_with_the_network() {
        let mut last = 0;
        for side in [4, 16, 64, 256, 1024] {
            let b = state_heap_bytes(&torus(vec![side, side]));
            assert!(b > last, "{side}: {b} <= {last}");
            last = b;
        }
        let d = |a, p, h| Network {
            topology: Topology::Dragonfly(Dragonfly::new(a, p, h, a * h + 1)),
            vcs: 5,
            ..Network::default()
        };
        assert!(state_heap_bytes(&d(8, 4, 4)) < state_heap_bytes(&d(16, 8, 8)));
    }

    /// The whole estimate (the engine's part too) of a sequential run, in MB.
    fn estimate_mb(n: &Network) -> f64 {
        timewarp::memory::Estimate::of(n, &timewarp::Config::default(), 1).total() as f64 / 1e6
    }

    #[test]
    fn the_estimate_is_within_a_third_of_the_measured_peaks() {
        // docs/history/performance-2026-11.md, "Memory": peak resident memory of release
        // runs at the default load (0.1) to --end 1000 (hypercube: 2000).
        let d = |a, p, h| Network {
            topology: Topology::Dragonfly(Dragonfly::new(a, p, h, a * h + 1)),
            vcs: 5,
            routing: Routing::Minimal,
            ..Network::default()
        };
        let cases = [
            (torus(vec![300, 300]), 214.4),
            (torus(vec![100, 100]), 30.3),
            (Network { topology: Topology::Hypercube(15), ..Network::default() }, 114.5),
            (d(32, 16, 16), 206.8),
        ];
        for (n, measured) in cases {
            let e = estimate_mb(&n);
            assert!(
                e > measured * 0.7 && e < measured * 1.3,
                "{:?}: estimate {e:.1} MB, measured {measured} MB",
                n.topology
            );
        }
    }

    #[test]
    fn a_262656_node_dragonfly_fits_a_small_machine() {
        let n =
            Network { topology: Topology::Dragonfly(Dragonfly::new(32, 16, 16, 513)), vcs: 5, ..Network::default() };
        assert_eq!(n.topology.nodes(), 262_656);
        assert!(estimate_mb(&n) < 1000.0, "{}", estimate_mb(&n));
    }

    #[test]
    fn no_backlog_below_what_the_links_carry() {
        let mut n = torus(vec![16, 16]);
        n.load = 0.9;
        assert_eq!(n.source_backlog(1e6), 0.0);
        // A terminal link far faster than the network: the source queues grow.
        n.classes[0].bandwidth = Some(1e9);
        n.load = 0.1;
        let b = n.source_backlog(1000.0);
        assert!(b > 1e10, "{b}");
        assert!(n.source_backlog(2000.0) > b);
    }
}
