//! The Slim Fly against answers computed without the simulator: CODES's
//! generator sets, the MMS degrees, hop counts by breadth-first search over
//! every pair of routers (diameter 2), exact zero-load latency of every
//! pair (minimal and Valiant), mean hops by enumeration, and throughput
//! below the channel-load bound of its minimal routes.

use crate::network::tests::go;
use crate::network::*;

/// Router hops from `a` to every router, by breadth-first search over the links.
fn bfs(t: &Topology, a: u32) -> Vec<u32> {
    let mut d = vec![u32::MAX; t.routers() as usize];
    d[a as usize] = 0;
    let mut q = std::collections::VecDeque::from([a]);
    while let Some(r) = q.pop_front() {
        for n in t.neighbours(r) {
            if d[n as usize] == u32::MAX {
                d[n as usize] = d[r as usize] + 1;
                q.push_back(n);
            }
        }
    }
    d
}

fn slimfly(q: u32, p: u32) -> SlimFly {
    SlimFly::new(q, p).unwrap()
}

#[test]
fn the_generator_sets_of_q_13_are_codes_sfly_3k_ones() {
    // sfly_3k.conf: generator_set_X=("1","10","9","12","3","4"), X'=("6","8","2","7","5","11").
    let s = slimfly(13, 9);
    assert_eq!(s.x, [1, 3, 4, 9, 10, 12]);
    assert_eq!(s.xp, [2, 5, 6, 7, 8, 11]);
    assert_eq!((s.routers(), s.ports()), (338, 19));
    let given = SlimFly::with_sets(13, 9, vec![1, 10, 9, 12, 3, 4], vec![6, 8, 2, 7, 5, 11]).unwrap();
    assert_eq!(given, s);
}

#[test]
fn links_are_symmetric_and_every_router_has_the_mms_degree() {
    for q in [3u32, 5, 7, 11, 13] {
        let s = slimfly(q, 1);
        // q = 4w + δ: (q − δ)/2 local links and q global ones.
        let delta: i64 = if q % 4 == 1 { 1 } else { -1 };
        let degree = ((3 * q as i64 - delta) / 2) as usize;
        assert_eq!(s.ports(), degree, "q {q}");
        let t = Topology::SlimFly(s.clone());
        for r in 0..t.routers() {
            assert_eq!(t.neighbours(r).len(), degree, "q {q} router {r}: no parallel links, no loops");
            for p in 0..t.ports() {
                let n = t.neighbour(r, p).unwrap();
                let back = t.peer_port(r, p);
                assert_eq!((t.neighbour(n, back), t.peer_port(n, back)), (Some(r), p), "q {q}: {r} port {p}");
                assert_eq!(s.is_global(p), s.coords(r).0 != s.coords(n).0, "q {q}: a global link joins the subgraphs");
            }
        }
    }
}

#[test]
fn hop_counts_match_breadth_first_search_over_every_pair_and_the_diameter_is_2() {
    for q in [3u32, 5, 7, 11] {
        let t = Topology::SlimFly(slimfly(q, 1));
        let mut far = 0;
        for a in 0..t.routers() {
            let d = bfs(&t, a);
            for b in 0..t.routers() {
                assert_eq!(t.distance(a, b), d[b as usize], "q {q}: {a} -> {b}");
                // Following the route's steps takes exactly that many hops.
                let (mut r, mut steps) = (a, 0);
                while let Some(s) = t.route(r, b) {
                    assert!(t.productive(r, b, s.port as usize));
                    r = t.neighbour(r, s.port as usize).unwrap();
                    steps += 1;
                }
                assert_eq!((r, steps), (b, d[b as usize]), "q {q}: {a} -> {b}");
                far = far.max(d[b as usize]);
            }
        }
        assert_eq!(far, 2, "q {q}: diameter");
    }
}

#[test]
fn mean_hops_under_uniform_traffic_match_exhaustive_enumeration() {
    for (q, p) in [(3, 2), (5, 3), (7, 1)] {
        let t = Topology::SlimFly(slimfly(q, p));
        let n = t.nodes();
        let total: u64 =
            (0..n).flat_map(|a| (0..n).map(move |b| (a, b))).map(|(a, b)| t.distance(a / p, b / p) as u64).sum();
        let mean = total as f64 / (n as f64 * (n as f64 - 1.0));
        assert!((mean - t.mean_uniform_hops()).abs() < 1e-12, "q {q}: {mean} vs {}", t.mean_uniform_hops());
    }
}

fn network(routing: Routing) -> Network {
    Network {
        topology: Topology::SlimFly(slimfly(3, 2)),
        routing,
        vcs: 4,
        link_latency: 3.0,
        global_link_latency: 3.0,
        router_delay: 5.0,
        ..Network::default()
    }
}

/// `(h + 2) L + (h + 1) R + S` with L = 3, R = 5, S = 256 / 4, by hand.
fn by_hand(h: u32) -> f64 {
    let h = h as f64;
    (h + 2.0) * 3.0 + (h + 1.0) * 5.0 + 64.0
}

