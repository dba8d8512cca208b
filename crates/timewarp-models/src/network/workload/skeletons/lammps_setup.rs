//! What SWM's LAMMPS skeleton (`swm/src/lammps/lammps.cpp`) computes
//! before its first timestep: the processor grid, the PPPM grid, each
//! rank's exchanges (ghost, k-space, neighbour) and FFT transposes, and
//! the compute cycles of its model (`lammps_model.h`). Every quantity is
//! computed as SWM computes it, in the same floating-point order and with
//! C's truncating conversions, so that the same parameters give the same
//! messages; what SWM asserts against is refused.

/// LAMMPS's parameters (the skeleton JSON's `jobs.size` and `jobs.cfg`),
/// what the setup is computed from (its timestep and checks: lammps.rs).
#[derive(Clone, Debug, PartialEq)]
pub struct Lammps {
    /// Ranks (`jobs.size`).
    pub ranks: u32,
    /// `num_x_replicas`, `num_y_replicas`, `num_z_replicas`.
    pub replicas: [u32; 3],
    /// `num_time_steps`.
    pub timesteps: u32,
    /// `router_freq` in Hz.
    pub router_hz: f64,
    /// `cpu_freq` in Hz (SWM's model, and CODES's cycles to time).
    pub cpu_hz: f64,
    /// `cpu_sim_speedup`.
    pub speedup: f64,
}

/// Ghost atoms' skin cutoff (`GHOST_SKIN_CUTOFF`) and the PPPM stencil's (`FFT_SKIN_CUTOFF`).
const GHOST_CUTOFF: f64 = 12.0;
const FFT_CUTOFF: f64 = 2.0;
/// Atoms of one replica of the base box (`N_ATOMS_BASE`).
const ATOMS_BASE: u64 = 32_000;
/// The base box's extent along each axis (`XHI_BASE − XLO_BASE`, ...).
const BASE: [f64; 3] = [27.5 - -27.5, 38.5 - -38.5, 36.3615 - -36.3646];
/// The Ewald coefficient and the accuracy SWM sizes the PPPM grid for.
const GEWALD: f64 = 0.243177;
const FFT_ACCURACY: f64 = 0.033206;

