//! `--lp-io-dir`'s busy time and stalled chunks on a crafted case whose
//! answer follows from the timing rules by hand.

use super::tests::go;
use super::*;

/// One message of two packets from a node whose route to its destination
/// is local, global, local (3 network hops), every global buffer holding
/// one packet. The first packet takes the gateway's global link and its
/// only credit; the second comes in one serialisation S later and finds no
/// credit (a stalled chunk, CODES's `stalled_chunks`), which opens a busy
/// period. The credit comes back when the first packet has left the far
/// router's buffer: it reached it G + R after leaving (global link latency,
/// router delay), left at once, its tail S later, and the credit takes G
/// back. The second packet came S after the first left (it left on
/// arrival), so the busy period, stall to credit, is (G + R + S + G) − S =
/// 2G + R.
#[test]
fn a_two_packet_burst_at_a_one_packet_global_buffer_is_busy_for_the_credit_round_trip() {
    let (l, g, r) = (3.0, 4.0, 5.0);
    let mut base = Network {
        topology: Topology::Dragonfly(Dragonfly::new(4, 2, 2, 9)),
        message_bytes: 512,
        packet_bytes: 256,
        link_latency: l,
        global_link_latency: g,
        router_delay: r,
        lp_io: true,
        routing: Routing::Minimal,
        vcs: 3,
        ..Network::default()
    };
    base.classes[2].buffer_packets = Some(1);
    let nodes = base.topology.nodes();
    // The first destination of node 0 three network hops away.
    let (m, res) = (1..nodes)
        .map(|b| {
            let m = Network { probe: Some((0, b)), ..base.clone() };
            let res = go(&m, 1e6).results;
            (m, res)
        })
        .find(|(_, res)| res.hops_mean == 3.0)
        .expect("a destination three hops away");
    assert_eq!(res.delivered_packets, 2, "{:?}", m.probe);
    let t = res.lp_io.expect("the counters");
    let stalled: Vec<(u32, usize, u64, f64)> = t
        .routers
        .iter()
        .flat_map(|x| (0..x.port_stalled.len()).map(move |o| (x.lp, o, x.port_stalled[o], x.port_busy[o])))
        .filter(|e| e.2 > 0 || e.3 > 0.0)
        .collect();
    let Topology::Dragonfly(d) = &m.topology else { unreachable!() };
    assert_eq!(stalled.len(), 1, "one port stalled: {stalled:?}");
    let (_, o, n, busy) = stalled[0];
    assert!(d.is_global(o), "the gateway's global port: {stalled:?}");
    assert_eq!((n, busy), (1, 2.0 * g + r));
}

/// Buffers larger than all the traffic a port will ever carry never run
/// out of credits: no stalled chunk, no busy time.
#[test]
fn buffers_larger_than_the_traffic_are_never_busy() {
    let m = Network {
        topology: Topology::Dragonfly(Dragonfly::new(4, 2, 2, 9)),
        load: 0.5,
        messages: Some(3),
        buffer_packets: 1000,
        lp_io: true,
        routing: Routing::Minimal,
        vcs: 3,
        ..Network::default()
    };
    let res = go(&m, 1e9).results;
    assert!(res.delivered_packets > 0);
    let t = res.lp_io.expect("the counters");
    for x in &t.routers {
        assert!(x.port_stalled.iter().all(|&s| s == 0) && x.port_busy.iter().all(|&b| b == 0.0), "{x:?}");
    }
}
