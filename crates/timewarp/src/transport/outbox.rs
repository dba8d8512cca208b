//! Consolidation: the sections every PE of a process hands over, appended
//! to one message per destination process whatever PE wrote them, so a
//! process sends one message per destination rather than one per pair of
//! PEs (the multicore report's optimisation 1).

use std::time::Instant;

use super::wire::{open, push_section, Head};

/// The messages this process is building for the others.
pub(crate) struct Outbox {
    /// Per destination process: the message, and the records it holds.
    msgs: Vec<Vec<u8>>,
    counts: Vec<u64>,
    /// Per destination process: when its message got its first section,
    /// and the earliest timestamp of its records.
    born: Vec<Option<Instant>>,
    first: Vec<f64>,
    /// Buffers of messages already sent, emptied, for reuse.
    pool: Vec<Vec<u8>>,
}

impl Outbox {
    /// Empty messages for each of `ranks` processes.
    pub(crate) fn new(ranks: usize) -> Self {
        Outbox {
            msgs: vec![Vec::new(); ranks],
            counts: vec![0; ranks],
            born: vec![None; ranks],
            first: vec![f64::INFINITY; ranks],
            pool: Vec::new(),
        }
    }

    /// Processes there are messages for (this one included).
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn ranks(&self) -> usize {
        self.msgs.len()
    }

    /// Appends a section of `head.count` encoded `records`, the earliest at
    /// time `first`, to the message for process `q`.
    pub(crate) fn push_section(&mut self, q: usize, head: Head, records: &[u8], first: f64) {
        if self.born[q].is_none() {
            self.born[q] = Some(Instant::now());
            self.first[q] = f64::INFINITY;
        }
        self.first[q] = self.first[q].min(first);
        push_section(&mut self.msgs[q], head, records);
        self.counts[q] += u64::from(head.count);
    }

    /// The message for process `q` and the records it holds, if it holds
    /// something; an empty buffer takes its place.
    #[inline]
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn take(&mut self, q: usize) -> Option<(Vec<u8>, u64)> {
        if self.msgs[q].is_empty() {
            return None;
        }
        let fresh = self.pool.pop().unwrap_or_default();
        let msg = std::mem::replace(&mut self.msgs[q], fresh);
        self.born[q] = None;
        Some((msg, std::mem::take(&mut self.counts[q])))
    }

    /// The message for process `q`, if it holds a section: its bytes, when
    /// it got its first section, and its earliest record's timestamp.
    #[inline]
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn waiting(&self, q: usize) -> Option<(usize, Instant, f64)> {
        self.born[q].map(|t| (self.msgs[q].len(), t, self.first[q]))
    }

    /// Keeps the buffer of a message that was sent, for a later one.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn recycle(&mut self, mut buf: Vec<u8>) {
        buf.clear();
        self.pool.push(buf);
    }

    /// Every message, each started even without a section (so a receiver
    /// waiting for one message per process gets it), and the records they
    /// hold, counted as gone. The caller sends and empties the messages.
    pub(crate) fn seal(&mut self) -> (&mut [Vec<u8>], u64) {
        self.msgs.iter_mut().for_each(open);
        let n = self.counts.iter().sum();
        self.counts.fill(0);
        self.born.fill(None);
        (&mut self.msgs, n)
    }
}

#[cfg(test)]
mod tests {
    use super::super::wire::sections;
    use super::*;
    use crate::layout::PeId;

    #[test]
    fn sections_from_any_pe_share_their_process_message() {
        let mut o = Outbox::new(3);
        let h = |src_pe, count| Head { dst_pe: PeId::new(4), src_pe: PeId::new(src_pe), epoch: 1, count };
        o.push_section(2, h(0, 2), &[1, 2], 7.5);
        let before = Instant::now();
        o.push_section(2, h(1, 1), &[3], 2.5);
        assert!(
            o.waiting(2).is_some_and(|(bytes, born, first)| bytes > 3 && born <= before && first == 2.5),
            "born with its first section, the earliest record's time"
        );
        assert!(o.take(0).is_none() && o.waiting(0).is_none(), "nothing for process 0");
        let (msg, n) = o.take(2).unwrap();
        assert_eq!(n, 3);
        let secs = sections(msg.clone()).unwrap();
        assert_eq!(secs.iter().map(|s| s.head.src_pe.index()).collect::<Vec<_>>(), [0, 1]);
        assert!(o.take(2).is_none() && o.waiting(2).is_none(), "taken");
        o.recycle(msg);
        o.push_section(1, h(0, 1), &[5], 1.0);
        let (msgs, n) = o.seal();
        assert_eq!(n, 1);
        assert!(msgs.iter().all(|m| sections(m.clone()).is_ok()), "every message is started");
        assert_eq!(msgs.iter().map(|m| sections(m.clone()).unwrap().len()).collect::<Vec<_>>(), [0, 1, 0]);
    }
}
