//! The network model against answers computed without the simulator:
//! the zero-load latency formula, the closed-form mean hop counts, packet
//! conservation and buffer capacities, and the channel-load bound.

use super::*;
use timewarp::{Config, Report, Run};

/// Runs `m` sequentially to `end` (the other topologies' tests use it too).
pub(super) fn go(m: &Network, end: f64) -> Report<Results> {
    m.validate().unwrap();
    Run::new(m, &Config { end, ..Config::default() }).execute().unwrap_or_else(|e| panic!("{m:?}: {e}"))
}

/// What a saturated run must show whatever the topology: packets conserved
/// and waiting, no buffer or credit count above capacity, and still
/// delivering (no deadlock).
pub(super) fn assert_saturated_but_sound(r: &Results, buffer_packets: u32, what: &str) {
    assert_eq!(r.injected_packets, r.delivered_packets + r.in_flight_packets, "{what}");
    assert!(r.in_flight_packets > 0, "{what}: saturated, packets must be waiting");
    assert!(r.max_input_buffer as u32 <= buffer_packets, "{what}");
    assert!(r.max_credits as u32 <= buffer_packets, "{what}");
    assert!(r.max_output_buffer as u32 <= buffer_packets, "{what}");
    assert!(r.accepted_throughput > 0.1, "{what}: {}", r.accepted_throughput);
}

fn shapes() -> Vec<Topology> {
    vec![
        Topology::Torus(vec![4, 4]),
        Topology::Torus(vec![3, 2, 3]),
        Topology::Mesh(vec![4, 3]),
        Topology::Hypercube(4),
    ]
}

#[test]
fn a_single_packet_takes_exactly_the_zero_load_latency_between_every_pair() {
    for topology in shapes() {
        for switch in [Switch::InputBuffered, Switch::OutputBuffered, Switch::Codes] {
            let base = Network {
                topology: topology.clone(),
                switch,
                link_latency: 3.0,
                router_delay: 5.0,
                ..Network::default()
            };
            for a in 0..topology.nodes() {
                for b in 0..topology.nodes() {
                    let m = Network { probe: Some((a, b)), ..base.clone() };
                    let r = go(&m, 1e6).results;
                    let h = topology.distance(a, b);
                    // (h + 2) L + (h + 1) R + S, computed here by hand.
                    let want = (h as f64 + 2.0) * 3.0 + (h as f64 + 1.0) * 5.0 + 256.0 / 4.0;
                    assert_eq!((r.delivered_packets, r.in_flight_packets), (1, 0), "{topology:?} {a}->{b}");
                    assert_eq!(r.latency_max, want, "{topology:?} {switch:?} {a}->{b}");
                    assert_eq!(r.latency_mean, m.zero_load_latency(h, 256));
                    assert_eq!(r.hops_mean, h as f64);
                    // Alone, it enters the network when its head reaches the first router.
                    assert_eq!(r.source_queueing_mean, 3.0 + 5.0);
                    assert_eq!(r.network_latency_mean, want - 8.0);
                }
            }
        }
    }
}

#[test]
fn source_queueing_is_the_wait_behind_earlier_packets_of_the_same_nic() {
    // One message of 3 packets, alone: packet j enters when the j before it
    // have crossed the injection link (serialisation S = 64 ns each), so the
    // source share of their latency is L + R, L + R + S, L + R + 2S.
    let m = Network {
        topology: Topology::Torus(vec![4, 4]),
        message_bytes: 768,
        packet_bytes: 256,
        link_latency: 3.0,
        router_delay: 5.0,
        probe: Some((0, 10)),
        ..Network::default()
    };
    let r = go(&m, 1e6).results;
    assert_eq!(r.delivered_packets, 3);
    assert_eq!(r.source_queueing_mean, 8.0 + 64.0);
    assert!((r.network_latency_mean + r.source_queueing_mean - r.latency_mean).abs() < 1e-9);
}

