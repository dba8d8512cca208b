//! SWM's communication benchmarks (`many_to_many`, `spread`, `allreduce`,
//! `layered_allbcast` in SWM-workloads' `swm/src/`, and CODES's
//! `SWM_Allreduce`): per-rank messages and bytes against the skeletons'
//! loops and MPICH's algorithm, counted here independently of the
//! generators, and every receive matched by a send.

use super::super::{Kind, COLLECTIVE_TAG};
use super::tests::{assert_matched, counts};
use super::{AllReduce, LayeredAllBcast, ManyToMany, Spread};

fn many_to_many() -> ManyToMany {
    // SWM's many_to_many_workload.json: 256 ranks, 128..=255 to 0..=127 in
    // fixed pairs, 2 iterations of 4 MiB.
    ManyToMany {
        ranks: 256,
        iterations: 2,
        sources: (128, 255),
        dests: (0, 127),
        bytes: 4_194_304,
        compute_cycles: 0.0,
        cpu_hz: 4e9,
        fixed_pairs: true,
        start_delay_max: 0,
        seed: 1,
    }
}

/// Per rank (messages, bytes) of many-to-many from the skeleton's loops:
/// a source sends `send_limit` messages per iteration (every destination,
/// or with fixed pairs one, none past the last destination).
fn many_to_many_counts(m: &ManyToMany) -> Vec<(u64, u64, u64)> {
    let ((slo, shi), (dlo, dhi)) = (m.sources, m.dests);
    (0..m.ranks)
        .map(|r| {
            let per_iter = match (slo..=shi).contains(&r) {
                false => 0,
                true if m.fixed_pairs => u64::from(r - slo + dlo <= dhi),
                true => u64::from(dhi - dlo + 1),
            };
            let n = per_iter * m.iterations as u64;
            (n, n * m.bytes as u64, 0)
        })
        .collect()
}

#[test]
fn many_to_many_sends_each_source_to_its_destinations_every_iteration() {
    // The JSON's fixed pairs: source s sends to s - 128 only.
    let m = many_to_many();
    let w = m.workload().unwrap();
    assert_eq!(counts(&w), many_to_many_counts(&m));
    assert!(w.sends.iter().enumerate().all(|(r, s)| s.iter().all(|x| x.dst + 128 == r as u32 && x.tag == 0)));
    assert_matched(&w);
    // All to all at a few sizes: each source sends to every destination,
    // starting at min + source mod count and wrapping.
    for (ranks, sources, dests) in [(10, (0, 3), (4, 9)), (7, (4, 6), (0, 3)), (12, (5, 5), (0, 4))] {
        let m = ManyToMany { ranks, sources, dests, fixed_pairs: false, iterations: 3, bytes: 100, ..many_to_many() };
        let w = m.workload().unwrap();
        assert_eq!(counts(&w), many_to_many_counts(&m), "{ranks} ranks");
        let count = dests.1 - dests.0 + 1;
        for s in sources.0..=sources.1 {
            let first: Vec<u32> = w.sends[s as usize].iter().take(count as usize).map(|x| x.dst).collect();
            assert_eq!(first[0], dests.0 + s % count, "source {s}");
            let mut sorted = first.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (dests.0..=dests.1).collect::<Vec<_>>(), "source {s}: every destination once");
        }
        assert_matched(&w);
    }
    // Fixed pairs with more sources than destinations: the extra sources
    // stop after their first compute; with more destinations, the extra ones.
    let m = ManyToMany { ranks: 8, sources: (0, 4), dests: (5, 7), compute_cycles: 400.0, ..many_to_many() };
    let w = m.workload().unwrap();
    assert_eq!(counts(&w), many_to_many_counts(&m));
    assert_eq!(w.ops[4], vec![super::super::Op { kind: Kind::Compute(100.0), line: 0, collective: "" }]);
    assert_matched(&w);
    let m = ManyToMany { ranks: 8, sources: (6, 7), dests: (0, 5), ..many_to_many() };
    assert!(m.workload().unwrap().ops[2].is_empty());
    assert_matched(&m.workload().unwrap());
}