/// SWM's model (`lammps_model.h`, fitted by SWM's authors): bytes per unit
/// of exchanged volume, and per phase the instructions `a · volume + b`
/// and cycles per instruction.
mod model {
    pub(super) const MSG_GHOST_FW: f64 = 2.48839990371;
    pub(super) const MSG_GHOST_RW: f64 = 2.48841071356;
    pub(super) const MSG_K_PRE: f64 = 8.0;
    pub(super) const MSG_K_POST: f64 = 24.0;
    pub(super) const MSG_FIX: f64 = 2.48841071356;
    pub(super) const MSG_NEIGH_EXCH: f64 = 3.08673789851;
    pub(super) const MSG_NEIGH_BORDER: f64 = 6.63563071593;
    pub(super) const START: (f64, f64, f64) = (8.51937488057, 1544.46231029, 0.843141163755);
    pub(super) const NEIGH_CHECK: (f64, f64, f64) = (89.6202085326, 195042.694781, 0.951841661097);
    pub(super) const NEIGH_EXCH_A: [f64; 3] = [11.5746361748, 1.3778877165, 1.34223584427];
    pub(super) const NEIGH_EXCH_B: [f64; 3] = [438096.47233, 4800.95420873, 8838.30958016];
    pub(super) const NEIGH_EXCH_CPI: f64 = 1.58963777201;
    pub(super) const NEIGH_BORDER_A: [f64; 6] =
        [1.8243979135, 2.03810250649, 3.06679631198, 3.0870981696, 3.58608401984, 2.7521157202];
    pub(super) const NEIGH_BORDER_B: [f64; 6] =
        [32382.7816726, 51218.9714454, 83557.2150064, 99920.5231836, 248049.508775, 357653.369027];
    pub(super) const NEIGH_BORDER_CPI: f64 = 1.75604132297;
    pub(super) const NEIGH_END_A: [f64; 5] =
        [1.21665755465, 6595.30712353, 29.6655250587, 58.3229990241, 1.69059035676];
    pub(super) const NEIGH_END_B: [f64; 5] =
        [139153.690154, 11183101.9944, 44150.0262654, 91071.0968296, 2057.50606924];
    pub(super) const NEIGH_END_CPI: f64 = 0.784053776222;
    pub(super) const K_PRE_A: [f64; 6] =
        [43360.7612799, 0.780443563075, 0.999500801383, 1.23253340415, 1.11044737418, 0.813347233046];
    pub(super) const K_PRE_B: [f64; 6] =
        [-8151826.36712, 12652.2538632, 10478.6380748, 5362.54935036, 4946.43943567, 2809.82745824];
    pub(super) const K_PRE_CPI: f64 = 0.897392796161;
    pub(super) const K_FFT_A: [f64; 13] = [
        12.7660165971,
        49.5132610315,
        36.7957959,
        48.6517835605,
        102.611869648,
        36.7771213175,
        48.6352484315,
        71.1465535394,
        36.7760281598,
        48.624983362,
        71.1461101858,
        36.7661712493,
        48.6196591605,
    ];
    pub(super) const K_FFT_B: [f64; 13] = [
        2755.32405875,
        -14031.7206559,
        -268.944769389,
        -34509.6094468,
        -15768.811004,
        468.975498509,
        -34540.223738,
        -23736.2087919,
        -119.26574367,
        -34526.5937504,
        -23716.4687588,
        130.351010748,
        -34514.7315393,
    ];
    pub(super) const K_FFT_CPI: f64 = 0.700575655531;
    pub(super) const K_POST_A: [f64; 6] =
        [15.7888010275, 1.98489719387, 2.63496119567, 3.00664450319, 2.41731560611, 1.9085386988];
    pub(super) const K_POST_B: [f64; 6] =
        [390.234582372, 6358.92071557, 11170.1400931, 12661.0465342, 24102.3020575, 30456.6591775];
    pub(super) const K_POST_CPI: f64 = 1.72457235374;
    pub(super) const K_ENERGY: (f64, f64, f64) = (5476.95439615, -1073884.00556, 0.475585305054);
    pub(super) const GHOST_FW_A: [f64; 6] =
        [43.2730897193, 0.0, 9.23745386168e-09, 2.35234627328e-08, 2.00592476871e-08, 1.33019109126e-07];
    pub(super) const GHOST_FW_B: [f64; 6] =
        [96380.315439, 313.368687371, 313.346132312, 313.327974814, 313.346666244, 313.3420572];
    pub(super) const GHOST_FW_CPI: f64 = 0.924608655408;
    pub(super) const GHOST_RW_A: [f64; 6] =
        [0.0, 0.31849027582, 0.316224042474, 0.513934022608, 0.501449013036, 0.298131697301];
    pub(super) const GHOST_RW_B: [f64; 6] =
        [566.574947244, 81855.4482201, 82072.2144336, 18124.8399648, 22463.1938402, 12639.7445334];
    pub(super) const GHOST_RW_CPI: f64 = 1.91339519762;
    pub(super) const FIX_A: [f64; 6] =
        [6.31029520441, 0.519042043438, 0.699422916624, 0.862615710189, 0.708782029108, 0.552896821411];
    pub(super) const FIX_B: [f64; 6] =
        [25475.6674291, 22357.989938, 30827.99377, 38715.8802264, 89865.0435751, 140845.450888];
    pub(super) const FIX_CPI: f64 = 1.96053897728;
    pub(super) const FINAL: (f64, f64, f64) = (43.3348975221, 141841.44285, 1.56863134534);
    /// The share of checks that find the neighbour lists stale.
    pub(in super::super) const NEIGH_CHECK_AVG: f64 = 0.196428571429;
}
pub(super) use model::NEIGH_CHECK_AVG;

/// One step of a point-to-point phase: an irecv from `from`, a blocking
/// send of `bytes` to `to`, a wait, after `cycles` of compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exchange {
    /// Rank received from.
    pub from: u32,
    /// Rank sent to.
    pub to: u32,
    /// Bytes sent.
    pub bytes: u32,
    /// Compute before the step, in CPU cycles.
    pub cycles: i64,
}

/// One FFT transpose: `cycles` of compute, an irecv from each of `from`,
/// an isend to each of `to`, a wait for all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transpose {
    /// Compute before it, in CPU cycles.
    pub cycles: i64,
    /// Ranks received from, in posting order.
    pub from: Vec<u32>,
    /// (rank, bytes) sent, in posting order.
    pub to: Vec<(u32, u32)>,
}

