//! Routing on a Dragonfly+ as CODES's `dragonfly-plus.cxx` (a5958cf)
//! routes: every choice among several connections is made at the router,
//! when the packet arrives (at its source leaf: when it becomes the head of
//! its NIC queue), on the router's own queues.
//!
//! * Among local connections (leaf to spine, spine to leaf) the least
//!   congested, ties drawn (CODES's `get_absolute_best_connection_from_conns`).
//! * Among a spine's global links to a group: minimal routing draws one
//!   uniformly (`dfp_minimal_routing`); non-minimal-leaf and prog-adaptive
//!   draw two (possibly the same) and take the less congested, ties drawn
//!   (`get_best_connection_from_conns`).
//! * Congestion is CODES's `alpha` score, packets in the output's buffers
//!   and downstream buffers plus those waiting for it: [`Network::occupancy`].
//!
//! Routings: `minimal`; `valiant` (CODES's `non-minimal-spine`: minimally
//! to a spine of a random intermediate group, then minimally on; CODES
//! a5958cf stops on it, "not implemented for validity concerns");
//! `non-minimal-leaf` (`dfp_nonminimal_leaf_routing`: the intermediate
//! group's spine sends the packet down to its least congested leaf, which
//! sends it on minimally: 6 hops); `par` (`dfp_prog_adaptive_routing`, at
//! every router outside the destination group until the packet turns
//! minimal in its intermediate group: minimal unless its best connection's
//! score exceeds both `--ugal-threshold` and the best non-minimal one's,
//! with CODES's defaults `source_leaf_consider_nonmin = 1` and
//! `int_spine_consider_min = 0`; with [`Scoring::Delta`], CODES's `delta`,
//! the non-minimal score counts double in that comparison, the only place
//! CODES scores a candidate as non-minimal). `ugal` decides at the source
//! router as on the other dragonflies and then routes as `valiant` or
//! `minimal`.
//!
//! Every draw is [`pick`] of the packet's routing key (its random byte,
//! drawn at injection from the model's reversible generator) and the place
//! of the choice: a rollback undoes it with the injection.

use super::route::route_key;
use super::topology::connections::{pick, Wiring};
use super::topology::{Dragonfly, NO_VIA};
use super::{Network, Node, Packet, Routing, Scoring};

/// The kinds of choice, mixed into each draw's place (with the router) so
/// that two choices of one packet at one router draw independently.
const ANY_SPINE: u64 = 1;
const TO_LEAF: u64 = 2;
const UP_MIN: u64 = 3;
const UP_VIA: u64 = 4;
const GLOBAL_MIN: u64 = 5;
const GLOBAL_VIA: u64 = 6;
const RESELECT: u64 = 7;
const DOWN: u64 = 8;

impl Network {
    /// Port `o` of router `r`'s score ([`Network::occupancy`]; with
    /// [`Scoring::Beta`] times the hops left from its far end to group `dg`,
    /// as CODES's `get_min_hops_to_dest_from_conn` counts them).
    #[inline]
    fn score(&self, (w, dg): (&Wiring, u32), n: &Node, r: u32, o: u8) -> u32 {
        let q = self.occupancy(n, r, o as usize);
        if self.scoring != Scoring::Beta {
            return q;
        }
        let Some((next, _)) = w.link(r, o as usize) else { return q };
        let hops = match (w.group(next) == dg, w.is_leaf(next)) {
            (true, true) => 1,
            (true, false) => 2,
            (false, true) => 4,
            (false, false) if w.exits_to(next, dg).1 > 0 => 3,
            (false, false) => 5,
        };
        q.saturating_mul(hops)
    }

    /// Of router `r`'s `ports`, the least congested ([`Network::score`]
    /// toward `to`'s group), ties drawn with `key` at `at`; with its
    /// score. `None` if no port.
    #[inline]
    pub(crate) fn least_congested<I>(
        &self,
        to: (&Wiring, u32),
        n: &Node,
        r: u32,
        ports: I,
        key: u64,
        at: u64,
    ) -> Option<(u8, u32)>
    where
        I: Iterator<Item = u8> + Clone,
    {
        let (mut least, mut ties) = (u32::MAX, 0u32);
        for o in ports.clone() {
            let q = self.score(to, n, r, o);
            if q < least {
                (least, ties) = (q, 1);
            } else if q == least {
                ties += 1;
            }
        }
        if ties == 0 {
            return None;
        }
        let k = pick(key, at, ties);
        ports.filter(|&o| self.score(to, n, r, o) == least).nth(k as usize).map(|o| (o, least))
    }

