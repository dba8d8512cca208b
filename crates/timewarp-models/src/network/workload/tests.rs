//! Trace-driven workloads against answers computed without the simulator:
//! ping-pong and all-reduce times from the zero-load message latency
//! `(h + 2) L + (h + 1) R + Σ S_j` (module docs), in-order release of a
//! source's messages, deadlock and parse errors.

use super::Rank;
use crate::network::*;
use std::sync::Arc;
use timewarp::{Config, Report, Run};

/// Runs `m` with `w` placed by `map` until the events run out.
fn go(mut m: Network, mut w: Workload, map: Mapping) -> Report<Results> {
    w.place(m.topology.nodes(), &map).unwrap();
    m.workload = Some(Arc::new(w));
    m.validate().unwrap();
    Run::new(&m, &Config { end: 1e12, ..Config::default() }).execute().unwrap_or_else(|e| panic!("{e}"))
}

fn parse(texts: &[&str]) -> Result<Workload, String> {
    let t: Vec<String> = texts.iter().map(|s| s.to_string()).collect();
    Workload::parse(&t, |r| format!("rank.{r}.txt"), "test".into())
}

/// The test's own zero-load time of a message of `bytes` over `h` hops:
/// every packet's serialisation follows the first on the injection link.
fn message_time(m: &Network, h: u32, bytes: u32) -> f64 {
    let h = h as f64;
    (h + 2.0) * m.link_latency + (h + 1.0) * m.router_delay + bytes as f64 / m.link_bandwidth
}

#[test]
fn ping_pong_takes_two_message_latencies_per_round_trip() {
    // Ranks on nodes 0 and 3 of an 8-node ring: 3 hops each way.
    let m = Network { topology: Topology::Torus(vec![8]), packet_bytes: 256, ..Network::default() };
    for bytes in [100, 600] {
        let rounds = 5;
        let a = format!("send 1 {bytes} 0\nrecv 1 0\n").repeat(rounds);
        let b = format!("recv 0 0\nsend 0 {bytes} 0\n").repeat(rounds);
        let r = go(m.clone(), parse(&[&a, &b]).unwrap(), Mapping::List(vec![0, 3])).results;
        let want = rounds as f64 * 2.0 * message_time(&m, 3, bytes);
        assert_eq!(r.unfinished(), None);
        assert_eq!(r.app_time_ns, Some(want), "{bytes} bytes");
        // A single packet's message latency is the documented zero-load latency.
        if bytes <= m.packet_bytes {
            assert_eq!(message_time(&m, 3, bytes), m.zero_load_latency(3, bytes));
        }
        // Rank 0 only ever waits for the pong: all its time but the sends is communication.
        assert_eq!(r.ranks[0].comm_ns, want);
        assert_eq!(r.ranks[1].finish_ns, Some(want - message_time(&m, 3, bytes)));
    }
}

#[test]
fn ring_allreduce_finishes_at_the_analytic_time() {
    // P ranks on a P-node ring, rank r on node r: every step a chunk of
    // ceil(B / P) to the right neighbour, one hop, no link shared.
    for (p, bytes, packet) in [(8, 8192, 256), (6, 1000, 64), (5, 3, 256)] {
        let m = Network { topology: Topology::Torus(vec![p]), packet_bytes: packet, ..Network::default() };
        let (iterations, compute) = (3, 500.0);
        let w = Workload::ring_allreduce(p, bytes, iterations, compute);
        let r = go(m.clone(), w, Mapping::Linear).results;
        let chunk = bytes.div_ceil(p);
        let want = iterations as f64 * (compute + 2.0 * (p - 1) as f64 * message_time(&m, 1, chunk));
        assert_eq!(r.app_time_ns, Some(want), "p {p}, {bytes} bytes");
        for x in &r.ranks {
            assert_eq!(x.finish_ns, Some(want));
            assert_eq!(x.comm_ns, want - iterations as f64 * compute);
        }
    }
}