#[test]
fn with_its_own_terminal_links_a_single_packet_takes_the_mixed_zero_load_latency() {
    // Terminal links Bt, Lt = 2; network links B = 4, L = 3: the slower one
    // sets the serialisation (none but the terminal's within one router).
    for bt in [1.0, 16.0] {
        for topology in [Topology::Torus(vec![4, 4]), Topology::Hypercube(3)] {
            let mut base =
                Network { topology: topology.clone(), link_latency: 3.0, router_delay: 5.0, ..Network::default() };
            base.classes[0] = LinkClass { bandwidth: Some(bt), latency: Some(2.0), buffer_packets: None };
            for a in 0..topology.nodes() {
                for b in 0..topology.nodes() {
                    let m = Network { probe: Some((a, b)), ..base.clone() };
                    let r = go(&m, 1e6).results;
                    let h = topology.distance(a, b) as f64;
                    let slowest = if h > 0.0 { f64::min(bt, 4.0) } else { bt };
                    let want = 2.0 * 2.0 + h * 3.0 + (h + 1.0) * 5.0 + 256.0 / slowest;
                    assert_eq!(r.latency_mean, want, "{topology:?} Bt {bt} {a}->{b}");
                    assert_eq!(m.zero_load_latency(h as u32, 256), want);
                }
            }
        }
    }
}

#[test]
fn a_message_of_several_packets_pays_each_serialisation_once() {
    // 600 bytes in packets of at most 256: 256 + 256 + 88 bytes.
    let t = Topology::Torus(vec![4, 4]);
    let m = Network {
        topology: t.clone(),
        message_bytes: 600,
        packet_bytes: 256,
        probe: Some((0, 10)),
        ..Network::default()
    };
    let r = go(&m, 1e6).results;
    let h = t.distance(0, 10) as f64;
    let (l, rd, bw) = (m.link_latency, m.router_delay, m.link_bandwidth);
    assert_eq!((r.delivered_packets, r.delivered_messages), (3, 1));
    assert_eq!(r.message_latency_mean, (h + 2.0) * l + (h + 1.0) * rd + 600.0 / bw);
}

#[test]
fn mean_hops_under_uniform_traffic_match_the_closed_forms() {
    for (topology, hops) in [
        // n k / 4 · N/(N-1) for even k; the mesh n (k²-1)/(3k) · N/(N-1); hypercube n/2 · N/(N-1).
        (Topology::Torus(vec![8, 8]), 2.0 * 8.0 / 4.0 * 64.0 / 63.0),
        (Topology::Mesh(vec![6, 6]), 2.0 * 35.0 / 18.0 * 36.0 / 35.0),
        (Topology::Hypercube(6), 3.0 * 64.0 / 63.0),
    ] {
        assert!((topology.mean_uniform_hops() - hops).abs() < 1e-12);
        for routing in [Routing::DimensionOrder, Routing::Adaptive] {
            // Adaptive routes are minimal too: the same hop count.
            let m = Network { topology: topology.clone(), routing, vcs: 3, load: 0.1, ..Network::default() };
            let r = go(&m, 60_000.0).results;
            let se = r.hops_std / (r.measured_packets as f64).sqrt();
            assert!(r.measured_packets > 2000);
            assert!(
                (r.hops_mean - hops).abs() < 4.0 * se,
                "{topology:?} {routing:?}: {} vs {hops} (se {se})",
                r.hops_mean
            );
        }
    }
}

#[test]
fn packets_are_conserved_and_buffers_never_overflow_at_saturation() {
    for topology in [Topology::Torus(vec![6, 6]), Topology::Mesh(vec![5, 5]), Topology::Hypercube(5)] {
        for switch in [Switch::InputBuffered, Switch::OutputBuffered, Switch::Codes] {
            for (vcs, buffer_packets) in [(2, 1), (4, 3)] {
                let m = Network {
                    topology: topology.clone(),
                    switch,
                    vcs,
                    buffer_packets,
                    load: 0.9,
                    ..Network::default()
                };
                let r = go(&m, 8_000.0).results;
                let what = format!("{topology:?} {switch:?} vcs {vcs} buffers {buffer_packets}");
                assert_eq!(r.injected_packets, r.delivered_packets + r.in_flight_packets, "{what}");
                assert!(r.in_flight_packets > 0, "{what}: saturated, packets must be waiting");
                assert!(
                    r.max_input_buffer as u32 <= buffer_packets && r.max_credits as u32 <= buffer_packets,
                    "{what}"
                );
                assert!(r.max_output_buffer as u32 <= buffer_packets, "{what}");
                // (A hypercube carries uniform traffic up to full injection
                // bandwidth. CODES's switch shares a buffer's slots with the
                // output queue and link upstream, so an input fills only
                // while those are empty.)
                if !matches!(topology, Topology::Hypercube(_)) && switch != Switch::Codes {
                    assert_eq!(r.max_input_buffer as u32, buffer_packets, "{what}: saturated buffers fill up");
                }
            }
        }
    }
}

