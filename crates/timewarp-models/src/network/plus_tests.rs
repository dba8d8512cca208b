//! Dragonfly+ routing (plus.rs) router by router, on routers whose queues
//! the tests set: every route's hops against breadth-first search through
//! the routers it must visit, the least congested spine taken, and
//! prog-adaptive's choices.

use std::collections::VecDeque;
use std::path::PathBuf;

use crate::network::node::{Node, Queues};
use crate::network::topology::connections::Wiring;
use crate::network::topology::{Dragonfly, Topology, NO_VIA};
use crate::network::{Network, Packet, Routing, Scoring};

fn dfp_test() -> Dragonfly {
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../timewarp-cli/tests/data/codes");
    let w = Wiring::read_plus(&data.join("dfp-test-intra"), &data.join("dfp-test-inter"), 8, 5, 4).unwrap();
    Dragonfly::wired(8, 4, 5, w)
}

/// 5 groups of 3 leaves and 2 spines with 2 global links each: a spine
/// reaches only 2 of the 4 other groups.
fn sparse() -> Dragonfly {
    Dragonfly::plus(3, 2, 2, 2, 5).unwrap()
}

fn net(d: &Dragonfly, routing: Routing) -> Network {
    Network { topology: Topology::Dragonfly(d.clone()), routing, vcs: 10, buffer_packets: 4, ..Network::default() }
}

/// Router `r` with every buffer downstream free and nothing waiting.
pub(crate) fn idle(m: &Network, r: u32) -> Node {
    let v = m.vcs as usize;
    let mut input = Queues::new(m.ports() * v, m.buffer_packets as u16);
    for (i, lane) in input.lanes.iter_mut().enumerate() {
        lane.credits = m.buffer_of(r, i / v) as u16;
    }
    Node::bare(input, m.ports() + 8)
}

fn idle_all(m: &Network) -> Vec<Node> {
    (0..m.topology.routers()).map(|r| idle(m, r)).collect()
}

/// The routers a packet from node `s` to node `t` visits (its source leaf
/// first), routed at each on `nodes`' queues; checks its channel is its hop.
fn walk(m: &Network, nodes: &[Node], s: u32, t: u32, via: u16, draw: u8) -> Vec<u32> {
    let Topology::Dragonfly(d) = &m.topology else { unreachable!() };
    let mut p = Packet { src: s, dst: t, via, dim: draw, ..Packet::default() };
    let mut r = s / d.p;
    let mut path = vec![r];
    loop {
        m.route(&nodes[r as usize], r, &mut p);
        if p.out as usize >= m.ports() {
            assert_eq!((r, p.out as usize), (t / d.p, m.ports() + (t % d.p) as usize), "{s} -> {t}: {path:?}");
            assert_eq!(p.via, NO_VIA, "{s} -> {t}: delivered with an intermediate group left: {path:?}");
            return path;
        }
        assert_eq!(p.class as u16, p.hops, "one virtual channel per hop");
        r = d.link(r, p.out as usize).expect("routes take wired ports").0;
        p.hops += 1;
        path.push(r);
        assert!(path.len() <= 7, "{s} -> {t} via {via}: {path:?}");
    }
}

fn bfs(d: &Dragonfly) -> Vec<Vec<u32>> {
    (0..d.routers())
        .map(|s| {
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
        })
        .collect()
}