#[test]
fn traced_allreduce_doubles_on_a_hypercube_and_rings_otherwise() {
    // 8 ranks on a hypercube: partner r ^ 2^i is one hop along dimension i
    // and each link carries one message per step: log2 8 steps of B bytes.
    let m = Network { topology: Topology::Hypercube(3), packet_bytes: 128, ..Network::default() };
    let texts: Vec<String> = (0..8).map(|_| "allreduce 1000 # the sum\ncompute 10\n".to_string()).collect();
    let w = Workload::parse(&texts, |r| r.to_string(), "t".into()).unwrap();
    assert_eq!(w.sends[0].len(), 3);
    let r = go(m.clone(), w, Mapping::Linear).results;
    assert_eq!(r.app_time_ns, Some(3.0 * message_time(&m, 1, 1000) + 10.0));
    // 6 ranks: the ring, as the generator's.
    let texts: Vec<String> = (0..6).map(|_| "allreduce 600".to_string()).collect();
    let w = Workload::parse(&texts, |r| r.to_string(), "t".into()).unwrap();
    assert_eq!(
        w.ops,
        Workload::ring_allreduce(6, 600, 1, 0.0)
            .ops
            .iter()
            .map(|o| o.iter().map(|x| Op { line: 1, collective: "allreduce", ..*x }).collect::<Vec<_>>())
            .collect::<Vec<_>>()
    );
}

#[test]
fn barrier_waits_for_the_last_rank() {
    // Dissemination on 4 ranks of a 4-node ring: rank 2 arrives 1000 ns
    // late; everyone leaves after the rounds that carry its news.
    let m = Network { topology: Topology::Torus(vec![4]), ..Network::default() };
    let late = "compute 1000\nbarrier\n";
    let r = go(m.clone(), parse(&["barrier", "barrier", late, "barrier"]).unwrap(), Mapping::Linear).results;
    assert_eq!(r.unfinished(), None);
    // Rounds: r -> r + 1, then r -> r + 2. Rank 2 sends both at 1000
    // (the rest were waiting for it); rank 3 gets round 0 at 1000 + T1 and
    // sends round 1 to rank 1, the last to hear: 1000 + T1 + T2. Rank 2
    // itself finds its two messages already there.
    let (t1, t2) = (message_time(&m, 1, 1), message_time(&m, 2, 1));
    assert_eq!(r.app_time_ns, Some(1000.0 + t1 + t2));
    assert_eq!(r.ranks[1].finish_ns, Some(1000.0 + t1 + t2));
    assert_eq!(r.ranks[2].comm_ns, 0.0);
}

#[test]
fn messages_of_one_source_are_released_in_send_order() {
    // Rank 0 sends rank 1 three messages with one tag: whichever order they
    // complete in, rank 1 gets them 0, 1, 2.
    let w = parse(&["send 1 10 4\nsend 1 900 4\nsend 1 5 4\n", "recv 0 4\nrecv 0 4\nrecv 0 4\n"]).unwrap();
    let mut rk = Rank::default();
    let mut log = crate::network::node::Journal::default();
    assert_eq!(rk.in_order(&mut log, 0, &w, 0, 2), Some(vec![]));
    assert_eq!(rk.in_order(&mut log, 0, &w, 0, 1), Some(vec![]));
    assert_eq!(rk.in_order(&mut log, 0, &w, 0, 0), Some(vec![0, 1, 2]));
    // A message the trace does not have (a state or event from another trace): none, no panic.
    assert_eq!(rk.in_order(&mut log, 0, &w, 0, 3), None);
    assert_eq!(rk.in_order(&mut log, 0, &w, 4_294_967_295, 0), None);
    // End to end with several packets per message, different sizes.
    let m = Network { topology: Topology::Torus(vec![4]), packet_bytes: 64, ..Network::default() };
    let r = go(m.clone(), w, Mapping::Linear).results;
    assert_eq!(r.unfinished(), None);
    // The third arrives last: its packets follow all the others' on the injection link.
    let want = message_time(&m, 1, 10 + 900 + 5);
    assert_eq!(r.ranks[1].finish_ns, Some(want));
}

#[test]
fn a_deadlock_names_the_waiting_ranks() {
    let w = parse(&["compute 5\nrecv 1 7\n", "irecv 0 3\nwaitall\n", "barrier"]).unwrap();
    let m = Network { topology: Topology::Torus(vec![4]), ..Network::default() };
    let r = go(m, w, Mapping::Linear).results;
    assert_eq!(r.app_time_ns, None);
    let e = r.unfinished().expect("unfinished");
    assert!(e.contains("3 of 3 ranks did not finish (deadlock"), "{e}");
    assert!(e.contains("rank 0 waits in recv from 1 tag 7 (line 2)"), "{e}");
    assert!(e.contains("rank 1 waits in waitall (line 2) for recv from 0 tag 3 (line 1)"), "{e}");
    assert!(e.contains("rank 2 waits in recv from 1 tag (collective #1) in barrier (line 1)"), "{e}");
}

