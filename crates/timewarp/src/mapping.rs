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
    kps: usize,
    per_pe_div: FastDiv,
    per_kp_div: FastDiv,
}

/// Exact division of any `u32` by a fixed divisor with one 128-bit multiply
/// (Lemire, Kaser & Kurz 2019: a 64-bit reciprocal is exact for 32-bit
/// numerators). PE and KP lookups run for every event and send.
#[derive(Clone, Copy, Debug)]
struct FastDiv(u64);

impl FastDiv {
    fn new(d: u32) -> Self {
        assert!(d > 0);
        FastDiv((u64::MAX / d as u64).wrapping_add(1))
    }
    #[inline]
    fn div(self, n: u32) -> u32 {
        if self.0 == 0 {
            return n; // d == 1: the reciprocal 2^64 wrapped to 0
        }
        ((self.0 as u128 * n as u128) >> 64) as u32
    }
}

impl BlockMapping {
    /// Places `num_lps` LPs on `pes` PEs with `kps_per_pe` KPs each.
    pub fn new(num_lps: u32, pes: usize, kps_per_pe: usize) -> Self {
        let per_pe = num_lps.div_ceil(pes as u32).max(1);
        let per_kp = per_pe.div_ceil(kps_per_pe as u32).max(1);
        BlockMapping {
            num_lps,
            pes,
            per_pe,
            kps: kps_per_pe,
            per_pe_div: FastDiv::new(per_pe),
            per_kp_div: FastDiv::new(per_kp),
        }
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
        self.per_pe_div.div(lp) as usize
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
        let pe = self.per_pe_div.div(lp);
        self.per_kp_div.div(lp - pe * self.per_pe) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_division_is_exact() {
        let mut x = 0x9e37_79b9u32;
        for d in [1u32, 2, 3, 7, 10, 16, 641, 65_535, 65_536, 1 << 20, 3_000_000_019, u32::MAX] {
            let f = FastDiv::new(d);
            for n in [0u32, 1, d - 1, d, d.wrapping_add(1), u32::MAX, u32::MAX - 1] {
                assert_eq!(f.div(n), n / d, "{n} / {d}");
            }
            for _ in 0..10_000 {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                assert_eq!(f.div(x), x / d, "{x} / {d}");
            }
        }
    }

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
