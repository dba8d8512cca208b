//! Workers are not PEs (issue 16): every scheduling policy, PE count and
//! worker count commits the sequential history, including runs where a
//! worker is deactivated for good (its PEs must be run by the others) or
//! stalls while holding its PE (GVT waits, then goes on). The hooks count
//! iterations, not seconds: nothing here depends on the machine's speed.

use timewarp::checkpoint::{self, Control, File, Plan};
use timewarp::{Adaptivity, Config, Model, Run, Scheduling, Stats, SyncMode};
use timewarp_models::network::{Network, Topology};
use timewarp_models::phold::Phold;

fn stats<M: Model>(m: &M, cfg: Config) -> Stats {
    let label = format!("{cfg:?}");
    Run::new(m, &cfg).execute().unwrap_or_else(|e| panic!("{label}: {e}")).stats
}

fn optimistic(threads: usize, pes: usize, scheduling: Scheduling, end: f64) -> Config {
    Config { sync: SyncMode::Optimistic, end, threads, pes: Some(pes), scheduling, ..Config::default() }
}

fn assert_same(seq: &Stats, par: &Stats, what: &str) {
    assert_eq!(seq.committed_events, par.committed_events, "{what}: committed events differ");
    assert_eq!(seq.digest, par.digest, "{what}: digest differs");
    assert_eq!(par.pes.len(), par.pes_per_process, "{what}: one PE record per PE");
    assert_eq!(par.workers.len(), par.threads, "{what}: one worker record per worker");
    let iterations: u64 = par.workers.iter().map(|w| w.iterations).sum();
    assert_eq!(iterations, par.pes.iter().map(|p| p.iterations).sum::<u64>(), "{what}: iterations add up");
}

#[test]
fn every_policy_pe_and_worker_count_commits_the_sequential_history() {
    for remote in [0.1, 1.0] {
        let m = Phold { lps: 240, population: 2, remote, ..Phold::default() };
        let end = 12.0;
        let seq = stats(&m, Config { end, ..Config::default() });
        for policy in Scheduling::ALL {
            for (threads, pes) in [(1, 1), (1, 4), (2, 2), (2, 3), (2, 8), (3, 7)] {
                let par = stats(&m, optimistic(threads, pes, policy, end));
                let what = format!("remote {remote}, {} with {pes} PEs on {threads} workers", policy.name());
                assert_same(&seq, &par, &what);
                assert_eq!(par.scheduling, policy.name());
                if policy == Scheduling::Fixed {
                    assert!(par.pes.iter().all(|p| p.foreign_iterations == 0), "{what}: fixed never moves a PE");
                }
            }
        }
    }
}

#[test]
fn a_state_saving_model_commits_the_same_under_every_policy() {
    let m = Network { topology: Topology::Torus(vec![4, 4]), load: 0.6, ..Network::default() };
    let end = 4000.0;
    let seq = stats(&m, Config { end, ..Config::default() });
    for policy in Scheduling::ALL {
        let par = stats(&m, optimistic(2, 5, policy, end));
        assert_same(&seq, &par, &format!("network, {}", policy.name()));
    }
}

#[test]
fn a_deactivated_workers_pes_are_run_by_the_others() {
    let m = Phold { lps: 256, population: 2, remote: 0.5, ..Phold::default() };
    let end = 20.0;
    let seq = stats(&m, Config { end, ..Config::default() });
    for policy in [Scheduling::Adaptive, Scheduling::Ladm] {
        for (threads, pes) in [(2, 2), (3, 6)] {
            let mut cfg = optimistic(threads, pes, policy, end);
            // Worker 1 deactivates after 5 iterations and never comes back.
            cfg.adaptivity = Adaptivity { force_deactivate: Some((1, 5)), ..Adaptivity::default() };
            let par = stats(&m, cfg);
            let what = format!("{} with {pes} PEs on {threads} workers, worker 1 gone", policy.name());
            assert_same(&seq, &par, &what);
            assert!(par.workers[1].deactivations >= 1, "{what}: {:?}", par.workers);
            assert!(par.workers[1].iterations <= 5 + 10, "{what}: worker 1 kept working: {:?}", par.workers);
            // Its PEs went on with other workers.
            for p in (1..pes).step_by(threads) {
                assert!(par.pes[p].foreign_iterations > 0, "{what}: PE {p} never ran elsewhere");
            }
            if policy == Scheduling::Ladm {
                let help: u64 = par.workers.iter().map(|w| w.help_iterations).sum();
                assert!(help > 0, "{what}: nobody helped the orphans");
            }
        }
    }
}

#[test]
fn a_stalled_worker_holds_gvt_back_until_it_resumes() {
    let m = Phold { lps: 128, population: 2, remote: 0.5, ..Phold::default() };
    let end = 10.0;
    let seq = stats(&m, Config { end, ..Config::default() });
    for policy in Scheduling::ALL {
        let mut cfg = optimistic(2, 4, policy, end);
        // Worker 0 sleeps 50 ms in its 20th iteration, holding its PE.
        cfg.adaptivity = Adaptivity { stall: Some((0, 20, 50)), ..Adaptivity::default() };
        assert_same(&seq, &stats(&m, cfg), &format!("{}, worker 0 stalled", policy.name()));
    }
}

#[test]
fn checkpoints_resume_across_pe_and_worker_counts() {
    let m = Phold { lps: 256, population: 3, remote: 0.5, ..Phold::default() };
    let end = 24.0;
    let seq = stats(&m, Config { end, ..Config::default() });
    let d = std::env::temp_dir().join(format!("tw-sched-ckpt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    let plan = Plan { dir: Some(d.clone()), every: Some(8.0), keep: 10, ..Plan::default() };
    let writer = optimistic(2, 6, Scheduling::Ladm, end);
    let with = Run::new(&m, &writer).plan(&plan).control(&Control::default()).execute().unwrap().stats;
    assert_eq!(with.digest, seq.digest);
    let files = checkpoint::list(&d).unwrap();
    assert!(!files.is_empty());
    for f in &files {
        for reader in [optimistic(1, 3, Scheduling::Dynamic, end), optimistic(2, 2, Scheduling::Fixed, end)] {
            let snap = File::open(f).unwrap().load(&m, None).unwrap();
            let r = Run::new(&m, &reader).resume(snap).execute().unwrap();
            assert_eq!(r.stats.digest, seq.digest, "{f:?} resumed with {reader:?}");
        }
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn impossible_pe_counts_are_refused_with_the_fix() {
    let m = Phold { lps: 64, ..Phold::default() };
    let e = Run::new(&m, &optimistic(4, 2, Scheduling::Fixed, 5.0)).execute().unwrap_err().to_string();
    assert!(e.contains("2 PEs cannot keep 4 worker threads busy") && e.contains("at least as many PEs"), "{e}");
    let cons = Config { sync: SyncMode::Conservative, threads: 2, pes: Some(4), ..Config::default() };
    let e = Run::new(&m, &cons).execute().unwrap_err().to_string();
    assert!(e.contains("only the optimistic mode"), "{e}");
    let mut bad = optimistic(2, 2, Scheduling::Ladm, 5.0);
    bad.adaptivity.threshold = 0.5;
    let e = Run::new(&m, &bad).execute().unwrap_err().to_string();
    assert!(e.contains("threshold"), "{e}");
}
