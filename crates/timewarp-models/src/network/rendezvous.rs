//! CODES's rendezvous protocol for the ranks' large messages (its MPI
//! replay, `model-net-mpi-replay.c`; docs/network-workloads.md): with
//! [`Network::eager_limit`], a message of that many bytes or more first
//! sends a request-to-send of [`CONTROL_BYTES`] to its receiver, which
//! answers with a clear-to-send once a receive matches it; then the data
//! travels. The receive completes when the data is whole at the receiver;
//! the send (blocking, or its `isend` request) when the clear-to-send is
//! back and the data is handed to the NIC. Smaller messages, and a rank's
//! messages to itself, go eager as without a limit. A collective's
//! messages (expanded into sends and receives at load time) follow the
//! same rule by size, each send the send half of a sendrecv: it does not
//! hold the rank, whose part ends with its receives (blocking sends in
//! both directions would deadlock under rendezvous, as they do in MPI).
//! DUMPI's `MPI_Sendrecv` (a send then a receive) is treated alike.
//!
//! The kind of a packet's message travels in the top two bits of its
//! message number (below them, the sender's message number `k`).

use super::workload::{Phase, DETACHED, MAX_RANK_SENDS, NO_REQ, SENDING};
use super::{Network, Node};
use timewarp::Ctx;

/// Bytes of a request- or clear-to-send (CODES's `CONTROL_MSG_SZ`).
pub const CONTROL_BYTES: u32 = 64;

/// CODES's default eager threshold (its `--eager_threshold`): the limit
/// runs imported from a CODES configuration use.
pub const CODES_EAGER_LIMIT: u32 = 8192;

const RTS: u32 = 1 << 31;
const CTS: u32 = 1 << 30;
const DATA: u32 = RTS | CTS;

// The top two bits of a packet's message number carry its kind: a rank
// sends fewer messages than that under a rendezvous protocol (validate.rs).
const _: () = assert!(MAX_RANK_SENDS == CTS);

/// What a packet's message is, under a rendezvous protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    /// A whole eager message, or a request-to-send: what a receive matches.
    Envelope(u32),
    /// A clear-to-send for the receiver's message `.0`.
    Clear(u32),
    /// The data of a rendezvous message.
    Data(u32),
}

impl Part {
    pub(crate) fn of(msg: u32) -> Part {
        let k = msg & !DATA;
        match msg & DATA {
            DATA => Part::Data(k),
            CTS => Part::Clear(k),
            _ => Part::Envelope(k),
        }
    }
}

impl Network {
    /// Whether message `k` of rank `src`, received by rank `me`, goes by
    /// rendezvous (`None`: eager only, or the trace has no such message).
    pub(crate) fn by_rendezvous(&self, src: u32, k: u32, me: u32) -> Option<bool> {
        let limit = self.eager_limit?;
        let bytes = self.workload.as_deref()?.sends.get(src as usize)?.get(k as usize)?.bytes;
        Some(src != me && bytes >= limit)
    }

