//! The dragonfly against answers computed without the simulator: exact
//! zero-load latency of every pair (minimal and Valiant routes), mean hops
//! by exhaustive enumeration, throughput against the global-link bounds,
//! conservation and buffer capacities.
//!
//! Route lengths here come from group and router arithmetic of the maximal
//! dragonfly's documented link arrangement (group `x`'s global link to group
//! `y` is its link number `y − [y > x]`, held by router `number / h`), not
//! from the routing code.

use crate::network::tests::{assert_saturated_but_sound, go};
use crate::network::*;
use timewarp::{Config, Run};

/// The test's own arithmetic for a maximal dragonfly.
struct Geo {
    a: u32,
    p: u32,
    h: u32,
}

impl Geo {
    /// Router index (within group `x`) that holds the global link to group `y`.
    fn owner(&self, x: u32, y: u32) -> u32 {
        (y - (y > x) as u32) / self.h
    }

    /// (local, global) hops of the minimal route from router `s` to router `d`.
    fn minimal(&self, s: u32, d: u32) -> (u32, u32) {
        let (gs, is, gd, id) = (s / self.a, s % self.a, d / self.a, d % self.a);
        if s == d {
            (0, 0)
        } else if gs == gd {
            (1, 0)
        } else {
            ((is != self.owner(gs, gd)) as u32 + (id != self.owner(gd, gs)) as u32, 1)
        }
    }

    /// (local, global) hops of the Valiant route from router `s` to router
    /// `d` of another group through group `v`: to `v`'s landing router, on
    /// to the router of `v` holding the link to `d`'s group, then to `d`.
    fn valiant(&self, s: u32, d: u32, v: u32) -> (u32, u32) {
        let (gs, is, gd, id) = (s / self.a, s % self.a, d / self.a, d % self.a);
        let local = (is != self.owner(gs, v)) as u32
            + (self.owner(v, gs) != self.owner(v, gd)) as u32
            + (id != self.owner(gd, v)) as u32;
        (local, 2)
    }
}

/// a = 4, p = 2, h = 2: 9 groups, 36 routers, 72 nodes (the balanced a = 2p = 2h).
fn small() -> (Topology, Geo) {
    (Topology::Dragonfly(Dragonfly::maximal(4, 2, 2)), Geo { a: 4, p: 2, h: 2 })
}

fn dragonfly(routing: Routing) -> Network {
    let (topology, _) = small();
    Network {
        topology,
        routing,
        vcs: 5,
        link_latency: 3.0,
        global_link_latency: 11.0,
        router_delay: 5.0,
        ..Network::default()
    }
}

/// `(l + 2) L + g Lg + (l + g + 1) R + S` with L = 3, Lg = 11, R = 5, S = 256 / 4, by hand.
fn by_hand(local: u32, global: u32) -> f64 {
    let (l, g) = (local as f64, global as f64);
    (l + 2.0) * 3.0 + g * 11.0 + (l + g + 1.0) * 5.0 + 64.0
}

#[test]
fn a_single_packet_takes_exactly_the_zero_load_latency_between_every_pair_minimally() {
    let (topology, geo) = small();
    // Each pair once, the switch kind alternating: with two nodes per router
    // every pair of routers is still checked under both kinds. An unoptimised
    // build (a run costs ~7 ms there) checks one pair of nodes per pair of
    // routers, the NICs rotating, and the switch kinds in turn.
    let every = !cfg!(debug_assertions);
    for s in 0..topology.nodes() {
        for d in 0..topology.nodes() {
            if !every && (s % geo.p != (d / geo.p) % geo.p || d % geo.p != (s / geo.p) % geo.p) {
                continue;
            }
            let switch = if (s + d) % 2 == 0 { Switch::InputBuffered } else { Switch::OutputBuffered };
            let m = Network { probe: Some((s, d)), switch, ..dragonfly(Routing::Minimal) };
            let r = go(&m, 1e6).results;
            let (l, g) = geo.minimal(s / geo.p, d / geo.p);
            let what = format!("{switch:?} {s} -> {d}");
            assert_eq!((r.delivered_packets, r.in_flight_packets), (1, 0), "{what}");
            assert_eq!(r.latency_max, by_hand(l, g), "{what}");
            assert_eq!(r.latency_mean, m.zero_load_latency_dragonfly(l, g, 256), "{what}");
            assert_eq!(r.hops_mean, (l + g) as f64, "{what}");
        }
    }
}