/// Every route between leaves, for every intermediate group and four
/// draws: minimal (and prog-adaptive on idle queues) the shortest path;
/// non-minimal-spine a shortest path to the first router of its
/// intermediate group (a spine, 2 hops), then 2 more when that spine has
/// a link to the destination's group, else 4 (down to a leaf and up, one
/// global hop: not the shortest path, which may take two); non-minimal-leaf a
/// shortest path to a leaf of the intermediate group (3 hops) and from it
/// (3): always 6.
#[test]
fn every_route_has_the_hops_of_exact_enumeration() {
    for d in [dfp_test(), sparse()] {
        let dist = bfs(&d);
        let leaves = d.leaves().unwrap();
        let leaf = |r: u32| r < leaves * d.g;
        let (mut four, mut six) = (0, 0);
        for routing in [Routing::Minimal, Routing::Par, Routing::Valiant, Routing::NonMinimalLeaf] {
            let m = net(&d, routing);
            let nodes = idle_all(&m);
            for a in 0..leaves * d.g {
                for b in 0..leaves * d.g {
                    let (s, t) = (a * d.p, b * d.p + d.p - 1);
                    let (ga, gb) = (d.group(a), d.group(b));
                    let vias: Vec<u16> = if ga == gb || routing == Routing::Minimal {
                        vec![NO_VIA]
                    } else {
                        (0..d.g).filter(|&v| v != ga && v != gb).map(|v| v as u16).collect()
                    };
                    for &via in &vias {
                        for draw in [0, 77, 150, 255] {
                            let path = walk(&m, &nodes, s, t, via, draw);
                            let hops = path.len() as u32 - 1;
                            let what = format!("{d:?} {routing:?} {a} -> {b} via {via}: {path:?}");
                            let at_via = |pred: &dyn Fn(u32) -> bool| {
                                *path.iter().find(|&&r| d.group(r) == via as u32 && pred(r)).expect(&what)
                            };
                            match routing {
                                _ if via == NO_VIA => assert_eq!(hops, dist[a as usize][b as usize], "{what}"),
                                Routing::Minimal | Routing::Par => {
                                    assert_eq!(hops, dist[a as usize][b as usize], "{what}")
                                }
                                Routing::Valiant => {
                                    let x = at_via(&|_| true);
                                    assert!(!leaf(x), "{what}");
                                    assert_eq!(dist[a as usize][x as usize], 2, "{what}");
                                    let direct = (0..d.ports())
                                        .any(|o| d.is_global(o) && d.link(x, o).is_some_and(|(y, _)| d.group(y) == gb));
                                    assert_eq!(hops, if direct { 4 } else { 6 }, "{what}");
                                    six += (hops == 6) as u32;
                                    four += (hops == 4) as u32;
                                }
                                _ => {
                                    let y = at_via(&|r| leaf(r));
                                    assert_eq!(
                                        dist[a as usize][y as usize] + dist[y as usize][b as usize],
                                        6,
                                        "{what}"
                                    );
                                    assert_eq!(hops, 6, "{what}");
                                    let groups: Vec<u32> = path.iter().map(|&r| d.group(r)).collect();
                                    let v = via as u32;
                                    assert_eq!(groups, [ga, ga, v, v, v, gb, gb], "{what}");
                                }
                            }
                        }
                    }
                }
            }
        }
        // The sparse network has both kinds of Valiant route; dfp-test's spines reach every group.
        assert!(four > 0, "{d:?}");
        assert_eq!(six > 0, d.a == 5, "{d:?}");
    }
}

/// Loads output `o` of `node` by `q` packets waiting for it.
pub(crate) fn load(node: &mut Node, o: usize, q: u32) {
    node.links[o].heads = q;
}

/// A leaf of dfp-test sending to another group may go up to any of its 4
/// spines (each has a link to every group): it never takes a loaded one,
/// whatever the draw, and on idle queues the draw spreads it over all 4.
#[test]
fn a_leaf_goes_up_to_its_least_congested_spine() {
    let d = dfp_test();
    for routing in [Routing::Minimal, Routing::Valiant, Routing::NonMinimalLeaf, Routing::Par] {
        let m = net(&d, routing);
        let spine_of = |o: u8| d.link(0, o as usize).unwrap().0;
        let (s, t) = (0, 79); // leaf 0 of group 0 to the last leaf of group 4
        let via = if routing == Routing::Minimal { NO_VIA } else { 2 };
        let first = |node: &Node, draw: u8| {
            let mut p = Packet { src: s, dst: t, via, dim: draw, ..Packet::default() };
            m.route(node, 0, &mut p);
            p.out
        };
        let mut idle_picks = [0u32; 4];
        for draw in 0..=255u8 {
            idle_picks[first(&idle(&m, 0), draw) as usize] += 1;
        }
        assert!(idle_picks.iter().all(|&k| k > 30), "{routing:?}: idle spines drawn evenly: {idle_picks:?}");
        for loaded in 0..4usize {
            let mut node = idle(&m, 0);
            load(&mut node, loaded, 1);
            for draw in 0..=255u8 {
                let o = first(&node, draw);
                assert_ne!(o as usize, loaded, "{routing:?}: the loaded spine {} taken", spine_of(o));
            }
            // All but one loaded, unevenly: the free one.
            let mut node = idle(&m, 0);
            for o in (0..4).filter(|&o| o != loaded) {
                load(&mut node, o, 1 + o as u32);
            }
            for draw in 0..=255u8 {
                assert_eq!(first(&node, draw) as usize, loaded, "{routing:?}");
            }
        }
        // Occupancy counts downstream buffers too: a spine whose buffer
        // from this leaf is full is avoided like one with packets waiting.
        let mut node = idle(&m, 0);
        let v = m.vcs as usize;
        node.input.lanes[2 * v + 1].credits -= 3;
        load(&mut node, 0, 2);
        load(&mut node, 1, 1);
        load(&mut node, 3, 4);
        for draw in 0..=255u8 {
            assert_eq!(first(&node, draw), 1, "{routing:?}");
        }
    }
}

