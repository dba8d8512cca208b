//! SWM's Nekbone skeleton (`nekbone_swm_user_code.cpp` in SWM-workloads,
//! CODES's `nekbone`): the ranks on a non-periodic `Rx`×`Ry`×`Rz` lattice,
//! each holding `Ex`×`Ey`×`Ez` spectral elements. For each polynomial order
//! `p` of `Pbegin, Pbegin + Pstep, ... < Pend`: two gather-scatters, a
//! conjugate gradient, a barrier and a second conjugate gradient; a
//! conjugate gradient is an all-reduce of one double and then `CGcount`
//! times (all-reduce, gather-scatter, all-reduce, all-reduce). A
//! gather-scatter posts an irecv from each lattice neighbour (up to 26,
//! tag 1), then isends each its shared degrees of freedom, and waits.
//! The skeleton draws nothing at random and computes nothing.

use super::super::{Builder, Kind, Workload};

/// Nekbone's parameters (the skeleton JSON's `jobs.size` and `jobs.cfg`).
#[derive(Clone, Debug, PartialEq)]
pub struct Nekbone {
    /// Ranks (`jobs.size`): `Rx Ry Rz`.
    pub ranks: u32,
    /// `Rx`, `Ry`, `Rz`: the ranks along each axis.
    pub r: [u32; 3],
    /// `Ex`, `Ey`, `Ez`: the elements along each axis within a rank.
    pub e: [u32; 3],
    /// `Pbegin`, `Pend`, `Pstep`: the polynomial orders run.
    pub poly: (u32, u32, u32),
    /// `CGcount`: iterations of each conjugate gradient.
    pub cg_count: u32,
    /// `ByteSizeOf1DOF`: bytes of one degree of freedom.
    pub dof_bytes: u32,
}

/// The 26 lattice directions in the skeleton's order (`make_neighbors_loads`):
/// the 6 faces, the 8 corners, the 12 edges.
const DIRECTIONS: [[i32; 3]; 26] = [
    [1, 0, 0],
    [-1, 0, 0],
    [0, 1, 0],
    [0, -1, 0],
    [0, 0, 1],
    [0, 0, -1],
    [1, 1, -1],
    [1, -1, -1],
    [-1, -1, -1],
    [-1, 1, -1],
    [1, 1, 1],
    [1, -1, 1],
    [-1, -1, 1],
    [-1, 1, 1],
    [0, -1, -1],
    [0, 1, -1],
    [0, -1, 1],
    [0, 1, 1],
    [1, 0, -1],
    [1, 0, 1],
    [-1, 0, 1],
    [-1, 0, -1],
    [-1, -1, 0],
    [-1, 1, 0],
    [1, -1, 0],
    [1, 1, 0],
];

impl Nekbone {
    /// The polynomial orders run (the skeleton's outer loop).
    pub fn orders(&self) -> Vec<u32> {
        let (begin, end, step) = self.poly;
        (begin..end).step_by(step.max(1) as usize).collect()
    }

    /// Rank `rank`'s neighbours at polynomial order `p`, in the skeleton's
    /// order, with the bytes each is sent: a face shares `(E p + 1)²`
    /// degrees of freedom (the two other axes' `E`), an edge `E p + 1`
    /// (its own axis's), a corner one.
    pub fn loads(&self, rank: u32, p: u32) -> Result<Vec<(u32, u32)>, String> {
        let [rx, ry, _] = self.r;
        let at = [rank % rx, rank / rx % ry, rank / (rx * ry)];
        // Along axis i: the degrees of freedom on one edge of the rank's block.
        let side = |i: usize| u64::from(self.e[i]) * u64::from(p) + 1;
        let mut out = Vec::with_capacity(26);
        for d in DIRECTIONS {
            let mut n = [0u32; 3];
            let inside = (0..3).all(|i| {
                let x = at[i] as i64 + d[i] as i64;
                n[i] = x as u32;
                x >= 0 && x < self.r[i] as i64
            });
            if !inside {
                continue;
            }
            // The shared degrees of freedom: the product of the sides of the axes not stepped along.
            let dofs: u64 = (0..3).filter(|&i| d[i] == 0).map(side).product();
            let bytes = dofs
                .checked_mul(u64::from(self.dof_bytes))
                .and_then(|b| u32::try_from(b).ok())
                .ok_or_else(|| format!("nekbone: a message of {dofs} DOFs at order {p} exceeds 4 GiB"))?;
            out.push((n[0] + rx * (n[1] + ry * n[2]), bytes));
        }
        Ok(out)
    }

    /// The rank programs; refuses what the skeleton asserts against.
    pub fn workload(&self) -> Result<Workload, String> {
        let product = self.r.iter().try_fold(1u32, |a, &d| a.checked_mul(d));
        if self.r.contains(&0) || product != Some(self.ranks) {
            return Err(format!(
                "nekbone: Rx Ry Rz {:?} must be positive and multiply to the job's {} ranks (SWM asserts it)",
                self.r, self.ranks
            ));
        }
        if self.e.contains(&0) {
            return Err(format!("nekbone: Ex Ey Ez {:?} must be 1 or more (SWM asserts it)", self.e));
        }
        let (begin, end, step) = self.poly;
        if begin >= end || step == 0 {
            return Err(format!(
                "nekbone: Pbegin {begin}, Pend {end}, Pstep {step}: need Pbegin < Pend and Pstep >= 1 (SWM asserts it)"
            ));
        }
        let mut b = Builder::new(self.ranks);
        for r in 0..self.ranks {
            for p in self.orders() {
                let loads = self.loads(r, p)?;
                // makeMesh (twice: the same loads), gsop "on c" and "on f".
                self.gather_scatter(&mut b, r, &loads);
                self.gather_scatter(&mut b, r, &loads);
                self.conjugate_gradient(&mut b, r, &loads);
                b.barrier(r, self.ranks, 0);
                self.conjugate_gradient(&mut b, r, &loads);
            }
        }
        let [x, y, z] = self.r;
        let [ex, ey, ez] = self.e;
        Ok(b.finish(format!("nekbone on {} ranks ({x}x{y}x{z}, {ex}x{ey}x{ez} elements each)", self.ranks)))
    }

    /// `nek_gsop`: an irecv from every neighbour, an isend to each, a wait.
    /// SWM waits for the receives only and never for its sends; here the
    /// wait takes the sends too (none is left outstanding for ever).
    fn gather_scatter(&self, b: &mut Builder, r: u32, loads: &[(u32, u32)]) {
        for &(n, _) in loads {
            b.push(r, Kind::Recv { src: n, tag: 1, blocking: false }, 0, "");
        }
        for &(n, bytes) in loads {
            b.send(r, n, bytes, 1, false, (0, ""));
        }
        b.push(r, Kind::WaitAll, 0, "");
    }

    /// `conjugateGradient`: `nek_glsc3` (an all-reduce of one double), then
    /// per iteration `glsc3`, `gsop`, `glsc3`, `glsc3`.
    fn conjugate_gradient(&self, b: &mut Builder, r: u32, loads: &[(u32, u32)]) {
        b.allreduce_folded(r, self.ranks, 8);
        for _ in 0..self.cg_count {
            b.allreduce_folded(r, self.ranks, 8);
            self.gather_scatter(b, r, loads);
            b.allreduce_folded(r, self.ranks, 8);
            b.allreduce_folded(r, self.ranks, 8);
        }
    }
}