#[test]
fn the_torus_never_beats_the_channel_load_bound_and_saturates_below_it() {
    // 16-ary 2-cube, uniform traffic: each direction of a ring carries k/8
    // of the injection rate, so accepted throughput can never exceed 8/k = 0.5.
    let run_at = |load: f64, switch: Switch| {
        let m = Network { load, switch, warmup: 2_000.0, ..Network::default() };
        go(&m, 8_000.0).results
    };
    for switch in [Switch::InputBuffered, Switch::OutputBuffered, Switch::Codes] {
        let low = run_at(0.15, switch);
        // Below saturation everything offered is carried (sampling error only).
        assert!((low.accepted_throughput - low.measured_offered_load).abs() < 0.02, "{low:?}");
        let mut prev = low.latency_mean;
        for load in [0.3, 0.6, 1.0] {
            let r = run_at(load, switch);
            assert!(r.accepted_throughput <= 0.5, "{switch:?} load {load}: {}", r.accepted_throughput);
            assert!(r.latency_mean > prev, "latency grows with load");
            prev = r.latency_mean;
        }
        let sat = run_at(1.0, switch);
        assert!(sat.accepted_throughput < 0.45, "a credit-based torus saturates below the ideal bound");
        assert!(sat.latency_mean > 4.0 * low.latency_mean, "latency rises steeply past saturation");
    }
}

#[test]
fn past_saturation_round_robin_keeps_shift_traffic_at_its_channel_load_bound() {
    // 8-ary 2-cube, node i sends to node i + 3: every packet takes 3 hops
    // in +x (those of x >= 5 wrap and add one +y hop). Counting the +x
    // crossings of each ring by enumeration gives the channel load, hence
    // the bound on accepted throughput: 1 / (most flows on one link).
    let k = 8usize;
    let mut plus_x = vec![0u32; k * k];
    for src in 0..k * k {
        let dst = (src + 3) % (k * k);
        let (x, y, dx) = (src % k, src / k, (dst % k + k - src % k) % k);
        assert!(dx <= k / 2, "minimal in +x");
        for h in 0..dx {
            plus_x[y * k + (x + h) % k] += 1;
        }
    }
    let flows = *plus_x.iter().max().unwrap();
    assert_eq!(flows, 3);
    let bound = 1.0 / flows as f64;
    for arbitration in [Arbitration::RoundRobin, Arbitration::Age] {
        let m = Network {
            topology: Topology::Torus(vec![8, 8]),
            traffic: Traffic::Shift(3),
            vcs: 4,
            buffer_packets: 8,
            load: 1.0,
            warmup: 5_000.0,
            link_stats: true,
            arbitration,
            ..Network::default()
        };
        let r = go(&m, 20_000.0).results;
        // Injection was three times what the links carry; the network still
        // carries what its busiest links allow (it carried 0.128 of it when
        // injected packets always won: their queueing at the source counted as age).
        let what = format!("{arbitration:?}: accepted {}", r.accepted_throughput);
        assert!(r.accepted_throughput <= bound + 0.01, "{what}");
        assert!(r.accepted_throughput >= 0.9 * bound, "{what}");
        // And no link of the busiest rings starves.
        let plus_x: Vec<&LinkStat> = r.links.iter().filter(|l| plus_x_link(l.node, l.neighbour)).collect();
        assert_eq!(plus_x.len(), k * k);
        let least = plus_x.iter().map(|l| l.busy).fold(1.0, f64::min);
        assert!(least > 0.9, "{what}: a +x link only {least} busy");
        // Every source gets its share: the flows are symmetric.
        assert!(r.node_accepted_min >= 0.9 * bound, "{what}: a node got only {}", r.node_accepted_min);
        assert!(r.fairness > 0.99 && r.fairness <= 1.0 + 1e-12, "{what}: fairness {}", r.fairness);
    }
}

/// Whether the link from router `a` to `b` of an 8-ary 2-cube goes one step in +x.
fn plus_x_link(a: u32, b: u32) -> bool {
    a / 8 == b / 8 && b % 8 == (a % 8 + 1) % 8
}

