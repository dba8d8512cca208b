//! The switches against hand-computed times: when a buffer's credit comes
//! back decides how closely a message's packets follow each other.

use super::tests::{assert_saturated_but_sound, go};
use super::*;

/// A message of `k` packets from node 0 to node 2 on a 4×4 torus, two hops
/// (L = R = 8 ns, S = 256 / 4 = 64 ns), one-packet buffers. Packet `j`
/// leaves router 0 at `t_j` and reaches router 1 `L + R` later.
/// Input- and output-buffered, the credit of router 1's buffer goes back
/// when its tail has left (`S` after its head) and takes `L`: back at
/// `t_j + 2L + R + S = t_j + 88`, so the packets are 88 ns apart. CODES's
/// switch sends it as the packet moves into its output queue, back at
/// `t_j + 2L + R = t_j + 24`, before the link frees: 64 ns apart, the
/// link's own rate. The last packet arrives `(h + 2) L + (h + 1) R + S =
/// 120` ns after it leaves its NIC.
#[test]
fn codes_credits_come_back_as_the_packet_moves_on() {
    for (switch, per) in [(Switch::InputBuffered, 88.0), (Switch::OutputBuffered, 88.0), (Switch::Codes, 64.0)] {
        for k in [1u32, 2, 5] {
            let m = Network {
                topology: Topology::Torus(vec![4, 4]),
                switch,
                buffer_packets: 1,
                message_bytes: 256 * k,
                probe: Some((0, 2)),
                ..Network::default()
            };
            let r = go(&m, 1e6).results;
            assert_eq!((r.delivered_packets, r.delivered_messages), (k as u64, 1));
            assert_eq!(r.message_latency_mean, per * (k - 1) as f64 + 120.0, "{switch:?} {k}");
        }
    }
}

/// The NIC's buffer under CODES's switch: its credit goes back as the
/// packet moves into its output queue (`L + R` after it starts on the
/// NIC's link) and takes `L`, back at `s_j + 24`, before the NIC's link
/// frees: one slot sends at the link's rate, 64 ns apart (88 with the
/// other switches, `nic_buffer_tests`).
#[test]
fn codes_nic_credits_come_back_as_the_packet_moves_on() {
    for k in [1u32, 2, 5] {
        let m = Network {
            topology: Topology::Torus(vec![4, 4]),
            switch: Switch::Codes,
            message_bytes: 256 * k,
            probe: Some((0, 1)),
            nic_buffer: Some(256),
            ..Network::default()
        };
        let r = go(&m, 1e6).results;
        assert_eq!(r.delivered_packets, k as u64);
        assert_eq!(r.message_latency_mean, 64.0 * (k - 1) as f64 + 104.0, "{k}");
    }
}

/// CODES's output queue shares the next buffer's slots with the link: a
/// packet moves in only while queue, link and next buffer hold fewer than
/// that buffer takes. Saturated, the network stays sound (packets conserved, buffers within
/// capacity) with and without NIC buffers.
#[test]
fn a_saturated_codes_switch_keeps_its_queues_within_the_next_buffer() {
    for (buffer_packets, nic_buffer) in [(1, None), (3, None), (2, Some(256))] {
        let m = Network {
            topology: Topology::Torus(vec![4, 4]),
            switch: Switch::Codes,
            buffer_packets,
            load: 0.9,
            nic_buffer,
            ..Network::default()
        };
        let r = go(&m, 8_000.0).results;
        let what = format!("buffers {buffer_packets}, NIC {nic_buffer:?}");
        assert_saturated_but_sound(&r, buffer_packets, &what);
    }
}
