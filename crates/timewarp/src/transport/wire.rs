//! What travels between PEs, and the one byte encoding of what crosses
//! processes: records are encoded ([`push_record`]) and decoded
//! ([`Section::records`]) here and nowhere else.
//!
//! Between PEs of one process a [`Wire`] travels as it is (typed rings).
//! Between processes every kernel sends *messages* in this encoding:
//!
//! ```text
//! message := magic "TWrp" (4 bytes) | version (u16 LE) | reserved (u16, 0) | section*
//! section := dst PE (u32) | src PE (u32) | epoch (u64) | count (u32) | length (u32) | records
//! records := `count` postcard-encoded `Wire<Msg>`, `length` bytes in all
//! ```
//!
//! All integers are little-endian; PEs are global ids. `epoch` is the
//! sender's GVT colour in an optimistic run and the window number in a
//! conservative one. Order within a section is the order of sending, so an
//! anti-message never overtakes its event. A message is checked once, where
//! it arrives ([`sections`]): a wrong magic or version means the sender runs a
//! different timewarp build ([`Error::Incompatible`]); the PE a section is
//! for only decodes its records ([`Section::records`]).
//!
//! Change [`VERSION`] with any change to this layout or to [`Wire`].

use std::ops::Range;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::Error;
use crate::key::{Key, LpId};
use crate::layout::PeId;

/// What travels between PEs.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) enum Wire<Msg> {
    /// A new event for `dst`, the `cseq`-th event sent on this channel.
    Event { key: Key, dst: LpId, cseq: u32, msg: Msg },
    /// Cancel the event with this key and channel number sent earlier to `dst`.
    Anti { key: Key, dst: LpId, cseq: u32 },
}

impl<Msg> Wire<Msg> {
    pub(crate) fn key(&self) -> Key {
        match self {
            Wire::Event { key, .. } | Wire::Anti { key, .. } => *key,
        }
    }
}

/// First bytes of every message.
pub(crate) const MAGIC: [u8; 4] = *b"TWrp";

/// The encoding's version.
pub(crate) const VERSION: u16 = 1;

/// Bytes of a message header: magic, version, reserved.
const MESSAGE_HEADER: usize = 4 + 2 + 2;

/// Bytes of a section header: destination PE, source PE, epoch, count, length.
const SECTION_HEADER: usize = 4 + 4 + 8 + 4 + 4;

/// A section's header, less its length. The PE ids are `u32` on the wire.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Head {
    pub(crate) dst_pe: PeId,
    pub(crate) src_pe: PeId,
    pub(crate) epoch: u64,
    pub(crate) count: u32,
}

/// Appends record `w`, encoded, to `buf` (the records of a section being
/// written).
#[inline]
pub(crate) fn push_record<Msg: Serialize>(buf: &mut Vec<u8>, w: &Wire<Msg>) -> Result<(), Error> {
    let bytes = std::mem::take(buf);
    *buf = postcard::to_extend(w, bytes).map_err(|e| Error::Encode(format!("a message for another process: {e}")))?;
    Ok(())
}

/// Starts message `buf` if it is empty (a message with no section is valid).
pub(crate) fn open(buf: &mut Vec<u8>) {
    if buf.is_empty() {
        buf.extend_from_slice(&MAGIC);
        buf.extend_from_slice(&VERSION.to_le_bytes());
        buf.extend_from_slice(&[0, 0]);
    }
}

/// Appends a section with `records` (`head.count` encoded records) to
/// message `buf`, starting the message if `buf` is empty.
pub(crate) fn push_section(buf: &mut Vec<u8>, head: Head, records: &[u8]) {
    buf.reserve(MESSAGE_HEADER + SECTION_HEADER + records.len());
    open(buf);
    buf.extend_from_slice(&u32::from(head.dst_pe).to_le_bytes());
    buf.extend_from_slice(&u32::from(head.src_pe).to_le_bytes());
    buf.extend_from_slice(&head.epoch.to_le_bytes());
    buf.extend_from_slice(&head.count.to_le_bytes());
    buf.extend_from_slice(&(records.len() as u32).to_le_bytes());
    buf.extend_from_slice(records);
}

/// One section of a received message, as the PE it is for takes it in: it
/// shares the message's bytes with the other sections (no copy).
#[derive(Clone, Debug)]
pub(crate) struct Section {
    pub(crate) head: Head,
    bytes: Arc<Vec<u8>>,
    records: Range<usize>,
}

impl Section {
    /// Decodes the records, in order; an error if they are not exactly
    /// `head.count` records.
    pub(crate) fn records<Msg: DeserializeOwned>(&self) -> Records<'_, Msg> {
        Records { bytes: &self.bytes[self.records.clone()], left: self.head.count, _msg: std::marker::PhantomData }
    }
}

/// The records of a [`Section`].
pub(crate) struct Records<'a, Msg> {
    bytes: &'a [u8],
    left: u32,
    _msg: std::marker::PhantomData<Msg>,
}

impl<Msg: DeserializeOwned> Iterator for Records<'_, Msg> {
    type Item = Result<Wire<Msg>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return (!self.bytes.is_empty()).then(|| {
                self.bytes = &[];
                Err(corrupt("a section holds more bytes than its records"))
            });
        }
        self.left -= 1;
        match postcard::take_from_bytes::<Wire<Msg>>(self.bytes) {
            Ok((w, rest)) => {
                self.bytes = rest;
                Some(Ok(w))
            }
            Err(e) => {
                self.left = 0;
                self.bytes = &[];
                Some(Err(corrupt(&format!("undecodable record: {e}"))))
            }
        }
    }
}

