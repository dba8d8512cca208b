//! A Slim Fly's UGAL as CODES's `slimfly.c` does it (`do_adaptive_routing`):
//! four random intermediates, each weighed by its next output's occupancy
//! × its hops, against the minimal route; ties to the minimal route.

use crate::network::node::{Nic, Node};
use crate::network::plus::tests::idle;
use crate::network::tests::go;
use crate::network::*;

fn network(routing: Routing) -> Network {
    Network {
        topology: Topology::SlimFly(SlimFly::new(3, 2).unwrap()),
        routing,
        vcs: 4,
        link_latency: 3.0,
        global_link_latency: 3.0,
        router_delay: 5.0,
        ..Network::default()
    }
}

#[test]
fn four_candidates_as_codes_draws_them() {
    assert_eq!(SFLY_UGAL_CANDIDATES, 4);
    let s = SlimFly::new(3, 2).unwrap();
    let n = s.routers();
    for from in 0..n {
        for to in 0..n {
            for v in 0..n {
                let c = s.ugal_candidate(v, from, to);
                // CODES: `(v + 1) % (N − 1)` if v is the destination's router, then again if the source's.
                let mut want = v;
                if want == to {
                    want = (want + 1) % (n - 1);
                }
                if want == from {
                    want = (want + 1) % (n - 1);
                }
                assert_eq!(c, want, "{v} from {from} to {to}");
                assert!(c < n);
            }
        }
    }
}

#[test]
fn the_first_cheapest_candidate_wins_only_when_strictly_cheaper_than_minimal() {
    // (router, q·H): CODES's cost q·H/H_min against q_min, both times H_min.
    assert_eq!(SlimFly::ugal_pick(6, &[(5, 8), (7, 4), (9, 4), (2, 6)], 0.0), Some(7));
    assert_eq!(SlimFly::ugal_pick(4, &[(5, 8), (7, 4), (9, 4)], 0.0), None, "a tie goes to the minimal route");
    assert_eq!(SlimFly::ugal_pick(0, &[(5, 0), (7, 0), (9, 0), (1, 0)], 0.0), None, "an idle network routes minimally");
    assert_eq!(SlimFly::ugal_pick(6, &[(5, 3)], 2.0), Some(5));
    assert_eq!(SlimFly::ugal_pick(6, &[(5, 3)], 3.0), None, "the threshold biases towards the minimal route");
    assert_eq!(SlimFly::ugal_pick(6, &[], 0.0), None);
}

/// Router 0's network: its node idle, with two NICs; a one-hop and a
/// two-hop destination router and a candidate of each kind with its
/// first port.
fn crafted() -> (Network, SlimFly, Node) {
    let m = network(Routing::Ugal);
    let mut n = idle(&m, 0);
    n.inject = vec![Nic::default(); 2];
    let Topology::SlimFly(s) = m.topology.clone() else { unreachable!() };
    (m, s, n)
}

/// Takes `k` credits of channel `vc` of output `o` (packets downstream).
fn downstream(m: &Network, n: &mut Node, o: usize, vc: usize, k: u16) {
    n.input.lanes[o * m.vcs as usize + vc].credits -= k;
}

#[test]
fn codes_weighs_only_the_first_hop_channel_of_an_output() {
    let (m, _, mut n) = crafted();
    // Transit packets (channels 1..3: CODES's `my_N_hop` ≥ 1) are not seen.
    for vc in 1..4 {
        downstream(&m, &mut n, 2, vc, 3);
    }
    assert_eq!(m.sfly_first_hop_occupancy(&n, 0, 2, 0, 0.0), 0);
    assert_eq!(m.occupancy(&n, 0, 2), 9, "the general measure sees them");
    downstream(&m, &mut n, 2, 0, 2);
    assert_eq!(m.sfly_first_hop_occupancy(&n, 0, 2, 0, 0.0), 2);
    // The other NIC's head routed to 2 waits for it; the deciding NIC's own head does not count.
    n.inject[1].queue.push_back(Packet { out: 2, ..Packet::default() });
    n.inject[0].queue.push_back(Packet { out: 2, ..Packet::default() });
    assert_eq!(m.sfly_first_hop_occupancy(&n, 0, 2, 0, 0.0), 3);
    assert_eq!(m.sfly_first_hop_occupancy(&n, 0, 2, 1, 0.0), 3);
    // A head still on its way from its node (ready later) is not here yet.
    n.inject[1].queue[0].ready = 5.0;
    assert_eq!(m.sfly_first_hop_occupancy(&n, 0, 2, 0, 0.0), 2);
    assert_eq!(m.sfly_first_hop_occupancy(&n, 0, 2, 0, 5.0), 3);
    assert_eq!(m.sfly_first_hop_occupancy(&n, 0, 3, 0, 0.0), 0);
}