#[test]
fn fairness_is_one_for_a_lone_sender_and_node_throughput_adds_up() {
    // One node sending alone: the index over one sender is 1, and its
    // accepted bytes are what the network delivered (nothing left inside).
    let m = Network {
        topology: Topology::Torus(vec![4, 4]),
        probe: Some((3, 9)),
        message_bytes: 768,
        ..Network::default()
    };
    let r = go(&m, 1e6).results;
    assert_eq!(r.fairness, 1.0);
    assert_eq!(r.node_accepted_min, r.node_accepted_max);
    assert_eq!(r.node_accepted_max * 1.0, r.accepted_throughput * 16.0);
}

/// The most flows any directed link carries when every node of a 2-D
/// torus or mesh (`k0 x k1`, node id `x + k0 y`) sends to `dst(node)` by
/// dimension-order routes (x first, then y; minimal way round a ring),
/// counted by walking the routes here, not with the model's routing code.
fn dor_max_channel_load(k0: u32, k1: u32, torus: bool, mut dst: impl FnMut(u32) -> u32) -> u32 {
    let mut load = std::collections::HashMap::new();
    for src in 0..k0 * k1 {
        let t = dst(src);
        let (mut x, mut y) = (src % k0, src / k0);
        for (dim, k, target) in [(0, k0, t % k0), (1, k1, t / k0)] {
            let here = if dim == 0 { x } else { y };
            let (up, steps) = if torus {
                let d = (target + k - here) % k;
                assert!(2 * d != k, "a tie between the two ways round: pick a shape without one");
                if 2 * d < k {
                    (true, d)
                } else {
                    (false, k - d)
                }
            } else {
                (target > here, target.abs_diff(here))
            };
            for _ in 0..steps {
                // The link leaving node (x, y) along `dim`, one way or the other.
                *load.entry((x + k0 * y, dim, up)).or_insert(0) += 1;
                let step = |c: u32| if up { (c + 1) % k } else { (c + k - 1) % k };
                if dim == 0 {
                    x = step(x);
                } else {
                    y = step(y);
                }
            }
        }
        assert_eq!((x, y), (t % k0, t / k0), "the walk reaches the destination");
    }
    load.into_values().max().unwrap_or(0)
}

#[test]
fn new_patterns_saturate_at_or_below_their_channel_load_bound() {
    let nothing = &mut NoDraws;
    for (topology, traffic, want) in [
        // Tornado on 8 x 8: 3 steps up both dimensions, 3 flows on every +x and +y link.
        (Topology::Torus(vec![8, 8]), Traffic::Tornado, Some(3)),
        (Topology::Torus(vec![5, 5]), Traffic::Permutation(1), None),
        (Topology::Mesh(vec![8, 8]), Traffic::Shuffle, None),
    ] {
        let (torus, k0, k1) = match &topology {
            Topology::Torus(d) => (true, d[0], d[1]),
            Topology::Mesh(d) => (false, d[0], d[1]),
            _ => unreachable!(),
        };
        let n = k0 * k1;
        let gamma = dor_max_channel_load(k0, k1, torus, |s| traffic.destination_in(s, n, &[k0, k1], nothing));
        if let Some(w) = want {
            assert_eq!(gamma, w, "{traffic:?}");
        }
        // Each node offers `load` of a link's bandwidth, so the busiest link
        // is full at load 1/gamma: the pattern's throughput bound.
        let bound = 1.0 / gamma as f64;
        let at = |load: f64| {
            let m = Network {
                topology: topology.clone(),
                traffic,
                vcs: 4,
                buffer_packets: 8,
                load,
                warmup: 5_000.0,
                ..Network::default()
            };
            go(&m, 40_000.0).results
        };
        let what = format!("{traffic:?} on {topology:?}, bound {bound:.3}");
        // Well below the bound everything offered is carried (sampling error only)...
        let low = at(0.5 * bound);
        assert!((low.accepted_throughput - low.measured_offered_load).abs() < 0.02, "{what}: {low:?}");
        // ...and past it the busiest links cannot carry it all.
        let high = at((1.2 * bound).min(1.0));
        assert!(
            high.accepted_throughput < high.measured_offered_load - 0.02,
            "{what}: carried {} of {}",
            high.accepted_throughput,
            high.measured_offered_load
        );
    }
}

