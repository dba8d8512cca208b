//! `verify` and replays run exactly the configuration `run` ran: every
//! shipped CODES configuration (both forms, with and without connection
//! files) and every workload kind gives `verify` the events `run` commits;
//! a statistics file replayed commits the same digest and rewrites none of
//! the first run's outputs; an error is the same error in every kernel.

mod common;
use common::{stderr, timewarp, tmp};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn codes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/codes")
}

/// Every CODES configuration shipped with the tests (`bad/` holds the
/// broken ones), in both forms.
fn shipped_configs() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() && p.file_name().is_some_and(|n| n != "bad") {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "conf" || x == "yaml") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&codes_dir(), &mut out);
    out.sort();
    out
}

/// A run's statistics (stdout), or its error.
fn json(args: &[&str]) -> Result<Value, String> {
    let o = timewarp(&[args, &["--quiet", "--stats-json", "-"]].concat());
    let err = stderr(&o);
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    if !o.status.success() {
        return Err(err);
    }
    Ok(serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}")))
}

/// `verify` of `model_args` commits what `run` of them commits: the same
/// events and digest (`verify`'s sequential half is `run`'s run), or fails
/// with `run`'s error; true if it ran.
fn verify_matches_run(model_args: &[&str]) -> bool {
    let verify = json(&[&["verify"], model_args, &["--threads", "2"]].concat());
    let run = match json(&[&["run"], model_args].concat()) {
        Ok(run) => run,
        Err(e) => {
            assert_eq!(verify.err().as_ref(), Some(&e), "verify {model_args:?} should fail as run does");
            return false;
        }
    };
    let v = verify.unwrap_or_else(|e| panic!("verify {model_args:?}: {e}"));
    assert_eq!(v["identical"], true, "{model_args:?}: {v}");
    for half in ["sequential", "parallel"] {
        assert_eq!(v[half]["committed_events"], run["committed_events"], "{half} of verify {model_args:?}");
        assert_eq!(v[half]["digest"], run["digest"], "{half} of verify {model_args:?}");
    }
    true
}

#[test]
fn verify_checks_every_codes_configuration_run_would_run() {
    let configs = shipped_configs();
    assert!(configs.len() >= 25, "{configs:?}");
    let mut ran = 0;
    for c in &configs {
        let c = c.to_str().unwrap();
        ran += verify_matches_run(&["network", "--codes-config", c, "--end", "600", "--load", "0.05"]) as usize;
    }
    // (The copies under connections/ have no connection files beside them.)
    assert!(ran >= 20, "{ran} of {} ran", configs.len());
    // With the command line's options beside the file's (the routing that
    // once made verify say "a torus routes ...").
    let sfly = codes_dir().join("sfly_3k.conf");
    assert!(verify_matches_run(&[
        "network",
        "--codes-config",
        sfly.to_str().unwrap(),
        "--routing",
        "ugal",
        "--end",
        "400"
    ]));
}

#[test]
fn verify_checks_every_workload_kind_run_would_run() {
    let dumpi = Path::new(env!("CARGO_MANIFEST_DIR")).join("../timewarp-models/tests/data/dumpi/pingpong");
    let trace = tmp("verify-trace");
    std::fs::create_dir_all(&trace).unwrap();
    std::fs::write(trace.join("rank.0.txt"), "send 1 4096 0\nrecv 1 0\n").unwrap();
    std::fs::write(trace.join("rank.1.txt"), "recv 0 0\nsend 0 4096 0\n").unwrap();
    let net = ["network", "--dims", "4,4"];
    let kinds: Vec<Vec<&str>> = vec![
        vec!["--load", "0.3", "--end", "3000"],
        vec!["--workload", "trace", "--trace-dir", trace.to_str().unwrap(), "--end", "1e12"],
        vec!["--workload", "dumpi", "--trace-dir", dumpi.to_str().unwrap(), "--end", "1e15"],
        vec!["--workload", "allreduce", "--end", "1e12"],
        vec!["--workload", "halo3d", "--end", "1e12"],
        vec!["--workload", "alltoall", "--ranks", "8", "--end", "1e12"],
        vec!["--job", "halo3d:ranks=8@random-nodes", "--job", "synthetic:load=0.2@random-nodes", "--end", "40000"],
        vec!["--load", "0.4", "--end", "2000", "--sample-every", "100"],
    ];
    for k in kinds {
        assert!(verify_matches_run(&[&net[..], &k].concat()), "{k:?}");
    }
    for model in [&["phold", "--end", "5"][..], &["pcs", "--end", "50"], &["tlm", "--end", "20"]] {
        assert!(verify_matches_run(model), "{model:?}");
    }
}

