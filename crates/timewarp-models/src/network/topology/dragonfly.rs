//! Dragonfly geometry (Kim, Dally, Scott and Abts, ISCA 2008): groups of
//! `a` routers with `p` terminals each; the routers of a group are joined
//! all-to-all by local links and every router has `h` global links to other
//! groups.
//!
//! Numbering: router `r` is router `r mod a` of group `r / a`; terminal
//! (node) `n` hangs off router `n / p`. Ports of router `i`: `0..a−1` local,
//! port `j` to router `j` of the group for `j < i` and `j + 1` otherwise;
//! then `a−1 .. a−1+h` global. A group's `a·h` global links are numbered
//! `k = i·h + port − (a−1)`; link `k` leads to the `k mod (g−1)`-th other
//! group (other groups in id order, the group itself skipped), as its
//! parallel link number `k / (g−1)`. With the maximal `g = a·h + 1` groups
//! every pair of groups has exactly one global link; with fewer groups
//! (`a·h` must be a multiple of `g − 1`) every pair has `a·h / (g−1)`.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::connections::{ExitRule, Wiring};

/// "No intermediate group": a packet routed minimally (or already past its
/// Valiant intermediate group).
pub const NO_VIA: u16 = u16::MAX;

/// PAR: the mark on a packet's intermediate group while it still goes
/// minimally in its source group (`via = PAR_PENDING | group`, or router
/// on a `dragonfly_custom` network), so the
/// routers after its source there may still send it through the group.
pub const PAR_PENDING: u16 = 0x8000;

/// A dragonfly's shape.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dragonfly {
    /// Routers per group.
    pub a: u32,
    /// Terminals (nodes) per router.
    pub p: u32,
    /// Global links per router.
    pub h: u32,
    /// Groups (at most `a·h + 1`, with `a·h` a multiple of `g − 1`).
    pub g: u32,
    /// The wiring read from CODES connection files ([`Wiring`]), instead of
    /// the all-to-all groups and global arrangement above (`h` is then the
    /// most global links any router has). Not serialised: it is read again
    /// from the files.
    #[serde(skip)]
    pub wiring: Option<Arc<Wiring>>,
}

impl Dragonfly {
    /// The maximal dragonfly of these routers: `g = a·h + 1` groups, one
    /// global link between every pair of groups.
    pub fn maximal(a: u32, p: u32, h: u32) -> Self {
        Dragonfly::new(a, p, h, a * h + 1)
    }

    /// The standard dragonfly of `g` groups (all-to-all groups, the global
    /// arrangement of the module's text).
    pub fn new(a: u32, p: u32, h: u32, g: u32) -> Self {
        Dragonfly { a, p, h, g, wiring: None }
    }

    /// A dragonfly wired by `w` (read from connection files): `g` groups of
    /// `a` routers with `p` terminals each.
    pub fn wired(a: u32, p: u32, g: u32, w: Wiring) -> Self {
        Dragonfly { a, p, h: w.global, g, wiring: Some(Arc::new(w)) }
    }

    /// Router-to-router hops of the longest route within a group: 1, or 2
    /// on a wired group whose routers are not all joined (Aries' rows and
    /// columns).
    pub fn local_diameter(&self) -> u32 {
        self.wiring.as_ref().map_or(1, |w| w.diameter())
    }

    /// Routers in the network.
    pub fn routers(&self) -> u32 {
        self.a * self.g
    }

    /// Network ports per router (local, then global).
    pub fn ports(&self) -> usize {
        match &self.wiring {
            Some(w) => w.ports(),
            None => (self.a - 1 + self.h) as usize,
        }
    }

    /// Checks the shape; the message names the option to fix.
    pub fn validate(&self) -> Result<(), String> {
        let Dragonfly { a, p, h, g, .. } = *self;
        if let Some(w) = &self.wiring {
            if w.ports() + p as usize > 255 {
                return Err(format!(
                    "a dragonfly router may have at most 255 ports: the connection files give {} and \
                     --terminals-per-router {p}",
                    w.ports()
                ));
            }
            if a as u64 * g as u64 * p as u64 > 1 << 24 || g >= PAR_PENDING as u32 {
                return Err(format!("a dragonfly of {g} groups of {a} routers of {p} terminals is too large"));
            }
            return Ok(());
        }
        if a == 0 || p == 0 || h == 0 {
            return Err("a dragonfly needs --routers-per-group, --terminals-per-router and --global-links >= 1".into());
        }
        // Ports are numbered in a byte: network ports, then one ejection port per terminal.
        if a as u64 - 1 + h as u64 + p as u64 > 255 {
            return Err(format!(
                "a dragonfly router may have at most 255 ports (a − 1 local + h global + p terminals), got {}",
                a as u64 - 1 + h as u64 + p as u64
            ));
        }
        if g < 2 || g as u64 > a as u64 * h as u64 + 1 {
            return Err(format!("--groups must be between 2 and a·h + 1 = {}, got {g}", a as u64 * h as u64 + 1));
        }
        if (a * h) % (g - 1) != 0 {
            return Err(format!(
                "--groups {g}: the a·h = {} global links of a group must split evenly over the {} other groups",
                a * h,
                g - 1
            ));
        }
        if g > NO_VIA as u32 || a as u64 * g as u64 * p as u64 > 1 << 24 {
            return Err(format!("a dragonfly of {g} groups of {a} routers of {p} terminals is too large (2^24 nodes)"));
        }
        Ok(())
    }