/// A source of draws for patterns that draw nothing.
struct NoDraws;
impl timewarp::Random for NoDraws {
    fn next_u64(&mut self) -> u64 {
        unreachable!("a permutation draws nothing")
    }
}

#[test]
fn bursty_and_bernoulli_arrivals_offer_the_load_asked() {
    for arrivals in [Arrivals::Bursty { burst: 8 }, Arrivals::Bernoulli, Arrivals::Periodic, Arrivals::Poisson] {
        let m = Network { topology: Topology::Torus(vec![8, 8]), arrivals, load: 0.3, ..Network::default() };
        let r = go(&m, 100_000.0).results;
        // 64 nodes x ~117 messages each: the mean rate within a few per cent.
        assert!((r.measured_offered_load - 0.3).abs() < 0.015, "{arrivals:?}: offered {}", r.measured_offered_load);
        assert!((r.accepted_throughput - r.measured_offered_load).abs() < 0.01, "{arrivals:?}");
    }
    // Back to back within a burst: at most one message per serialisation time
    // of the injection link, so a load above 1 is refused with the reason.
    let e = Network { arrivals: Arrivals::Bernoulli, load: 1.5, messages: Some(3), ..Network::default() }.validate();
    assert!(e.unwrap_err().contains("--load must be at most 1"));
    let e = Network { arrivals: Arrivals::Bursty { burst: 0 }, ..Network::default() }.validate();
    assert!(e.unwrap_err().contains("--burst-length"));
}

#[test]
fn in_phase_arrivals_create_every_nodes_messages_at_the_same_instants() {
    // Every node's first message one gap after the start, the next a gap
    // later (CODES's synthetic dragonfly program): none before, all 16 at it.
    let m =
        Network { topology: Topology::Torus(vec![4, 4]), arrivals: Arrivals::InPhase, load: 0.3, ..Network::default() };
    let gap = m.gap();
    let injected = |m: &Network, end: f64| go(m, end).results.injected_packets;
    assert_eq!(injected(&m, gap), 0);
    assert_eq!(injected(&m, gap + 1e-6), 16);
    assert_eq!(injected(&m, 2.0 * gap + 1e-6), 32);
    // Periodic draws each node's phase in the first gap: some have sent by half of it.
    let periodic = Network { arrivals: Arrivals::Periodic, ..m.clone() };
    assert!((1..16).contains(&injected(&periodic, gap / 2.0)));
    assert_eq!(injected(&m, gap / 2.0), 0);
    assert_eq!("in-phase".parse::<Arrivals>(), Ok(Arrivals::InPhase));
    assert_eq!(Arrivals::InPhase.name(), "in-phase");
}

#[test]
fn batch_means_intervals_shrink_like_one_over_the_root_of_the_run_length() {
    let at = |end: f64| {
        let m = Network { topology: Topology::Torus(vec![8, 8]), load: 0.3, warmup: 5_000.0, ..Network::default() };
        go(&m, end).results
    };
    let (short, long) = (at(20_000.0), at(100_000.0));
    for r in [&short, &long] {
        assert!(r.accepted_throughput_ci95 > 0.0 && r.latency_mean_ci95 > 0.0, "{r:?}");
        // Below saturation what is accepted is what is offered, within the interval.
        assert!((r.accepted_throughput - 0.3).abs() < 2.0 * r.accepted_throughput_ci95, "{r:?}");
    }
    // Five times the measured window (15 us -> 95 us, about 6x): the half-widths
    // fall by about sqrt(6) = 2.4, a sampling figure, so within a wide margin.
    for (a, b) in [
        (short.accepted_throughput_ci95, long.accepted_throughput_ci95),
        (short.latency_mean_ci95, long.latency_mean_ci95),
    ] {
        assert!(a / b > 1.3 && a / b < 6.0, "half-widths {a} then {b}");
    }
    // A finite workload's window is known only at its end: no batches.
    let finite = Network { topology: Topology::Torus(vec![4, 4]), messages: Some(5), ..Network::default() };
    let r = go(&finite, 1e9).results;
    assert!(r.accepted_throughput_ci95.is_nan() && r.latency_mean_ci95.is_nan(), "undefined: {r:?}");
}

