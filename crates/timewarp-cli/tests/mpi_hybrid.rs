//! Hybrid runs (issue 39): several PEs per process sharing one courier,
//! across `mpirun -n 2` and `-n 3`, commit what one sequential process
//! commits, whatever the traffic between processes; and the statistics
//! count that traffic in messages, records and bytes, consistently.
//!
//! The courier's GVT-round path changed here: a PE entering a round hands
//! its records over without sending, and they leave in one message per
//! process when the last PE has entered; polls during a round follow the
//! cadence until the count of white records is known. These tests run that
//! path with 3 and 4 PEs per process on 2 workers (the pattern of
//! tests/mpi.rs, in a file of its own). No assertion depends on timing.
//!
//! Built only with `--features mpi`, as tests/mpi.rs.
#![cfg(feature = "mpi")]

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::Value;

/// No run here takes more than a few seconds; a hang becomes a failure.
const LIMIT: Duration = Duration::from_secs(180);

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_timewarp")
}

/// A fresh statistics path for one run (tests run in parallel threads).
fn tmp(what: &str) -> PathBuf {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!("timewarp-mpi-hybrid-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("{what}-{}.json", RUNS.fetch_add(1, Ordering::Relaxed)))
}

/// Runs `cmd` to completion, killing it (and failing) after [`LIMIT`].
fn finish(mut cmd: Command) -> Output {
    let child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("starts (is OpenMPI installed?)");
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(LIMIT) {
        Ok(out) => out.expect("output"),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("{cmd:?} still running after {LIMIT:?}: a hang");
        }
    }
}

/// Statistics of `timewarp run <args>` in one process (`np` 0) or under `mpirun -n np`.
fn stats(np: usize, args: &[&str]) -> Value {
    let path = tmp("stats");
    let mut c = if np == 0 {
        Command::new(bin())
    } else {
        let mut c = Command::new("mpirun");
        c.args(["-n", &np.to_string(), "--oversubscribe", bin()])
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .env("OMPI_MCA_btl", "self,vader");
        c
    };
    c.args(["run"]).args(args).args(["--quiet", "--stats-json", path.to_str().unwrap()]);
    let o = finish(c);
    assert!(o.status.success(), "-n {np} {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Under `mpirun -n 2` and `-n 3`, optimistic with `extra`, `model`
/// commits the sequential digest, events and results.
fn assert_same_as_sequential(model: &[&str], extra: &[&str]) {
    let seq = stats(0, &[model, &["--sync", "sequential"]].concat());
    for np in [2, 3] {
        let args = [model, &["--sync", "optimistic"], extra].concat();
        let par = stats(np, &args);
        let what = format!("mpirun -n {np} {args:?}");
        assert_eq!(par["digest"], seq["digest"], "{what}: digest differs from sequential");
        assert_eq!(par["committed_events"], seq["committed_events"], "{what}");
        assert_eq!(par["model_results"], seq["model_results"], "{what}: model results differ");
        assert_eq!(par["ranks"], np, "{what}");
    }
}

/// Four PEs per process on two workers: each GVT round, four PEs hand
/// their records over to one courier before it sends.
#[test]
fn phold_with_several_pes_per_process_matches_sequential() {
    for remote in ["0.1", "1.0"] {
        let m = ["phold", "--lps", "2048", "--end", "15", "--remote", remote];
        assert_same_as_sequential(&m, &["--threads", "2", "--pes", "4"]);
    }
    // Zero lookahead: remote events may land at the time of their sender,
    // so delayed messages are stragglers and rounds roll back across processes.
    let m = ["phold", "--lps", "1024", "--end", "10", "--remote", "0.5", "--lookahead", "0"];
    assert_same_as_sequential(&m, &["--threads", "2", "--pes", "3"]);
}

/// A small dragonfly with UGAL routing (the Theta configuration's kind of
/// traffic) with three PEs per process.
#[test]
fn a_network_with_several_pes_per_process_matches_sequential() {
    let m = ["network", "--topology", "dragonfly", "--routing", "ugal", "--load", "0.7", "--end", "3000"];
    assert_same_as_sequential(&m, &["--threads", "2", "--pes", "3"]);
}

/// Bytes between processes are counted, per process and in all, in both
/// modes: at least the 8-byte timestamp of every record they carry.
#[test]
fn the_traffic_between_processes_is_counted_in_bytes() {
    for np in [2, 3] {
        for sync in ["optimistic", "conservative"] {
            let s = stats(np, &["phold", "--lps", "2048", "--end", "10", "--sync", sync, "--threads", "2"]);
            let ranks = s["rank_stats"].as_array().unwrap();
            let sum = |k: &str| ranks.iter().map(|r| r[k].as_u64().unwrap()).sum::<u64>();
            let bytes = s["mpi_bytes"].as_u64().unwrap();
            assert_eq!(bytes, sum("mpi_bytes"), "-n {np} {sync}: the ranks' bytes add up");
            assert!(bytes >= 8 * sum("mpi_events") && sum("mpi_events") > 0, "-n {np} {sync}: {s}");
            assert!(ranks.iter().all(|r| r["mpi_bytes"].as_u64().unwrap() > 0), "-n {np} {sync}: every rank sent");
        }
    }
}
