//! The wiring read from CODES's connection files, against the files' own
//! counts (Theta: 6 rows × 16 columns per group) and against breadth-first
//! search over the links.

use std::collections::VecDeque;
use std::path::PathBuf;

use super::connections::{key, ExitRule, Wiring};
use super::{Dragonfly, NO_VIA};

/// The copies of CODES's files in the CLI's test data.
fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../timewarp-cli/tests/data/codes").join(name)
}

fn theta() -> Dragonfly {
    let w = Wiring::read(&data("intra-theta"), &data("inter-theta"), 96, 9, ExitRule::Custom).unwrap();
    Dragonfly::wired(96, 4, 9, w)
}

/// Router-to-router distances from `s` over every wired link (BFS).
fn bfs(d: &Dragonfly, s: u32, within_group: bool) -> Vec<u32> {
    let mut dist = vec![u32::MAX; d.routers() as usize];
    dist[s as usize] = 0;
    let mut q = VecDeque::from([s]);
    while let Some(r) = q.pop_front() {
        for port in 0..d.ports() {
            let Some((t, _)) = d.link(r, port) else { continue };
            if (within_group && d.is_global(port)) || dist[t as usize] != u32::MAX {
                continue;
            }
            dist[t as usize] = dist[r as usize] + 1;
            q.push_back(t);
        }
    }
    dist
}

#[test]
fn theta_wiring_matches_the_files_counts() {
    let d = theta();
    let w = d.wiring.clone().unwrap();
    // 2,880 intra records: 1,440 row (type 0) and 1,440 column (type 1); 3,456 inter.
    assert_eq!(w.typed, [1440, 1440]);
    assert_eq!(w.between.iter().sum::<u32>(), 3456);
    assert_eq!((w.local, w.global, d.ports()), (30, 4, 34));
    for r in 0..d.routers() {
        // 30 local links (15 row, 5 column neighbours × 3), 4 global.
        assert_eq!(w.degree(r), (30, 4), "router {r}");
        let (row, col) = ((r % 96) / 16, r % 16);
        let (mut in_row, mut in_col) = (vec![0; 96], vec![0; 96]);
        for port in 0..d.ports() {
            let (t, back) = d.link(r, port).unwrap();
            assert_eq!(d.link(t, back), Some((r, port)), "router {r} port {port}: the link back");
            assert_eq!(d.is_global(port), d.group(t) != d.group(r), "router {r} port {port}");
            if !d.is_global(port) {
                let j = (t % 96) as usize;
                match ((j as u32) / 16 == row, j as u32 % 16 == col) {
                    (true, false) => in_row[j] += 1,
                    (false, true) => in_col[j] += 1,
                    _ => panic!("router {r}: local link to {t}, in neither its row nor its column"),
                }
            }
        }
        // Every other router of the row once, of the column three times.
        assert_eq!(in_row.iter().filter(|&&c| c == 1).count(), 15, "router {r}: row");
        assert_eq!(in_col.iter().filter(|&&c| c == 3).count(), 5, "router {r}: column");
    }
    // 48 links per ordered pair of groups, two parallel cables: 24 gateway routers.
    for x in 0..9 {
        for y in 0..9 {
            assert_eq!(w.between[x * 9 + y], if x == y { 0 } else { 48 }, "groups {x}, {y}");
            if x != y {
                assert_eq!(w.gateways(x as u32, y as u32).len(), 24, "groups {x}, {y}");
            }
        }
    }
    assert_eq!(d.local_diameter(), 2);
}

#[test]
fn theta_routes_are_minimal_within_each_group_by_exhaustive_bfs() {
    let d = theta();
    let w = d.wiring.clone().unwrap();
    let local: Vec<Vec<u32>> = (0..96).map(|s| bfs(&d, s, true)).collect();
    let ld = |a: u32, b: u32| local[(a % 96) as usize][(b % 96) as usize];
    let all = bfs(&d, 0, false);
    assert!(all.iter().all(|&x| x <= 5), "every router within 5 hops of router 0");
    for k in 0..3u64 {
        let key = key(k as u8 * 85, 7 * k as u32, k as u32);
        for r in 0..d.routers() {
            for t in 0..d.routers() {
                // Walk the route; where it leaves a group, it must be from a
                // gateway of that group, reached by a shortest local path.
                let (mut at, mut hops, mut entered, mut global, mut before) = (r, 0, r, 0, 0);
                while let Some(port) = d.step_keyed(at, t, NO_VIA, key) {
                    let (next, _) = d.link(at, port as usize).expect("a wired port");
                    if d.is_global(port as usize) {
                        assert!(w.gateways(d.group(at), d.group(t)).contains(&at), "{r} -> {t}: exit at {at}");
                        assert_eq!(hops, ld(r, at), "{r} -> {t}: the shortest way to its gateway {at}");
                        before = hops;
                        global += 1;
                        entered = next;
                    }
                    at = next;
                    hops += 1;
                    assert!(hops <= 5, "{r} -> {t}: more than 5 hops");
                }
                assert_eq!(at, t);
                if d.group(r) == d.group(t) {
                    assert_eq!(hops, ld(r, t), "{r} -> {t}: the shortest path in the group");
                } else {
                    assert_eq!(global, 1, "{r} -> {t}: one global hop");
                    // Local hops after the global one: the shortest way to t.
                    assert_eq!(hops, before + 1 + ld(entered, t), "{r} -> {t}");
                }
                assert_eq!(hops, d.hops_keyed(r, t, NO_VIA, key), "{r} -> {t}");
            }
        }
    }
}