/// One rank's exchanges, as SWM's `modelInit` sets them up.
#[derive(Clone, Debug, PartialEq)]
pub struct RankPlan {
    /// Ghost forward communication (steps without a neighbour rebuild).
    pub ghost_fw: Vec<Exchange>,
    /// Ghost reverse communication.
    pub ghost_rw: Vec<Exchange>,
    /// The fix's ghost exchange.
    pub fix: Vec<Exchange>,
    /// Neighbour rebuild: the atom exchange (a step of 0 cycles is the
    /// second direction of a dimension, sent without its handshake).
    pub neigh_exch: Vec<Exchange>,
    /// Neighbour rebuild: the borders.
    pub neigh_border: Vec<Exchange>,
    /// PPPM's stencil exchange before the FFTs and after.
    pub k_pre: Vec<Exchange>,
    /// See [`k_pre`](Self::k_pre).
    pub k_post: Vec<Exchange>,
    /// The 13 transposes of the FFTs.
    pub fft: Vec<Transpose>,
    /// Compute cycles of the phases without messages of their own:
    /// start, neighbour check, the 5 rebuild all-reduces, k-space energy, final.
    pub start: i64,
    /// See [`start`](Self::start).
    pub neigh_check: i64,
    /// See [`start`](Self::start).
    pub neigh_end: [i64; 5],
    /// See [`start`](Self::start).
    pub k_energy: i64,
    /// See [`start`](Self::start).
    pub final_: i64,
}

/// The decomposition shared by all ranks.
#[derive(Clone, Debug, PartialEq)]
pub struct Geometry {
    /// Processors along x, y, z (`procNums`).
    pub procs: [i32; 3],
    /// The box's extent (`prd`).
    pub prd: [f64; 3],
    /// PPPM grid points along x, y, z (`pppmGrid`).
    pub grid: [i32; 3],
    /// A rank's volume of the box, and of the PPPM grid.
    pub t_vol: f64,
    /// See [`t_vol`](Self::t_vol).
    pub f_vol: f64,
    ranks: u32,
    /// Per rank its brick in each FFT layout: in (the processor grid's),
    /// fft (y-z pencils), mid1 and mid2 (SWM's two middle layouts).
    bricks: [Vec<[i32; 6]>; 4],
}

/// A transpose's ranks received from, and ranks sent to with their points.
type Overlaps = (Vec<u32>, Vec<(u32, i64)>);

/// `(int)` of C: truncation toward zero.
fn int(x: f64) -> i32 {
    x as i32
}

/// SWM's `round(x, 10)`.
fn round10(x: f64) -> f64 {
    (x * 1e10 + 0.5).floor() / 1e10
}

/// The processor grid of least surface per rank (SWM's `proc_decomposition`:
/// the first best of i, j, n/i/j, i and j the divisors in increasing order).
fn proc_grid(n: i32, prd: [f64; 3]) -> [i32; 3] {
    let area = [prd[0] * prd[1], prd[0] * prd[2], prd[1] * prd[2]];
    let mut best = 2.0 * (area[0] + area[1] + area[2]);
    let mut procs = [0; 3];
    for i in (1..=n).filter(|i| n % i == 0) {
        for j in (1..=n / i).filter(|j| (n / i) % j == 0) {
            let k = n / i / j;
            let (fi, fj, fk) = (i as f64, j as f64, k as f64);
            let surface = area[0] / fi / fj + area[1] / fi / fk + area[2] / fj / fk;
            if surface < best {
                best = surface;
                procs = [i, j, k];
            }
        }
    }
    procs
}

/// SWM's `pppm_estimate_ik_error` for spacing `h` along an axis of extent `p`.
fn ik_error(h: f64, p: f64, atoms: i32, prd: [f64; 3]) -> f64 {
    let acons =
        [1.0 / 23232.0, 7601.0 / 13628160.0, 143.0 / 69120.0, 517231.0 / 106536960.0, 106640677.0 / 11737571328.0];
    let n = atoms as f64;
    let q2 = 19.426017 * (n * prd[0] * prd[1] * prd[2]).sqrt();
    let mut sum = 0.0;
    for (i, a) in acons.iter().enumerate() {
        sum += a * (h * GEWALD).powf(2.0 * i as f64);
    }
    q2 * (h * GEWALD).powf(5.0) * (GEWALD * p * (2.0 * std::f64::consts::PI).sqrt() * sum / n).sqrt() / (p * p)
}

