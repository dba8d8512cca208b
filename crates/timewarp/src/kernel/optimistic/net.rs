//! Traffic to PEs in other processes, as a PE sees it.
//!
//! A PE never calls MPI itself. It encodes what it sends to a PE of another
//! process into a byte buffer per destination PE (its [`Port`]); once per
//! batch it hands the buffers to its process' courier through
//! [`Network::exchange`], which consolidates them per destination process
//! whatever PE wrote them, and takes back what arrived for it. The bytes are
//! *sections*: a header naming the destination and source PE, the sender's
//! GVT colour (epoch) and the record count, then the records in postcard
//! encoding. Within a section, and from one PE to another, order is kept, so
//! an anti-message never overtakes its event.
//!
//! [`NoNet`] is the network of a single process: every method is
//! unreachable and the PE's routing test folds away at compile time.
// The courier side of these items lives in `crate::mpi`.
#![cfg_attr(not(feature = "mpi"), allow(dead_code))]

use serde::{de::DeserializeOwned, Serialize};

use crate::error::Error;
use crate::key::{Key, LpId};

use super::comm::Wire;
use super::gvt::Gvt;

/// A process' link to the others, shared by its PEs.
pub(crate) trait Network: Sync {
    /// False for the single-process stand-in, so its branches compile away.
    const ACTIVE: bool;

    /// Hands the sections waiting in `port` (of local PE `pe`) to the
    /// courier, lets it do its work (send, poll, GVT), and moves what arrived
    /// for `pe` into `port.inbound`. Without `force` it gives up at once when
    /// another PE holds the courier.
    fn exchange(&self, pe: usize, port: &mut Port, gvt: &Gvt, force: bool) -> Result<(), Error>;

    /// Moves what arrived for local PE `pe` into `port.inbound` (everything
    /// the courier counted as received before this call).
    fn collect(&self, pe: usize, port: &mut Port);

    /// Local PE `pe` enters phase A of a GVT round: `sent[q]` is how many
    /// records it has sent to process `q` so far (all of them white).
    fn snapshot(&self, pe: usize, sent: &[u64]);

    /// Whether the PEs may report for GVT round `round` (every white record
    /// sent to this process has arrived).
    fn gate_open(&self, round: u64) -> bool;

    /// Every PE of this process reported for `round`: `min` is the process
    /// minimum, for the round across processes.
    fn process_min(&self, round: u64, min: Key);
}

/// The network of a run in one process.
pub(crate) struct NoNet;

impl Network for NoNet {
    const ACTIVE: bool = false;
    fn exchange(&self, _: usize, _: &mut Port, _: &Gvt, _: bool) -> Result<(), Error> {
        unreachable!("a single-process run has no network")
    }
    fn collect(&self, _: usize, _: &mut Port) {
        unreachable!("a single-process run has no network")
    }
    fn snapshot(&self, _: usize, _: &[u64]) {
        unreachable!("a single-process run has no network")
    }
    fn gate_open(&self, _: u64) -> bool {
        true
    }
    fn process_min(&self, _: u64, _: Key) {
        unreachable!("a single-process run publishes GVT itself")
    }
}

/// Bytes of a section header: destination PE, source PE, epoch, count, length.
const HEADER: usize = 4 + 4 + 8 + 4 + 4;

/// One section read back from bytes.
#[derive(Debug, PartialEq)]
pub(crate) struct Section<'a> {
    pub(crate) dst_pe: u32,
    pub(crate) src_pe: u32,
    pub(crate) epoch: u64,
    pub(crate) count: u32,
    pub(crate) records: &'a [u8],
}

