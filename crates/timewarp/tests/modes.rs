//! Every synchronisation mode and thread count commits the same history:
//! ties, zero delays, state saving, incremental state saving and reverse computation, tiny memory,
//! random configurations.

mod common;

use common::{Ties, INCREMENTAL, LENT, REVERSE, SAVING};
use timewarp::{Config, Model, Run, SyncMode};

fn sequential<M: Model>(m: &M, end: f64) -> timewarp::Stats {
    Run::new(m, &Config { end, ..Config::default() }).execute().unwrap().stats
}

fn optimistic<M: Model>(m: &M, cfg: Config) -> timewarp::Stats {
    let label = format!("{cfg:?}");
    Run::new(m, &Config { sync: SyncMode::Optimistic, ..cfg })
        .execute()
        .unwrap_or_else(|e| panic!("{label}: {e}"))
        .stats
}

fn assert_same(a: &timewarp::Stats, b: &timewarp::Stats, what: &str) {
    assert_eq!(a.committed_events, b.committed_events, "{what}: committed events differ");
    assert_eq!(a.timestamp_ties, b.timestamp_ties, "{what}: ties differ");
    assert_eq!(a.digest, b.digest, "{what}: digest differs");
}

/// Sequential, check, and optimistic on 1–8 threads (one and many KPs,
/// batches of 1 and 16) commit one history, for a model undone the `R` way.
fn every_mode<const R: u8>() {
    let end = 12.0;
    let m = Ties::<R> { lps: 24, tokens: 3 };
    let seq = sequential(&m, end);
    let chk = Run::new(&m, &Config { end, sync: SyncMode::Check, ..Config::default() }).execute().unwrap().stats;
    assert!(seq.timestamp_ties > seq.committed_events / 4, "the model must produce many ties: {seq:?}");
    assert_same(&seq, &chk, "check");
    for threads in [1, 2, 3, 4, 8] {
        for kps_per_pe in [1, 16] {
            for batch in [1, 16] {
                let cfg = Config { end, threads, kps_per_pe, batch, ..Config::default() };
                let par = optimistic(&m, cfg);
                assert_same(&seq, &par, &format!("rollback {R} threads={threads} kps={kps_per_pe} batch={batch}"));
            }
        }
    }
    // One worker running several PEs is deterministic: rollbacks happen
    // here every time, so the undo path is exercised whatever the timing.
    let cfg = Config { end, threads: 1, pes: Some(4), ..Config::default() };
    let par = optimistic(&m, cfg);
    assert!(par.rolled_back_events > 0, "rollback {R}: no rollback on 4 PEs run in turn: {par:?}");
    assert_same(&seq, &par, &format!("rollback {R}, 1 thread 4 PEs"));
}

#[test]
fn ties_and_zero_delays_commit_identically_in_every_mode() {
    every_mode::<REVERSE>();
    every_mode::<SAVING>();
    every_mode::<INCREMENTAL>();
    every_mode::<LENT>();
}

#[test]
fn state_saving_incremental_and_reverse_computation_agree() {
    let end = 15.0;
    let a = sequential(&Ties::<SAVING> { lps: 16, tokens: 2 }, end);
    let b = sequential(&Ties::<REVERSE> { lps: 16, tokens: 2 }, end);
    let c = sequential(&Ties::<INCREMENTAL> { lps: 16, tokens: 2 }, end);
    assert_same(&a, &b, "state saving vs reverse");
    assert_same(&a, &c, "state saving vs incremental");
    let d = sequential(&Ties::<LENT> { lps: 16, tokens: 2 }, end);
    assert_same(&a, &d, "state saving vs a lent journal");
}

#[test]
fn tiny_event_memory_still_commits_the_right_history() {
    let m = Ties::<REVERSE> { lps: 32, tokens: 2 };
    let seq = sequential(&m, 10.0);
    for mem in [1, 2, 5] {
        for threads in [2, 4] {
            let par = optimistic(&m, Config { end: 10.0, threads, event_memory: Some(mem), ..Config::default() });
            assert_same(&seq, &par, &format!("event memory {mem}, threads {threads}"));
        }
        // One worker running two PEs in turn is deterministic: whether the
        // threaded runs throttle depends on when their GVT rounds fall.
        let one = Config { end: 10.0, threads: 1, pes: Some(2), event_memory: Some(mem), ..Config::default() };
        let par = optimistic(&m, one);
        assert_same(&seq, &par, &format!("event memory {mem}, 2 PEs on one worker"));
        assert!(par.pes.iter().any(|p| p.throttled > 0), "memory {mem} must have throttled");
    }
}

#[test]
fn zero_event_memory_is_refused_with_the_minimum() {
    let m = Ties::<REVERSE> { lps: 4, tokens: 1 };
    let e =
        Run::new(&m, &Config { sync: SyncMode::Optimistic, threads: 2, event_memory: Some(0), ..Config::default() })
            .execute()
            .unwrap_err()
            .to_string();
    assert!(e.contains("minimum is 1"), "{e}");
}

#[test]
fn committed_results_never_depend_on_the_mapping() {
    use timewarp::Mapping;
    let m = Ties::<REVERSE> { lps: 40, tokens: 3 };
    let end = 10.0;
    let seq = sequential(&m, end);
    // LP i on PE (i * 7) % pes: every PE gets a scattered set.
    let table = |pes: u32| Mapping::Table((0..40).map(|i| (i * 7) % pes).collect());
    for threads in [1, 2, 3, 4] {
        for mapping in [Mapping::Block, Mapping::Random, table(threads as u32)] {
            for kps_per_pe in [1, 4] {
                let cfg = Config { end, threads, kps_per_pe, mapping: mapping.clone(), ..Config::default() };
                let what = format!("{mapping:?}, {threads} threads, {kps_per_pe} KPs");
                assert_same(&seq, &optimistic(&m, cfg), &format!("optimistic, {what}"));
            }
        }
    }
    // (Conservative runs across mappings: timewarp-models' PHOLD tests; Ties
    // sends with zero delay.) A table naming a PE the run lacks:
    let bad = Config { sync: SyncMode::Optimistic, threads: 2, mapping: table(3), ..Config::default() };
    let e = Run::new(&m, &bad).execute().unwrap_err().to_string();
    assert!(e.contains("PE 2 does not exist") && e.contains("line 3 (LP 2)"), "{e}");
}

/// A run's [`ProgressSink`](timewarp::ProgressSink) holds its end time and,
/// once it has run to its end, reached it, sequential and optimistic (a
/// reporter's progress bar reads it while the run goes on; conservative:
/// `safe.rs`, whose model has a lookahead).
#[test]
fn the_progress_sink_reaches_the_end_time_in_every_mode() {
    let end = 12.0;
    let m = Ties::<REVERSE> { lps: 24, tokens: 3 };
    for (sync, threads) in [(SyncMode::Sequential, 1), (SyncMode::Optimistic, 1), (SyncMode::Optimistic, 2)] {
        let sink = timewarp::ProgressSink::default();
        let cfg = Config { end, sync, threads, progress_sink: Some(sink.clone()), ..Config::default() };
        Run::new(&m, &cfg).execute().unwrap_or_else(|e| panic!("{sync:?} on {threads}: {e}"));
        assert_eq!((sink.now(), sink.end()), (end, end), "{sync:?} on {threads} thread(s)");
    }
}