#[test]
fn reaching_end_is_not_mistaken_for_a_finished_application() {
    let mut w = parse(&["compute 1000\nsend 1 8 0", "recv 0 0"]).unwrap();
    let mut m = Network { topology: Topology::Torus(vec![4]), ..Network::default() };
    w.place(4, &Mapping::Linear).unwrap();
    m.workload = Some(Arc::new(w));
    let r = Run::new(&m, &Config { end: 500.0, ..Config::default() }).execute().unwrap().results;
    assert_eq!(r.app_time_ns, None);
    let e = r.unfinished().unwrap();
    assert!(e.contains("reached its end time"), "{e}");
    assert!(e.contains("rank 0 is computing (line 1)"), "{e}");
}

#[test]
fn parse_errors_name_file_line_and_fault() {
    let cases = [
        (vec!["compute x"], "rank.0.txt:1: 'x' is not a number of ns"),
        (vec!["# c\nsend 1 8", "recv 0 0"], "rank.0.txt:2: 'send' takes 3 argument(s)"),
        (vec!["send 0 8 1"], "rank.0.txt:1: destination 0 is this rank itself"),
        (vec!["recv 5 1", ""], "rank.0.txt:1: source 5 is not a rank (the traces have ranks 0..2)"),
        (vec!["", "wait"], "rank.1.txt:1: 'wait' with no outstanding isend or irecv"),
        (vec!["", "jump 3"], "rank.1.txt:1: unknown operation 'jump'"),
        (vec!["send 1 8 2147483648", ""], "tag 2147483648 is reserved for collectives"),
        (vec!["compute -1"], "compute needs a finite time >= 0 ns"),
    ];
    for (texts, want) in cases {
        let e = parse(&texts).unwrap_err();
        assert!(e.contains(want), "{e} (wanted {want})");
    }
}

#[test]
fn placement_refuses_too_many_ranks_and_doubled_nodes() {
    let mut w = Workload::all_to_all(5, 8, 1, 0.0);
    assert!(w.place(4, &Mapping::Linear).unwrap_err().contains("5 ranks but the network only 4 nodes"));
    let e = w.place(8, &Mapping::List(vec![0, 1, 2, 1, 3])).unwrap_err();
    assert!(e.contains("ranks 1 and 3 on node 1"), "{e}");
    w.place(8, &Mapping::Random(3)).unwrap();
    let mut nodes = w.node_of.clone();
    nodes.sort_unstable();
    nodes.dedup();
    assert_eq!(nodes.len(), 5);
}

#[test]
fn generators_send_what_they_say() {
    assert_eq!(grid3(64), [4, 4, 4]);
    assert_eq!(grid3(12), [3, 2, 2]);
    assert_eq!(grid3(7), [7, 1, 1]);
    // 27 ranks, 3x3x3: 6 neighbours, 2 iterations.
    let w = Workload::halo3d(27, 100, 2, 50.0);
    assert!(w.sends.iter().all(|s| s.len() == 12));
    // Every message has a receive of its source and tag at its destination.
    for (r, sends) in w.sends.iter().enumerate() {
        for s in sends {
            let ops = &w.ops[s.dst as usize];
            assert!(ops.iter().any(|o| o.kind == Kind::Recv { src: r as u32, tag: s.tag, blocking: false }));
        }
    }
    let w = Workload::all_to_all(5, 8, 1, 0.0);
    assert!(w.sends.iter().all(|s| s.len() == 4));
    // Runs to completion on a dragonfly with Valiant routing (messages may take different paths).
    let m = Network {
        topology: Topology::Dragonfly(Dragonfly::maximal(2, 2, 1)),
        routing: Routing::Valiant,
        vcs: 5,
        packet_bytes: 32,
        ..Network::default()
    };
    let r = go(m, Workload::all_to_all(6, 200, 2, 10.0), Mapping::Random(9)).results;
    assert_eq!(r.unfinished(), None);
    assert_eq!(r.delivered_messages, 6 * 5 * 2);
}
