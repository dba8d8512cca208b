//! Tapered fat-trees (CODES's `tapering`) and adaptive rail selection's
//! size limit (CODES's `rail_select_limit`) against answers computed
//! without the simulator: switch counts from CODES's own arithmetic in
//! `fattree.c` (`fattree_read_config`), link symmetry, every up/down route
//! against hop counts from node arithmetic, exact zero-load latency of every
//! pair, mean hops, and uniform throughput against the tapered leaves'
//! channel-load bound.

use crate::network::tests::go;
use crate::network::*;

fn tree(radix: u32, levels: u32, nodes: u32, t: f64) -> FatTree {
    FatTree::tapered(radix, levels, nodes, None, t).unwrap()
}

/// Small tapered trees: T = 2 on radix 6 (4 nodes, 2 up links a leaf) on
/// two and three levels, T = 3 on radix 8 (6 nodes, 2 up links).
fn shapes() -> Vec<FatTree> {
    vec![tree(6, 3, 24, 2.0), tree(6, 3, 72, 2.0), tree(6, 2, 16, 2.0), tree(8, 2, 48, 3.0), tree(8, 3, 48, 3.0)]
}

/// Switch-to-switch hops between nodes `s` and `d` by node arithmetic: `d`
/// nodes a leaf, `k` leaves a pod.
fn hops(f: &FatTree, s: u32, d: u32) -> u32 {
    let per = 2 * f.k * f.tapering() as u32 / (f.tapering() as u32 + 1);
    if s / per == d / per {
        0
    } else if f.levels == 3 && s / (f.k * per) == d / (f.k * per) {
        2
    } else {
        2 * (f.levels - 1)
    }
}

#[test]
fn switch_counts_follow_codes_arithmetic_for_its_tapered_dual_plane_tree() {
    // dual-plane-fattree-tapered.conf: radix 36, tapering 2, 198 leaves of 24 nodes.
    let (radix, tr, leaves) = (36u32, 3u32, 198u32);
    let f = tree(radix, 3, leaves * 24, 2.0);
    // fattree.c: l0_term_size = (tr − 1)·(radix / tr), l1_set_size = radix / tr,
    // Np = leaves / (radix / 2), num_switches[1] = Np · l1_set_size; rep = radix / Np
    // lowered until it divides l1_set_size, num_switches[2] = l1_set_size / rep · radix / 2.
    let (np, l1) = (leaves / (radix / 2), radix / tr);
    let mut rep = radix / np;
    while l1 % rep != 0 {
        rep -= 1;
    }
    let (aggs, cores) = (np * l1, l1 / rep * radix / 2);
    assert_eq!((f.per_leaf(), f.leaf_up(), f.tapering()), ((tr - 1) * (radix / tr), l1, 2.0));
    assert_eq!((f.nodes(), f.switches()), (4752, leaves + aggs + cores));
    assert_eq!((aggs, cores), (132, 72));
    let t = Topology::FatTree(f);
    assert_eq!((0..t.routers()).map(|r| t.nics(r)).sum::<u32>(), 4752);
    // Tapering 1 is the plain tree, field for field.
    assert_eq!(FatTree::tapered(36, 3, 3564, None, 1.0).unwrap(), FatTree::new(36, 3, 3564, None).unwrap());
}

#[test]
fn links_are_symmetric_and_count_as_the_construction_says() {
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
        // Both directions: leaf–aggregation 2·W·e on three levels; 2·S·u per top group (e groups).
        let e = f.leaf_up();
        let (groups, subs, lower) =
            if f.levels == 3 { (e, f.leaves / f.k, 2 * f.leaves * e) } else { (1, f.leaves, 0) };
        assert_eq!(links, lower + 2 * groups * subs * f.up, "{f:?}");
    }
}

/// Every route from switch `at` to node `dst` (every up port), its hop counts.
fn walk(f: &FatTree, at: u32, dst: u32, hops: u32, down: bool, out: &mut Vec<u32>) {
    assert!(hops <= 2 * f.levels, "{f:?}: a route to {dst} loops");
    match f.hop(at, dst) {
        Hop::Eject(nic) => {
            assert_eq!(at * f.per_leaf() + nic, dst, "{f:?}");
            out.push(hops);
        }
        Hop::Down(port) => {
            let (next, _) = f.neighbour(at, port).expect("a down port has a link");
            assert_eq!(f.level(next) + 1, f.level(at), "{f:?}");
            walk(f, next, dst, hops + 1, true, out);
        }
        Hop::Up { base, n, pick } => {
            assert!(!down && (base..base + n).contains(&pick), "{f:?} at {at} for {dst}");
            for port in base..base + n {
                let (next, _) = f.neighbour(at, port).expect("an up port has a link");
                assert_eq!(f.level(next), f.level(at) + 1, "{f:?}");
                walk(f, next, dst, hops + 1, false, out);
            }
        }
    }
}

#[test]
fn every_route_matches_the_hop_count_of_exact_enumeration_and_the_mean_its_closed_form() {
    for f in shapes() {
        let n = f.nodes();
        let mut total = 0u64;
        for s in 0..n {
            for d in 0..n {
                let mut got = Vec::new();
                walk(&f, s / f.per_leaf(), d, 0, false, &mut got);
                assert!(!got.is_empty() && got.iter().all(|&h| h == hops(&f, s, d)), "{f:?} {s}->{d}: {got:?}");
                assert_eq!(f.leaf_hops(s / f.per_leaf(), d / f.per_leaf()), hops(&f, s, d));
                total += hops(&f, s, d) as u64;
            }
        }
        let mean = total as f64 / (n as f64 * (n as f64 - 1.0));
        assert!((mean - Topology::FatTree(f).mean_uniform_hops()).abs() < 1e-12, "{f:?}");
    }
}