    /// Group of router `r`.
    #[inline]
    pub fn group(&self, r: u32) -> u32 {
        match &self.wiring {
            Some(w) if w.leaves > 0 => w.group(r),
            _ => r / self.a,
        }
    }

    /// Dragonfly+: leaf routers per group (the routers with terminals,
    /// numbered first: see [`Wiring::leaves`]); `None` on other dragonflies.
    #[inline]
    pub fn leaves(&self) -> Option<u32> {
        self.wiring.as_ref().map(|w| w.leaves).filter(|&l| l > 0)
    }

    /// Nodes per group.
    pub fn group_nodes(&self) -> u32 {
        self.leaves().unwrap_or(self.a) * self.p
    }

    /// A Dragonfly+ of `g` groups of `leaves` leaf routers with `p`
    /// terminals each, joined to `spines` spine routers each, and `h`
    /// global links per spine arranged as the standard dragonfly's (a
    /// group's `spines·h` links must split evenly over the other groups).
    pub fn plus(leaves: u32, spines: u32, p: u32, h: u32, g: u32) -> Result<Self, String> {
        let a = leaves + spines;
        let arrange = Dragonfly::new(spines, 1, h, g);
        arrange.validate().map_err(|e| format!("the spines' global links: {e}"))?;
        let mut local = Vec::new();
        for l in 0..leaves as i32 {
            for s in leaves as i32..a as i32 {
                local.extend([vec![l, s, 0], vec![s, l, 0]]);
            }
        }
        let mut global = Vec::new();
        for r in 0..spines * g {
            for port in spines as usize - 1..arrange.ports() {
                let (t, _) = arrange.neighbour(r, port);
                let at = |x: u32| ((x / spines) * a + leaves + x % spines) as i32;
                global.push(vec![at(r), at(t)]);
            }
        }
        let w = Wiring::build_plus(&local, &global, a, g, leaves).map_err(|e| e.1)?;
        Ok(Dragonfly::wired(a, p, g, w))
    }

    /// The far end of global link `k` of group `grp`: (group, its link number back).
    #[inline]
    fn global_peer(&self, grp: u32, k: u32) -> (u32, u32) {
        let others = self.g - 1;
        let (other, m) = (k % others, k / others);
        let to = other + (other >= grp) as u32;
        let back = grp - (grp > to) as u32;
        (to, m * others + back)
    }

    /// The router and port at the other end of `port` of router `r`.
    #[inline]
    pub fn neighbour(&self, r: u32, port: usize) -> (u32, usize) {
        let (grp, i) = (r / self.a, r % self.a);
        let port = port as u32;
        if port < self.a - 1 {
            let j = port + (port >= i) as u32;
            // Router j's port back to i skips j itself.
            (grp * self.a + j, (i - (i > j) as u32) as usize)
        } else {
            let k = i * self.h + port - (self.a - 1);
            let (to, back) = self.global_peer(grp, k);
            (to * self.a + back / self.h, (self.a - 1 + back % self.h) as usize)
        }
    }

    /// The router and port at the other end of `port` of router `r`, if
    /// the port is wired (every port is on a standard dragonfly).
    #[inline]
    pub fn link(&self, r: u32, port: usize) -> Option<(u32, usize)> {
        match &self.wiring {
            Some(w) => w.link(r, port),
            None => Some(self.neighbour(r, port)),
        }
    }

    /// Whether `port` is a global port.
    #[inline]
    pub fn is_global(&self, port: usize) -> bool {
        let first = self.wiring.as_ref().map_or(self.a - 1, |w| w.local);
        port >= first as usize && port < self.ports()
    }

    /// The local port of router `i` (index in its group) to router `j` of the same group.
    #[inline]
    fn local_port(i: u32, j: u32) -> u8 {
        (j - (j > i) as u32) as u8
    }

