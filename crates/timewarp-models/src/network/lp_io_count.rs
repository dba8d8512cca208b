//! `--lp-io-dir`: counting CODES's LP-IO figures at run time (a packet
//! delivered, a packet sent on a port) and gathering them into
//! [`Results::lp_io`] at the end (their state: lp_io.rs).

use timewarp::LpId;

use super::lp_io::{LpIo, LpIoRouter, LpIoTables, LpIoTerminal};
use super::node::{Node, Saved};
use super::packet::Header;
use super::{Network, Results, Topology};

impl Node {
    /// Output link `o` sent a packet of `bytes` (with `--lp-io-dir` only).
    pub(crate) fn lp_io_sent(&mut self, o: usize, bytes: u32) {
        if let Some(io) = self.lp_io.as_deref_mut() {
            self.log.save(|| Saved::LpIoSent { o: o as u16, bytes });
            io.sent[o] += bytes as u64;
        }
    }
}

impl Network {
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
            });
        }
        t.routers.push(LpIoRouter { lp, group: lp / d.a, router: lp % d.a, port_bytes: io.sent.clone() });
    }
}
