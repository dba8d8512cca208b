//! Placement of LPs on KPs and PEs.
//!
//! Placement never changes what is committed (the event order depends only on
//! the model's history), only how much is sent between PEs and how much a
//! rollback undoes. Block mapping is the default: contiguous LP ids per PE,
//! and contiguous runs of those per KP. Any other mapping ([`Mapping`]) is a
//! table: PE and index within the PE per LP. Every kernel, and MPI, places
//! LPs through one [`Placement`], built by [`Config::placement`](crate::Config::placement) over every
//! PE of the run; which process runs which PE is the
//! [`Layout`](crate::layout::Layout)'s business.

use std::sync::Arc;

use serde::Serialize;

use crate::error::Error;
use crate::key::LpId;
use crate::layout::PeId;

/// How LPs are placed on PEs (a run-time option).
///
/// ```
/// use timewarp::Mapping;
/// let m = Mapping::parse_table("0\n1\n1\n").unwrap();
/// assert_eq!(m, Mapping::Table(vec![0, 1, 1].into()));
/// assert!(Mapping::parse_table("[0, 2, 1]").is_ok()); // JSON too
/// assert!(Mapping::parse_table("0\nx\n").unwrap_err().to_string().contains("line 2"));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Mapping {
    /// Contiguous blocks of LP ids per PE (the default).
    #[default]
    Block,
    /// A random permutation of the LPs (from the run's seed) in equal blocks:
    /// the worst case for communication, a test of placement independence.
    Random,
    /// Entry `i` is the PE of LP `i` (PEs numbered over all processes).
    Table(Arc<[u32]>),
}

impl Serialize for Mapping {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            Mapping::Block => "block",
            Mapping::Random => "random",
            Mapping::Table(_) => "table",
        })
    }
}

impl Mapping {
    /// Reads a table: one PE number per LP, one per line (blank lines and
    /// `#` comments skipped), or a JSON array of numbers.
    pub fn parse_table(text: &str) -> Result<Mapping, Error> {
        if text.trim_start().starts_with('[') {
            let v: Vec<u32> = serde_json::from_str(text)
                .map_err(|e| Error::Config(format!("mapping table (JSON, a list of PE numbers): {e}")))?;
            return Ok(Mapping::Table(v.into()));
        }
        let mut v = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let t = line.split('#').next().unwrap_or("").trim();
            if t.is_empty() {
                continue;
            }
            let pe = t.parse::<u32>().map_err(|_| {
                Error::Config(format!(
                    "mapping table, line {}: '{}' is not a PE number (one PE number per LP, one per line)",
                    i + 1,
                    crate::text::printable(t)
                ))
            })?;
            v.push(pe);
        }
        Ok(Mapping::Table(v.into()))
    }
}

/// Where every LP of a run lives: LP -> (PE, index among the PE's LPs, KP).
/// Kernels are generic over it, so the block arithmetic of the default
/// mapping costs what it did before any other mapping existed.
pub(crate) trait Place: std::marker::Sync {
    /// Number of PEs.
    fn pes(&self) -> usize;
    /// KPs on each PE.
    fn kps_per_pe(&self) -> usize;
    /// The PE that owns `lp`.
    fn pe_of(&self, lp: LpId) -> PeId;
    /// The KP (index within its PE) of `lp`.
    fn kp_of(&self, lp: LpId) -> usize;
    /// Index of `lp` among the LPs of its PE, whose [`first_lp`](Self::first_lp) is `first`.
    fn local_of(&self, lp: LpId, first: LpId) -> usize;
    /// [`kp_of`](Self::kp_of) for an LP of the PE whose
    /// [`first_lp`](Self::first_lp) is `first` (block arithmetic then needs
    /// one division, not two: it runs once per optimistic event).
    #[inline]
    fn kp_of_own(&self, lp: LpId, first: LpId) -> usize {
        let _ = first;
        self.kp_of(lp)
    }
    /// The LPs of PE `pe`, in id order.
    fn lps_of(&self, pe: PeId) -> Vec<LpId>;
    /// What [`local_of`](Self::local_of) takes as `first` for PE `pe`.
    fn first_lp(&self, pe: PeId) -> LpId;
}

