//! SWM's LAMMPS skeleton against its definition (`lammps.cpp`): per rank
//! and timestep the messages and bytes, counted here from the skeleton's
//! loops with closed forms for the grids of SWM's own files
//! (`lammps_workload.json`, `lammps_workload1.json`: 3 × 3 × 3 replicas,
//! 30 and 10 timesteps), the FFT transposes counted grid point by grid
//! point (each point goes from its owner in one layout to its owner in
//! the next), independently of the skeleton's brick overlaps.

use super::super::Kind;
use super::tests::{assert_matched, counts};
use super::{allreduce_folded_messages, Check, Lammps};
use std::collections::BTreeMap;

/// SWM's files' `jobs.cfg` on `ranks` ranks for `timesteps` steps.
pub(super) fn swm_file(ranks: u32, timesteps: u32) -> Lammps {
    Lammps { ranks, replicas: [3, 3, 3], timesteps, router_hz: 800e6, cpu_hz: 4e9, speedup: 1e6 }
}

/// The box of SWM's files: 3 × 3 × 3 replicas of the 55 × 77 × 72.7261 block.
const PRD: [f64; 3] = [165.0, 231.0, 3.0 * (36.3615 + 36.3646)];
/// Its PPPM grid (see `pppm_grid_is_lammps_own`).
const GRID: [usize; 3] = [72, 96, 90];
const POINTS: usize = GRID[0] * GRID[1] * GRID[2];

/// Part `m` of `n` of `g` points: `[m g / n, (m + 1) g / n − 1]`.
fn part(m: usize, n: usize, g: usize) -> [usize; 2] {
    [m * g / n, (m + 1) * g / n - 1]
}

/// The four FFT layouts, per rank its brick: the processor grid's (z
/// fastest), y-z pencils (`py` × `pz`, y fastest), and the two middle ones
/// on SWM's `f1` × `f2` (x-z, then x-y).
fn layouts(
    p: usize,
    procs: [usize; 3],
    (py, pz): (usize, usize),
    (f1, f2): (usize, usize),
) -> [Vec<[[usize; 2]; 3]>; 4] {
    let full = |d: usize| [0, GRID[d] - 1];
    let mut out: [Vec<_>; 4] = Default::default();
    for r in 0..p {
        let c = [r / (procs[1] * procs[2]), r / procs[2] % procs[1], r % procs[2]];
        out[0].push([0, 1, 2].map(|d| part(c[d], procs[d], GRID[d])));
        out[1].push([full(0), part(r % py, py, GRID[1]), part(r / py, pz, GRID[2])]);
        out[2].push([part(r % f1, f1, GRID[0]), full(1), part(r / f1, f2, GRID[2])]);
        out[3].push([part(r % f1, f1, GRID[0]), part(r / f1, f2, GRID[1]), full(2)]);
    }
    out
}

fn points(b: &[[usize; 2]; 3]) -> impl Iterator<Item = usize> + '_ {
    (b[0][0]..=b[0][1]).flat_map(move |x| {
        (b[1][0]..=b[1][1]).flat_map(move |y| (b[2][0]..=b[2][1]).map(move |z| (x * GRID[1] + y) * GRID[2] + z))
    })
}

/// Each grid point's owner in a layout (which must cover the grid once).
fn owners(bricks: &[[[usize; 2]; 3]]) -> Vec<u32> {
    let mut o = vec![u32::MAX; POINTS];
    for (r, b) in bricks.iter().enumerate() {
        for i in points(b) {
            assert_eq!(o[i], u32::MAX, "point {i} twice");
            o[i] = r as u32;
        }
    }
    assert!(o.iter().all(|&r| r != u32::MAX), "a layout misses points");
    o
}

/// The transposes of one timestep (SWM's `get_k_params`): layouts
/// (0 bricks, 1 pencils, 2 and 3 the middles) and bytes per point.
fn transposes() -> Vec<(usize, usize, u64)> {
    let mut t = vec![(0, 1, 8), (1, 2, 16), (2, 3, 16), (3, 1, 16)];
    for _ in 0..3 {
        t.extend([(1, 2, 16), (2, 3, 16), (3, 0, 16)]);
    }
    t
}