/// Checks the header of received message `msg` and reads the header of
/// each section (once: the sections keep what was read).
pub(crate) fn sections(msg: Vec<u8>) -> Result<Vec<Section>, Error> {
    if msg.len() < MESSAGE_HEADER || msg[..4] != MAGIC {
        return Err(Error::Incompatible(format!(
            "a message from another process does not start with timewarp's header {MAGIC:?} (it runs an \
             older or different build, or the bytes are corrupt)"
        )));
    }
    let version = u16::from_le_bytes([msg[4], msg[5]]);
    if version != VERSION {
        return Err(Error::Incompatible(format!(
            "another process sends wire format version {version}, this one speaks version {VERSION}"
        )));
    }
    let bytes = Arc::new(msg);
    let mut out = Vec::new();
    let mut at = MESSAGE_HEADER;
    // Only called within bounds checked below.
    let u32_at = |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    while at < bytes.len() {
        if bytes.len() - at < SECTION_HEADER {
            return Err(corrupt("a section header is cut short"));
        }
        let head = Head {
            dst_pe: PeId::from(u32_at(at)),
            src_pe: PeId::from(u32_at(at + 4)),
            epoch: u64::from(u32_at(at + 8)) | (u64::from(u32_at(at + 12)) << 32),
            count: u32_at(at + 16),
        };
        let len = u32_at(at + 20) as usize;
        let start = at + SECTION_HEADER;
        if bytes.len() - start < len {
            return Err(corrupt("a section is cut short"));
        }
        at = start + len;
        out.push(Section { head, bytes: Arc::clone(&bytes), records: start..at });
    }
    Ok(out)
}

fn corrupt(what: &str) -> Error {
    Error::Internal(format!("a message from another process is corrupt ({what})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(ws: &[Wire<u64>]) -> Vec<u8> {
        let mut b = Vec::new();
        for w in ws {
            push_record(&mut b, w).unwrap();
        }
        b
    }

    type Sent = Vec<(Head, Vec<Wire<u64>>)>;

    fn message() -> (Vec<u8>, Sent) {
        let k = |t: f64| Key::new(t, 0, 1, 2);
        let a =
            vec![Wire::Event { key: k(1.0), dst: 9, cseq: 0, msg: 10 }, Wire::Anti { key: k(1.0), dst: 9, cseq: 0 }];
        let secs = vec![
            (Head { dst_pe: PeId::new(3), src_pe: PeId::new(1), epoch: 7, count: 2 }, a),
            (Head { dst_pe: PeId::new(0), src_pe: PeId::new(2), epoch: u64::MAX, count: 0 }, vec![]),
        ];
        let mut buf = Vec::new();
        for (h, ws) in &secs {
            push_section(&mut buf, *h, &records(ws));
        }
        (buf, secs)
    }

    #[test]
    fn a_message_round_trips() {
        let (buf, want) = message();
        let got = sections(buf).unwrap();
        assert_eq!(got.len(), want.len());
        for (s, (h, ws)) in got.iter().zip(&want) {
            assert_eq!(s.head, *h);
            let rs: Vec<Wire<u64>> = s.records().collect::<Result<_, _>>().unwrap();
            assert_eq!(format!("{rs:?}"), format!("{ws:?}"));
        }
        let mut empty = Vec::new();
        open(&mut empty);
        assert!(sections(empty).unwrap().is_empty());
    }

    #[test]
    fn truncation_is_rejected() {
        let (buf, _) = message();
        for cut in 0..buf.len() {
            // A cut right after a whole section leaves a shorter valid message.
            let whole = [MESSAGE_HEADER, buf.len() - SECTION_HEADER].contains(&cut);
            assert_eq!(sections(buf[..cut].to_vec()).is_ok(), whole, "cut at {cut}");
        }
        // Records cut short inside a section whose length says so.
        let mut short = Vec::new();
        let h = Head { dst_pe: PeId::new(0), src_pe: PeId::new(1), epoch: 0, count: 2 };
        let rs = records(&[Wire::Anti { key: Key::at(1.0), dst: 3, cseq: 0 }; 2]);
        push_section(&mut short, h, &rs[..rs.len() - 1]);
        let s = sections(short).unwrap();
        assert!(s[0].records::<u64>().any(|r| r.is_err()));
        // More records than the count says.
        let mut long = Vec::new();
        push_section(&mut long, Head { count: 1, ..h }, &rs);
        assert!(sections(long).unwrap()[0].records::<u64>().any(|r| r.is_err()));
    }

    #[test]
    fn another_build_is_rejected() {
        let (buf, _) = message();
        let mut v = buf.clone();
        v[4..6].copy_from_slice(&(VERSION + 1).to_le_bytes());
        let e = sections(v).unwrap_err();
        assert!(matches!(e, Error::Incompatible(_)), "{e}");
        assert!(e.to_string().contains("rebuild every rank from the same source"), "{e}");
        let mut m = buf;
        m[0] = b'X';
        assert!(matches!(sections(m), Err(Error::Incompatible(_))));
        assert!(matches!(sections(Vec::new()), Err(Error::Incompatible(_))));
    }
}