#[test]
fn a_run_file_or_statistics_file_is_a_run_verify_checks() {
    let dir = tmp("verify-run-file");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("run.toml");
    std::fs::write(&file, "[model]\nname = \"network\"\ndims = [4, 4]\nload = 0.3\n\n[engine]\nend = 2000\n").unwrap();
    let f = file.to_str().unwrap();
    let run = json(&["run", "--config", f]).unwrap();
    let v = json(&["verify", "--config", f, "--threads", "2"]).unwrap();
    assert_eq!(v["sequential"]["digest"], run["digest"]);
    let o = timewarp(&["verify", "--config", f, "--print-config"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--print-config prints a run's configuration"), "{}", stderr(&o));
}

/// Replaying a CODES import's statistics reads every derived value back to
/// the bit (`local-latency` 1907.3486328124998 once came back as
/// 1907.3486328125) and commits the same digest.
#[test]
fn a_replayed_codes_import_commits_the_same_digest() {
    let dir = tmp("replay-codes");
    std::fs::create_dir_all(&dir).unwrap();
    let (a, b) = (dir.join("a.json"), dir.join("b.json"));
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    for c in ["dfdally_72.conf", "modelnet-test-dragonfly-theta.conf", "dfp-test.conf"] {
        let c = codes_dir().join(c);
        let first = timewarp(&[
            "run",
            "network",
            "--codes-config",
            c.to_str().unwrap(),
            "--end",
            "3000",
            "--load",
            "0.2",
            "-q",
            "--stats-json",
            a,
        ]);
        assert!(first.status.success(), "{}", stderr(&first));
        let again = timewarp(&["run", "--config", a, "-q", "--stats-json", b]);
        assert!(again.status.success(), "{}", stderr(&again));
        let read = |p: &str| -> Value { serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap() };
        let (x, y) = (read(a), read(b));
        assert_eq!(x["config"]["model"], y["config"]["model"], "{c:?}: every value read back");
        assert_eq!(x["digest"], y["digest"], "{c:?}");
    }
}

/// Output destinations are not configuration: a replay writes none of the
/// first run's files (`--samples-csv` once sat in `config.model`).
#[test]
fn a_replay_rewrites_none_of_the_first_run_s_outputs() {
    let dir = tmp("replay-outputs");
    std::fs::create_dir_all(&dir).unwrap();
    let p = |n: &str| dir.join(n).to_str().unwrap().to_string();
    let (stats, samples, links) = (p("a.json"), p("s.csv"), p("links.csv"));
    let o = timewarp(&[
        "run",
        "network",
        "--dims",
        "4,4",
        "--end",
        "1000",
        "--sample-every",
        "100",
        "--samples-csv",
        &samples,
        "--link-stats",
        &links,
        "-q",
        "--stats-json",
        &stats,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text: String = std::fs::read_to_string(&stats).unwrap();
    let config: Value = serde_json::from_str::<Value>(&text).unwrap()["config"].clone();
    for out in ["samples-csv", "link-stats", "stats-json"] {
        assert!(config["model"].get(out).is_none() && config["engine"].get(out).is_none(), "{out} in {config}");
    }
    for f in [&samples, &links] {
        std::fs::write(f, "first run's\n").unwrap();
    }
    let again = timewarp(&["run", "--config", &stats, "-q"]);
    assert!(again.status.success(), "{}", stderr(&again));
    for f in [&samples, &links] {
        assert_eq!(std::fs::read_to_string(f).unwrap(), "first run's\n", "{f}");
    }
}

/// A model's error is the run's in every kernel, the same line as
/// sequential's (an optimistic PE stops speculating past an event that
/// failed, so the error does not wait on speculation beyond it).
#[test]
fn a_model_error_is_the_same_in_every_kernel() {
    let base = [
        "run",
        "network",
        "--dims",
        "2,2",
        "--workload",
        "halo3d",
        "--iterations",
        "20",
        "--sample-every",
        "0.5",
        "--end",
        "1e15",
        "-q",
    ];
    let error = |extra: &[&str]| {
        let o = timewarp(&[&base[..], extra].concat());
        assert_eq!(o.status.code(), Some(1), "{extra:?}: {}", stderr(&o));
        stderr(&o)
    };
    let seq = error(&[]);
    assert!(seq.contains("--sample-every 0.5 gives more than 100000 intervals"), "{seq}");
    for extra in [
        &["--sync", "optimistic", "--threads", "2"][..],
        &["--sync", "optimistic", "--threads", "1", "--pes", "4"],
        &["--sync", "conservative", "--threads", "2"],
    ] {
        assert_eq!(error(extra), seq, "{extra:?}");
    }
}