#[test]
fn valiant_on_the_cubes_doubles_the_mean_distance() {
    // Through a router drawn uniformly from all N: twice the mean distance
    // from a node to a uniform router (self included) — per dimension k/4 on
    // an even ring, (k² − 1)/(3k) on a line, 1/2 on a hypercube's.
    for (topology, vcs, hops) in [
        (Topology::Torus(vec![8, 8]), 4, 2.0 * 2.0 * 8.0 / 4.0),
        (Topology::Mesh(vec![6, 6]), 2, 2.0 * 2.0 * 35.0 / 18.0),
        (Topology::Hypercube(6), 2, 2.0 * 6.0 / 2.0),
    ] {
        let m = Network { topology: topology.clone(), routing: Routing::Valiant, vcs, load: 0.1, ..Network::default() };
        let r = go(&m, 60_000.0).results;
        let se = r.hops_std / (r.measured_packets as f64).sqrt();
        assert!(r.measured_packets > 2000);
        assert!((r.hops_mean - hops).abs() < 4.0 * se, "{topology:?}: {} vs {hops} (se {se})", r.hops_mean);
    }
}

#[test]
fn valiant_halves_uniform_throughput_and_beats_dimension_order_on_tornado() {
    let at = |routing, traffic| {
        let m = Network {
            topology: Topology::Torus(vec![8, 8]),
            routing,
            traffic,
            vcs: 4,
            buffer_packets: 8,
            load: 1.0,
            warmup: 5_000.0,
            ..Network::default()
        };
        go(&m, 25_000.0).results.accepted_throughput
    };
    // Uniform on an 8-ary 2-cube: bound 8/k = 1 for dimension order; Valiant
    // sends every packet twice as far, so at most half.
    let (dor, valiant) = (at(Routing::DimensionOrder, Traffic::Uniform), at(Routing::Valiant, Traffic::Uniform));
    assert!(valiant <= 0.5 + 0.01 && valiant < 0.6 * dor, "valiant {valiant}, dimension order {dor}");
    // Tornado: dimension order is held to 1/3 (3 flows a link, see above);
    // Valiant's bound is 1/2 whatever the pattern.
    let (dor, valiant) = (at(Routing::DimensionOrder, Traffic::Tornado), at(Routing::Valiant, Traffic::Tornado));
    assert!(dor <= 1.0 / 3.0 + 0.01 && valiant > dor, "tornado: valiant {valiant}, dimension order {dor}");
}

/// The most packets a network channel carries per packet each node sends
/// under the permutation `dst`: each flow's dimension-order route, or with
/// ROMM each route through an intermediate of its minimal quadrant, all
/// equally likely (computed from the topology, not simulated).
fn max_channel_load(t: &Topology, dst: impl Fn(u32) -> u32, romm: bool) -> f64 {
    let mut load = std::collections::HashMap::<(u32, u8), f64>::new();
    let mut walk = |mut at: u32, to: u32, w: f64| {
        while let Some(s) = t.route(at, to) {
            *load.entry((at, s.port)).or_default() += w;
            at = t.neighbour(at, s.port as usize).unwrap();
        }
    };
    for s in 0..t.nodes() {
        let d = dst(s);
        if romm {
            let (count, pick) = t.quadrant(s, d);
            for v in (0..count).map(pick) {
                walk(s, v, 1.0 / count as f64);
                walk(v, d, 1.0 / count as f64);
            }
        } else {
            walk(s, d, 1.0);
        }
    }
    load.values().fold(0.0, |a, &b| a.max(b))
}

#[test]
fn romm_routes_every_packet_minimally() {
    // Fixed destinations, four messages a node: the mean of the hops is
    // exactly the mean minimal distance of the pattern's pairs.
    for (topology, vcs, traffic) in [
        (Topology::Mesh(vec![4, 4]), 2, Traffic::Transpose),
        (Topology::Torus(vec![4, 4]), 4, Traffic::Transpose),
        (Topology::Torus(vec![4, 4]), 4, Traffic::BitComplement),
        (Topology::Mesh(vec![8, 2]), 2, Traffic::BitReversal),
        (Topology::Hypercube(5), 2, Traffic::BitComplement),
    ] {
        let m = Network {
            topology: topology.clone(),
            routing: Routing::Romm,
            traffic,
            vcs,
            load: 0.3,
            messages: Some(4),
            ..Network::default()
        };
        let r = go(&m, 1e9).results;
        let n = topology.nodes();
        let mut rng = timewarp::ReversibleRng::new(1, 0);
        let total: u64 =
            (0..n).map(|s| topology.distance(s, traffic.destination(s, n, 4, &mut rng)) as u64).sum::<u64>() * 4;
        assert_eq!(r.measured_packets, n as u64 * 4, "{topology:?}");
        let want = total as f64 / r.measured_packets as f64;
        assert!((r.hops_mean - want).abs() < 1e-12, "{topology:?} {traffic:?}: {} vs {want}", r.hops_mean);
    }
}