/// Per transpose, rank `r`'s (messages, bytes): its points in layout `a`
/// grouped by their owner in `b`, its own kept.
fn fft_counts(lay: &[Vec<[[usize; 2]; 3]>; 4], own: &[Vec<u32>; 4], r: usize) -> Vec<(u64, u64)> {
    transposes()
        .into_iter()
        .map(|(a, b, elem)| {
            let mut to: BTreeMap<u32, u64> = BTreeMap::new();
            for i in points(&lay[a][r]) {
                *to.entry(own[b][i]).or_default() += 1;
            }
            to.remove(&(r as u32));
            (to.len() as u64, elem * to.values().sum::<u64>())
        })
        .collect()
}

/// C's `(int)(x + 0.5)` of a positive x.
fn round(x: f64) -> u64 {
    (x + 0.5) as u64
}

/// One swap per axis each way (the cutoff, 12, within a slab): the
/// volumes SWM sends across the x, y and z faces (y's and z's grown by
/// the cutoff on the axes already exchanged).
fn ghost_volumes(w: [f64; 3]) -> [f64; 3] {
    assert!(w.iter().all(|&w| w > 12.0));
    [
        (w[1] * w[2] * 12.0).trunc(),
        ((w[0] + 24.0) * w[2] * 12.0).trunc(),
        ((w[0] + 24.0) * (w[1] + 24.0) * 12.0).trunc(),
    ]
}

/// Bytes of a ghost exchange: each axis's volume both ways at `per` bytes a unit.
fn ghost_bytes(w: [f64; 3], per: f64) -> u64 {
    ghost_volumes(w).iter().map(|&v| 2 * round(v * per)).sum()
}

#[test]
fn pppm_grid_is_lammps_own() {
    // One replica is LAMMPS's rhodopsin benchmark (32,000 atoms), whose
    // log reports the PPPM grid 25 32 32 for this accuracy.
    let mut l = swm_file(8, 1);
    l.replicas = [1, 1, 1];
    assert_eq!(l.geometry().unwrap().grid, [25, 32, 32]);
    // SWM's files: 3 x 3 x 3 replicas. Each axis's points have no prime
    // factor but 2, 3, 5 (72 = 2^3 3^2, 96 = 2^5 3, 90 = 2 3^2 5) and are
    // at least one more than the box over 1/GEWALD (41, 57, 54).
    let g = swm_file(8, 1).geometry().unwrap();
    assert_eq!(g.grid, GRID.map(|x| x as i32));
    for d in 0..3 {
        assert!(GRID[d] as f64 > PRD[d] * 0.243177 + 1.0);
    }
}

#[test]
fn the_processor_grid_has_the_least_surface() {
    for (p, want) in [(8, [2, 2, 2]), (27, [3, 3, 3]), (64, [4, 4, 4]), (16, [2, 4, 2]), (2048, [8, 16, 16])] {
        let g = swm_file(p, 1).geometry().unwrap();
        assert_eq!(g.procs, want, "{p} ranks");
        // Every factorisation's surface per rank is at least the chosen one's.
        let surface =
            |f: [f64; 3]| PRD[0] * PRD[1] / f[0] / f[1] + PRD[0] * PRD[2] / f[0] / f[2] + PRD[1] * PRD[2] / f[1] / f[2];
        let best = surface(want.map(f64::from));
        for i in (1..=p).filter(|i| p % i == 0) {
            for j in (1..=p / i).filter(|j| (p / i) % j == 0) {
                assert!(surface([i, j, p / i / j].map(f64::from)) >= best, "{p}: {i} {j}");
            }
        }
    }
}

#[test]
fn swm_neighbour_checks_and_rebuilds() {
    // No check for 5 steps after the start or a rebuild; each check adds
    // 0.196428571429: five checks make 0.982, the sixth 1.179 > 1 (a
    // rebuild, leaving 0.179); then 0.375, 0.571, 0.768, 0.964, 1.161.
    use Check::*;
    let ten = [[None; 5], [Keep; 5]].concat();
    assert_eq!(swm_file(8, 10).checks(), ten);
    let thirty = [&ten[..], &[Rebuild], &[None; 5], &[Keep; 4], &[Rebuild], &[None; 5], &[Keep; 4]].concat();
    assert_eq!(swm_file(8, 30).checks(), thirty);
}

