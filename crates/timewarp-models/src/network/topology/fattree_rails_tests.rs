//! Multi-rail fat-trees against answers computed without the simulator:
//! switch counts (R planes above shared leaf LPs), link symmetry, every
//! route staying on its rail with the single tree's hop count, exact
//! zero-load latency on every rail, and the bisection bound growing with the
//! rails.

use crate::network::tests::go;
use crate::network::*;

fn tree(radix: u32, levels: u32, nodes: u32, up: Option<u32>, rails: u32, select: RailSelect) -> FatTree {
    FatTree::new(radix, levels, nodes, up).unwrap().with_rails(rails, select).unwrap()
}

fn shapes() -> Vec<FatTree> {
    let d = RailSelect::Dedicated;
    vec![
        tree(4, 3, 16, None, 2, d),
        tree(6, 3, 27, None, 3, d),
        tree(8, 2, 20, Some(2), 2, d),
        tree(8, 3, 48, Some(2), 2, d),
    ]
}

/// The rail of switch `r` above the leaves (by the construction's numbering).
fn rail_of(f: &FatTree, one: &FatTree, r: u32) -> u32 {
    (r - f.leaves) / (one.switches() - one.leaves)
}

#[test]
fn r_rails_build_r_planes_above_shared_leaves_with_symmetric_links() {
    for f in shapes() {
        let one = FatTree { rails: 1, ..f };
        assert_eq!(f.switches(), f.leaves + f.rails * (one.switches() - one.leaves), "{f:?}");
        assert_eq!(f.ports(), (f.rails as usize + 1) * f.k as usize);
        let t = Topology::FatTree(f);
        let mut links = 0;
        for a in 0..t.routers() {
            for p in 0..t.ports() {
                if let Some(b) = t.neighbour(a, p) {
                    assert_eq!(t.neighbour(b, t.peer_port(a, p)), Some(a), "{f:?} {a} port {p}");
                    assert_eq!(t.peer_port(b, t.peer_port(a, p)), p, "{f:?} {a} port {p}");
                    // A leaf's up port k + j·k … is rail j's; switches above keep to their rail.
                    let rail = |r: u32, port: usize| {
                        if r < f.leaves {
                            (port as u32 - f.k) / f.k
                        } else {
                            rail_of(&f, &one, r)
                        }
                    };
                    assert_eq!(rail(a, p), rail(b, t.peer_port(a, p)), "{f:?} {a} port {p}");
                    links += 1;
                }
            }
        }
        let t1 = Topology::FatTree(one);
        let links1: usize =
            (0..t1.routers()).map(|a| (0..t1.ports()).filter(|&p| t1.neighbour(a, p).is_some()).count()).sum();
        assert_eq!(links, f.rails as usize * links1, "{f:?}: R copies of the tree's links");
    }
}

#[test]
fn every_route_stays_on_its_rail_with_the_single_trees_hop_count() {
    for f in shapes() {
        let one = FatTree { rails: 1, ..f };
        for rail in 0..f.rails {
            for s in 0..f.nodes() {
                for d in 0..f.nodes() {
                    let (mut at, mut hops) = (s / f.k, 0);
                    loop {
                        let port = match f.hop_on(at, d, rail) {
                            Hop::Eject(nic) => {
                                assert_eq!(at * f.k + nic, d);
                                break;
                            }
                            Hop::Down(p) | Hop::Up { pick: p, .. } => p,
                        };
                        at = f.neighbour(at, port).unwrap().0;
                        assert!(
                            at < f.leaves || rail_of(&f, &one, at) == rail,
                            "{f:?} rail {rail}: {s}->{d} left it at {at}"
                        );
                        hops += 1;
                        assert!(hops <= 2 * f.levels);
                    }
                    assert_eq!(hops, one.leaf_hops(s / f.k, d / f.k), "{f:?} rail {rail}: {s}->{d}");
                }
            }
        }
    }
}

#[test]
fn a_single_packet_takes_the_zero_load_latency_on_every_rail_and_selection() {
    for select in [RailSelect::Dedicated, RailSelect::Adaptive, RailSelect::Random] {
        let f = tree(4, 3, 16, None, 2, select);
        for s in 0..f.nodes() {
            for d in (0..f.nodes()).step_by(3) {
                let m = Network {
                    topology: Topology::FatTree(f),
                    routing: Routing::UpDown,
                    link_latency: 3.0,
                    router_delay: 5.0,
                    probe: Some((s, d)),
                    ..Network::default()
                };
                let r = go(&m, 1e6).results;
                let h = f.leaf_hops(s / f.k, d / f.k);
                assert_eq!(r.delivered_packets, 1);
                assert_eq!(
                    r.latency_mean,
                    (h as f64 + 2.0) * 3.0 + (h as f64 + 1.0) * 5.0 + 64.0,
                    "{select:?} {s}->{d}"
                );
                assert_eq!(r.hops_mean, h as f64);
            }
        }
    }
}

#[test]
fn rails_multiply_a_pruned_trees_bisection_bound() {
    // Radix 8, 2 levels, 8 leaves of 4 nodes, one up link per leaf and rail:
    // a leaf's 4 nodes send 28/31 of their load across the top, over R links:
    // load ≤ R / 4 · 31 / 28 (0.277 on one rail, 0.554 on two).
    let accepted = |rails: u32, select: RailSelect| {
        let f = tree(8, 2, 32, Some(1), rails, select);
        let m = Network {
            topology: Topology::FatTree(f),
            routing: Routing::UpDown,
            load: 0.9,
            buffer_packets: 8,
            warmup: 3_000.0,
            ..Network::default()
        };
        let r = go(&m, 15_000.0).results;
        assert_eq!(r.injected_packets, r.delivered_packets + r.in_flight_packets);
        r.accepted_throughput
    };
    let one = accepted(1, RailSelect::Dedicated);
    assert!(one <= 0.25 * 31.0 / 28.0 + 0.01, "one rail: {one}");
    for select in [RailSelect::Dedicated, RailSelect::Adaptive, RailSelect::Random] {
        let two = accepted(2, select);
        assert!(two <= 0.5 * 31.0 / 28.0 + 0.01, "{select:?}: {two}");
        assert!(two > 1.5 * one, "{select:?}: two rails carry more: {two} vs {one}");
    }
}

#[test]
fn a_node_takes_packets_off_every_rail_at_once() {
    // Terminal links twice as fast as the tree's: a node's one NIC link
    // stands for its two rail links. A packet's tail comes off the tree at
    // the tree links' rate, so one ejection link at a time would cap a node
    // at 4 bytes/ns (load 0.5 of 8); two rails at load 0.7 deliver it all.
    let f = tree(8, 2, 32, None, 2, RailSelect::Random);
    let m = Network {
        topology: Topology::FatTree(f),
        routing: Routing::UpDownAdaptive,
        load: 0.7,
        buffer_packets: 8,
        warmup: 3_000.0,
        classes: [
            LinkClass { bandwidth: Some(8.0), ..LinkClass::default() },
            LinkClass::default(),
            LinkClass::default(),
        ],
        ..Network::default()
    };
    let r = go(&m, 15_000.0).results;
    assert!(r.accepted_throughput > 0.6, "{}", r.accepted_throughput);
}