/// Whether `n` has no prime factor but 2, 3 and 5.
fn factorable(mut n: i32) -> bool {
    while n > 1 {
        match [2, 3, 5].iter().find(|&&f| n % f == 0) {
            Some(f) => n /= f,
            None => return false,
        }
    }
    true
}

/// The PPPM grid (SWM's `pppm_decomposition`): per axis, from a spacing of
/// `1 / GEWALD`, one point more until the error estimate (of the spacing
/// before the step, as SWM's loop has it) is within the accuracy; then up
/// to the next size with factors 2, 3 and 5 only.
fn pppm_grid(atoms: i32, prd: [f64; 3]) -> [i32; 3] {
    let mut h = [1.0 / GEWALD; 3];
    let mut g = [0.0f64; 3];
    for i in 0..3 {
        g[i] = (int(prd[i] / h[i]) + 1) as f64;
    }
    for i in 0..3 {
        let mut err = ik_error(h[i], prd[i], atoms, prd);
        while err > FFT_ACCURACY {
            err = ik_error(h[i], prd[i], atoms, prd);
            g[i] += 1.0;
            h[i] = prd[i] / g[i];
        }
    }
    g.map(|mut x| {
        while !factorable(x as i32) {
            x += 1.0;
        }
        x as i32
    })
}

/// SWM's `best_2d_mapping`: `p` ranks as `px × py` over an `nx × ny` plane,
/// least box perimeter first, then largest box.
fn best_2d(p: i32, nx: i32, ny: i32) -> (i32, i32) {
    let (mut best_surf, mut best_box) = (2 * (nx + ny), 0);
    let mut out = (1, p);
    for ipx in (1..=p).filter(|i| p % i == 0) {
        let ipy = p / ipx;
        let (bx, by) = ((nx + ipx - 1) / ipx, (ny + ipy - 1) / ipy);
        if bx + by < best_surf || (bx + by == best_surf && bx * by > best_box) {
            (best_surf, best_box) = (bx + by, bx * by);
            out = (ipx, ipy);
        }
    }
    out
}

/// SWM's `bifactor`: `n = f1 × f2` with `f1` the largest factor ≤ √n.
fn bifactor(n: i32) -> (i32, i32) {
    let mut f1 = (n as f64).sqrt() as i32;
    while f1 > 0 {
        if f1 * (n / f1) == n {
            return (f1, n / f1);
        }
        f1 -= 1;
    }
    (1, n)
}

/// The overlap of two bricks (`[lo, hi]` per axis), in grid points.
fn overlap(a: &[i32; 6], b: &[i32; 6]) -> Option<i64> {
    let mut cells = 1i64;
    for d in 0..3 {
        let (lo, hi) = (a[2 * d].max(b[2 * d]), a[2 * d + 1].min(b[2 * d + 1]));
        if lo > hi {
            return None;
        }
        cells *= (hi - lo + 1) as i64;
    }
    Some(cells)
}

