use super::*;
use timewarp::{Config, Run, SyncMode};

fn small() -> Phold {
    Phold { lps: 256, population: 4, ..Phold::default() }
}

#[test]
fn population_is_constant() {
    let m = small();
    let r = Run::new(&m, &Config { end: 30.0, ..Config::default() }).execute().unwrap();
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
    let r = Run::new(&m, &Config { end, ..Config::default() }).execute().unwrap();
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
    let r = Run::new(&m, &Config { end: 50.0, ..Config::default() }).execute().unwrap();
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
    let a = Run::new(&m, &cfg).execute().unwrap().stats.digest;
    let b = Run::new(&m, &cfg).execute().unwrap().stats.digest;
    let c = Run::new(&m, &Config { seed: 2, ..cfg }).execute().unwrap().stats.digest;
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn heap_and_ladder_commit_the_same_history() {
    let m = small();
    let cfg = Config { end: 10.0, ..Config::default() };
    let a = Run::new(&m, &Config { queue: timewarp::QueueKind::Heap, ..cfg.clone() }).execute().unwrap().stats;
    let b = Run::new(&m, &Config { queue: timewarp::QueueKind::Ladder, ..cfg }).execute().unwrap().stats;
    assert_eq!(a.digest, b.digest);
    assert_eq!(a.committed_events, b.committed_events);
}

#[test]
fn every_event_reverses_exactly_in_check_mode() {
    for compute in [0, 7] {
        let m = Phold { remote: 0.5, compute, ..small() };
        let seq = Run::new(&m, &Config { end: 10.0, ..Config::default() }).execute().unwrap().stats;
        let chk =
            Run::new(&m, &Config { end: 10.0, sync: SyncMode::Check, ..Config::default() }).execute().unwrap().stats;
        assert_eq!(seq.digest, chk.digest);
    }
}

#[test]
fn compute_is_used_by_every_variant_and_reverses() {
    let h = Hierarchy {
        levels: 3,
        cluster: 8,
        neighbours: 2,
        alpha: 1.0,
        low: 1.0,
        high: 10.0,
        skewed_compute: true,
        interleave: true,
    };
    let variants = [
        Phold { lps: 64, population: 2, remote: 0.3, ..Phold::default() },
        Phold {
            lps: 64,
            population: 2,
            remote: 0.2,
            regional: Some(Regional { nodes: 2, pes_per_node: 2, regional: 0.3 }),
            ..Phold::default()
        },
        Phold { lps: 32, population: 2, remote: 0.8, hierarchy: Some(h), ..Phold::default() },
    ];
    for m in variants {
        m.validate().unwrap();
        let cfg = Config { end: 10.0, ..Config::default() };
        let idle = Run::new(&m, &cfg).execute().unwrap().stats.digest;
        let busy = Phold { compute: 7, ..m.clone() };
        let worked = Run::new(&busy, &cfg).execute().unwrap().stats.digest;
        assert_ne!(idle, worked, "{m:?}: --compute changes the state (work)");
        let checked = Run::new(&busy, &Config { sync: SyncMode::Check, ..cfg }).execute().unwrap().stats.digest;
        assert_eq!(worked, checked, "{m:?}: forward, reverse, compare, forward");
    }
}

#[test]
fn skewed_compute_keeps_the_mean_work() {
    let h = Hierarchy {
        levels: 10,
        cluster: 16,
        neighbours: 1,
        alpha: 1.0,
        low: 1.0,
        high: 10.0,
        skewed_compute: true,
        interleave: false,
    };
    let m = Phold { lps: h.lps().unwrap(), compute: 1000, hierarchy: Some(h), ..Phold::default() };
    let work: Vec<f64> = (0..m.lps).map(|lp| m.compute_of(lp) as f64).collect();
    let mean = work.iter().sum::<f64>() / work.len() as f64;
    let sd = (work.iter().map(|w| (w - mean).powi(2)).sum::<f64>() / work.len() as f64).sqrt();
    // 8,192 objects: the mean is within 5 standard errors of --compute, and the work is skewed.
    assert!((mean - 1000.0).abs() < 5.0 * sd / (work.len() as f64).sqrt(), "mean work {mean}");
    let max = work.iter().cloned().fold(0.0, f64::max);
    assert!(max > 3.0 * mean, "alpha 1 has a heavy tail: max {max}, mean {mean}");
}
