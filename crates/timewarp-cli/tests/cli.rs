//! End-to-end tests of the `timewarp` binary: real runs and bad input.

mod common;
use common::{assert_clear_error, stats, stderr, timewarp, tmp};

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
