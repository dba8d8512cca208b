use super::*;
use timewarp::{run, Config, SyncMode};

fn small() -> Phold {
    Phold { lps: 256, population: 4, ..Phold::default() }
}

#[test]
fn population_is_constant() {
    let m = small();
    let r = run(&m, &Config { end: 30.0, ..Config::default() }).unwrap();
    // Every processed event sends exactly one event: what is left when the
    // queue runs dry is exactly the initial population, all past the end.
    assert_eq!(r.stats.events_past_end, (m.lps * m.population) as u64);
    assert_eq!(r.results.processed, r.stats.committed_events);
    assert!(r.stats.committed_events > 0);
}

#[test]
fn committed_count_matches_renewal_theory() {
    // Each of the lps * population event chains is a renewal process whose
    // hops take lookahead + Exp(mean) (mean mu, variance sigma^2), the first
    // hop included. Renewal theory: E[N(T)] = T/mu + (sigma^2 - mu^2)/(2 mu^2)
    // + o(1), Var[N(T)] = T sigma^2 / mu^3 + o(T); chains are independent.
    let m = Phold { lps: 1024, population: 8, ..Phold::default() };
    let end = 200.0;
    let r = run(&m, &Config { end, ..Config::default() }).unwrap();
    let chains = (m.lps * m.population) as f64;
    let (mu, var) = (m.lookahead + m.mean, m.mean * m.mean);
    let expected = chains * (end / mu + (var - mu * mu) / (2.0 * mu * mu));
    let sd = (chains * end * var / mu.powi(3)).sqrt();
    let got = r.stats.committed_events as f64;
    assert!((got - expected).abs() < 5.0 * sd, "got {got}, expected {expected} ± {sd}");
}

#[test]
fn remote_fraction_matches_parameter() {
    let m = Phold { lps: 1024, population: 4, remote: 0.3, ..Phold::default() };
    let r = run(&m, &Config { end: 50.0, ..Config::default() }).unwrap();
    let n = r.results.processed as f64;
    // A remote draw may pick the LP itself (probability 1/lps).
    let p = m.remote * (1.0 - 1.0 / m.lps as f64);
    let frac = r.results.sent_remote as f64 / n;
    let se = (p * (1.0 - p) / n).sqrt();
    assert!((frac - p).abs() < 5.0 * se, "remote fraction {frac}, expected {p} ± {se}");
}

#[test]
fn same_seed_same_digest_other_seed_other_digest() {
    let m = small();
    let cfg = Config { end: 10.0, ..Config::default() };
    let a = run(&m, &cfg).unwrap().stats.digest;
    let b = run(&m, &cfg).unwrap().stats.digest;
    let c = run(&m, &Config { seed: 2, ..cfg }).unwrap().stats.digest;
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn heap_and_ladder_commit_the_same_history() {
    let m = small();
    let cfg = Config { end: 10.0, ..Config::default() };
    let a = run(&m, &Config { queue: timewarp::QueueKind::Heap, ..cfg.clone() }).unwrap().stats;
    let b = run(&m, &Config { queue: timewarp::QueueKind::Ladder, ..cfg }).unwrap().stats;
    assert_eq!(a.digest, b.digest);
    assert_eq!(a.committed_events, b.committed_events);
}

#[test]
fn every_event_reverses_exactly_in_check_mode() {
    for compute in [0, 7] {
        let m = Phold { remote: 0.5, compute, ..small() };
        let seq = run(&m, &Config { end: 10.0, ..Config::default() }).unwrap().stats;
        let chk = run(&m, &Config { end: 10.0, sync: SyncMode::Check, ..Config::default() }).unwrap().stats;
        assert_eq!(seq.digest, chk.digest);
    }
}
