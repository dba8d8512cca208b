//! `--lp-io-dir`: CODES's LP-IO files of a dragonfly run (per terminal
//! `dragonfly-msg-stats`, per router `dragonfly-router-traffic`), their
//! rows checked against the run's own totals and against counts fixed by
//! the workload's definition, the same bytes in every mode, and the digest
//! untouched.

mod common;
use common::{assert_clear_error, stats, stderr, timewarp, tmp};

/// A 72-node dragonfly (a = 4 routers per group, p = 2 terminals, h = 2,
/// g = 9 groups), every node sending 4 messages of 4096 bytes in 512-byte
/// packets: 72 · 4 messages, 8 packets each.
const RUN: &[&str] = &[
    "run",
    "network",
    "--topology",
    "dragonfly",
    "--routers-per-group",
    "4",
    "--terminals-per-router",
    "2",
    "--messages",
    "4",
    "--message-bytes",
    "4096",
    "--packet-bytes",
    "512",
    "--load",
    "0.2",
    "--end",
    "1e6",
];

/// Runs `RUN` plus `more` with `--lp-io-dir`; the run's results and the
/// files' text (`dragonfly-router-stats` last).
fn lp_io(name: &str, more: &[&str]) -> (serde_json::Value, String, String, String) {
    let dir = tmp(name);
    let mut args = RUN.to_vec();
    args.extend(more);
    args.extend(["--lp-io-dir", dir.to_str().unwrap()]);
    let s = stats(&args);
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    assert!(read("dragonfly-msg-stats.meta").starts_with("# Format <LP id> <Terminal ID> <Total Data Size>"));
    (s, read("dragonfly-msg-stats"), read("dragonfly-router-traffic"), read("dragonfly-router-stats"))
}

fn cols(line: &str) -> Vec<f64> {
    line.split_whitespace().map(|x| x.parse().unwrap()).collect()
}

#[test]
fn the_files_have_a_row_per_terminal_and_router_that_add_up_to_the_run() {
    let (s, msgs, traffic, busy) = lp_io("lpio-seq", &[]);
    let m = &s["model_results"];
    let packets = m["delivered_packets"].as_f64().unwrap();
    // The workload's definition: every message arrives whole.
    assert_eq!(packets, (72 * 4 * 8) as f64);
    let rows: Vec<Vec<f64>> = msgs.lines().map(cols).collect();
    assert_eq!(rows.len(), 72, "one row per terminal");
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r.len(), 9, "CODES's nine columns: {r:?}");
        assert_eq!((r[0], r[1]), ((i / 2) as f64, i as f64), "router LP, terminal id");
        assert!(r[6].is_nan(), "busy time: none without a NIC buffer");
    }
    let sum = |c: usize| rows.iter().map(|r| r[c]).sum::<f64>();
    assert_eq!(sum(2), (72 * 4 * 4096) as f64, "bytes of whole messages received");
    assert_eq!(sum(4), packets);
    // Average latency and routers crossed (printed to 6 decimals) times packets.
    let total = |c: usize| rows.iter().filter(|r| r[4] > 0.0).map(|r| r[c] * r[4]).sum::<f64>();
    let lat = m["latency_mean"].as_f64().unwrap() * packets;
    assert!((total(3) - lat).abs() < 1e-6 * lat + 1.0, "{} {lat}", total(3));
    let routers = m["routers_traversed_mean"].as_f64().unwrap() * packets;
    assert!((total(5) - routers).abs() < 0.5, "routers crossed {} {routers}", total(5));
    let max = rows.iter().map(|r| r[7]).fold(0.0, f64::max);
    assert!((max - m["latency_max"].as_f64().unwrap()).abs() < 1e-5);

    // The traffic file: a format line, then a row per router (36), each its
    // LP, group, router in group and bytes on its 3 local, 2 global and 2 terminal ports.
    let mut lines = traffic.lines();
    assert!(lines.next().unwrap().contains("3 local links, 2 global channels, 2 terminal links"));
    let routers: Vec<Vec<f64>> = lines.filter(|l| !l.is_empty()).map(cols).collect();
    assert_eq!(routers.len(), 36);
    let (mut net, mut eject) = (0.0, 0.0);
    for (i, r) in routers.iter().enumerate() {
        assert_eq!(r.len(), 3 + 7);
        assert_eq!((r[0], r[1], r[2]), (i as f64, (i / 4) as f64, (i % 4) as f64));
        net += r[3..8].iter().sum::<f64>();
        eject += r[8..].iter().sum::<f64>();
    }
    // Every delivered byte left a terminal port; each packet crossed hops_mean links.
    assert_eq!(eject, sum(2));
    let hops = m["hops_mean"].as_f64().unwrap() * packets;
    assert!((net / 512.0 - hops).abs() < 1e-6 * hops, "{net} bytes on network ports, {hops} hops");

    // The busy-time file: CODES's format line, the same rows, a time per
    // port; terminal ports always take a packet, a port that sent nothing
    // never had a packet waiting for it, and every busy period lies
    // within the run (ending by the last credit, a link latency past the
    // last delivery).
    let mut lines = busy.lines();
    assert!(lines
        .next()
        .unwrap()
        .starts_with("# Format <LP ID> <Group ID> <Router ID> <Busy time per router port(s)>"));
    let rows: Vec<Vec<f64>> = lines.filter(|l| !l.is_empty()).map(cols).collect();
    assert_eq!(rows.len(), 36);
    let end = m["window_ns"].as_f64().unwrap() + 100.0;
    for (r, t) in rows.iter().zip(&routers) {
        assert_eq!(r.len(), 3 + 7);
        assert_eq!(r[..3], t[..3]);
        assert!(r[8..].iter().all(|&b| b == 0.0), "terminal ports: {r:?}");
        for o in 3..8 {
            assert!((0.0..=end).contains(&r[o]), "{r:?}");
            assert!(t[o] > 0.0 || r[o] == 0.0, "a port that sent nothing: {r:?}");
        }
    }
}

