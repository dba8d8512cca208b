//! Slim Fly geometry (Besta and Hoefler, SC 2014): the McKay–Miller–Širáň
//! (MMS) graph of a prime `q = 4w + δ` (δ = ±1), `2q²` routers of diameter
//! 2, with `p` terminals each, as CODES's `slimfly` model builds it
//! (`slimfly.c`, `get_router_connections`).
//!
//! Routers are `(s, x, y)`, `s ∈ {0, 1}`, `x, y ∈ F_q`, numbered
//! `s·q² + x·q + y`. Router `(0, x, y)` is joined to `(0, x, y')` when
//! `y − y' ∈ X`, router `(1, m, c)` to `(1, m, c')` when `c − c' ∈ X'`
//! (local links, within the "group" of equal `s, x`), and `(0, x, y)` to
//! `(1, m, c)` when `y = m·x + c` (global links: one to every group of the
//! other subgraph). `X` holds the even powers of a primitive element `ξ`
//! and `X'` the odd ones when δ = 1; when δ = −1, `X = {1, ξ², …,
//! ξ^{2w−2}, ξ^{2w−1}, ξ^{2w+1}, …, ξ^{4w−3}}` and `X' = ξ·X`. Both sets are
//! closed under negation, so the local links are undirected.
//!
//! Ports of a router: `0..L` local, port `i` to `y + X[i]` (X sorted);
//! then `L..L+q` global, port `L + m` of a subgraph-0 router to the router
//! of group `m` of subgraph 1 (and port `L + x` of a subgraph-1 router to
//! group `x` of subgraph 0). `L = |X| = (q − δ) / 2`.
//!
//! Minimal routes take one hop to a neighbour and two otherwise, through
//! the common neighbour behind the lowest port.

use serde::{Deserialize, Serialize};

/// A Slim Fly's shape.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlimFly {
    /// The prime of the MMS graph (routers per group; `2q` groups).
    pub q: u32,
    /// Terminals (nodes) per router.
    pub p: u32,
    /// The generator set `X` of subgraph 0, sorted.
    pub x: Vec<u32>,
    /// The generator set `X'` of subgraph 1, sorted.
    pub xp: Vec<u32>,
}

/// Whether `n` is prime.
fn prime(n: u32) -> bool {
    n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| n % d != 0)
}

impl SlimFly {
    /// The MMS Slim Fly of prime `q` (`q mod 4` of 1 or 3) with `p`
    /// terminals per router and the generator sets of the smallest
    /// primitive element; the message names the option to fix.
    pub fn new(q: u32, p: u32) -> Result<Self, String> {
        if !prime(q) || q % 4 == 0 || q % 4 == 2 || q < 3 {
            return Err(format!(
                "--slimfly-q must be a prime of the form 4w ± 1 (3, 5, 7, 11, 13, 17, 19, …), got {q}"
            ));
        }
        if q > 181 {
            return Err(format!("--slimfly-q {q} is too large: at most 181 (2q² routers are named in 16 bits)"));
        }
        let xi =
            (2..q).find(|&g| (1..q - 1).all(|e| pow(g, e, q) != 1)).expect("every prime field has a primitive element");
        let (w, delta1) = if q % 4 == 1 { ((q - 1) / 4, true) } else { ((q + 1) / 4, false) };
        let mut x: Vec<u32> = if delta1 {
            (0..q - 1).step_by(2).map(|e| pow(xi, e, q)).collect()
        } else {
            (0..2 * w - 1).step_by(2).chain((2 * w - 1..4 * w - 2).step_by(2)).map(|e| pow(xi, e, q)).collect()
        };
        let mut xp: Vec<u32> = x.iter().map(|&v| v * xi % q).collect();
        x.sort_unstable();
        xp.sort_unstable();
        let s = SlimFly { q, p, x, xp };
        s.validate()?;
        Ok(s)
    }

