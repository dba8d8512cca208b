//! CODES's dragonfly-custom adaptive choice (route.rs, `custom_adaptive`)
//! on Theta's wiring, at a source router whose queues the tests set.

use std::path::PathBuf;

use crate::network::plus::tests::{idle, load};
use crate::network::topology::connections::{key, ExitRule, Wiring};
use crate::network::topology::{Dragonfly, Topology, NO_VIA};
use crate::network::{Network, Packet, Routing};

fn theta() -> Dragonfly {
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../timewarp-cli/tests/data/codes");
    let w = Wiring::read(&data.join("intra-theta"), &data.join("inter-theta"), 96, 9, ExitRule::Custom).unwrap();
    Dragonfly::wired(96, 4, 9, w)
}

/// Router 7 of group 5: the intermediate of the tests below.
const VIA: u16 = 5 * 96 + 7;

/// From router 0 to a node of group 3 through router `via` of group 5: the
/// packet's two draws of each route, their first ports here.
fn ports(d: &Dragonfly, p: &Packet, via: u16) -> [u8; 2] {
    [p.dim, p.dim ^ 0x80].map(|dim| d.step_keyed(0, p.dst / d.p, via, key(dim, p.src, p.msg)).unwrap())
}

/// Non-minimal exactly when the better minimal draw's port holds more than
/// the threshold and more than the better non-minimal draw's (no hop
/// weighting); the draw kept becomes the packet's, so its route leaves by
/// the port scored.
#[test]
fn codes_custom_adaptive_rule_and_the_draw_kept() {
    let d = theta();
    let to = 3 * 96 * 4 + 17;
    for (routing, threshold) in [(Routing::Ugal, 0.0), (Routing::Par, 0.0), (Routing::Ugal, 2.0)] {
        let m = Network {
            topology: Topology::Dragonfly(d.clone()),
            routing,
            vcs: 12,
            ugal_threshold: threshold,
            buffer_packets: 8,
            ..Network::default()
        };
        let mut checked = 0;
        for draw in 0..=255u8 {
            let p0 = Packet { src: 1, dst: to, via: VIA, dim: draw, ..Packet::default() };
            let (min, non) = (ports(&d, &p0, NO_VIA), ports(&d, &p0, VIA));
            if min.iter().any(|o| non.contains(o)) || min[0] == min[1] || non[0] == non[1] {
                continue; // the cases below need four distinct ports
            }
            checked += 1;
            for (qm, qn, want_min) in [
                ([0, 0], [0, 0], true),
                ([2, 1], [3, 3], true),
                ([3, 2], [4, 1], threshold >= 2.0),
                ([5, 3], [0, 2], threshold >= 3.0),
                ([1, 4], [0, 0], threshold >= 1.0),
            ] {
                let mut n = idle(&m, 0);
                for (o, q) in min.iter().zip(qm).chain(non.iter().zip(qn)) {
                    load(&mut n, *o as usize, q);
                }
                let mut p = p0;
                let got = m.custom_adaptive(&d, &n, 0, &mut p, VIA, true);
                let what = format!("{routing:?} T {threshold} draw {draw} q_min {qm:?} q_non {qn:?}");
                assert_eq!(got, Some(want_min), "{what}");
                // The draw kept: the less congested of its pair (the first on a tie).
                let (ports, qs) = if want_min { (min, qm) } else { (non, qn) };
                let kept = if qs[0] > qs[1] { 1 } else { 0 };
                assert_eq!(p.dim, [draw, draw ^ 0x80][kept], "{what}");
                let via = if want_min { NO_VIA } else { VIA };
                assert_eq!(d.step_keyed(0, to / d.p, via, key(p.dim, p.src, p.msg)), Some(ports[kept]), "{what}");
            }
        }
        assert!(checked > 50, "{checked} draws with four distinct ports");
    }
}

/// Within a group (`do_local_adaptive_routing`): one draw of each route,
/// non-minimal when `q_min > T` and `q_min > q_non`, decided at the source
/// only: under PAR a minimal packet keeps no pending intermediate.
#[test]
fn within_a_group_one_draw_each_and_no_later_reconsideration() {
    let d = theta();
    // Router 0 (row 0, column 0) to router 17 (row 1, column 1): two local
    // hops; the intermediate router 40 (row 2, column 8).
    let (to, via) = (17 * 4 + 2, 40u16);
    let mut checked = 0;
    for routing in [Routing::Ugal, Routing::Par] {
        let m = Network {
            topology: Topology::Dragonfly(d.clone()),
            routing,
            vcs: 12,
            buffer_packets: 8,
            ..Network::default()
        };
        for draw in 0..=255u8 {
            let p0 = Packet { src: 1, dst: to, via, dim: draw, ..Packet::default() };
            let (min, non) = (ports(&d, &p0, NO_VIA), ports(&d, &p0, via));
            if min[0] == non[0] || non[1] == non[0] || non[1] == min[0] {
                continue;
            }
            checked += 1;
            // The packet's own draw only: its second non-minimal draw, idle,
            // is not weighed (two draws would take it).
            for (q_min, q_non, want_min) in [(3, 5, true), (3, 2, false), (0, 0, true)] {
                let mut n = idle(&m, 0);
                load(&mut n, min[0] as usize, q_min);
                load(&mut n, non[0] as usize, q_non);
                let mut p = p0;
                let what = format!("{routing:?} draw {draw} q_min {q_min} q_non {q_non}");
                assert_eq!(m.custom_adaptive(&d, &n, 0, &mut p, via, true), Some(want_min), "{what}");
                assert_eq!(p.dim, draw, "{what}: one draw, the packet's");
                let mut p = p0;
                m.ugal(&n, 0, &mut p);
                assert_eq!(p.via, if want_min { NO_VIA } else { via }, "{what}: no pending mark");
                assert_eq!(p.out, if want_min { min[0] } else { non[0] }, "{what}");
            }
        }
    }
    assert!(checked > 50, "{checked} draws with three distinct ports");
}

