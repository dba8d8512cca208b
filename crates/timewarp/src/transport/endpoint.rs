//! A PE's one way to every other PE: the rings to PEs of its process
//! ([`Links`]) and the port to PEs of other processes ([`Port`], handed to
//! the [`Network`]) behind one set of calls, so the PE routes once (own PE
//! or not) and takes in one stream of messages.
//!
//! Whether a PE is in this process is the [`Layout`]'s test; with
//! [`NoNet`](super::network::NoNet) (`N::ACTIVE` false) every PE is, and
//! the port branches compile away: the threads-only path is the rings alone.

use serde::{de::DeserializeOwned, Serialize};

use crate::error::Error;
use crate::gvt::Gvt;
use crate::key::{Key, LpId};

use super::network::{Network, Visit};
use super::port::Port;
use super::ring::Links;
use super::wire::Wire;
use crate::layout::{Layout, PeId};

/// One PE's rings and port, and the network that carries the port's bytes.
pub(crate) struct Transport<'a, Msg, N> {
    links: Links<Msg>,
    port: Port,
    net: &'a N,
    /// This PE's index among its process' PEs.
    local: usize,
    layout: Layout,
}

impl<'a, Msg: Copy + Serialize + DeserializeOwned, N: Network> Transport<'a, Msg, N> {
    /// The transport of local PE `local` of the process `layout` sees
    /// from, over `links` and `net`.
    pub(crate) fn new(local: usize, layout: Layout, links: Links<Msg>, net: &'a N) -> Self {
        Transport { links, port: Port::new(local, layout), net, local, layout }
    }

    /// The local index of global PE `pe`, if it is in this process.
    #[inline(always)]
    fn local_of(&self, pe: PeId) -> Option<usize> {
        if !N::ACTIVE {
            // One process: a PE's global id is its local index.
            return Some(pe.index());
        }
        self.layout.local_of(pe)
    }

    /// Whether global PE `pe` is in another process.
    #[inline]
    pub(crate) fn elsewhere(&self, pe: PeId) -> bool {
        self.local_of(pe).is_none()
    }

    /// Sends a new event to global PE `to` (not this one); returns its
    /// number on that channel, which an anti-message for it will carry.
    #[inline]
    pub(crate) fn send_event(&mut self, to: PeId, key: Key, dst: LpId, msg: Msg) -> Result<u32, Error> {
        match self.local_of(to) {
            Some(l) => Ok(self.links.send_event(l, key, dst, msg)),
            None => self.port.send_event(to, key, dst, msg),
        }
    }

    /// Cancels event number `cseq` sent earlier to global PE `to`.
    #[inline]
    pub(crate) fn send_anti(&mut self, to: PeId, key: Key, dst: LpId, cseq: u32) -> Result<(), Error> {
        let anti = Wire::Anti { key, dst, cseq };
        match self.local_of(to) {
            Some(l) => {
                self.links.send(l, anti);
                Ok(())
            }
            None => self.port.send(to, &anti),
        }
    }

    /// Once per batch: moves messages that wait for room into their rings,
    /// and hands what waits for other processes to the courier (if it is
    /// free), saying how the batch went (`visit`).
    #[inline]
    pub(crate) fn flush(&mut self, gvt: &Gvt, visit: Visit) -> Result<(), Error> {
        self.links.flush();
        if N::ACTIVE {
            self.net.exchange(self.local, &mut self.port, gvt, visit)?;
        }
        Ok(())
    }

    /// Before the PE enters phase A of GVT round `round`: what it sent
    /// before goes out under the old colour and is counted (white); what it
    /// sends from now on carries `round`.
    pub(crate) fn enter_round(&mut self, gvt: &Gvt, round: u64) -> Result<(), Error> {
        if N::ACTIVE {
            self.net.exchange(self.local, &mut self.port, gvt, Visit::Round)?;
            self.port.epoch = round;
            self.net.snapshot(self.local, &self.port.sent);
        }
        Ok(())
    }

    /// Whether records wait to be handed to another process.
    #[inline]
    pub(crate) fn waiting(&self) -> bool {
        N::ACTIVE && self.port.waiting()
    }

    /// Messages waiting for room in their ring.
    #[inline]
    pub(crate) fn spilled(&self) -> usize {
        self.links.spilled()
    }

    /// Smallest key among messages waiting for room in their ring (they are
    /// in flight). What waits for another process is not counted: it is
    /// handed over before phase A and counted there.
    pub(crate) fn spilled_min(&self) -> Key {
        self.links.spilled_min()
    }

    /// Hands every message that arrived for this PE, from the rings and
    /// from other processes, to `take`, each with the global PE it came
    /// from; returns how many.
    #[inline]
    pub(crate) fn drain_with(&mut self, mut take: impl FnMut(PeId, Wire<Msg>)) -> Result<usize, Error> {
        let mut n = self.links.drain_with(&mut take);
        if N::ACTIVE {
            self.net.collect(self.local, &mut self.port);
            for sec in self.port.inbound.drain(..) {
                let from = sec.head.src_pe;
                for w in sec.records::<Msg>() {
                    take(from, w?);
                    n += 1;
                }
            }
        }
        Ok(n)
    }
}