    /// The Slim Fly of `q` and `p` with the generator sets given (CODES's
    /// `generator_set_X`, `generator_set_X_prime`).
    pub fn with_sets(q: u32, p: u32, mut x: Vec<u32>, mut xp: Vec<u32>) -> Result<Self, String> {
        x.sort_unstable();
        xp.sort_unstable();
        let s = SlimFly { q, p, x, xp };
        s.validate()?;
        Ok(s)
    }

    /// Checks the shape: `q` a prime up to 181, sets of distinct nonzero
    /// residues of equal size closed under negation, at most 255 ports,
    /// and diameter 2 (every pair of routers within two hops).
    pub fn validate(&self) -> Result<(), String> {
        let SlimFly { q, p, x, xp } = self;
        let q = *q;
        if !prime(q) || !(3..=181).contains(&q) {
            return Err(format!("a Slim Fly needs a prime q between 3 and 181, got {q}"));
        }
        if *p == 0 {
            return Err("a Slim Fly needs --terminals-per-router >= 1".into());
        }
        for (name, set) in [("X", x), ("X'", xp)] {
            let closed = set.iter().all(|&v| v > 0 && v < q && set.contains(&(q - v)));
            let distinct = set.windows(2).all(|w| w[0] < w[1]);
            if set.is_empty() || !closed || !distinct {
                return Err(format!(
                    "the generator set {name} {set:?} must hold distinct residues 1..{q} closed under negation mod {q}"
                ));
            }
        }
        if x.len() != xp.len() {
            return Err(format!(
                "the generator sets X and X' must have the same size, got {} and {}",
                x.len(),
                xp.len()
            ));
        }
        if x.len() as u64 + q as u64 + *p as u64 > 255 {
            return Err(format!(
                "a Slim Fly router may have at most 255 ports (|X| local + q global + p terminals), got {}",
                x.len() as u64 + q as u64 + *p as u64
            ));
        }
        if 2 * q as u64 * q as u64 * *p as u64 > 1 << 24 {
            return Err("a Slim Fly may have at most 2^24 nodes".into());
        }
        // Diameter 2: within a subgraph group by the sets' sums, and the rest
        // through the global links (MMS's construction gives it for its sets).
        let reach = |set: &[u32], d: u32| {
            d == 0 || set.contains(&d) || set.iter().any(|&a| set.iter().any(|&b| (a + b) % q == d))
        };
        if let Some(d) = (1..q).find(|&d| !reach(x, d) || !reach(xp, d)) {
            return Err(format!(
                "the generator sets {x:?} and {xp:?} do not give diameter 2 (a difference of {d} takes more than two \
                 local hops): use MMS's sets for q = {q}"
            ));
        }
        Ok(())
    }

    /// Routers in the network.
    pub fn routers(&self) -> u32 {
        2 * self.q * self.q
    }

    /// Local ports per router.
    #[inline]
    pub fn locals(&self) -> usize {
        self.x.len()
    }

    /// Network ports per router (local, then global).
    pub fn ports(&self) -> usize {
        self.locals() + self.q as usize
    }

    /// Whether port `o` is a global link.
    #[inline]
    pub fn is_global(&self, o: usize) -> bool {
        o >= self.locals()
    }

    /// Router `r` as `(s, x, y)`.
    #[inline]
    pub fn coords(&self, r: u32) -> (u32, u32, u32) {
        let q = self.q;
        (r / (q * q), r / q % q, r % q)
    }

    /// The router at the other end of `port` of router `r`, and the port it arrives on.
    #[inline]
    pub fn neighbour(&self, r: u32, port: usize) -> (u32, usize) {
        let q = self.q;
        let (s, a, b) = self.coords(r);
        let l = self.locals();
        if port < l {
            let set = if s == 0 { &self.x } else { &self.xp };
            let d = set[port];
            let back = set.binary_search(&(q - d)).expect("the sets are closed under negation");
            return (r - b + (b + d) % q, back);
        }
        let g = (port - l) as u32;
        if s == 0 {
            // (0, x=a, y=b) to (1, m=g, c) with b = g·a + c.
            let c = (b + q * q - g * a % q) % q;
            (q * q + g * q + c, l + a as usize)
        } else {
            // (1, m=a, c=b) to (0, x=g, y) with y = a·g + b.
            let y = (a * g + b) % q;
            (g * q + y, l + a as usize)
        }
    }