/// A destination group's spine takes its least congested link down to the
/// destination leaf (there is one on dfp-test), and a leaf sending within
/// its group its least congested spine.
#[test]
fn within_the_destination_group_the_least_congested_link_is_taken() {
    let d = dfp_test();
    let m = net(&d, Routing::Minimal);
    let mut node = idle(&m, 0);
    for o in [0, 1, 3] {
        load(&mut node, o, 2);
    }
    for draw in 0..=255u8 {
        let mut p = Packet { src: 0, dst: 13, via: NO_VIA, dim: draw, ..Packet::default() };
        m.route(&node, 0, &mut p);
        assert_eq!(p.out, 2);
    }
}

/// prog-adaptive on dfp-test, from leaf 0 of group 0 to group 4 through
/// group 2: at the source spine the minimal link loaded beyond the
/// non-minimal one sends the packet on through group 2 (down to a leaf
/// there: CODES's intermediate spines do not consider minimal links), 6
/// hops; an equal or lighter load, or a threshold at or above its load,
/// keeps it minimal, 3 hops.
#[test]
fn prog_adaptive_turns_non_minimal_where_the_minimal_link_is_the_more_congested() {
    let d = dfp_test();
    let (s, t, via) = (0, 79, 2u16);
    for (q_min, q_non, threshold, hops) in
        [(0, 0, 0.0, 3), (2, 2, 0.0, 3), (3, 2, 0.0, 6), (5, 0, 0.0, 6), (5, 0, 5.0, 3), (5, 0, 4.0, 6)]
    {
        let m = Network { ugal_threshold: threshold, ..net(&d, Routing::Par) };
        let mut nodes = idle_all(&m);
        // Load every source spine's links to groups 4 and 2 alike.
        for r in (0..d.routers()).filter(|&r| r >= 20 && d.group(r) == 0) {
            for o in (0..d.ports()).filter(|&o| d.is_global(o)) {
                let to = d.group(d.link(r, o).unwrap().0);
                load(
                    &mut nodes[r as usize],
                    o,
                    if to == 4 {
                        q_min
                    } else if to == 2 {
                        q_non
                    } else {
                        0
                    },
                );
            }
        }
        for draw in [0, 9, 200] {
            let path = walk(&m, &nodes, s, t, via, draw);
            let what = format!("q_min {q_min} q_non {q_non} T {threshold}: {path:?}");
            assert_eq!(path.len() - 1, hops, "{what}");
            if hops == 6 {
                let groups: Vec<u32> = path.iter().map(|&r| d.group(r)).collect();
                assert_eq!(groups, [0, 0, 2, 2, 2, 4, 4], "{what}");
            }
        }
    }
}

/// prog-adaptive scored as CODES's `delta`: the non-minimal candidate's
/// score counts double, so a minimal link a little busier than the
/// non-minimal one (3 against 2) stays minimal where `alpha` detours, and
/// only one busier than twice the other's (5 against 2) detours; `beta`
/// weighs each by the hops left beyond it.
#[test]
fn delta_and_beta_scoring_keep_minimal_what_alpha_sends_non_minimally() {
    let d = dfp_test();
    let (s, t, via) = (0, 79, 2u16);
    for (scoring, q_min, q_non, hops) in [
        (Scoring::Alpha, 3, 2, 6),
        (Scoring::Delta, 3, 2, 3),
        (Scoring::Delta, 4, 2, 3),
        (Scoring::Delta, 5, 2, 6),
        (Scoring::Alpha, 2, 2, 3),
        // beta: the minimal global link's far end is 2 hops from the
        // destination, the non-minimal one's 3: minimal while 2·q_min <= 3·q_non.
        (Scoring::Beta, 3, 2, 3),
        (Scoring::Beta, 4, 2, 6),
    ] {
        let m = Network { scoring, ..net(&d, Routing::Par) };
        m.validate().unwrap();
        let mut nodes = idle_all(&m);
        for r in (0..d.routers()).filter(|&r| r >= 20 && d.group(r) == 0) {
            for o in (0..d.ports()).filter(|&o| d.is_global(o)) {
                let to = d.group(d.link(r, o).unwrap().0);
                let q = [(4, q_min), (2, q_non)].iter().find(|c| c.0 == to).map_or(0, |c| c.1);
                load(&mut nodes[r as usize], o, q);
            }
        }
        for draw in [0, 9, 200] {
            let path = walk(&m, &nodes, s, t, via, draw);
            assert_eq!(path.len() - 1, hops, "{scoring:?} q_min {q_min} q_non {q_non}: {path:?}");
        }
    }
}