/// SWM's files on `p` = `procs` ranks (the PPPM grid divisible by them):
/// every rank's point-to-point messages and bytes, and all ranks'
/// all-reduce messages, over `timesteps`.
fn check_counts(p: usize, procs: [usize; 3], fft: (usize, usize), bif: (usize, usize), timesteps: u32) {
    let w = swm_file(p as u32, timesteps).workload().unwrap();
    assert_matched(&w);
    let (want, allreduces) = definition(p, procs, fft, bif, timesteps);
    let c = counts(&w);
    for (r, got) in c.iter().enumerate() {
        assert_eq!((got.0, got.1), want[r], "rank {r} of {p}, {timesteps} steps");
    }
    assert_eq!(c.iter().map(|c| c.2).sum::<u64>(), allreduces * allreduce_folded_messages(p as u32));
}

/// The definition's counts for SWM's files on `p` = `procs` ranks over
/// `timesteps` (10 or 30): per rank (point-to-point messages, bytes), and
/// the all-reduces.
pub(super) fn definition(
    p: usize,
    procs: [usize; 3],
    fft: (usize, usize),
    bif: (usize, usize),
    timesteps: u32,
) -> (Vec<(u64, u64)>, u64) {
    let lay = layouts(p, procs, fft, bif);
    let own = [0, 1, 2, 3].map(|k| owners(&lay[k]));
    let wd = [0, 1, 2].map(|d| PRD[d] / procs[d] as f64);
    // The schedule above: 10 steps check from the 6th; 30 rebuild twice.
    let (checks, rebuilds) = if timesteps == 10 { (5, 0) } else { (15, 2) };
    // The PPPM stencil: along each axis 2 planes one way and 3 the other,
    // across a face of the brick's points grown by 5 on the axes before.
    let n = [0, 1, 2].map(|d| {
        assert_eq!(GRID[d] % procs[d], 0);
        (GRID[d] / procs[d]) as u64
    });
    let faces = (n[0] + 5) * (n[1] + 5) + (n[0] + 5) * n[2] + n[1] * n[2];
    let ghost = 3 * 6;
    let ghost_b = ghost_bytes(wd, 2.48839990371) + 2 * ghost_bytes(wd, 2.48841071356);
    // A rebuild's atom exchange: per axis a handshake of 4 bytes and the
    // atoms each way, or once where both neighbours are one rank; then the
    // borders: the ghost steps, each after a handshake.
    let mut rebuild = (12, ghost_volumes(wd).iter().map(|&v| 2 * (4 + round(v * 6.63563071593))).sum::<u64>());
    let atoms = [wd[1].trunc() * wd[2], wd[0].trunc() * wd[2], wd[0].trunc() * wd[1]];
    for d in 0..3 {
        let m = if procs[d] > 2 { 2 } else { 1 };
        rebuild.0 += 2 * m;
        rebuild.1 += m * (4 + round(atoms[d].trunc() * 3.08673789851));
    }
    let mut per_rank = vec![];
    for r in 0..p {
        let fft: Vec<(u64, u64)> = fft_counts(&lay, &own, r);
        let fft = fft.iter().fold((0, 0), |a, t| (a.0 + t.0, a.1 + t.1));
        let step = (ghost + 12 + fft.0, ghost_b + 8 * 5 * faces + 24 * 5 * faces + fft.1);
        let fw = (6, ghost_bytes(wd, 2.48839990371));
        let t = timesteps as u64;
        let msgs = t * step.0 + rebuilds * (rebuild.0 - fw.0);
        let bytes = t * step.1 + rebuilds * (rebuild.1 - fw.1);
        per_rank.push((msgs, bytes));
    }
    // All-reduces: 5 a step, one per check, 5 per rebuild.
    (per_rank, 5 * timesteps as u64 + checks + 5 * rebuilds)
}

#[test]
fn swm_files_on_8_ranks_send_their_definition() {
    // 2 x 2 x 2: each neighbour is both the + and the − one. Pencils 1 x 8
    // (90 z planes, more than the ranks); the middles 2 x 4 (8 = 2 x 4, 2
    // the largest factor up to its square root).
    check_counts(8, [2, 2, 2], (1, 8), (2, 4), 10);
    check_counts(8, [2, 2, 2], (1, 8), (2, 4), 30);
}

