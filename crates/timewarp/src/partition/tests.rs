use super::*;

/// xorshift64*: test instances, no model randomness.
struct Xs(u64);
impl Xs {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn request(scheme: Scheme, parts: usize) -> Request {
    Request { scheme, processes: 1, threads: parts, hierarchical: false, imbalance: 1.05, seed: 1 }
}

/// Largest bin of the best assignment of `w` to `bins`, by trying every one.
fn optimum(w: &[u64], bins: usize) -> u64 {
    fn go(w: &[u64], load: &mut [u64], best: &mut u64) {
        let Some((&x, rest)) = w.split_first() else {
            *best = (*best).min(*load.iter().max().unwrap());
            return;
        };
        for b in 0..load.len() {
            load[b] += x;
            if load[b] < *best {
                go(rest, load, best);
            }
            load[b] -= x;
            if load[b] == 0 {
                break; // empty bins are interchangeable
            }
        }
    }
    let mut best = u64::MAX;
    go(w, &mut vec![0; bins], &mut best);
    best
}

#[test]
fn object_only_is_within_four_thirds_of_the_optimum() {
    let mut rng = Xs(0x1234_5678);
    for case in 0..300 {
        let n = 1 + rng.below(10) as usize;
        let bins = 2 + rng.below(3) as usize;
        let w: Vec<u64> = (0..n).map(|_| 1 + rng.below(if case % 2 == 0 { 20 } else { 1000 })).collect();
        let table = greedy_bins(&w, bins);
        let mut load = vec![0u64; bins];
        for (i, &b) in table.iter().enumerate() {
            load[b as usize] += w[i];
        }
        let got = *load.iter().max().unwrap();
        let opt = optimum(&w, bins);
        assert!(3 * got <= 4 * opt, "{w:?} into {bins}: greedy {got}, optimum {opt}");
    }
}

/// `groups` planted groups of `size` LPs: light unit-count edges everywhere
/// (a random structure that hides the groups), heavy traffic inside groups.
fn planted(groups: usize, size: usize, seed: u64) -> Graph {
    let n = groups * size;
    let mut p = Profile::new(n as u32);
    let mut rng = Xs(seed);
    for v in 0..n as u32 {
        for _ in 0..20 {
            p.record(v, v, 100);
        }
        // Structure: 4 random partners anywhere, one message each.
        for _ in 0..4 {
            let u = rng.below(n as u64) as u32;
            p.record(u, v, 0);
        }
        // Activity: 3 partners of its own group, 50 messages each.
        let g0 = v as usize / size * size;
        for _ in 0..3 {
            let u = (g0 + rng.below(size as u64) as usize) as u32;
            for _ in 0..50 {
                p.record(u, v, 0);
            }
        }
    }
    p.graph()
}

#[test]
fn activity_cuts_no_more_than_static_on_a_planted_partition() {
    for (groups, seed) in [(2, 3), (4, 5), (4, 11)] {
        let g = planted(groups, 64, seed);
        let stat = partition(&g, &request(Scheme::Static, groups)).unwrap();
        let act = partition(&g, &request(Scheme::Activity, groups)).unwrap();
        let random = partition(&g, &request(Scheme::Random, groups)).unwrap();
        assert!(act.cut <= stat.cut, "{groups} groups: activity cut {} > static cut {}", act.cut, stat.cut);
        assert!(3 * act.cut < random.cut, "activity {} vs random {}", act.cut, random.cut);
    }
}

#[test]
fn metis_respects_the_imbalance() {
    let g = planted(4, 50, 7);
    for imbalance in [1.01, 1.05, 1.3] {
        for scheme in [Scheme::Static, Scheme::Activity] {
            let p = partition(&g, &Request { imbalance, ..request(scheme, 4) }).unwrap();
            // Unit vertex weights: LPs per part. One LP of slack for rounding.
            assert!(
                p.imbalance_lps <= imbalance + 4.0 / g.len() as f64 + 1e-9,
                "{scheme:?} at {imbalance}: {}",
                p.imbalance_lps
            );
        }
    }
}

#[test]
fn hierarchical_partitions_processes_first() {
    let g = planted(4, 32, 9);
    let r = Request { processes: 2, threads: 2, hierarchical: true, ..request(Scheme::Activity, 0) };
    let h = partition(&g, &r).unwrap();
    assert_eq!(h.table.len(), g.len());
    assert!(h.table.iter().all(|&p| p < 4));
    assert!(h.cut_processes <= h.cut);
    // The planted groups pair up into processes: little crosses them.
    let random = partition(&g, &Request { scheme: Scheme::Random, ..r.clone() }).unwrap();
    assert!(3 * h.cut_processes < random.cut_processes, "{} vs {}", h.cut_processes, random.cut_processes);
}

#[test]
fn a_profile_with_nothing_measured_still_spreads_the_lps() {
    let g = Profile::new(8).graph();
    for scheme in Scheme::ALL {
        let p = partition(&g, &request(scheme, 4)).unwrap();
        assert_eq!(p.imbalance_lps, 1.0, "{scheme:?}: {:?}", p.table);
    }
}

#[test]
fn every_scheme_places_every_lp_on_a_valid_pe() {
    let g = planted(3, 10, 1);
    for scheme in Scheme::ALL {
        for (processes, threads, hierarchical) in [(1, 1, false), (1, 4, false), (2, 2, true), (3, 1, true)] {
            let r = Request { processes, threads, hierarchical, ..request(scheme, 1) };
            let p = partition(&g, &r).unwrap();
            assert_eq!(p.table.len(), 30);
            assert!(p.table.iter().all(|&x| (x as usize) < processes * threads), "{scheme:?}");
        }
    }
    assert_eq!(partition(&g, &request(Scheme::Block, 3)).unwrap().table, (0..30).map(|v| v / 10).collect::<Vec<u32>>());
}

#[test]
fn metis_format_round_trips_and_bad_files_are_named() {
    let mut g = planted(2, 8, 4);
    g.header.model = "phold".into();
    let text = g.to_metis();
    assert_eq!(Graph::from_metis(&text, "p").unwrap(), g);
    let err = |t: &str| Graph::from_metis(t, "prof.graph").unwrap_err().to_string();
    assert!(err("3 2 011 2\n").contains("not a timewarp profile"));
    let broken = text.replacen(" 011 2", " 001 1", 1);
    assert!(err(&broken).contains("expected `n m 011 2`"), "{}", err(&broken));
    let cut: String = text.lines().take(5).map(|l| format!("{l}\n")).collect();
    assert!(err(&cut).contains("vertices announced"));
}
