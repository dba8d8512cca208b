//! `--sync auto` (issue 38, item 3): the mode it picks from the model's
//! declared lookahead and --threads, the line and the statistics keys that
//! say which and why, and that every choice commits the digest of `--sync
//! sequential` (with verify, checkpoints and resume too). The rule reads no
//! clock, so every choice asserted here is deterministic.

mod common;
use common::{stats, stderr, timewarp, tmp};

/// Small runs of every shipped model, and the mode auto picks for each in
/// parallel: conservative where a positive lookahead is declared.
const WORKLOADS: &[(&[&str], &str)] = &[
    (&["phold", "--lps", "64", "--end", "20", "--remote", "0.5", "--lookahead", "0"], "optimistic"),
    (&["phold", "--lps", "64", "--end", "20", "--remote", "0.5", "--lookahead", "0.5"], "conservative"),
    (&["pcs", "--cells-x", "4", "--cells-y", "4", "--end", "20"], "optimistic"),
    (&["tlm", "--size", "16x16", "--sources", "2", "--end", "20"], "conservative"),
    (&["network", "--topology", "hypercube", "--nodes", "16", "--end", "3000"], "conservative"),
    // Links without latency: no lookahead between nodes.
    (&["network", "--topology", "hypercube", "--nodes", "16", "--end", "3000", "--link-latency", "0"], "optimistic"),
];

fn run(model: &[&str], extra: &[&str]) -> serde_json::Value {
    let mut a = vec!["run"];
    a.extend(model);
    a.extend(extra);
    stats(&a)
}

#[test]
fn every_choice_commits_the_sequential_digest() {
    for &(model, parallel) in WORKLOADS {
        let want = run(model, &["--sync", "sequential"]);
        assert!(want["committed_events"].as_u64().unwrap() > 0, "{model:?}");
        assert!(want.get("sync_chosen").is_none(), "only auto writes sync_chosen");
        for (threads, expected) in [
            (&["--threads", "1"][..], "sequential"),
            (&["--threads", "1", "--pes", "1"], "sequential"),
            (&["--threads", "2"], parallel),
            (&["--threads", "2", "--pes", "2"], parallel),
            // Only optimistic runs more PEs than threads: an explicit --pes is honoured.
            (&["--threads", "1", "--pes", "4"], "optimistic"),
            (&["--threads", "2", "--pes", "4"], "optimistic"),
        ] {
            let mut extra = vec!["--sync", "auto"];
            extra.extend(threads);
            let got = run(model, &extra);
            let what = format!("{model:?} {threads:?}");
            assert_eq!(got["sync_chosen"], expected, "{what}");
            assert_eq!(got["sync"], expected, "{what}: the run is the chosen mode");
            assert!(!got["sync_reason"].as_str().unwrap().is_empty(), "{what}");
            assert_eq!(got["digest"], want["digest"], "{what}");
            assert_eq!(got["committed_events"], want["committed_events"], "{what}");
        }
    }
}

#[test]
fn auto_says_which_mode_and_why_in_one_line_unless_quiet() {
    let args = ["run", "phold", "--lps", "64", "--end", "10", "--sync", "auto"];
    let o = timewarp(&[&args[..], &["--threads", "2"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("sync auto:")).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].starts_with("sync auto: conservative (") && lines[0].contains("lookahead 1"), "{err}");
    let o = timewarp(&[&args[..], &["--threads", "1", "--lookahead", "0"]].concat());
    assert!(stderr(&o).contains("sync auto: sequential (one worker thread"), "{}", stderr(&o));
    let o = timewarp(&[&args[..], &["--threads", "2", "--quiet"]].concat());
    assert!(o.status.success() && o.stderr.is_empty() && o.stdout.is_empty(), "{}", stderr(&o));
    // The help lists it.
    let help = String::from_utf8_lossy(&timewarp(&["run", "phold", "--help"]).stdout).into_owned();
    assert!(help.contains("auto"), "{help}");
}

#[test]
fn verify_with_auto_checks_the_parallel_mode_auto_picks() {
    for (lookahead, mode) in [("0", "optimistic"), ("0.5", "conservative")] {
        let json = tmp(&format!("verify-auto-{lookahead}.json"));
        // Even on one thread verify compares with a parallel mode, never sequential with itself.
        for threads in ["1", "2"] {
            let o = timewarp(&[
                "verify",
                "phold",
                "--lps",
                "64",
                "--end",
                "10",
                "--remote",
                "0.5",
                "--lookahead",
                lookahead,
                "--sync",
                "auto",
                "--threads",
                threads,
                "--stats-json",
                json.to_str().unwrap(),
            ]);
            let out = String::from_utf8_lossy(&o.stdout).into_owned();
            assert!(o.status.success(), "{}", stderr(&o));
            assert!(out.contains(&format!("verify: OK: sequential and {mode} with {threads} thread")), "{out}");
            assert!(stderr(&o).contains(&format!("sync auto: {mode} (")), "{}", stderr(&o));
            let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
            assert_eq!((v["identical"].as_bool(), v["sync_chosen"].as_str()), (Some(true), Some(mode)));
            assert_eq!(v["parallel"]["sync"], mode);
        }
    }
}

/// A checkpoint of an auto run stores `--sync auto`; its resume picks again
/// (here with other threads, so another mode) and commits the same digest.
#[test]
fn auto_runs_checkpoint_and_resume_to_the_same_digest() {
    let model = ["phold", "--lps", "64", "--end", "40", "--remote", "0.5"];
    let want = run(&model, &["--sync", "sequential"]);
    let ck = tmp("auto-ck");
    let _ = std::fs::remove_dir_all(&ck);
    let c = ck.to_str().unwrap();
    let first = run(&model, &["--sync", "auto", "--threads", "2", "--checkpoint-every", "10", "--checkpoint-dir", c]);
    assert_eq!((&first["sync_chosen"], &first["digest"]), (&serde_json::json!("conservative"), &want["digest"]));
    let files = timewarp::checkpoint::list(&ck).unwrap();
    let file = files.first().expect("a checkpoint");
    for (extra, mode) in [(&[][..], "conservative"), (&["--threads", "1"], "sequential")] {
        let out = tmp(&format!("auto-resumed-{}.json", extra.len()));
        let own = tmp(&format!("auto-ck-again-{}", extra.len()));
        let mut r = vec!["resume", file.to_str().unwrap()];
        r.extend(extra);
        r.extend(["--checkpoint-dir", own.to_str().unwrap(), "--stats-json", out.to_str().unwrap(), "--quiet"]);
        let o = timewarp(&r);
        assert!(o.status.success(), "{r:?}: {}", stderr(&o));
        let got: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        assert_eq!((&got["sync_chosen"], &got["digest"]), (&serde_json::json!(mode), &want["digest"]), "{r:?}");
    }
}

#[test]
fn the_default_mode_stays_sequential() {
    let a = run(&["phold", "--lps", "64", "--end", "10"], &[]);
    assert_eq!(a["sync"], "sequential");
    assert!(a.get("sync_chosen").is_none());
}
