//! SWM's periodic aggressor (`swm/src/periodic_aggressor/` in
//! SWM-workloads, CODES's `periodic_aggressor`): LAMMPS (the same model as
//! `lammps.cpp`, `pa_lammps_model.h` being `lammps_model.h`) with a burst
//! of incast in the middle of every iteration.
//!
//! One iteration (of `iteration_cnt`), per rank:
//! 1. `lammps_iters_per_iter` LAMMPS timesteps (lammps.rs), except that the
//!    FFT transposes' sends are blocking `SWM_Send`s (posted after all the
//!    transpose's receives, so they cannot wait on each other);
//! 2. the incast burst (incast.rs's pattern, no compute): every rank of
//!    `incast_src_rank_id_interval` but `incast_dest_rank_id` sends
//!    `incast_msg_req_bytes` to the destination `incast_iters_per_iter`
//!    times, each an isend waited for, tag
//!    `4 · ((source + 1) + incast_size · i)` for the `i`-th; the destination
//!    posts a receive from each source per round and waits for the round.
//!    The other ranks go straight on (there is no barrier);
//! 3. `lammps_iters_per_iter` more timesteps.
//!
//! The neighbour-check count runs on across the phases and iterations (SWM
//! sets it once), so the run is LAMMPS's `2 · iteration_cnt ·
//! lammps_iters_per_iter` timesteps with a burst after every
//! `lammps_iters_per_iter`-th, the 1st, 3rd, … of those groups.
//! `incast_msg_rsp_bytes` and `compute_delay` are read but unused by SWM.

use super::super::{Builder, Workload};
use super::incast::tag;
use super::{Incast, Lammps};

/// The periodic aggressor's parameters (`jobs.size` and `jobs.cfg`).
#[derive(Clone, Debug, PartialEq)]
pub struct PeriodicAggressor {
    /// The LAMMPS part; its `timesteps` is `lammps_iters_per_iter`.
    pub lammps: Lammps,
    /// `iteration_cnt`.
    pub iterations: u32,
    /// `incast_size` (only the tags use it; SWM asserts the destination below it).
    pub incast_size: u32,
    /// `incast_iters_per_iter`: messages per source per burst.
    pub incast_rounds: u32,
    /// `incast_dest_rank_id`.
    pub dst: u32,
    /// `incast_src_rank_id_interval`: the first and last source (inclusive).
    pub sources: (u32, u32),
    /// `incast_msg_req_bytes`.
    pub bytes: u32,
}

impl PeriodicAggressor {
    /// The burst as an incast of the job's ranks.
    fn incast(&self) -> Incast {
        Incast {
            ranks: self.lammps.ranks,
            iterations: self.incast_rounds,
            dst: self.dst,
            sources: self.sources,
            bytes: self.bytes,
            compute_cycles: 0.0,
            cpu_hz: self.lammps.cpu_hz,
            any_source: false,
            blocking: false,
            start_delay_max: 0,
            seed: 0,
        }
    }

    /// Refuses what SWM asserts against or would hang on.
    fn check(&self) -> Result<(), String> {
        let (lo, hi) = self.sources;
        let p = self.lammps.ranks;
        if self.dst >= self.incast_size {
            return Err(format!(
                "periodic_aggressor: incast_dest_rank_id {} must be below incast_size {} (SWM asserts it)",
                self.dst, self.incast_size
            ));
        }
        if self.dst >= p || lo > hi || hi >= p {
            return Err(format!(
                "periodic_aggressor: incast_dest_rank_id {} and incast_src_rank_id_interval [{lo}, {hi}] must be \
                 ranks of the job's 0..{p}",
                self.dst
            ));
        }
        if (lo..=hi).contains(&self.dst) {
            return Err(format!(
                "periodic_aggressor: incast_dest_rank_id {} is inside incast_src_rank_id_interval [{lo}, {hi}]: it \
                 would wait for a message from itself (as in SWM); move it out",
                self.dst
            ));
        }
        if self.incast_rounds > 0 && tag(self.incast_size, hi, self.incast_rounds - 1).is_none() {
            return Err("periodic_aggressor: the incast tags (4 x (source + 1 + incast_size x round)) pass 2^31; \
                        lower incast_iters_per_iter"
                .into());
        }
        Ok(())
    }

    /// The whole run as LAMMPS counts it: both phases of every iteration.
    pub fn timesteps(&self) -> Result<u32, String> {
        self.lammps.timesteps.checked_mul(2).and_then(|t| t.checked_mul(self.iterations)).ok_or_else(|| {
            "periodic_aggressor: 2 x iteration_cnt x lammps_iters_per_iter passes 2^32 timesteps".to_string()
        })
    }

    /// The rank programs.
    pub fn workload(&self) -> Result<Workload, String> {
        self.check()?;
        let mut run = self.lammps.clone();
        run.timesteps = self.timesteps()?;
        let geo = run.geometry().map_err(|e| e.replacen("lammps:", "periodic_aggressor:", 1))?;
        let checks = run.checks();
        let p = run.ranks;
        let plans = (0..p).map(|r| geo.plan(&run, r)).collect::<Result<Vec<_>, _>>()?;
        let per = self.lammps.timesteps as usize;
        let mut b = Builder::new(p);
        let incast = self.incast();
        // Each iteration is two groups of `per` timesteps with the burst between.
        for (g, group) in checks.chunks(per.max(1)).enumerate() {
            for (r, plan) in plans.iter().enumerate() {
                for &check in group {
                    run.timestep(&mut b, r as u32, plan, check, true);
                }
            }
            if g % 2 == 0 {
                incast.push(&mut b, self.incast_size);
            }
        }
        if per == 0 {
            // No timesteps: the bursts alone.
            for _ in 0..self.iterations {
                incast.push(&mut b, self.incast_size);
            }
        }
        let [x, y, z] = geo.procs;
        let (lo, hi) = self.sources;
        Ok(b.finish(format!(
            "periodic_aggressor on {p} ranks ({x}x{y}x{z}; {} iterations of 2 x {per} steps, bursts {lo}..={hi} to {})",
            self.iterations, self.dst
        )))
    }
}
