//! The fat-tree against answers computed without the simulator: switch and
//! node counts from the construction's closed forms (and Summit's published
//! 504 switches, 3,564 nodes), link symmetry, every up/down route of both
//! routings, exact zero-load latency of every pair, mean hops from the
//! closed form, throughput against the bisection and pruning bounds, and
//! conservation.
//!
//! Hop counts here come from node arithmetic (same leaf: 0; same pod of `k²`
//! nodes: 2; otherwise across the top: `2 (levels − 1)`), not from the
//! routing code.

use crate::network::tests::{assert_saturated_but_sound, go};
use crate::network::*;

fn tree(radix: u32, levels: u32, nodes: u32, up: Option<u32>) -> FatTree {
    FatTree::new(radix, levels, nodes, up).unwrap()
}

/// Small trees: full 3 levels (radix 4 and 6), a partial 3-level one,
/// full 2 levels, and pruned ones (fewer nodes, fewer up links).
fn shapes() -> Vec<FatTree> {
    vec![
        tree(4, 3, 16, None),
        tree(6, 3, 54, None),
        tree(6, 3, 27, None),
        tree(8, 2, 32, None),
        tree(8, 2, 20, None),
        tree(8, 2, 32, Some(2)),
        tree(8, 3, 48, Some(2)),
    ]
}

/// Switch-to-switch hops between nodes `s` and `d`, by the test's own arithmetic.
fn hops(f: &FatTree, s: u32, d: u32) -> u32 {
    let k = f.k;
    if s / k == d / k {
        0
    } else if f.levels == 3 && s / (k * k) == d / (k * k) {
        2
    } else {
        2 * (f.levels - 1)
    }
}

#[test]
fn switch_and_node_counts_follow_the_closed_forms_and_summit() {
    for k in 1..=6 {
        // Full three levels: 2k³ nodes, 2k² leaves + 2k² aggregation + k² core.
        let f = tree(2 * k, 3, 2 * k * k * k, None);
        assert_eq!((f.nodes(), f.switches()), (2 * k * k * k, 5 * k * k), "k = {k}");
        // Full two levels: 2k² nodes, 2k leaves + k spines.
        let f = tree(2 * k, 2, 2 * k * k, None);
        assert_eq!((f.nodes(), f.switches()), (2 * k * k, 3 * k), "k = {k}");
    }
    // Summit (Wolfe et al. 2017): 36-port switches, 3 levels, 3,564 nodes, 504 switch LPs.
    let s = tree(36, 3, 3564, None);
    assert_eq!((s.nodes(), s.switches()), (3564, 504));
    assert_eq!((s.leaves, s.top * s.k), (198, 108));
    let t = Topology::FatTree(s);
    assert_eq!((t.nodes(), t.routers()), (3564, 504));
    assert_eq!((0..504).map(|r| t.nics(r)).sum::<u32>(), 3564);
}

#[test]
fn links_are_symmetric_and_every_top_switch_reaches_every_pod() {
    for f in shapes() {
        let t = Topology::FatTree(f);
        let mut links = 0;
        for a in 0..t.routers() {
            for p in 0..t.ports() {
                if let Some(b) = t.neighbour(a, p) {
                    assert_eq!(t.neighbour(b, t.peer_port(a, p)), Some(a), "{f:?} {a} port {p}");
                    assert_eq!(t.peer_port(b, t.peer_port(a, p)), p, "{f:?} {a} port {p}");
                    links += 1;
                }
            }
        }
        // Links (both directions): leaf–aggregation 2·W·k on three levels, and 2·S·u per top group.
        let groups = if f.levels == 3 { f.k } else { 1 };
        let subs = if f.levels == 3 { f.leaves / f.k } else { f.leaves };
        let lower = if f.levels == 3 { 2 * f.leaves * f.k } else { 0 };
        assert_eq!(links, lower + 2 * groups * subs * f.up, "{f:?}");
    }
}

/// Every route of `p` from switch `at` (every up port when `all_up`),
/// checking it climbs then descends; the hop counts of the routes that reach `dst`.
fn walk(f: &FatTree, at: u32, dst: u32, hops: u32, went_down: bool, all_up: bool, out: &mut Vec<u32>) {
    assert!(hops <= 2 * f.levels, "{f:?}: a route to {dst} loops");
    match f.hop(at, dst) {
        Hop::Eject(nic) => {
            assert_eq!(at * f.k + nic, dst, "{f:?}");
            out.push(hops);
        }
        Hop::Down(port) => {
            let (next, _) = f.neighbour(at, port).expect("a down port has a link");
            assert!(f.level(next) + 1 == f.level(at), "{f:?}: down from {at} to {next}");
            walk(f, next, dst, hops + 1, true, all_up, out);
        }
        Hop::Up { base, n, pick } => {
            assert!(!went_down, "{f:?}: up after down at {at} for {dst}");
            assert!((base..base + n).contains(&pick));
            let ports = if all_up { base..base + n } else { pick..pick + 1 };
            for port in ports {
                let (next, _) = f.neighbour(at, port).expect("an up port has a link");
                assert!(f.level(next) == f.level(at) + 1, "{f:?}: up from {at} to {next}");
                walk(f, next, dst, hops + 1, false, all_up, out);
            }
        }
    }
}

