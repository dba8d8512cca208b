//! `--lp-io-dir`: counting CODES's LP-IO figures at run time (a packet
//! delivered, a packet sent on a port) and gathering them into
//! [`Results::lp_io`] at the end (their state: lp_io.rs).

use timewarp::LpId;

use super::lp_io::{LpIo, LpIoRouter, LpIoTables, LpIoTerminal};
use super::node::{Node, Saved};
use super::packet::Header;
use super::{Network, Results, Topology};

// The hooks on the hot paths are a test of the `Option` inlined; the
// counting is out of line, so that a run without the option keeps its code
// layout (issue 60's instruction budget).
impl Node {
    /// Output link `o` sent a packet of `bytes` at `now` (with `--lp-io-dir`
    /// only); a send ends its busy period, as in CODES.
    #[inline(always)]
    pub(crate) fn lp_io_sent(&mut self, o: usize, bytes: u32, now: f64) {
        if self.lp_io.is_some() {
            self.lp_io_sent_counted(o, bytes, now);
        }
    }

    #[cold]
    #[inline(never)]
    fn lp_io_sent_counted(&mut self, o: usize, bytes: u32, now: f64) {
        if let Some(io) = self.lp_io.as_deref_mut() {
            self.log.save(|| Saved::LpIoSent { o: o as u16, bytes });
            io.sent[o] += bytes as u64;
            self.lp_io_unbusy_counted(o, now);
        }
    }

    /// A packet for output `o` found it without a credit at `now`: a
    /// stalled chunk, and the start of a busy period unless one is open
    /// (CODES's `router_packet_receive`: `stalled_chunks`, `last_buf_full`).
    pub(crate) fn lp_io_stall(&mut self, o: usize, now: f64) {
        if let Some(io) = self.lp_io.as_deref_mut() {
            let since = io.since[o];
            self.log.save(|| Saved::LpIoStall { o: o as u16, since });
            io.stalled[o] += 1;
            if since < 0.0 {
                io.since[o] = now;
            }
        }
    }

    /// A credit came back for output `o` (or it sent) at `now`: its open
    /// busy period ends (CODES's `router_buf_update`, `router_packet_send`).
    #[inline(always)]
    pub(crate) fn lp_io_unbusy(&mut self, o: usize, now: f64) {
        if self.lp_io.is_some() {
            self.lp_io_unbusy_counted(o, now);
        }
    }

    #[cold]
    #[inline(never)]
    fn lp_io_unbusy_counted(&mut self, o: usize, now: f64) {
        let Some(io) = self.lp_io.as_deref_mut() else { return };
        let (since, busy) = (io.since[o], io.busy[o]);
        if since >= 0.0 {
            self.log.save(|| Saved::LpIoBusy { o: o as u16, since, busy });
            io.busy[o] += now - since;
            io.since[o] = -1.0;
        }
    }

    /// NIC `nic` created (`sent` false) or sent onto its link a packet of `bytes`.
    #[inline(always)]
    pub(crate) fn lp_io_nic(&mut self, nic: usize, sent: bool, bytes: u32) {
        if self.lp_io.is_some() {
            self.lp_io_nic_counted(nic, sent, bytes);
        }
    }

    #[cold]
    #[inline(never)]
    fn lp_io_nic_counted(&mut self, nic: usize, sent: bool, bytes: u32) {
        if let Some(io) = self.lp_io.as_deref_mut() {
            self.log.save(|| Saved::LpIoNic { nic: nic as u8, sent, bytes });
            let c = if sent { &mut io.injected[nic] } else { &mut io.created[nic] };
            *c += bytes as u64;
        }
    }
}

impl Network {
    /// Packet `p` reached the router (over a link, or the head of a NIC's
    /// queue): stalled if its output has no credit on any channel it may
    /// take (with `--lp-io-dir` only: the callers test it); under CODES's
    /// switch, no room in its output queue's share, as CODES tests it.
    #[cold]
    #[inline(never)]
    pub(crate) fn lp_io_arrived(&self, n: &mut Node, p: &super::Packet, lp: LpId, now: f64) {
        let o = p.out as usize;
        let room = self.switch == super::Switch::Codes;
        if o < self.ports() && self.usable(n, lp, p, o, room).is_none() {
            n.lp_io_stall(o, now);
        }
    }