#[test]
fn many_to_many_refuses_what_it_cannot_run() {
    let bad = |m: ManyToMany| m.workload().unwrap_err();
    assert!(bad(ManyToMany { sources: (0, 200), ..many_to_many() }).contains("overlap"));
    assert!(bad(ManyToMany { dests: (0, 256), ..many_to_many() }).contains("must be [FIRST, LAST] ranks"));
    assert!(bad(ManyToMany { sources: (200, 150), ..many_to_many() }).contains("must be [FIRST, LAST] ranks"));
}

fn spread() -> Spread {
    // SWM's spread_workload.json: 64 ranks, 63 sends 8 bytes to 0..=62, 50
    // iterations, 10000 cycles at 4 GHz after each send.
    Spread {
        ranks: 64,
        iterations: 50,
        src: 63,
        dests: (0, 62),
        bytes: 8,
        compute_cycles: 10_000.0,
        cpu_hz: 4e9,
        blocking: false,
        start_delay_max: 0,
        seed: 1,
    }
}

#[test]
fn spread_sends_from_the_source_to_each_destination_every_iteration() {
    let s = spread();
    let w = s.workload().unwrap();
    for (r, c) in counts(&w).iter().enumerate() {
        let want = if r == 63 { (50 * 63, 50 * 63 * 8, 0) } else { (0, 0, 0) };
        assert_eq!(*c, want, "rank {r}");
    }
    // After each send 10000 cycles at 4 GHz; a wait per iteration.
    let computes: Vec<f64> =
        w.ops[63].iter().filter_map(|o| if let Kind::Compute(ns) = o.kind { Some(ns) } else { None }).collect();
    assert_eq!(computes, vec![2500.0; 50 * 63]);
    assert_eq!(w.ops[63].iter().filter(|o| o.kind == Kind::WaitAll).count(), 50);
    // The skeleton's tag: sizeof(int) x ((destination + 1) + size x iteration).
    assert_eq!(w.sends[63][63 * 3 + 7].tag, 4 * (8 + 64 * 3));
    assert_eq!(w.sends[63][63 * 3 + 7].dst, 7);
    assert_matched(&w);
    // Other sizes, blocking, a scattered start: the same messages.
    for (ranks, src, dests) in [(5, 0, (1, 4)), (9, 4, (0, 3)), (12, 11, (2, 6))] {
        let s = Spread { ranks, src, dests, blocking: true, start_delay_max: 1000, ..spread() };
        let w = s.workload().unwrap();
        let n = (dests.1 - dests.0 + 1) as u64 * 50;
        for (r, c) in counts(&w).iter().enumerate() {
            assert_eq!(*c, if r == src as usize { (n, n * 8, 0) } else { (0, 0, 0) }, "{ranks} ranks: rank {r}");
        }
        assert!(w.ops.iter().flatten().all(|o| o.kind != Kind::WaitAll), "blocking: no waits");
        assert_matched(&w);
    }
    assert!(Spread { src: 30, ..spread() }.workload().unwrap_err().contains("inside"));
    assert!(Spread { dests: (0, 64), ..spread() }.workload().unwrap_err().contains("must be ranks"));
    assert!(Spread { iterations: 1 << 24, ..spread() }.workload().unwrap_err().contains("pass 2^31"));
}

