//! Checkpoint and restart from the command line: a run killed (`kill -9`)
//! or interrupted (SIGINT, SIGTERM) after a checkpoint resumes, in another
//! mode and thread count, to the digest of a run that never stopped; bad
//! checkpoint files and forbidden changes get a clear error.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_timewarp")
}

fn timewarp(args: &[&str]) -> Output {
    Command::new(bin()).args(args).output().expect("binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("timewarp-ckpt-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn digest(path: &Path) -> (String, u64) {
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    (v["digest"].as_str().unwrap().to_string(), v["committed_events"].as_u64().unwrap())
}

/// `timewarp <args> --quiet --stats-json FILE`: the digest and committed events.
fn run_stats(args: &[&str], out: &Path) -> (String, u64) {
    let o = Command::new(bin()).args(args).args(["--quiet", "--stats-json", out.to_str().unwrap()]).output().unwrap();
    assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
    digest(out)
}

/// A PHOLD run long enough to be stopped in the middle (several seconds in a debug build).
const LONG: &[&str] = &["run", "phold", "--lps", "2048", "--end", "300", "--remote", "0.3"];

fn spawn(args: &[&str]) -> Child {
    Command::new(bin()).args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap()
}

/// Waits until `dir` holds a checkpoint (or the child ends).
fn wait_for_checkpoint(dir: &Path, child: &mut Child) -> bool {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(120) {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        if !timewarp::checkpoint::list(dir).unwrap().is_empty() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// The checkpoint with the latest cut in `dir`.
fn newest(dir: &Path) -> PathBuf {
    timewarp::checkpoint::list(dir).unwrap().pop().expect("a checkpoint")
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill").args([sig, &child.id().to_string()]).status().unwrap().success();
    assert!(ok, "kill {sig}");
}

#[test]
fn a_killed_run_resumes_in_another_mode_to_the_same_digest() {
    let d = dir("kill9");
    let want = run_stats(LONG, &d.join("ref.json"));
    let ck = d.join("ck");
    let mut args = LONG.to_vec();
    args.extend(["--sync", "optimistic", "--threads", "2", "--checkpoint-every", "20", "--checkpoint-dir"]);
    args.push(ck.to_str().unwrap());
    std::fs::create_dir_all(&ck).unwrap();
    let mut child = spawn(&args);
    assert!(wait_for_checkpoint(&ck, &mut child), "no checkpoint before the run ended");
    signal(&child, "-KILL");
    let _ = child.wait();
    let file = newest(&ck);
    let f = file.to_str().unwrap();
    // Options not given stay as they were (--threads 2 here).
    for extra in [&["--sync", "sequential", "--threads", "1"][..], &["--sync", "conservative", "--threads", "3"], &[]] {
        let mut r = vec!["resume", f];
        r.extend(extra);
        // The resumed run keeps writing checkpoints like the original: into its own directory.
        let own = d.join(format!("again-{}", extra.join("")));
        r.extend(["--checkpoint-dir", own.to_str().unwrap()]);
        assert_eq!(run_stats(&r, &d.join("resumed.json")), want, "resume {extra:?}");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn an_interrupted_run_writes_a_checkpoint_says_how_to_resume_and_exits_3() {
    let d = dir("sigint");
    let want = run_stats(LONG, &d.join("ref.json"));
    for (sig, sync) in [("-INT", "optimistic"), ("-TERM", "conservative"), ("-INT", "sequential")] {
        let ck = d.join(format!("ck{sig}{sync}"));
        let stats = d.join(format!("never{sig}{sync}.json"));
        let threads = if sync == "sequential" { "1" } else { "2" };
        let mut args = LONG.to_vec();
        args.extend(["--sync", sync, "--threads", threads, "--checkpoint-dir", ck.to_str().unwrap()]);
        args.extend(["--stats-json", stats.to_str().unwrap()]);
        let mut child = spawn(&args);
        // Let it get going (a signal before the handler is installed would just end it).
        std::thread::sleep(Duration::from_millis(400));
        signal(&child, sig);
        let t = Instant::now();
        let o = loop {
            if child.try_wait().unwrap().is_some() {
                break child.wait_with_output().unwrap();
            }
            assert!(t.elapsed() < Duration::from_secs(60), "{sig} {sync}: still running");
            std::thread::sleep(Duration::from_millis(20));
        };
        let err = text(&o.stderr);
        assert_ne!(o.status.code(), Some(0), "{sig} {sync}: finished before the signal; make LONG longer");
        assert_eq!(o.status.code(), Some(3), "{sig} {sync}: {err}");
        assert!(err.contains("timewarp resume"), "{err}");
        assert!(!stats.exists(), "no statistics file for an interrupted run");
        let file = newest(&ck);
        let r = ["resume", file.to_str().unwrap(), "--sync", "optimistic", "--threads", "3"];
        assert_eq!(run_stats(&r, &d.join("resumed.json")), want, "{sig} {sync}");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn an_interrupted_run_without_a_checkpoint_directory_stops_at_once() {
    let d = dir("sigint-plain");
    let stats = d.join("never.json");
    let mut args = LONG[..LONG.len() - 4].to_vec();
    args.extend(["--end", "100000", "--stats-json", stats.to_str().unwrap()]);
    let child = spawn(&args);
    std::thread::sleep(Duration::from_millis(300));
    signal(&child, "-INT");
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("give --checkpoint-dir"), "{}", text(&o.stderr));
    assert!(!stats.exists());
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn bad_checkpoints_and_forbidden_changes_get_one_clear_line() {
    let d = dir("bad");
    let ck = d.join("ck");
    let c = ck.to_str().unwrap();
    let o = timewarp(&[
        "run",
        "phold",
        "--lps",
        "64",
        "--end",
        "20",
        "-q",
        "--checkpoint-dir",
        c,
        "--checkpoint-every",
        "5",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let good = newest(&ck);
    let bytes = std::fs::read(&good).unwrap();
    let bad = |name: &str, b: &[u8]| {
        let p = d.join(name);
        std::fs::write(&p, b).unwrap();
        p
    };
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 2] ^= 1;
    let mut newer = bytes.clone();
    newer[8] = 200;
    let cases: Vec<(PathBuf, &str)> = vec![
        (bad("half.twc", &bytes[..bytes.len() / 2]), "checksum"),
        (bad("flipped.twc", &flipped), "checksum"),
        (bad("newer.twc", &newer), "newer than the format"),
        (bad("text.twc", b"phold\n"), "not a timewarp checkpoint"),
        (d.join("missing.twc"), "cannot read it"),
    ];
    for (path, want) in cases {
        let o = timewarp(&["resume", path.to_str().unwrap()]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{path:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.starts_with("error: checkpoint") && err.contains(want), "{path:?}: {err}");
        assert!(!err.contains("panicked"));
    }
    let g = good.to_str().unwrap();
    for (args, want) in [
        (vec!["resume", g, "--lps", "65"], "come from the checkpoint"),
        (vec!["resume", g, "--seed", "2"], "come from the checkpoint"),
        (vec!["resume", g, "--end", "30"], "a resume can end there or earlier"),
        (vec!["resume", g, "--threads", "2"], "--threads"),
    ] {
        let o = timewarp(&args);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    let o = timewarp(&["run", "phold", "--checkpoint-every", "5"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("--checkpoint-dir"), "{}", text(&o.stderr));
    std::fs::remove_dir_all(&d).unwrap();
}