fn dally_72() -> Dragonfly {
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../timewarp-cli/tests/data/codes");
    let w =
        Wiring::read(&data.join("dfdally-72-intra"), &data.join("dfdally-72-inter"), 4, 9, ExitRule::Dally).unwrap();
    Dragonfly::wired(4, 2, 9, w)
}

/// CODES's `dragonfly_dally` comparison (`dfdally_prog_adaptive_routing`)
/// on the 72-node Dally network: minimal when the minimal port's count is
/// at most `adaptive_threshold`, or at most the non-minimal one's (doubled
/// under delta); no hop weighting. Each row is a branch of CODES's rule.
#[test]
fn dally_decides_by_codes_threshold_and_scoring() {
    use crate::network::Scoring::{Alpha, Delta};
    let d = dally_72();
    assert!(d.dally() && !d.via_router());
    // Router 0 (group 0) to a node of group 3, through group 5.
    let (to, via) = (3 * 4 * 2 + 5, 5u16);
    let mut checked = 0;
    for draw in 0..=255u8 {
        let k = key(draw, 1, 0);
        let (min, non) = (d.step_keyed(0, to / d.p, NO_VIA, k).unwrap(), d.step_keyed(0, to / d.p, via, k).unwrap());
        if min == non {
            continue;
        }
        checked += 1;
        for (q_min, q_non, threshold, scoring, want_min) in [
            (0, 0, 0.0, Alpha, true),  // idle: minimal
            (2, 1, 0.0, Alpha, false), // above T and above the other
            (2, 2, 0.0, Alpha, true),  // a tie stays minimal
            (2, 1, 2.0, Alpha, true),  // at most T: minimal whatever the other
            (2, 1, 0.0, Delta, true),  // 2 ≤ 2 × 1
            (3, 1, 0.0, Delta, false), // 3 > 2 × 1
            (3, 1, 3.0, Delta, true),  // at most T
            (1, 0, 0.5, Alpha, false), // T in packets: 1 > 0.5
        ] {
            let m = Network {
                topology: Topology::Dragonfly(d.clone()),
                routing: Routing::Ugal,
                vcs: 8,
                ugal_threshold: threshold,
                scoring,
                buffer_packets: 8,
                ..Network::default()
            };
            let mut n = idle(&m, 0);
            load(&mut n, min as usize, q_min);
            load(&mut n, non as usize, q_non);
            let what = format!("draw {draw} q_min {q_min} q_non {q_non} T {threshold} {scoring:?}");
            assert_eq!(m.codes_next_minimal(&d, &n, 0, to / d.p, via, k), Some(want_min), "{what}");
            let mut p = Packet { src: 1, dst: to, via, dim: draw, ..Packet::default() };
            m.ugal(&n, 0, &mut p);
            assert_eq!(p.via, if want_min { NO_VIA } else { via }, "{what}");
            assert_eq!(p.out, if want_min { min } else { non }, "{what}");
        }
    }
    assert!(checked > 20, "{checked} draws with distinct ports");
}

/// `minimal-bias=1` on a `dragonfly_custom` (CODES's BIAS_MIN, our delta):
/// the better non-minimal draw's count doubled before the comparison.
#[test]
fn custom_minimal_bias_doubles_the_non_minimal_count() {
    let d = theta();
    let to = 3 * 96 * 4 + 17;
    let mut checked = 0;
    for draw in 0..=255u8 {
        let p0 = Packet { src: 1, dst: to, via: VIA, dim: draw, ..Packet::default() };
        let (min, non) = (ports(&d, &p0, NO_VIA), ports(&d, &p0, VIA));
        if min.iter().any(|o| non.contains(o)) || min[0] == min[1] || non[0] == non[1] {
            continue;
        }
        checked += 1;
        for (scoring, qm, qn, want_min) in [
            (crate::network::Scoring::Alpha, 3, 2, false),
            (crate::network::Scoring::Delta, 3, 2, true),
            (crate::network::Scoring::Delta, 5, 2, false),
        ] {
            let m = Network {
                topology: Topology::Dragonfly(d.clone()),
                routing: Routing::Ugal,
                vcs: 12,
                ugal_threshold: 0.5,
                scoring,
                buffer_packets: 8,
                ..Network::default()
            };
            let mut n = idle(&m, 0);
            for o in min {
                load(&mut n, o as usize, qm);
            }
            for o in non {
                load(&mut n, o as usize, qn);
            }
            let mut p = p0;
            assert_eq!(m.custom_adaptive(&d, &n, 0, &mut p, VIA, true), Some(want_min), "{scoring:?} {qm} {qn}");
        }
    }
    assert!(checked > 50, "{checked}");
}
