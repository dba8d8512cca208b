//! `--nic-buffer`'s writes (nic_buffer.rs has the behaviour): a NIC's
//! credits and sent count, a waiting packet given its time, and the
//! LP-IO counters of packets that waited.

use super::super::node::{NicBuf, Node, Saved};

impl Node {
    /// NIC `nic`'s credits and sent count become `b`.
    #[inline]
    pub(crate) fn nic_buf_set(&mut self, nic: usize, b: NicBuf) {
        let NicBuf { credits, sent } = self.nic_buf[nic];
        self.log.save(|| Saved::NicBuf { nic: nic as u8, credits, sent });
        self.nic_buf[nic] = b;
    }

    /// Packet `i` of NIC `nic`'s queue took a slot: its head reaches the router at `ready`.
    #[inline]
    pub(crate) fn nic_set_ready(&mut self, nic: usize, i: usize, ready: f64) {
        let p = &mut self.inject[nic].queue[i];
        let old = p.ready;
        self.log.save(|| Saved::NicReady { nic: nic as u8, i: i as u32, ready: old });
        p.ready = ready;
    }

    /// `--lp-io-dir`: NIC `nic`'s packet waited `wait` ns for a slot.
    #[inline]
    pub(crate) fn lp_io_stalled(&mut self, nic: usize, wait: f64) {
        if let Some(io) = self.lp_io.as_deref_mut() {
            let w = &mut io.stall[nic];
            let busy = w.busy;
            self.log.save(|| Saved::LpIoNicStall { nic: nic as u8, busy });
            w.busy += wait;
            w.stalled += 1;
        }
    }
}
