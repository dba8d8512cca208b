//! Runs of the binary under `mpirun` (the MPI tests): OpenMPI as root if
//! need be, oversubscribed, shared memory only, and a time limit that turns
//! a hang into a failure.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::Value;

/// No test run takes more than a few seconds here; a hang becomes a failure.
pub const LIMIT: Duration = Duration::from_secs(180);

/// The binary under test.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_timewarp")
}

/// `mpirun -n np timewarp`, its output piped; the caller adds the arguments.
/// Each `mpirun` gets a temporary folder of its own (`TMPDIR`), where
/// OpenMPI makes its session directory: `mpirun`s started at once by
/// parallel tests once raced to create a shared one ("mkdir
/// .../ompi.vm.0: File exists" in orte_init).
pub fn mpirun(np: usize) -> Command {
    static SESSIONS: AtomicUsize = AtomicUsize::new(0);
    let session = std::env::temp_dir().join(format!(
        "timewarp-mpirun-{}-{}",
        std::process::id(),
        SESSIONS.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&session).expect("a session folder");
    let mut c = Command::new("mpirun");
    c.args(["-n", &np.to_string(), "--oversubscribe", bin()])
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        // Shared-memory transport only: no network interfaces needed.
        .env("OMPI_MCA_btl", "self,vader")
        .env("TMPDIR", &session)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// Runs `cmd` to completion, killing it (and failing) after [`LIMIT`].
/// Its output is read while it runs (a child must never block on a full pipe).
pub fn finish(mut cmd: Command) -> Output {
    let child = cmd.spawn().expect("starts (is OpenMPI installed? see README)");
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

/// A fresh statistics path for one run (tests run in parallel threads).
pub fn fresh(what: &str) -> PathBuf {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!("timewarp-mpi-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("{what}-{}.json", RUNS.fetch_add(1, Ordering::Relaxed)))
}

/// Statistics of a quiet `timewarp run <args>` in one process (`np` 0) or
/// under `mpirun -n np`; the run must succeed and print nothing.
pub fn stats(np: usize, args: &[&str]) -> Value {
    let path = fresh(&format!("np{np}"));
    let mut c = if np == 0 {
        let mut c = Command::new(bin());
        c.stdout(Stdio::piped()).stderr(Stdio::piped());
        c
    } else {
        mpirun(np)
    };
    c.args(["run"]).args(args).args(["--quiet", "--stats-json", path.to_str().unwrap()]);
    let o = finish(c);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "-n {np} {args:?}: {err}");
    assert!(o.stdout.is_empty(), "--quiet prints nothing: {}", String::from_utf8_lossy(&o.stdout));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `model` with `--sync sequential` in one process, then under `mpirun -n`
/// 2 and 3 with each of `variants` (mode, threads, …): every run commits
/// the sequential digest, events and results, and its ranks' counts add up.
pub fn assert_same_as_sequential(model: &[&str], variants: &[&[&str]]) {
    let seq = stats(0, &[model, &["--sync", "sequential"]].concat());
    for np in [2, 3] {
        for v in variants {
            let args = [model, v].concat();
            let par = stats(np, &args);
            let what = format!("mpirun -n {np} {args:?}");
            assert_eq!(par["digest"], seq["digest"], "{what}: digest differs from sequential");
            assert_eq!(par["committed_events"], seq["committed_events"], "{what}");
            assert_eq!(par["model_results"], seq["model_results"], "{what}: model results differ");
            assert_eq!(par["ranks"], np, "{what}");
            let ranks = par["rank_stats"].as_array().unwrap();
            assert_eq!(ranks.len(), np, "{what}: one entry per rank");
            let per_rank: u64 = ranks.iter().map(|r| r["committed_events"].as_u64().unwrap()).sum();
            assert_eq!(per_rank, seq["committed_events"].as_u64().unwrap(), "{what}: ranks' counts add up");
        }
    }
}