impl Geometry {
    /// The decomposition of `l`'s box; refuses what SWM would assert against.
    pub fn new(l: &Lammps) -> Result<Geometry, String> {
        let n = i32::try_from(l.ranks).map_err(|_| format!("lammps: jobs.size {} is too large", l.ranks))?;
        let atoms = l.replicas.iter().try_fold(ATOMS_BASE, |a, &r| a.checked_mul(r as u64));
        let atoms = atoms.and_then(|a| i32::try_from(a).ok()).ok_or_else(|| {
            format!("lammps: {:?} replicas of {ATOMS_BASE} atoms overflow SWM's int; give fewer", l.replicas)
        })?;
        let prd = [0, 1, 2].map(|i| l.replicas[i] as f64 * BASE[i]);
        let procs = proc_grid(n, prd);
        let grid = pppm_grid(atoms, prd);
        for d in 0..3 {
            if int(FFT_CUTOFF / (prd[d] / procs[d] as f64) + 1.0) != 1 {
                return Err(format!(
                    "lammps: {n} ranks cut axis {d} of the {:.1} box into {} slabs of {:.2}, not wider than the \
                     PPPM stencil's {FFT_CUTOFF} (SWM asserts it); give fewer ranks or more replicas",
                    prd[d],
                    procs[d],
                    prd[d] / procs[d] as f64
                ));
            }
        }
        let (p, g) = (procs.map(f64::from), grid.map(f64::from));
        let t_vol = prd[0] / p[0] * prd[1] / p[1] * prd[2] / p[2];
        let f_vol = g[0] / p[0] * g[1] / p[1] * g[2] / p[2];
        let mut geo = Geometry { procs, prd, grid, t_vol, f_vol, ranks: l.ranks, bricks: Default::default() };
        let (py, pz) = if g[2] > n as f64 { (1, n) } else { best_2d(n, grid[1], grid[2]) };
        let (f1, f2) = bifactor(n);
        for r in 0..n {
            let c = geo.coords(r as u32);
            let mut inb = [0; 6];
            for d in 0..3 {
                inb[2 * d] = int(c[d] as f64 / p[d] * g[d]);
                inb[2 * d + 1] = int((c[d] + 1) as f64 / p[d] * g[d]) - 1;
            }
            let (my, mz) = (r % py, r / py);
            let fft = [
                0,
                grid[0] - 1,
                int(my as f64 * g[1] / py as f64),
                int((my + 1) as f64 * g[1] / py as f64 - 1.0),
                int(mz as f64 * g[2] / pz as f64),
                int((mz + 1) as f64 * g[2] / pz as f64 - 1.0),
            ];
            let (i1, i2) = (r % f1, r / f1);
            let x = [i1 * grid[0] / f1, (i1 + 1) * grid[0] / f1 - 1];
            let mid1 = [x[0], x[1], 0, grid[1] - 1, i2 * grid[2] / f2, (i2 + 1) * grid[2] / f2 - 1];
            let mid2 = [x[0], x[1], i2 * grid[1] / f2, (i2 + 1) * grid[1] / f2 - 1, 0, grid[2] - 1];
            for (k, b) in [inb, fft, mid1, mid2].into_iter().enumerate() {
                geo.bricks[k].push(b);
            }
        }
        Ok(geo)
    }

    /// Rank `r`'s place on the processor grid (z fastest, as SWM's `rank_to_xyz`).
    pub fn coords(&self, r: u32) -> [i32; 3] {
        let [p0, p1, p2] = self.procs;
        let r = r as i32;
        [r / p2 / p1 % p0, r / p2 % p1, r % p2]
    }

    /// Rank `r`'s neighbours: +x, −x, +y, −y, +z, −z (periodic).
    pub fn neighbours(&self, r: u32) -> [u32; 6] {
        let c = self.coords(r);
        let p = self.procs;
        let rank = |c: [i32; 3]| {
            let m = [0, 1, 2].map(|d| c[d].rem_euclid(p[d]));
            (m[0] * p[1] * p[2] + m[1] * p[2] + m[2]) as u32
        };
        let at = |d: usize, s: i32| {
            let mut t = c;
            t[d] += s;
            rank(t)
        };
        [at(0, 1), at(0, -1), at(1, 1), at(1, -1), at(2, 1), at(2, -1)]
    }

    /// `instructions · cpi` in router cycles at CPU speed, as SWM converts
    /// them (`router_freq / cpu_freq / cpu_sim_speedup`, rounded, at least 0).
    fn cycles(l: &Lammps, instructions: f64, cpi: f64) -> i64 {
        ((instructions * cpi * l.router_hz / l.cpu_hz / l.speedup + 0.5) as i64).max(0)
    }