    /// NIC `nic`'s rank (on node `me`) sends its message `k` to rank `to`
    /// on node `dst` by rendezvous: the request-to-send goes out; `req` is
    /// the `isend`'s request ([`NO_REQ`]: a blocking send), `pc` its operation.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn request_to_send(
        &self,
        n: &mut Node,
        nic: usize,
        (me, dst): (u32, u32),
        to: u32,
        k: u32,
        (req, pc): (u32, u32),
        ctx: &mut Ctx<'_, Self>,
    ) {
        n.rdv(nic).push((SENDING | to, k, req, pc));
        n.rank_mut(nic).control += 1;
        self.enqueue(n, nic, me, dst, CONTROL_BYTES, k | RTS, ctx);
    }

    /// A receive (request `id`, operation `pc`) of NIC `nic`'s rank matched
    /// the request-to-send of message `k` of rank `src`: clear to send; the
    /// request completes when the data is here.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn clear_to_send(
        &self,
        n: &mut Node,
        nic: usize,
        src: u32,
        k: u32,
        (id, pc): (u32, u32),
        ctx: &mut Ctx<'_, Self>,
    ) {
        let w = self.workload.as_deref().expect("a trace workload");
        let (Some(me), Some(&dst)) = (self.topology.node(ctx.lp(), nic as u32), w.node_of.get(src as usize)) else {
            return Self::rank_mismatch(ctx, nic, format_args!("a clear-to-send to rank {src}, not in the trace"));
        };
        n.rdv(nic).push((src, k, id, pc));
        n.rank_mut(nic).control += 1;
        self.enqueue(n, nic, me, dst, CONTROL_BYTES, k | CTS, ctx);
    }

    /// The clear-to-send of message `k` of NIC `nic`'s rank `r` (on node
    /// `me`) came back from rank `to`: its data goes, and its send completes.
    pub(crate) fn cleared(
        &self,
        n: &mut Node,
        nic: usize,
        (me, r): (u32, u32),
        to: u32,
        k: u32,
        ctx: &mut Ctx<'_, Self>,
    ) {
        let w = self.workload.as_deref().expect("a trace workload");
        let at = n.ranks[nic].rdv.iter().position(|e| e.0 == SENDING | to && e.1 == k);
        let (Some(i), Some(s)) = (at, w.sends.get(r as usize).and_then(|s| s.get(k as usize))) else {
            return Self::rank_mismatch(
                ctx,
                nic,
                format_args!("a clear-to-send of message {k} from rank {to}, not sent"),
            );
        };
        let (bytes, dst) = (s.bytes, w.node_of[s.dst as usize]);
        let req = n.rdv(nic).remove(i).2;
        self.enqueue(n, nic, me, dst, bytes.max(1), k | DATA, ctx);
        if req == DETACHED {
            return;
        }
        if req != NO_REQ {
            return self.complete(n, nic, req, ctx);
        }
        let now = ctx.now();
        let rk = n.rank_mut(nic);
        if rk.phase == Phase::Rendezvous {
            rk.comm += now - rk.since;
            rk.phase = Phase::Idle;
            self.run_rank(n, nic, ctx);
        }
    }

    /// The data of rendezvous message `k` of rank `src` is whole at NIC
    /// `nic`: the receive it was cleared for completes.
    pub(crate) fn data_arrived(&self, n: &mut Node, nic: usize, src: u32, k: u32, ctx: &mut Ctx<'_, Self>) {
        let Some(i) = n.ranks[nic].rdv.iter().position(|e| e.0 == src && e.1 == k) else {
            return Self::rank_mismatch(ctx, nic, format_args!("data of message {k} of rank {src}, not cleared"));
        };
        let id = n.rdv(nic).remove(i).2;
        self.complete(n, nic, id, ctx);
    }
}

#[cfg(test)]
mod tests {
    use super::super::node::{Nic, Queues};
    use super::super::workload::Rank;
    use super::*;
    use timewarp::digest::hash_value;

    fn node() -> Node {
        let mut n = Node::bare(Queues::new(6, 2), 3);
        (n.counts.events, n.inject, n.ranks) = (7, vec![Nic::default(); 2], vec![Rank::default(); 2]);
        n
    }

    #[test]
    fn a_packets_kind_travels_in_its_message_number() {
        let k = MAX_RANK_SENDS - 1;
        assert_eq!(
            [Part::of(k), Part::of(k | RTS), Part::of(k | CTS), Part::of(k | DATA)],
            [Part::Envelope(k), Part::Envelope(k), Part::Clear(k), Part::Data(k)]
        );
    }

    #[test]
    fn rendezvous_state_is_journalled_undone_and_encoded_only_when_there_is_some() {
        let start = node();
        let plain = (&start.input, &start.links, &start.counts, &start.inject, &start.output, &start.partial);
        let fields = (plain.0, plain.1, plain.2, plain.3, plain.4, plain.5, &start.ranks);
        assert_eq!(hash_value(&start), hash_value(&fields), "without rendezvous state: the encoding it always had");
        let mut n = node();
        n.log.on = true;
        n.rdv(1).push((SENDING | 3, 4, NO_REQ, 2));
        n.rdv(1).push((2, 0, 7, 5));
        n.rank_mut(1).control += 2;
        n.rdv(1).remove(0);
        assert_eq!((n.ranks[1].rdv.as_slice(), n.ranks[1].control), (&[(2, 0, 7, 5)][..], 2));
        assert_ne!(hash_value(&n), hash_value(&start), "its state is in the digest");
        let bytes = postcard::to_allocvec(&n).unwrap();
        assert_eq!(postcard::from_bytes::<Node>(&bytes).unwrap(), n, "and in checkpoints");
        // Only the control count left: still encoded (it is a result).
        let mut m = node();
        m.ranks[0].control = 1;
        let bytes = postcard::to_allocvec(&m).unwrap();
        assert_eq!(postcard::from_bytes::<Node>(&bytes).unwrap(), m);
        let undo = n.log.entries.as_slice().to_vec();
        for u in undo.iter().rev() {
            n.restore(&u.0);
        }
        assert_eq!(n, start);
    }
}