/// Beta's factor on a network whose spines reach only some groups: a
/// global port's far spine counts 3 if it has a link to the destination's
/// group and 5 if not (CODES's `get_min_hops_to_dest_from_conn`), 2 in
/// that group; a spine's port down to a leaf 4, 1 in that group. Both 3
/// and 5 occur, so beta ranks one choice's candidates differently from alpha.
#[test]
fn beta_weighs_each_port_by_the_hops_left_beyond_it() {
    let d = sparse();
    let w = d.wiring.as_deref().unwrap();
    let m = Network { scoring: Scoring::Beta, ..net(&d, Routing::Par) };
    let leaves = d.leaves().unwrap() * d.g;
    let mut seen = [0u32; 6];
    for r in leaves..d.routers() {
        let mut node = idle(&m, r);
        for o in 0..d.ports() {
            load(&mut node, o, 1);
        }
        for (o, (y, _)) in (0..d.ports()).filter_map(|o| d.link(r, o).map(|l| (o, l))) {
            for dg in 0..d.g {
                let reaches =
                    (0..d.ports()).any(|k| d.link(y, k).is_some_and(|(z, _)| d.group(z) == dg && z >= leaves));
                let hops = match (d.group(y) == dg, y < leaves) {
                    (true, true) => 1,
                    (true, false) => 2,
                    (false, true) => 4,
                    (false, false) => 5 - 2 * reaches as u32,
                };
                let base = m.occupancy(&node, r, o);
                assert_eq!(m.score((w, dg), &node, r, o as u8), base * hops, "spine {r} port {o} to {y}, group {dg}");
                seen[hops as usize] += 1;
            }
        }
    }
    assert!(seen[1..].iter().all(|&k| k > 0), "every factor occurs: {seen:?}");
}

/// `--route-scoring delta` is a Dragonfly+'s: any of its routings takes it
/// (as CODES's do), another topology refuses it.
#[test]
fn delta_scoring_is_refused_off_a_dragonfly_plus() {
    let d = dfp_test();
    Network { scoring: Scoring::Delta, ..net(&d, Routing::Minimal) }.validate().unwrap();
    let flat = Topology::Dragonfly(Dragonfly::new(4, 2, 2, 9));
    let m = Network { scoring: Scoring::Delta, topology: flat, routing: Routing::Par, vcs: 4, ..Network::default() };
    let err = m.validate().unwrap_err();
    assert!(err.contains("--route-scoring delta") && err.contains("dragonfly-plus"), "{err}");
}

/// prog-adaptive on a network whose spines reach only some groups: a
/// source spine without a link to the packet's intermediate group draws
/// another among those it reaches (never either end's), as CODES does.
#[test]
fn prog_adaptive_redraws_an_intermediate_group_a_spine_cannot_reach() {
    let d = sparse();
    let m = net(&d, Routing::Par);
    let leaves = d.leaves().unwrap() * d.g;
    let mut redrawn = 0;
    for a in 0..leaves {
        for b in (0..leaves).filter(|&b| d.group(b) != d.group(a)) {
            let (ga, gb) = (d.group(a), d.group(b));
            for via in (0..d.g).filter(|&v| v != ga && v != gb) {
                // Every minimal global link loaded: the source spine turns non-minimal.
                let mut nodes = idle_all(&m);
                for r in leaves..d.routers() {
                    for o in (0..d.ports()).filter(|&o| d.is_global(o)) {
                        if d.link(r, o).is_some_and(|(y, _)| d.group(y) == gb) {
                            load(&mut nodes[r as usize], o, 9);
                        }
                    }
                }
                for draw in [3, 140] {
                    let path = walk(&m, &nodes, a * d.p, b * d.p, via as u16, draw);
                    let groups: Vec<u32> = path.iter().map(|&r| d.group(r)).collect();
                    let what = format!("{a} -> {b} via {via}: {path:?} {groups:?}");
                    // Minimal at the leaf (its links are idle), then through some third group.
                    assert_eq!(path.len(), 7, "{what}");
                    let third = groups[2];
                    assert!(third != ga && third != gb, "{what}");
                    assert_eq!(groups, [ga, ga, third, third, third, gb, gb], "{what}");
                    redrawn += (third != via) as u32;
                }
            }
        }
    }
    assert!(redrawn > 0, "some source spine could not reach the drawn group");
}