#[test]
fn a_valiant_packet_takes_the_zero_load_latency_of_the_route_through_its_intermediate_group() {
    let (topology, geo) = small();
    let base = Network { link_stats: true, ..dragonfly(Routing::Valiant) };
    let mut vias = [0u32; 9];
    // Every source node of groups 0 and 5 to every node (all pairs of groups occur).
    for s in (0..8).chain(40..48) {
        for d in 0..topology.nodes() {
            let m = Network { probe: Some((s, d)), ..base.clone() };
            // A seed per pair: the intermediate group is the source router's first draw.
            let cfg = Config { end: 1e6, seed: (s * 1000 + d) as u64, ..Config::default() };
            let r = Run::new(&m, &cfg).execute().unwrap_or_else(|e| panic!("{m:?}: {e}")).results;
            let (rs, rd) = (s / geo.p, d / geo.p);
            let what = format!("{s} -> {d}");
            assert_eq!((r.delivered_packets, r.in_flight_packets), (1, 0), "{what}");
            // The route, from the links that carried the packet.
            let used: Vec<&LinkStat> = r.links.iter().filter(|l| l.packets > 0).collect();
            let (mut at, mut path) = (rs, Vec::new());
            while let Some(l) = used.iter().find(|l| l.node == at && !path.contains(&(l.node, l.port))) {
                path.push((l.node, l.port));
                at = l.neighbour;
            }
            assert_eq!((at, path.len()), (rd, used.len()), "{what}: the used links form one path to the destination");
            let globals: Vec<u32> = path
                .iter()
                .filter(|&&(_, port)| port >= geo.a - 1)
                .map(|&(node, port)| topology.neighbour(node, port as usize).unwrap() / geo.a)
                .collect();
            let (l, g) = if rs / geo.a == rd / geo.a {
                // Within a group Valiant routes minimally.
                assert!(globals.is_empty(), "{what}");
                geo.minimal(rs, rd)
            } else {
                assert_eq!(globals.len(), 2, "{what}: two global hops");
                let v = globals[0];
                assert!(v != rs / geo.a && v != rd / geo.a && globals[1] == rd / geo.a, "{what}: via {v}");
                vias[v as usize] += 1;
                geo.valiant(rs, rd, v)
            };
            assert_eq!(path.len() as u32, l + g, "{what}");
            assert_eq!(r.latency_max, by_hand(l, g), "{what}");
        }
    }
    // The intermediate group is drawn: every group serves as one.
    assert!(vias.iter().all(|&n| n > 0), "intermediate groups {vias:?}");
}

#[test]
fn mean_hops_under_uniform_traffic_match_exhaustive_enumeration() {
    let (topology, geo) = small();
    let n = topology.nodes();
    let (mut min_sum, mut val_sum) = (0.0, 0.0);
    for s in 0..n {
        for d in (0..n).filter(|&d| d != s) {
            let (rs, rd) = (s / geo.p, d / geo.p);
            let (l, g) = geo.minimal(rs, rd);
            min_sum += (l + g) as f64;
            val_sum += if rs / geo.a == rd / geo.a {
                (l + g) as f64
            } else {
                // The intermediate group is uniform over the 7 others.
                let vs = (0..9).filter(|&v| v != rs / geo.a && v != rd / geo.a);
                vs.map(|v| geo.valiant(rs, rd, v)).map(|(l, g)| (l + g) as f64).sum::<f64>() / 7.0
            };
        }
    }
    let pairs = (n * (n - 1)) as f64;
    let (min_mean, val_mean) = (min_sum / pairs, val_sum / pairs);
    assert!((topology.mean_uniform_hops() - min_mean).abs() < 1e-12, "{} vs {min_mean}", topology.mean_uniform_hops());
    for (routing, want) in [(Routing::Minimal, min_mean), (Routing::Valiant, val_mean)] {
        let m = Network { load: 0.1, ..dragonfly(routing) };
        let r = go(&m, 60_000.0).results;
        let se = r.hops_std / (r.measured_packets as f64).sqrt();
        assert!(r.measured_packets > 5000);
        assert!((r.hops_mean - want).abs() < 4.0 * se, "{routing:?}: {} vs {want} (se {se})", r.hops_mean);
    }
}

