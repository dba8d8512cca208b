//! A [`Node`]'s encoding (its state in checkpoints, digests and state
//! comparison): its fields in order, its journal (empty between events)
//! left out, the ranks and — under UGAL-G only — the router's table and —
//! with `--sample-every` only — its time series at the end ([`Tail`]), so
//! every other run keeps the encoding it always had.

use serde::de::{self, SeqAccess, Visitor};
use serde::ser::SerializeTuple;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::global_table::Global;
use super::node::{Counts, Journal, Link, Nic, NicBuf, Node, Queues};
use super::samples::Samples;
use super::workload::Rank;

/// A [`Node`] as it is encoded (its journal, empty between events, left out).
#[derive(Serialize)]
struct Encoded<'a> {
    input: &'a Queues,
    links: &'a [Link],
    counts: &'a Counts,
    inject: &'a [Nic],
    output: &'a Queues,
    partial: &'a [(u32, u32, u32, f64)],
    ranks: Tail<'a>,
}

/// A [`Node`] as it is decoded.
#[derive(Deserialize)]
struct Decoded {
    input: Queues,
    links: Vec<Link>,
    counts: Counts,
    inject: Vec<Nic>,
    output: Queues,
    partial: Vec<(u32, u32, u32, f64)>,
    ranks: OwnedTail,
}

impl Serialize for Node {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Encoded {
            input: &self.input,
            links: &self.links,
            counts: &self.counts,
            inject: &self.inject,
            output: &self.output,
            partial: &self.partial,
            ranks: Tail(&self.ranks, self.global.as_deref(), self.samples.as_deref(), &self.nic_buf),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let e = Decoded::deserialize(d)?;
        Ok(Node {
            input: e.input,
            links: e.links,
            counts: e.counts,
            inject: e.inject,
            output: e.output,
            partial: e.partial,
            ranks: e.ranks.0,
            global: e.ranks.1,
            samples: e.ranks.2,
            // Never encoded (the digest does not depend on it); the CLI
            // refuses `--lp-io-dir` with a checkpoint to resume from.
            lp_io: None,
            nic_buf: e.ranks.3,
            log: Journal::default(),
        })
    }
}

/// Set in the count word of [`Tail`]'s encoding when a [`Global`] table
/// follows the ranks (a router has at most 255 NICs, so far below it).
const GLOBAL_FLAG: u32 = 1 << 31;

/// Set in the same word when a time series follows (after the table, if any).
const SAMPLES_FLAG: u32 = 1 << 30;

/// Set in the same word when each rank is followed by its rendezvous
/// state ([`Rank::rdv`], [`Rank::control`]): only while a rank has some,
/// so runs without rendezvous messages encode as they always did.
const RDV_FLAG: u32 = 1 << 29;

/// Set in the same word when the NICs' credits for a bounded terminal
/// buffer (`--nic-buffer`, [`NicBuf`]) follow, last.
const NIC_BUF_FLAG: u32 = 1 << 28;

/// The end of a node's encoding: its ranks and, under UGAL-G, its table,
/// and with `--sample-every` its time series.
/// Without either it is exactly the ranks' `Vec` (postcard: a varint
/// count, then the elements), so nodes of every other run encode as they
/// always did; with one, the count carries [`GLOBAL_FLAG`] (a table
/// follows the ranks) and [`SAMPLES_FLAG`] (then the time series).
pub(crate) struct Tail<'a>(
    pub(crate) &'a [Rank],
    pub(crate) Option<&'a Global>,
    pub(crate) Option<&'a Samples>,
    pub(crate) &'a [NicBuf],
);

impl Serialize for Tail<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let rdv = self.0.iter().any(|r| r.control > 0 || !r.rdv.is_empty());
        let nic_buf = !self.3.is_empty();
        if self.1.is_none() && self.2.is_none() && !rdv && !nic_buf {
            return self.0.serialize(s);
        }
        let mut t = s.serialize_tuple(2 * self.0.len() + 4)?;
        let flags = if self.1.is_some() { GLOBAL_FLAG } else { 0 }
            | if self.2.is_some() { SAMPLES_FLAG } else { 0 }
            | if rdv { RDV_FLAG } else { 0 }
            | if nic_buf { NIC_BUF_FLAG } else { 0 };
        t.serialize_element(&(self.0.len() as u32 | flags))?;
        for r in self.0 {
            t.serialize_element(r)?;
            if rdv {
                t.serialize_element(&(r.control, &r.rdv))?;
            }
        }
        if let Some(g) = self.1 {
            t.serialize_element(g)?;
        }
        if let Some(x) = self.2 {
            t.serialize_element(x)?;
        }
        if nic_buf {
            t.serialize_element(self.3)?;
        }
        t.end()
    }
}

/// [`Tail`] decoded.
pub(crate) struct OwnedTail(
    pub(crate) Vec<Rank>,
    pub(crate) Option<Box<Global>>,
    pub(crate) Option<Box<Samples>>,
    pub(crate) Vec<NicBuf>,
);

impl<'de> Deserialize<'de> for OwnedTail {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OwnedTail;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a node's ranks, UGAL-G table and time series")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<OwnedTail, A::Error> {
                let short = || de::Error::custom("a truncated node encoding (ranks, UGAL-G table, time series)");
                let word: u32 = seq.next_element()?.ok_or_else(short)?;
                let n = (word & !(GLOBAL_FLAG | SAMPLES_FLAG | RDV_FLAG | NIC_BUF_FLAG)) as usize;
                let mut ranks = Vec::with_capacity(n.min(256));
                for _ in 0..n {
                    let mut r: Rank = seq.next_element()?.ok_or_else(short)?;
                    if word & RDV_FLAG != 0 {
                        (r.control, r.rdv) = seq.next_element()?.ok_or_else(short)?;
                    }
                    ranks.push(r);
                }
                let global = if word & GLOBAL_FLAG != 0 {
                    Some(Box::new(seq.next_element::<Global>()?.ok_or_else(short)?))
                } else {
                    None
                };
                let samples = if word & SAMPLES_FLAG != 0 {
                    Some(Box::new(seq.next_element::<Samples>()?.ok_or_else(short)?))
                } else {
                    None
                };
                let nic_buf = if word & NIC_BUF_FLAG != 0 {
                    seq.next_element::<Vec<NicBuf>>()?.ok_or_else(short)?
                } else {
                    Vec::new()
                };
                Ok(OwnedTail(ranks, global, samples, nic_buf))
            }
        }
        // The elements' number is in the first of them: read on as far as it says.
        d.deserialize_tuple(usize::MAX, V)
    }
}
