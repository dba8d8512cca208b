//! SWM's MILC skeleton (`milc_swm_user_code.cpp` in SWM-workloads): the
//! ranks on a periodic grid of `dimension_sizes`; per iteration two halo
//! exchanges (Dslash on even then odd sites), each an irecv from and an
//! isend of `msg_size` to every neighbour, the compute delay, and a wait
//! for all; then two all-reduces of one double.

use super::super::{Builder, Kind, Workload};
use super::Step;

/// MILC's parameters (the skeleton JSON's `jobs.size` and `jobs.cfg`).
#[derive(Clone, Debug, PartialEq)]
pub struct Milc {
    /// Ranks (`jobs.size`): the product of `dims`.
    pub ranks: u32,
    /// `iteration_cnt`.
    pub iterations: u32,
    /// `compute_delay`, in CPU cycles.
    pub compute_cycles: f64,
    /// `cpu_freq` in Hz (0: CODES's 2 GHz).
    pub cpu_hz: f64,
    /// `dimension_sizes`.
    pub dims: Vec<u32>,
    /// `msg_size`: bytes to each neighbour per exchange.
    pub msg_size: u32,
    /// `max_dimension_distance`: how many coordinates a neighbour may differ in.
    pub max_distance: u32,
    /// `randomize_communication_order`: shuffle the neighbours every iteration.
    pub randomize: bool,
    /// The shuffle's seed (with `randomize`).
    pub seed: u64,
}

impl Milc {
    /// The compute delay of one exchange in ns (cycles at `cpu_freq`).
    pub fn compute_ns(&self) -> f64 {
        let hz = if self.cpu_hz > 0.0 { self.cpu_hz } else { 2e9 };
        self.compute_cycles / hz * 1e9
    }

    /// Rank `r`'s neighbours in the skeleton's order, repeats kept (a
    /// dimension of 2 has the same rank one step down and one up): for
    /// each dimension in turn a step down, a step up or none.
    pub fn neighbours(&self, r: u32) -> Vec<u32> {
        super::grid_neighbours(&self.dims, r, self.max_distance, [Step::Down, Step::Up, Step::None])
    }

    /// The rank programs; refuses parameters the skeleton asserts against
    /// and a neighbour that is the rank itself (a dimension of size 1).
    pub fn workload(&self) -> Result<Workload, String> {
        super::check_grid("milc", &self.dims, self.ranks, self.max_distance)?;
        let ns = self.compute_ns();
        let mut b = Builder::new(self.ranks);
        for r in 0..self.ranks {
            let mut nb = self.neighbours(r);
            let mut state = self.seed ^ (r as u64 + 1).wrapping_mul(0xA076_1D64_78BD_642F);
            for _ in 0..self.iterations {
                if self.randomize {
                    super::shuffle(&mut nb, &mut state);
                }
                for _even_odd in 0..2 {
                    for &n in &nb {
                        b.push(r, Kind::Recv { src: n, tag: n, blocking: false }, 0, "");
                    }
                    for &n in &nb {
                        b.send(r, n, self.msg_size, r, false, (0, ""));
                    }
                    b.compute(r, ns);
                    b.push(r, Kind::WaitAll, 0, "");
                }
                for _ in 0..2 {
                    b.allreduce_folded(r, self.ranks, 8);
                }
            }
        }
        let dims: Vec<String> = self.dims.iter().map(|d| d.to_string()).collect();
        Ok(b.finish(format!("milc on {} ranks ({})", self.ranks, dims.join("x"))))
    }
}
