//! SWM's periodic aggressor against its definition
//! (`periodic_aggressor.cpp`): LAMMPS's counts over both phases of every
//! iteration (lammps_tests.rs's closed forms, the neighbour checks running
//! on across phases) plus the bursts, counted from the incast loops.

use super::super::{Kind, COLLECTIVE_TAG};
use super::lammps_tests::{definition, swm_file};
use super::tests::{assert_matched, counts};
use super::{allreduce_folded_messages, PeriodicAggressor};

/// SWM's `periodic_aggressor.json` shrunk to 8 ranks (its 3 x 3 x 3
/// replicas): `per` steps a phase, bursts of `rounds` from 0..=6 to 7.
fn small(iterations: u32, per: u32, rounds: u32) -> PeriodicAggressor {
    PeriodicAggressor {
        lammps: swm_file(8, per),
        iterations,
        incast_size: 8,
        incast_rounds: rounds,
        dst: 7,
        sources: (0, 6),
        bytes: 1_310_720,
    }
}

#[test]
fn periodic_aggressor_sends_lammps_and_its_bursts() {
    // 3 iterations of 2 x 5 steps: LAMMPS's 30 (2 rebuilds); 5 iterations
    // of 2 x 1: its 10 (no rebuild). The bursts: 2 or 5 rounds per
    // iteration, sources 0..=6 each one message a round.
    for (iterations, per, rounds, steps) in [(3, 5, 2, 30), (5, 1, 5, 10)] {
        let a = small(iterations, per, rounds);
        let w = a.workload().unwrap();
        assert_matched(&w);
        let (lammps, allreduces) = definition(8, [2, 2, 2], (1, 8), (2, 4), steps);
        let c = counts(&w);
        for (r, got) in c.iter().enumerate() {
            let burst = if r <= 6 { (iterations * rounds) as u64 } else { 0 };
            let want = (lammps[r].0 + burst, lammps[r].1 + burst * 1_310_720);
            assert_eq!((got.0, got.1), want, "rank {r}, {iterations} x 2 x {per} steps");
        }
        assert_eq!(c.iter().map(|c| c.2).sum::<u64>(), allreduces * allreduce_folded_messages(8));
        // The destination receives 7 a round; tags 4 (source + 1 + 8 round).
        let recvs: Vec<u32> = w.ops[7]
            .iter()
            .filter_map(|o| match o.kind {
                Kind::Recv { tag, .. } if tag != 0 && tag < COLLECTIVE_TAG => Some(tag),
                _ => None,
            })
            .collect();
        let one: Vec<u32> = (0..rounds).flat_map(|i| (0..7).map(move |s| 4 * (s + 1 + 8 * i))).collect();
        assert_eq!(recvs, one.repeat(iterations as usize));
    }
}

#[test]
fn the_bursts_come_between_the_phases() {
    // Rank 0, 2 iterations of 2 x 5 steps, 3 rounds: its burst sends come
    // right after the 1st group of 5 steps (as long as LAMMPS's own first
    // 5, no checks, its FFT sends blocking instead), a send and a wait a
    // round, and the next burst after two groups with checks (longer).
    let w = small(2, 5, 3).workload().unwrap();
    let group = swm_file(8, 5).workload().unwrap().ops[0].len();
    let sends = &w.sends[0];
    let burst = |k: u32| {
        let m = &sends[k as usize];
        m.dst == 7 && m.tag != 0 && m.tag < COLLECTIVE_TAG
    };
    let at: Vec<usize> = w.ops[0]
        .iter()
        .enumerate()
        .filter(|(_, o)| matches!(o.kind, Kind::Send { k, .. } if burst(k)))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(at.len(), 6);
    assert_eq!(at[0], group);
    assert_eq!([at[1] - at[0], at[2] - at[1], at[4] - at[3], at[5] - at[4]], [2; 4]);
    assert!(at[3] > at[2] + 2 + 2 * group, "{at:?}");
    // The FFT sends are blocking (SWM_Send), the bursts' not.
    let fft_blocking = w.ops[0]
        .iter()
        .any(|o| matches!(o.kind, Kind::Send { k, blocking: true } if sends[k as usize].bytes > 10_000 && !burst(k)));
    assert!(fft_blocking);
    assert!(w.ops[0].iter().all(|o| !matches!(o.kind, Kind::Send { k, blocking: true } if burst(k))));
}

#[test]
fn periodic_aggressor_refuses_what_swm_asserts_against() {
    let err = |a: PeriodicAggressor| a.workload().unwrap_err();
    let mut a = small(1, 1, 1);
    a.incast_size = 7;
    assert!(err(a).contains("below incast_size 7"));
    let mut a = small(1, 1, 1);
    a.sources = (0, 7);
    assert!(err(a).contains("inside incast_src_rank_id_interval"));
    let mut a = small(1, 1, 1);
    a.sources = (0, 8);
    a.dst = 6;
    assert!(err(a).contains("ranks of the job's 0..8"));
    let mut a = small(1, 1, 1);
    a.lammps.ranks = 36;
    a.incast_size = 36;
    assert!(err(a).contains("FFT transpose"));
    let mut a = small(1, 1, 1);
    a.incast_size = 1 << 30;
    a.incast_rounds = 3;
    assert!(err(a).contains("pass 2^31"));
}