    /// Rank `r`'s exchanges and compute; refuses what SWM asserts against.
    pub fn plan(&self, l: &Lammps, r: u32) -> Result<RankPlan, String> {
        use model::*;
        let cyc = |instructions: f64, cpi: f64| Self::cycles(l, instructions, cpi);
        let (t, f) = (self.t_vol, self.f_vol);
        let (ghost_fw, ghost_rw, fix, neigh_border) = self.ghost(l, r)?;
        let mut fft = Vec::with_capacity(13);
        // The layouts each transpose goes between (in, fft, mid1, mid2 = 0..3): one
        // FFT from the brick layout, then 3 back (SWM's get_k_params).
        let mut moves = vec![(0, 1), (1, 2), (2, 3), (3, 1)];
        for _ in 0..3 {
            moves.extend([(1, 2), (2, 3), (3, 0)]);
        }
        // Five distinct moves among the 13: each found once (a pass over all ranks).
        let mut found: Vec<((usize, usize), Overlaps)> = vec![];
        for (i, (a, b)) in moves.into_iter().enumerate() {
            let (from, to) = match found.iter().find(|m| m.0 == (a, b)) {
                Some(m) => m.1.clone(),
                None => {
                    let m = self.transpose(r, a, b);
                    found.push(((a, b), m.clone()));
                    m
                }
            };
            if from.len() != to.len() {
                return Err(format!(
                    "lammps: FFT transpose {i} of rank {r} receives from {} ranks but sends to {} (SWM asserts they \
                     agree); give another rank count",
                    from.len(),
                    to.len()
                ));
            }
            let elem = if i == 0 { 8 } else { 16 };
            let to = to
                .into_iter()
                .map(|(q, cells)| {
                    u32::try_from(elem * cells)
                        .map(|b| (q, b))
                        .map_err(|_| format!("lammps: an FFT message of {cells} points overflows"))
                })
                .collect::<Result<_, _>>()?;
            fft.push(Transpose { cycles: cyc(f * K_FFT_A[i] + K_FFT_B[i], K_FFT_CPI), from, to });
        }
        Ok(RankPlan {
            ghost_fw,
            ghost_rw,
            fix,
            neigh_border,
            neigh_exch: self.neigh_exch(l, r),
            k_pre: self.k_stencil(l, r, false)?,
            k_post: self.k_stencil(l, r, true)?,
            fft,
            start: cyc(t * START.0 + START.1, START.2),
            neigh_check: cyc(t * NEIGH_CHECK.0 + NEIGH_CHECK.1, NEIGH_CHECK.2),
            neigh_end: [0, 1, 2, 3, 4].map(|i| cyc(t * NEIGH_END_A[i] + NEIGH_END_B[i], NEIGH_END_CPI)),
            k_energy: cyc(f * K_ENERGY.0 + K_ENERGY.1, K_ENERGY.2),
            final_: cyc(t * FINAL.0 + FINAL.1, FINAL.2),
        })
    }

    /// SWM's `find_overlap` from layout `a` to layout `b`: going round the
    /// ranks from `r + 1`, those whose `b` brick meets `r`'s `a` brick are
    /// sent the overlap, those whose `a` brick meets `r`'s `b` brick are
    /// received from (`r` itself keeps its own part).
    fn transpose(&self, r: u32, a: usize, b: usize) -> Overlaps {
        let (p, r) = (self.ranks, r as usize);
        let (ins, outs) = (&self.bricks[a], &self.bricks[b]);
        let (mut from, mut to) = (vec![], vec![]);
        for i in 1..p as usize {
            let q = (r + i) % p as usize;
            if let Some(cells) = overlap(&ins[r], &outs[q]) {
                to.push((q as u32, cells));
            }
            if overlap(&ins[q], &outs[r]).is_some() {
                from.push(q as u32);
            }
        }
        (from, to)
    }

