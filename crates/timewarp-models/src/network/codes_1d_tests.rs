//! CODES's 1-D `dragonfly` adaptive choice (`--routing ugal-codes`,
//! route.rs `codes_next_minimal`; `do_adaptive_routing` in `dragonfly.c`,
//! a5958cf) on the shape of CODES's `synthetic-dragonfly-minimal-c512.conf`
//! (8 routers of 4 nodes per group, 4 global links each, 33 groups), at a
//! source router whose queues the tests set.

use crate::network::plus::tests::{idle, load};
use crate::network::topology::{Dragonfly, Topology, NO_VIA};
use crate::network::{Network, Packet, Routing};

fn c512() -> Dragonfly {
    Dragonfly::new(8, 4, 4, 33)
}

fn net(routing: Routing, threshold: f64) -> Network {
    Network {
        topology: Topology::Dragonfly(c512()),
        routing,
        vcs: 5,
        ugal_threshold: threshold,
        buffer_packets: 8,
        ..Network::default()
    }
}

/// A node of router 3 of group 5, the destination below (from router 0).
const TO: u32 = (5 * 8 + 3) * 4 + 1;

/// Non-minimal exactly when the minimal route's first output holds more
/// than the non-minimal one's (and than the threshold, 0 in CODES): ties
/// and an idle network go minimally, and no hop count weighs either side,
/// so a load our hop-weighted UGAL-L keeps minimal leaves it here.
#[test]
fn minimal_unless_its_first_port_holds_more_with_no_hop_weighting() {
    let d = c512();
    let to = TO / d.p;
    let (mut checked, mut contrasts) = (0, 0);
    for via in (1..d.g as u16).filter(|&v| v != 5) {
        let (min, non) = (d.step(0, to, NO_VIA).unwrap(), d.step(0, to, via).unwrap());
        if min == non {
            continue; // a_shared_first_port_always_goes_minimally
        }
        checked += 1;
        for threshold in [0.0, 5.0] {
            let m = net(Routing::UgalCodes, threshold);
            for (q_min, q_non) in [(0, 0), (2, 3), (3, 3), (4, 3), (1, 0), (7, 2)] {
                let want_min = q_min <= q_non || q_min as f64 <= threshold;
                let mut n = idle(&m, 0);
                load(&mut n, min as usize, q_min);
                load(&mut n, non as usize, q_non);
                let what = format!("via {via} T {threshold} q_min {q_min} q_non {q_non}");
                assert_eq!(m.codes_next_minimal(&d, &n, 0, to, via, 0), Some(want_min), "{what}");
                let mut p = Packet { src: 2, dst: TO, via, ..Packet::default() };
                m.ugal(&n, 0, &mut p);
                assert_eq!(p.via, if want_min { NO_VIA } else { via }, "{what}");
                assert_eq!(p.out, if want_min { min } else { non }, "{what}");
                // UGAL-L weighs each side by its hops: 4 · H_min ≤ 3 · H_val
                // keeps it minimal where CODES's rule leaves.
                let (h_min, h_val) = (d.hops(0, to, NO_VIA), d.hops(0, to, via));
                if threshold == 0.0 && !want_min && q_min * h_min <= q_non * h_val {
                    let ugal = net(Routing::Ugal, 0.0);
                    assert_eq!(ugal.ugal_minimal(&d, &n, 0, to, via, 0), Some(true), "{what}");
                    contrasts += 1;
                }
            }
        }
    }
    assert!(checked > 20, "{checked} intermediate groups with their own first port");
    assert!(contrasts > 0, "a load that UGAL-L and CODES's rule route apart");
}

/// An intermediate group reached through the minimal route's first output
/// (the same gateway) scores the same queue: CODES's `<=` keeps the packet
/// minimal however loaded that output is.
#[test]
fn a_shared_first_port_always_goes_minimally() {
    let d = c512();
    let to = TO / d.p;
    let m = net(Routing::UgalCodes, 0.0);
    let mut shared = 0;
    for via in (1..d.g as u16).filter(|&v| v != 5) {
        let min = d.step(0, to, NO_VIA).unwrap();
        if d.step(0, to, via) != Some(min) {
            continue;
        }
        shared += 1;
        for q in [0, 1, 6] {
            let mut n = idle(&m, 0);
            load(&mut n, min as usize, q);
            let mut p = Packet { src: 2, dst: TO, via, ..Packet::default() };
            m.ugal(&n, 0, &mut p);
            assert_eq!((p.via, p.out), (NO_VIA, min), "via {via} q {q}");
        }
    }
    assert!(shared > 0, "some intermediate group shares router 0's gateway to group 5");
}

/// CODES draws `(source group + uniform 1..g−1) mod g`: every group but the
/// source's once over the `g − 1` draws, the destination's meaning the
/// minimal route.
#[test]
fn the_intermediate_group_is_any_but_the_sources() {
    let d = c512();
    for (gs, gd) in [(0, 5), (5, 0), (32, 31), (17, 3)] {
        let mut seen = vec![0u32; d.g as usize];
        let mut minimal = 0;
        for k in 0..d.g - 1 {
            match d.codes_1d_via(gs, gd, k) {
                NO_VIA => minimal += 1,
                v => seen[v as usize] += 1,
            }
        }
        assert_eq!(minimal, 1, "{gs} → {gd}");
        for (g, &c) in seen.iter().enumerate() {
            let want = (g as u32 != gs && g as u32 != gd) as u32;
            assert_eq!(c, want, "{gs} → {gd}: group {g}");
        }
    }
}

/// CODES decides as a packet reaches its source router, not as it heads
/// its NIC's queue. A message of `k` packets from router 0 to group 5 on
/// an idle network under CODES's switch (L = R = 8 ns, a credit's 2 ns,
/// S = 64 ns a packet): packet `j + 1` reaches the router S after packet
/// `j` left on the minimal port, and that port's credit was back
/// `L + R + 2 = 18` ns after it left, so every packet finds the minimal
/// port empty and goes minimally. Decided as it headed the queue (the
/// moment packet `j` left), packet `j + 1` would find packet `j` there and
/// go non-minimally wherever its draw leaves by another port.
#[test]
fn the_source_decides_as_the_packet_reaches_it() {
    let d = c512();
    let src = 1; // a node of router 0
    for k in [1u32, 2, 5] {
        let m = Network {
            switch: crate::network::Switch::Codes,
            message_bytes: 256 * k,
            probe: Some((src, TO)),
            ..net(Routing::UgalCodes, 0.0)
        };
        let r = crate::network::tests::go(&m, 1e6).results;
        assert_eq!((r.delivered_packets, r.delivered_messages), (k as u64, 1));
        assert_eq!(r.hops_mean, d.hops(0, TO / d.p, NO_VIA) as f64, "{k} packets: all minimal");
    }
}
