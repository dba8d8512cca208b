//! Where a PHOLD event goes: the classic rule, the multicore report's
//! local / regional / remote blocks, and its hierarchical topology with
//! bounded-Pareto activity (report sections 3.2 and 3.4.4).
//!
//! Every rule depends only on the sending LP's id and the event's random
//! draws — never on where LPs are placed — so every mode and mapping commits
//! the same history, and the engine rewinds the draws on rollback.

use serde::{Deserialize, Serialize};
use timewarp::{LpId, Random};

/// The report's local / regional / remote split: LPs fall into `nodes`
/// equal blocks, each split into `pes_per_node` equal sub-blocks. With block
/// mapping, `nodes` = processes and `pes_per_node` = threads, a sub-block is
/// exactly one PE and a node one process.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Regional {
    /// Blocks ("nodes").
    pub nodes: u32,
    /// Sub-blocks ("PEs") per node.
    pub pes_per_node: u32,
    /// Probability that an event goes to another sub-block of its own node.
    pub regional: f64,
}

impl Regional {
    /// Checks the split against the LP count and the remote probability.
    pub(crate) fn validate(&self, lps: u32, remote: f64) -> Result<(), String> {
        let subs = self.nodes as u64 * self.pes_per_node as u64;
        if self.nodes == 0 || self.pes_per_node == 0 {
            return Err("--nodes and --pes-per-node must be at least 1".into());
        }
        if lps as u64 % subs != 0 {
            return Err(format!(
                "--lps {lps} must be a multiple of --nodes {} × --pes-per-node {} = {subs} (equal blocks)",
                self.nodes, self.pes_per_node
            ));
        }
        if !(0.0..=1.0).contains(&self.regional) || remote + self.regional > 1.0 + 1e-12 {
            return Err(format!("--remote {remote} + --regional {} must be a probability (at most 1)", self.regional));
        }
        if self.nodes == 1 && remote > 0.0 {
            return Err(format!(
                "--remote {remote} sends to another node, but --nodes is 1; give --nodes >= 2 or --remote 0"
            ));
        }
        if self.pes_per_node == 1 && self.regional > 0.0 {
            return Err(format!(
                "--regional {} sends to another sub-block of the node, but --pes-per-node is 1; \
                 give --pes-per-node >= 2 or --regional 0",
                self.regional
            ));
        }
        Ok(())
    }

    /// The destination of an event sent by `lp` (of `lps`): two draws
    /// (one uniform for the kind, one index).
    #[inline]
    pub(crate) fn destination(&self, lp: LpId, lps: u32, remote: f64, rng: &mut impl Random) -> LpId {
        let sub = lps / (self.nodes * self.pes_per_node);
        let node = sub * self.pes_per_node;
        let (my_node, my_sub) = (lp / node * node, lp / sub * sub);
        let u = rng.uniform();
        if u < remote {
            // Any LP outside [my_node, my_node + node).
            let r = rng.below((lps - node) as u64) as u32;
            if r < my_node {
                r
            } else {
                r + node
            }
        } else if u < remote + self.regional {
            // Any LP of the node outside [my_sub, my_sub + sub).
            let r = rng.below((node - sub) as u64) as u32 + my_node;
            if r < my_sub {
                r
            } else {
                r + sub
            }
        } else {
            my_sub + rng.below(sub as u64) as u32
        }
    }
}