#[test]
fn romm_spreads_transpose_on_a_mesh_below_dimension_order() {
    // Transpose on an 8 × 8 mesh, x then y: row r's eastward link from
    // column r − 1 carries the r flows from columns 0..r, so the busiest
    // channel carries k − 1 = 7 (by hand). ROMM spreads every flow over its box.
    let t = Topology::Mesh(vec![8, 8]);
    let transpose = |s: u32| (s % 8) * 8 + s / 8;
    let dor = max_channel_load(&t, transpose, false);
    let romm = max_channel_load(&t, transpose, true);
    assert_eq!(dor, 7.0);
    assert!(romm < 0.75 * dor, "ROMM's busiest channel {romm} vs dimension order's {dor}");
    // Simulated: every node offering λ = 0.2 of a link loads dimension
    // order's busiest channel to 7λ = 1.4 (past saturation: it cannot carry
    // the offered load) and ROMM's below 1 (it carries it all).
    let lambda = 0.2;
    assert!(lambda * dor > 1.0 && lambda * romm < 1.0, "λ between the bounds: {dor}, {romm}");
    let at = |routing| {
        let m = Network {
            topology: t.clone(),
            routing,
            traffic: Traffic::Transpose,
            buffer_packets: 8,
            load: lambda,
            warmup: 5_000.0,
            ..Network::default()
        };
        go(&m, 25_000.0).results
    };
    let (d, r) = (at(Routing::DimensionOrder), at(Routing::Romm));
    assert!(d.accepted_throughput < 0.95 * lambda, "dimension order carried {}", d.accepted_throughput);
    assert!(r.accepted_throughput > 0.97 * lambda, "ROMM carried {}", r.accepted_throughput);
    assert!(
        r.latency_mean < 0.5 * d.latency_mean,
        "latency: ROMM {}, dimension order {}",
        r.latency_mean,
        d.latency_mean
    );
}

#[test]
fn split_latency_quantiles_are_exact_at_zero_load_and_add_no_behaviour() {
    // One packet, 0 -> 5 on a 4 × 4 torus (2 hops): it enters the network
    // L + R after its creation (injection link, first router), and the rest
    // of T0(2) is network latency; p50 = p99 = that value.
    let base = Network { topology: Topology::Torus(vec![4, 4]), probe: Some((0, 5)), ..Network::default() };
    let r = go(&Network { split_quantiles: true, ..base.clone() }, 1e6).results;
    let t0 = base.zero_load_latency(2, 256);
    let queue = base.link_latency + base.router_delay;
    assert_eq!(r.latency_mean, t0);
    assert_eq!((r.source_queueing_p50, r.source_queueing_p99), (Some(queue), Some(queue)));
    assert_eq!((r.network_latency_p50, r.network_latency_p99), (Some(t0 - queue), Some(t0 - queue)));
    // CODES's terms: the longest network latency (its "maximum chunk
    // latency"), and the routers passed (source, one between, destination).
    assert_eq!(r.network_latency_max, Some(t0 - queue));
    assert_eq!((r.hops_mean, r.routers_traversed_mean), (2.0, 3.0));
    let plain = go(&base, 1e6).results;
    assert_eq!((plain.network_latency_p50, plain.network_latency_max), (None, None), "only when asked for");
    // Under load: the same run with and without them, and quantiles in order.
    let loaded = Network { probe: None, load: 0.7, ..base };
    let (plain, split) =
        (go(&loaded, 20_000.0).results, go(&Network { split_quantiles: true, ..loaded }, 20_000.0).results);
    assert_eq!((plain.latency_mean, plain.latency_p99), (split.latency_mean, split.latency_p99));
    let (q50, q99) = (split.source_queueing_p50.unwrap(), split.source_queueing_p99.unwrap());
    let (n50, n99) = (split.network_latency_p50.unwrap(), split.network_latency_p99.unwrap());
    assert!(queue <= q50 && q50 <= q99 && q99 > queue, "source queueing p50 {q50}, p99 {q99}");
    assert!(n50 <= n99 && n50 >= t0 - queue - 2.0 * base.link_latency, "network p50 {n50}, p99 {n99}");
    let nmax = split.network_latency_max.unwrap();
    assert!(n99 <= nmax && nmax <= split.latency_max - queue, "network max {nmax}, p99 {n99}");
    assert_eq!(split.routers_traversed_mean, split.hops_mean + 1.0);
}

