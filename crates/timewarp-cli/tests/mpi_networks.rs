//! The Slim Fly, a two-rail fat-tree, a CODES configuration read from YAML,
//! and a network study (two jobs with a time series) across MPI processes:
//! `mpirun -n 2` and `-n 3` commit what one sequential process commits (the
//! pattern of tests/mpi.rs, kept in a file of its own).
//!
//! Built only with `--features mpi`, as tests/mpi.rs.
#![cfg(feature = "mpi")]

use std::process::{Command, Stdio};

use serde_json::Value;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_timewarp")
}

/// A fresh statistics path for one run.
fn tmp(what: &str) -> std::path::PathBuf {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!("timewarp-mpi-networks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("{what}-{}.json", RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)))
}

/// `timewarp run <args>` in one process (`np` 0) or under `mpirun -n np`.
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
    let o = c.stdout(Stdio::piped()).stderr(Stdio::piped()).output().expect("mpirun starts (is OpenMPI installed?)");
    assert!(o.status.success(), "-n {np} {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn assert_same_as_sequential(model: &[&str], syncs: &[&str]) {
    let seq = stats(0, &[model, &["--sync", "sequential"]].concat());
    for np in [2, 3] {
        for sync in syncs {
            let par = stats(np, &[model, &["--sync", sync, "--threads", "2"]].concat());
            assert_eq!(par["digest"], seq["digest"], "mpirun -n {np} {model:?} {sync}");
            assert_eq!(par["model_results"], seq["model_results"], "mpirun -n {np} {model:?} {sync}");
            assert_eq!(par["ranks"], np);
        }
    }
}

#[test]
fn a_slim_fly_matches_sequential_across_processes() {
    for routing in ["minimal", "ugal"] {
        let m = [
            "network",
            "--topology",
            "slimfly",
            "--slimfly-q",
            "5",
            "--routing",
            routing,
            "--load",
            "0.5",
            "--end",
            "3000",
        ];
        assert_same_as_sequential(&m, &["optimistic", "conservative"]);
    }
}

#[test]
fn a_two_rail_fat_tree_matches_sequential_across_processes() {
    for select in ["adaptive", "random"] {
        let m = [
            "network",
            "--topology",
            "fattree",
            "--radix",
            "8",
            "--levels",
            "2",
            "--nodes",
            "32",
            "--top-uplinks",
            "2",
            "--rails",
            "2",
            "--rail-select",
            select,
            "--load",
            "0.6",
            "--end",
            "3000",
        ];
        assert_same_as_sequential(&m, &["optimistic", "conservative"]);
    }
}

#[test]
fn a_yaml_codes_configuration_matches_sequential_across_processes() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let yaml = root.join("tests/data/codes/sfly_3k.yaml");
    let m = ["network", "--end", "3000", "--load", "0.2", "--codes-config", yaml.to_str().unwrap()];
    assert_same_as_sequential(&m, &["optimistic"]);
}

#[test]
fn two_jobs_with_a_time_series_match_sequential_across_processes() {
    // The per-job figures and the samples are model results: every process
    // count commits the same ones.
    let m = [
        "network",
        "--topology",
        "dragonfly",
        "--routing",
        "ugal",
        "--end",
        "20000",
        "--job",
        "alltoall:ranks=12,bytes=1024@random-routers",
        "--job",
        "synthetic:load=0.4@random-nodes",
        "--sample-every",
        "2000",
        "--kps-per-pe",
        "1",
    ];
    assert_same_as_sequential(&m, &["optimistic", "conservative"]);
}