/// The report's hierarchical model (section 3.4.4, figure 10).
///
/// Leaf clusters of `cluster` objects are combined two at a time over
/// `levels` levels, so there are `cluster × 2^(levels − 1)` LPs (the report
/// says `x^L`, which two clusters per level cannot give; we keep the
/// two-at-a-time construction). Level 1 is an object's own leaf cluster; its
/// level-`l` neighbours (`l` ≥ 2) lie in the *other half* of its level-`l`
/// cluster, so a level is a tree distance. Each object has `neighbours`
/// neighbours per level, drawn (with replacement) by a fixed hash of
/// (object, level, index): the topology depends only on these parameters,
/// not on the run's seed, so a profile taken with one seed partitions runs
/// with any other.
///
/// An event leaves its LP with probability `--remote` (the report's model is
/// `--remote 1`); it then picks a level from the bounded Pareto distribution
/// on `[low, high]` (inverse CDF `H·L / (H^α − U·(H^α − L^α))^(1/α)`): the
/// range is cut into `levels` equal slices, the top slice is level 1. So
/// α = −5 (density ∝ x⁴, mass near `high`) sends mostly to the nearest
/// cluster and α = 1 (density ∝ x⁻², mass near `low`) mostly to the
/// farthest, as the report describes. Within the level, neighbour `j` is
/// picked with a fixed weight drawn from the same distribution (skew of
/// activity independent of the structure: with α = 1 a few edges carry most
/// messages). With `skewed_compute` each object's busy work is `--compute`
/// times its own fixed draw divided by the distribution's mean.
///
/// Positions in the tree are LP ids unless `interleave` is set (see there).
/// The neighbour and weight functions below take positions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hierarchy {
    /// Levels `L` (1 to 31).
    pub levels: u32,
    /// Objects per leaf cluster `X` (at least 2).
    pub cluster: u32,
    /// Neighbours per object per level `K` (at least 1).
    pub neighbours: u32,
    /// Pareto shape α (not 0; negative puts the mass near `high`).
    pub alpha: f64,
    /// Lower bound `L` of the Pareto range (> 0).
    pub low: f64,
    /// Upper bound `H` of the Pareto range (> `low`).
    pub high: f64,
    /// Per-object busy work from the same distribution.
    pub skewed_compute: bool,
    /// Interleave the leaf clusters in LP ids: object `j` of leaf cluster
    /// `c` is LP `j × C + c` (`C` clusters) instead of `c × X + j`, so
    /// contiguous blocks of ids cut every cluster — a model whose ids do
    /// not follow its structure, where block mapping is no partition.
    pub interleave: bool,
}

/// Most neighbours per object per level (`K`).
const MAX_NEIGHBOURS: u32 = 1024;

/// Tags of the fixed hashes (neighbour ids, edge weights, compute weights).
const NEIGHBOUR: u64 = 1;
const EDGE: u64 = 2;
const COMPUTE: u64 = 3;