/// The placement of a run: block arithmetic, or tables for any other mapping.
pub(crate) enum Placement {
    /// Contiguous blocks.
    Block(BlockMapping),
    /// Per-LP tables.
    Table(TableMapping),
}

/// Any mapping, as tables: per LP its PE, index in the PE and KP.
#[derive(Clone, Debug)]
pub(crate) struct TableMapping {
    kps: usize,
    pe: Vec<u32>,
    local: Vec<u32>,
    kp: Vec<u32>,
    /// Per PE: its LPs in id order.
    lps: Vec<Vec<LpId>>,
}

/// The LPs of the fullest PE under the block mapping (`num_lps / pes`
/// rounded up): the KPs per PE a run uses are capped at this (see
/// [`Config::kps_in_use`](crate::Config::kps_in_use)).
pub(crate) fn max_lps_per_pe(num_lps: u32, pes: usize) -> u32 {
    num_lps.div_ceil(pes.clamp(1, u32::MAX as usize) as u32).max(1)
}

/// The KPs per PE a run uses when `kps_per_pe` are asked for, each KP to
/// serve at least `min_lps` LPs, and a PE holds at most `lps` LPs: a KP
/// without LPs would only cost memory, so at most one per LP, and at least one.
pub(crate) fn kps_capped(kps_per_pe: usize, min_lps: usize, lps: usize) -> usize {
    kps_per_pe.min(lps / min_lps.max(1)).max(1)
}

impl Placement {
    /// Places `num_lps` LPs on `pes` PEs with `kps_per_pe` KPs each, or
    /// fewer where a KP would serve fewer than `min_lps` LPs (see
    /// [`kps_capped`]). `seed` draws the random mapping.
    pub(crate) fn new(
        mapping: &Mapping,
        num_lps: u32,
        pes: usize,
        kps_per_pe: usize,
        min_lps: usize,
        seed: u64,
    ) -> Result<Self, Error> {
        let kps_per_pe = kps_capped(kps_per_pe, min_lps, max_lps_per_pe(num_lps, pes) as usize);
        let table: Vec<u32> = match mapping {
            Mapping::Block => return Ok(Placement::Block(BlockMapping::new(num_lps, pes, kps_per_pe))),
            Mapping::Random => random_table(num_lps, pes, seed),
            Mapping::Table(t) => {
                if t.len() != num_lps as usize {
                    return Err(Error::Config(format!(
                        "the mapping table has {} entries (lines), but the model has {num_lps} LPs: it needs one PE number per LP",
                        t.len()
                    )));
                }
                if let Some(i) = t.iter().position(|&p| p as usize >= pes) {
                    return Err(Error::Config(format!(
                        "mapping table, line {} (LP {i}): PE {} does not exist; this run has {pes} PEs (0..{pes}: processes × threads)",
                        i + 1,
                        t[i]
                    )));
                }
                t.to_vec()
            }
        };
        let mut lps: Vec<Vec<LpId>> = vec![Vec::new(); pes];
        let mut local = vec![0u32; num_lps as usize];
        for (lp, &p) in table.iter().enumerate() {
            local[lp] = lps[p as usize].len() as u32;
            lps[p as usize].push(lp as LpId);
        }
        let kps_per_pe = kps_capped(kps_per_pe, min_lps, lps.iter().map(Vec::len).max().unwrap_or(1));
        let kp = (0..num_lps as usize)
            .map(|lp| {
                let n = lps[table[lp] as usize].len() as u64;
                (local[lp] as u64 * kps_per_pe as u64 / n) as u32
            })
            .collect();
        Ok(Placement::Table(TableMapping { kps: kps_per_pe, pe: table, local, kp, lps }))
    }
}