/// Appends a section to `buf`.
pub(crate) fn write_section(buf: &mut Vec<u8>, s: &Section<'_>) {
    buf.reserve(HEADER + s.records.len());
    buf.extend_from_slice(&s.dst_pe.to_le_bytes());
    buf.extend_from_slice(&s.src_pe.to_le_bytes());
    buf.extend_from_slice(&s.epoch.to_le_bytes());
    buf.extend_from_slice(&s.count.to_le_bytes());
    buf.extend_from_slice(&(s.records.len() as u32).to_le_bytes());
    buf.extend_from_slice(s.records);
}

/// Reads the sections of `buf` in order; an error if the bytes are cut short.
pub(crate) fn sections(mut buf: &[u8]) -> impl Iterator<Item = Result<Section<'_>, Error>> {
    std::iter::from_fn(move || {
        if buf.is_empty() {
            return None;
        }
        if buf.len() < HEADER {
            buf = &[];
            return Some(Err(corrupt("a section header is cut short")));
        }
        let u32_at = |i: usize| u32::from_le_bytes(buf[i..i + 4].try_into().unwrap_or_default());
        let (dst_pe, src_pe, count, len) = (u32_at(0), u32_at(4), u32_at(16), u32_at(20) as usize);
        let epoch = u64::from_le_bytes(buf[8..16].try_into().unwrap_or_default());
        if buf.len() < HEADER + len {
            buf = &[];
            return Some(Err(corrupt("a section is cut short")));
        }
        let records = &buf[HEADER..HEADER + len];
        buf = &buf[HEADER + len..];
        Some(Ok(Section { dst_pe, src_pe, epoch, count, records }))
    })
}

fn corrupt(what: &str) -> Error {
    Error::Internal(format!("a message from another process is corrupt ({what})"))
}

/// Decodes the records of a section, in order.
pub(crate) fn records<Msg: DeserializeOwned>(mut bytes: &[u8]) -> impl Iterator<Item = Result<Wire<Msg>, Error>> + '_ {
    std::iter::from_fn(move || {
        if bytes.is_empty() {
            return None;
        }
        match postcard::take_from_bytes::<Wire<Msg>>(bytes) {
            Ok((w, rest)) => {
                bytes = rest;
                Some(Ok(w))
            }
            Err(e) => {
                bytes = &[];
                Some(Err(corrupt(&format!("undecodable record: {e}"))))
            }
        }
    })
}

/// A PE's buffers for other processes.
pub(crate) struct Port {
    /// PEs per process (global PE `g` lives in process `g / threads`).
    threads: usize,
    /// This PE's global id.
    me: u32,
    /// The GVT round this PE last entered phase A of (colour of its sends).
    pub(crate) epoch: u64,
    /// Encoded records per destination PE, and their counts.
    out: Vec<Vec<u8>>,
    out_n: Vec<u32>,
    /// Destination PEs with records waiting.
    dirty: Vec<u32>,
    /// Events sent so far on the channel to each PE (numbers them).
    seq: Vec<u32>,
    /// Records sent so far to each process.
    pub(crate) sent: Vec<u64>,
    /// Sections that arrived for this PE, not yet decoded.
    pub(crate) inbound: Vec<u8>,
}

