//! Speculation sized by the run (issue 38, item 2): without
//! `--event-memory` each PE's event budget follows what its GVT rounds
//! measure, and the statistics say, per PE, how many iterations stopped
//! throttled or idle and how long. Asserted on `--threads 1 --pes N` runs:
//! one worker steps the PEs in an order that depends on nothing but the
//! run, so every count here is deterministic (the seconds are not, and are
//! only checked to be there).

mod common;
use common::stats;

/// A TLM wavefront: its PEs run ahead of one another by more than the
/// fixed budget (8 × batch × GVT interval = 2,048 per PE) lets them.
const TLM: &[&str] = &["run", "tlm", "--size", "200x200", "--sources", "20", "--end", "20"];

fn run(base: &[&str], extra: &[&str]) -> serde_json::Value {
    stats(&[base, extra].concat())
}

fn share(s: &serde_json::Value) -> f64 {
    s["throttled_iterations"].as_f64().unwrap() / s["iterations"].as_f64().unwrap()
}

#[test]
fn a_budget_sized_by_the_run_stops_the_wavefront_less_and_commits_the_same_digest() {
    let seq = run(TLM, &["--sync", "sequential"]);
    // Round robin turns (`dynamic` on one worker) let the PEs run apart as
    // they do on threads of their own; the default turns keep them together.
    // Every event speculative: a safe event takes no place in the budget.
    let pes = ["--sync", "optimistic", "--threads", "1", "--pes", "2", "--scheduling", "dynamic", "--no-safe-events"];
    let auto = run(TLM, &pes);
    let fixed = run(TLM, &[&pes[..], &["--event-memory", "2048"]].concat());
    for s in [&auto, &fixed] {
        assert_eq!(s["digest"], seq["digest"]);
        assert_eq!(s["committed_events"], seq["committed_events"]);
    }
    // The fixed budget stops the PEs in a tenth of their iterations (one
    // worker; on 16 threads it was nearly all of them); the run-sized one
    // in a small fraction of that, with fewer GVT rounds.
    assert!(share(&fixed) > 0.05, "fixed budget: {} throttled", share(&fixed));
    assert!(
        share(&auto) < share(&fixed) / 4.0,
        "run-sized budget: {} throttled, fixed {}",
        share(&auto),
        share(&fixed)
    );
    assert!(auto["gvt_rounds"].as_u64() < fixed["gvt_rounds"].as_u64());
    // It grew, and no further than the events a sequential run holds.
    let peak = auto["event_memory_peak"].as_u64().unwrap();
    assert!(peak > 2048, "budget {peak}");
    assert!(peak <= seq["peak_events"].as_u64().unwrap(), "budget {peak}");
    assert_eq!(fixed["event_memory_peak"].as_u64(), Some(2048), "a given budget is kept");
    // Pending and processed events held at once: within twice sequential's.
    assert!(auto["peak_events"].as_u64().unwrap() <= 2 * seq["peak_events"].as_u64().unwrap());
}

#[test]
fn the_same_configuration_counts_the_same_throttling_twice() {
    let args = [TLM, &["--sync", "optimistic", "--threads", "1", "--pes", "3"]].concat();
    let (a, b) = (stats(&args), stats(&args));
    for key in ["throttled_iterations", "iterations", "gvt_rounds", "event_memory_peak", "digest"] {
        assert_eq!(a[key], b[key], "{key}");
    }
    let pes = a["pes"].as_array().unwrap();
    assert_eq!(pes.len(), 3);
    let sum = |k: &str| pes.iter().map(|p| p[k].as_u64().unwrap()).sum::<u64>();
    assert_eq!(sum("throttled_iterations"), a["throttled_iterations"].as_u64().unwrap());
    assert_eq!(sum("iterations"), a["iterations"].as_u64().unwrap());
    for p in pes {
        for k in ["throttled_seconds", "gvt_wait_seconds"] {
            assert!(p[k].as_f64().unwrap() >= 0.0, "{k}");
        }
        assert!(
            p["idle_iterations"].as_u64().unwrap() + p["throttled_iterations"].as_u64().unwrap()
                <= p["iterations"].as_u64().unwrap()
        );
    }
}

#[test]
fn a_rollback_heavy_run_keeps_its_budget_near_the_start() {
    // PHOLD with every event remote on 4 PEs rolls back often: the budget
    // does not run away, and the digest is the sequential one.
    let base = ["run", "phold", "--lps", "256", "--remote", "1.0", "--lookahead", "0", "--end", "50"];
    let seq = run(&base, &["--sync", "sequential"]);
    let opt = run(&base, &["--sync", "optimistic", "--threads", "1", "--pes", "4"]);
    assert_eq!(opt["digest"], seq["digest"]);
    assert!(opt["event_memory_peak"].as_u64().unwrap() <= seq["peak_events"].as_u64().unwrap().max(2048));
}

#[test]
fn pes_that_share_a_worker_advance_together_and_roll_back_less_than_in_turns() {
    let seq = run(TLM, &["--sync", "sequential"]);
    let shared = ["--sync", "optimistic", "--threads", "1", "--pes", "4"];
    let together = run(TLM, &shared);
    let turns = run(TLM, &[&shared[..], &["--scheduling", "dynamic"]].concat());
    for s in [&together, &turns] {
        assert_eq!(s["digest"], seq["digest"]);
        assert_eq!(s["committed_events"], seq["committed_events"]);
    }
    // In turns a PE with fewer events per unit of time races ahead and is
    // rolled back; given the turns of the one furthest behind, they keep
    // together (one worker: both counts are deterministic).
    let (a, b) = (together["rolled_back_events"].as_u64().unwrap(), turns["rolled_back_events"].as_u64().unwrap());
    assert!(b > 0, "in turns the wavefront rolls back");
    assert!(a * 10 <= b, "kept together: {a} rolled back, in turns {b}");
}
