//! CODES's `dragonfly_custom` non-minimal routes (issue 40): through an
//! intermediate ROUTER, drawn as `router_packet_receive` draws it, reached
//! by the shortest legs, checked against the connection records
//! themselves (local distance 0, 1 or 2 from the lists, one hop per
//! global link) on a small Aries-like wiring and on Theta's files.

use std::path::PathBuf;

use super::connections::{key, ExitRule, Wiring};
use super::{Dragonfly, NO_VIA};

/// The copies of CODES's files in the CLI's test data.
fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../timewarp-cli/tests/data/codes").join(name)
}

/// A network, its intra records `(src, dest)` and inter records.
struct Net {
    d: Dragonfly,
    local: Vec<(u32, u32)>,
    global: Vec<(u32, u32)>,
}

/// An Aries-like custom dragonfly: 4 groups of 2 rows × 3 columns, rows
/// all-to-all, columns all-to-all by 2 parallel links, two global links
/// between every pair of groups on different routers.
fn small() -> Net {
    let (rows, cols, g) = (2u32, 3u32, 4u32);
    let a = rows * cols;
    let mut local = Vec::new();
    for i in 0..a {
        for j in 0..a {
            if i != j && i / cols == j / cols {
                local.push(vec![i as i32, j as i32, 0]);
            }
            if i != j && i % cols == j % cols {
                local.extend([vec![i as i32, j as i32, 1], vec![i as i32, j as i32, 1]]);
            }
        }
    }
    let mut global = Vec::new();
    for x in 0..g {
        for y in x + 1..g {
            for (s, t) in [(x * a + y % a, y * a + x % a), (x * a + (y + 3) % a, y * a + (x + 3) % a)] {
                global.extend([vec![s as i32, t as i32], vec![t as i32, s as i32]]);
            }
        }
    }
    let w = Wiring::build(&local, &global, a, g, ExitRule::Custom).unwrap();
    net(Dragonfly::wired(a, 2, g, w), &local, &global)
}

fn net(d: Dragonfly, local: &[Vec<i32>], global: &[Vec<i32>]) -> Net {
    let pairs = |v: &[Vec<i32>]| v.iter().map(|r| (r[0] as u32, r[1] as u32)).collect();
    Net { d, local: pairs(local), global: pairs(global) }
}

fn theta() -> Net {
    let read = |name: &str, width: usize| -> Vec<Vec<i32>> {
        let b = std::fs::read(data(name)).unwrap();
        b.chunks_exact(4 * width)
            .map(|r| r.chunks_exact(4).map(|x| i32::from_le_bytes([x[0], x[1], x[2], x[3]])).collect())
            .collect()
    };
    let w = Wiring::read(&data("intra-theta"), &data("inter-theta"), 96, 9, ExitRule::Custom).unwrap();
    net(Dragonfly::wired(96, 4, 9, w), &read("intra-theta", 3), &read("inter-theta", 2))
}

impl Net {
    /// Local distance from the intra records: 0, 1 if listed, else 2.
    fn ld(&self, x: u32, y: u32) -> u32 {
        let a = self.d.a;
        match (x % a, y % a) {
            (i, j) if i == j => 0,
            (i, j) if self.local.contains(&(i, j)) => 1,
            _ => 2,
        }
    }

    /// Checks one leg of a route (`path`: the routers visited, `from`
    /// first, `to` last): within a group the shortest local way; else one
    /// global record, left from a router of the source group with a link
    /// to the target's, reached and left by the shortest local ways.
    fn leg(&self, path: &[u32], what: &str) {
        let a = self.d.a;
        let (from, to) = (path[0], *path.last().unwrap());
        let hops = path.len() as u32 - 1;
        let globals: Vec<usize> = (1..path.len()).filter(|&k| path[k - 1] / a != path[k] / a).collect();
        if from / a == to / a {
            assert!(globals.is_empty(), "{what}: {path:?} leaves its group");
            assert_eq!(hops, self.ld(from, to), "{what}: {path:?}");
            return;
        }
        assert_eq!(globals.len(), 1, "{what}: {path:?} takes one global link");
        let k = globals[0];
        let (x, e) = (path[k - 1], path[k]);
        assert!(self.global.contains(&(x, e)), "{what}: {x} -> {e} is no global record");
        assert_eq!(e / a, to / a, "{what}: {path:?} lands in the target's group");
        assert_eq!(k as u32 - 1, self.ld(from, x), "{what}: {path:?} to its gateway {x}");
        assert_eq!(hops - k as u32, self.ld(e, to), "{what}: {path:?} from {e}");
    }

