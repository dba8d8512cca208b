//! SWM's all-reduce benchmark (`allreduce.cpp`, CODES's `allreduce`,
//! `allreduce32`, `allreduce256`): each iteration every rank computes
//! `compute_delay` cycles, then all ranks all-reduce `msg_req_bytes`
//! (CODES's `SWM_Allreduce`: MPICH's recursive doubling, or for more than
//! 2048 bytes its reduce-scatter and all-gather; see
//! `Builder::allreduce_folded`).

use super::super::{Builder, Workload};

/// The benchmark's parameters (the skeleton JSON's `jobs.size` and `jobs.cfg`).
#[derive(Clone, Debug, PartialEq)]
pub struct AllReduce {
    /// Ranks (`jobs.size`).
    pub ranks: u32,
    /// `iteration_cnt`.
    pub iterations: u32,
    /// `msg_req_bytes`: the vector all-reduced.
    pub bytes: u32,
    /// `compute_delay`, cycles before each all-reduce.
    pub compute_cycles: f64,
    /// `cpu_freq` in Hz (0: CODES's 2 GHz).
    pub cpu_hz: f64,
}

impl AllReduce {
    /// The compute delay of one iteration in ns (cycles at `cpu_freq`).
    pub fn compute_ns(&self) -> f64 {
        let hz = if self.cpu_hz > 0.0 { self.cpu_hz } else { 2e9 };
        self.compute_cycles / hz * 1e9
    }

    /// The rank programs.
    pub fn workload(&self) -> Result<Workload, String> {
        if self.ranks == 0 {
            return Err("allreduce: jobs.size must be 1 or more".into());
        }
        let ns = self.compute_ns();
        let mut b = Builder::new(self.ranks);
        for r in 0..self.ranks {
            for _ in 0..self.iterations {
                b.compute(r, ns);
                b.allreduce_folded(r, self.ranks, self.bytes);
            }
        }
        Ok(b.finish(format!("allreduce on {} ranks ({} bytes)", self.ranks, self.bytes)))
    }
}
