//! UGAL-G's global information (Kim, Dally, Scott and Abts, ISCA 2008),
//! as a router can have it: each router is its own LP and an event reads
//! only its own LP's state, so the occupancy of a global channel owned by
//! another router of the group is known only from what that router told.
//!
//! Every router of a dragonfly routed `ugal-g` keeps a table of the latest
//! occupancy ([`Network::occupancy`]) of each of its group's `a·h` global
//! channels ([`Global`](super::global_table::Global)). After each of its events it compares its own
//! global ports' occupancy with what it last broadcast; when one differs by
//! a packet or more it sends the changed entries to the other `a − 1`
//! routers of its group (a [`Msg::Occupancy`] each, over the local link:
//! one local link latency later, which is at least the model's lookahead).
//! Broadcasts are rate-limited to one per [`Network::ugal_g_period`]: a
//! change within the period is sent by a [`Msg::Publish`] self-event at
//! its end (the state then, not every change in between). So a router
//! sends at most `(a − 1)·h` occupancy events per period, and none while
//! its global queues do not change. Change-driven, not periodic: an idle
//! network costs nothing, and a finite run is not kept alive by broadcasts.
//!
//! The information is stale by one local link latency at best, and by up
//! to a period more; a router's own global ports it reads directly.
//!
//! Nothing of this exists unless the routing is `ugal-g`: the node's table
//! is `None`, and the node's encoding is byte for byte the one without it
//! ([`Tail`](super::encoding::Tail)), so every other run keeps its state
//! digest. The table is part of the node's state ([`Global`](super::global_table::Global), global_table.rs); its
//! writes are journalled here, through the journal's records.

use timewarp::Ctx;

use super::node::Saved;
use super::{Dragonfly, Msg, Network, Node, NO_VIA};

impl Node {
    /// Sets the latest occupancy known of the group's global channel `k`.
    #[inline]
    pub(crate) fn set_seen(&mut self, k: usize, q: u16) {
        let g = self.global.as_deref_mut().expect("a UGAL-G table");
        let old = std::mem::replace(&mut g.seen[k], q);
        self.log.save(|| Saved::Seen { k: k as u32, old });
    }

    /// Sets when the router last broadcast and when its next broadcast is due.
    #[inline]
    pub(crate) fn set_publish(&mut self, last: f64, pending: f64) {
        let g = self.global.as_deref_mut().expect("a UGAL-G table");
        let old = (g.last, g.pending);
        (g.last, g.pending) = (last, pending);
        self.log.save(|| Saved::Publish { last: old.0, pending: old.1 });
    }
}

impl Network {
    /// The occupancy of router `r`'s own global port `j` (of `0..h`) now, as broadcast.
    #[inline]
    fn own_global(&self, d: &Dragonfly, n: &Node, r: u32, j: u32) -> u16 {
        self.occupancy(n, r, (d.a - 1 + j) as usize).min(u16::MAX as u32) as u16
    }

    /// After an event at a UGAL-G router (`due`: its pending broadcast's
    /// time has come): broadcasts its global ports' occupancy if it
    /// changed, or schedules the broadcast for the end of the period. Out
    /// of line: the event dispatch of every other routing stays small.
    #[inline(never)]
    pub(crate) fn publish(&self, d: &Dragonfly, n: &mut Node, due: bool, ctx: &mut Ctx<'_, Self>) {
        let (r, now) = (ctx.lp(), ctx.now());
        let i = r % d.a;
        let g = n.global.as_deref().expect("a UGAL-G table");
        let (last, pending) = (g.last, g.pending);
        let changed = (0..d.h).any(|j| g.seen[(i * d.h + j) as usize] != self.own_global(d, n, r, j));
        if !changed {
            if due {
                n.set_publish(last, -1.0);
            }
            return;
        }
        // The due broadcast goes now (its time, less rounding, is the period's end).
        if !due {
            if pending >= 0.0 {
                return;
            }
            let at = last + self.ugal_g_period();
            if now < at {
                n.set_publish(last, at);
                ctx.send(r, at - now, Msg::Publish);
                return;
            }
        }
        let delay = self.class_latency(1);
        for j in 0..d.h {
            let (k, q) = (i * d.h + j, self.own_global(d, n, r, j));
            if n.global.as_deref().expect("a UGAL-G table").seen[k as usize] == q {
                continue;
            }
            n.set_seen(k as usize, q);
            for port in 0..d.a - 1 {
                let peer = d.neighbour(r, port as usize).0;
                ctx.send(peer, delay, Msg::Occupancy { link: k as u16, q });
            }
        }
        n.set_publish(now, -1.0);
    }

