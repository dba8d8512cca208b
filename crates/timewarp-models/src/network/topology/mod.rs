//! Network topologies: k-ary n-cube tori, meshes, binary hypercubes,
//! dragonflies, Slim Flies ([`SlimFly`]) and fat-trees (indirect: only leaf
//! switches have nodes, see [`FatTree`]). A topology names each router's ports, says
//! where every link goes, and routes minimally (dimension order on the
//! cubes; local–global–local on a dragonfly, see [`Dragonfly`]).
//!
//! Ports of a torus or mesh router: `2d` leads to the neighbour one step up
//! dimension `d` (coordinate + 1), `2d + 1` one step down. A hypercube router
//! has port `d` to the neighbour whose address differs in bit `d`. Node ids
//! are mixed-radix: coordinate 0 varies fastest.
//!
//! In this folder: the cubes (here), [`Dragonfly`] (dragonfly.rs; wired
//! by CODES's connection files: connections.rs), [`FatTree`] (fattree.rs)
//! and [`SlimFly`] (slimfly.rs) with their tests (`*_tests.rs`), and route.rs:
//! how the model routes a packet at a router on each of them (virtual
//! channel classes, Valiant, ROMM, UGAL-L and PAR, up/down and its adaptive choice).

pub(super) mod connections;
#[cfg(test)]
mod connections_tests;
#[cfg(test)]
mod custom_via_tests;
mod dragonfly;
#[cfg(test)]
mod dragonfly_tests;
mod fattree;
#[cfg(test)]
mod fattree_rails_tests;
#[cfg(test)]
mod fattree_taper_tests;
#[cfg(test)]
mod fattree_tests;
#[cfg(test)]
mod plus_tests;
mod slimfly;
#[cfg(test)]
mod slimfly_tests;
#[cfg(test)]
mod slimfly_ugal_tests;

use serde::{Deserialize, Serialize};

pub use dragonfly::{Dragonfly, NO_VIA, PAR_PENDING};
pub use fattree::{FatTree, Hop, RailSelect, CODES_RAIL_SELECT_LIMIT, RAIL_KEPT};
pub use slimfly::SlimFly;

/// A direct network's shape.
// A tag byte of its own (`repr(u8)`): every hop matches on the topology
// several times, and the layout Rust picks without it hides the variant in
// a niche of the first `Vec`, which costs arithmetic at each match (issue
// 60: 7 of the 48 instructions `latency` took per hop were the match).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[repr(u8)]
pub enum Topology {
    /// k-ary n-cube with wrap-around links (`dims[d]` routers along dimension `d`).
    Torus(Vec<u32>),
    /// The same grid without wrap-around links.
    Mesh(Vec<u32>),
    /// Binary n-cube of `2^n` routers (`n` is the field).
    Hypercube(u32),
    /// Groups of all-to-all routers joined by global links, several terminals per router.
    Dragonfly(Dragonfly),
    /// Two- or three-level fat-tree of switches; nodes on the leaves only.
    #[serde(rename = "fattree")]
    FatTree(FatTree),
    /// The MMS graph of diameter 2 ([`SlimFly`]), several terminals per router.
    #[serde(rename = "slimfly")]
    SlimFly(SlimFly),
}

/// One step of a route: the output port, and whether the link it takes is a
/// torus' wrap-around link (the dateline of its dimension).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// Output port (a network port, below [`Topology::ports`]).
    pub port: u8,
    /// The dimension the step moves in.
    pub dim: u8,
    /// The link crosses the dateline (the wrap-around link of a torus ring).
    pub wraps: bool,
}

impl Topology {
    /// Nodes (terminals): one per router, except on a dragonfly (`p` per
    /// router) and a fat-tree ([`FatTree::per_leaf`] per leaf switch, none on the others).
    pub fn nodes(&self) -> u32 {
        match self {
            Topology::FatTree(f) => f.nodes(),
            Topology::Dragonfly(d) if d.leaves().is_some() => d.group_nodes() * d.g,
            _ => self.routers() * self.terminals(),
        }
    }