    /// Walks the route from router `s` to router `t` through router `v`
    /// (cleared at it, as the model does); checks both legs and the total.
    fn check(&self, s: u32, t: u32, v: u16, key: u64) -> u32 {
        let d = &self.d;
        let (mut r, mut via, mut path, mut split) = (s, v, vec![s], None);
        loop {
            if d.via_reached(r, via) {
                via = NO_VIA;
                split = Some(path.len() - 1);
            }
            let Some(port) = d.step_keyed(r, t, via, key) else { break };
            r = d.link(r, port as usize).expect("a wired port").0;
            path.push(r);
            assert!(path.len() <= 12, "{s} -> {t} via {v}: {path:?}");
        }
        let what = format!("{s} -> {t} via {v}");
        assert_eq!(r, t, "{what}");
        let k = split.unwrap_or_else(|| panic!("{what}: {path:?} never reaches its intermediate"));
        assert_eq!(path[k], v as u32, "{what}");
        self.leg(&path[..=k], &what);
        self.leg(&path[k..], &what);
        let hops = path.len() as u32 - 1;
        assert!(hops <= 4 * d.local_diameter() + 2, "{what}: {hops} hops");
        assert_eq!(hops, d.hops_keyed(s, t, v, key), "{what}");
        hops
    }
}

/// Every (source, destination, intermediate) router triple of the small
/// wiring (every intermediate CODES may draw: none in the source's group
/// unless the route stays in it), several draws each, and a sample of
/// Theta's: the route reaches its intermediate router, each leg is a
/// shortest one by the records, and the route has at most 4D + 2 hops.
#[test]
fn every_nonminimal_route_goes_through_its_router_by_the_shortest_legs() {
    let (n, theta) = (small(), theta());
    for (net, step_s, step_t, keys) in [(&n, 1, 1, 4u8), (&theta, 37, 29, 1)] {
        let d = &net.d;
        let mut longest = 0;
        for s in (0..d.routers()).step_by(step_s) {
            for t in (0..d.routers()).step_by(step_t) {
                for v in 0..d.routers() {
                    let same = d.group(s) == d.group(t);
                    if s == t || v == s || (!same && d.group(v) == d.group(s)) || (same && d.group(v) != d.group(s)) {
                        continue;
                    }
                    for k in 0..keys {
                        longest = longest.max(net.check(s, t, v as u16, key(k.wrapping_mul(77), s, t)));
                    }
                }
            }
        }
        // Aries groups (two local hops): the longest route is reached.
        assert_eq!(longest, 4 * d.local_diameter() + 2, "a = {}", d.a);
    }
}

/// CODES's draw, counted exactly over its uniform draws: toward another
/// group every router outside the source's group once, and the router `a`
/// after the source `a + 1` times (the source group's draws moved there);
/// within a group each of the `a − 1` other routers once.
#[test]
fn the_intermediate_is_drawn_as_codes_draws_it() {
    for net in [small(), theta()] {
        let d = &net.d;
        let (a, all) = (d.a, d.routers());
        for (s, t) in [(0, all - 1), (a - 1, a + 1), (all - 1, 3), (2, a - 2), (a + 1, 2 * a - 1)] {
            let n = d.custom_via_draws(s, t);
            let mut count = vec![0u32; all as usize];
            for k in 0..n {
                count[d.custom_via(s, t, k) as usize] += 1;
            }
            for (r, &c) in count.iter().enumerate() {
                let r = r as u32;
                let want = if d.group(s) == d.group(t) {
                    (d.group(r) == d.group(s) && r != s) as u32
                } else if r == (s + a) % all {
                    a + 1
                } else {
                    (d.group(r) != d.group(s)) as u32
                };
                assert_eq!(c, want, "a = {a}: {s} -> {t}: router {r}");
            }
        }
    }
}

/// The leg to an intermediate router in the destination's group draws its
/// gateway apart from the minimal route's (CODES draws them independently):
/// UGAL's two routes are not forced onto one channel.
#[test]
fn the_leg_to_the_intermediate_draws_apart_from_the_minimal_route() {
    let d = theta().d;
    let (s, t) = (0, 3 * 96 + 40);
    for v in [3 * 96 + 5, t] {
        let same = (0..=255u8)
            .filter(|&b| {
                let k = key(b, 1, 2);
                d.step_keyed(s, t, NO_VIA, k) == d.step_keyed(s, t, v as u16, k)
            })
            .count();
        // 24 gateways toward group 3, each reached by its own local ports.
        assert!(same < 128, "via {v}: the first port equals the minimal route's for {same} of 256 draws");
    }
}