    /// The port of router `r` that leads to router `t`, if they are neighbours.
    #[inline]
    pub fn port_to(&self, r: u32, t: u32) -> Option<usize> {
        let q = self.q;
        let ((s, a, b), (st, at, bt)) = (self.coords(r), self.coords(t));
        match (s == st, a == at) {
            (true, true) => {
                let set = if s == 0 { &self.x } else { &self.xp };
                set.binary_search(&((bt + q - b) % q)).ok()
            }
            (true, false) => None,
            (false, _) => {
                let port = self.locals() + at as usize;
                (self.neighbour(r, port).0 == t).then_some(port)
            }
        }
    }

    /// The next port from router `r` on the minimal route to router `t`
    /// (`None` at `t`): the direct link, else the lowest port whose router
    /// neighbours `t`.
    #[inline]
    pub fn step(&self, r: u32, t: u32) -> Option<u8> {
        if r == t {
            return None;
        }
        if let Some(p) = self.port_to(r, t) {
            return Some(p as u8);
        }
        let p = (0..self.ports())
            .find(|&p| self.port_to(self.neighbour(r, p).0, t).is_some())
            .expect("a Slim Fly has diameter 2");
        Some(p as u8)
    }

    /// Router-to-router hops of the minimal route from `a` to `b`: 0, 1 or 2.
    #[inline]
    pub fn hops(&self, a: u32, b: u32) -> u32 {
        if a == b {
            0
        } else if self.port_to(a, b).is_some() {
            1
        } else {
            2
        }
    }

    /// UGAL's intermediate from a uniform draw `v` over all routers, for a
    /// packet from router `from` to router `to`, as CODES's `slimfly.c`
    /// adjusts it: one equal to `to`, then one equal to `from`, moves to
    /// the next router modulo `2q² − 1` (so it may still be an end: such a
    /// candidate is the minimal route).
    #[inline]
    pub fn ugal_candidate(&self, v: u32, from: u32, to: u32) -> u32 {
        let mut v = v;
        for end in [to, from] {
            if v == end {
                v = (v + 1) % (self.routers() - 1);
            }
        }
        v
    }

    /// UGAL's choice among candidate intermediates `(router, q · H)` against
    /// the minimal route's `q_min · H_min` (`q`: the next output's
    /// occupancy, `H`: the route's hops): the first cheapest candidate if it
    /// is cheaper by more than `threshold`, else `None` (minimal). CODES
    /// compares `q · H / H_min` against `q_min`: the same order; its
    /// threshold is 0, ties going to the minimal route.
    pub fn ugal_pick(cost_min: u32, candidates: &[(u32, u32)], threshold: f64) -> Option<u32> {
        let best = candidates.iter().copied().reduce(|b, c| if c.1 < b.1 { c } else { b })?;
        // Integers below 2^53: with a threshold of 0 exactly the integer comparison.
        (cost_min as f64 > best.1 as f64 + threshold).then_some(best.0)
    }

    /// Mean router hops between two distinct nodes under uniform traffic
    /// (destination uniform over the other `N − 1`): a router has `k` =
    /// [`SlimFly::ports`] neighbours at one hop and the other `2q² − 1 − k`
    /// routers at two (diameter 2, every router alike).
    pub fn mean_uniform_hops(&self) -> f64 {
        let (n, p) = (self.routers() as f64, self.p as f64);
        let k = self.ports() as f64;
        p * (k + 2.0 * (n - 1.0 - k)) / (n * p - 1.0)
    }
}

/// `b^e mod m`.
fn pow(b: u32, e: u32, m: u32) -> u32 {
    (0..e).fold(1u64, |acc, _| acc * b as u64 % m as u64) as u32
}
