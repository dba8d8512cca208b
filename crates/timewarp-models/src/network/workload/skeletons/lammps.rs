//! SWM's LAMMPS skeleton (`swm/src/lammps/lammps.cpp` in SWM-workloads,
//! CODES's `lammps` and `lammps1`): a rhodopsin-like box of
//! `num_x_replicas × num_y_replicas × num_z_replicas` copies of a
//! 32,000-atom block, split over the ranks on the processor grid of least
//! surface (z fastest), with a PPPM long-range solver whose grid SWM sizes
//! from an error estimate. lammps_setup.rs computes the exchanges as SWM
//! does; the messages are all tag 0 and every compute is cycles of SWM's
//! model at `cpu_freq`.
//!
//! One timestep, per rank:
//! 1. compute; all-reduces of 48 and 48 bytes (temperature, pressure);
//! 2. the neighbour check (from the 6th step after a rebuild: compute, an
//!    all-reduce of 4 bytes; every check adds 0.196428571429 to a sum, and
//!    a sum above 1 is a rebuild, the sum less 1 and the count restarted);
//! 3. a rebuild: per axis a handshake (a sendrecv of 4 bytes each way,
//!    or one where both neighbours are one rank) and the atoms to −
//!    (from +), then to + (from −); the borders (the forward ghost steps'
//!    sendrecv of 4 bytes, then its volume at the border's bytes per unit);
//!    5 × (compute, all-reduce of 4 bytes). Otherwise the forward ghost
//!    exchange: per axis per swap a step to − (from +) and one to +
//!    (from −), each an irecv, a blocking send and a wait after compute;
//! 4. the PPPM stencil exchange (6 steps: z, y, x);
//! 5. 13 FFT transposes (brick → pencils → two middle layouts → pencils,
//!    then three times pencils → middles → bricks), each compute, an irecv
//!    from every rank whose layout meets this one's, an isend of the
//!    overlap (8 bytes a point for the first, 16 after) to every rank its
//!    layout meets, a wait for all;
//! 6. the stencil exchange back (6 steps: x, y, z); compute; an
//!    all-reduce of 48 bytes (energy);
//! 7. the reverse ghost exchange (the forward steps' pairs in reverse
//!    order); the fix's ghost exchange (the forward steps);
//! 8. compute; all-reduces of 8 and 48 bytes.
//!
//! CODES turns a compute of `c` cycles into `c / cpu_freq` seconds; SWM's
//! model divides its instruction counts by `cpu_sim_speedup` first (1e6 in
//! SWM's files, which makes them a few cycles at most).

use super::super::{Builder, Kind, Workload};
use super::lammps_setup::{Exchange, Geometry, Lammps, RankPlan, NEIGH_CHECK_AVG};

/// What a timestep's neighbour check does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// No check (within 5 steps of a rebuild).
    None,
    /// A check (compute and an all-reduce) that keeps the lists.
    Keep,
    /// A check that finds them stale: a rebuild.
    Rebuild,
}

impl Lammps {
    /// The decomposition; refuses parameters SWM cannot run.
    pub fn geometry(&self) -> Result<Geometry, String> {
        if self.ranks == 0 || self.replicas.contains(&0) {
            return Err(format!("lammps: jobs.size {} and replicas {:?} must be 1 or more", self.ranks, self.replicas));
        }
        for (key, v) in [("router_freq", self.router_hz), ("cpu_freq", self.cpu_hz), ("cpu_sim_speedup", self.speedup)]
        {
            if !(v.is_finite() && v > 0.0) {
                return Err(format!("lammps: jobs.cfg.{key} must be a positive number, got {v}"));
            }
        }
        Geometry::new(self)
    }

    /// Every timestep's neighbour check, as SWM's `neigh_check` counts.
    pub fn checks(&self) -> Vec<Check> {
        let (mut count, mut sum) = (0u32, 0.0f64);
        (0..self.timesteps)
            .map(|_| {
                if count < 5 {
                    count += 1;
                    return Check::None;
                }
                sum += NEIGH_CHECK_AVG;
                if sum > 1.0 {
                    sum -= 1.0;
                    count = 0;
                    return Check::Rebuild;
                }
                count += 1;
                Check::Keep
            })
            .collect()
    }

    /// A compute of `cycles` in ns, as CODES's `SWM_Compute` converts it.
    fn ns(&self, cycles: i64) -> f64 {
        let ghz = self.cpu_hz / 1e9;
        cycles as f64 / (ghz * 1e9) * 1e9
    }