    /// UGAL-G's choice at source router `router` for a packet to router
    /// `to` that may go through group `via`: whether the minimal route
    /// wins, `q_min · H_min ≤ q_val · H_val + T`, where each route's `q` is
    /// the occupancy of its first output here plus, when that is a local
    /// port, the last heard occupancy of the global channel it leads to
    /// (when it is the global port, the channel's own occupancy is already
    /// in it); `None` when either route has no next hop.
    #[inline]
    pub(crate) fn ugal_g_minimal(&self, d: &Dragonfly, n: &Node, router: u32, to: u32, via: u16) -> Option<bool> {
        let (min, val) = (d.step(router, to, NO_VIA)?, d.step(router, to, via)?);
        let seen = &n.global.as_deref().expect("a UGAL-G table").seen;
        let q = |o: u8, group: u32| {
            let here = self.occupancy(n, router, o as usize);
            if d.is_global(o as usize) || group == d.group(router) {
                return here;
            }
            here + seen[d.exit_link(router, group) as usize] as u32
        };
        let q_min = q(min, d.group(to)) * d.hops(router, to, NO_VIA);
        let q_val = q(val, via as u32) * d.hops(router, to, via);
        // Integers below 2^53: with T = 0 exactly the integer comparison.
        Some(q_min as f64 <= q_val as f64 + self.ugal_threshold)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::global_table::Global;
    use crate::network::node::{Nic, Queues};
    use timewarp::digest::hash_value;

    fn node(global: Option<Box<Global>>) -> Node {
        let mut n = Node::bare(Queues::new(6, 2), 3);
        n.counts.events = 7;
        n.inject = vec![Nic::default(); 2];
        n.partial = vec![(1, 2, 3, 4.5)];
        n.global = global;
        n
    }

    #[test]
    fn a_node_without_a_table_encodes_as_its_fields_always_did_and_with_one_differs() {
        let n = node(None);
        // The derived encoding of the node before UGAL-G: its fields in order.
        let fields = (&n.input, &n.links, &n.counts, &n.inject, &n.output, &n.partial, &n.ranks);
        assert_eq!(hash_value(&n), hash_value(&fields));
        let d = Dragonfly::maximal(4, 2, 2);
        let mut g = Global::new(&d);
        assert_eq!(g.seen.len(), 8);
        let with = hash_value(&node(Some(Box::new(g.clone()))));
        assert_ne!(with, hash_value(&n));
        g.seen[3] = 2;
        assert_ne!(hash_value(&node(Some(Box::new(g)))), with, "the table's entries are in the encoding");
    }

    #[test]
    fn table_writes_are_journalled_and_undone() {
        let mut n = node(Some(Box::new(Global::new(&Dragonfly::maximal(4, 2, 2)))));
        n.log.on = true;
        n.set_seen(5, 3);
        n.set_publish(10.0, 74.0);
        n.set_seen(5, 4);
        let before = node(Some(Box::new(Global::new(&Dragonfly::maximal(4, 2, 2)))));
        assert_ne!(n, before);
        let undo = n.log.entries.as_slice().to_vec();
        assert_eq!(undo.len(), 3);
        for u in undo.iter().rev() {
            n.restore(&u.0);
        }
        assert_eq!(n, before);
    }
}