/// The PE of every LP under [`Mapping::Random`]: a random permutation (from
/// `seed`) cut into equal blocks. `timewarp partition --scheme random`
/// writes the same table.
pub(crate) fn random_table(num_lps: u32, pes: usize, seed: u64) -> Vec<u32> {
    // Fisher–Yates with SplitMix64 (placement is no model randomness).
    let mut order: Vec<u32> = (0..num_lps).collect();
    let mut x = seed ^ 0x6a09_e667_f3bc_c908;
    for i in (1..order.len()).rev() {
        x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        order.swap(i, (z % (i as u64 + 1)) as usize);
    }
    let mut t = vec![0u32; num_lps as usize];
    for (pos, &lp) in order.iter().enumerate() {
        t[lp as usize] = (pos as u64 * pes as u64 / num_lps.max(1) as u64) as u32;
    }
    t
}

impl Place for TableMapping {
    fn pes(&self) -> usize {
        self.lps.len()
    }
    fn kps_per_pe(&self) -> usize {
        self.kps
    }
    #[inline]
    fn pe_of(&self, lp: LpId) -> PeId {
        PeId::from(self.pe[lp as usize])
    }
    #[inline]
    fn kp_of(&self, lp: LpId) -> usize {
        self.kp[lp as usize] as usize
    }
    #[inline]
    fn local_of(&self, lp: LpId, _: LpId) -> usize {
        self.local[lp as usize] as usize
    }
    fn lps_of(&self, pe: PeId) -> Vec<LpId> {
        self.lps[pe.index()].clone()
    }
    fn first_lp(&self, _: PeId) -> LpId {
        0
    }
}

impl Place for BlockMapping {
    fn pes(&self) -> usize {
        self.pes
    }
    fn kps_per_pe(&self) -> usize {
        self.kps
    }
    #[inline]
    fn pe_of(&self, lp: LpId) -> PeId {
        BlockMapping::pe_of(self, lp)
    }
    #[inline]
    fn kp_of(&self, lp: LpId) -> usize {
        BlockMapping::kp_of(self, lp)
    }
    #[inline]
    fn local_of(&self, lp: LpId, first: LpId) -> usize {
        lp.wrapping_sub(first) as usize
    }
    #[inline]
    fn kp_of_own(&self, lp: LpId, first: LpId) -> usize {
        self.per_kp_div.div(lp.wrapping_sub(first)) as usize
    }
    fn lps_of(&self, pe: PeId) -> Vec<LpId> {
        BlockMapping::lps_of(self, pe).collect()
    }
    fn first_lp(&self, pe: PeId) -> LpId {
        BlockMapping::lps_of(self, pe).start
    }
}

/// Runs `$body` with `$p` bound to the placement's concrete type (a
/// reference to a [`Place`]), so kernels are monomorphised per mapping kind.
macro_rules! with_place {
    ($placement:expr, $p:ident => $body:expr) => {
        match &$placement {
            $crate::mapping::Placement::Block($p) => $body,
            $crate::mapping::Placement::Table($p) => $body,
        }
    };
}
pub(crate) use with_place;

