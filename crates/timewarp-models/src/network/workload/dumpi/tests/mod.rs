//! DUMPI traces (tests/data/dumpi, copied from five real runs; their
//! README's figures): per-rank messages and bytes, ping-pong round trips
//! against the analytic time, the same results as the programs written in
//! the text format, wildcards and probes, the compute-gap clocks. Beside
//! them: the refusals of what cannot be read or replayed (refusals.rs), and
//! decoding against DUMPI's own reader and calls beyond the test traces
//! (decoding.rs).

mod decoding;
mod refusals;
mod rendezvous;

use super::*;
use crate::network::*;
use std::sync::Arc;
use timewarp::{Config, Report, Run};

/// The folder of test trace `name`.
fn data(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/dumpi").join(name)
}

use std::path::Path;

fn load(name: &str, opt: &DumpiOptions) -> Workload {
    Workload::read_dumpi(&data(name), opt).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `m` with `w` placed by `map` until the events run out.
fn go(mut m: Network, mut w: Workload, map: Mapping) -> Report<Results> {
    w.place(m.topology.nodes(), &map).unwrap();
    m.workload = Some(Arc::new(w));
    m.validate().unwrap();
    Run::new(&m, &Config { end: 1e15, ..Config::default() }).execute().unwrap_or_else(|e| panic!("{e}"))
}

/// Per rank: (point-to-point messages sent, their bytes, received, their bytes).
fn counts(w: &Workload) -> Vec<(u32, u64, u32, u64)> {
    let mut out = vec![(0, 0, 0, 0); w.ranks() as usize];
    for (r, sends) in w.sends.iter().enumerate() {
        for s in sends.iter().filter(|s| s.tag < COLLECTIVE_TAG) {
            out[r].0 += 1;
            out[r].1 += s.bytes as u64;
            out[s.dst as usize].2 += 1;
            out[s.dst as usize].3 += s.bytes as u64;
        }
    }
    out
}

#[test]
fn each_trace_sends_and_receives_what_its_readme_counts() {
    let opt = DumpiOptions::default();
    let same = |n: usize, x: (u32, u64, u32, u64)| vec![x; n];
    let cases = [
        ("ring", same(8, (5, 20480, 5, 20480))),
        ("halo3d", same(8, (18, 294912, 18, 294912))),
        ("collectives", same(16, (0, 0, 0, 0))),
        ("pingpong", same(2, (140, 1310640, 140, 1310640))),
        ("wildcard", vec![(3, 24, 9, 7680), (3, 1536, 1, 8), (3, 2560, 1, 8), (3, 3584, 1, 8)]),
    ];
    let m = Network { topology: Topology::Torus(vec![4, 4]), ..Network::default() };
    for (name, want) in cases {
        let w = load(name, &opt);
        assert_eq!(counts(&w), want, "{name}");
        let sent: u64 = w.sends.iter().map(|s| s.len() as u64).sum();
        let r = go(m.clone(), w, Mapping::Linear).results;
        assert_eq!(r.unfinished(), None, "{name}");
        assert!(r.app_time_ns.is_some(), "{name}");
        assert_eq!(r.delivered_messages, sent, "{name}: every message is delivered");
    }
    // The collectives' expansions: one of each, on every rank, all messages of collectives.
    let w = load("collectives", &opt);
    for ops in &w.ops {
        let mut calls: Vec<(&str, u32)> =
            ops.iter().filter(|o| !o.collective.is_empty()).map(|o| (o.collective, o.line)).collect();
        calls.dedup();
        let names: Vec<&str> = calls.iter().map(|c| c.0).collect();
        assert_eq!(names, ["bcast", "reduce", "allreduce", "alltoall", "barrier"]);
    }
    // Bcast of 1 KiB from 0 over 16 ranks: 15 messages; reduce likewise;
    // allreduce by recursive doubling 16 x 4; alltoall 16 x 15 of 256 B; barrier 16 x 4.
    let all: Vec<SendInfo> = w.sends.iter().flatten().copied().collect();
    assert_eq!(all.len(), 15 + 15 + 64 + 240 + 64);
    assert_eq!(all.iter().map(|s| s.bytes as u64).sum::<u64>(), 15 * 1024 + 15 * 8192 + 64 * 8192 + 240 * 256);
}

/// The test's own zero-load time of a message of `bytes` over `h` hops
/// (as in workload_tests.rs).
fn message_time(m: &Network, h: u32, bytes: u32) -> f64 {
    let h = h as f64;
    (h + 2.0) * m.link_latency + (h + 1.0) * m.router_delay + bytes as f64 / m.link_bandwidth
}

/// `w` cut after the last operation of every rank whose tag is at most
/// `tag` (the ping-pong's sizes have tags 0..13 in order).
fn up_to_tag(w: &Workload, tag: u32) -> Workload {
    let mut cut = w.clone();
    for (r, ops) in cut.ops.iter_mut().enumerate() {
        let t = |o: &Op| match o.kind {
            Kind::Send { k, .. } => Some(w.sends[r][k as usize].tag),
            Kind::Recv { tag, .. } => Some(tag),
            _ => None,
        };
        let last = ops.iter().rposition(|o| t(o).is_some_and(|x| x <= tag)).map_or(0, |i| i + 1);
        ops.truncate(last);
    }
    cut
}

#[test]
fn ping_pong_round_trips_take_two_message_latencies_per_size() {
    // Without the compute gaps, 10 round trips of each size back to back
    // between nodes 0 and 3 of an 8-node ring (3 hops): each 2 M(3, b).
    let m = Network { topology: Topology::Torus(vec![8]), packet_bytes: 256, ..Network::default() };
    let w = load("pingpong", &DumpiOptions { compute_scale: 0.0, ..DumpiOptions::default() });
    assert!(w.ops.iter().flatten().all(|o| !matches!(o.kind, Kind::Compute(_))));
    let mut before = 0.0;
    for (i, bytes) in (0..14).map(|i| (i, 8u32 << i)) {
        let r = go(m.clone(), up_to_tag(&w, i), Mapping::List(vec![0, 3])).results;
        let t = r.app_time_ns.unwrap();
        let rtt = (t - before) / 10.0;
        let want = 2.0 * message_time(&m, 3, bytes);
        assert!((rtt - want).abs() < 1e-9 * want, "{bytes} B: round trip {rtt} ns, analytic {want} ns");
        before = t;
    }
    let r = go(m.clone(), w, Mapping::List(vec![0, 3])).results;
    assert_eq!(r.app_time_ns, Some(before));
    // With the recorded gaps the run is longer by at least rank 0's
    // compute phases (14 x 1000 us + 140 x 50 us nominal).
    let r = go(m, load("pingpong", &DumpiOptions::default()), Mapping::List(vec![0, 3])).results;
    assert!(r.app_time_ns.unwrap() > before + 14.0 * 1e6 + 140.0 * 5e4, "{:?}", r.app_time_ns);
}

/// The operations other than computation, without their lines.
fn comm_ops(w: &Workload) -> Vec<Vec<Kind>> {
    w.ops.iter().map(|o| o.iter().map(|o| o.kind).filter(|k| !matches!(k, Kind::Compute(_))).collect()).collect()
}

#[test]
fn ring_and_halo3d_replay_as_their_programs_in_the_text_format() {
    let opt = DumpiOptions { compute_scale: 0.0, ..DumpiOptions::default() };
    // ring.c: 5 x Sendrecv(4096 B to r + 1, tag i; from r − 1, tag i).
    let ring: Vec<String> = (0..8)
        .map(|r| (0..5).map(|i| format!("send {} 4096 {i}\nrecv {} {i}\n", (r + 1) % 8, (r + 7) % 8)).collect())
        .collect();
    // halo3d.c: 3 x (for d in 0..6: Irecv from the neighbour opposite d
    // and Isend 16 KiB towards d, tag d; Waitall; Allreduce 8 B). On the
    // periodic 2x2x2 grid both neighbours along dimension k are r ^ 2^k.
    let halo: Vec<String> = (0..8u32)
        .map(|r| {
            let it: String =
                (0..6).map(|d| format!("irecv {n} {d}\nisend {n} 16384 {d}\n", n = r ^ (1 << (d / 2)))).collect();
            format!("{it}waitall\nallreduce 8\n").repeat(3)
        })
        .collect();
    let nets = [
        Network { topology: Topology::Torus(vec![8]), packet_bytes: 256, ..Network::default() },
        Network { topology: Topology::Torus(vec![4, 4]), packet_bytes: 512, ..Network::default() },
    ];
    for (name, texts) in [("ring", ring), ("halo3d", halo)] {
        let dumpi = load(name, &opt);
        let text = Workload::parse(&texts, |r| r.to_string(), "text".into()).unwrap();
        assert_eq!(comm_ops(&dumpi), comm_ops(&text), "{name}");
        for m in &nets {
            for map in [Mapping::Linear, Mapping::Random(4)] {
                let a = go(m.clone(), dumpi.clone(), map.clone()).results;
                let b = go(m.clone(), text.clone(), map).results;
                assert!(a.app_time_ns.is_some(), "{name}");
                assert_eq!(a.app_time_ns, b.app_time_ns, "{name}");
                assert_eq!(a.ranks, b.ranks, "{name}");
                assert_eq!(a.delivered_messages, b.delivered_messages, "{name}");
            }
        }
    }
}

#[test]
fn wildcard_receives_and_probes_match_at_run_time() {
    let w = load("wildcard", &DumpiOptions::default());
    let kinds: Vec<Kind> = comm_ops(&w)[0].clone();
    let probes = kinds.iter().filter(|k| **k == Kind::Probe { src: ANY_SOURCE, tag: ANY_TAG }).count();
    let any = kinds.iter().filter(|k| **k == Kind::Recv { src: ANY_SOURCE, tag: ANY_TAG, blocking: true }).count();
    assert_eq!((probes, any), (3, 6));
    // The probed receives name the source and tag the probe found when traced.
    assert!(kinds.contains(&Kind::Recv { src: 1, tag: 101, blocking: true }));
    let m = Network { topology: Topology::Torus(vec![4]), ..Network::default() };
    for map in [Mapping::Linear, Mapping::List(vec![3, 0, 1, 2])] {
        let r = go(m.clone(), w.clone(), map).results;
        assert_eq!(r.unfinished(), None);
        // Rank 0 blocks in its first probe until worker 1's first message is in.
        assert!(r.ranks[0].comm_ns > 0.0);
    }
    // A wildcard receive does not take a collective's message, and a probe
    // that nothing matches is reported as such.
    let texts = ["barrier\n", "barrier\n"].map(String::from);
    let mut stuck = Workload::parse(&texts, |r| r.to_string(), "t".into()).unwrap();
    stuck.ops[0].insert(0, Op { kind: Kind::Probe { src: ANY_SOURCE, tag: ANY_TAG }, line: 7, collective: "" });
    stuck.unit = "call";
    let r = go(m, stuck, Mapping::Linear).results;
    let e = r.unfinished().unwrap();
    assert!(e.contains("rank 0 waits in probe from any tag any (call 7)"), "{e}");
}

#[test]
fn compute_gaps_come_from_the_chosen_clock_and_scale() {
    let compute = |w: &Workload, r: usize| -> Vec<f64> {
        w.ops[r].iter().filter_map(|o| if let Kind::Compute(ns) = o.kind { Some(ns) } else { None }).collect()
    };
    let wall = load("ring", &DumpiOptions::default());
    let cpu = load("ring", &DumpiOptions { time: DumpiTime::Cpu, compute_scale: 1.0 });
    let half = load("ring", &DumpiOptions { time: DumpiTime::Wall, compute_scale: 0.5 });
    for r in 0..8 {
        // Before each of the 5 Sendrecvs, and before Finalize.
        let (w, c, h) = (compute(&wall, r), compute(&cpu, r), compute(&half, r));
        assert_eq!(w.len(), 6, "rank {r}");
        // Each exchange follows a 500 us busy-wait: at least that long on
        // the wall clock (the README measured 502..832 us).
        assert!(w[..5].iter().all(|&ns| (5e5..1e6).contains(&ns)), "rank {r}: {w:?}");
        // CPU time only runs while the rank has a core (the runs were
        // oversubscribed): not longer than the wall time, but for the clocks' jitter.
        assert!(c.iter().zip(&w).all(|(c, w)| *c > 0.0 && *c <= *w * 1.1), "rank {r}: {c:?} {w:?}");
        assert_ne!(c, w);
        assert_eq!(h, w.iter().map(|x| x * 0.5).collect::<Vec<_>>());
    }
}

#[test]
fn calls_not_modelled_are_listed() {
    let w = load("wildcard", &DumpiOptions::default());
    assert_eq!(
        w.notes,
        ["note: DUMPI calls not modelled (their time counts as computation): MPI_Comm_rank x4, MPI_Comm_size x4, \
          MPI_Get_count x3"]
    );
    let m = Network { topology: Topology::Torus(vec![4]), ..Network::default() };
    assert_eq!(go(m, w.clone(), Mapping::Linear).results.notes, w.notes);
}

/// A record of `call` on every clock at time `i` us.
fn rec(label: u16, i: u64, call: Call) -> Record {
    Record { label, entry: Some(i * 1000), exit: Some(i * 1000 + 10), call }
}

#[test]
fn waits_name_the_request_numbers_the_ranks_will_give() {
    // A barrier's receives take request numbers too: after it (2 ranks,
    // one round) the irecv is request 1 and the isend request 2; a wait
    // for the isend alone waits for number 2, the last open one is a waitall.
    let opt = DumpiOptions { compute_scale: 0.0, ..DumpiOptions::default() };
    let rank = |peer: i32, sizes: &Vec<u32>| RankTrace {
        records: [
            (124, Call::Init),
            (52, Call::Barrier { comm: 2 }),
            (12, Call::Irecv { src: peer, tag: 4, comm: 2, req: 6 }),
            (8, Call::Isend { count: 100, dt: 2, dest: peer, tag: 4, comm: 2, req: 7 }),
            (13, Call::Wait { req: 7, flag: 1 }),
            (13, Call::Wait { req: 6, flag: 1 }),
            (125, Call::Finalize),
        ]
        .into_iter()
        .enumerate()
        .map(|(i, (l, c))| rec(l, i as u64, c))
        .collect(),
        sizes: sizes.clone(),
    };
    let sizes = BUILTIN_SIZES.to_vec();
    let w = convert(&[rank(1, &sizes), rank(0, &sizes)], &opt, "t".into()).unwrap();
    let kinds: Vec<Kind> = w.ops[0].iter().map(|o| o.kind).collect();
    assert_eq!(
        kinds[2..],
        [
            Kind::Recv { src: 1, tag: 4, blocking: false },
            Kind::Send { k: 1, blocking: false },
            Kind::WaitReq(2),
            Kind::WaitAll,
        ]
    );
    let m = Network { topology: Topology::Torus(vec![4]), ..Network::default() };
    let r = go(m.clone(), w, Mapping::Linear).results;
    assert_eq!(r.unfinished(), None);
    // Barrier, then the 100-byte messages cross: one message time each.
    assert_eq!(r.app_time_ns, Some(message_time(&m, 1, 1) + message_time(&m, 1, 100)));
}

#[test]
fn other_collectives_and_persistent_requests_expand_and_complete() {
    // 5 ranks (not a power of two): Gather to 2, Scatterv from 1, Allgather,
    // Alltoallv, Reduce_scatter, Scan, then a persistent ring exchange
    // started twice, and a Type_commit (local, noted).
    let p = 5;
    let opt = DumpiOptions::default();
    let rank = |r: i32| {
        let peer = |d: i32| (r + d).rem_euclid(p);
        let scatter = if r == 1 { vec![1, 2, 3, 4, 5] } else { vec![] };
        let calls = vec![
            (124, Call::Init),
            (54, Call::Gather { count: 10, dt: 9, root: 2, comm: 2 }),
            (57, Call::Scatter { counts: scatter, dt: 14, root: 1, comm: 2 }),
            (58, Call::Allgather { counts: vec![3], dt: 14, comm: 2 }),
            (61, Call::Alltoallv { counts: (0..p).map(|i| i + r).collect(), dt: 2, comm: 2 }),
            (66, Call::Alltoallv { counts: vec![2; p as usize], dt: 9, comm: 2 }),
            (67, Call::Scan { count: 1, dt: 14, comm: 2 }),
            (26, Call::Persistent { send: true, count: 100, dt: 2, peer: peer(1), tag: 5, comm: 2, req: 9 }),
            (30, Call::Persistent { send: false, count: 100, dt: 2, peer: peer(-1), tag: 5, comm: 2, req: 8 }),
            (32, Call::Start { reqs: vec![9, 8] }),
            (18, Call::All { reqs: vec![9, 8], flag: 1 }),
            (46, Call::Local),
            (32, Call::Start { reqs: vec![8, 9] }),
            (13, Call::Wait { req: 8, flag: 1 }),
            (13, Call::Wait { req: 9, flag: 1 }),
            (15, Call::RequestFree { req: 9 }),
            (15, Call::RequestFree { req: 8 }),
            (125, Call::Finalize),
        ];
        RankTrace {
            records: calls.into_iter().enumerate().map(|(i, (l, c))| rec(l, i as u64, c)).collect(),
            sizes: BUILTIN_SIZES.to_vec(),
        }
    };
    let traces: Vec<RankTrace> = (0..p).map(rank).collect();
    let w = convert(&traces, &opt, "t".into()).unwrap();
    let per = |what: &str| {
        w.ops.iter().flatten().filter(|o| o.collective == what && matches!(o.kind, Kind::Send { .. })).count()
    };
    assert_eq!(
        [per("gather"), per("scatter"), per("allgather"), per("alltoallv"), per("reduce_scatter"), per("scan")],
        [4, 4, 20, 20, 20, 4]
    );
    // Gather: 40 bytes from each; Scatterv: rank i gets i + 1 doubles.
    assert!(w.sends[0].iter().any(|s| s.dst == 2 && s.bytes == 40));
    assert_eq!(
        w.sends[1].iter().filter(|s| s.tag == COLLECTIVE_TAG | 2).map(|s| s.bytes).collect::<Vec<_>>(),
        [8, 24, 32, 40]
    );
    // Every rank sends its persistent message twice.
    assert!(w.sends.iter().all(|s| s.iter().filter(|s| s.tag == 5 && s.bytes == 100).count() == 2));
    assert!(w.notes[0].contains("MPI_Type_commit x5"), "{:?}", w.notes);
    let m = Network { topology: Topology::Torus(vec![8]), ..Network::default() };
    let sent: usize = w.sends.iter().map(Vec::len).sum();
    let r = go(m, w, Mapping::Random(3)).results;
    assert_eq!(r.unfinished(), None);
    assert_eq!(r.delivered_messages as usize, sent);
    // A Start of a request no *_init made, and MPI_Cancel, are refused.
    let bad = |c: Call, l: u16| {
        let mut t = rank(0);
        t.records.insert(1, rec(l, 0, c));
        convert(&[t, rank(1), rank(2), rank(3), rank(4)], &opt, "t".into()).unwrap_err()
    };
    let e = bad(Call::Start { reqs: vec![4] }, 31);
    assert!(e.contains("rank 0: MPI_Start (call 2) starts request 4, which no MPI_*_init call made"), "{e}");
    let e = bad(Call::Cancel, 24);
    assert!(e.contains("rank 0: MPI_Cancel (call 2) is not modelled"), "{e}");
}

#[test]
fn duplicates_of_the_world_communicator_are_the_world() {
    // Comm_dup of WORLD (4), a whole Cart_create without reordering of
    // that (5): both replay as WORLD; a reordered grid (6) and a freed
    // duplicate are refused at their first use; nothing after Finalize counts.
    let opt = DumpiOptions::default();
    let rank = |r: i32, tail: Vec<(u16, Call)>| {
        let mut calls = vec![
            (124, Call::Init),
            (84, Call::CommAlias { old: 2, new: 4, cart: None }),
            (99, Call::CommAlias { old: 4, new: 5, cart: Some((2, 0)) }),
            (99, Call::CommAlias { old: 2, new: 6, cart: Some((2, 1)) }),
            (0, Call::Send { count: 1, dt: 2, dest: 1 - r, tag: 0, comm: 4 }),
            (1, Call::Recv { src: 1 - r, tag: 0, comm: 5 }),
            (52, Call::Barrier { comm: 5 }),
            (87, Call::CommFree { comm: 4 }),
            (86, Call::CommOther { new: 7 }),
        ];
        calls.extend(tail);
        RankTrace {
            records: calls.into_iter().enumerate().map(|(i, (l, c))| rec(l, i as u64, c)).collect(),
            sizes: BUILTIN_SIZES.to_vec(),
        }
    };
    let after = || vec![(125, Call::Finalize), (52, Call::Barrier { comm: 9 })];
    let w = convert(&[rank(0, after()), rank(1, after())], &opt, "t".into()).unwrap();
    assert_eq!(w.sends[0].len(), 2);
    let m = Network { topology: Topology::Torus(vec![4]), ..Network::default() };
    assert_eq!(go(m, w.clone(), Mapping::Linear).results.unfinished(), None);
    assert!(
        w.notes[0].contains("MPI_Cart_create x4, MPI_Comm_dup x2, MPI_Comm_free x2, MPI_Comm_split x2"),
        "{:?}",
        w.notes
    );
    for (c, want) in [
        (
            Call::Barrier { comm: 6 },
            "rank 0: MPI_Barrier (call 10) uses communicator 6: only MPI_COMM_WORLD and its duplicates",
        ),
        (Call::Barrier { comm: 4 }, "rank 0: MPI_Barrier (call 10) uses communicator 4"),
        (Call::Barrier { comm: 7 }, "rank 0: MPI_Barrier (call 10) uses communicator 7"),
    ] {
        let e = convert(&[rank(0, vec![(52, c)]), rank(1, after())], &opt, "t".into()).unwrap_err();
        assert!(e.contains(want), "{e} (wanted {want})");
    }
}

#[test]
fn messages_to_self_arrive_at_once() {
    // Rank 0 sends itself messages before and after posting receives, and
    // rank 1 one to 0: the self-messages never enter the network.
    let opt = DumpiOptions { compute_scale: 0.0, ..DumpiOptions::default() };
    let trace = |calls: Vec<(u16, Call)>| RankTrace {
        records: calls.into_iter().enumerate().map(|(i, (l, c))| rec(l, i as u64, c)).collect(),
        sizes: BUILTIN_SIZES.to_vec(),
    };
    let send = |dest| Call::Send { count: 8, dt: 2, dest, tag: 1, comm: 2 };
    let zero = trace(vec![
        (124, Call::Init),
        (0, send(0)),
        (1, Call::Recv { src: 0, tag: 1, comm: 2 }),
        (12, Call::Irecv { src: -1, tag: 1, comm: 2, req: 3 }),
        (12, Call::Irecv { src: 1, tag: 1, comm: 2, req: 4 }),
        (8, Call::Isend { count: 8, dt: 2, dest: 0, tag: 1, comm: 2, req: 5 }),
        (18, Call::All { reqs: vec![3, 4, 5], flag: 1 }),
        (125, Call::Finalize),
    ]);
    let one = trace(vec![(124, Call::Init), (0, send(0)), (125, Call::Finalize)]);
    let w = convert(&[zero, one], &opt, "t".into()).unwrap();
    let m = Network { topology: Topology::Torus(vec![4]), ..Network::default() };
    let r = go(m.clone(), w, Mapping::Linear).results;
    assert_eq!(r.unfinished(), None);
    assert_eq!(r.delivered_messages, 1);
    // The second self-message completes the wildcard receive, posted
    // first; rank 0 waits only for rank 1's message.
    assert_eq!(r.app_time_ns, Some(message_time(&m, 1, 8)));
}
