//! Which process holds which PE.
//!
//! A run has `ranks` processes of the same number of PEs each; global PE
//! `g` is local PE `g % pes` of process `g / pes`, so every process' PEs
//! are one block of global ids. Everything that asks "which process is PE
//! `g` in?", "is it in this one?" or "what is its index here?" asks a
//! [`Layout`], so the arithmetic is written once. A run's layout comes
//! from [`Config::layout`](crate::Config::layout); it sits below the
//! configuration, the placement and the transport, which all use it.
//!
//! A global PE id is a [`PeId`]; an index among this process' PEs (into
//! its vectors of PEs, rings and inboxes) stays a `usize`, so the compiler
//! tells the two apart.

use std::fmt;

/// A PE's global id: its number over all processes of the run
/// (`0..Layout::pes()`), the number placements, the transport and the
/// wire use. A type of its own so that a local index (a plain `usize`)
/// cannot be passed where a global id is expected.
///
/// A `u32`: the width of the wire's section header and of a mapping
/// table's entries, so neither needs a conversion, and a `(PeId, record)`
/// pair in an inbox stays small.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PeId(u32);

impl PeId {
    /// Global PE `pe` (computed from a layout or a count of PEs).
    #[inline]
    pub(crate) fn new(pe: usize) -> Self {
        PeId(u32::try_from(pe).expect("a run's PE ids fit in 32 bits"))
    }

    /// The id, an index into vectors over all PEs of the run.
    #[inline]
    pub(crate) fn index(self) -> usize {
        // Widening: usize is at least 32 bits wherever this runs.
        self.0 as usize
    }
}

/// From the wire or a mapping table (their PE ids are `u32`).
impl From<u32> for PeId {
    #[inline]
    fn from(pe: u32) -> Self {
        PeId(pe)
    }
}

/// For the wire and the timeline (they write PE ids in 32 bits).
impl From<PeId> for u32 {
    #[inline]
    fn from(pe: PeId) -> Self {
        pe.0
    }
}

impl fmt::Display for PeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The PEs of a run, seen from one of its processes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    /// This process, `0..ranks`.
    rank: usize,
    /// Processes in the run.
    ranks: usize,
    /// PEs in each process.
    pes: usize,
    /// Global id of this process' first PE (kept: the locality test is on
    /// the send path).
    first: usize,
}

impl Layout {
    /// Process `rank` of `ranks`, each with `pes_per_process` PEs.
    pub(crate) fn new(rank: usize, ranks: usize, pes_per_process: usize) -> Self {
        debug_assert!(rank < ranks && pes_per_process > 0, "process {rank} of {ranks}, {pes_per_process} PEs each");
        Layout { rank, ranks, pes: pes_per_process, first: rank * pes_per_process }
    }

    /// This process, `0..ranks()`.
    #[inline]
    pub(crate) fn rank(&self) -> usize {
        self.rank
    }

    /// Processes in the run.
    #[inline]
    pub(crate) fn ranks(&self) -> usize {
        self.ranks
    }

    /// PEs in each process.
    #[inline]
    pub(crate) fn pes_per_process(&self) -> usize {
        self.pes
    }

    /// PEs in the run, over all processes.
    #[inline]
    pub(crate) fn pes(&self) -> usize {
        self.ranks * self.pes
    }

    /// The global id of local PE `local`.
    #[inline]
    pub(crate) fn global(&self, local: usize) -> PeId {
        PeId::new(self.first + local)
    }

    /// The process global PE `pe` is in.
    #[inline]
    pub(crate) fn process_of(&self, pe: PeId) -> usize {
        pe.index() / self.pes
    }

    /// The index among this process' PEs of global PE `pe`, if it is here.
    #[inline]
    pub(crate) fn local_of(&self, pe: PeId) -> Option<usize> {
        let l = pe.index().wrapping_sub(self.first);
        (l < self.pes).then_some(l)
    }

    /// Whether global PE `pe` is in this process.
    #[inline]
    pub(crate) fn is_local(&self, pe: PeId) -> bool {
        pe.index().wrapping_sub(self.first) < self.pes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, SyncMode};

    #[test]
    fn a_process_holds_one_block_of_pes() {
        // 3 processes x 4 PEs, seen from process 1: PEs 4..8.
        let l = Layout::new(1, 3, 4);
        let all = || (0..12).map(PeId::new);
        assert_eq!((l.rank(), l.ranks(), l.pes_per_process(), l.pes()), (1, 3, 4, 12));
        assert_eq!(all().filter(|&g| l.is_local(g)).map(PeId::index).collect::<Vec<_>>(), [4, 5, 6, 7]);
        assert_eq!(
            all().map(|g| l.local_of(g)).collect::<Vec<_>>()[3..9],
            [None, Some(0), Some(1), Some(2), Some(3), None]
        );
        assert_eq!(all().map(|g| l.process_of(g)).collect::<Vec<_>>(), [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]);
        assert!((0..4).all(|i| l.local_of(l.global(i)) == Some(i)));
        assert_eq!(l.global(2), PeId::new(6));
        assert!(!l.is_local(PeId::from(u32::MAX)));
        let one = Layout::new(0, 1, 2);
        let g = PeId::new;
        assert!(one.is_local(g(0)) && one.is_local(g(1)) && !one.is_local(g(2)) && one.process_of(g(1)) == 0);
    }

    #[test]
    fn a_pe_id_is_its_u32_on_the_wire() {
        let pe = PeId::new(7);
        assert_eq!((pe.index(), u32::from(pe), PeId::from(7u32), pe.to_string()), (7, 7, pe, "7".to_string()));
    }

    #[test]
    fn the_mode_sets_the_pes_per_process() {
        let cfg = Config { threads: 2, pes: Some(8), sync: SyncMode::Optimistic, ..Config::default() };
        assert_eq!(cfg.layout(1, 2), Layout::new(1, 2, 8));
        let cfg = Config { threads: 2, sync: SyncMode::Conservative, ..Config::default() };
        assert_eq!(cfg.layout(0, 3).pes(), 6);
    }
}