fn fattree(f: FatTree, routing: Routing) -> Network {
    Network { topology: Topology::FatTree(f), routing, link_latency: 3.0, router_delay: 5.0, ..Network::default() }
}

#[test]
fn a_single_packet_takes_exactly_the_zero_load_latency_between_every_pair() {
    for f in [tree(6, 3, 24, 2.0), tree(6, 2, 16, 2.0)] {
        for routing in [Routing::UpDown, Routing::UpDownAdaptive] {
            for s in 0..f.nodes() {
                for d in (0..f.nodes()).filter(|d| cfg!(not(debug_assertions)) || (s + d) % 3 == 0) {
                    let m = Network { probe: Some((s, d)), ..fattree(f, routing) };
                    let r = go(&m, 1e6).results;
                    // (h + 2) L + (h + 1) R + S with L = 3, R = 5, S = 256 / 4, by hand.
                    let h = hops(&f, s, d);
                    let want = (h as f64 + 2.0) * 3.0 + (h as f64 + 1.0) * 5.0 + 64.0;
                    assert_eq!(
                        (r.delivered_packets, r.latency_mean, r.hops_mean),
                        (1, want, h as f64),
                        "{f:?} {s}->{d}"
                    );
                    assert_eq!(m.zero_load_latency(h, 256), want);
                }
            }
        }
    }
}

#[test]
fn uniform_traffic_saturates_below_the_tapered_leaves_channel_load_bound() {
    // Radix 8, T = 3, 2 levels, 8 leaves of 6 nodes, 2 up links each: the
    // (N − d)/(N − 1) = 42/47 of a leaf's traffic bound elsewhere shares 2
    // links among its 6 nodes, so accepted ≤ (2/6) · 47/42.
    let f = tree(8, 2, 48, 3.0);
    let bound = 2.0 / 6.0 * 47.0 / 42.0;
    for routing in [Routing::UpDown, Routing::UpDownAdaptive] {
        let m = Network { load: 0.9, buffer_packets: 8, warmup: 5_000.0, ..fattree(f, routing) };
        let r = go(&m, 20_000.0).results;
        assert_eq!(r.injected_packets, r.delivered_packets + r.in_flight_packets);
        let a = r.accepted_throughput;
        assert!(a <= bound + 0.01 && a >= 0.8 * bound, "{routing:?}: {a} vs {bound}");
    }
}

#[test]
fn tapered_rails_keep_every_route_on_the_rail_chosen() {
    let f = tree(6, 3, 24, 2.0).with_rails(2, RailSelect::Dedicated).unwrap();
    // 6 leaves; each rail: 2 pods × 2 aggregation switches, and 2 groups of one core (3 up links, 2 pods).
    assert_eq!(f.switches(), 6 + 2 * (4 + 2));
    for s in 0..f.nodes() {
        for d in 0..f.nodes() {
            for rail in 0..2 {
                let (mut at, mut h) = (s / f.per_leaf(), 0);
                loop {
                    let port = match f.hop_on(at, d, rail) {
                        Hop::Eject(nic) => break assert_eq!(at * f.per_leaf() + nic, d),
                        Hop::Down(p) => p,
                        Hop::Up { pick, .. } => pick,
                    };
                    at = f.neighbour(at, port).expect("a link").0;
                    h += 1;
                    assert!(at < f.leaves || (at - f.leaves) / 6 == rail, "{s}->{d} rail {rail} at {at}");
                }
                assert_eq!(h, hops(&f, s, d));
            }
        }
    }
}

#[test]
fn adaptive_rail_selection_weighs_only_messages_above_the_limit() {
    let f = tree(8, 2, 32, 1.0);
    let run = |select, limit| {
        let f = f.with_rails(2, select).unwrap().with_select_limit(limit);
        let m = Network { load: 0.8, message_bytes: 1024, warmup: 2_000.0, ..fattree(f, Routing::UpDown) };
        format!("{:?}", go(&m, 8_000.0).results)
    };
    let dedicated = run(RailSelect::Dedicated, CODES_RAIL_SELECT_LIMIT);
    // 1 KiB messages: under the limit (CODES's default, or exactly 1,024) they keep the dedicated rail.
    assert_eq!(run(RailSelect::Adaptive, CODES_RAIL_SELECT_LIMIT), dedicated);
    assert_eq!(run(RailSelect::Adaptive, 1024), dedicated);
    // Above it they are weighed: another spread of the load.
    assert_ne!(run(RailSelect::Adaptive, 1023), dedicated);
}

#[test]
fn impossible_tapering_is_refused_with_the_reason() {
    for (t, want) in [(0.5, "T be at least 1"), (4.0, "T + 1 must divide the radix"), (f64::NAN, "--tapering NaN")] {
        let e = FatTree::tapered(36, 3, 3564, None, t).unwrap_err();
        assert!(e.contains(want), "{t}: {e}");
    }
    assert!(FatTree::tapered(36, 3, 3564, None, 2.0).unwrap_err().contains("multiple of T·radix/(T + 1) = 24"));
    let e = FatTree::tapered(6, 2, 16, Some(3), 2.0).unwrap_err();
    assert!(e.contains("between 1 and a tapered leaf's 2 up links"), "{e}");
}
