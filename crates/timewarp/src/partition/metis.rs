//! Graph partitioning through METIS 5 (the `metis` crate builds it from
//! source; the report used hMetis, which is not open). METIS counts in
//! 32-bit integers, so weights are scaled to fit.

use crate::error::Error;
use crate::key::LpId;

use super::graph::Graph;

/// Largest total of vertex or edge weights handed to METIS: its sums stay
/// below 2^31.
const MAX_TOTAL: u64 = 1 << 30;

/// A set of LPs as METIS takes it: local ids 0..n, rows of neighbours
/// inside the set, 32-bit weights.
pub(crate) struct Subgraph {
    xadj: Vec<i32>,
    adj: Vec<i32>,
    vwgt: Vec<i32>,
    ewgt: Vec<i32>,
}

/// Scales `w` so that their sum is at most [`MAX_TOTAL`], keeping every
/// weight at least `min` (0 stays 0 when `min` is 0).
fn scale(w: &[u64], min: u64) -> Vec<i32> {
    let total: u64 = w.iter().fold(0u64, |a, &x| a.saturating_add(x));
    let div = total.div_ceil(MAX_TOTAL).max(1);
    w.iter().map(|&x| (x / div).max(min) as i32).collect()
}

impl Subgraph {
    /// The subgraph of `g` induced by `members`, vertex weights `vw(v)`,
    /// edge weights the measured messages (`weighted`) or 1.
    pub(crate) fn induced(g: &Graph, members: &[LpId], vw: impl Fn(LpId) -> u64, weighted: bool) -> Self {
        let mut local = vec![u32::MAX; g.len()];
        for (i, &v) in members.iter().enumerate() {
            local[v as usize] = i as u32;
        }
        let mut xadj = Vec::with_capacity(members.len() + 1);
        let (mut adj, mut ew) = (Vec::new(), Vec::new());
        xadj.push(0i32);
        for &v in members {
            for (u, w) in g.edges(v as usize) {
                let l = local[u as usize];
                if l != u32::MAX {
                    adj.push(l as i32);
                    ew.push(if weighted { w } else { 1 });
                }
            }
            xadj.push(adj.len() as i32);
        }
        let vw: Vec<u64> = members.iter().map(|&v| vw(v)).collect();
        // A vertex of weight 0 would be free to move anywhere: every LP costs at least 1.
        Subgraph { xadj, adj, vwgt: scale(&vw, 1), ewgt: scale(&ew, 1) }
    }

    /// METIS k-way partition into `parts` with max part ≤ `imbalance` × mean.
    pub(crate) fn partition(&self, parts: usize, imbalance: f64) -> Result<Vec<u32>, Error> {
        let n = self.vwgt.len();
        if parts <= 1 || n == 0 {
            return Ok(vec![0; n]);
        }
        if n <= parts {
            return Ok((0..n as u32).collect());
        }
        if self.adj.len() > i32::MAX as usize {
            return Err(Error::Config(format!(
                "the graph has {} edge entries, more than METIS's 32-bit ids",
                self.adj.len()
            )));
        }
        let mut part = vec![0i32; n];
        // ufactor: allowed imbalance in thousandths above 1.
        let ufactor = (((imbalance - 1.0) * 1000.0).round() as i32).clamp(1, 1_000_000);
        let g = metis::Graph::new(1, parts as i32, &self.xadj, &self.adj)
            .map_err(|e| Error::Config(format!("METIS refused the graph: {e:?}")))?
            .set_vwgt(&self.vwgt)
            .set_adjwgt(&self.ewgt)
            .set_option(metis::option::UFactor(ufactor))
            // A fixed seed: the same profile gives the same mapping.
            .set_option(metis::option::Seed(1));
        g.part_kway(&mut part).map_err(|e| Error::Config(format!("METIS failed: {e:?}")))?;
        Ok(part.into_iter().map(|p| p as u32).collect())
    }
}