/// Accepted throughput at offered load 0.9 in the window [5 µs, 20 µs).
fn accepted(routing: Routing, traffic: Traffic, switch: Switch) -> f64 {
    let m = Network { traffic, switch, load: 0.9, buffer_packets: 8, warmup: 5_000.0, ..dragonfly(routing) };
    let r = go(&m, 20_000.0).results;
    assert_eq!(r.injected_packets, r.delivered_packets + r.in_flight_packets);
    r.accepted_throughput
}

#[test]
fn throughput_meets_the_global_link_bounds_under_uniform_and_adversarial_traffic() {
    // a = 4, p = 2, h = 2, 9 groups, 72 nodes; link bandwidth = injection bandwidth.
    // Uniform, minimal: each global link carries (a p)² / (N − 1) = 64/71 of
    // the load and each local link about as much: no bound below 1.
    // Uniform, Valiant: every inter-group packet crosses two global links:
    // load ≤ 71/128 = 0.555.
    // Group shift, minimal: a group's a p = 8 nodes share one global link:
    // load ≤ 1/8.
    // Group shift, Valiant: 2 global hops per packet over the 7 links a
    // group has to groups other than i + 1 (that link is unused): 8 · 2 · load ≤ 7,
    // load ≤ 7/16 = 0.4375.
    // Group shift, UGAL: at best the direct link full and the rest Valiant:
    // (1 + 7/2) / 8 = 0.5625.
    for switch in [Switch::InputBuffered, Switch::OutputBuffered] {
        let out = switch == Switch::OutputBuffered;
        let min = accepted(Routing::Minimal, Traffic::Uniform, switch);
        let ugal = accepted(Routing::Ugal, Traffic::Uniform, switch);
        // Near full throughput (the input-buffered switch loses some to head-of-line blocking).
        let floor = if out { 0.86 } else { 0.78 };
        assert!(min >= floor && ugal >= floor, "{switch:?} uniform: minimal {min}, ugal {ugal}");
        let val = accepted(Routing::Valiant, Traffic::Uniform, switch);
        assert!((0.45..=71.0 / 128.0 + 0.01).contains(&val), "{switch:?} uniform valiant {val}");
        let min = accepted(Routing::Minimal, Traffic::GroupShift, switch);
        assert!((min - 0.125).abs() < 0.005, "{switch:?} group shift minimal {min}");
        let val = accepted(Routing::Valiant, Traffic::GroupShift, switch);
        assert!((0.38..=7.0 / 16.0 + 0.01).contains(&val), "{switch:?} group shift valiant {val}");
        let ugal = accepted(Routing::Ugal, Traffic::GroupShift, switch);
        assert!((0.42..=0.5625 + 0.01).contains(&ugal), "{switch:?} group shift ugal {ugal}");
    }
}

#[test]
fn par_and_thresholded_ugal_take_the_minimal_route_at_zero_load() {
    // An empty network: every queue is 0, so q_min · H_min = 0 ≤ q_val · H_val + T
    // at the source and (PAR) at the next router: the minimal route, whose
    // zero-load latency is the formula's.
    let (topology, geo) = small();
    for (routing, vcs, threshold) in [(Routing::Par, 6, 0.0), (Routing::Ugal, 5, 4.0), (Routing::Par, 6, 1.5)] {
        for s in (0..topology.nodes()).step_by(5) {
            for d in (0..topology.nodes()).step_by(3) {
                let m = Network { probe: Some((s, d)), vcs, ugal_threshold: threshold, ..dragonfly(routing) };
                let r = go(&m, 1e6).results;
                let (l, g) = geo.minimal(s / geo.p, d / geo.p);
                let what = format!("{routing:?} T {threshold}: {s} -> {d}");
                assert_eq!(r.latency_max, by_hand(l, g), "{what}");
                assert_eq!(r.hops_mean, (l + g) as f64, "{what}");
            }
        }
    }
}

