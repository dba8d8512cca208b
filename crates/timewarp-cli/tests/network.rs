//! End-to-end tests of the network model from the command line: shapes and
//! link statistics, the dragonfly's and fat-tree's options and presets,
//! trace-driven and DUMPI workloads, and CODES configurations.

mod common;
use common::{assert_clear_error, stats, stderr, timewarp, tmp};

#[test]
fn network_runs_writes_link_stats_and_refuses_bad_shapes() {
    let csv = tmp("links.csv");
    let c = csv.to_str().unwrap();
    let a = stats(&["run", "network", "--topology", "hypercube", "--nodes", "16", "--end", "3000", "--link-stats", c]);
    let r = &a["model_results"];
    assert_eq!(r["topology"], "hypercube");
    let (inj, del, fly) = (
        r["injected_packets"].as_u64().unwrap(),
        r["delivered_packets"].as_u64().unwrap(),
        r["in_flight_packets"].as_u64().unwrap(),
    );
    assert!(del > 0 && inj == del + fly, "{r}");
    let rows: Vec<String> = std::fs::read_to_string(&csv).unwrap().lines().map(String::from).collect();
    assert_eq!(rows[0], "link,source,destination,packets,busy_fraction,class");
    assert!(rows[1..].iter().all(|r| r.ends_with(",network")), "a cube's links are one class");
    assert_eq!(rows.len(), 1 + 16 * 4, "one row per directed link of a 4-cube");
    let o = timewarp(&["run", "network", "--help"]);
    let help = String::from_utf8_lossy(&o.stdout);
    for flag in ["--dims", "--traffic", "--load", "--vcs", "--buffer-packets", "--switch", "--warmup", "--link-stats"] {
        assert!(help.contains(flag), "network help lacks {flag}");
    }
    assert!(String::from_utf8_lossy(&timewarp(&["list"]).stdout).contains("network"));
    assert_clear_error(&["run", "network", "--vcs", "1"], "--vcs");
    assert_clear_error(&["run", "network", "--topology", "hypercube", "--nodes", "100"], "power of two");
    assert_clear_error(&["run", "network", "--dims", "8,4", "--traffic", "transpose"], "transpose");
}

#[test]
fn dragonfly_options_and_the_theta_preset() {
    let a = stats(&["run", "network", "--preset", "theta", "--routing", "ugal", "--load", "0.2", "--end", "1000"]);
    let r = &a["model_results"];
    // CODES's Theta: 9 groups of 96 routers with 4 nodes each.
    assert_eq!(
        (r["topology"].as_str(), r["nodes"].as_u64(), a["lps"].as_u64()),
        (Some("dragonfly"), Some(3456), Some(864))
    );
    let a = stats(&[
        "run",
        "network",
        "--topology",
        "dragonfly",
        "--routers-per-group",
        "2",
        "--terminals-per-router",
        "3",
        "--global-links",
        "1",
        "--traffic",
        "group-shift",
        "--routing",
        "valiant",
        "--end",
        "3000",
    ]);
    let r = &a["model_results"];
    assert_eq!((r["nodes"].as_u64(), a["lps"].as_u64()), (Some(18), Some(6)), "3 groups of 2 routers of 3 nodes");
    assert!(r["delivered_packets"].as_u64().unwrap() > 0, "{r}");
    let o = timewarp(&["run", "network", "--help"]);
    let help = String::from_utf8_lossy(&o.stdout);
    for flag in [
        "--routers-per-group",
        "--terminals-per-router",
        "--global-links",
        "--global-link-latency",
        "--preset",
        "group-shift",
        "ugal",
    ] {
        assert!(help.contains(flag), "network help lacks {flag}");
    }
    assert_clear_error(&["run", "network", "--routing", "ugal"], "--topology dragonfly");
    // Valiant also runs on the cubes, with a virtual channel set per phase.
    assert_clear_error(&["run", "network", "--routing", "valiant"], "--vcs 4");
    assert_clear_error(
        &["run", "network", "--topology", "dragonfly", "--routing", "adaptive"],
        "minimal, valiant or ugal",
    );
    assert_clear_error(&["run", "network", "--topology", "dragonfly", "--routing", "ugal", "--vcs", "4"], "--vcs 5");
    assert_clear_error(&["run", "network", "--traffic", "group-shift"], "--topology dragonfly");
    // A preset fixes the shape: clap refuses shape options beside it.
    let o = timewarp(&["run", "network", "--preset", "theta", "--dims", "4,4"]);
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("cannot be used with"));
}