impl Port {
    /// The port of global PE `me` among `ranks` processes of `threads` PEs.
    pub(crate) fn new(me: usize, ranks: usize, threads: usize) -> Self {
        let pes = ranks * threads;
        Port {
            threads,
            me: me as u32,
            epoch: 0,
            out: vec![Vec::new(); pes],
            out_n: vec![0; pes],
            dirty: Vec::new(),
            seq: vec![0; pes],
            sent: vec![0; ranks],
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
    pub(crate) fn send_event<Msg: Serialize>(
        &mut self,
        to: usize,
        key: Key,
        dst: LpId,
        msg: Msg,
    ) -> Result<u32, Error> {
        let cseq = self.seq[to];
        self.seq[to] = cseq.wrapping_add(1);
        self.send(to, &Wire::Event { key, dst, cseq, msg })?;
        Ok(cseq)
    }

    /// Encodes `w` for global PE `to`.
    #[inline]
    pub(crate) fn send<Msg: Serialize>(&mut self, to: usize, w: &Wire<Msg>) -> Result<(), Error> {
        if self.out_n[to] == 0 {
            self.dirty.push(to as u32);
        }
        let buf = std::mem::take(&mut self.out[to]);
        self.out[to] =
            postcard::to_extend(w, buf).map_err(|e| Error::Encode(format!("a message for another process: {e}")))?;
        self.out_n[to] += 1;
        self.sent[to / self.threads] += 1;
        Ok(())
    }

    /// Moves the waiting records, one section per destination PE, into the
    /// buffer of their process (`bufs[rank]`), adding to `counts[rank]`.
    pub(crate) fn hand_over(&mut self, bufs: &mut [Vec<u8>], counts: &mut [u64]) {
        for to in self.dirty.drain(..) {
            let t = to as usize;
            let rank = t / self.threads;
            let s =
                Section { dst_pe: to, src_pe: self.me, epoch: self.epoch, count: self.out_n[t], records: &self.out[t] };
            write_section(&mut bufs[rank], &s);
            counts[rank] += self.out_n[t] as u64;
            self.out[t].clear();
            self.out_n[t] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_round_trip_and_reject_truncation() {
        let mut buf = Vec::new();
        let a = Section { dst_pe: 3, src_pe: 1, epoch: 7, count: 2, records: b"abc" };
        let b = Section { dst_pe: 0, src_pe: 2, epoch: u64::MAX, count: 0, records: b"" };
        write_section(&mut buf, &a);
        write_section(&mut buf, &b);
        let got: Vec<_> = sections(&buf).collect::<Result<_, _>>().unwrap();
        assert_eq!(got, vec![a, b]);
        for cut in 1..buf.len() {
            let all: Vec<_> = sections(&buf[..cut]).collect();
            assert!(all.iter().any(|r| r.is_err()) || cut == HEADER + 3, "cut {cut} must be rejected");
        }
    }

    #[test]
    fn port_keeps_order_and_numbers_channels() {
        // 2 processes x 2 PEs; PE 0 sends to PEs 2 and 3 (process 1).
        let mut p = Port::new(0, 2, 2);
        let k = |t: f64| Key::new(t, 0, 0, 0);
        assert_eq!(p.send_event(2, k(1.0), 9, 10u64).unwrap(), 0);
        assert_eq!(p.send_event(3, k(2.0), 12, 11u64).unwrap(), 0);
        assert_eq!(p.send_event(2, k(3.0), 8, 12u64).unwrap(), 1);
        p.send::<u64>(2, &Wire::Anti { key: k(1.0), dst: 9, cseq: 0 }).unwrap();
        assert_eq!(p.sent, vec![0, 4]);
        let mut bufs = vec![Vec::new(), Vec::new()];
        let mut counts = vec![0, 0];
        p.epoch = 5;
        p.hand_over(&mut bufs, &mut counts);
        assert!(bufs[0].is_empty() && counts == vec![0, 4] && !p.waiting());
        let secs: Vec<_> = sections(&bufs[1]).map(Result::unwrap).collect();
        assert_eq!(
            secs.iter().map(|s| (s.dst_pe, s.src_pe, s.epoch, s.count)).collect::<Vec<_>>(),
            [(2, 0, 5, 3), (3, 0, 5, 1)]
        );
        let to2: Vec<Wire<u64>> = records(secs[0].records).map(Result::unwrap).collect();
        assert!(matches!(to2[0], Wire::Event { dst: 9, cseq: 0, msg: 10, .. }));
        assert!(matches!(to2[1], Wire::Event { dst: 8, cseq: 1, msg: 12, .. }));
        assert!(matches!(to2[2], Wire::Anti { dst: 9, cseq: 0, .. }));
        assert!(records::<u64>(&secs[0].records[..secs[0].records.len() - 1]).any(|r| r.is_err()));
    }
}