#[test]
fn par_and_thresholds_stay_minimal_at_low_load_and_beat_minimal_routing_on_group_shift() {
    let (topology, geo) = small();
    // Uniform at 5 % load: the mean zero-load latency of the minimal routes
    // over every pair of nodes (the formula, by the test's arithmetic) and
    // the enumerated minimal mean hops.
    let n = topology.nodes();
    let pairs = (0..n).flat_map(|s| (0..n).filter(move |&d| d != s).map(move |d| (s, d)));
    let zero_load = pairs.map(|(s, d)| geo.minimal(s / geo.p, d / geo.p)).map(|(l, g)| by_hand(l, g)).sum::<f64>()
        / (n * (n - 1)) as f64;
    let min_hops = topology.mean_uniform_hops();
    let mut minimal = 0.0;
    for (routing, vcs, threshold) in
        [(Routing::Minimal, 3, 0.0), (Routing::Par, 6, 0.0), (Routing::Ugal, 5, 2.0), (Routing::Par, 6, 2.0)]
    {
        let m = Network { load: 0.05, vcs, ugal_threshold: threshold, ..dragonfly(routing) };
        let r = go(&m, 40_000.0).results;
        let what = format!("{routing:?} T {threshold}");
        // Queueing at 5 % adds a little to the zero-load figure (minimal
        // routing: 5 %), and the adaptive routings no more than minimal's.
        let lat = r.latency_mean;
        assert!(lat >= zero_load && lat < 1.08 * zero_load, "{what}: {lat} vs zero-load {zero_load}");
        if routing == Routing::Minimal {
            minimal = lat;
        }
        assert!(lat < 1.02 * minimal, "{what}: {lat} vs minimal routing's {minimal}");
        // Without a threshold any packet in the minimal port's downstream
        // buffer tips the choice (PAR: at two routers), so some go the
        // Valiant way even here; a threshold of 2 keeps them minimal.
        let slack = if threshold > 0.0 || routing == Routing::Minimal { 1.01 } else { 1.1 };
        assert!(r.hops_mean < slack * min_hops, "{what}: hops {} vs {min_hops}", r.hops_mean);
    }
    // Group shift: minimal routing puts a group's a·p = 8 nodes on its one
    // global link to the next group, load ≤ 1/8 (the channel-load bound);
    // UGAL's at best (1 + 7/2)/8 = 0.5625 (see above).
    let at = |routing, vcs, threshold| {
        let m = Network {
            traffic: Traffic::GroupShift,
            load: 0.9,
            vcs,
            ugal_threshold: threshold,
            buffer_packets: 8,
            warmup: 5_000.0,
            ..dragonfly(routing)
        };
        go(&m, 20_000.0).results.accepted_throughput
    };
    let par = at(Routing::Par, 6, 0.0);
    assert!((0.3..=0.5625 + 0.01).contains(&par), "group shift par {par}");
    let biased = at(Routing::Ugal, 5, 4.0);
    assert!((0.3..=0.5625 + 0.01).contains(&biased), "group shift ugal, threshold 4: {biased}");
    // A threshold no queue can reach: minimal routing, held to its bound.
    let never = at(Routing::Ugal, 5, 1e9);
    assert!((never - 0.125).abs() < 0.005, "group shift ugal, threshold 1e9: {never}");
}