#[test]
fn fattree_options_and_the_summit_preset() {
    let a = stats(&[
        "run",
        "network",
        "--preset",
        "summit",
        "--routing",
        "updown-adaptive",
        "--load",
        "0.2",
        "--end",
        "1000",
    ]);
    let r = &a["model_results"];
    // CODES's Summit: a pruned 3-level fat-tree of 36-port switches, 3,564 nodes, 504 switch LPs.
    assert_eq!(
        (r["topology"].as_str(), r["nodes"].as_u64(), a["lps"].as_u64()),
        (Some("fattree"), Some(3564), Some(504))
    );
    assert!(r["delivered_packets"].as_u64().unwrap() > 0, "{r}");
    // Radix 4, 2 levels, default nodes: the full 2-level tree, 8 nodes on 4 leaves and 2 spines.
    let a = stats(&["run", "network", "--topology", "fattree", "--radix", "4", "--levels", "2", "--end", "3000"]);
    let r = &a["model_results"];
    assert_eq!((r["nodes"].as_u64(), a["lps"].as_u64()), (Some(8), Some(6)));
    let injected = r["injected_packets"].as_u64().unwrap();
    let done = r["delivered_packets"].as_u64().unwrap() + r["in_flight_packets"].as_u64().unwrap();
    assert!(injected > 0 && injected == done, "{r}");
    let o = timewarp(&["run", "network", "--help"]);
    let help = String::from_utf8_lossy(&o.stdout);
    for flag in ["fattree", "--radix", "--levels", "--top-uplinks", "summit", "updown-adaptive"] {
        assert!(help.contains(flag), "network help lacks {flag}");
    }
}

/// A trace directory replays to the analytic time: a 3-hop ping-pong of
/// one-packet messages takes 2 × (5 L + 4 R + S) per round trip; the
/// results list every rank; a generated ring all-reduce matches
/// `I (C + 2 (P − 1) M(1, ceil(b / P)))` (docs/network-workloads.md); the summary
/// shows the application time.
#[test]
fn network_trace_workloads_report_application_times() {
    let dir = tmp("pingpong");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("rank.0.txt"), "# ping\nsend 1 100 0\nrecv 1 0\nsend 1 100 0\nrecv 1 0\n").unwrap();
    std::fs::write(dir.join("rank.1.txt"), "recv 0 0\nsend 0 100 0\nrecv 0 0\nsend 0 100 0\n").unwrap();
    std::fs::write(tmp("pingpong-map.txt"), "0\n3\n").unwrap();
    let (d, m) = (dir.to_str().unwrap(), tmp("pingpong-map.txt"));
    let args =
        ["run", "network", "--dims", "8", "--end", "1e15", "--workload", "trace", "--trace-dir", d, "--rank-mapping"];
    let a = stats(&[&args[..], &[m.to_str().unwrap()]].concat());
    let r = &a["model_results"];
    // L = R = 8 ns, 100 bytes at 4 bytes/ns.
    let round = 2.0 * (5.0 * 8.0 + 4.0 * 8.0 + 25.0);
    assert_eq!(r["app_time_ns"], 2.0 * round);
    assert_eq!(r["ranks"][1]["node"], 3);
    assert_eq!(r["ranks"][0]["comm_ns"], 2.0 * round);
    // Rates are over the time the network was active (to the last delivery,
    // here the application's end), not over --end 1e15: 4 messages of 100
    // bytes on 8 nodes; the busiest link carried 2 of them, 25 ns each.
    assert_eq!(r["window_ns"], 2.0 * round);
    let accepted = r["accepted_throughput"].as_f64().unwrap();
    assert!((accepted - 400.0 / (8.0 * 2.0 * round * 4.0)).abs() < 1e-12, "{r}");
    let busiest = r["max_link_utilisation"].as_f64().unwrap();
    assert!((busiest - 50.0 / (2.0 * round)).abs() < 1e-12, "{r}");
    // --messages: a finite workload too; the links' fractions share the window.
    let links = tmp("messages-links.csv");
    let l = links.to_str().unwrap();
    let s = stats(&["run", "network", "--dims", "4,4", "--end", "1e15", "--messages", "3", "--link-stats", l]);
    let r = &s["model_results"];
    let window = r["window_ns"].as_f64().unwrap();
    assert!(window > 0.0 && window < 1e6, "{r}");
    assert!(r["accepted_throughput"].as_f64().unwrap() > 1e-3, "{r}");
    let top = r["links"].as_array().unwrap().iter().map(|l| l["busy"].as_f64().unwrap()).fold(0.0, f64::max);
    assert_eq!(top, r["max_link_utilisation"].as_f64().unwrap());
    let g = stats(&[
        "run",
        "network",
        "--dims",
        "8",
        "--end",
        "1e15",
        "--workload",
        "allreduce",
        "--message-bytes",
        "8192",
        "--iterations",
        "3",
        "--compute-ns",
        "500",
        "--sync",
        "optimistic",
        "--threads",
        "2",
    ]);
    assert_eq!(g["model_results"]["app_time_ns"], 3.0 * (500.0 + 14.0 * (24.0 + 16.0 + 256.0)));
    assert_eq!(g["model_results"]["ranks"].as_array().unwrap().len(), 8);
    let o = timewarp(&["run", "network", "--dims", "4,4", "--workload", "halo3d", "--end", "1e15"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("application: 16 ranks finished at"));
}

