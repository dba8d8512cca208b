//! A dragonfly wired by CODES's connection files (Theta, adaptive; the
//! 3k Dally, prog-adaptive; a Dragonfly+), and CODES's 1-D dragonfly
//! (adaptive)
//! across MPI processes:
//! `mpirun -n 2` and `-n 3` commit the sequential digest (the routing draws
//! and the wiring are the same on every process). Built only with
//! `--features mpi`, as tests/mpi.rs (helpers in tests/common/mpi.rs).
#![cfg(feature = "mpi")]

mod common;

use common::mpi::assert_same_as_sequential;

#[test]
fn theta_wired_by_its_files_matches_sequential_across_processes() {
    matches_sequential(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/codes/modelnet-test-dragonfly-theta.conf"));
}

#[test]
fn a_dragonfly_plus_matches_sequential_across_processes() {
    matches_sequential(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/codes/dfp-test.conf"));
}

/// The Dally's prog-adaptive as CODES compares (threshold 0, delta: the
/// file's and CODES's defaults; issue 61).
#[test]
fn a_dally_under_prog_adaptive_matches_sequential_across_processes() {
    matches_sequential(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/codes/dfdally_3k.conf"));
}

/// CODES's 1-D dragonfly under `routing="adaptive"` (our `ugal-codes`,
/// issue 61): not wired by files, but imported as the others are.
#[test]
fn a_1d_dragonfly_under_codes_adaptive_matches_sequential_across_processes() {
    matches_sequential(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/codes/modelnet-synthetic-dragonfly.conf"));
}

fn matches_sequential(conf: &str) {
    let model = ["network", "--codes-config", conf, "--load", "0.4", "--end", "2000"];
    assert_same_as_sequential(
        &model,
        &[&["--sync", "optimistic", "--threads", "2"], &["--sync", "conservative", "--threads", "1"]],
    );
}