    /// SWM's `ghost_setup`: the forward ghost exchange (per axis as many
    /// swaps as the cutoff spans slabs, each a pair of steps: from +, to −,
    /// then from −, to +), the reverse one (the pairs in reverse order), the
    /// fix's and the rebuild's borders (the forward's), each with its bytes
    /// per unit volume and its cycles.
    #[allow(clippy::type_complexity)]
    fn ghost(
        &self,
        l: &Lammps,
        r: u32,
    ) -> Result<(Vec<Exchange>, Vec<Exchange>, Vec<Exchange>, Vec<Exchange>), String> {
        use model::*;
        let (c, prd) = (GHOST_CUTOFF, self.prd);
        let w = [0, 1, 2].map(|d| prd[d] / self.procs[d] as f64);
        let nc = w.map(|w| int(c / w + 1.0));
        let nb = self.neighbours(r);
        // (recv, send, raw volume, axis, side) per step of the forward exchange.
        let mut fw: Vec<(u32, u32, i32, usize, usize)> = vec![];
        // The face each axis's slab spans: the other two axes, the earlier ones grown by the cutoff.
        let faces = [(w[1], w[2]), (w[0] + 2.0 * c, w[2]), (w[0] + 2.0 * c, w[1] + 2.0 * c)];
        for d in 0..3 {
            let face = (faces[d].0 + 0.0 * c) * (faces[d].1 + 0.0 * c);
            let max_vol = face * c;
            let mut so_far = 0.0;
            for i in 0..nc[d] {
                let size = if i < nc[d] - 1 {
                    let s = int(face * prd[d] / self.procs[d] as f64);
                    so_far += s as f64;
                    s
                } else {
                    int(max_vol - so_far)
                };
                fw.push((nb[2 * d], nb[2 * d + 1], size, d, 0));
                fw.push((nb[2 * d + 1], nb[2 * d], size, d, 1));
            }
        }
        let scale = |raw: i32, msg: f64| -> Result<u32, String> {
            u32::try_from(int(raw as f64 * msg + 0.5))
                .map_err(|_| format!("lammps: a ghost message of volume {raw} has no size in bytes (SWM's int)"))
        };
        // SWM stores these instruction counts in a long before converting them.
        let long = |x: f64| x as i64 as f64;
        let cyc = |instructions: f64, cpi: f64| Self::cycles(l, instructions, cpi);
        let (t, mut out) = (self.t_vol, (vec![], vec![], vec![], vec![]));
        for &(from, to, raw, d, side) in &fw {
            let k = 2 * d + side;
            out.0.push(Exchange {
                from,
                to,
                bytes: scale(raw, MSG_GHOST_FW)?,
                cycles: cyc(long(t * GHOST_FW_A[k] + GHOST_FW_B[k]), GHOST_FW_CPI),
            });
            out.2.push(Exchange {
                from,
                to,
                bytes: scale(raw, MSG_FIX)?,
                cycles: cyc(long(t * FIX_A[k] + FIX_B[k]), FIX_CPI),
            });
            out.3.push(Exchange {
                from,
                to,
                bytes: scale(raw, MSG_NEIGH_BORDER)?,
                cycles: cyc(long(t * NEIGH_BORDER_A[k] + NEIGH_BORDER_B[k]), NEIGH_BORDER_CPI),
            });
        }
        for pair in fw.chunks(2).rev() {
            for &(from, to, raw, d, side) in pair {
                let k = 2 * d + side;
                let cycles = cyc(long(t * GHOST_RW_A[k] + GHOST_RW_B[k]), GHOST_RW_CPI);
                out.1.push(Exchange { from, to, bytes: scale(raw, MSG_GHOST_RW)?, cycles });
            }
        }
        Ok(out)
    }

    /// SWM's `neigh_e_setup`: per axis a step from +, to − (with the axis's
    /// cycles), and where the two neighbours differ one from −, to + (0 cycles).
    fn neigh_exch(&self, l: &Lammps, r: u32) -> Vec<Exchange> {
        use model::*;
        let nb = self.neighbours(r);
        let w = [0, 1, 2].map(|d| self.prd[d] / self.procs[d] as f64);
        let raw = [int(int(w[1]) as f64 * w[2]), int(int(w[0]) as f64 * w[2]), int(int(w[0]) as f64 * w[1])];
        let mut out = vec![];
        for d in 0..3 {
            let bytes = int(raw[d] as f64 * MSG_NEIGH_EXCH + 0.5).max(0) as u32;
            let cycles = Self::cycles(l, self.t_vol * NEIGH_EXCH_A[d] + NEIGH_EXCH_B[d], NEIGH_EXCH_CPI);
            out.push(Exchange { from: nb[2 * d], to: nb[2 * d + 1], bytes, cycles });
            if nb[2 * d] != nb[2 * d + 1] {
                out.push(Exchange { from: nb[2 * d + 1], to: nb[2 * d], bytes, cycles: 0 });
            }
        }
        out
    }