    /// The global link number (in group `grp`) a packet at router index `i`
    /// uses to reach group `to`: the lowest of the parallel links to `to`
    /// that `i` owns, else the parallel link `i mod (a·h / (g−1))`, so the
    /// routers of a group spread their traffic over the parallel links.
    #[inline]
    fn gateway_link(&self, grp: u32, i: u32, to: u32) -> u32 {
        let others = self.g - 1;
        let other = to - (to > grp) as u32;
        let parallel = self.a * self.h / others;
        // Links i·h .. i·h + h − 1 are router i's.
        let first = i * self.h;
        let mut m = if first > other { (first - other).div_ceil(others) } else { 0 };
        if m < parallel && m * others + other < first + self.h {
            return m * others + other;
        }
        m = i % parallel;
        m * others + other
    }

    /// The global channel (link number in `r`'s group) a route from router
    /// `r` to group `to` (not `r`'s) leaves the group on, the one
    /// [`Dragonfly::step`] heads for; it belongs to router `k / h` of the
    /// group, as its global port `a − 1 + k mod h`.
    #[inline]
    pub fn exit_link(&self, r: u32, to: u32) -> u32 {
        self.gateway_link(r / self.a, r % self.a, to)
    }

    /// The next network port from router `r` towards router `dst` through
    /// group `via` ([`NO_VIA`]: minimally), or `None` at `dst`. Minimal
    /// routes are local–global–local at most: a local hop to the router
    /// holding the global link to the destination's group, the global hop,
    /// a local hop to the destination. A packet that has reached `via` must
    /// be routed with [`NO_VIA`] (the caller clears it).
    #[inline]
    pub fn step(&self, r: u32, dst: u32, via: u16) -> Option<u8> {
        self.step_keyed(r, dst, via, 0)
    }

    /// [`Dragonfly::step`] for a packet of routing key `key`
    /// ([`connections::key`](super::connections::key)): on a wired
    /// dragonfly the key makes the choices among gateways and parallel
    /// links (it is ignored otherwise). With [`Dragonfly::via_router`],
    /// `via` names a router, not a group.
    #[inline]
    pub fn step_keyed(&self, r: u32, dst: u32, via: u16, key: u64) -> Option<u8> {
        if let Some(w) = &self.wiring {
            return w.step(r, dst, via, key);
        }
        let (grp, i) = (r / self.a, r % self.a);
        let to = if via == NO_VIA { dst / self.a } else { via as u32 };
        if to == grp {
            let j = dst % self.a;
            return (r != dst).then(|| Self::local_port(i, j));
        }
        let k = self.gateway_link(grp, i, to);
        let gw = k / self.h;
        Some(if gw == i { (self.a - 1 + k % self.h) as u8 } else { Self::local_port(i, gw) })
    }

    /// Router-to-router hops from `r` to `dst` through group `via`
    /// ([`NO_VIA`]: minimally), by walking [`Dragonfly::step`].
    pub fn hops(&self, r: u32, dst: u32, via: u16) -> u32 {
        self.hops_keyed(r, dst, via, 0)
    }

    /// [`Dragonfly::hops`] for a packet of routing key `key` (see [`Dragonfly::step_keyed`]).
    pub fn hops_keyed(&self, mut r: u32, dst: u32, mut via: u16, key: u64) -> u32 {
        let mut h = 0;
        // Through an intermediate group: D + 1 + D + 1 + D hops at most;
        // through an intermediate router, D more (within its group, to it).
        let longest = 3 * self.local_diameter() + 2 + self.via_router() as u32 * self.local_diameter();
        loop {
            if self.via_reached(r, via) {
                via = NO_VIA;
            }
            let Some(port) = self.step_keyed(r, dst, via, key) else { return h };
            r = self.link(r, port as usize).expect("routes take wired ports").0;
            h += 1;
            debug_assert!(h <= longest, "dragonfly routes have at most 3D + 2 hops (4D + 2 through a router)");
        }
    }

    /// Whether a packet's Valiant intermediate is a router (CODES's
    /// `dragonfly_custom`: [`ExitRule::Custom`]) rather than a group.
    #[inline]
    pub fn via_router(&self) -> bool {
        self.wiring.as_deref().is_some_and(|w| w.rule == ExitRule::Custom && w.leaves == 0)
    }

    /// Whether this dragonfly is wired by CODES's `dragonfly_dally` files
    /// (its exit rule): `ugal` and `par` then decide by CODES's comparison.
    #[inline]
    pub fn dally(&self) -> bool {
        self.wiring.as_deref().is_some_and(|w| w.rule == ExitRule::Dally)
    }

