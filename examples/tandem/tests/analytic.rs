//! Checks the tandem model against answers known independently of the engine.
//!
//! **Jackson's theorem**: in steady state every station is an M/M/1 queue
//! with arrival rate `lambda`: mean number in system `L = rho / (1 - rho)`,
//! utilisation `rho`, throughput `lambda` (`rho = lambda / mu`).
//!
//! **Method**: `R` independent replications (seeds `1..=R`). The estimate is
//! the mean over replications, its standard error (SE) the sample standard
//! deviation over `sqrt(R)`, and a test passes when the estimate is within
//! [`Z`] SEs of the exact value. With `R = 10` the studentised error has a
//! t distribution with 9 degrees of freedom: `P(|t_9| > 5) ≈ 7e-4` per
//! comparison. No fudge factor: the only slack is the one computed from the
//! replications.
//!
//! **Run length and warm-up**: every run starts empty and discards nothing.
//! For an M/M/1 queue started empty the time-average number in system over
//! `[0, T)` is biased by about `-b / T` with `b = rho / (mu (1 - rho)^3)`, and
//! its variance is about `s2 / T` with `s2 = 2 rho (1 + rho) / (mu (1 - rho)^4)`
//! (both from the Poisson equation of the birth-death chain; Whitt 1989).
//! Downstream stations start behind empty ones, which adds a few `b`s at most.
//! The run lengths below keep even `5 b / T` under a third of one SE, while
//! `Z` SEs stay under 10% of `L`, so a wrong model cannot pass:
//!
//! | rho | L | b   | s2   | T      | SE (R = 10) | 5 b / T |
//! |-----|---|-----|------|--------|-------------|---------|
//! | 0.5 | 1 | 4   | 24   | 20,000 | 0.011       | 0.001   |
//! | 0.8 | 4 | 100 | 1800 | 50,000 | 0.060       | 0.010   |

use timewarp::{Config, Run, SyncMode};
use timewarp_example_tandem::{Results, Tandem};

/// Replications per estimate.
const R: u64 = 10;
/// Accepted distance from the exact value, in standard errors.
const Z: f64 = 5.0;

/// Runs `R` replications of `model` up to `end`, seeds `1..=R`.
fn replicate(model: &Tandem, end: f64) -> Vec<Results> {
    (1..=R)
        .map(|seed| Run::new(model, &Config { end, seed, ..Config::default() }).execute().expect("run failed").results)
        .collect()
}

/// Mean and standard error of the mean.
fn mean_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, (var / n).sqrt())
}

/// Asserts that the replication mean of `xs` is within `Z` SEs of `exact`,
/// and that the test is sharp (`Z` SEs below 10% of `exact`).
fn assert_close(what: &str, xs: &[f64], exact: f64) {
    let (mean, se) = mean_se(xs);
    println!("{what}: {mean:.4} ± {se:.4} (exact {exact:.4}, off by {:.2} SE)", (mean - exact) / se);
    assert!((mean - exact).abs() <= Z * se, "{what}: {mean} ± {se} (SE), exact {exact}");
    assert!(Z * se < 0.1 * exact, "{what}: SE {se} too wide for a meaningful test; lengthen the runs");
}

/// Compares every station with M/M/1 theory at load `lambda / mu` (mu = 1).
fn matches_jackson(lambda: f64, end: f64) {
    let model = Tandem { stations: 3, lambda, mu: 1.0, hop: 1.0 };
    let l = model.analytic_mean_in_system().unwrap();
    let reps = replicate(&model, end);
    for i in 0..model.stations as usize {
        let col = |f: fn(&timewarp_example_tandem::StationResults) -> f64| -> Vec<f64> {
            reps.iter().map(|r| f(&r.stations[i])).collect()
        };
        assert_close(&format!("rho {lambda}, station {i}, L"), &col(|s| s.mean_in_system), l);
        assert_close(&format!("rho {lambda}, station {i}, utilisation"), &col(|s| s.utilisation), model.rho());
        assert_close(&format!("rho {lambda}, station {i}, throughput"), &col(|s| s.throughput), lambda);
    }
}

#[test]
fn every_station_is_mm1_at_rho_0_5() {
    matches_jackson(0.5, 20_000.0);
}