#[test]
fn every_route_climbs_to_the_lowest_common_ancestor_and_descends_to_the_destination() {
    for f in shapes() {
        for s in 0..f.nodes() {
            for d in 0..f.nodes() {
                for all_up in [false, true] {
                    let mut got = Vec::new();
                    walk(&f, s / f.k, d, 0, false, all_up, &mut got);
                    assert!(!got.is_empty());
                    assert!(got.iter().all(|&h| h == hops(&f, s, d)), "{f:?} {s}->{d}: {got:?}");
                }
                assert_eq!(f.leaf_hops(s / f.k, d / f.k), hops(&f, s, d));
            }
        }
    }
}

#[test]
fn the_closed_form_mean_hops_match_enumeration() {
    for f in shapes() {
        let n = f.nodes();
        let total: u64 = (0..n).flat_map(|s| (0..n).map(move |d| (s, d))).map(|(s, d)| hops(&f, s, d) as u64).sum();
        let mean = total as f64 / (n as f64 * (n as f64 - 1.0));
        assert!((mean - Topology::FatTree(f).mean_uniform_hops()).abs() < 1e-12, "{f:?}");
    }
}

fn fattree(f: FatTree, routing: Routing) -> Network {
    Network { topology: Topology::FatTree(f), routing, link_latency: 3.0, router_delay: 5.0, ..Network::default() }
}

#[test]
fn a_single_packet_takes_exactly_the_zero_load_latency_between_every_pair() {
    for f in [tree(4, 3, 16, None), tree(8, 2, 20, Some(2))] {
        for routing in [Routing::UpDown, Routing::UpDownAdaptive] {
            for switch in [Switch::InputBuffered, Switch::OutputBuffered] {
                for s in 0..f.nodes() {
                    for d in 0..f.nodes() {
                        let m = Network { probe: Some((s, d)), switch, ..fattree(f, routing) };
                        let r = go(&m, 1e6).results;
                        assert_eq!(r.delivered_packets, 1);
                        // (h + 2) L + (h + 1) R + S with L = 3, R = 5, S = 256 / 4, by hand.
                        let h = hops(&f, s, d) as f64;
                        let want = (h + 2.0) * 3.0 + (h + 1.0) * 5.0 + 64.0;
                        assert_eq!(want, m.zero_load_latency(hops(&f, s, d), 256));
                        assert_eq!(r.latency_mean, want, "{f:?} {routing:?} {switch:?} {s}->{d}");
                        assert_eq!(r.hops_mean, h);
                    }
                }
            }
        }
    }
}

#[test]
fn with_per_level_links_a_single_packet_takes_exactly_the_mixed_zero_load_latency() {
    // Terminal Bt = 8, Lt = 2; leaf–level 1: B1 = 2, L1 = 3; level 1–2: B2 = 1, L2 = 7 (3 levels).
    for (f, classes) in [(tree(4, 3, 16, None), 3), (tree(8, 2, 20, Some(2)), 2)] {
        let mut base = fattree(f, Routing::UpDown);
        base.classes[0] = LinkClass { bandwidth: Some(8.0), latency: Some(2.0), buffer_packets: None };
        base.classes[1] = LinkClass { bandwidth: Some(2.0), latency: Some(3.0), buffer_packets: Some(3) };
        if classes == 3 {
            base.classes[2] = LinkClass { bandwidth: Some(1.0), latency: Some(7.0), buffer_packets: Some(5) };
        }
        for switch in [Switch::InputBuffered, Switch::OutputBuffered] {
            for s in 0..f.nodes() {
                for d in 0..f.nodes() {
                    let m = Network { probe: Some((s, d)), switch, ..base.clone() };
                    let r = go(&m, 1e6).results;
                    // 2 Lt + 2 (L1 + .. + LM) + (h + 1) R + bytes / min(Bt, B1 .. BM), M = h / 2, by hand.
                    let h = hops(&f, s, d);
                    let (links, slowest) = match h / 2 {
                        0 => (0.0, 8.0),
                        1 => (2.0 * 3.0, 2.0),
                        _ => (2.0 * (3.0 + 7.0), 1.0),
                    };
                    let want = 2.0 * 2.0 + links + (h as f64 + 1.0) * 5.0 + 256.0 / slowest;
                    assert_eq!(r.latency_mean, want, "{f:?} {switch:?} {s}->{d}");
                    assert_eq!(m.zero_load_latency(h, 256), want);
                }
            }
        }
    }
}

#[test]
fn mean_hops_under_uniform_traffic_match_the_closed_form() {
    for f in [tree(8, 3, 128, None), tree(8, 2, 32, None)] {
        let want = Topology::FatTree(f).mean_uniform_hops();
        for routing in [Routing::UpDown, Routing::UpDownAdaptive] {
            let r = go(&Network { load: 0.3, ..fattree(f, routing) }, 40_000.0).results;
            let se = r.hops_std / (r.measured_packets as f64).sqrt();
            assert!(r.measured_packets > 5000);
            assert!((r.hops_mean - want).abs() < 4.0 * se, "{f:?} {routing:?}: {} vs {want} (se {se})", r.hops_mean);
        }
    }
}