#[test]
fn ugal_g_takes_the_minimal_route_at_zero_load_and_near_it_at_low_load() {
    // An empty network: every queue and every broadcast occupancy is 0, so
    // the minimal route wins at the source: exactly its zero-load latency.
    let (topology, geo) = small();
    for s in (0..topology.nodes()).step_by(5) {
        for d in (0..topology.nodes()).step_by(3) {
            let r = go(&Network { probe: Some((s, d)), ..dragonfly(Routing::UgalG) }, 1e6).results;
            let (l, g) = geo.minimal(s / geo.p, d / geo.p);
            assert_eq!(r.latency_max, by_hand(l, g), "{s} -> {d}");
            assert_eq!(r.hops_mean, (l + g) as f64, "{s} -> {d}");
        }
    }
    // Uniform at 5 %: as PAR's test above, within a few % of the minimal
    // routes' zero-load mean and of minimal routing's latency.
    let n = topology.nodes();
    let pairs = (0..n).flat_map(|s| (0..n).filter(move |&d| d != s).map(move |d| (s, d)));
    let zero_load = pairs.map(|(s, d)| geo.minimal(s / geo.p, d / geo.p)).map(|(l, g)| by_hand(l, g)).sum::<f64>()
        / (n * (n - 1)) as f64;
    let low = |routing, vcs| go(&Network { load: 0.05, vcs, ..dragonfly(routing) }, 40_000.0).results;
    let minimal = low(Routing::Minimal, 3).latency_mean;
    for period in [None, Some(500.0)] {
        let m = Network { load: 0.05, ugal_g_period: period, ..dragonfly(Routing::UgalG) };
        let r = go(&m, 40_000.0).results;
        let lat = r.latency_mean;
        assert!(lat >= zero_load && lat < 1.08 * zero_load, "period {period:?}: {lat} vs zero-load {zero_load}");
        assert!(lat < 1.02 * minimal, "period {period:?}: {lat} vs minimal routing's {minimal}");
        let min_hops = topology.mean_uniform_hops();
        assert!(r.hops_mean < 1.1 * min_hops, "period {period:?}: hops {} vs {min_hops}", r.hops_mean);
    }
}

#[test]
fn ugal_g_beats_minimal_routing_on_group_shift_and_nears_ugals_best() {
    // Group shift at 0.9: minimal routing is held to 1/(a p) = 1/8, UGAL's
    // best is (1 + 7/2)/8 = 0.5625 (see above). With output buffers (no
    // head-of-line blocking to hide the global channels' state behind),
    // the global channel's occupancy the source router hears of steers
    // better than the local queue alone: UGAL-G well above UGAL-L, near
    // the bound. A period long enough to make the information stale costs
    // little here (group shift's load is steady) but must stay sound.
    for switch in [Switch::InputBuffered, Switch::OutputBuffered] {
        let at = |routing, period| {
            let m = Network {
                traffic: Traffic::GroupShift,
                switch,
                load: 0.9,
                buffer_packets: 8,
                warmup: 5_000.0,
                ugal_g_period: period,
                ..dragonfly(routing)
            };
            let r = go(&m, 20_000.0).results;
            assert_eq!(r.injected_packets, r.delivered_packets + r.in_flight_packets);
            r.accepted_throughput
        };
        let ugal_g = at(Routing::UgalG, None);
        assert!((0.45..=0.5625 + 0.01).contains(&ugal_g), "{switch:?} group shift ugal-g {ugal_g}");
        let ugal_l = at(Routing::Ugal, None);
        if switch == Switch::OutputBuffered {
            assert!(ugal_g > ugal_l + 0.02, "{switch:?}: ugal-g {ugal_g} vs ugal-l {ugal_l}");
            assert!(ugal_g > 0.53, "{switch:?}: ugal-g {ugal_g}");
        } else {
            assert!(ugal_g > ugal_l - 0.01, "{switch:?}: ugal-g {ugal_g} vs ugal-l {ugal_l}");
        }
        let stale = at(Routing::UgalG, Some(2_000.0));
        assert!((0.3..=0.5625 + 0.01).contains(&stale), "{switch:?} group shift ugal-g, period 2 µs: {stale}");
    }
}