    /// The rank programs.
    pub fn workload(&self) -> Result<Workload, String> {
        let geo = self.geometry()?;
        let checks = self.checks();
        let mut b = Builder::new(self.ranks);
        for r in 0..self.ranks {
            let plan = geo.plan(self, r)?;
            for &check in &checks {
                self.timestep(&mut b, r, &plan, check, false);
            }
        }
        let [x, y, z] = geo.procs;
        let [gx, gy, gz] = geo.grid;
        Ok(b.finish(format!(
            "lammps on {} ranks ({x}x{y}x{z}; PPPM grid {gx}x{gy}x{gz}, {} steps)",
            self.ranks, self.timesteps
        )))
    }

    /// One timestep of rank `r`. `fft_blocking`: the transposes' sends are
    /// `SWM_Send`s (the periodic aggressor's copy of LAMMPS) rather than
    /// `SWM_Isend`s waited for with the receives (`lammps.cpp`).
    pub(super) fn timestep(&self, b: &mut Builder, r: u32, plan: &RankPlan, check: Check, fft_blocking: bool) {
        let p = self.ranks;
        b.compute(r, self.ns(plan.start));
        b.allreduce_folded(r, p, 48);
        b.allreduce_folded(r, p, 48);
        if check != Check::None {
            b.compute(r, self.ns(plan.neigh_check));
            b.allreduce_folded(r, p, 4);
        }
        if check == Check::Rebuild {
            self.rebuild(b, r, plan);
        } else {
            self.steps(b, r, &plan.ghost_fw);
        }
        self.steps(b, r, &plan.k_pre);
        for t in &plan.fft {
            b.compute(r, self.ns(t.cycles));
            for &q in &t.from {
                b.push(r, Kind::Recv { src: q, tag: 0, blocking: false }, 0, "");
            }
            for &(q, bytes) in &t.to {
                b.send(r, q, bytes, 0, fft_blocking, (0, ""));
            }
            b.push(r, Kind::WaitAll, 0, "");
        }
        self.steps(b, r, &plan.k_post);
        b.compute(r, self.ns(plan.k_energy));
        b.allreduce_folded(r, p, 48);
        self.steps(b, r, &plan.ghost_rw);
        self.steps(b, r, &plan.fix);
        b.compute(r, self.ns(plan.final_));
        b.allreduce_folded(r, p, 8);
        b.allreduce_folded(r, p, 48);
    }

    /// SWM's `doP2P`: per step compute, an irecv, a blocking send, a wait.
    fn steps(&self, b: &mut Builder, r: u32, steps: &[Exchange]) {
        for s in steps {
            b.compute(r, self.ns(s.cycles));
            self.swap(b, r, s.from, s.to, s.bytes);
        }
    }

    fn swap(&self, b: &mut Builder, r: u32, from: u32, to: u32, bytes: u32) {
        b.push(r, Kind::Recv { src: from, tag: 0, blocking: false }, 0, "");
        b.send(r, to, bytes, 0, true, (0, ""));
        b.push(r, Kind::Wait, 0, "");
    }

    /// SWM's `doNeighExch`. Its handshakes are `SWM_Sendrecv`s, which
    /// CODES expands as an irecv, a blocking send and a wait: the 4 bytes
    /// go against the atoms' direction.
    fn rebuild(&self, b: &mut Builder, r: u32, plan: &RankPlan) {
        let e = &plan.neigh_exch;
        let mut i = 0;
        while i < e.len() {
            let s = e[i];
            b.compute(r, self.ns(s.cycles));
            self.swap(b, r, s.to, s.from, 4);
            if s.from != s.to {
                self.swap(b, r, s.from, s.to, 4);
            }
            self.swap(b, r, s.from, s.to, s.bytes);
            i += 1;
            if i < e.len() && s.from != s.to {
                self.swap(b, r, e[i].from, e[i].to, e[i].bytes);
                i += 1;
            }
        }
        for s in &plan.neigh_border {
            b.compute(r, self.ns(s.cycles));
            self.swap(b, r, s.to, s.from, 4);
            self.swap(b, r, s.from, s.to, s.bytes);
        }
        for &c in &plan.neigh_end {
            b.compute(r, self.ns(c));
            b.allreduce_folded(r, self.ranks, 4);
        }
    }
}
