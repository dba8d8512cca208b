//! The tandem binary gets the whole front end from `timewarp_cli::App`:
//! every engine option, statistics and run files, verify, sweep and
//! resume, and its own summary set beside M/M/1 theory.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn tandem(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tandem")).args(args).current_dir(dir).output().expect("binary runs")
}

fn ok(args: &[&str], dir: &Path) -> String {
    let o = tandem(args, dir);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{args:?} failed: {err}");
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tw-tandem-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn every_mode_commits_one_digest_and_the_stats_file_reproduces_the_run() {
    let d = scratch("modes");
    let base = ["run", "--end", "3000", "--seed", "5", "--lambda", "0.6", "--quiet"];
    let runs = [
        vec!["--stats-json", "seq.json"],
        vec!["--sync", "optimistic", "--threads", "2", "--stats-json", "opt.json"],
        vec!["--sync", "conservative", "--threads", "2", "--stats-json", "con.json"],
        vec!["--sync", "check", "--stats-json", "chk.json"],
    ];
    for extra in &runs {
        ok(&[&base[..], &extra[..]].concat(), &d);
    }
    let seq = json(&d.join("seq.json"));
    let digest = seq["digest"].as_str().unwrap();
    for f in ["opt.json", "con.json", "chk.json"] {
        assert_eq!(json(&d.join(f))["digest"].as_str(), Some(digest), "{f}");
    }
    // The model's own options are in the statistics file and rerun it exactly.
    assert_eq!(seq["config"]["model"]["name"], "tandem");
    assert_eq!(seq["config"]["model"]["lambda"].as_f64(), Some(0.6));
    ok(&["run", "--config", "opt.json", "--quiet", "--stats-json", "again.json"], &d);
    assert_eq!(json(&d.join("again.json"))["digest"].as_str(), Some(digest));
    // Results carry the model's figures: customers are conserved.
    let r = &seq["model_results"]["stations"];
    let arrivals = r[0]["arrivals"].as_u64().unwrap();
    let last = &r[3];
    let inside: u64 = (0..4).map(|i| r[i]["in_system"].as_u64().unwrap() + r[i]["in_transit"].as_u64().unwrap()).sum();
    assert_eq!(arrivals, last["departures"].as_u64().unwrap() + inside);
}

#[test]
fn the_summary_sets_each_station_beside_theory() {
    let d = scratch("summary");
    let out = ok(&["run", "--end", "200000", "--lambda", "0.5"], &d);
    assert!(out.contains("committed events"), "engine summary: {out}");
    assert!(out.contains("rho/(1-rho) = 1.0000"), "rho 0.5 gives L = 1: {out}");
    let rows: Vec<Vec<f64>> = out
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("station"))
        .skip(1)
        .map(|l| l.split_whitespace().map(|x| x.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 4, "{out}");
    for row in rows {
        // L sim within 15% of 1 (200,000 time units at rho 0.5: a few percent),
        // utilisation near rho, throughput near lambda.
        assert!((row[1] - 1.0).abs() < 0.15, "L {row:?}");
        assert!((row[3] - 0.5).abs() < 0.02, "utilisation {row:?}");
        assert!((row[4] - 0.5).abs() < 0.02, "throughput {row:?}");
    }
    // --quiet: nothing on stdout.
    assert_eq!(ok(&["run", "--end", "100", "--quiet"], &d), "");
}

#[test]
fn verify_sweep_and_resume_work_for_the_model() {
    let d = scratch("verbs");
    let out = ok(&["verify", "--sync", "optimistic", "--threads", "2", "--end", "2000"], &d);
    assert!(out.contains("verify: OK"), "{out}");
    ok(&["sweep", "--set", "lambda=0.5,0.8", "--end", "1000", "-o", "sweep.csv"], &d);
    let csv = std::fs::read_to_string(d.join("sweep.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3, "{csv}");
    assert!(csv.starts_with("lambda,"), "{csv}");
    ok(
        &[
            "run",
            "--end",
            "4000",
            "--checkpoint-dir",
            "ck",
            "--checkpoint-every",
            "1500",
            "--quiet",
            "--stats-json",
            "full.json",
        ],
        &d,
    );
    let first = std::fs::read_dir(d.join("ck")).unwrap().next().unwrap().unwrap().path();
    ok(
        &[
            "resume",
            first.to_str().unwrap(),
            "--sync",
            "optimistic",
            "--threads",
            "2",
            "--quiet",
            "--stats-json",
            "res.json",
        ],
        &d,
    );
    assert_eq!(json(&d.join("res.json"))["digest"], json(&d.join("full.json"))["digest"]);
    // Plots and the HTML report read the model's statistics file like any other.
    ok(&["plot", "full.json", "-o", "run.svg"], &d);
    assert!(std::fs::read_to_string(d.join("run.svg")).unwrap().contains("<svg"));
    ok(&["report", "full.json", "-o", "run.html"], &d);
    let html = std::fs::read_to_string(d.join("run.html")).unwrap();
    assert!(html.contains("tandem") && html.contains("<svg"), "the report names the model and inlines its plots");
    let list = ok(&["list"], &d);
    assert!(list.starts_with("tandem "), "{list}");
}

#[test]
fn bad_options_are_clear_errors() {
    let d = scratch("bad");
    let o = tandem(&["run", "--stations", "0"], &d);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.trim(), "error: --stations must be at least 1");
    let o = tandem(&["run", "--lambda", "fast"], &d);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--lambda"));
    let o = tandem(&["run", "--no-such-option"], &d);
    assert_eq!(o.status.code(), Some(2));
    let o = tandem(&["run", "phold"], &d);
    assert_eq!(o.status.code(), Some(2), "tandem has no model phold");
}

#[test]
fn help_and_printed_configuration_name_this_program_and_its_model() {
    let dir = scratch("names");
    let commands: &[&[&str]] = &[
        &["--help"],
        &["run", "--help"],
        &["run", "tandem", "--help"],
        &["verify", "--help"],
        &["verify", "tandem", "--help"],
        &["resume", "--help"],
        &["sweep", "--help"],
        &["partition", "--help"],
        &["plot", "--help"],
        &["report", "--help"],
        &["run", "--print-config"],
    ];
    for args in commands {
        let out = ok(args, &dir);
        for leftover in ["timewarp", "phold", "docs/running.md"] {
            assert!(!out.contains(leftover), "`tandem {}` says {leftover}:\n{out}", args.join(" "));
        }
    }
    assert!(ok(&["run", "--help"], &dir).contains("tandem run --config FILE"));
    assert!(ok(&["run", "--print-config"], &dir).contains("run it with: tandem run --config FILE"));
    // Its messages too.
    let o = tandem(&["run", "--config"], &dir);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("tandem run --config run.toml") && !err.contains("timewarp"), "{err}");
}

#[test]
fn its_report_is_titled_with_this_program() {
    let dir = scratch("report");
    ok(&["run", "--end", "500", "--quiet", "--stats-json", "s.json"], &dir);
    ok(&["report", "s.json", "-o", "r.html"], &dir);
    let html = std::fs::read_to_string(dir.join("r.html")).unwrap();
    let title = html.split("<title>").nth(1).and_then(|t| t.split("</title>").next()).unwrap_or_default();
    assert!(title.starts_with("tandem run:"), "{title}");
}
