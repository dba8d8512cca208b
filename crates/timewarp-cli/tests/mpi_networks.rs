//! The Slim Fly, a two-rail fat-tree, a CODES configuration read from YAML,
//! and a network study (two jobs with a time series) across MPI processes:
//! `mpirun -n 2` and `-n 3` commit what one sequential process commits (the
//! pattern of tests/mpi.rs, kept in a file of its own).
//!
//! Built only with `--features mpi`, as tests/mpi.rs.
#![cfg(feature = "mpi")]

mod common;

use common::mpi::assert_same_as_sequential;

/// Optimistic and conservative on 2 threads.
const BOTH: &[&[&str]] = &[&["--sync", "optimistic", "--threads", "2"], &["--sync", "conservative", "--threads", "2"]];
/// Optimistic on 2 threads.
const OPTIMISTIC: &[&[&str]] = &[&["--sync", "optimistic", "--threads", "2"]];

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
        assert_same_as_sequential(&m, BOTH);
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
        assert_same_as_sequential(&m, BOTH);
    }
}

#[test]
fn a_yaml_codes_configuration_matches_sequential_across_processes() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let yaml = root.join("tests/data/codes/sfly_3k.yaml");
    let m = ["network", "--end", "3000", "--load", "0.2", "--codes-config", yaml.to_str().unwrap()];
    assert_same_as_sequential(&m, OPTIMISTIC);
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
    assert_same_as_sequential(&m, BOTH);
}