#[test]
fn a_single_packet_takes_exactly_the_zero_load_latency_between_every_pair() {
    let base = network(Routing::Minimal);
    let n = base.topology.nodes();
    for s in 0..n {
        for d in 0..n {
            // Every pair of routers, the NICs rotating (a run is slow unoptimised).
            if cfg!(debug_assertions) && (s % 2 != (d / 2) % 2 || d % 2 != (s / 2) % 2) {
                continue;
            }
            let switch = if (s + d) % 2 == 0 { Switch::InputBuffered } else { Switch::OutputBuffered };
            let m = Network { probe: Some((s, d)), switch, ..base.clone() };
            let r = go(&m, 1e6).results;
            let h = bfs(&m.topology, s / 2)[(d / 2) as usize];
            let what = format!("{switch:?} {s} -> {d}");
            assert_eq!((r.delivered_packets, r.in_flight_packets), (1, 0), "{what}");
            assert_eq!(r.latency_max, by_hand(h), "{what}");
            assert_eq!(r.latency_mean, m.zero_load_latency(h, 256), "{what}");
            assert_eq!(r.hops_mean, h as f64, "{what}");
        }
    }
}

#[test]
fn a_valiant_packet_takes_the_zero_load_latency_of_its_route_through_a_random_router() {
    let mut longer = 0;
    for (s, d) in [(0u32, 35u32), (3, 20), (7, 8), (12, 30), (1, 2)] {
        for seed in 0..6 {
            let m = Network { probe: Some((s, d)), ..network(Routing::Valiant) };
            let r = timewarp::Run::new(&m, &timewarp::Config { end: 1e6, seed, ..timewarp::Config::default() })
                .execute()
                .unwrap()
                .results;
            let h = r.hops_mean as u32;
            assert_eq!(r.hops_mean, h as f64);
            assert!(h <= 4 && h >= bfs(&m.topology, s / 2)[(d / 2) as usize], "{s} -> {d}: {h} hops");
            assert_eq!(r.latency_max, by_hand(h), "{s} -> {d} seed {seed}");
            longer += (h > bfs(&m.topology, s / 2)[(d / 2) as usize]) as u32;
        }
    }
    assert!(longer > 0, "some Valiant routes go the long way");
}

/// The largest number of router pairs whose minimal route crosses one link
/// (the route's steps, enumerated over every ordered pair of routers).
fn max_link_pairs(t: &Topology) -> u32 {
    let mut count = vec![0u32; t.routers() as usize * t.ports()];
    for a in 0..t.routers() {
        for b in 0..t.routers() {
            let mut r = a;
            while let Some(s) = t.route(r, b) {
                count[r as usize * t.ports() + s.port as usize] += 1;
                r = t.neighbour(r, s.port as usize).unwrap();
            }
        }
    }
    count.into_iter().max().unwrap()
}

#[test]
fn uniform_traffic_saturates_below_the_channel_load_bound_of_the_minimal_routes() {
    // Each router pair carries p² / (N − 1) of a node's load per node pair;
    // the busiest link carries `max` router pairs: load ≤ (N − 1) / (p² max).
    let m = network(Routing::Minimal);
    let (n, p) = (m.topology.nodes() as f64, 2.0);
    let bound = (n - 1.0) / (p * p * max_link_pairs(&m.topology) as f64);
    let run_at = |load: f64, routing: Routing| {
        let m = Network { load, buffer_packets: 8, warmup: 2_000.0, ..network(routing) };
        go(&m, 12_000.0).results
    };
    let low = run_at(0.2, Routing::Minimal);
    assert!((low.accepted_throughput - low.measured_offered_load).abs() < 0.03, "{low:?}");
    for routing in [Routing::Minimal, Routing::Ugal] {
        let sat = run_at(1.0, routing);
        assert_eq!(sat.injected_packets, sat.delivered_packets + sat.in_flight_packets);
        assert!(sat.max_input_buffer <= 8 && sat.max_credits <= 8);
        if routing == Routing::Minimal {
            assert!(
                sat.accepted_throughput <= bound + 0.01,
                "{}: {} vs bound {bound}",
                routing.name(),
                sat.accepted_throughput
            );
        }
        assert!(sat.accepted_throughput > 0.3, "{}: still delivering: {}", routing.name(), sat.accepted_throughput);
    }
}

#[test]
fn meaningless_slim_flies_and_routings_are_refused() {
    assert!(SlimFly::new(9, 1).unwrap_err().contains("prime"));
    assert!(SlimFly::new(2, 1).unwrap_err().contains("prime"));
    assert!(SlimFly::with_sets(13, 1, vec![1, 2], vec![3, 4]).unwrap_err().contains("closed under negation"));
    let m = Network { routing: Routing::Par, ..network(Routing::Minimal) };
    assert!(m.validate().unwrap_err().contains("minimal, valiant or ugal"));
    let m = Network { vcs: 3, ..network(Routing::Valiant) };
    assert!(m.validate().unwrap_err().contains("--vcs 4"));
}
