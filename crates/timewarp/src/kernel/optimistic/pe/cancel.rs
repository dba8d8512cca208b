//! Cancellation: the events an undone event sent are cancelled — on this
//! PE by marking them (dropped when popped, after a secondary rollback if
//! they were processed), elsewhere by an anti-message naming them by their
//! number on the channel, which the receiver looks up in its window of
//! received events.

use rustc_hash::FxHashMap;

use crate::error::Error;
use crate::event::Queued;
use crate::key::{Key, LpId};
use crate::layout::PeId;
use crate::mapping::Place;
use crate::model::Model;
use crate::queue::PendingQueue;
use crate::timeline::SpanKind;

use super::{k3, Pe};
use crate::kernel::optimistic::kp::SentRec;
use crate::transport::Network;
use crate::transport::Received;

/// What a PE keeps to cancel events: the incarnations of those it received
/// (per sender) and the cancelled ones still in its queue.
pub(super) struct Cancels {
    /// Incarnations of events received from each other PE, for anti-messages.
    received: Vec<Received>,
    /// Entries in `received`, all senders together.
    pub(super) received_len: usize,
    /// Cancelled events still in the queue: incarnation -> key (dropped when popped).
    pub(super) cancelled: FxHashMap<u32, Key>,
}

impl Cancels {
    /// For a run of `pes` PEs in all.
    pub(super) fn new(pes: usize) -> Self {
        Cancels {
            received: (0..pes).map(|_| Received::default()).collect(),
            received_len: 0,
            cancelled: FxHashMap::default(),
        }
    }

    /// PE `from` sent event number `cseq` (at `time`), queued here as
    /// incarnation `inc`.
    #[inline]
    pub(super) fn received(&mut self, from: PeId, cseq: u32, time: f64, inc: u32) {
        self.received[from.index()].push(cseq, time, inc);
        self.received_len += 1;
    }

    /// Forgets what was received before time `t` (GVT passed it).
    pub(super) fn trim(&mut self, t: f64) {
        for r in &mut self.received {
            self.received_len -= r.trim(t);
        }
    }

    /// Whether the popped event (incarnation `inc`, at `key`) was cancelled;
    /// if so it is forgotten here (the caller drops it). Once per event:
    /// inlined (as a call it cost 1 % of PHOLD's instructions per event).
    #[inline(always)]
    pub(super) fn dropped(&mut self, inc: u32, key: Key) -> bool {
        if !self.cancelled.is_empty() && self.cancelled.get(&inc) == Some(&key) {
            self.cancelled.remove(&inc);
            return true;
        }
        false
    }
}

impl<M: Model, Q: PendingQueue<Queued<M::Msg>>, N: Network, P: Place> Pe<'_, M, Q, N, P> {
    /// Cancels an event sent by an event being undone.
    pub(super) fn cancel(&mut self, rec: SentRec) -> Result<(), Error> {
        match self.env.route(rec.dst) {
            None => return self.kill(rec.inc, rec.dst, rec.key),
            Some(pe) if N::ACTIVE && rec.key.time >= self.env.s.pause => {
                self.count_remote(pe, -1);
                self.io.parked.remove(&k3(rec.key));
                return Ok(());
            }
            Some(pe) => {
                self.count_remote(pe, -1);
                self.io.transport.send_anti(pe, rec.key, rec.dst, rec.inc)?
            }
        }
        self.round.part.sent(rec.key);
        self.stats.anti_messages += 1;
        Ok(())
    }

    /// An anti-message arrived: find the event it cancels and kill it.
    pub(super) fn annihilate(&mut self, from: PeId, cseq: u32, key: Key, dst: LpId) -> Result<(), Error> {
        let inc = self.cancels.received[from.index()]
            .get(cseq)
            .ok_or_else(|| Error::Internal(format!("anti-message for an unknown event {key:?} to LP {dst}")))?;
        self.kill(inc, dst, key)
    }

    /// Cancels the event of incarnation `inc`: if it was processed, its KP is
    /// rolled back first (secondary rollback; it returns to the queue); then
    /// it is marked to be dropped when popped.
    fn kill(&mut self, inc: u32, dst: LpId, key: Key) -> Result<(), Error> {
        let kp = self.env.kp(dst);
        let found = self.ev.kps[kp].processed.as_slice().binary_search_by(|e| e.key.cmp(&key));
        if let Ok(i) = found {
            if self.ev.kps[kp].processed[i].inc == inc {
                self.stats.secondary_rollbacks += 1;
                self.throttle.window.rolled_back(key.time);
                self.rollback(kp, key, SpanKind::Cancellation)?;
            }
        }
        self.cancels.cancelled.insert(inc, key);
        Ok(())
    }
}