    /// CODES's 1-D `dragonfly` intermediate group (`router_packet_receive`
    /// in `dragonfly.c`, a5958cf) for a route from group `gs` to another
    /// group `gd`, of draw `k` below `g − 1`: the `k + 1`-th group after `gs`
    /// (cyclically: any but the source's), or [`NO_VIA`] when that is `gd`,
    /// whose route is the minimal one (CODES then finds both first ports
    /// equal and goes minimally).
    #[inline]
    pub fn codes_1d_via(&self, gs: u32, gd: u32, k: u32) -> u16 {
        debug_assert!(gs != gd && k < self.g - 1);
        let v = (gs + 1 + k) % self.g;
        if v == gd {
            NO_VIA
        } else {
            v as u16
        }
    }

    /// How many equally likely draws [`Dragonfly::custom_via`] maps: `a − 1`
    /// for a route within a group, else every router.
    #[inline]
    pub fn custom_via_draws(&self, from: u32, to: u32) -> u32 {
        if self.group(from) == self.group(to) {
            self.a - 1
        } else {
            self.routers()
        }
    }

    /// CODES's `dragonfly_custom` intermediate router (`router_packet_receive`,
    /// a5958cf) for a route from router `from` to router `to` (not `from`),
    /// of draw `k` (below [`Dragonfly::custom_via_draws`]): within a group,
    /// the `k + 1`-th router after `from` (one of the `a − 1` others);
    /// toward another group, router `k`, or if that is in `from`'s group the
    /// router `a` after `from` (same index, next group, so it has `a + 1`
    /// chances in `a·g`). It may be in the destination's group, or be the
    /// destination's router (a minimal route with draws of its own).
    #[inline]
    pub fn custom_via(&self, from: u32, to: u32, k: u32) -> u16 {
        let a = self.a;
        let v = if self.group(from) == self.group(to) {
            from - from % a + (from % a + 1 + k) % a
        } else if self.group(k) == self.group(from) {
            (from + a) % self.routers()
        } else {
            k
        };
        v as u16
    }

    /// Whether router `r` is the intermediate `via` ([`NO_VIA`]: none;
    /// with the [`PAR_PENDING`] mark: not yet) or in it.
    #[inline]
    pub fn via_reached(&self, r: u32, via: u16) -> bool {
        via != NO_VIA && if self.via_router() { r == via as u32 } else { self.group(r) == via as u32 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shapes() -> Vec<Dragonfly> {
        vec![
            Dragonfly::maximal(4, 2, 2),
            Dragonfly::maximal(2, 1, 1),
            Dragonfly::maximal(3, 1, 2),
            Dragonfly::new(4, 1, 2, 5),
            Dragonfly::new(6, 1, 2, 4),
        ]
    }

    #[test]
    fn links_are_symmetric_and_every_pair_of_groups_is_joined_evenly() {
        for d in shapes() {
            d.validate().unwrap();
            let mut between = vec![0u32; (d.g * d.g) as usize];
            for r in 0..d.routers() {
                for port in 0..d.ports() {
                    let (s, back) = d.neighbour(r, port);
                    assert_ne!(s, r, "{d:?}: router {r} port {port} loops");
                    assert_eq!(d.neighbour(s, back), (r, port), "{d:?}: {r} port {port}");
                    assert_eq!(d.is_global(port), d.group(s) != d.group(r), "{d:?}: {r} port {port}");
                    between[(d.group(r) * d.g + d.group(s)) as usize] += d.is_global(port) as u32;
                }
            }
            for x in 0..d.g {
                for y in 0..d.g {
                    let want = if x == y { 0 } else { d.a * d.h / (d.g - 1) };
                    assert_eq!(between[(x * d.g + y) as usize], want, "{d:?}: groups {x}, {y}");
                }
            }
        }
    }

    #[test]
    fn routes_reach_the_destination_in_at_most_local_global_local() {
        for d in shapes() {
            for r in 0..d.routers() {
                for t in 0..d.routers() {
                    let h = d.hops(r, t, NO_VIA);
                    let want = if r == t {
                        0
                    } else if d.group(r) == d.group(t) {
                        1
                    } else {
                        (1..=3).contains(&h).then_some(h).expect("1 to 3 hops between groups")
                    };
                    assert_eq!(h, want, "{d:?}: {r} -> {t}");
                    for via in 0..d.g {
                        if via != d.group(r) && via != d.group(t) {
                            assert!(d.hops(r, t, via as u16) <= 5, "{d:?}: {r} -> {t} via {via}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn shapes_that_do_not_fit_are_refused() {
        assert!(Dragonfly::new(4, 2, 2, 10).validate().is_err());
        assert!(Dragonfly::new(4, 2, 2, 4).validate().is_err()); // 8 links over 3 groups
        assert!(Dragonfly::new(200, 60, 4, 2).validate().is_err());
        assert!(Dragonfly::maximal(0, 2, 2).validate().is_err());
    }
}