#[test]
fn packets_are_conserved_buffers_never_overflow_and_nothing_deadlocks() {
    for routing in [Routing::Minimal, Routing::Valiant, Routing::Ugal, Routing::Par, Routing::UgalG] {
        for traffic in [Traffic::Uniform, Traffic::GroupShift] {
            for switch in [Switch::InputBuffered, Switch::OutputBuffered] {
                for buffer_packets in [1, 3] {
                    let vcs = match routing {
                        Routing::Minimal => 3,
                        Routing::Par => 6,
                        _ => 5,
                    };
                    let m = Network {
                        traffic,
                        switch,
                        vcs,
                        buffer_packets,
                        load: 0.9,
                        warmup: 5_000.0,
                        ..dragonfly(routing)
                    };
                    let r = go(&m, 10_000.0).results;
                    let what = format!("{routing:?} {traffic:?} {switch:?} buffers {buffer_packets}");
                    assert_saturated_but_sound(&r, buffer_packets, &what);
                }
            }
        }
    }
}

#[test]
fn group_shift_sends_every_node_to_the_next_group() {
    let (topology, geo) = small();
    let m = Network { traffic: Traffic::GroupShift, ..dragonfly(Routing::Minimal) };
    let per_group = geo.a * geo.p;
    let mut rng = timewarp::ReversibleRng::new(7, 0);
    for s in 0..topology.nodes() {
        let mut seen = vec![false; per_group as usize];
        for _ in 0..200 {
            let d = m.traffic.destination(s, topology.nodes(), per_group, &mut rng);
            assert_eq!(d / per_group, (s / per_group + 1) % 9, "{s} -> {d}");
            seen[(d % per_group) as usize] = true;
        }
        assert!(seen.iter().all(|&x| x), "{s}: every node of the next group is drawn");
    }
}

#[test]
fn meaningless_combinations_are_refused_with_the_option_to_fix() {
    let bad = [
        (Network { routing: Routing::Minimal, ..Network::default() }, "--routing minimal is for --topology dragonfly"),
        (Network { traffic: Traffic::GroupShift, ..Network::default() }, "group-shift needs --topology dragonfly"),
        (Network { routing: Routing::DimensionOrder, ..dragonfly(Routing::Minimal) }, "a dragonfly routes minimal"),
        (Network { vcs: 4, ..dragonfly(Routing::Ugal) }, "--vcs 5"),
        (Network { vcs: 5, ..dragonfly(Routing::Par) }, "--routing par on a dragonfly needs --vcs 6"),
        (Network { routing: Routing::Romm, ..dragonfly(Routing::Minimal) }, "a dragonfly routes minimal"),
        (Network { ugal_threshold: 1.0, ..dragonfly(Routing::Valiant) }, "--ugal-threshold is for"),
        (Network { vcs: 4, ..dragonfly(Routing::UgalG) }, "--routing ugal-g on a dragonfly needs --vcs 5"),
        (Network { ugal_g_period: Some(0.0), ..dragonfly(Routing::UgalG) }, "--ugal-g-period must be positive"),
        (Network { ugal_g_period: Some(f64::NAN), ..dragonfly(Routing::UgalG) }, "--ugal-g-period must be positive"),
        (Network { ugal_g_period: Some(10.0), ..dragonfly(Routing::Ugal) }, "--ugal-g-period is for"),
        (Network { routing: Routing::UgalG, ..Network::default() }, "--routing ugal-g is for --topology dragonfly"),
        (Network { vcs: 2, ..dragonfly(Routing::Minimal) }, "--vcs 3"),
        (
            Network { topology: Topology::Dragonfly(Dragonfly::new(4, 2, 2, 4)), ..dragonfly(Routing::Minimal) },
            "--groups 4",
        ),
        (
            Network {
                classes: [LinkClass { buffer_packets: Some(0), ..LinkClass::default() }; 3],
                ..mixed(Routing::Minimal)
            },
            "terminal links have no buffer",
        ),
        (
            Network {
                classes: [
                    LinkClass::default(),
                    LinkClass { bandwidth: Some(-1.0), ..LinkClass::default() },
                    LinkClass::default(),
                ],
                ..mixed(Routing::Minimal)
            },
            "--local-bandwidth must be positive",
        ),
        (
            Network {
                classes: [
                    LinkClass::default(),
                    LinkClass::default(),
                    LinkClass { buffer_packets: Some(0), ..LinkClass::default() },
                ],
                ..mixed(Routing::Minimal)
            },
            "--global-buffer-packets must be between 1 and 4096",
        ),
        (
            Network {
                classes: [
                    LinkClass::default(),
                    LinkClass { latency: Some(1.0), ..LinkClass::default() },
                    LinkClass::default(),
                ],
                ..Network::default()
            },
            "a torus has one class of network links",
        ),
    ];
    for (m, want) in bad {
        let e = m.validate().unwrap_err();
        assert!(e.contains(want), "{e}");
    }
    assert!(Network { vcs: 3, ..dragonfly(Routing::Minimal) }.validate().is_ok());
}

