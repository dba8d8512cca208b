//! Placement of LPs on KPs and PEs.
//!
//! Placement never changes what is committed (the event order depends only on
//! the model's history), only how much is sent between PEs and how much a
//! rollback undoes. Block mapping is the default: contiguous LP ids per PE,
//! and contiguous runs of those per KP.

use crate::key::LpId;

/// Contiguous blocks of LPs per PE, and per KP inside a PE.
///
/// ```
/// use timewarp::mapping::BlockMapping;
/// let m = BlockMapping::new(10, 3, 2);
/// assert_eq!(m.pe_of(0), 0);
/// assert_eq!(m.pe_of(9), 2);
/// assert_eq!(m.lps_of(1), 4..8);
/// assert_eq!(m.kp_of(5), 0); // LP 5 is the second of PE 1's four LPs: KP 0 of that PE
/// ```
#[derive(Clone, Debug)]
pub struct BlockMapping {
    num_lps: u32,
    pes: usize,
    per_pe: u32,
    per_kp: u32,
    kps: usize,
}

impl BlockMapping {
    /// Places `num_lps` LPs on `pes` PEs with `kps_per_pe` KPs each.
    pub fn new(num_lps: u32, pes: usize, kps_per_pe: usize) -> Self {
        let per_pe = num_lps.div_ceil(pes as u32).max(1);
        let per_kp = per_pe.div_ceil(kps_per_pe as u32).max(1);
        BlockMapping { num_lps, pes, per_pe, per_kp, kps: kps_per_pe }
    }

    /// Number of PEs.
    pub fn pes(&self) -> usize {
        self.pes
    }

    /// KPs on each PE.
    pub fn kps_per_pe(&self) -> usize {
        self.kps
    }

    /// The PE that owns `lp`.
    #[inline]
    pub fn pe_of(&self, lp: LpId) -> usize {
        (lp / self.per_pe) as usize
    }

    /// The LPs of PE `pe`, as a range of ids.
    pub fn lps_of(&self, pe: usize) -> std::ops::Range<LpId> {
        let lo = (pe as u32).saturating_mul(self.per_pe).min(self.num_lps);
        let hi = lo.saturating_add(self.per_pe).min(self.num_lps);
        lo..hi
    }

    /// The KP (index within its PE) of `lp`.
    #[inline]
    pub fn kp_of(&self, lp: LpId) -> usize {
        ((lp % self.per_pe) / self.per_kp) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lp_is_on_exactly_one_pe_and_kp() {
        for (n, pes, kps) in [(1, 1, 1), (10, 3, 2), (16, 8, 16), (3, 8, 4), (1000, 7, 16)] {
            let m = BlockMapping::new(n, pes, kps);
            let mut seen = 0;
            for pe in 0..pes {
                for lp in m.lps_of(pe) {
                    assert_eq!(m.pe_of(lp), pe);
                    assert!(m.kp_of(lp) < kps);
                    seen += 1;
                }
            }
            assert_eq!(seen, n);
        }
    }
}