#[test]
fn ugal_choice_follows_codes_on_crafted_queues() {
    let (m, s, mut n) = crafted();
    let r = s.routers();
    let to2 = (1..r).find(|&t| s.hops(0, t) == 2).unwrap();
    let min = s.step(0, to2).unwrap() as usize;
    // A candidate one hop away whose first port is not the minimal one: H = 1 + H(v, to).
    let v = (1..r).find(|&v| v != to2 && s.hops(0, v) == 1 && s.step(0, v).unwrap() as usize != min).unwrap();
    let hv = 1 + s.hops(v, to2);
    let vo = s.step(0, v).unwrap() as usize;
    let draws = [v; 4];
    // Idle: every cost 0, ties to the minimal route.
    assert_eq!(m.sfly_ugal_choice(&s, &n, (0, to2), 0, 0.0, &draws), None);
    // Transit traffic on the minimal output does not push first-hop packets off it.
    for vc in 1..4 {
        downstream(&m, &mut n, min, vc, 4);
    }
    assert_eq!(m.sfly_ugal_choice(&s, &n, (0, to2), 0, 0.0, &draws), None);
    // q_min · 2 against q_val · H_val (2 or 3): 1 · 2 never beats it, 2 · 2 does.
    downstream(&m, &mut n, vo, 0, 1);
    downstream(&m, &mut n, min, 0, 1);
    assert_eq!(m.sfly_ugal_choice(&s, &n, (0, to2), 0, 0.0, &draws), None, "1 · 2 against 1 · {hv}");
    downstream(&m, &mut n, min, 0, 1);
    assert_eq!(m.sfly_ugal_choice(&s, &n, (0, to2), 0, 0.0, &draws), Some(v), "2 · 2 against 1 · {hv}");
    // A waiting head of the other NIC counts on the candidate's output: 2 · hv ≥ 4.
    n.inject[1].queue.push_back(Packet { out: vo as u8, ..Packet::default() });
    assert_eq!(m.sfly_ugal_choice(&s, &n, (0, to2), 0, 0.0, &draws), None, "2 · 2 against 2 · {hv}");
    // Its own node's destination, or a draw that lands on an end, routes minimally.
    assert_eq!(m.sfly_ugal_choice(&s, &n, (0, 0), 0, 0.0, &draws), None);
    assert_eq!(m.sfly_ugal_choice(&s, &n, (0, to2), 0, 0.0, &[to2; 4]).filter(|&c| c == to2), None);
}

#[test]
fn at_zero_load_every_packet_takes_the_minimal_route_and_its_latency() {
    let base = network(Routing::Ugal);
    let n = base.topology.nodes();
    for s in 0..n {
        for d in (0..n).filter(|d| cfg!(not(debug_assertions)) || (s + d) % 5 == 0) {
            let m = Network { probe: Some((s, d)), ..base.clone() };
            let r = go(&m, 1e6).results;
            let h = base.topology.distance(s / 2, d / 2);
            assert_eq!((r.delivered_packets, r.hops_mean), (1, h as f64), "{s} -> {d}");
            assert_eq!(r.latency_mean, m.zero_load_latency(h, 256), "{s} -> {d}");
        }
    }
}

#[test]
fn under_load_ugal_takes_longer_routes_and_stays_below_the_capacity_bound() {
    // Any route is at least minimal: N · λ · H̄ packet-hops per packet time
    // fit on the R · k router links, so λ ≤ R · k / (N · H̄).
    let m = network(Routing::Ugal);
    let t = &m.topology;
    let bound = t.routers() as f64 * t.ports() as f64 / (t.nodes() as f64 * t.mean_uniform_hops());
    let r = go(&Network { load: 1.0, buffer_packets: 8, warmup: 2_000.0, ..m.clone() }, 12_000.0).results;
    assert_eq!(r.injected_packets, r.delivered_packets + r.in_flight_packets);
    assert!(r.max_input_buffer <= 8 && r.max_credits <= 8);
    assert!(r.accepted_throughput <= bound, "{} vs {bound}", r.accepted_throughput);
    assert!(r.accepted_throughput > 0.3, "still delivering: {}", r.accepted_throughput);
    assert!(r.hops_mean > t.mean_uniform_hops(), "some packets go through an intermediate: {}", r.hops_mean);
    assert!(r.hops_mean <= 4.0);
}
