//! A PE's port to other processes, in every parallel kernel: what it sends
//! to PEs of other processes, encoded ([`wire`](super::wire)) into one
//! buffer per destination PE until it is handed over as sections into the
//! process' [`Outbox`], and the sections that arrived for it, not yet
//! decoded.

use serde::Serialize;

use crate::error::Error;
use crate::key::{Key, LpId};

use super::outbox::Outbox;
use super::wire::{push_record, Head, Section, Wire};
use crate::layout::{Layout, PeId};

/// A PE's buffers for other processes.
pub(crate) struct Port {
    layout: Layout,
    /// This PE's global id.
    me: PeId,
    /// What sections carry in their `epoch` field: the GVT round this PE
    /// last entered phase A of (the colour of its sends), or the window.
    pub(crate) epoch: u64,
    /// Encoded records per destination PE, their counts, and the earliest
    /// timestamp among them.
    out: Vec<Vec<u8>>,
    out_n: Vec<u32>,
    first: Vec<f64>,
    /// Destination PEs with records waiting.
    dirty: Vec<PeId>,
    /// Events sent so far on the channel to each PE (numbers them).
    seq: Vec<u32>,
    /// Records sent so far to each process.
    pub(crate) sent: Vec<u64>,
    /// Sections that arrived for this PE, not yet decoded.
    pub(crate) inbound: Vec<Section>,
}

impl Port {
    /// The port of local PE `local` of the process `layout` sees from.
    pub(crate) fn new(local: usize, layout: Layout) -> Self {
        let pes = layout.pes();
        Port {
            layout,
            me: layout.global(local),
            epoch: 0,
            out: vec![Vec::new(); pes],
            out_n: vec![0; pes],
            first: vec![f64::INFINITY; pes],
            dirty: Vec::new(),
            seq: vec![0; pes],
            sent: vec![0; layout.ranks()],
            inbound: Vec::new(),
        }
    }

    /// True when records wait to be handed over.
    #[inline]
    pub(crate) fn waiting(&self) -> bool {
        !self.dirty.is_empty()
    }

    /// Encodes a new event for global PE `to`; returns its channel number.
    #[inline]
    pub(crate) fn send_event<Msg: Serialize>(&mut self, to: PeId, key: Key, dst: LpId, msg: Msg) -> Result<u32, Error> {
        let t = to.index();
        let cseq = self.seq[t];
        self.seq[t] = cseq.wrapping_add(1);
        self.send(to, &Wire::Event { key, dst, cseq, msg })?;
        Ok(cseq)
    }

    /// Encodes `w` for global PE `to`.
    #[inline]
    pub(crate) fn send<Msg: Serialize>(&mut self, to: PeId, w: &Wire<Msg>) -> Result<(), Error> {
        let t = to.index();
        if self.out_n[t] == 0 {
            self.dirty.push(to);
            self.first[t] = f64::INFINITY;
        }
        self.first[t] = self.first[t].min(w.key().time);
        push_record(&mut self.out[t], w)?;
        self.out_n[t] += 1;
        self.sent[self.layout.process_of(to)] += 1;
        Ok(())
    }

    /// Moves the waiting records, one section per destination PE, into the
    /// message for their process in `outbox`.
    pub(crate) fn hand_over(&mut self, outbox: &mut Outbox) {
        for to in self.dirty.drain(..) {
            let t = to.index();
            let head = Head { dst_pe: to, src_pe: self.me, epoch: self.epoch, count: self.out_n[t] };
            outbox.push_section(self.layout.process_of(to), head, &self.out[t], self.first[t]);
            self.out[t].clear();
            self.out_n[t] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::wire::sections;
    use super::*;

    #[test]
    fn port_keeps_order_and_numbers_channels() {
        // 2 processes x 2 PEs; PE 0 sends to PEs 2 and 3 (process 1).
        let mut p = Port::new(0, Layout::new(0, 2, 2));
        let k = |t: f64| Key::new(t, 0, 0, 0);
        let pe = PeId::new;
        assert_eq!(p.send_event(pe(2), k(1.0), 9, 10u64).unwrap(), 0);
        assert_eq!(p.send_event(pe(3), k(2.0), 12, 11u64).unwrap(), 0);
        assert_eq!(p.send_event(pe(2), k(3.0), 8, 12u64).unwrap(), 1);
        p.send::<u64>(pe(2), &Wire::Anti { key: k(1.0), dst: 9, cseq: 0 }).unwrap();
        assert_eq!(p.sent, vec![0, 4]);
        let mut outbox = Outbox::new(2);
        p.epoch = 5;
        p.hand_over(&mut outbox);
        assert!(outbox.take(0).is_none() && !p.waiting());
        let (msg, count) = outbox.take(1).unwrap();
        assert_eq!(count, 4);
        let secs = sections(msg).unwrap();
        assert_eq!(
            secs.iter().map(|s| (s.head.dst_pe, s.head.src_pe, s.head.epoch, s.head.count)).collect::<Vec<_>>(),
            [(pe(2), pe(0), 5, 3), (pe(3), pe(0), 5, 1)]
        );
        let to2: Vec<Wire<u64>> = secs[0].records().map(Result::unwrap).collect();
        assert!(matches!(to2[0], Wire::Event { dst: 9, cseq: 0, msg: 10, .. }));
        assert!(matches!(to2[1], Wire::Event { dst: 8, cseq: 1, msg: 12, .. }));
        assert!(matches!(to2[2], Wire::Anti { dst: 9, cseq: 0, .. }));
    }
}