/// Accepted throughput at offered load 0.9 in the window [5 µs, 20 µs).
fn accepted(f: FatTree, routing: Routing, switch: Switch) -> f64 {
    let m = Network { switch, load: 0.9, buffer_packets: 8, warmup: 5_000.0, ..fattree(f, routing) };
    let r = go(&m, 20_000.0).results;
    assert_eq!(r.injected_packets, r.delivered_packets + r.in_flight_packets);
    r.accepted_throughput
}

#[test]
fn full_bisection_carries_uniform_traffic_and_pruning_caps_it_at_its_ratio() {
    // Full 3-level tree of radix 8 (128 nodes): no link bound below 1.
    let full = tree(8, 3, 128, None);
    for switch in [Switch::InputBuffered, Switch::OutputBuffered] {
        let a = accepted(full, Routing::UpDownAdaptive, switch);
        assert!(a >= 0.8, "{switch:?} full, adaptive: {a}");
    }
    // 2 levels, radix 8, 8 leaves of 4 nodes, 2 of 4 up links (2:1): the 28/31
    // of a leaf's traffic bound elsewhere shares 2 links among its 4 nodes, and
    // each NIC injects its FIFO queue in order, so accepted ≤ (2/4) · 31/28.
    let pruned = tree(8, 2, 32, Some(2));
    let bound = 0.5 * 31.0 / 28.0;
    for routing in [Routing::UpDown, Routing::UpDownAdaptive] {
        for switch in [Switch::InputBuffered, Switch::OutputBuffered] {
            let a = accepted(pruned, routing, switch);
            // Close to it: head-of-line blocking costs the input-buffered switch more.
            let floor = if switch == Switch::OutputBuffered { 0.9 } else { 0.8 };
            assert!(a <= bound + 0.01 && a >= floor * bound, "{routing:?} {switch:?} pruned: {a} vs {bound}");
        }
    }
}

#[test]
fn packets_are_conserved_buffers_never_overflow_and_nothing_deadlocks() {
    for routing in [Routing::UpDown, Routing::UpDownAdaptive] {
        for switch in [Switch::InputBuffered, Switch::OutputBuffered] {
            for (vcs, buffer_packets) in [(1, 1), (2, 3)] {
                let m = Network {
                    switch,
                    vcs,
                    buffer_packets,
                    load: 0.9,
                    warmup: 5_000.0,
                    ..fattree(tree(6, 3, 54, Some(2)), routing)
                };
                let r = go(&m, 10_000.0).results;
                let what = format!("{routing:?} {switch:?} vcs {vcs} buffers {buffer_packets}");
                assert_saturated_but_sound(&r, buffer_packets, &what);
            }
        }
    }
}

#[test]
fn impossible_shapes_and_foreign_routings_are_refused_with_the_option_to_fix() {
    for (shape, want) in [
        ((7, 3, 27, None), "--radix must be even"),
        ((0, 3, 27, None), "--radix must be even"),
        ((6, 0, 27, None), "--levels of a fat-tree must be 2 or 3"),
        ((6, 4, 27, None), "--levels of a fat-tree must be 2 or 3"),
        ((6, 3, 28, None), "multiple of radix / 2 = 3"),
        ((6, 3, 12, None), "multiple of 9"),
        ((6, 3, 63, None), "too many for 3 levels of radix 6 (at most 54"),
        ((6, 2, 21, None), "too many for 2 levels of radix 6 (at most 18"),
        ((6, 2, 18, Some(4)), "--top-uplinks must be between 1 and radix / 2 = 3"),
        ((6, 2, 18, Some(0)), "--top-uplinks"),
        ((172, 2, 86, None), "--radix 172 is too large"),
    ] {
        let (radix, levels, nodes, up) = shape;
        let e = FatTree::new(radix, levels, nodes, up).unwrap_err();
        assert!(e.contains(want), "{shape:?}: {e}");
    }
    let f = tree(4, 3, 16, None);
    for (m, want) in [
        (fattree(f, Routing::Minimal), "--routing minimal is not for a fat-tree"),
        (fattree(f, Routing::Adaptive), "a fattree routes updown or updown-adaptive"),
        (fattree(f, Routing::DimensionOrder), "--routing dimension-order is not for a fat-tree"),
        (Network { routing: Routing::UpDown, ..Network::default() }, "--routing updown is for --topology fattree"),
        (
            Network {
                routing: Routing::UpDownAdaptive,
                ..Network { topology: Topology::Hypercube(3), ..Network::default() }
            },
            "a hypercube routes dimension-order or adaptive",
        ),
    ] {
        let e = m.validate().unwrap_err();
        assert!(e.contains(want), "{m:?}: {e}");
    }
    assert!(fattree(f, Routing::UpDown).validate().is_ok());
    assert!(Network { vcs: 1, ..fattree(f, Routing::UpDownAdaptive) }.validate().is_ok());
}