    /// NICs that router `r` really has: [`Topology::terminals`], except on a
    /// fat-tree's switches above the leaves (none).
    pub fn nics(&self, r: u32) -> u32 {
        match self {
            Topology::FatTree(f) if f.level(r) > 0 => 0,
            // Dragonfly+: terminals on the leaves, numbered first.
            Topology::Dragonfly(d) if d.leaves().is_some_and(|l| r >= l * d.g) => 0,
            _ => self.terminals(),
        }
    }

    /// The node behind NIC `nic` of router `r` (`None`: a slot with no node,
    /// on a fat-tree's switches above the leaves). Nodes are numbered
    /// router by router: NIC `nic` of router `r` is node `r · t + nic`.
    #[inline]
    pub fn node(&self, r: u32, nic: u32) -> Option<u32> {
        (nic < self.nics(r)).then(|| r * self.terminals() + nic)
    }

    /// Routers (one LP each).
    pub fn routers(&self) -> u32 {
        match self {
            Topology::Torus(d) | Topology::Mesh(d) => d.iter().product(),
            Topology::Hypercube(n) => 1 << n,
            Topology::Dragonfly(d) => d.routers(),
            Topology::FatTree(f) => f.switches(),
            Topology::SlimFly(s) => s.routers(),
        }
    }

    /// Terminals (NIC slots) per router; node `n` is terminal `n mod t` of
    /// router `n / t` (a fat-tree's leaves come first; its other switches
    /// have the slots but no NICs behind them, see [`Topology::nics`]).
    #[inline]
    pub fn terminals(&self) -> u32 {
        match self {
            Topology::Dragonfly(d) => d.p,
            Topology::FatTree(f) => f.per_leaf(),
            Topology::SlimFly(s) => s.p,
            _ => 1,
        }
    }

    /// Network ports per router (the NICs' ports come after them).
    pub fn ports(&self) -> usize {
        match self {
            Topology::Torus(d) | Topology::Mesh(d) => 2 * d.len(),
            Topology::Hypercube(n) => *n as usize,
            Topology::Dragonfly(d) => d.ports(),
            Topology::FatTree(f) => f.ports(),
            Topology::SlimFly(s) => s.ports(),
        }
    }