#[test]
fn every_station_is_mm1_at_rho_0_8() {
    matches_jackson(0.8, 50_000.0);
}

#[test]
fn external_arrivals_are_poisson_lambda() {
    // The number of arrivals in [0, T) is Poisson(lambda T): mean and variance lambda T.
    let (lambda, end) = (0.8, 20_000.0);
    let model = Tandem { stations: 1, lambda, ..Tandem::default() };
    let n =
        Run::new(&model, &Config { end, ..Config::default() }).execute().unwrap().results.stations[0].arrivals as f64;
    let sd = (lambda * end).sqrt();
    assert!((n - lambda * end).abs() <= Z * sd, "{n} arrivals, expected {} ± {sd}", lambda * end);
}

#[test]
fn customers_are_conserved() {
    // 0.1 is not a binary fraction: every delay is computed, never assumed,
    // so the lookahead holds whatever the rounding (a violation fails the run).
    for hop in [1.0, 0.1] {
        let model = Tandem { stations: 5, lambda: 0.9, mu: 1.0, hop };
        let r = Run::new(&model, &Config { end: 5_000.0, ..Config::default() }).execute().unwrap().results;
        let s = &r.stations;
        // Every customer sent on before the end time arrives downstream.
        for i in 0..s.len() - 1 {
            assert_eq!(s[i + 1].arrivals, s[i].departures - s[i].in_transit, "hop {hop}, link {i}");
        }
        assert_eq!(s.last().unwrap().in_transit, 0);
        // Arrivals into the network = departures from it + customers still inside.
        assert_eq!(s[0].arrivals, s.last().unwrap().departures + r.in_network(), "hop {hop}");
        assert!(r.in_network() > 0 && s.last().unwrap().departures > 0);
    }
}

#[test]
fn check_mode_reverses_every_event_and_matches_sequential() {
    let model = Tandem { stations: 4, lambda: 0.8, mu: 1.0, hop: 0.5 };
    let cfg = Config { end: 2_000.0, seed: 3, ..Config::default() };
    let seq = Run::new(&model, &cfg).execute().unwrap();
    let chk = Run::new(&model, &Config { sync: SyncMode::Check, ..cfg }).execute().unwrap();
    assert!(seq.stats.committed_events > 5_000);
    assert_eq!(seq.stats.digest, chk.stats.digest);
    assert_eq!(seq.results, chk.results);
}

#[test]
fn every_parallel_mode_commits_the_sequential_history() {
    let model = Tandem { stations: 6, lambda: 0.8, mu: 1.0, hop: 0.5 };
    let cfg = Config { end: 1_000.0, seed: 5, ..Config::default() };
    let seq = Run::new(&model, &cfg).execute().unwrap();
    for threads in [1, 2, 3] {
        for sync in [SyncMode::Optimistic, SyncMode::Conservative] {
            let par = Run::new(&model, &Config { sync, threads, ..cfg.clone() }).execute().unwrap();
            assert_eq!(seq.stats.digest, par.stats.digest, "{sync:?} with {threads} threads");
            assert_eq!(seq.results, par.results, "{sync:?} with {threads} threads");
        }
    }
}

#[test]
fn same_seed_same_digest_other_seed_other_digest() {
    let model = Tandem::default();
    let cfg = Config { end: 2_000.0, seed: 11, ..Config::default() };
    let a = Run::new(&model, &cfg).execute().unwrap();
    let b = Run::new(&model, &cfg).execute().unwrap();
    let c = Run::new(&model, &Config { seed: 12, ..cfg }).execute().unwrap();
    assert_eq!(a.stats.digest, b.stats.digest);
    assert_eq!(a.results, b.results);
    assert_ne!(a.stats.digest, c.stats.digest);
}

#[test]
fn bad_parameters_are_rejected() {
    assert!(Tandem::default().validate().is_ok());
    for bad in [
        Tandem { stations: 0, ..Tandem::default() },
        Tandem { lambda: 0.0, ..Tandem::default() },
        Tandem { mu: f64::NAN, ..Tandem::default() },
        Tandem { hop: 0.0, ..Tandem::default() },
    ] {
        assert!(bad.validate().is_err(), "{bad:?} accepted");
    }
}