/// Terminal, local and global links each with their own bandwidth and
/// latency (Bt = 4, Bl = 2, Bg = 1 bytes/ns: a pair's slowest class depends
/// on its route), local buffers of 2 and global ones of 6 packets.
fn mixed(routing: Routing) -> Network {
    let mut m = dragonfly(routing);
    m.classes[0] = LinkClass { bandwidth: Some(4.0), latency: Some(2.0), buffer_packets: None };
    m.classes[1] = LinkClass { bandwidth: Some(2.0), latency: Some(3.0), buffer_packets: Some(2) };
    m.classes[2] = LinkClass { bandwidth: Some(1.0), latency: None, buffer_packets: Some(6) };
    m
}

/// `2 Lt + l Ll + g Lg + (l + g + 1) R + bytes / min(Bt, Bl if l > 0, Bg if g > 0)`
/// with Lt = 2, Ll = 3, Lg = 11, R = 5, by hand.
fn by_hand_mixed(local: u32, global: u32) -> f64 {
    let (l, g) = (local as f64, global as f64);
    let slowest = if global > 0 {
        1.0
    } else if local > 0 {
        2.0
    } else {
        4.0
    };
    2.0 * 2.0 + l * 3.0 + g * 11.0 + (l + g + 1.0) * 5.0 + 256.0 / slowest
}

#[test]
fn with_per_class_links_a_single_packet_takes_exactly_the_mixed_zero_load_latency() {
    let (topology, geo) = small();
    for s in 0..topology.nodes() {
        for d in 0..topology.nodes() {
            // Every pair of routers once (the NICs rotating), switch kinds alternating.
            if s % geo.p != (d / geo.p) % geo.p || d % geo.p != (s / geo.p) % geo.p {
                continue;
            }
            let switch = if (s + d) % 2 == 0 { Switch::InputBuffered } else { Switch::OutputBuffered };
            let m = Network { probe: Some((s, d)), switch, ..mixed(Routing::Minimal) };
            let r = go(&m, 1e6).results;
            let (l, g) = geo.minimal(s / geo.p, d / geo.p);
            let what = format!("{switch:?} {s} -> {d}");
            assert_eq!((r.delivered_packets, r.in_flight_packets), (1, 0), "{what}");
            assert_eq!(r.latency_max, by_hand_mixed(l, g), "{what}");
            assert_eq!(r.latency_mean, m.zero_load_latency_dragonfly(l, g, 256), "{what}");
        }
    }
}

#[test]
fn with_per_class_buffers_no_buffer_or_credit_exceeds_its_class() {
    for routing in [Routing::Minimal, Routing::Ugal] {
        for switch in [Switch::InputBuffered, Switch::OutputBuffered] {
            let m = Network { switch, load: 0.9, warmup: 5_000.0, ..mixed(routing) };
            let r = go(&m, 10_000.0).results;
            // The largest class buffer bounds every buffer (a push beyond a
            // port's own class capacity stops the run: `go` would panic).
            assert_saturated_but_sound(&r, 6, &format!("{routing:?} {switch:?}"));
        }
    }
}