/// SplitMix64 of a few fields: the fixed topology and weights.
fn hash(tag: u64, a: u64, b: u64, c: u64) -> u64 {
    let mut z = tag
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .wrapping_add(a.wrapping_mul(0xbf58_476d_1ce4_e5b9))
        .wrapping_add(b.wrapping_mul(0x94d0_49bb_1331_11eb))
        .wrapping_add(c.wrapping_mul(0xd6e8_feb8_6659_fd93));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A uniform number in [0, 1) from a hash.
fn unit(h: u64) -> f64 {
    (h >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

impl Hierarchy {
    /// LPs of the model: `cluster × 2^(levels − 1)`, or `None` if that is
    /// not a valid LP count.
    pub fn lps(&self) -> Option<u32> {
        if self.levels == 0 || self.levels > 31 {
            return None;
        }
        (self.cluster as u64).checked_shl(self.levels - 1).filter(|&n| n <= u32::MAX as u64).map(|n| n as u32)
    }

    /// Checks the parameters, saying what is wrong.
    pub(crate) fn validate(&self, lps: u32) -> Result<(), String> {
        // K is bounded: every event that leaves its LP weighs its K neighbours.
        if !(1..=31).contains(&self.levels) || self.cluster < 2 || !(1..=MAX_NEIGHBOURS).contains(&self.neighbours) {
            return Err(format!(
                "--hierarchy L,X,K needs 1 <= L <= 31 levels, X >= 2 objects per leaf cluster and 1 <= K <= \
                 {MAX_NEIGHBOURS} neighbours, got {},{},{}",
                self.levels, self.cluster, self.neighbours
            ));
        }
        match self.lps() {
            Some(n) if n == lps => {}
            Some(n) => return Err(format!("--hierarchy gives {n} LPs (X × 2^(L−1)), but the model has {lps}")),
            None => return Err("--hierarchy L,X,K gives more than 2^32 − 1 LPs (X × 2^(L−1))".into()),
        }
        if !(self.alpha.is_finite() && self.alpha != 0.0) {
            return Err(format!("--alpha must be a finite number other than 0, got {}", self.alpha));
        }
        if !(self.low.is_finite() && self.high.is_finite() && self.low > 0.0 && self.high > self.low) {
            return Err(format!(
                "--pareto-low and --pareto-high need 0 < low < high (finite), got {} and {}",
                self.low, self.high
            ));
        }
        Ok(())
    }

    /// The bounded Pareto inverse CDF at `u` in [0, 1]: `low` at 0, `high` at 1.
    #[inline]
    pub(crate) fn pareto(&self, u: f64) -> f64 {
        let (h, l, a) = (self.high, self.low, self.alpha);
        let ha = h.powf(a);
        (h * l / (ha - u * (ha - l.powf(a))).powf(1.0 / a)).clamp(l, h)
    }

    /// The CDF of that distribution at `x` in [low, high].
    fn cdf(&self, x: f64) -> f64 {
        let (h, l, a) = (self.high, self.low, self.alpha);
        ((h.powf(a) - (h * l / x).powf(a)) / (h.powf(a) - l.powf(a))).clamp(0.0, 1.0)
    }

    /// Cumulative probabilities of levels 1..=L (the last is 1): the known
    /// answer the draws of [`destination`](Self::destination) are checked against.
    pub fn level_cdf(&self) -> Vec<f64> {
        let n = self.levels as usize;
        let span = self.high - self.low;
        // Level l takes the slice ((n−l)/n, (n−l+1)/n] of the range, top slice first.
        let p: Vec<f64> = (1..=n)
            .map(|l| {
                let hi = self.low + span * (n - l + 1) as f64 / n as f64;
                let lo = self.low + span * (n - l) as f64 / n as f64;
                self.cdf(hi) - self.cdf(lo)
            })
            .collect();
        let total: f64 = p.iter().sum();
        let mut acc = 0.0;
        let mut cdf: Vec<f64> = p
            .iter()
            .map(|x| {
                acc += x / total;
                acc
            })
            .collect();
        if let Some(last) = cdf.last_mut() {
            *last = 1.0;
        }
        cdf
    }

    /// Mean of the distribution (closed form; density ∝ x^(−α−1) on [low, high]).
    pub(crate) fn mean(&self) -> f64 {
        let (h, l, a) = (self.high, self.low, self.alpha);
        let norm = a * l.powf(a) / (1.0 - (l / h).powf(a));
        if (a - 1.0).abs() < 1e-12 {
            norm * (h / l).ln()
        } else {
            norm * (h.powf(1.0 - a) - l.powf(1.0 - a)) / (1.0 - a)
        }
    }

    /// The level (1-based) a draw `x` of the distribution names: the range
    /// cut into `levels` equal slices, the top slice level 1.
    #[inline]
    fn level_of(&self, x: f64) -> u32 {
        let t = (x - self.low) / (self.high - self.low);
        let n = self.levels;
        1 + (((1.0 - t) * n as f64) as u32).min(n - 1)
    }

    /// Neighbour `j` of object `lp` at `level` (1-based).
    #[inline]
    pub fn neighbour(&self, lp: LpId, level: u32, j: u32) -> LpId {
        let h = hash(NEIGHBOUR, lp as u64, level as u64, j as u64);
        if level == 1 {
            // Another object of the leaf cluster.
            let x = self.cluster;
            let start = lp / x * x;
            let r = (h % (x as u64 - 1)) as u32;
            start + (lp - start + 1 + r) % x
        } else {
            // The sibling half of the level's cluster (halves are aligned).
            let half = self.cluster << (level - 2);
            let other = ((lp / half) ^ 1) * half;
            other + (h % half as u64) as u32
        }
    }

    /// The fixed activity weight of `lp`'s neighbour `j` at `level`.
    #[inline]
    fn edge_weight(&self, lp: LpId, level: u32, j: u32) -> f64 {
        self.pareto(unit(hash(EDGE, lp as u64, level as u64, j as u64)))
    }

    /// `lp`'s share of busy work relative to the mean (1 on average).
    pub(crate) fn compute_weight(&self, lp: LpId) -> f64 {
        self.pareto(unit(hash(COMPUTE, self.position(lp) as u64, 0, 0))) / self.mean()
    }

    /// The number of leaf clusters.
    fn clusters(&self) -> u32 {
        1 << (self.levels - 1)
    }

    /// The tree position of LP `lp`.
    #[inline]
    pub fn position(&self, lp: LpId) -> u32 {
        if self.interleave {
            let c = self.clusters();
            (lp % c) * self.cluster + lp / c
        } else {
            lp
        }
    }

    /// The LP at tree position `pos`.
    #[inline]
    pub fn lp_at(&self, pos: u32) -> LpId {
        if self.interleave {
            (pos % self.cluster) * self.clusters() + pos / self.cluster
        } else {
            pos
        }
    }

    /// The destination of an event leaving `lp`: a level from a Pareto
    /// draw (one draw), a neighbour by the fixed edge weights (one draw
    /// when there are several). Nothing is cached: the model stays plain data.
    #[inline]
    pub(crate) fn destination(&self, lp: LpId, rng: &mut impl Random) -> LpId {
        let pos = self.position(lp);
        self.lp_at(self.destination_at(pos, rng))
    }

    /// [`destination`](Self::destination) in tree positions.
    #[inline]
    fn destination_at(&self, lp: u32, rng: &mut impl Random) -> u32 {
        let level = self.level_of(self.pareto(rng.uniform()));
        let k = self.neighbours;
        let j = if k == 1 {
            0
        } else {
            let total: f64 = (0..k).map(|j| self.edge_weight(lp, level, j)).sum();
            let mut r = rng.uniform() * total;
            let mut pick = k - 1;
            for j in 0..k {
                r -= self.edge_weight(lp, level, j);
                if r < 0.0 {
                    pick = j;
                    break;
                }
            }
            pick
        };
        self.neighbour(lp, level, j)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use timewarp::ReversibleRng;

    /// |observed − expected| within 5 binomial standard deviations.
    fn close(count: u64, n: u64, p: f64, what: &str) {
        let expected = n as f64 * p;
        let sd = (n as f64 * p * (1.0 - p)).sqrt().max(1.0);
        assert!((count as f64 - expected).abs() < 5.0 * sd, "{what}: {count} of {n}, expected {expected:.1} ± {sd:.1}");
    }

    #[test]
    fn regional_split_matches_the_probabilities() {
        let r = Regional { nodes: 4, pes_per_node: 3, regional: 0.3 };
        let (lps, remote) = (120u32, 0.2);
        r.validate(lps, remote).unwrap();
        let mut rng = ReversibleRng::new(5, 1);
        let n = 200_000;
        let (mut far, mut near, mut local) = (0u64, 0u64, 0u64);
        let mut hits = vec![0u64; lps as usize];
        let lp = 47; // node 1 (LPs 30..60), sub-block 1 of it (40..50)
        for _ in 0..n {
            let before = rng.draws();
            let d = r.destination(lp, lps, remote, &mut rng);
            assert_eq!(rng.draws() - before, 2, "two draws per destination");
            hits[d as usize] += 1;
            match (d / 30 == lp / 30, d / 10 == lp / 10) {
                (false, _) => far += 1,
                (true, false) => near += 1,
                (true, true) => local += 1,
            }
        }
        close(far, n, 0.2, "other node");
        close(near, n, 0.3, "other sub-block of the node");
        close(local, n, 0.5, "own sub-block");
        // Uniform inside each class: every LP of another node gets 0.2 / 90.
        for (d, &c) in hits.iter().enumerate() {
            let p = match (d as u32 / 30 == 1, d as u32 / 10 == 4) {
                (false, _) => 0.2 / 90.0,
                (true, false) => 0.3 / 20.0,
                (true, true) => 0.5 / 10.0,
            };
            close(c, n, p, &format!("LP {d}"));
        }
    }

    #[test]
    fn regional_refuses_what_it_cannot_do() {
        let r = Regional { nodes: 1, pes_per_node: 2, regional: 0.5 };
        assert!(r.validate(10, 0.1).unwrap_err().contains("--nodes is 1"));
        assert!(r.validate(9, 0.0).unwrap_err().contains("multiple"));
        assert!(Regional { regional: 0.95, ..r }.validate(10, 0.1).is_err());
        assert!(Regional { nodes: 2, pes_per_node: 1, regional: 0.1 }.validate(10, 0.1).is_err());
    }

    fn hier(alpha: f64) -> Hierarchy {
        Hierarchy {
            levels: 4,
            cluster: 8,
            neighbours: 3,
            alpha,
            low: 1.0,
            high: 10.0,
            skewed_compute: false,
            interleave: false,
        }
    }

    #[test]
    fn interleaved_ids_are_a_bijection_that_scatters_clusters() {
        let h = Hierarchy { cluster: 6, interleave: true, ..hier(1.0) };
        let n = h.lps().unwrap();
        let mut seen = vec![false; n as usize];
        for pos in 0..n {
            let lp = h.lp_at(pos);
            assert_eq!(h.position(lp), pos);
            assert!(!std::mem::replace(&mut seen[lp as usize], true));
        }
        // Leaf cluster 0 (positions 0..6) is LPs 0, 8, 16, ...: one per block of 8 ids.
        assert_eq!((0..6).map(|p| h.lp_at(p)).collect::<Vec<_>>(), vec![0, 8, 16, 24, 32, 40]);
    }

    #[test]
    fn pareto_inverse_cdf_and_cdf_agree() {
        for alpha in [-5.0, -1.0, 0.5, 1.0, 2.0] {
            let h = hier(alpha);
            assert!((h.pareto(0.0) - 1.0).abs() < 1e-9 && (h.pareto(1.0) - 10.0).abs() < 1e-9);
            for u in [0.1, 0.37, 0.5, 0.9] {
                assert!((h.cdf(h.pareto(u)) - u).abs() < 1e-9, "alpha {alpha} u {u}");
            }
        }
    }

    #[test]
    fn mean_matches_the_inverse_cdf() {
        for alpha in [-5.0, -1.0, 0.5, 1.0, 2.0] {
            let h = hier(alpha);
            const N: usize = 100_000;
            let m = (0..N).map(|i| h.pareto((i as f64 + 0.5) / N as f64)).sum::<f64>() / N as f64;
            assert!((m - h.mean()).abs() < 1e-3 * m, "alpha {alpha}: {m} vs {}", h.mean());
        }
    }

    #[test]
    fn alpha_minus_five_is_mostly_near_and_alpha_one_mostly_far() {
        let near = hier(-5.0).level_cdf();
        let far = hier(1.0).level_cdf();
        assert!(near[0] > 0.5, "alpha -5: level 1 gets {}", near[0]);
        assert!(1.0 - far[2] > 0.5, "alpha 1: level 4 gets {}", 1.0 - far[2]);
    }

    #[test]
    fn neighbours_lie_at_their_level() {
        let h = hier(1.0);
        let n = h.lps().unwrap();
        assert_eq!(n, 64);
        for lp in 0..n {
            for j in 0..5 {
                let d = h.neighbour(lp, 1, j);
                assert!(d != lp && d / 8 == lp / 8, "level 1 of {lp}: {d}");
                for level in 2..=4 {
                    let d = h.neighbour(lp, level, j);
                    let (size, half) = (8 << (level - 1), 8 << (level - 2));
                    assert_eq!(d / size, lp / size, "level {level} of {lp}: {d} outside the cluster");
                    assert_ne!(d / half, lp / half, "level {level} of {lp}: {d} in its own half");
                }
            }
        }
    }

    #[test]
    fn hierarchical_destinations_follow_level_and_edge_probabilities() {
        let h = hier(-1.0);
        let cdf = h.level_cdf();
        let mut rng = ReversibleRng::new(3, 9);
        let lp = 21;
        let n = 200_000;
        let mut hits = std::collections::HashMap::<LpId, u64>::new();
        for _ in 0..n {
            *hits.entry(h.destination(lp, &mut rng)).or_default() += 1;
        }
        // The known answer: P(level) × weight share of each neighbour, summed
        // over (level, j) that name the same LP.
        let mut expected = std::collections::HashMap::<LpId, f64>::new();
        let mut prev = 0.0;
        for level in 1..=4 {
            let p = cdf[level as usize - 1] - prev;
            prev = cdf[level as usize - 1];
            let total: f64 = (0..3).map(|j| h.edge_weight(lp, level, j)).sum();
            for j in 0..3 {
                *expected.entry(h.neighbour(lp, level, j)).or_default() += p * h.edge_weight(lp, level, j) / total;
            }
        }
        assert_eq!(hits.keys().copied().collect::<std::collections::BTreeSet<_>>(), expected.keys().copied().collect());
        for (d, p) in expected {
            close(hits[&d], n, p, &format!("neighbour {d}"));
        }
    }
}
