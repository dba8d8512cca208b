//! CODES's application skeletons as rank programs: the SWM skeletons
//! (`swm-online`) and Conceptual benchmarks (`conc-online`) that CODES's
//! `model-net-mpi-replay` runs from a workload file, generated natively
//! from the skeleton's own parameters (docs/network-workloads.md,
//! "CODES application skeletons"). Each skeleton is a file of its own;
//! here are the collectives as CODES's online workloads expand them.

mod allreduce;
mod incast;
mod jacobi3d;
mod lammps;
mod lammps_setup;
#[cfg(test)]
mod lammps_tests;
mod layered_allbcast;
mod many_to_many;
mod milc;
mod nearest_neighbor;
mod nekbone;
#[cfg(test)]
mod periodic_aggr_tests;
mod periodic_aggressor;
mod spread;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_swm;

pub use allreduce::AllReduce;
pub use incast::Incast;
pub use jacobi3d::Jacobi3d;
pub use lammps::Check;
pub use lammps_setup::{Exchange, Geometry, Lammps, RankPlan, Transpose};
pub use layered_allbcast::LayeredAllBcast;
pub use many_to_many::ManyToMany;
pub use milc::Milc;
pub use nearest_neighbor::NearestNeighbor;
pub use nekbone::Nekbone;
pub use periodic_aggressor::PeriodicAggressor;
pub use spread::Spread;

use super::{Builder, Kind};

impl Builder {
    /// Rank `r`'s part of an all-reduce of `bytes` over `p` ranks as
    /// CODES's `SWM_Allreduce` expands it (MPICH's): with `pof2` the
    /// largest power of two ≤ `p` and `rem = p − pof2`, the even ranks
    /// below `2 rem` hand their vector to the next rank and wait; the other
    /// `pof2` ranks exchange by recursive doubling (a send then a receive
    /// per round) when `bytes` ≤ 2048 or `bytes < pof2`, else by a
    /// reduce-scatter and an all-gather ([`Builder::halving_doubling`]);
    /// the folded ranks then get the result back. (SWM's `SWM_Sendrecv`
    /// posts its receive before the send; the messages are the same.
    /// Union's `UNION_MPI_Allreduce` is the same up to 81920 bytes, its
    /// threshold, which Jacobi 3-D's 8 bytes stay under.)
    pub(super) fn allreduce_folded(&mut self, r: u32, p: u32, bytes: u32) {
        let tag = self.collective_tag(r);
        let at = (0, "allreduce");
        let recv = |b: &mut Builder, src: u32| b.push(r, Kind::Recv { src, tag, blocking: true }, 0, "allreduce");
        let pof2 = 1u32 << (31 - p.leading_zeros());
        let rem = p - pof2;
        let newrank = if r < 2 * rem {
            if r % 2 == 0 {
                self.send(r, r + 1, bytes, tag, true, at);
                None
            } else {
                recv(self, r - 1);
                Some(r / 2)
            }
        } else {
            Some(r - rem)
        };
        if let Some(nr) = newrank.filter(|_| bytes > ALLREDUCE_SHORT_BYTES && bytes >= pof2) {
            self.halving_doubling(r, nr, pof2, rem, bytes, tag);
        } else if let Some(nr) = newrank {
            let mut mask = 1;
            while mask < pof2 {
                let nd = nr ^ mask;
                let dst = if nd < rem { nd * 2 + 1 } else { nd + rem };
                self.send(r, dst, bytes, tag, true, at);
                recv(self, dst);
                mask <<= 1;
            }
        }
        if r < 2 * rem {
            if r % 2 == 1 {
                self.send(r, r - 1, bytes, tag, true, at);
            } else {
                recv(self, r + 1);
            }
        }
    }
}

/// CODES's `ALLREDUCE_SHORT_MSG_SIZE`: all-reduces of more bytes (and at
/// least `pof2`) reduce-scatter and all-gather.
const ALLREDUCE_SHORT_BYTES: u32 = 2048;

