//! SWM's layered all-broadcast (`layered_allbroadcast.cpp`, CODES's
//! `layered_allbcast`): a data-parallel training step. Each iteration, for
//! each layer `i` of `total_layers`: every rank exchanges a piece of the
//! layer's compressed gradients with every other rank (tag 0), then a
//! piece of its weights (tag 1). The weights are
//! `initial_layer_size · layer_growth_rate^i` bytes, the gradients that
//! over the compression rate; a piece is a `1/size` share, truncated to
//! whole bytes. An exchange irecvs from every other rank, isends to each
//! in rank order, and waits. No compute.

use super::super::{Builder, Kind, Workload};

/// The skeleton's parameters (the skeleton JSON's `jobs.size` and `jobs.cfg`).
#[derive(Clone, Debug, PartialEq)]
pub struct LayeredAllBcast {
    /// Ranks (`jobs.size`).
    pub ranks: u32,
    /// `iteration_cnt`.
    pub iterations: u32,
    /// `total_layers`.
    pub layers: u32,
    /// `initial_layer_size`: layer 0's weights in bytes.
    pub initial_size: f64,
    /// `layer_growth_rate`: each layer's weights over the one before.
    pub growth: f64,
    /// `first_comm_compression_rate` (SWM reads this key, not the
    /// `grad_compression_rate` its sample file gives): weights over gradients.
    pub compression: f64,
}

impl LayeredAllBcast {
    /// Layer `i`'s two pieces: (gradients, weights) bytes to each other rank,
    /// as the skeleton's `(int)` casts truncate them.
    pub fn pieces(&self, i: u32) -> (f64, f64) {
        let weights = self.initial_size * self.growth.powf(f64::from(i));
        let p = f64::from(self.ranks);
        ((weights / self.compression / p).trunc(), (weights / p).trunc())
    }

    /// The rank programs; refuses pieces that are not sizes (negative, not
    /// finite, past an `int`).
    pub fn workload(&self) -> Result<Workload, String> {
        if self.ranks == 0 {
            return Err("layered_allbcast: jobs.size must be 1 or more".into());
        }
        if self.compression.is_nan() || self.compression <= 0.0 {
            return Err(format!("layered_allbcast: first_comm_compression_rate {} must be > 0", self.compression));
        }
        let mut sizes = Vec::with_capacity(self.layers as usize);
        for i in 0..self.layers {
            let (g, w) = self.pieces(i);
            for x in [g, w] {
                if !(0.0..=i32::MAX as f64).contains(&x) {
                    return Err(format!(
                        "layered_allbcast: layer {i}'s piece of {x} bytes is not a size SWM's int holds; check \
                         initial_layer_size, layer_growth_rate and total_layers"
                    ));
                }
            }
            sizes.push((g as u32, w as u32));
        }
        let mut b = Builder::new(self.ranks);
        for r in 0..self.ranks {
            for _ in 0..self.iterations {
                for &(g, w) in &sizes {
                    for (tag, bytes) in [(0, g), (1, w)] {
                        for src in (0..self.ranks).filter(|&s| s != r) {
                            b.push(r, Kind::Recv { src, tag, blocking: false }, 0, "");
                        }
                        for dst in (0..self.ranks).filter(|&d| d != r) {
                            b.send(r, dst, bytes, tag, false, (0, ""));
                        }
                        b.push(r, Kind::WaitAll, 0, "");
                    }
                }
            }
        }
        Ok(b.finish(format!("layered_allbcast on {} ranks ({} layers)", self.ranks, self.layers)))
    }
}