#[test]
fn swm_files_on_27_ranks_send_their_definition() {
    // 3 x 3 x 3; pencils 1 x 27; the middles 3 x 9. MPICH's all-reduce on
    // 27 ranks folds 11 pairs.
    check_counts(27, [3, 3, 3], (1, 27), (3, 9), 10);
    check_counts(27, [3, 3, 3], (1, 27), (3, 9), 30);
}

#[test]
fn swm_files_on_their_2048_ranks_plan_their_definition() {
    // 8 x 16 x 16 ranks. Pencils: 90 z planes < 2048 ranks, so SWM's
    // best_2d_mapping over the 96 x 90 y-z plane: 32 x 64 (boxes 3 x 2)
    // and 64 x 32 (2 x 3) tie on perimeter and area, the first kept.
    // Middles: 2048 = 32 x 64 (√2048 = 45.3, 32 the largest factor below).
    let l = swm_file(2048, 10);
    let g = l.geometry().unwrap();
    let lay = layouts(2048, [8, 16, 16], (32, 64), (32, 64));
    let own = [0, 1, 2, 3].map(|k| owners(&lay[k]));
    let wd = [0, 1, 2].map(|d| PRD[d] / [8.0, 16.0, 16.0][d]);
    for r in [0, 1, 777, 1000, 2047] {
        let plan = g.plan(&l, r as u32).unwrap();
        let fft: Vec<(u64, u64)> =
            plan.fft.iter().map(|t| (t.to.len() as u64, t.to.iter().map(|x| x.1 as u64).sum())).collect();
        assert_eq!(fft, fft_counts(&lay, &own, r), "rank {r}");
        assert!(plan.fft.iter().all(|t| t.from.len() == t.to.len()));
        let fw: u64 = plan.ghost_fw.iter().map(|s| s.bytes as u64).sum();
        assert_eq!(fw, ghost_bytes(wd, 2.48839990371), "rank {r}");
        // The stencil exchanges go to the 6 neighbours, each axis both ways.
        let nb = g.neighbours(r as u32);
        let pre: Vec<(u32, u32)> = plan.k_pre.iter().map(|s| (s.from, s.to)).collect();
        let z = [(nb[4], nb[5]), (nb[5], nb[4]), (nb[2], nb[3]), (nb[3], nb[2]), (nb[0], nb[1]), (nb[1], nb[0])];
        assert_eq!(pre, z);
        assert_eq!(plan.k_post.len(), 6);
    }
}

#[test]
fn compute_follows_swm_model() {
    // Without SWM's speedup, the step's first compute: (t_vol 8.519 +
    // 1544.5) instructions at 0.8431 cycles each, scaled by router over
    // CPU frequency, then at 4 GHz.
    let mut l = swm_file(8, 1);
    l.speedup = 1.0;
    let t_vol = PRD[0] * PRD[1] * PRD[2] / 8.0;
    let cycles = ((t_vol * 8.51937488057 + 1544.46231029) * 0.843141163755 * 0.2 + 0.5).trunc();
    let w = l.workload().unwrap();
    match w.ops[0][0].kind {
        Kind::Compute(ns) => assert!((ns - cycles / 4.0).abs() < 1e-6, "{ns} vs {}", cycles / 4.0),
        k => panic!("{k:?}"),
    }
}

#[test]
fn lammps_refuses_what_swm_asserts_against() {
    let err = |l: Lammps| l.workload().unwrap_err();
    assert!(err(swm_file(36, 1)).contains("FFT transpose"), "{}", err(swm_file(36, 1)));
    let mut l = swm_file(41, 1);
    l.replicas = [1, 1, 1];
    assert!(err(l).contains("slabs of 1.88"));
    let mut l = swm_file(8, 1);
    l.replicas = [3, 0, 3];
    assert!(err(l).contains("replicas"));
    let mut l = swm_file(8, 1);
    l.cpu_hz = 0.0;
    assert!(err(l).contains("cpu_freq"));
}