#[test]
fn every_mode_writes_the_same_files_and_the_digest_is_unchanged() {
    let (seq, msgs, traffic, busy) = lp_io("lpio-a", &[]);
    for (i, mode) in [&["--sync", "optimistic", "--threads", "2"][..], &["--sync", "conservative", "--threads", "2"]]
        .iter()
        .enumerate()
    {
        let (s, m, t, b) = lp_io(&format!("lpio-mode{i}"), mode);
        assert_eq!(s["digest"], seq["digest"], "{mode:?}");
        assert!(m == msgs && t == traffic && b == busy, "{mode:?}: the files differ");
    }
    let plain = stats(RUN);
    assert_eq!(plain["digest"], seq["digest"], "the counters are out of the digest");
    // With one-packet NIC buffers the busy times too (their counters undone
    // in optimistic runs). A slot's credit is back 2 L + R + S = 152 ns
    // after its packet starts, the link free after S = 128: every 8-packet
    // message waits for credits.
    let nic = ["--nic-buffer", "512"];
    let (seq, msgs, _, _) = lp_io("lpio-nic", &nic);
    assert!(msgs.lines().any(|l| cols(l)[6] > 0.0), "one-packet buffers fill:\n{msgs}");
    for (i, mode) in [&["--sync", "optimistic", "--threads", "2"][..], &["--sync", "conservative", "--threads", "2"]]
        .iter()
        .enumerate()
    {
        let (s, m, _, _) = lp_io(&format!("lpio-nic{i}"), &[&nic[..], mode].concat());
        assert_eq!(s["digest"], seq["digest"], "{mode:?}");
        assert!(m == msgs, "{mode:?}: the busy times differ");
    }
}

#[test]
fn lp_io_refuses_topologies_without_codes_dragonfly_files() {
    let dir = tmp("lpio-torus");
    let args = ["run", "network", "--topology", "torus", "--dims", "4,4", "--end", "100"];
    assert_clear_error(&[&args[..], &["--lp-io-dir", dir.to_str().unwrap()]].concat(), "--lp-io-dir");
}

/// The counters are not in checkpoints: resuming a run that writes them is
/// refused before it runs, with one line saying how to get the files.
#[test]
fn resuming_a_run_with_lp_io_is_refused_at_once() {
    let (dir, ck) = (tmp("lpio-ck-out"), tmp("lpio-ck"));
    let mut args = RUN.to_vec();
    args.extend(["--checkpoint-dir", ck.to_str().unwrap(), "--checkpoint-every", "2000"]);
    args.extend(["--lp-io-dir", dir.to_str().unwrap(), "--quiet"]);
    let o = timewarp(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let file = std::fs::read_dir(&ck).unwrap().next().expect("a checkpoint").unwrap().path();
    assert_clear_error(&["resume", file.to_str().unwrap()], "run it again from the start");
}