#[test]
fn dally_72_and_custom_wirings_are_symmetric_and_routes_arrive() {
    for (intra, inter, a, g, rule) in [
        ("dfdally-72-intra", "dfdally-72-inter", 4, 9, ExitRule::Dally),
        ("intra-theta", "inter-theta", 96, 9, ExitRule::Dally),
    ] {
        let w = Wiring::read(&data(intra), &data(inter), a, g, rule).unwrap();
        let d = Dragonfly::wired(a, 2, g, w);
        for r in 0..d.routers() {
            for port in 0..d.ports() {
                if let Some((t, back)) = d.link(r, port) {
                    assert_eq!(d.link(t, back), Some((r, port)), "{intra}: {r} port {port}");
                }
            }
            for t in (0..d.routers()).step_by(7) {
                for via in [NO_VIA, ((d.group(r) + 3) % g) as u16] {
                    let h = d.hops_keyed(r, t, via, key(r as u8, t, 1));
                    assert!(h <= 3 * d.local_diameter() + 2, "{intra}: {r} -> {t} via {via}: {h} hops");
                }
            }
        }
    }
}

#[test]
fn bad_files_are_refused_with_what_is_wrong() {
    let wire = |local: &[[i32; 3]], global: &[[i32; 2]]| {
        let l: Vec<Vec<i32>> = local.iter().map(|r| r.to_vec()).collect();
        let g: Vec<Vec<i32>> = global.iter().map(|r| r.to_vec()).collect();
        Wiring::build(&l, &g, 2, 2, ExitRule::Custom).map(|_| ()).map_err(|e| e.1)
    };
    let ok_global = [[0, 2], [2, 0], [1, 3], [3, 1]];
    assert_eq!(wire(&[[0, 1, 0], [1, 0, 0]], &ok_global), Ok(()));
    for (local, global, says) in [
        (&[[0, 1, 0]][..], &ok_global[..], "listed both ways"),
        (&[[0, 2, 0], [2, 0, 0]][..], &ok_global[..], "not between two routers"),
        (&[[0, 1, 5], [1, 0, 5]][..], &ok_global[..], "link type 5"),
        (&[[0, 1, 0], [1, 0, 0]][..], &[[0, 1], [1, 0]][..], "different groups"),
        (&[[0, 1, 0], [1, 0, 0]][..], &[[0, 2]][..], "listed both ways"),
    ] {
        let e = wire(local, global).unwrap_err();
        assert!(e.contains(says), "{local:?} {global:?}: {e}");
    }
    // Two groups of 3 routers in a line 0 - 1 - 2 … is fine (2 hops); no
    // global link between two groups is not.
    let l: Vec<Vec<i32>> = [[0, 1, 0], [1, 0, 0]].iter().map(|r| r.to_vec()).collect();
    let e = Wiring::build(&l, &[], 2, 2, ExitRule::Custom).unwrap_err();
    assert!(e.1.contains("no global link"), "{}", e.1);
    let dir = std::env::temp_dir().join(format!("tw-conn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("short"), [0u8; 10]).unwrap();
    let e = Wiring::read(&dir.join("short"), &data("inter-theta"), 96, 9, ExitRule::Custom).unwrap_err();
    assert!(e.contains("short") && e.contains("not a whole number of 12-byte records"), "{e}");
    let e = Wiring::read(&dir.join("absent"), &data("inter-theta"), 96, 9, ExitRule::Custom).unwrap_err();
    assert!(e.contains("absent"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

mod model {
    use super::*;
    use crate::network::tests::{assert_saturated_but_sound, go};
    use crate::network::{LinkClass, Network, Routing, Topology, Traffic};

    fn dally_72() -> Dragonfly {
        let w = Wiring::read(&data("dfdally-72-intra"), &data("dfdally-72-inter"), 4, 9, ExitRule::Dally).unwrap();
        Dragonfly::wired(4, 2, 9, w)
    }

    fn net(d: Dragonfly, routing: Routing) -> Network {
        Network {
            // Theta's routes through an intermediate router: 4D + 2 hops.
            vcs: if d.via_router() { 10 } else { 8 },
            topology: Topology::Dragonfly(d),
            routing,
            link_latency: 3.0,
            global_link_latency: 11.0,
            router_delay: 5.0,
            ..Network::default()
        }
    }

    /// One packet alone: its latency is the closed form of the links it
    /// crossed, `(l + 2) L + g Lg + (l + g + 1) R + S`, and its route is
    /// one of the minimal ones (the shortest way within the groups, by BFS).
    #[test]
    fn a_single_packet_takes_the_zero_load_latency_of_its_route_between_every_pair() {
        // Every 13th pair of nodes of the Dally network (all 5,184 in an
        // optimised build), about 60 pairs of Theta's.
        let dally = if cfg!(debug_assertions) { 13 } else { 1 };
        for (d, step) in [(dally_72(), dally), (theta(), 199_999)] {
            let local: Vec<Vec<u32>> = (0..d.a).map(|s| bfs(&d, s, true)).collect();
            let nodes = d.routers() * d.p;
            for routing in [Routing::Minimal, Routing::Valiant] {
                let mut pair = 0u32;
                for s in 0..nodes {
                    for t in 0..nodes {
                        pair += 1;
                        if pair % step != 0 {
                            continue;
                        }
                        let m = Network { probe: Some((s, t)), ..net(d.clone(), routing) };
                        let r = go(&m, 1e6).results;
                        let what = format!("{routing:?} {s} -> {t}");
                        assert_eq!((r.delivered_packets, r.in_flight_packets), (1, 0), "{what}");
                        let (rs, rt) = (s / d.p, t / d.p);
                        let hops = r.hops_mean as u32;
                        let same = d.group(rs) == d.group(rt);
                        // Through a router (Theta: dragonfly_custom) one global hop
                        // when it is in the destination's group, and a detour
                        // within a group.
                        let detour = routing == Routing::Valiant && d.via_router();
                        let globals: &[u32] = match () {
                            _ if same => &[0],
                            _ if routing == Routing::Minimal => &[1],
                            _ if detour => &[1, 2],
                            _ => &[2],
                        };
                        let fits = |g: u32| r.latency_max == m.zero_load_latency_dragonfly(hops - g, g, 256);
                        assert!(globals.iter().any(|&g| fits(g)), "{what}: {} over {hops} hops", r.latency_max);
                        let (dd, ld) = (d.local_diameter(), local[(rs % d.a) as usize][(rt % d.a) as usize]);
                        if same && detour {
                            assert!(hops >= ld && hops <= 2 * dd, "{what}: {hops} hops");
                        } else if same {
                            assert_eq!(hops, ld, "{what}");
                        } else {
                            let most = 3 * dd + 2 + detour as u32 * dd;
                            assert!(
                                hops <= if routing == Routing::Minimal { 2 * dd + 1 } else { most },
                                "{what}: {hops} hops"
                            );
                        }
                    }
                }
            }
        }
    }

    /// Each wired link serialises at its own bandwidth (CODES's links do):
    /// a slow global link delays the packet's tail behind its head only on
    /// that link, so a lone packet pays the ejection link's serialisation.
    #[test]
    fn a_wired_link_serialises_at_its_own_bandwidth() {
        let mut classes = [LinkClass::default(); 3];
        classes[2].bandwidth = Some(1.0);
        for (s, t) in [(0, 71), (5, 40), (3, 2)] {
            let m = Network { probe: Some((s, t)), link_bandwidth: 4.0, classes, ..net(dally_72(), Routing::Minimal) };
            let r = go(&m, 1e6).results;
            let h = r.hops_mean;
            let g = (s / 8 != t / 8) as u32 as f64;
            // 2 L + (h − g) L + g Lg + (h + 1) R + S / B_t.
            let want = 2.0 * 3.0 + (h - g) * 3.0 + g * 11.0 + (h + 1.0) * 5.0 + 256.0 / 4.0;
            assert_eq!(r.latency_max, want, "{s} -> {t}: {h} hops");
        }
    }

    /// Uniform traffic on the 72-node Dally network with slow global
    /// links: a group's 8 nodes send 64/71 of their load out over its 8
    /// global links, so it accepts at most `B_g / (B_t · 64/71)`.
    #[test]
    fn uniform_traffic_saturates_below_the_global_channel_load_bound() {
        let (bt, bg) = (4.0, 1.0);
        let bound = bg / (bt * 64.0 / 71.0);
        for routing in [Routing::Minimal, Routing::Par] {
            let mut classes = [LinkClass::default(); 3];
            classes[2].bandwidth = Some(bg);
            let m = Network {
                traffic: Traffic::Uniform,
                load: 0.9,
                link_bandwidth: bt,
                classes,
                buffer_packets: 4,
                warmup: 5_000.0,
                ..net(dally_72(), routing)
            };
            let r = go(&m, 30_000.0).results;
            let what = format!("{routing:?}");
            assert_saturated_but_sound(&r, 4, &what);
            assert!(r.accepted_throughput <= 1.02 * bound, "{what}: {} above the bound {bound}", r.accepted_throughput);
            assert!(r.accepted_throughput >= 0.6 * bound, "{what}: {} far below {bound}", r.accepted_throughput);
        }
    }
}