#[test]
fn a_bounded_workload_creates_exactly_its_messages_and_delivers_them_all() {
    // Four times what the injection links carry, three packets a message,
    // 7 messages a node: every one is delivered and the run ends by itself
    // (no events left long before the end time).
    let m = Network {
        topology: Topology::Torus(vec![4, 4]),
        load: 4.0,
        messages: Some(7),
        message_bytes: 600,
        packet_bytes: 256,
        ..Network::default()
    };
    let r = go(&m, 1e9).results;
    assert_eq!(r.injected_packets, 16 * 7 * 3);
    assert_eq!(r.delivered_packets, r.injected_packets);
    assert_eq!(r.delivered_messages, 16 * 7);
    assert_eq!(r.in_flight_packets, 0);
}

#[test]
fn bad_parameters_are_refused_with_the_option_to_fix() {
    let bad = [
        (Network { vcs: 1, ..Network::default() }, "--vcs"),
        (Network { vcs: 2, routing: Routing::Adaptive, ..Network::default() }, "--vcs 3"),
        (
            Network { vcs: 2, routing: Routing::Valiant, ..Network::default() },
            "--routing valiant on a torus needs --vcs 4",
        ),
        (Network { routing: Routing::Ugal, ..Network::default() }, "--routing ugal is for --topology dragonfly"),
        (Network { routing: Routing::Par, ..Network::default() }, "--routing par is for --topology dragonfly"),
        (Network { routing: Routing::Romm, ..Network::default() }, "--routing romm on a torus needs --vcs 4"),
        (
            Network { topology: Topology::Mesh(vec![4, 4]), routing: Routing::Romm, vcs: 1, ..Network::default() },
            "--routing romm on a mesh needs --vcs 2",
        ),
        (Network { ugal_threshold: -1.0, ..Network::default() }, "--ugal-threshold must be >= 0"),
        (Network { ugal_threshold: 2.0, ..Network::default() }, "--ugal-threshold is for --topology dragonfly"),
        (Network { load: 1.5, ..Network::default() }, "--load"),
        (Network { load: 1.5, messages: Some(0), ..Network::default() }, "--messages must be at least 1"),
        (Network { packet_bytes: 70_000, message_bytes: 70_000, ..Network::default() }, "--packet-bytes"),
        (Network { link_bandwidth: 0.0, ..Network::default() }, "--link-bandwidth"),
        (Network { buffer_packets: 0, ..Network::default() }, "--buffer-packets"),
        (
            Network { topology: Topology::Torus(vec![16, 8]), traffic: Traffic::Transpose, ..Network::default() },
            "transpose",
        ),
        (Network { topology: Topology::Mesh(vec![1, 4]), ..Network::default() }, "--dims"),
    ];
    for (m, want) in bad {
        let e = m.validate().unwrap_err();
        assert!(e.contains(want), "{e}");
    }
}

#[test]
fn a_packet_message_stays_small() {
    // Every pending event is a queue entry holding a `Msg`; a packet's
    // `Header` is what keeps an `Arrive` at 48 bytes (it was 56 with the
    // whole packet; the time it entered the network added 8 to the 40).
    assert_eq!(size_of::<Header>(), 40);
    assert!(size_of::<Msg>() <= 48, "Msg grew to {} bytes", size_of::<Msg>());
    // And a journal entry (what an optimistic run saves per write, and the
    // undo record every speculative event keeps) stays at 32 (it was 64).
    assert_eq!(size_of::<Undo>(), 32, "a journal entry is {} bytes", size_of::<Undo>());
}
