//! SWM's nearest-neighbour skeleton (`nearest_neighbor_swm_user_code.cpp`,
//! CODES's `nearest_neighbor`): the ranks on a periodic grid of
//! `dimension_sizes`; per iteration an irecv from and an isend of
//! `msg_size` to every neighbour (up to `max_dimension_distance`
//! coordinates away), and every `iterations_per_sync` iterations (and
//! after the last) a wait for all.

use super::super::{Builder, Kind, Workload};
use super::Step;

/// Nearest neighbour's parameters (the skeleton JSON's `jobs.size` and `jobs.cfg`).
#[derive(Clone, Debug, PartialEq)]
pub struct NearestNeighbor {
    /// Ranks (`jobs.size`): the product of `dims`.
    pub ranks: u32,
    /// `iteration_cnt`.
    pub iterations: u32,
    /// `dimension_sizes`.
    pub dims: Vec<u32>,
    /// `msg_size`: bytes to each neighbour per iteration.
    pub msg_size: u32,
    /// `max_dimension_distance`.
    pub max_distance: u32,
    /// `iterations_per_sync`: iterations between waits.
    pub iterations_per_sync: u32,
    /// `randomize_communication_order`: shuffle the neighbours every iteration.
    pub randomize: bool,
    /// The shuffle's seed.
    pub seed: u64,
}

impl NearestNeighbor {
    /// Rank `r`'s neighbours in the skeleton's order (for each dimension a
    /// step down, none, a step up), repeats kept.
    pub fn neighbours(&self, r: u32) -> Vec<u32> {
        super::grid_neighbours(&self.dims, r, self.max_distance, [Step::Down, Step::None, Step::Up])
    }

    /// The rank programs; refuses what the skeleton asserts against and a
    /// neighbour that is the rank itself.
    pub fn workload(&self) -> Result<Workload, String> {
        super::check_grid("nearest_neighbor", &self.dims, self.ranks, self.max_distance)?;
        if self.iterations_per_sync == 0 {
            return Err("nearest_neighbor: iterations_per_sync must be 1 or more".into());
        }
        let mut b = Builder::new(self.ranks);
        for r in 0..self.ranks {
            let mut nb = self.neighbours(r);
            let mut state = self.seed ^ (r as u64 + 1).wrapping_mul(0xA076_1D64_78BD_642F);
            for iter in 0..self.iterations {
                if self.randomize {
                    super::shuffle(&mut nb, &mut state);
                }
                for &n in &nb {
                    b.push(r, Kind::Recv { src: n, tag: n, blocking: false }, 0, "");
                    b.send(r, n, self.msg_size, r, false, (0, ""));
                }
                if (iter + 1) % self.iterations_per_sync == 0 || iter + 1 == self.iterations {
                    b.push(r, Kind::WaitAll, 0, "");
                }
            }
        }
        let dims: Vec<String> = self.dims.iter().map(|d| d.to_string()).collect();
        Ok(b.finish(format!("nearest_neighbor on {} ranks ({})", self.ranks, dims.join("x"))))
    }
}
