//! Dragonfly+ (leaves and spines per group), from CODES's `dfp-test`
//! files and from its standard arrangement: the wiring against the
//! files' counts, every route against breadth-first search, a lone
//! packet's latency against the closed form, saturation below the global
//! channel-load bound.

use std::collections::VecDeque;
use std::path::PathBuf;

use super::connections::Wiring;
use super::{Dragonfly, Topology, NO_VIA};
use crate::network::tests::{assert_saturated_but_sound, go};
use crate::network::{LinkClass, Network, Routing, Traffic};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../timewarp-cli/tests/data/codes").join(name)
}

/// CODES's `dfp-test`: 5 groups of 4 leaves (4 terminals each) and 4 spines (4 global links each).
fn dfp_test() -> Dragonfly {
    let w = Wiring::read_plus(&data("dfp-test-intra"), &data("dfp-test-inter"), 8, 5, 4).unwrap();
    Dragonfly::wired(8, 4, 5, w)
}

fn bfs(d: &Dragonfly, s: u32) -> Vec<u32> {
    let mut dist = vec![u32::MAX; d.routers() as usize];
    dist[s as usize] = 0;
    let mut q = VecDeque::from([s]);
    while let Some(r) = q.pop_front() {
        for port in 0..d.ports() {
            if let Some((t, _)) = d.link(r, port) {
                if dist[t as usize] == u32::MAX {
                    dist[t as usize] = dist[r as usize] + 1;
                    q.push_back(t);
                }
            }
        }
    }
    dist
}

#[test]
fn leaves_carry_the_terminals_and_join_every_spine_and_spines_carry_the_global_links() {
    for (d, leaves, spines, h) in [(dfp_test(), 4, 4, 4), (Dragonfly::plus(3, 2, 2, 2, 5).unwrap(), 3, 2, 2)] {
        let t = Topology::Dragonfly(d.clone());
        let g = d.g;
        assert_eq!(t.nodes(), g * leaves * d.p, "{d:?}");
        let mut between = vec![0; (g * g) as usize];
        for r in 0..d.routers() {
            let leaf = r < leaves * g;
            assert_eq!(t.nics(r), if leaf { d.p } else { 0 }, "router {r}");
            assert_eq!(d.group(r), if leaf { r / leaves } else { (r - leaves * g) / spines }, "router {r}");
            let (mut local, mut global) = (Vec::new(), 0);
            for port in 0..d.ports() {
                let Some((s, back)) = d.link(r, port) else { continue };
                assert_eq!(d.link(s, back), Some((r, port)), "router {r} port {port}");
                if d.is_global(port) {
                    assert!(!leaf && s >= leaves * g, "a global link joins spines: {r} -> {s}");
                    global += 1;
                    between[(d.group(r) * g + d.group(s)) as usize] += 1;
                } else {
                    assert_eq!(d.group(s), d.group(r));
                    assert_ne!(leaf, s < leaves * g, "a local link joins a leaf and a spine: {r} -> {s}");
                    local.push(s);
                }
            }
            local.sort_unstable();
            local.dedup();
            assert_eq!(
                local.len() as u32,
                if leaf { spines } else { leaves },
                "router {r}: every router of the other kind"
            );
            assert_eq!(global, if leaf { 0 } else { h }, "router {r}");
        }
        // A group's spines·h global links, spread evenly over the other groups.
        for x in 0..g {
            for y in 0..g {
                assert_eq!(between[(x * g + y) as usize], if x == y { 0 } else { spines * h / (g - 1) }, "{x} -> {y}");
            }
        }
    }
}

#[test]
fn every_route_between_leaves_is_a_shortest_path() {
    for d in [dfp_test(), Dragonfly::plus(3, 2, 2, 2, 5).unwrap()] {
        let leaves = d.leaves().unwrap() * d.g;
        for r in 0..leaves {
            let dist = bfs(&d, r);
            for t in 0..leaves {
                for k in 0..4u64 {
                    // Leaf to leaf: 2 hops in a group, leaf–spine–spine–leaf between groups.
                    let h = d.hops_keyed(r, t, NO_VIA, k * 0x9e37_79b9);
                    assert_eq!(h, dist[t as usize], "{r} -> {t}");
                    assert_eq!(
                        h,
                        if r == t {
                            0
                        } else if d.group(r) == d.group(t) {
                            2
                        } else {
                            3
                        },
                        "{r} -> {t}"
                    );
                }
            }
        }
    }
}

fn net(routing: Routing) -> Network {
    Network {
        topology: Topology::Dragonfly(dfp_test()),
        routing,
        vcs: 10,
        link_latency: 3.0,
        global_link_latency: 11.0,
        router_delay: 5.0,
        ..Network::default()
    }
}

#[test]
fn a_single_packet_takes_the_zero_load_latency_between_every_pair_of_nodes() {
    let every = if cfg!(debug_assertions) { 7 } else { 1 };
    for routing in [Routing::Minimal, Routing::Valiant, Routing::NonMinimalLeaf] {
        for s in 0..80 {
            for t in (s % every..80).step_by(every as usize) {
                let m = Network { probe: Some((s, t)), ..net(routing) };
                let r = go(&m, 1e6).results;
                let what = format!("{routing:?} {s} -> {t}");
                assert_eq!((r.delivered_packets, r.in_flight_packets), (1, 0), "{what}");
                let (same_router, same_group) = (s / 4 == t / 4, s / 16 == t / 16);
                let global = match (same_group, routing) {
                    (true, _) => 0,
                    (false, Routing::Minimal) => 1,
                    _ => 2,
                };
                let hops = r.hops_mean as u32;
                if routing == Routing::Minimal {
                    assert_eq!(hops, [if same_group { 2 } else { 3 }, 0][same_router as usize], "{what}");
                }
                assert_eq!(r.latency_max, m.zero_load_latency_dragonfly(hops - global, global, 256), "{what}");
            }
        }
    }
}

/// A group's 16 nodes send 64/79 of their load out over its 16 global
/// links: at most `B_g / (B_t · 64/79)` is accepted.
#[test]
fn uniform_traffic_saturates_below_the_global_channel_load_bound() {
    let bound = 1.0 / (4.0 * 64.0 / 79.0);
    for routing in [Routing::Minimal, Routing::Par] {
        let mut classes = [LinkClass::default(); 3];
        classes[2].bandwidth = Some(1.0);
        let m = Network {
            traffic: Traffic::Uniform,
            load: 0.9,
            link_bandwidth: 4.0,
            classes,
            buffer_packets: 4,
            warmup: 5_000.0,
            ..net(routing)
        };
        let r = go(&m, 30_000.0).results;
        let what = format!("{routing:?}");
        assert_saturated_but_sound(&r, 4, &what);
        assert!(r.accepted_throughput <= 1.02 * bound, "{what}: {} above {bound}", r.accepted_throughput);
        assert!(r.accepted_throughput >= 0.6 * bound, "{what}: {} far below {bound}", r.accepted_throughput);
    }
}