impl Builder {
    /// The long all-reduce of [`Builder::allreduce_folded`] for rank `r`
    /// (`nr` among the `pof2` exchanging ranks), as `SWM_Allreduce` writes
    /// MPICH's: the vector cut into `pof2` blocks of `bytes / pof2` (the last
    /// takes the remainder); a reduce-scatter by recursive halving (each
    /// round the half of its window the partner keeps, the lower half kept
    /// by the lower rank), then an all-gather by recursive doubling back
    /// (each round its window so far).
    fn halving_doubling(&mut self, r: u32, nr: u32, pof2: u32, rem: u32, bytes: u32, tag: u32) {
        let block = bytes / pof2;
        // Bytes of blocks lo..hi (the counts array's sum over that range).
        let span = |lo: u32, hi: u32| -> u32 {
            if hi <= lo {
                return 0;
            }
            debug_assert!(hi <= pof2, "MPICH's windows stay within the blocks");
            let last = if hi == pof2 { bytes - block * (pof2 - 1) } else { block };
            block * (hi - lo - 1) + last
        };
        let real = |nd: u32| if nd < rem { nd * 2 + 1 } else { nd + rem };
        let exchange = |b: &mut Builder, nd: u32, n: u32| {
            let dst = real(nd);
            b.send(r, dst, n, tag, true, (0, "allreduce"));
            b.push(r, Kind::Recv { src: dst, tag, blocking: true }, 0, "allreduce");
        };
        let (mut send_idx, mut recv_idx, mut last_idx) = (0u32, 0u32, pof2);
        let mut mask = 1;
        while mask < pof2 {
            let nd = nr ^ mask;
            let n = if nr < nd {
                send_idx = recv_idx + pof2 / (mask * 2);
                span(send_idx, last_idx)
            } else {
                recv_idx = send_idx + pof2 / (mask * 2);
                span(send_idx, recv_idx)
            };
            exchange(self, nd, n);
            send_idx = recv_idx;
            mask <<= 1;
            if mask < pof2 {
                last_idx = recv_idx + pof2 / mask;
            }
        }
        mask >>= 1;
        while mask > 0 {
            let nd = nr ^ mask;
            let n = if nr < nd {
                if mask != pof2 / 2 {
                    last_idx += pof2 / (mask * 2);
                }
                recv_idx = send_idx + pof2 / (mask * 2);
                span(send_idx, recv_idx)
            } else {
                recv_idx = send_idx - pof2 / (mask * 2);
                span(send_idx, last_idx)
            };
            exchange(self, nd, n);
            if nr > nd {
                send_idx = recv_idx;
            }
            mask >>= 1;
        }
    }
}

/// Messages of one short folded all-reduce over `p` ranks, all ranks
/// together (for checks): `2 rem` for the fold and unfold, `pof2 log2(pof2)` for the
/// exchange.
pub fn allreduce_folded_messages(p: u32) -> u64 {
    let pof2 = 1u32 << (31 - p.max(1).leading_zeros());
    2 * (p - pof2) as u64 + pof2 as u64 * pof2.trailing_zeros() as u64
}

/// A SplitMix64 shuffle (a skeleton's randomised order; not C++'s
/// `std::random_shuffle`, whose generator the C++ library leaves open).
pub(super) fn shuffle<T>(v: &mut [T], state: &mut u64) {
    for i in (1..v.len()).rev() {
        v.swap(i, (next(state) % (i as u64 + 1)) as usize);
    }
}

/// The next SplitMix64 draw of `state`.
pub(super) fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A step along one dimension of a periodic grid.
#[derive(Clone, Copy)]
pub(super) enum Step {
    Down,
    Up,
    None,
}

/// What SWM's grid skeletons (MILC, nearest neighbour) assert about their
/// grid, and what we refuse besides: `dims` multiplying to the job's
/// `ranks`, a distance of at least 1, and no dimension of size 1 (a rank
/// would be its own neighbour: not modelled).
pub(super) fn check_grid(app: &str, dims: &[u32], ranks: u32, max_distance: u32) -> Result<(), String> {
    let product = dims.iter().try_fold(1u32, |a, &d| a.checked_mul(d));
    if dims.is_empty() || dims.contains(&0) || product != Some(ranks) {
        return Err(format!(
            "{app}: dimension_sizes {dims:?} must be positive and multiply to the job's {ranks} ranks"
        ));
    }
    if max_distance == 0 {
        return Err(format!("{app}: max_dimension_distance 0 makes each rank its own only neighbour; give 1 or more"));
    }
    if let Some(d) = dims.iter().position(|&d| d == 1) {
        return Err(format!(
            "{app}: dimension {d} has size 1, so ranks would send to themselves (not modelled); drop that dimension"
        ));
    }
    Ok(())
}

/// Rank `r`'s neighbours on the periodic grid of `dims` (rank `r` at
/// `(r mod d0, r / d0 mod d1, ...)`) as SWM's grid skeletons find them:
/// for each dimension in turn each step of `order`, a neighbour wherever
/// `max` steps have been taken or the dimensions run out with at least
/// one; repeats kept.
pub(super) fn grid_neighbours(dims: &[u32], r: u32, max: u32, order: [Step; 3]) -> Vec<u32> {
    fn walk(dims: &[u32], c: &mut [u32], dim: usize, taken: u32, max: u32, order: [Step; 3], out: &mut Vec<u32>) {
        if taken == max || dim == dims.len() {
            if taken > 0 || max == 0 {
                let (mut pid, mut mult) = (0, 1);
                for (x, d) in c.iter().zip(dims) {
                    pid += x * mult;
                    mult *= d;
                }
                out.push(pid);
            }
            return;
        }
        let (x, d) = (c[dim], dims[dim]);
        for step in order {
            let (to, more) = match step {
                Step::Down => ((x + d - 1) % d, 1),
                Step::Up => ((x + 1) % d, 1),
                Step::None => (x, 0),
            };
            c[dim] = to;
            walk(dims, c, dim + 1, taken + more, max, order, out);
        }
        c[dim] = x;
    }
    let mut c = Vec::with_capacity(dims.len());
    let mut div = 1;
    for &d in dims {
        c.push(r / div % d);
        div *= d;
    }
    let mut out = vec![];
    walk(dims, &mut c, 0, 0, max, order, &mut out);
    out
}