    /// Router `lp` delivered packet `p` at `now` (with `--lp-io-dir` only);
    /// `whole`: its message is now complete.
    pub(crate) fn lp_io_delivered(&self, lp: LpId, n: &mut Node, p: &Header, now: f64, whole: bool) {
        let Some(io) = n.lp_io.as_deref_mut() else { return };
        let log = &mut n.log;
        let nic = (0..io.recv.len() as u32).find(|&t| self.topology.node(lp, t) == Some(p.dst)).unwrap_or(0);
        let r = &mut io.recv[nic as usize];
        let (lat, routers) = (now - p.created, p.hops + 1);
        let (sum, max, min) = (r.lat_sum, r.lat_max, r.lat_min);
        log.save(|| Saved::LpIoPacket { nic: nic as u8, routers, sum, max, min });
        r.packets += 1;
        r.routers += routers as u64;
        r.lat_sum += lat;
        r.lat_max = r.lat_max.max(lat);
        r.lat_min = if r.packets == 1 { lat } else { r.lat_min.min(lat) };
        // The message's bytes, summed while it is reassembled (the same
        // rule as `deliver`'s: a message is whole at its last packet).
        let bytes = p.bytes as u64;
        let msg_bytes = if p.npkts == 1 {
            Some(bytes)
        } else if let Some(i) = io.pending.iter().position(|e| e.0 == p.src && e.1 == p.msg) {
            if whole {
                let (src, msg, b) = io.pending.swap_remove(i);
                log.save(|| Saved::LpIoPending { op: 2, i: i as u32, src, msg, bytes: b });
                Some(b + bytes)
            } else {
                io.pending[i].2 += bytes;
                log.save(|| Saved::LpIoPending { op: 1, i: i as u32, src: 0, msg: 0, bytes });
                None
            }
        } else {
            io.pending.push((p.src, p.msg, bytes));
            log.save(|| Saved::LpIoPending { op: 0, i: 0, src: 0, msg: 0, bytes: 0 });
            None
        };
        if let Some(bytes) = msg_bytes.filter(|_| whole) {
            io.recv[nic as usize].msg_bytes += bytes;
            log.save(|| Saved::LpIoMessage { nic: nic as u8, bytes });
        }
    }

    /// Adds router `lp`'s rows to [`Results::lp_io`] (in LP-id order).
    pub(crate) fn finalize_lp_io(&self, lp: LpId, io: &LpIo, r: &mut Results) {
        let Topology::Dragonfly(d) = &self.topology else { return };
        let t = r.lp_io.get_or_insert_with(|| {
            let global = (0..d.ports()).filter(|&o| d.is_global(o)).count() as u32;
            LpIoTables {
                local_ports: d.ports() as u32 - global,
                global_ports: global,
                terminal_ports: d.p,
                group_routers: d.a,
                nic_buffer: self.nic_buffer.is_some(),
                ..LpIoTables::default()
            }
        });
        for (nic, x) in io.recv.iter().enumerate() {
            let Some(terminal) = self.topology.node(lp, nic as u32) else { continue };
            t.terminals.push(LpIoTerminal {
                lp,
                terminal,
                msg_bytes: x.msg_bytes,
                packets: x.packets,
                latency_sum: x.lat_sum,
                latency_max: x.lat_max,
                latency_min: x.lat_min,
                routers_sum: x.routers,
                busy_ns: io.stall[nic].busy,
                stalled: io.stall[nic].stalled,
                created_bytes: io.created[nic],
                injected_bytes: io.injected[nic],
            });
        }
        // A busy period still open at the end is left out, as in CODES
        // (it adds a period when the period closes).
        t.routers.push(LpIoRouter {
            lp,
            group: lp / d.a,
            router: lp % d.a,
            port_bytes: io.sent.clone(),
            port_busy: io.busy.clone(),
            port_stalled: io.stalled.clone(),
        });
    }
}
