//! Which process holds which PE.
//!
//! A run has `ranks` processes of the same number of PEs each; global PE
//! `g` is local PE `g % pes` of process `g / pes`, so every process' PEs
//! are one block of global ids. Everything that asks "which process is PE
//! `g` in?", "is it in this one?" or "what is its index here?" asks a
//! [`Layout`], so the arithmetic is written once. A run's layout comes
//! from [`Config::layout`](crate::Config::layout); it sits below the
//! configuration, the placement and the transport, which all use it.

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
    pub(crate) fn global(&self, local: usize) -> usize {
        self.first + local
    }

    /// The process global PE `pe` is in.
    #[inline]
    pub(crate) fn process_of(&self, pe: usize) -> usize {
        pe / self.pes
    }

    /// The index among this process' PEs of global PE `pe`, if it is here.
    #[inline]
    pub(crate) fn local_of(&self, pe: usize) -> Option<usize> {
        let l = pe.wrapping_sub(self.first);
        (l < self.pes).then_some(l)
    }

    /// Whether global PE `pe` is in this process.
    #[inline]
    pub(crate) fn is_local(&self, pe: usize) -> bool {
        pe.wrapping_sub(self.first) < self.pes
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
        assert_eq!((l.rank(), l.ranks(), l.pes_per_process(), l.pes()), (1, 3, 4, 12));
        assert_eq!((0..12).filter(|&g| l.is_local(g)).collect::<Vec<_>>(), [4, 5, 6, 7]);
        assert_eq!(
            (0..12).map(|g| l.local_of(g)).collect::<Vec<_>>()[3..9],
            [None, Some(0), Some(1), Some(2), Some(3), None]
        );
        assert_eq!((0..12).map(|g| l.process_of(g)).collect::<Vec<_>>(), [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]);
        assert!((0..4).all(|i| l.local_of(l.global(i)) == Some(i)));
        assert!(!l.is_local(usize::MAX));
        let one = Layout::new(0, 1, 2);
        assert!(one.is_local(0) && one.is_local(1) && !one.is_local(2) && one.process_of(1) == 0);
    }

    #[test]
    fn the_mode_sets_the_pes_per_process() {
        let cfg = Config { threads: 2, pes: Some(8), sync: SyncMode::Optimistic, ..Config::default() };
        assert_eq!(cfg.layout(1, 2), Layout::new(1, 2, 8));
        let cfg = Config { threads: 2, sync: SyncMode::Conservative, ..Config::default() };
        assert_eq!(cfg.layout(0, 3).pes(), 6);
    }
}