    /// The name used on the command line.
    pub fn name(&self) -> &'static str {
        match self {
            Topology::Torus(_) => "torus",
            Topology::Mesh(_) => "mesh",
            Topology::Hypercube(_) => "hypercube",
            Topology::Dragonfly(_) => "dragonfly",
            Topology::FatTree(_) => "fattree",
            Topology::SlimFly(_) => "slimfly",
        }
    }

    /// Checks the shape: every dimension at least 2 routers, at most 2^24 routers.
    pub fn validate(&self) -> Result<(), String> {
        match self {
            Topology::Torus(d) | Topology::Mesh(d) => {
                if d.is_empty() || d.len() > 8 {
                    return Err(format!("--dims needs 1 to 8 dimensions, got {}", d.len()));
                }
                if let Some(k) = d.iter().find(|&&k| k < 2) {
                    return Err(format!("every dimension needs at least 2 routers, got {k} (--dims)"));
                }
                if d.iter().try_fold(1u64, |a, &k| Some(a * k as u64).filter(|&n| n <= 1 << 24)).is_none() {
                    return Err(format!("--dims {d:?} has more than 2^24 routers"));
                }
            }
            Topology::Hypercube(n) => {
                if !(1..=24).contains(n) {
                    return Err(format!("a hypercube needs 2 to 2^24 nodes (a power of two), got 2^{n}"));
                }
            }
            Topology::Dragonfly(d) => d.validate()?,
            Topology::FatTree(f) => f.validate()?,
            Topology::SlimFly(s) => s.validate()?,
        }
        Ok(())
    }

    /// Coordinate of `node` along dimension `d`, and the stride of that dimension.
    #[inline]
    fn coord(dims: &[u32], node: u32, d: usize) -> (u32, u32) {
        let stride: u32 = dims[..d].iter().product();
        ((node / stride) % dims[d], stride)
    }

    /// The router at the other end of `port` of `node`, if the port has a link.
    #[inline]
    pub fn neighbour(&self, node: u32, port: usize) -> Option<u32> {
        match self {
            Topology::Hypercube(_) => Some(node ^ (1 << port)),
            Topology::Dragonfly(d) => d.link(node, port).map(|l| l.0),
            Topology::FatTree(f) => f.neighbour(node, port).map(|n| n.0),
            Topology::SlimFly(s) => Some(s.neighbour(node, port).0),
            Topology::Torus(dims) | Topology::Mesh(dims) => {
                let d = port / 2;
                let (c, stride) = Self::coord(dims, node, d);
                let k = dims[d];
                let up = port & 1 == 0;
                let torus = matches!(self, Topology::Torus(_));
                match (up, c) {
                    (true, c) if c + 1 < k => Some(node + stride),
                    (true, _) => torus.then(|| node + stride - k * stride),
                    (false, 0) => torus.then(|| node + (k - 1) * stride),
                    (false, _) => Some(node - stride),
                }
            }
        }
    }

    /// The router behind `port` of `node` and the port its link arrives
    /// on: [`neighbour`](Self::neighbour) and [`peer_port`](Self::peer_port)
    /// in one match and one table look-up (every hop asks for both).
    ///
    /// ```
    /// use timewarp_models::network::Topology;
    /// let t = Topology::Hypercube(3);
    /// assert_eq!(t.link(5, 1), Some((7, 1)));
    /// ```
    #[inline]
    pub fn link(&self, node: u32, port: usize) -> Option<(u32, usize)> {
        match self {
            Topology::Hypercube(_) => Some((node ^ (1 << port), port)),
            Topology::Dragonfly(d) => d.link(node, port),
            Topology::FatTree(f) => f.neighbour(node, port),
            Topology::SlimFly(s) => Some(s.neighbour(node, port)),
            Topology::Torus(_) | Topology::Mesh(_) => self.neighbour(node, port).map(|r| (r, port ^ 1)),
        }
    }

    /// The port of the neighbour behind `port` of `node` that the link arrives on.
    #[inline]
    pub fn peer_port(&self, node: u32, port: usize) -> usize {
        match self {
            Topology::Hypercube(_) => port,
            Topology::Dragonfly(d) => d.link(node, port).map_or(port, |l| l.1),
            Topology::FatTree(f) => f.neighbour(node, port).map_or(port, |n| n.1),
            Topology::SlimFly(s) => s.neighbour(node, port).1,
            _ => port ^ 1,
        }
    }

    /// The routers router `node` has links to.
    pub fn neighbours(&self, node: u32) -> Vec<u32> {
        let mut v: Vec<u32> = (0..self.ports()).filter_map(|p| self.neighbour(node, p)).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The next step from `node` towards `dst` in dimension order (lowest
    /// dimension first; on a torus ring the shorter way, half-way round up
    /// from even coordinates and down from odd ones; on a hypercube e-cube
    /// order; on a dragonfly the minimal route), or `None` at `dst` (routers).
    #[inline]
    pub fn route(&self, node: u32, dst: u32) -> Option<Step> {
        match self {
            Topology::Dragonfly(d) => d.step(node, dst, NO_VIA).map(|port| Step { port, dim: 0, wraps: false }),
            Topology::SlimFly(s) => s.step(node, dst).map(|port| Step { port, dim: 0, wraps: false }),
            // Towards leaf `dst` (its first node), the destination-based up port.
            Topology::FatTree(f) => match f.hop(node, dst * f.per_leaf()) {
                Hop::Eject(_) => None,
                Hop::Down(port) | Hop::Up { pick: port, .. } => Some(Step { port: port as u8, dim: 0, wraps: false }),
            },
            Topology::Hypercube(_) => {
                let diff = node ^ dst;
                (diff != 0).then(|| {
                    let d = diff.trailing_zeros();
                    Step { port: d as u8, dim: d as u8, wraps: false }
                })
            }
            Topology::Torus(dims) | Topology::Mesh(dims) => {
                let torus = matches!(self, Topology::Torus(_));
                let mut stride = 1;
                for (d, &k) in dims.iter().enumerate() {
                    let c = (node / stride) % k;
                    let t = (dst / stride) % k;
                    stride *= k;
                    if c == t {
                        continue;
                    }
                    let up = if torus {
                        // The shorter way; half-way round (even k), up from
                        // even coordinates and down from odd ones, so both
                        // directions of a ring carry the same load.
                        let d = (t + k - c) % k;
                        2 * d < k || (2 * d == k && c & 1 == 0)
                    } else {
                        t > c
                    };
                    let wraps = torus && ((up && c == k - 1) || (!up && c == 0));
                    return Some(Step { port: (2 * d + !up as usize) as u8, dim: d as u8, wraps });
                }
                None
            }
        }
    }

    /// Whether `port` of `node` leads one hop closer to `dst` (a minimal
    /// route may take it; on a torus ring half-way round both ways are).
    #[inline]
    pub fn productive(&self, node: u32, dst: u32, port: usize) -> bool {
        match self {
            // One minimal route (the gateway is fixed): only its port.
            Topology::Dragonfly(d) => d.step(node, dst, NO_VIA) == Some(port as u8),
            Topology::FatTree(_) | Topology::SlimFly(_) => {
                self.route(node, dst).is_some_and(|s| s.port as usize == port)
            }
            Topology::Hypercube(_) => (node ^ dst) >> port & 1 == 1,
            Topology::Torus(dims) | Topology::Mesh(dims) => {
                let d = port / 2;
                let (c, stride) = Self::coord(dims, node, d);
                let (t, k) = ((dst / stride) % dims[d], dims[d]);
                if c == t {
                    return false;
                }
                let up = port & 1 == 0;
                if matches!(self, Topology::Mesh(_)) {
                    return up == (t > c);
                }
                let du = (t + k - c) % k;
                if up {
                    2 * du <= k
                } else {
                    2 * du >= k
                }
            }
        }
    }

    /// The minimal quadrant of routers `a` and `b` on a cube (ROMM's
    /// intermediates): the routers on some minimal route between them, each
    /// coordinate between theirs along the way [`Topology::route`] goes (a
    /// torus ring the shorter way, half-way round as route breaks the tie;
    /// a hypercube: `a` with any of the bits it differs from `b` in flipped).
    /// Returns how many there are and the `i`-th of them (`i` below that
    /// count; mixed-radix, dimension 0 fastest), so one draw picks one
    /// uniformly.
    pub fn quadrant(&self, a: u32, b: u32) -> (u64, impl Fn(u64) -> u32 + '_) {
        let count = match self {
            Topology::Hypercube(_) => 1u64 << (a ^ b).count_ones(),
            Topology::Torus(dims) | Topology::Mesh(dims) => {
                let mut stride = 1;
                dims.iter()
                    .map(|&k| {
                        let (c, t) = ((a / stride) % k, (b / stride) % k);
                        stride *= k;
                        self.ring_steps(c, t, k).1 as u64 + 1
                    })
                    .product()
            }
            _ => 1,
        };
        let pick = move |mut i: u64| -> u32 {
            match self {
                Topology::Hypercube(_) => {
                    // Deposit i's bits into the differing positions.
                    let (mut diff, mut v) = (a ^ b, a);
                    while diff != 0 {
                        let bit = diff & diff.wrapping_neg();
                        if i & 1 == 1 {
                            v ^= bit;
                        }
                        i >>= 1;
                        diff ^= bit;
                    }
                    v
                }
                Topology::Torus(dims) | Topology::Mesh(dims) => {
                    let (mut stride, mut v) = (1, 0);
                    for &k in dims {
                        let (c, t) = ((a / stride) % k, (b / stride) % k);
                        let (up, steps) = self.ring_steps(c, t, k);
                        let o = (i % (steps as u64 + 1)) as u32;
                        i /= steps as u64 + 1;
                        let x = if up { (c + o) % k } else { (c + k - o) % k };
                        v += x * stride;
                        stride *= k;
                    }
                    v
                }
                _ => a,
            }
        };
        (count, pick)
    }

    /// From coordinate `c` to `t` along a ring (torus) or line (mesh) of
    /// `k`: whether [`Topology::route`] goes up, and how many steps.
    #[inline]
    fn ring_steps(&self, c: u32, t: u32, k: u32) -> (bool, u32) {
        if !matches!(self, Topology::Torus(_)) {
            return (t >= c, c.abs_diff(t));
        }
        let du = (t + k - c) % k;
        let up = 2 * du < k || (2 * du == k && c & 1 == 0);
        (up, if up { du } else { (k - du) % k })
    }

    /// Router-to-router hops of the (minimal) route from router `a` to router `b`.
    pub fn distance(&self, a: u32, b: u32) -> u32 {
        match self {
            Topology::Dragonfly(d) => d.hops(a, b, NO_VIA),
            // Leaves only (the routers with nodes).
            Topology::FatTree(f) => f.leaf_hops(a, b),
            Topology::SlimFly(s) => s.hops(a, b),
            Topology::Hypercube(_) => (a ^ b).count_ones(),
            Topology::Torus(dims) | Topology::Mesh(dims) => {
                let torus = matches!(self, Topology::Torus(_));
                let mut stride = 1;
                let mut h = 0;
                for &k in dims {
                    let (c, t) = ((a / stride) % k, (b / stride) % k);
                    stride *= k;
                    let up = (t + k - c) % k;
                    h += if torus { up.min(k - up) } else { c.abs_diff(t) };
                }
                h
            }
        }
    }

    /// Mean hops under uniform random traffic (destination uniform over the
    /// other nodes), from the closed forms: hypercube `n/2 · N/(N−1)`; torus
    /// `Σ_d a(k_d) · N/(N−1)` with `a(k) = k/4` for even `k`, `(k²−1)/(4k)`
    /// for odd; mesh `Σ_d (k_d²−1)/(3k_d) · N/(N−1)`. A dragonfly's minimal
    /// routes have no closed form here (the gateway depends on the link
    /// arrangement): the mean over every pair of nodes, by enumeration.
    pub fn mean_uniform_hops(&self) -> f64 {
        let n = self.nodes() as f64;
        let per_dim: f64 = match self {
            Topology::Dragonfly(d) => {
                // Nodes on one router are 0 hops apart; p² pairs per router pair.
                let r = d.routers();
                let total: u64 = (0..r).flat_map(|x| (0..r).map(move |y| d.hops(x, y, NO_VIA) as u64)).sum();
                let p = d.p as f64;
                return total as f64 * p * p / (n * (n - 1.0));
            }
            Topology::FatTree(f) => return f.mean_uniform_hops(),
            Topology::SlimFly(s) => return s.mean_uniform_hops(),
            Topology::Hypercube(d) => *d as f64 / 2.0,
            Topology::Torus(dims) => dims
                .iter()
                .map(|&k| {
                    let k = k as f64;
                    if k as u64 & 1 == 0 {
                        k / 4.0
                    } else {
                        (k * k - 1.0) / (4.0 * k)
                    }
                })
                .sum(),
            Topology::Mesh(dims) => dims.iter().map(|&k| (k as f64 * k as f64 - 1.0) / (3.0 * k as f64)).sum(),
        };
        per_dim * n / (n - 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shapes() -> Vec<Topology> {
        vec![
            Topology::Torus(vec![4, 4]),
            Topology::Torus(vec![5, 3, 2]),
            Topology::Mesh(vec![4, 3]),
            Topology::Mesh(vec![2, 2, 2]),
            Topology::Hypercube(4),
        ]
    }

    /// `link` is `neighbour` and `peer_port` in one look-up, on every family.
    #[test]
    fn a_link_is_its_neighbour_and_peer_port() {
        let mut all = shapes();
        all.push(Topology::Dragonfly(Dragonfly::new(4, 2, 2, 9)));
        all.push(Topology::FatTree(FatTree::new(4, 3, 16, None).unwrap()));
        all.push(Topology::FatTree(FatTree::new(4, 2, 8, None).unwrap().with_rails(2, Default::default()).unwrap()));
        all.push(Topology::SlimFly(SlimFly::new(5, 2).unwrap()));
        for t in all {
            for a in 0..t.routers() {
                for p in 0..t.ports() {
                    let both = t.neighbour(a, p).map(|b| (b, t.peer_port(a, p)));
                    assert_eq!(t.link(a, p), both, "{t:?} {a} port {p}");
                }
            }
        }
    }

    #[test]
    fn links_are_symmetric() {
        for t in shapes() {
            for a in 0..t.nodes() {
                for p in 0..t.ports() {
                    if let Some(b) = t.neighbour(a, p) {
                        assert_eq!(t.neighbour(b, t.peer_port(a, p)), Some(a), "{t:?} {a} port {p}");
                    }
                }
            }
        }
    }

    #[test]
    fn routes_are_minimal_and_reach_the_destination() {
        for t in shapes() {
            for a in 0..t.nodes() {
                for b in 0..t.nodes() {
                    let (mut at, mut hops) = (a, 0);
                    while let Some(s) = t.route(at, b) {
                        at = t.neighbour(at, s.port as usize).expect("a route takes existing links");
                        hops += 1;
                        assert!(hops <= t.nodes(), "{t:?} loops from {a} to {b}");
                    }
                    assert_eq!(at, b);
                    assert_eq!(hops, t.distance(a, b), "{t:?} {a}->{b}");
                }
            }
        }
    }

    /// Hops of the dimension-order route from `a` to `b`.
    fn walk(t: &Topology, a: u32, b: u32) -> u32 {
        let (mut at, mut hops) = (a, 0);
        while let Some(s) = t.route(at, b) {
            at = t.neighbour(at, s.port as usize).expect("a route takes existing links");
            hops += 1;
        }
        hops
    }

    #[test]
    fn every_romm_route_through_every_router_of_the_quadrant_is_minimal() {
        for t in shapes() {
            for a in 0..t.nodes() {
                for b in 0..t.nodes() {
                    let (count, pick) = t.quadrant(a, b);
                    let mut seen: Vec<u32> = (0..count).map(&pick).collect();
                    seen.sort_unstable();
                    seen.dedup();
                    assert_eq!(seen.len() as u64, count, "{t:?} {a}->{b}: distinct intermediates");
                    assert!(seen.contains(&a) && seen.contains(&b), "{t:?} {a}->{b}: the box holds both ends");
                    for v in seen {
                        let hops = walk(&t, a, v) + walk(&t, v, b);
                        assert_eq!(hops, t.distance(a, b), "{t:?} {a}->{b} through {v}");
                    }
                    // The box's size from the coordinates alone: Π (|Δ_d| + 1), 2^Hamming on a hypercube.
                    let want: u64 = match &t {
                        Topology::Hypercube(_) => 1 << (a ^ b).count_ones(),
                        Topology::Torus(d) | Topology::Mesh(d) => {
                            let mut stride = 1;
                            d.iter()
                                .map(|&k| {
                                    let one = Topology::Mesh(vec![k]);
                                    let (x, y) = ((a / stride) % k, (b / stride) % k);
                                    stride *= k;
                                    let steps = if matches!(t, Topology::Torus(_)) {
                                        Topology::Torus(vec![k]).distance(x, y)
                                    } else {
                                        one.distance(x, y)
                                    };
                                    steps as u64 + 1
                                })
                                .product()
                        }
                        _ => unreachable!(),
                    };
                    assert_eq!(count, want, "{t:?} {a}->{b}");
                }
            }
        }
    }

    #[test]
    fn productive_ports_are_exactly_those_one_hop_closer() {
        for t in shapes() {
            for a in 0..t.nodes() {
                for b in 0..t.nodes() {
                    for p in 0..t.ports() {
                        let closer = t.neighbour(a, p).is_some_and(|n| t.distance(n, b) + 1 == t.distance(a, b));
                        assert_eq!(t.productive(a, b, p), closer, "{t:?} {a}->{b} port {p}");
                    }
                }
            }
        }
    }

    #[test]
    fn exhaustive_mean_distance_matches_the_closed_forms() {
        for t in shapes() {
            let n = t.nodes();
            let total: u64 =
                (0..n).flat_map(|a| (0..n).map(move |b| (a, b))).map(|(a, b)| t.distance(a, b) as u64).sum();
            let mean = total as f64 / (n as f64 * (n as f64 - 1.0));
            assert!((mean - t.mean_uniform_hops()).abs() < 1e-12, "{t:?}: {mean} vs {}", t.mean_uniform_hops());
        }
    }
}
