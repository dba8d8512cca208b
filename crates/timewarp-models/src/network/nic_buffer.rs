//! `--nic-buffer` ([`Network::nic_buffer`], CODES's `cn_vc_size`): a
//! bounded buffer at each router's terminal input, with credits returned
//! to the NIC, as CODES's terminals keep `vc_occupancy` for their link
//! (`dragonfly-custom.cxx`, `dragonfly-dally.cxx`, `slimfly.c`,
//! `fattree.c`: a chunk leaves the terminal only while
//! `vc_occupancy + chunk_size <= cn_vc_size`; the router returns a credit
//! when the chunk leaves its terminal input).
//!
//! The buffer has `nic_buffer / packet_bytes` slots (a packet takes one
//! whatever its size, as CODES counts `chunk_size` per chunk). A packet
//! takes a slot when the NIC starts it for the router: at once when it is
//! queued, if every packet before it has one and a credit is left; else
//! it waits at the NIC (its `ready` infinite) until a credit comes back.
//! The credit leaves when the packet leaves the router's terminal input
//! and arrives one terminal link latency after its tail (the same rule as
//! every other buffer's); under `--switch codes` as the packet moves into
//! its output queue, CODES's credit delay later (as CODES's router does). A packet that took its slot at time `t` reaches
//! the router at `max(t + L + R, next)` (`next`: when the link frees of
//! the packet before), so its time on the link is what it was without
//! the buffer whenever a slot is free by then.
//!
//! Packets wait in order at the NIC (its source queue, unbounded as
//! CODES's terminal message queue). With `--lp-io-dir`, a packet whose
//! credit came after the NIC could have sent it (`max(queued, link
//! free)`) counts as stalled, and the wait as the NIC's busy time: the
//! time it held a packet ready to go while the buffer was full (CODES's
//! `last_buf_full` to the next send: docs/codes.md, "Output files").

use timewarp::Ctx;

use super::node::NicBuf;
use super::{Msg, Network, Node, Packet, Switch};

impl Network {
    /// A new packet of NIC `nic` (not yet in its queue): whether it takes a
    /// slot now. One behind a waiting packet waits too. Out of line, as is
    /// `nic_left`: runs without a buffer keep `enqueue` and `take_input` as
    /// they were (inlined, they cost those runs 0.3-0.5 % per event).
    #[cold]
    #[inline(never)]
    pub(crate) fn nic_take_slot(&self, n: &mut Node, nic: usize) -> bool {
        let b = n.nic_buf[nic];
        if b.credits == 0 || (b.sent as usize) < n.inject[nic].queue.len() {
            return false;
        }
        // The buffer never holds more than its slots: those held are `sent` at most.
        debug_assert!(b.sent as u32 + b.credits as u32 <= self.nic_slots().unwrap_or(0) as u32);
        n.nic_buf_set(nic, NicBuf { credits: b.credits - 1, sent: b.sent + 1 });
        true
    }

    /// Packet `p` of NIC `nic` left the router's terminal input: its slot's
    /// credit goes back to the NIC when its tail has left and crossed the link.
    #[cold]
    #[inline(never)]
    pub(crate) fn nic_left(&self, n: &mut Node, nic: usize, p: &Packet, ctx: &mut Ctx<'_, Self>) {
        let b = n.nic_buf[nic];
        n.nic_buf_set(nic, NicBuf { credits: b.credits, sent: b.sent - 1 });
        // As a router's input buffer (`take_input`).
        let delay = if self.switch == Switch::Codes {
            self.codes_credit_delay()
        } else {
            self.lag(ctx.lp(), p, p.out as usize) + self.class_latency(0)
        };
        ctx.send(ctx.lp(), delay, Msg::NicCredit { nic: nic as u8 });
    }

    /// A credit reached NIC `nic`: the first packet waiting there takes the
    /// slot and starts for the router; with none waiting, the NIC keeps it.
    pub(crate) fn nic_credit(&self, n: &mut Node, nic: usize, ctx: &mut Ctx<'_, Self>) {
        let b = n.nic_buf[nic];
        let slots = self.nic_slots().unwrap_or(0);
        // Slots are credits, packets holding one, and credits on their way (this one at least).
        if b.credits as u32 + b.sent as u32 >= slots as u32 {
            return ctx.fail(format!(
                "flow control violated: more credits than the {slots} slots of NIC {nic}'s terminal buffer"
            ));
        }
        let i = b.sent as usize;
        let Some(&p) = n.inject[nic].queue.get(i) else {
            return n.nic_buf_set(nic, NicBuf { credits: b.credits + 1, sent: b.sent });
        };
        // A packet waits only while no credit is left.
        debug_assert_eq!(b.credits, 0);
        let (now, lr) = (ctx.now(), self.class_latency(0) + self.router_delay);
        let next = n.inject[nic].next;
        // When it could have gone but for the buffer: queued, and the link free.
        let could = p.created.max(next - lr);
        let ready = (now + lr).max(next);
        n.save_nic(nic);
        n.inject[nic].next = ready + self.serialisation(p.bytes);
        n.nic_set_ready(nic, i, ready);
        n.nic_buf_set(nic, NicBuf { credits: 0, sent: b.sent + 1 });
        if now > could && n.lp_io.is_some() {
            n.lp_io_stalled(nic, now - could);
        }
        if i == 0 {
            self.try_input(n, self.ports() * self.vcs as usize + nic, ctx);
        }
    }
}