/// An SST DUMPI trace (the models crate's test data) replays from the
/// command line: the ping-pong without its compute gaps takes 10 round
/// trips of 2 M(h, b) per size; the calls not modelled are noted.
#[test]
fn network_dumpi_workloads_replay_real_traces() {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../timewarp-models/tests/data/dumpi");
    let pp = data.join("pingpong");
    let base = ["run", "network", "--dims", "8", "--end", "1e15", "--workload", "dumpi", "--trace-dir"];
    let a = stats(&[&base[..], &[pp.to_str().unwrap(), "--compute-scale", "0"]].concat());
    // One hop (nodes 0 and 1), one packet of up to 256 bytes after the
    // first: M(1, b) = 3 L + 2 R + b / B with L = R = 8 ns, B = 4 bytes/ns.
    let want: f64 = (0..14).map(|i| 10.0 * 2.0 * (40.0 + (8u32 << i) as f64 / 4.0)).sum();
    let got = a["model_results"]["app_time_ns"].as_f64().unwrap();
    assert!((got - want).abs() < 1e-6 * want, "{got} {want}");
    let wild = data.join("wildcard");
    let o = timewarp(
        &[&base[..], &[wild.to_str().unwrap(), "--dumpi-time", "cpu", "--sync", "optimistic", "--threads", "2"]]
            .concat(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("application: 4 ranks finished at"), "{out}");
    assert!(
        out.contains("note: DUMPI calls not modelled (their time counts as computation): MPI_Comm_rank x4"),
        "{out}"
    );
}

#[test]
fn a_preset_may_name_its_own_topology_and_prints_a_configuration_that_runs() {
    let a = stats(&["run", "network", "--topology", "dragonfly", "--preset", "theta", "--end", "10"]);
    assert_eq!((a["model_results"]["topology"].as_str(), a["lps"].as_u64()), (Some("dragonfly"), Some(864)));
    let a = stats(&["run", "network", "--topology", "fattree", "--preset", "summit", "--end", "10"]);
    assert_eq!((a["model_results"]["topology"].as_str(), a["lps"].as_u64()), (Some("fattree"), Some(504)));
    // --print-config of a preset run: the shape options it fixes stay unset, and the file runs.
    let o = timewarp(&["run", "network", "--preset", "theta", "--end", "10", "--print-config"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("topology = \"dragonfly\"") && text.contains("# dims: not set"), "{text}");
    let file = tmp("theta.toml");
    std::fs::write(&file, text.as_bytes()).unwrap();
    let a = stats(&["run", "--config", file.to_str().unwrap()]);
    assert_eq!(a["lps"].as_u64(), Some(864));
}

#[test]
fn a_bounded_message_count_lets_the_load_exceed_one() {
    // (offered load, packets per message of 256-byte packets)
    for (offered, packets) in [(&["--load", "2"][..], 1), (&["--interarrival", "1", "--message-bytes", "2048"], 8)] {
        let mut args = vec!["run", "network", "--dims", "4,4", "--messages", "5", "--end", "1e9"];
        args.extend(offered);
        let a = stats(&args);
        let r = &a["model_results"];
        // 16 nodes × 5 messages, all delivered once the queues drain.
        assert_eq!(r["injected_packets"].as_u64(), Some(16 * 5 * packets), "{args:?}: {r}");
        assert_eq!(r["delivered_packets"], r["injected_packets"], "{args:?}: {r}");
    }
}

/// A stock CODES configuration copied into the tests (tests/data/codes).
fn codes_conf(name: &str) -> String {
    format!("{}/tests/data/codes/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// `timewarp run network --codes-config <name> args...`'s statistics.
fn codes_stats(name: &str, args: &[&str]) -> serde_json::Value {
    let conf = codes_conf(name);
    let mut all = vec!["run", "network", "--codes-config", &conf, "--quiet", "--stats-json", "-"];
    all.extend(args);
    let o = timewarp(&all);
    assert!(o.status.success(), "{all:?}: {}", stderr(&o));
    assert!(o.stderr.is_empty(), "--quiet leaves the table out: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn every_stock_codes_config_loads_with_its_topology_sizes() {
    // (file, topology, nodes, routers or switches, the options that give the shape)
    let dfly = |a: u64, p: u64, h: u64, g: u64| {
        vec![("routers-per-group", a), ("terminals-per-router", p), ("global-links", h), ("groups", g)]
    };
    type Shape = Vec<(&'static str, u64)>;
    let cases: Vec<(&str, &str, u64, u64, Shape)> = vec![
        // Theta: 9 groups × 96 routers (6 rows × 16 columns) × 4 nodes.
        ("modelnet-test-dragonfly-theta.conf", "dragonfly", 3456, 864, dfly(96, 4, 4, 9)),
        // 33 groups × 8 routers (h = a / 2 = 4, the maximal a·h + 1 groups) × 4 nodes.
        ("modelnet-synthetic-dragonfly.conf", "dragonfly", 1056, 264, dfly(8, 4, 4, 33)),
        ("synthetic-dragonfly-minimal.conf", "dragonfly", 1056, 264, dfly(8, 4, 4, 33)),
        ("modelnet-mpi-test-dragonfly.conf", "dragonfly", 1056, 264, dfly(8, 4, 4, 33)),
        ("dfdally_72.conf", "dragonfly", 72, 36, dfly(4, 2, 2, 9)),
        // Summit: 198 leaves × 18 nodes; 504 switches (fattree.rs has the count).
        (
            "modelnet-synthetic-fattree-summit-k36-n3564.conf",
            "fattree",
            3564,
            504,
            vec![("radix", 36), ("levels", 3), ("nodes", 3564)],
        ),
        // Radix 8, 3 levels, 32 leaves × 4 nodes: the full tree, 5k² = 80 switches.
        ("modelnet-synthetic-fattree.conf", "fattree", 128, 80, vec![("radix", 8), ("levels", 3), ("nodes", 128)]),
        ("synthetic-fattree-stock.conf", "fattree", 128, 80, vec![("radix", 8), ("levels", 3), ("nodes", 128)]),
        ("modelnet-mpi-test-torus.conf", "torus", 32, 32, vec![]),
        ("modelnet-test-torus.conf", "torus", 16, 16, vec![]),
    ];
    for (file, topology, nodes, lps, shape) in cases {
        let s = codes_stats(file, &["--end", "1"]);
        let (r, m) = (&s["model_results"], &s["config"]["model"]);
        assert_eq!(
            (r["topology"].as_str(), r["nodes"].as_u64(), s["lps"].as_u64()),
            (Some(topology), Some(nodes), Some(lps)),
            "{file}"
        );
        for (k, v) in shape {
            assert_eq!(m[k].as_u64(), Some(v), "{file}: {k}");
        }
    }
    let t = codes_stats("modelnet-mpi-test-torus.conf", &["--end", "1"]);
    assert_eq!(t["config"]["model"]["dims"], serde_json::json!([4, 4, 2]));
}

#[test]
fn codes_units_convert_exactly_and_the_command_line_overrides_the_file() {
    let s = codes_stats("modelnet-test-dragonfly-theta.conf", &["--end", "1"]);
    let m = &s["config"]["model"];
    // GiB/s × 2^30 / 10^9 = bytes per ns: 5.25, 1.5 and 16 GiB/s.
    assert_eq!(m["local-bandwidth"].as_f64(), Some(5.637144576));
    assert_eq!(m["global-bandwidth"].as_f64(), Some(1.610612736));
    assert_eq!(m["terminal-bandwidth"].as_f64(), Some(17.179869184));
    // 8 KiB and 16 KiB buffers of 2,048-byte packets; UGAL for "adaptive".
    assert_eq!((m["local-buffer-packets"].as_u64(), m["global-buffer-packets"].as_u64()), (Some(4), Some(8)));
    assert_eq!((m["packet-bytes"].as_u64(), m["routing"].as_str()), (Some(2048), Some("ugal")));
    // CODES' progressive adaptive routing is PAR, with the virtual channels it needs.
    let text = std::fs::read_to_string(codes_conf("modelnet-test-dragonfly-theta.conf")).unwrap();
    assert!(text.contains("routing=\"adaptive\""));
    let prog = std::env::temp_dir().join(format!("prog-adaptive-{}.conf", std::process::id()));
    std::fs::write(&prog, text.replace("routing=\"adaptive\"", "routing=\"prog-adaptive\"")).unwrap();
    let o = timewarp(&[
        "run",
        "network",
        "--codes-config",
        prog.to_str().unwrap(),
        // Its connection files stay beside the original.
        "--connections-dir",
        &codes_conf(""),
        "--end",
        "1",
        "-q",
        "--stats-json",
        "-",
    ]);
    let _ = std::fs::remove_file(&prog);
    assert!(o.status.success(), "{}", stderr(&o));
    let p: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(p["config"]["model"]["routing"].as_str(), Some("par"));
    // The fat-tree's link_bandwidth is bytes/ns already; 64 KiB of 512-byte packets; its router_delay in ns.
    let f = codes_stats("synthetic-fattree-stock.conf", &["--end", "1"]);
    let m = &f["config"]["model"];
    assert_eq!((m["link-bandwidth"].as_f64(), m["buffer-packets"].as_u64()), (Some(12.5), Some(128)));
    assert_eq!((m["router-delay"].as_f64(), m["routing"].as_str()), (Some(90.0), Some("updown-adaptive")));
    let t = codes_stats("modelnet-test-torus.conf", &["--end", "1"]);
    assert_eq!(
        (t["config"]["model"]["link-bandwidth"].as_f64(), t["config"]["model"]["buffer-packets"].as_u64()),
        (Some(2.147483648), Some(8))
    );
    // A flag replaces the file's value, and the table says so.
    let s = codes_stats(
        "modelnet-test-dragonfly-theta.conf",
        &["--end", "1", "--local-bandwidth", "3", "--routing", "minimal", "--vcs", "5"],
    );
    assert_eq!(
        (s["config"]["model"]["local-bandwidth"].as_f64(), s["config"]["model"]["routing"].as_str()),
        (Some(3.0), Some("minimal"))
    );
    let conf = codes_conf("modelnet-test-dragonfly-theta.conf");
    let o = timewarp(&["run", "network", "--codes-config", &conf, "--local-bandwidth", "3", "--print-config"]);
    let (out, err) = (String::from_utf8_lossy(&o.stdout), stderr(&o));
    assert!(o.status.success(), "{err}");
    for row in [
        "local_bandwidth",
        "converted",
        "--local-bandwidth 5.637144576",
        "chunk_size",
        "ignored",
        "whole packets",
        "the command line's --local-bandwidth replace",
    ] {
        assert!(err.contains(row), "the table shows '{row}': {err}");
    }
    // --print-config writes our own run file, which runs as the import did.
    assert!(
        out.contains("local-bandwidth = 3")
            && out.contains("routers-per-group = 96")
            && !out.contains("codes-config ="),
        "{out}"
    );
}

#[test]
fn a_run_from_a_codes_config_commits_the_same_digest_in_every_mode() {
    for file in ["dfdally_72.conf", "synthetic-fattree-stock.conf", "modelnet-mpi-test-torus.conf"] {
        // A Dally link takes a 4 KiB chunk's time twice: its first packets arrive after about 10 µs.
        let end = if file == "dfdally_72.conf" { "30000" } else { "12000" };
        let run = ["--end", end, "--load", "0.5"];
        let seq = codes_stats(file, &run);
        assert!(seq["model_results"]["delivered_packets"].as_u64().unwrap() > 0, "{file}");
        for sync in ["optimistic", "conservative"] {
            let s = codes_stats(file, &[&run[..], &["--sync", sync, "--threads", "2"]].concat());
            assert_eq!(s["digest"], seq["digest"], "{file} {sync}");
        }
    }
}

/// CODES's 1-D dragonfly rule (`--routing ugal-codes`) commits one digest
/// in every mode and delivers every packet of a bounded run (its routes
/// climb the 5 channels a Valiant route needs).
#[test]
fn ugal_codes_commits_the_same_digest_in_every_mode() {
    let base = ["run", "network", "--topology", "dragonfly", "--routing", "ugal-codes", "--load", "0.6"];
    let run = |extra: &[&str]| stats(&[&base[..], &["--messages", "6", "--end", "1e9"], extra].concat());
    let seq = run(&[]);
    let r = &seq["model_results"];
    assert!(r["delivered_packets"].as_u64().unwrap() > 0, "{r}");
    assert_eq!(r["delivered_packets"], r["injected_packets"], "{r}");
    for extra in [
        &["--sync", "optimistic", "--threads", "2"][..],
        &["--sync", "conservative", "--threads", "2"],
        &["--sync", "conservative", "--threads", "1"],
    ] {
        let s = run(extra);
        assert_eq!(s["digest"], seq["digest"], "{extra:?}");
        assert_eq!(s["model_results"], seq["model_results"], "{extra:?}");
    }
}
