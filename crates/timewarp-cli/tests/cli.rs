//! End-to-end tests of the `timewarp` binary: real runs and bad input.

mod common;
use common::{assert_clear_error, stderr, timewarp};

fn tmp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("timewarp-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn stats(args: &[&str]) -> serde_json::Value {
    let path = tmp(&format!("stats-{}.json", args.join("_").replace(['-', '.', '/'], "")));
    let mut all = args.to_vec();
    let p = path.to_str().unwrap();
    all.extend(["--stats-json", p, "--quiet"]);
    let o = timewarp(&all);
    assert!(o.status.success(), "{all:?}: {}", stderr(&o));
    assert!(o.stdout.is_empty(), "--quiet prints nothing");
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

#[test]
fn phold_run_prints_a_summary() {
    let o = timewarp(&["run", "phold", "--lps", "512", "--end", "5"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    for row in ["committed events", "wall time", "event rate", "peak memory", "digest"] {
        assert!(out.contains(row), "summary lacks '{row}':\n{out}");
    }
    assert!(stderr(&o).is_empty(), "a piped run shows no progress: {}", stderr(&o));
}

#[test]
fn stats_json_has_the_documented_keys_and_is_reproducible() {
    let a = stats(&["run", "phold", "--lps", "256", "--end", "8"]);
    for key in [
        "model",
        "sync",
        "threads",
        "lps",
        "end_time",
        "committed_events",
        "processed_events",
        "rolled_back_events",
        "wall_seconds",
        "event_rate",
        "peak_rss_bytes",
        "timestamp_ties",
        "digest",
        "digest_version",
        "model_results",
    ] {
        assert!(a.get(key).is_some(), "missing key {key} in {a}");
    }
    assert_eq!(a["digest_version"], timewarp::digest::DIGEST_VERSION, "{a}");
    assert_eq!(a["model"], "phold");
    assert_eq!(a["lps"], 256);
    assert_eq!(a["committed_events"], a["model_results"]["processed"]);
    let b = stats(&["run", "phold", "--lps", "256", "--end", "8"]);
    assert_eq!(a["digest"], b["digest"]);
    let c = stats(&["run", "phold", "--lps", "256", "--end", "8", "--seed", "9"]);
    assert_ne!(a["digest"], c["digest"]);
    let d = stats(&["run", "phold", "--lps", "256", "--end", "8", "--sync", "check", "--queue", "heap"]);
    assert_eq!(a["digest"], d["digest"]);
}

#[test]
fn zero_delays_give_timestamp_ties() {
    let a = stats(&["run", "phold", "--lps", "64", "--population", "2", "--mean", "0", "--lookahead", "0.5"]);
    assert!(a["timestamp_ties"].as_u64().unwrap() > 0, "{a}");
}

#[test]
fn help_documents_every_phold_parameter() {
    let o = timewarp(&["run", "phold", "--help"]);
    assert!(o.status.success());
    let help = String::from_utf8_lossy(&o.stdout);
    for flag in [
        "--lps",
        "--population",
        "--mean",
        "--lookahead",
        "--remote",
        "--compute",
        "--end",
        "--seed",
        "--sync",
        "--stats-json",
    ] {
        assert!(help.contains(flag), "help lacks {flag}");
    }
    let o = timewarp(&["list"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("phold"));
}

#[test]
fn pcs_runs_and_reports_blocking() {
    let a = stats(&["run", "pcs", "--cells-x", "4", "--cells-y", "4", "--end", "20"]);
    let r = &a["model_results"];
    assert!(r["blocking_probability"].as_f64().is_some(), "{r}");
    assert!(r["handoff_blocking_probability"].as_f64().is_some(), "{r}");
    assert_eq!(r["cells"].as_array().map(|c| c.len()), Some(16));
    let b = stats(&[
        "run",
        "pcs",
        "--cells-x",
        "4",
        "--cells-y",
        "4",
        "--end",
        "20",
        "--sync",
        "optimistic",
        "--threads",
        "3",
    ]);
    assert_eq!(a["digest"], b["digest"]);
    assert_eq!(a["model_results"], b["model_results"]);
}

/// The summary and the results set the analytic blocking beside the
/// measured one: Engset for the defaults (N = 16, c = 10, alpha = 0.5:
/// 0.67 %), Erlang-B (a = 8 on 10 channels: 12.2 %) with Poisson arrivals.
#[test]
fn pcs_shows_the_loss_formula_beside_the_measured_blocking() {
    let base = ["run", "pcs", "--cells-x", "4", "--cells-y", "4", "--end", "5"];
    let o = timewarp(&base);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("; Engset 0.0067") && out.contains("mobility raises blocking"), "{out}");
    let r = &stats(&base)["model_results"];
    assert_eq!(r["formula"], "engset");
    assert!((r["formula_blocking_probability"].as_f64().unwrap() - 0.0067).abs() < 5e-5, "{r}");
    let r = &stats(&[&base[..], &["--arrivals", "poisson", "--move-rate", "0"]].concat())["model_results"];
    assert_eq!(r["formula"], "erlang-b");
    assert!((r["formula_blocking_probability"].as_f64().unwrap() - 0.1217).abs() < 5e-5, "{r}");
}

#[test]
fn verify_says_ok_when_modes_agree() {
    let o = timewarp(&["verify", "phold", "--lps", "128", "--end", "10", "--threads", "3", "--remote", "1.0"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("verify: OK"));
    let o = timewarp(&["verify", "pcs", "--cells-x", "4", "--cells-y", "4", "--end", "10", "--threads", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn mapping_block_random_and_file_commit_the_same_digest() {
    let base = ["run", "phold", "--lps", "64", "--end", "6", "--remote", "0.5"];
    let seq = stats(&base);
    let file = tmp("mapping.txt");
    // Scatter the LPs: LP i on PE (5 i) mod 3, with a comment line.
    let lines: Vec<String> = (0..64).map(|i| ((5 * i) % 3).to_string()).collect();
    std::fs::write(&file, format!("# PE per LP\n{}\n", lines.join("\n"))).unwrap();
    let f = file.to_str().unwrap();
    for mode in [["--sync", "optimistic"], ["--sync", "conservative"]] {
        for mapping in ["block", "random", f] {
            let s = stats(&[&base[..], &mode, &["--threads", "3", "--mapping", mapping]].concat());
            assert_eq!(s["digest"], seq["digest"], "{mode:?} --mapping {mapping}");
        }
    }
    let json = tmp("mapping.json");
    std::fs::write(&json, format!("[{}]", lines.join(","))).unwrap();
    let s =
        stats(&[&base[..], &["--sync", "optimistic", "--threads", "3", "--mapping", json.to_str().unwrap()]].concat());
    assert_eq!(s["digest"], seq["digest"], "JSON mapping");
}

#[test]
fn bad_mappings_are_clear_errors() {
    let run = ["run", "phold", "--lps", "4", "--sync", "optimistic", "--threads", "2", "--mapping"];
    assert_clear_error(&[&run[..], &["/no/such/file"]].concat(), "cannot read the mapping file");
    let short = tmp("short-mapping.txt");
    std::fs::write(&short, "0\n1\n").unwrap();
    assert_clear_error(&[&run[..], &[short.to_str().unwrap()]].concat(), "2 entries (lines), but the model has 4 LPs");
    let far = tmp("far-mapping.txt");
    std::fs::write(&far, "0\n1\n7\n0\n").unwrap();
    assert_clear_error(&[&run[..], &[far.to_str().unwrap()]].concat(), "line 3 (LP 2): PE 7 does not exist");
    let word = tmp("word-mapping.txt");
    std::fs::write(&word, "0\none\n").unwrap();
    assert_clear_error(&[&run[..], &[word.to_str().unwrap()]].concat(), "line 2");
}

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
    assert_eq!(rows[0], "link,source,destination,packets,busy_fraction");
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

#[test]
fn stats_json_dash_is_standard_output_and_the_summary_goes_to_stderr() {
    let o = timewarp(&["run", "phold", "--lps", "64", "--end", "4", "--stats-json", "-"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("stdout is the JSON alone");
    assert_eq!(json["lps"], 64);
    assert!(stderr(&o).contains("committed events"), "the summary: {}", stderr(&o));
    assert!(!std::path::Path::new("-").exists(), "no file named '-'");
}

#[test]
fn stats_file_is_complete_or_absent() {
    let path = tmp("complete.json");
    let p = path.to_str().unwrap();
    let o = timewarp(&["run", "phold", "--lps", "64", "--end", "4", "--quiet", "--stats-json", p]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(json["committed_events"], json["model_results"]["processed"]);
    // No temporary file is left beside it, and a failed run leaves none either.
    let stalls = ["run", "phold", "--lps", "4", "--mean", "0", "--lookahead", "0", "--max-events-at-one-time", "100"];
    let o = timewarp(&[&stalls[..], &["--stats-json", p]].concat());
    assert!(!o.status.success());
    let dir = path.parent().unwrap();
    // (Other tests write beside it at the same time: look at this file's only.)
    let left: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".complete.json"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

#[test]
fn verify_writes_both_runs_statistics() {
    let path = tmp("verify.json");
    let p = path.to_str().unwrap();
    let o = timewarp(&["verify", "phold", "--lps", "64", "--end", "4", "--threads", "2", "--stats-json", p]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(json["identical"], true);
    assert_eq!(json["sequential"]["sync"], "sequential");
    assert_eq!(json["parallel"]["sync"], "optimistic");
    assert_eq!(json["sequential"]["digest"], json["parallel"]["digest"]);
}

#[test]
fn end_help_shows_each_model_s_default_and_unit() {
    for (model, default, unit) in [
        ("phold", "[default: 20]", "unit of --mean"),
        ("pcs", "[default: 100]", "unit of --call-duration"),
        ("network", "[default: 20000]", "ns"),
    ] {
        let o = timewarp(&["run", model, "--help"]);
        let help = String::from_utf8_lossy(&o.stdout);
        let end = help.split("--end <END>").nth(1).and_then(|rest| rest.split("\n      --").next()).unwrap_or_default();
        assert!(end.contains(default) && end.contains(unit), "{model}: --end help: {end}");
    }
}

#[test]
fn tlm_runs_and_writes_an_image_receiver_signals_and_results() {
    let img = tmp("field.png");
    let csv = tmp("rx.csv");
    let sources = tmp("sources.txt");
    std::fs::write(&sources, "# x y\n6 12\n30 30\n").unwrap();
    let (i, c, s) = (img.to_str().unwrap(), csv.to_str().unwrap(), sources.to_str().unwrap());
    #[rustfmt::skip]
    let city = ["run", "tlm", "--size", "40x36", "--sources-file", s, "--receiver-at", "21,21", "--receivers", "2",
        "--obstacles", "urban", "--block-size", "5", "--street-width", "3", "--end", "50", "--image", i, "--image-at", "30"];
    let a = stats(&[&city[..], &["--receivers-csv", c]].concat());
    let r = &a["model_results"];
    assert_eq!(r["cells"], 40 * 36);
    assert_eq!(r["steps"], 50);
    assert_eq!(r["events"], a["committed_events"]);
    assert_eq!(r["receivers"].as_array().unwrap().len(), 3);
    assert!(r["energy_final"].as_f64().unwrap() > 0.0);
    // A PNG of the grid, 8 pixels per cell (at least 320 on the longer
    // side), and a 150-pixel strip for the colour bar and the marker key.
    let png = std::fs::read(&img).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 40 * 8 + 150);
    assert_eq!(u32::from_be_bytes(png[20..24].try_into().unwrap()), 36 * 8);
    // A header and one row per step, a column per receiver; its peak is the results' peak.
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    assert!(rows[0].starts_with("step,x21_y21_z0,"), "{}", rows[0]);
    assert_eq!(rows[0].split(',').count(), 4);
    assert_eq!(rows.len(), 51);
    let peak = rows[1..].iter().map(|l| l.split(',').nth(1).unwrap().parse::<f64>().unwrap().abs()).fold(0.0, f64::max);
    assert_eq!(peak, r["receivers"][0]["peak"].as_f64().unwrap());
    // Same seed, same random placement and city: same digest and results in another mode.
    let b = stats(&[&city[..], &["--sync", "conservative", "--threads", "2"]].concat());
    assert_eq!(a["digest"], b["digest"]);
    assert_eq!(a["model_results"], b["model_results"]);
    let help = String::from_utf8_lossy(&timewarp(&["run", "tlm", "--help"]).stdout).into_owned();
    for flag in
        ["--size", "--boundary-reflection", "--terrain", "--sources", "--threshold", "--image-at", "--receivers-csv"]
    {
        assert!(help.contains(flag), "tlm help lacks {flag}");
    }
    assert!(String::from_utf8_lossy(&timewarp(&["list"]).stdout).contains("tlm"));
}

#[test]
fn tlm_bad_input_is_one_clear_line() {
    assert_clear_error(&["run", "tlm", "--size", "10x0"], "at least 1");
    assert_clear_error(&["run", "tlm", "--source-at", "10,10", "--size", "8x8"], "outside");
    assert_clear_error(&["run", "tlm", "--boundary-reflection", "2"], "--boundary-reflection");
    assert_clear_error(&["run", "tlm", "--image", "/tmp/x.png", "--image-at", "500", "--end", "100"], "--image-at");
    assert_clear_error(&["run", "tlm", "--size", "8x8", "--sources", "65"], "do not fit");
    assert_clear_error(&["run", "tlm", "--terrain", "/nonexistent/terrain.txt"], "cannot read");
    assert_clear_error(&["run", "tlm", "--end", "1e12"], "--end");
}

#[test]
fn profile_partition_run_commits_the_same_digest_under_every_scheme() {
    let model =
        ["phold", "--hierarchy", "3,16,3", "--remote", "1", "--compute", "10", "--skewed-compute", "--interleave"];
    let base = [&["run"][..], &model[..], &["--end", "6"]].concat();
    let seq = stats(&base);
    let profile = tmp("hier.graph");
    let p = profile.to_str().unwrap();
    let profiled = stats(&[&base[..], &["--profile-out", p]].concat());
    assert_eq!(profiled["digest"], seq["digest"], "profiling changes nothing");
    let text = std::fs::read_to_string(&profile).unwrap();
    assert!(text.starts_with("% timewarp-profile {\"model\":\"phold\",\"lps\":64"), "{}", &text[..80]);
    for scheme in ["random", "block", "static", "object-only", "activity", "object-activity"] {
        for (layout, threads) in [(&["--parts", "3"][..], "3"), (&["--hierarchy", "1,2"][..], "2")] {
            let map = tmp(&format!("hier-{scheme}-{threads}.map"));
            let m = map.to_str().unwrap();
            let o = timewarp(&[&["partition", p, "--scheme", scheme, "-o", m][..], layout].concat());
            assert!(o.status.success(), "{scheme}: {}", stderr(&o));
            let out = String::from_utf8_lossy(&o.stdout);
            assert!(out.contains("predicted remote fraction") && out.contains("imbalance"), "{out}");
            for sync in ["optimistic", "conservative"] {
                let s = stats(&[&base[..], &["--sync", sync, "--threads", threads, "--mapping", m]].concat());
                assert_eq!(s["digest"], seq["digest"], "{scheme} {sync} {threads} threads");
            }
        }
    }
    // The mapping knows its model: another model (or LP count) is refused.
    let map = tmp("hier-activity-3.map");
    assert_clear_error(
        &[
            "run",
            "pcs",
            "--cells-x",
            "8",
            "--cells-y",
            "8",
            "--sync",
            "optimistic",
            "--threads",
            "3",
            "--mapping",
            map.to_str().unwrap(),
        ],
        "from a profile of phold with 64 LPs, but this run is pcs with 64 LPs",
    );
    assert_clear_error(
        &["run", "phold", "--lps", "128", "--sync", "optimistic", "--threads", "3", "--mapping", map.to_str().unwrap()],
        "but this run is phold with 128 LPs",
    );
    // A profile whose body was cut short names the problem.
    let cut = tmp("cut.graph");
    std::fs::write(&cut, text.lines().take(10).collect::<Vec<_>>().join("\n")).unwrap();
    let c = cut.to_str().unwrap();
    assert_clear_error(
        &["partition", c, "--parts", "2", "--scheme", "activity", "-o", "/dev/null"],
        "vertices announced",
    );
}

#[test]
fn pcs_profiles_and_partitions_too() {
    let base = ["run", "pcs", "--cells-x", "8", "--cells-y", "8", "--end", "5"];
    let seq = stats(&base);
    let profile = tmp("pcs.graph");
    let p = profile.to_str().unwrap();
    stats(&[&base[..], &["--profile-out", p]].concat());
    let map = tmp("pcs.map");
    let m = map.to_str().unwrap();
    let o = timewarp(&["partition", p, "--parts", "2", "--scheme", "object-activity", "-o", m]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stats(&[&base[..], &["--sync", "optimistic", "--threads", "2", "--mapping", m]].concat());
    assert_eq!(s["digest"], seq["digest"]);
    // More parts than LPs would leave PEs without an LP: refused, naming the limit.
    assert_clear_error(
        &["partition", p, "--parts", "65", "--scheme", "block", "-o", m],
        "more than the profile's 64 LPs",
    );
    assert_clear_error(
        &["partition", p, "--hierarchy", "8,9", "--scheme", "activity", "-o", m],
        "--hierarchy 8,9 makes 72 parts more than the profile's 64 LPs",
    );
    let o = timewarp(&["partition", p, "--parts", "64", "--scheme", "block", "-o", m, "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// A trace directory replays to the analytic time: a 3-hop ping-pong of
/// one-packet messages takes 2 × (5 L + 4 R + S) per round trip; the
/// results list every rank; a generated ring all-reduce matches
/// `I (C + 2 (P − 1) M(1, ceil(b / P)))` (docs/network.md); the summary
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

#[test]
fn verify_describes_the_parallel_run_only() {
    // --pes and --scheduling are the parallel run's: the sequential one runs one PE.
    let o = timewarp(&[
        "verify",
        "phold",
        "--lps",
        "32",
        "--end",
        "5",
        "--sync",
        "optimistic",
        "--threads",
        "2",
        "--pes",
        "4",
        "--scheduling",
        "dynamic",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("verify: OK: sequential and optimistic with 2 thread(s) on 4 PEs"), "{out}");
    // Without --sync: optimistic, as its help says.
    let o = timewarp(&["verify", "phold", "--lps", "32", "--end", "5"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("sequential and optimistic"), "{}", stderr(&o));
    let help = String::from_utf8_lossy(&timewarp(&["verify", "phold", "--help"]).stdout).into_owned();
    assert!(help.contains("[default: optimistic]"), "{help}");
}

#[test]
fn quiet_takes_true_or_false() {
    let base = ["run", "phold", "--lps", "8", "--end", "2"];
    let run = |q: &str| timewarp(&[&base[..], &[q]].concat());
    let o = run("--quiet=true");
    assert!(o.status.success() && o.stdout.is_empty(), "{}", stderr(&o));
    let o = run("--quiet=false");
    assert!(o.status.success() && String::from_utf8_lossy(&o.stdout).contains("committed events"), "{}", stderr(&o));
}

#[test]
fn resume_help_lists_every_engine_option_it_takes() {
    let o = timewarp(&["resume", "--help"]);
    let help = String::from_utf8_lossy(&o.stdout);
    for flag in ["--pes", "--scheduling", "--threads", "--sync", "--quiet", "--checkpoint-dir"] {
        assert!(help.contains(flag), "resume --help lacks {flag}: {help}");
    }
}

#[test]
fn a_resume_follows_the_pes_advice_and_takes_quiet_false() {
    let dir = tmp("resume-pes");
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let model = ["run", "phold", "--lps", "64", "--end", "40"];
    // GVT after every event: a checkpoint at GVT 5 is certain.
    let parallel = ["--sync", "optimistic", "--threads", "2", "--pes", "4", "--batch", "1", "--gvt-interval", "1"];
    let o = timewarp(&[&model[..], &parallel, &["--checkpoint-dir", d, "--checkpoint-every", "5", "--quiet"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let ck = timewarp::checkpoint::list(&dir).unwrap().pop().expect("a checkpoint");
    let ck = ck.to_str().unwrap();
    // The stored --pes 4 does not suit 2 conservative threads: the advice can be followed.
    assert_clear_error(&["resume", ck, "--sync", "conservative"], "give --pes 2");
    let o = timewarp(&["resume", ck, "--sync", "conservative", "--pes", "2", "--quiet=false"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let reference = stats(&model);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains(reference["digest"].as_str().unwrap()), "{out}");
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
        &["--end", "1", "--local-bandwidth", "3", "--routing", "minimal", "--vcs", "3"],
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
        let run = ["--end", "3000", "--load", "0.5"];
        let seq = codes_stats(file, &run);
        assert!(seq["model_results"]["delivered_packets"].as_u64().unwrap() > 0, "{file}");
        for sync in ["optimistic", "conservative"] {
            let s = codes_stats(file, &[&run[..], &["--sync", sync, "--threads", "2"]].concat());
            assert_eq!(s["digest"], seq["digest"], "{file} {sync}");
        }
    }
}
