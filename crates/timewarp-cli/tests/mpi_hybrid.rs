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

mod common;

use common::mpi::{assert_same_as_sequential, stats};

/// Four PEs per process on two workers: each GVT round, four PEs hand
/// their records over to one courier before it sends.
#[test]
fn phold_with_several_pes_per_process_matches_sequential() {
    for remote in ["0.1", "1.0"] {
        let m = ["phold", "--lps", "2048", "--end", "15", "--remote", remote];
        assert_same_as_sequential(&m, &[&["--sync", "optimistic", "--threads", "2", "--pes", "4"]]);
    }
    // Zero lookahead: remote events may land at the time of their sender,
    // so delayed messages are stragglers and rounds roll back across processes.
    let m = ["phold", "--lps", "1024", "--end", "10", "--remote", "0.5", "--lookahead", "0"];
    assert_same_as_sequential(&m, &[&["--sync", "optimistic", "--threads", "2", "--pes", "3"]]);
}

/// A small dragonfly with UGAL routing (the Theta configuration's kind of
/// traffic) with three PEs per process.
#[test]
fn a_network_with_several_pes_per_process_matches_sequential() {
    let m = ["network", "--topology", "dragonfly", "--routing", "ugal", "--load", "0.7", "--end", "3000"];
    assert_same_as_sequential(&m, &[&["--sync", "optimistic", "--threads", "2", "--pes", "3"]]);
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

/// Each MPI message is counted under the one reason it left for (size,
/// time, age, idle; a conservative window), per process and in all.
#[test]
fn the_reasons_messages_left_for_add_up_to_the_messages() {
    let total = |f: &serde_json::Value| {
        ["size", "time", "age", "idle", "window"].iter().map(|k| f[k].as_u64().unwrap()).sum::<u64>()
    };
    for np in [2, 3] {
        for (sync, pes) in [("optimistic", "2"), ("optimistic", "5"), ("conservative", "2")] {
            let m = ["phold", "--lps", "2048", "--end", "10", "--remote", "0.5", "--sync", sync, "--threads", "2"];
            let pes = if sync == "optimistic" { vec!["--pes", pes] } else { vec![] };
            let s = stats(np, &[&m[..], &pes].concat());
            let what = format!("-n {np} {sync} {pes:?}");
            assert_eq!(total(&s["mpi_flushes"]), s["mpi_messages"].as_u64().unwrap(), "{what}: {s}");
            for r in s["rank_stats"].as_array().unwrap() {
                assert_eq!(total(&r["mpi_flushes"]), r["mpi_messages"].as_u64().unwrap(), "{what}: rank {r}");
            }
            let windows = s["mpi_flushes"]["window"].as_u64().unwrap();
            assert_eq!(windows == s["mpi_messages"].as_u64().unwrap(), sync == "conservative", "{what}: {s}");
        }
    }
}
