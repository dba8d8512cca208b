//! A packet: what a router buffers ([`Packet`]), what travels between
//! routers ([`Header`]), and the two halves a journal entry saves of it
//! ([`Front`], [`Back`]).

use serde::{Deserialize, Serialize};

/// "No dimension yet": a packet that has not left its source router.
pub(crate) const NO_DIM: u8 = u8::MAX;
/// A NIC's head whose output is not decided yet (`ugal-codes` decides as
/// its head reaches the router): no output takes it.
pub(crate) const NO_OUT: u8 = u8::MAX;

/// A packet as it waits in a buffer: its [`Header`] and what the router it
/// is at adds (when it may leave, and where to).
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Packet {
    /// When its message was created at the source NIC (ns).
    pub created: f64,
    /// When it entered the network: at the source, when its head reaches
    /// the router having become the head of its NIC queue (it may not leave
    /// before); in transit, carried in its [`Header`]. The age by which
    /// switches arbitrate.
    pub ready: f64,
    /// Source and destination node.
    pub src: u32,
    pub dst: u32,
    /// Message number at the source, and packets in that message.
    pub msg: u32,
    pub npkts: u32,
    /// Bytes in this packet (at most `u16::MAX`, which `Network::validate` checks).
    pub bytes: u32,
    /// Router-to-router hops so far.
    pub hops: u16,
    /// Dimension of the link it is on or about to take, and its dateline
    /// class there (0 before the wrap-around link, 1 after).
    pub dim: u8,
    pub class: u8,
    /// Output port chosen at the current router (routing is done once, on arrival).
    pub out: u8,
    /// Dragonfly: the Valiant intermediate group still to be reached, or
    /// [`NO_VIA`](super::NO_VIA) (minimal routing, or past it).
    pub via: u16,
}

/// What a packet carries from router to router (an `Arrive` or `Deliver`
/// message): the [`Packet`] less the fields only its current router needs.
/// 40 bytes, not the packet's 48: every event in flight is a queue entry, and the
/// pending-event queue of a large network is the simulator's biggest
/// working set (its refills were a fifth of the run time).
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Header {
    pub created: f64,
    /// When the packet entered the network (its [`Packet::ready`] at the
    /// source router): its age for arbitration at every router.
    pub entered: f64,
    pub src: u32,
    pub dst: u32,
    pub msg: u32,
    pub npkts: u32,
    pub bytes: u16,
    pub hops: u16,
    pub dim: u8,
    pub class: u8,
    pub via: u16,
}

/// A packet's first 24 bytes, as a journal entry saves them (see [`Saved`](super::node::Saved)).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Front {
    created: f64,
    ready: f64,
    src: u32,
    dst: u32,
}

/// The rest of a packet, as a journal entry saves it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Back {
    msg: u32,
    npkts: u32,
    bytes: u32,
    hops: u16,
    dim: u8,
    class: u8,
    out: u8,
    via: u16,
}

impl Back {
    /// Bytes in the packet.
    pub(crate) fn bytes(&self) -> u32 {
        self.bytes
    }
}

impl Packet {
    /// The packet's two halves, for two journal entries.
    #[inline(always)]
    pub(crate) fn halves(&self) -> (Front, Back) {
        let p = *self;
        (
            Front { created: p.created, ready: p.ready, src: p.src, dst: p.dst },
            Back {
                msg: p.msg,
                npkts: p.npkts,
                bytes: p.bytes,
                hops: p.hops,
                dim: p.dim,
                class: p.class,
                out: p.out,
                via: p.via,
            },
        )
    }

    /// Puts the front half back.
    #[inline]
    pub(crate) fn set_front(&mut self, f: Front) {
        (self.created, self.ready, self.src, self.dst) = (f.created, f.ready, f.src, f.dst);
    }

    /// Puts the back half back.
    #[inline]
    pub(crate) fn set_back(&mut self, b: Back) {
        (self.msg, self.npkts, self.bytes, self.hops) = (b.msg, b.npkts, b.bytes, b.hops);
        (self.dim, self.class, self.out, self.via) = (b.dim, b.class, b.out, b.via);
    }

    /// What travels to the next router or NIC.
    #[inline]
    pub fn header(&self) -> Header {
        Header {
            created: self.created,
            entered: self.ready,
            src: self.src,
            dst: self.dst,
            msg: self.msg,
            npkts: self.npkts,
            bytes: self.bytes as u16,
            hops: self.hops,
            dim: self.dim,
            class: self.class,
            via: self.via,
        }
    }

    /// The packet whose header arrived (not yet routed).
    #[inline]
    pub fn arrived(h: &Header) -> Packet {
        Packet {
            created: h.created,
            // In transit a packet may leave at once; its age is the network's.
            ready: h.entered,
            src: h.src,
            dst: h.dst,
            msg: h.msg,
            npkts: h.npkts,
            bytes: h.bytes as u32,
            hops: h.hops,
            dim: h.dim,
            class: h.class,
            out: 0,
            via: h.via,
        }
    }
}