/// Rank `r`'s (messages, bytes) of one all-reduce of `bytes` over `p` ranks
/// from MPICH's algorithm (as CODES's `SWM_Allreduce`): the first `2 rem`
/// ranks fold in pairs (the even one sends its vector, the odd one sends
/// the result back); the `pof2` others run `log2 pof2` rounds of recursive
/// doubling (the whole vector each) when short, else a reduce-scatter
/// (rank `nr` ends with block `bitreverse(nr)` and has sent every other
/// block once) and an all-gather (it sends its aligned group of 1, 2, 4,
/// ... blocks holding that block).
fn allreduce_rank(p: u32, r: u32, bytes: u64) -> (u64, u64) {
    let pof2 = 1u32 << (31 - p.leading_zeros());
    let (rem, lg) = (p - pof2, pof2.trailing_zeros());
    let nr = match r < 2 * rem {
        true if r % 2 == 0 => return (1, bytes),
        true => r / 2,
        false => r - rem,
    };
    let (msgs, sent) = if bytes <= 2048 || bytes < pof2 as u64 {
        (lg as u64, lg as u64 * bytes)
    } else {
        let block =
            |i: u32| if i + 1 == pof2 { bytes - bytes / pof2 as u64 * (pof2 as u64 - 1) } else { bytes / pof2 as u64 };
        let own = if lg == 0 { 0 } else { nr.reverse_bits() >> (32 - lg) };
        let rs = bytes - block(own);
        let ag: u64 = (0..lg).map(|j| (own >> j << j..(own >> j << j) + (1 << j)).map(block).sum::<u64>()).sum();
        (2 * lg as u64, rs + ag)
    };
    let unfold = u64::from(r < 2 * rem);
    (msgs + unfold, sent + unfold * bytes)
}

#[test]
fn allreduce_runs_mpichs_algorithm_for_its_message_size() {
    // SWM's allreduce32_workload.json: 32 ranks, 10 iterations of 8 bytes,
    // 1000 cycles at 1 GHz before each; and that at other sizes, short and long.
    for ranks in [32, 256, 36, 7, 1] {
        for bytes in [8, 2048, 2049, 1 << 20, 1_000_003] {
            let a = AllReduce { ranks, iterations: 2, bytes, compute_cycles: 1000.0, cpu_hz: 1e9 };
            let w = a.workload().unwrap();
            for (r, c) in counts(&w).iter().enumerate() {
                let (m, b) = allreduce_rank(ranks, r as u32, bytes as u64);
                assert_eq!(
                    (c.2, w.sends[r].iter().map(|x| x.bytes as u64).sum()),
                    (2 * m, 2 * b),
                    "{ranks} ranks, {bytes} bytes: rank {r}"
                );
            }
            assert!(w.sends.iter().flatten().all(|x| x.tag >= COLLECTIVE_TAG));
            assert_matched(&w);
            if ranks == 32 && bytes == 8 {
                let computes = w.ops[5].iter().filter(|o| o.kind == Kind::Compute(1000.0)).count();
                assert_eq!(computes, 2, "1000 cycles at 1 GHz each iteration");
            }
        }
    }
    // Long on a power of two: each phase sends (pof2 - 1) / pof2 of the vector.
    assert_eq!(allreduce_rank(32, 9, 1 << 20), (10, 2 * (1 << 20) * 31 / 32));
    // Under pof2 bytes stays short even past 2048: 4096 ranks, 3000 bytes.
    assert_eq!(allreduce_rank(4096, 0, 3000), (12, 12 * 3000));
}

#[test]
fn layered_allbcast_exchanges_two_pieces_per_layer_with_every_rank() {
    // SWM's layered_allbcast.json: 32 ranks, 50 layers from 8192 bytes
    // growing 1.12 per layer, gradients compressed 32 times (one iteration here).
    let l =
        LayeredAllBcast { ranks: 32, iterations: 1, layers: 50, initial_size: 8192.0, growth: 1.12, compression: 32.0 };
    // Layer 0: 8192 / 32 = 256 bytes of weights, 8 of gradients per rank;
    // layer 1: 9175.04 / 32 = 286.72 and 8.96, truncated.
    assert_eq!((l.pieces(0), l.pieces(1)), ((8.0, 256.0), (8.0, 286.0)));
    let per_rank: u64 =
        (0..50).map(|i| 8192.0 * 1.12f64.powi(i)).map(|w| ((w / 32.0 / 32.0) as u64 + (w / 32.0) as u64) * 31).sum();
    let w = l.workload().unwrap();
    for (r, c) in counts(&w).iter().enumerate() {
        assert_eq!(*c, (50 * 2 * 31, per_rank, 0), "rank {r}");
    }
    assert_matched(&w);
    let bad = LayeredAllBcast { growth: 100.0, ..l.clone() };
    assert!(bad.workload().unwrap_err().contains("not a size"));
    assert!(LayeredAllBcast { compression: 0.0, ..l }.workload().unwrap_err().contains("> 0"));
}
