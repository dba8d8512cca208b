//! `--nic-buffer` against hand-computed times: a message's packets enter
//! the router when their slot's credit is back, and a saturated network
//! with one- and three-packet NIC buffers conserves its packets.

use super::tests::{assert_saturated_but_sound, go};
use super::*;

/// A message of `k` packets from node 0 to its neighbour, node 1, on a 4×4
/// torus (L = R = 8 ns, S = 256 / 4 = 64 ns): packet `j` starts on the
/// NIC's link at `s_j`, leaves the router's input `L + R` later (its
/// output is free) and its credit is back `S + L` after that, at `s_j +
/// 88`. With one slot `s_j = 88 j`, with two `s_j = 64 j` (the credit is
/// back before the link frees); the last packet arrives `(h + 2) L + (h +
/// 1) R + S = 104` ns after it starts.
#[test]
fn a_message_enters_the_router_as_its_credits_come_back() {
    for (bytes, per) in [(None, 64.0), (Some(256), 88.0), (Some(511), 88.0), (Some(512), 64.0)] {
        for k in [1u32, 2, 5] {
            let m = Network {
                topology: Topology::Torus(vec![4, 4]),
                message_bytes: 256 * k,
                probe: Some((0, 1)),
                nic_buffer: bytes,
                ..Network::default()
            };
            let r = go(&m, 1e6).results;
            assert_eq!((r.delivered_packets, r.delivered_messages), (k as u64, 1));
            assert_eq!(r.message_latency_mean, per * (k - 1) as f64 + 104.0, "{bytes:?} {k}");
            assert_eq!(r.nic_buffer_packets, bytes.map(|b| b / 256));
        }
    }
}

/// Past saturation, with NICs waiting for credits most of the time:
/// packets conserved, no buffer above capacity, still delivering (the
/// slots' own bound is a debug assertion at every slot taken).
#[test]
fn a_saturated_network_with_nic_buffers_conserves_its_packets() {
    for slots in [1, 3] {
        for switch in [Switch::InputBuffered, Switch::OutputBuffered] {
            let m = Network {
                topology: Topology::Torus(vec![4, 4]),
                switch,
                load: 0.9,
                nic_buffer: Some(256 * slots),
                ..Network::default()
            };
            let r = go(&m, 8_000.0).results;
            assert_saturated_but_sound(&r, m.buffer_packets, &format!("{slots} slots, {switch:?}"));
        }
    }
}

/// A buffer smaller than one packet is refused, naming the option.
#[test]
fn a_buffer_of_less_than_a_packet_is_refused() {
    let m = Network { nic_buffer: Some(255), ..Network::default() };
    let e = m.validate().unwrap_err();
    assert!(e.contains("--nic-buffer 255") && e.contains("holds no packet of 256 bytes"), "{e}");
}
