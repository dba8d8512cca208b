//! A dragonfly wired by CODES's connection files (Theta; a Dragonfly+)
//! across MPI processes:
//! `mpirun -n 2` and `-n 3` commit the sequential digest (the routing draws
//! and the wiring are the same on every process). Built only with
//! `--features mpi`, as tests/mpi.rs (whose helpers these follow).
#![cfg(feature = "mpi")]

use std::process::{Command, Stdio};

use serde_json::Value;

fn stats_of(mut c: Command, path: &std::path::Path, what: &str) -> Value {
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    let o = c.output().expect("runs (is OpenMPI installed? see README)");
    assert!(o.status.success(), "{what}: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn theta_wired_by_its_files_matches_sequential_across_processes() {
    matches_sequential(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/codes/modelnet-test-dragonfly-theta.conf"));
}

#[test]
fn a_dragonfly_plus_matches_sequential_across_processes() {
    matches_sequential(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/codes/dfp-test.conf"));
}

fn matches_sequential(conf: &str) {
    let base = std::path::Path::new(conf).file_stem().unwrap().to_string_lossy().into_owned();
    let dir = std::env::temp_dir().join(format!("timewarp-mpi-conn-{}-{base}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let model = ["run", "network", "--codes-config", conf, "--load", "0.4", "--end", "2000", "--quiet"];
    let seq_path = dir.join("seq.json");
    let mut c = Command::new(env!("CARGO_BIN_EXE_timewarp"));
    c.args(model).args(["--sync", "sequential", "--stats-json", seq_path.to_str().unwrap()]);
    let seq = stats_of(c, &seq_path, "sequential");
    for np in ["2", "3"] {
        for (sync, threads) in [("optimistic", "2"), ("conservative", "1")] {
            let path = dir.join(format!("mpi-{np}-{sync}.json"));
            let mut c = Command::new("mpirun");
            c.args(["-n", np, "--oversubscribe", env!("CARGO_BIN_EXE_timewarp")])
                .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
                .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
                .env("OMPI_MCA_btl", "self,vader")
                .args(model)
                .args(["--sync", sync, "--threads", threads, "--stats-json", path.to_str().unwrap()]);
            let what = format!("mpirun -n {np} --sync {sync} --threads {threads}");
            let par = stats_of(c, &path, &what);
            assert_eq!(par["digest"], seq["digest"], "{what}");
            assert_eq!(par["model_results"], seq["model_results"], "{what}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