    /// CODES's choice among `count` parallel global ports from `first`: two
    /// drawn (the second by an offset that may be 0), the less congested,
    /// a tie drawn. `None` if no port.
    #[inline]
    fn best_of_two(
        &self,
        to: (&Wiring, u32),
        n: &Node,
        r: u32,
        (first, count): (u8, u8),
        key: u64,
        at: u64,
    ) -> Option<(u8, u32)> {
        if count == 0 {
            return None;
        }
        let c = count as u32;
        let one = pick(key, at, c);
        let two = (one + pick(key, at ^ 1 << 62, c)) % c;
        let (a, b) = (first + one as u8, first + two as u8);
        let (qa, qb) = (self.score(to, n, r, a), self.score(to, n, r, b));
        Some(match qa.cmp(&qb) {
            std::cmp::Ordering::Less => (a, qa),
            std::cmp::Ordering::Greater => (b, qb),
            std::cmp::Ordering::Equal => ([a, b][pick(key, at ^ 1 << 61, 2) as usize], qa),
        })
    }

    /// Router `r`'s wired local ports.
    #[inline]
    fn local_ports(w: &Wiring, r: u32) -> impl Iterator<Item = u8> + Clone + '_ {
        (0..w.local as u8).filter(move |&o| w.link(r, o as usize).is_some())
    }

    /// The next hop from router `r` toward group `to` (not `r`'s): a leaf
    /// goes up to its least congested spine with links there; a spine takes
    /// one of its links there (drawn uniformly, or the better of two), or,
    /// having none, goes down to its least congested leaf. `dg`: the
    /// destination's group, which beta scores by.
    #[inline]
    fn plus_toward(
        &self,
        w: &Wiring,
        n: &Node,
        r: u32,
        (to, dg): (u32, u32),
        two: bool,
        key: u64,
    ) -> Option<(u8, u32)> {
        let at = (r as u64) << 8;
        if w.is_leaf(r) {
            let kind = if two { UP_VIA } else { UP_MIN };
            return self.least_congested((w, dg), n, r, w.near_ports(r, to).iter().copied(), key, at | kind);
        }
        let exits = w.exits_to(r, to);
        match (exits.1, two) {
            (0, _) => self.least_congested((w, dg), n, r, Self::local_ports(w, r), key, at | DOWN),
            (c, false) => {
                let o = exits.0 + pick(key, at | GLOBAL_MIN, c as u32) as u8;
                Some((o, self.occupancy(n, r, o as usize)))
            }
            (_, true) => self.best_of_two((w, dg), n, r, exits, key, at | GLOBAL_VIA),
        }
    }

    /// [`Network::route`] on a Dragonfly+ (see the module's text).
    pub(crate) fn route_plus(&self, d: &Dragonfly, w: &Wiring, n: &Node, node: u32, p: &mut Packet) {
        let dst = p.dst / d.p;
        if node == dst {
            p.out = (self.ports() as u32 + p.dst % d.p) as u8;
            return;
        }
        let key = route_key(d, p);
        let (me, dg) = (w.group(node), w.group(dst));
        let ends = (w.group(p.src / d.p), dg);
        let at = (node as u64) << 8;
        let hop = if me == dg {
            // The destination's group: minimally, whatever the routing.
            p.via = NO_VIA;
            if w.is_leaf(node) {
                self.least_congested((w, dg), n, node, Self::local_ports(w, node), key, at | ANY_SPINE)
            } else {
                let (first, k) = w.direct_to(node, dst);
                self.least_congested((w, dg), n, node, first..first + k, key, at | TO_LEAF)
            }
        } else {
            match self.routing {
                Routing::NonMinimalLeaf => self.nonminimal_leaf(w, n, node, p, ends, key),
                Routing::Par => self.prog_adaptive(w, n, node, p, ends, key),
                _ => {
                    if p.via != NO_VIA && me == p.via as u32 {
                        p.via = NO_VIA;
                    }
                    let to = if p.via == NO_VIA { dg } else { p.via as u32 };
                    self.plus_toward(w, n, node, (to, dg), false, key)
                }
            }
        };
        p.out = hop.expect("a Dragonfly+ router has a next hop toward every group").0;
        p.class = p.hops.min(u8::MAX as u16) as u8;
    }

    /// CODES's `non-minimal-leaf` outside the destination group: to the
    /// intermediate group (`p.via`), down to a leaf there, then minimally.
    /// `ends`: the source's and the destination's groups.
    fn nonminimal_leaf(
        &self,
        w: &Wiring,
        n: &Node,
        node: u32,
        p: &mut Packet,
        ends: (u32, u32),
        key: u64,
    ) -> Option<(u8, u32)> {
        let (me, dg) = (w.group(node), ends.1);
        if p.via != NO_VIA && me == p.via as u32 {
            if w.is_leaf(node) {
                // The detour's leaf: on to the destination (CODES's upward flag).
                p.via = NO_VIA;
            } else {
                let at = (node as u64) << 8 | DOWN;
                return self.least_congested((w, dg), n, node, Self::local_ports(w, node), key, at);
            }
        }
        if p.via == NO_VIA {
            return self.plus_toward(w, n, node, (dg, dg), true, key);
        }
        if !w.is_leaf(node) && w.exits_to(node, p.via as u32).1 == 0 {
            self.reselect(w, node, p, ends, key);
        }
        let to = if p.via == NO_VIA { dg } else { p.via as u32 };
        self.plus_toward(w, n, node, (to, dg), true, key)
    }

    /// CODES's `prog-adaptive` outside the destination group.
    fn prog_adaptive(
        &self,
        w: &Wiring,
        n: &Node,
        node: u32,
        p: &mut Packet,
        ends: (u32, u32),
        key: u64,
    ) -> Option<(u8, u32)> {
        let (sg, dg) = ends;
        if p.via == NO_VIA {
            return self.plus_toward(w, n, node, (dg, dg), true, key);
        }
        let me = w.group(node);
        let (leaf, intermediate) = (w.is_leaf(node), me != sg);
        let at = (node as u64) << 8;
        let min = match (leaf, w.exits_to(node, dg)) {
            (true, _) => {
                self.least_congested((w, dg), n, node, w.near_ports(node, dg).iter().copied(), key, at | UP_MIN)
            }
            (false, exits) => self.best_of_two((w, dg), n, node, exits, key, at | GLOBAL_MIN),
        };
        let nonmin = match (intermediate, leaf) {
            (true, true) => None,
            (true, false) => self.least_congested((w, dg), n, node, Self::local_ports(w, node), key, at | DOWN),
            (false, true) => self.least_congested(
                (w, dg),
                n,
                node,
                w.near_ports(node, p.via as u32).iter().copied(),
                key,
                at | UP_VIA,
            ),
            (false, false) => {
                if w.exits_to(node, p.via as u32).1 == 0 {
                    self.reselect(w, node, p, ends, key);
                }
                match p.via {
                    NO_VIA => None,
                    via => self.best_of_two((w, dg), n, node, w.exits_to(node, via as u32), key, at | GLOBAL_VIA),
                }
            }
        };
        let q = |c: Option<(u8, u32)>| c.map_or(u64::MAX, |c| c.1 as u64);
        let (q_min, mut q_non) = (q(min), q(nonmin));
        // CODES's delta scores the non-minimal candidate double; the
        // threshold is still compared with the minimal one's score alone.
        if self.scoring == Scoring::Delta {
            q_non = q_non.saturating_mul(2);
        }
        let mut minimal = q_min as f64 <= self.ugal_threshold || q_min <= q_non;
        // CODES's int_spine_consider_min = 0: an intermediate spine always goes down.
        if intermediate && !leaf {
            minimal = false;
        }
        if minimal && min.is_none() {
            minimal = false;
        }
        if !minimal && nonmin.is_none() {
            minimal = true;
        }
        if minimal && intermediate {
            p.via = NO_VIA;
        }
        if minimal {
            min
        } else {
            nonmin
        }
    }

    /// A source-group spine with no link to the packet's intermediate
    /// group: another drawn uniformly among those it has links to, other
    /// than both ends' (CODES's `dfp_select_intermediate_group`); none
    /// left: the packet goes minimally.
    fn reselect(&self, w: &Wiring, node: u32, p: &mut Packet, (sg, dg): (u32, u32), key: u64) {
        let valid = |y: &u32| *y != sg && *y != dg && w.exits_to(node, *y).1 > 0;
        let groups = (0..w.groups()).filter(valid);
        let count = groups.clone().count() as u32;
        p.via = match count {
            0 => NO_VIA,
            c => groups.clone().nth(pick(key, (node as u64) << 8 | RESELECT, c) as usize).map_or(NO_VIA, |y| y as u16),
        };
    }
}

#[cfg(test)]
#[path = "plus_tests.rs"]
pub(crate) mod tests;
