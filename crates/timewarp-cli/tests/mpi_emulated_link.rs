//! A cluster's links emulated on one machine (`--emulate-latency`,
//! `--emulate-bandwidth`, issue 58): messages between processes held back
//! by their sender change when records arrive, never what is committed.
//! Every run commits the sequential digest under `mpirun -n 2` and `-n 3`,
//! with one and several PEs per process, and the reasons messages left for
//! still add up to the messages. No assertion depends on timing.
//!
//! Built only with `--features mpi`, as tests/mpi.rs.
#![cfg(feature = "mpi")]

mod common;

use common::mpi::{assert_same_as_sequential, stats};

const OPT: [&str; 4] = ["--sync", "optimistic", "--threads", "2"];

#[test]
fn phold_over_slow_links_commits_the_sequential_digest() {
    let m = ["phold", "--lps", "2048", "--end", "10", "--remote", "0.5"];
    let latency = [&OPT[..], &["--emulate-latency", "20"]].concat();
    let both = [&OPT[..], &["--pes", "4", "--emulate-latency", "5", "--emulate-bandwidth", "0.5"]].concat();
    let narrow = [&OPT[..], &["--emulate-bandwidth", "0.05"]].concat();
    assert_same_as_sequential(&m, &[&latency, &both, &narrow]);
}

/// Zero lookahead: a held record is likely a straggler when it arrives,
/// and rolls its receiver back (and, through anti-messages, others).
#[test]
fn stragglers_a_slow_link_delays_roll_back_to_the_sequential_digest() {
    let m = ["phold", "--lps", "1024", "--end", "8", "--remote", "0.5", "--lookahead", "0"];
    assert_same_as_sequential(&m, &[&[&OPT[..], &["--pes", "3", "--emulate-latency", "50"]].concat()]);
}

#[test]
fn a_network_over_slow_links_commits_the_sequential_digest() {
    let m = ["network", "--topology", "dragonfly", "--routing", "ugal", "--load", "0.7", "--end", "3000"];
    assert_same_as_sequential(&m, &[&[&OPT[..], &["--emulate-latency", "10", "--emulate-bandwidth", "2"]].concat()]);
}

#[test]
fn held_messages_are_counted_once_under_the_reason_they_left_for() {
    let total = |f: &serde_json::Value| {
        ["size", "time", "age", "idle", "window"].iter().map(|k| f[k].as_u64().unwrap()).sum::<u64>()
    };
    let m = ["phold", "--lps", "2048", "--end", "10", "--remote", "0.5", "--emulate-latency", "10"];
    for np in [2, 3] {
        let s = stats(np, &[&m[..], &OPT[..], &["--pes", "4"]].concat());
        assert_eq!(total(&s["mpi_flushes"]), s["mpi_messages"].as_u64().unwrap(), "-n {np}: {s}");
        let ranks = s["rank_stats"].as_array().unwrap();
        let events: u64 = ranks.iter().map(|r| r["mpi_events"].as_u64().unwrap()).sum();
        assert!(events > 0, "-n {np}: records crossed processes: {s}");
        assert_eq!(s["config"]["engine"]["emulate-latency"], 10.0, "the run file says the link was emulated");
    }
}