    /// SWM's `k_pre_setup` (`post` false: z, y, x, each from +, to − then
    /// from −, to +) and `k_post_setup` (`post`: x, y, z, from + to − first):
    /// the PPPM grid planes a rank's stencil shares with its neighbours.
    fn k_stencil(&self, l: &Lammps, r: u32, post: bool) -> Result<Vec<Exchange>, String> {
        use model::*;
        let (c, nb, prd, p) = (self.coords(r), self.neighbours(r), self.prd, self.procs);
        let g = self.grid.map(f64::from);
        let cut = FFT_CUTOFF / 2.0;
        let pos = |x: i32, d: usize| x as f64 * prd[d] / p[d] as f64;
        // The stencil's reach: grid points beyond the brick on both sides, + 2 each.
        let rs = [0, 1, 2].map(|d| {
            let hi_out = int((pos(c[d] + 1, d) + cut) * g[d] / prd[d] + 0.5);
            let hi_in = int(pos(c[d] + 1, d) * g[d] / prd[d]) - 1;
            let lo_out = int((pos(c[d], d) - cut) * g[d] / prd[d] + 0.5);
            let lo_in = int(pos(c[d], d) * g[d] / prd[d]);
            (lo_out - lo_in).abs() + 2 + (hi_out - hi_in).abs() + 2
        });
        // The brick's own grid points along each axis (as SWM counts them here).
        let own =
            [0, 1, 2].map(|d| int(g[d] / p[d] as f64 * (c[d] + 1) as f64) - int(g[d] / p[d] as f64 * c[d] as f64));
        // The planes sent across the upper and lower face of axis d.
        let planes = |d: usize, upper: i32, lower: i32| {
            let lo_out = int(round10((pos(upper, d) + cut) * g[d] / prd[d] + 0.5));
            let lo_in = int(round10(pos(upper, d) * g[d] / prd[d])) - 1;
            let hi_out = int(round10((pos(lower, d) - cut) * g[d] / prd[d] + 0.5));
            let hi_in = int(round10(pos(lower, d) * g[d] / prd[d]));
            ((lo_out - lo_in).abs() + 2, (hi_out - hi_in).abs() + 2)
        };
        // The face across which axis d's planes go: the axes before it with their reach.
        let face = |d: usize| -> i64 {
            (0..3).filter(|&e| e != d).map(|e| (own[e] + if e < d { rs[e] } else { 0 }) as i64).product()
        };
        let refuse = |d: usize, n: i32| {
            format!(
                "lammps: rank {r}'s PPPM stencil spans {n} grid planes along axis {d}, more than its share of the \
                 {} planes (SWM asserts it); give fewer ranks or more replicas",
                self.grid[d]
            )
        };
        let mut sizes: Vec<(usize, i64)> = vec![];
        let axes: [usize; 3] = if post { [0, 1, 2] } else { [2, 1, 0] };
        for d in axes {
            if post {
                let (lo, hi) = planes(d, (c[d] - 1) % p[d] + 1, (c[d] + 1) % p[d]);
                for n in [hi, lo] {
                    if n as f64 > g[d] / p[d] as f64 {
                        return Err(refuse(d, n));
                    }
                }
                sizes.extend([(d, lo as i64 * face(d)), (d, hi as i64 * face(d))]);
            } else {
                let (lo, hi) = planes(d, c[d] + 1, c[d]);
                for n in [hi, lo] {
                    if n > self.grid[d] / p[d] {
                        return Err(refuse(d, n));
                    }
                }
                sizes.extend([(d, hi as i64 * face(d)), (d, lo as i64 * face(d))]);
            }
        }
        let (msg, a, b, cpi) =
            if post { (MSG_K_POST, K_POST_A, K_POST_B, K_POST_CPI) } else { (MSG_K_PRE, K_PRE_A, K_PRE_B, K_PRE_CPI) };
        let mut out = vec![];
        for (i, &(d, raw)) in sizes.iter().enumerate() {
            let raw = i32::try_from(raw).map_err(|_| format!("lammps: a k-space message of {raw} points overflows"))?;
            let bytes = u32::try_from(int(raw as f64 * msg + 0.5))
                .map_err(|_| format!("lammps: a k-space message of {raw} points overflows"))?;
            // From +, to − first along each axis.
            let (from, to) = if i % 2 == 0 { (nb[2 * d], nb[2 * d + 1]) } else { (nb[2 * d + 1], nb[2 * d]) };
            out.push(Exchange { from, to, bytes, cycles: Self::cycles(l, self.f_vol * a[i] + b[i], cpi) });
        }
        Ok(out)
    }
}