/// Contiguous blocks of LPs per PE, and per KP inside a PE: 10 LPs on 3
/// PEs with 2 KPs each put LPs 4..8 on PE 1, LP 5 in its KP 0.
#[derive(Clone, Debug)]
pub(crate) struct BlockMapping {
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
    pub(crate) fn new(num_lps: u32, pes: usize, kps_per_pe: usize) -> Self {
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

    /// The PE that owns `lp`.
    #[inline]
    pub(crate) fn pe_of(&self, lp: LpId) -> PeId {
        PeId::from(self.per_pe_div.div(lp))
    }

    /// The LPs of PE `pe`, as a range of ids.
    pub(crate) fn lps_of(&self, pe: PeId) -> std::ops::Range<LpId> {
        let lo = u32::from(pe).saturating_mul(self.per_pe).min(self.num_lps);
        let hi = lo.saturating_add(self.per_pe).min(self.num_lps);
        lo..hi
    }

    /// The KP (index within its PE) of `lp`.
    #[inline]
    pub(crate) fn kp_of(&self, lp: LpId) -> usize {
        let pe = self.per_pe_div.div(lp);
        self.per_kp_div.div(lp - pe * self.per_pe) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kp_serves_at_least_min_lps_and_a_pe_has_one_to_kps_per_pe() {
        // (kps asked, fewest LPs a KP, LPs of the fullest PE) -> KPs used
        for (kps, min, lps, used) in [
            (16, 16, 16_384, 16),
            (16, 16, 64, 4),
            (16, 16, 31, 1),
            (16, 16, 32, 2),
            (16, 16, 3, 1),
            (16, 1, 17, 16),
            (16, 1, 5, 5),
            (4, 16, 1_000, 4),
            (16, 0, 5, 5), // 0 reads as 1 (validate refuses it)
        ] {
            assert_eq!(kps_capped(kps, min, lps), used, "kps {kps} min {min} lps {lps}");
        }
        // The block and table placements use the same count.
        for mapping in [Mapping::Block, Mapping::Random] {
            let p = Placement::new(&mapping, 264, 16, 16, 16, 3).unwrap();
            with_place!(p, p => assert_eq!(p.kps_per_pe(), 1));
            let p = Placement::new(&mapping, 1024, 16, 16, 16, 3).unwrap();
            with_place!(p, p => assert_eq!(p.kps_per_pe(), 4));
        }
    }

    #[test]
    fn every_mapping_places_every_lp_once_with_consistent_indices() {
        for mapping in [Mapping::Block, Mapping::Random, Mapping::Table(vec![2, 0, 2, 1, 0, 2, 2].into())] {
            for kps in [1, 2, 16] {
                let placement = Placement::new(&mapping, 7, 3, kps, 1, 9).unwrap();
                with_place!(placement, p => check(p, &mapping, kps));
            }
        }
        fn check(p: &impl Place, mapping: &Mapping, kps: usize) {
            {
                let mut seen = [false; 7];
                for pe in (0..3).map(PeId::new) {
                    let first = p.first_lp(pe);
                    for (i, lp) in p.lps_of(pe).into_iter().enumerate() {
                        assert!(!seen[lp as usize]);
                        seen[lp as usize] = true;
                        assert_eq!(p.pe_of(lp), pe, "{mapping:?}");
                        assert_eq!(p.local_of(lp, first), i, "{mapping:?}");
                        assert!(p.kp_of(lp) < kps);
                        assert_eq!(p.kp_of_own(lp, first), p.kp_of(lp), "{mapping:?}");
                    }
                }
                assert!(seen.iter().all(|&s| s));
            }
        }
        // Random: balanced, and a permutation that depends on the seed.
        let table = |seed| match Placement::new(&Mapping::Random, 1000, 4, 1, 1, seed).unwrap() {
            Placement::Table(t) => t,
            Placement::Block(_) => unreachable!("random is a table"),
        };
        let (a, b) = (table(1), table(2));
        let pe = PeId::new;
        assert!((0..4).all(|i| a.lps_of(pe(i)).len() == 250));
        assert_ne!(a.lps_of(pe(0)), b.lps_of(pe(0)));
        assert_ne!(a.lps_of(pe(0)), (0..250).collect::<Vec<_>>());
    }

    #[test]
    fn bad_tables_are_errors_naming_the_line() {
        let err = |t: Vec<u32>| Placement::new(&Mapping::Table(t.into()), 3, 2, 1, 1, 1).err().unwrap().to_string();
        let short = err(vec![0, 1]);
        assert!(short.contains("2 entries") && short.contains("3 LPs"), "{short}");
        let far = err(vec![0, 1, 5]);
        assert!(far.contains("line 3 (LP 2): PE 5 does not exist"), "{far}");
        assert!(Mapping::parse_table("[1, -2]").is_err());
    }

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
    fn blocks_of_ids_per_pe_and_kp() {
        let m = BlockMapping::new(10, 3, 2);
        assert_eq!((m.pe_of(0), m.pe_of(9)), (PeId::new(0), PeId::new(2)));
        assert_eq!(m.lps_of(PeId::new(1)), 4..8);
        assert_eq!(m.kp_of(5), 0); // the second of PE 1's four LPs
    }

    #[test]
    fn every_lp_is_on_exactly_one_pe_and_kp() {
        for (n, pes, kps) in [(1, 1, 1), (10, 3, 2), (16, 8, 16), (3, 8, 4), (1000, 7, 16)] {
            let m = BlockMapping::new(n, pes, kps);
            let mut seen = 0;
            for pe in (0..pes).map(PeId::new) {
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
