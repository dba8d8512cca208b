//! The `.bin` format as DUMPI 13 writes it: lead-in, header, the call
//! records (with their optional clocks and statuses), footer and index.

use super::names::{name, BUILTIN_SIZES};
use super::DumpiTime;

/// The lead-in (and index) magic of a `.bin` file: "\xff\xaa\xddDUMPI".
pub(in crate::network) const MAGIC: u64 = 0xFFAA_DD44_554D_5049;
/// The footer's magic.
pub(in crate::network) const FOOTER_MAGIC: u64 = 0xF007_FEE7;
/// The record label that ends the call stream.
pub(in crate::network) const END_OF_STREAM: u16 = 293;
/// Entries of the footer's count tables (`DUMPI_ALL_FUNCTIONS + 1`, DUMPI 13).
pub(in crate::network) const FOOTER_COUNTS: usize = 291;
/// A status's fields (statuses are only read to be skipped: sources and
/// tags of wildcard receives are matched at run time, sizes come from senders).
pub(in crate::network) const STATUS_BYTES: usize = 14;

/// A decoded call record.
#[derive(Clone, Debug, PartialEq)]
pub(in crate::network) enum Call {
    /// Blocking send (`Send`, `Bsend`, `Ssend`, `Rsend`): count, datatype, dest, tag, comm.
    Send {
        count: i32,
        dt: u16,
        dest: i32,
        tag: i32,
        comm: u16,
    },
    /// Non-blocking send (`Isend`, `Ibsend`, `Issend`, `Irsend`) with its request.
    Isend {
        count: i32,
        dt: u16,
        dest: i32,
        tag: i32,
        comm: u16,
        req: i32,
    },
    Recv {
        src: i32,
        tag: i32,
        comm: u16,
    },
    Irecv {
        src: i32,
        tag: i32,
        comm: u16,
        req: i32,
    },
    Sendrecv {
        count: i32,
        dt: u16,
        dest: i32,
        stag: i32,
        src: i32,
        rtag: i32,
        comm: u16,
    },
    /// `Wait`, and `Test` with `flag` (`Wait`: 1).
    Wait {
        req: i32,
        flag: i32,
    },
    /// `Waitany`/`Testany`: the requests, the completed index, the flag.
    Any {
        reqs: Vec<i32>,
        index: i32,
        flag: i32,
    },
    /// `Waitall`/`Testall`.
    All {
        reqs: Vec<i32>,
        flag: i32,
    },
    /// `Waitsome`/`Testsome`: the requests and the completed indices.
    Some {
        reqs: Vec<i32>,
        indices: Vec<i32>,
    },
    RequestFree {
        req: i32,
    },
    /// `Probe`, and `Iprobe` with `flag` (`Probe`: 1).
    Probe {
        src: i32,
        tag: i32,
        comm: u16,
        flag: i32,
    },
    Barrier {
        comm: u16,
    },
    Bcast {
        count: i32,
        dt: u16,
        root: i32,
        comm: u16,
    },
    Reduce {
        count: i32,
        dt: u16,
        root: i32,
        comm: u16,
    },
    Allreduce {
        count: i32,
        dt: u16,
        comm: u16,
    },
    Alltoall {
        count: i32,
        dt: u16,
        comm: u16,
    },
    /// `Gather`, `Gatherv`: what this rank sends to the root.
    Gather {
        count: i32,
        dt: u16,
        root: i32,
        comm: u16,
    },
    /// `Scatter`, `Scatterv`: the root's counts per rank (one for all when
    /// `Scatter`; empty on the other ranks).
    Scatter {
        counts: Vec<i32>,
        dt: u16,
        root: i32,
        comm: u16,
    },
    /// `Allgather` (`counts`: one for all), `Allgatherv`: each rank's block.
    Allgather {
        counts: Vec<i32>,
        dt: u16,
        comm: u16,
    },
    /// `Alltoallv` (send counts), `Reduce_scatter` (receive counts): what
    /// this rank sends each rank.
    Alltoallv {
        counts: Vec<i32>,
        dt: u16,
        comm: u16,
    },
    Scan {
        count: i32,
        dt: u16,
        comm: u16,
    },
    /// `Send_init` & co. (`send`) and `Recv_init`: a persistent request.
    Persistent {
        send: bool,
        count: i32,
        dt: u16,
        peer: i32,
        tag: i32,
        comm: u16,
        req: i32,
    },
    /// `Start`, `Startall`.
    Start {
        reqs: Vec<i32>,
    },
    /// `Cancel`: refused.
    Cancel,
    /// `Comm_dup` (`cart`: None) and `Cart_create` (`Some((ranks of the
    /// grid, reorder))`): `new` names what `old` does (when whole and not reordered).
    CommAlias {
        old: u16,
        new: u16,
        cart: Option<(i64, i32)>,
    },
    CommFree {
        comm: u16,
    },
    /// `Comm_split`: `new` has ranks of its own (refused where used).
    CommOther {
        new: u16,
    },
    Init,
    Finalize,
    /// A call with nothing to model (its time is computation).
    Local,
}

/// One record: its label, entry and exit times (ns of the chosen clock,
/// absent when the trace did not record it) and its call.
#[derive(Clone, Debug)]
pub(in crate::network) struct Record {
    pub(in crate::network) label: u16,
    pub(in crate::network) entry: Option<u64>,
    pub(in crate::network) exit: Option<u64>,
    pub(in crate::network) call: Call,
}

/// Big-endian reads from a `.bin` file; errors name the file and the offset.
pub(in crate::network) struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
    file: &'a str,
}

impl<'a> Reader<'a> {
    fn at(b: &'a [u8], pos: usize, file: &'a str) -> Self {
        Reader { b, pos, file }
    }
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], String> {
        match self.b.get(self.pos..self.pos.saturating_add(n)) {
            Some(s) if self.pos.checked_add(n).is_some() => {
                self.pos += n;
                Ok(s)
            }
            _ => Err(format!(
                "{}: truncated or corrupt DUMPI trace: {what} at byte {} runs past the end ({} bytes)",
                self.file,
                self.pos,
                self.b.len()
            )),
        }
    }
    fn u8(&mut self, what: &str) -> Result<u8, String> {
        Ok(self.take(1, what)?[0])
    }
    fn u16(&mut self, what: &str) -> Result<u16, String> {
        let s = self.take(2, what)?;
        Ok(u16::from_be_bytes([s[0], s[1]]))
    }
    fn u32(&mut self, what: &str) -> Result<u32, String> {
        let s = self.take(4, what)?;
        Ok(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
    }
    fn i32(&mut self, what: &str) -> Result<i32, String> {
        Ok(self.u32(what)? as i32)
    }
    fn u64(&mut self, what: &str) -> Result<u64, String> {
        let s = self.take(8, what)?;
        let mut a = [0; 8];
        a.copy_from_slice(s);
        Ok(u64::from_be_bytes(a))
    }
    /// A `u32` count of elements of `size` bytes, checked against what is left.
    fn count(&mut self, size: usize, what: &str) -> Result<usize, String> {
        let n = self.u32(what)? as usize;
        if n.saturating_mul(size) > self.b.len() - self.pos {
            return Err(format!(
                "{}: truncated or corrupt DUMPI trace: {what} at byte {} has {n} entries, more than the file holds",
                self.file,
                self.pos - 4
            ));
        }
        Ok(n)
    }
    fn ints(&mut self, what: &str) -> Result<Vec<i32>, String> {
        let n = self.count(4, what)?;
        (0..n).map(|_| self.i32(what)).collect()
    }
    fn str16(&mut self, what: &str) -> Result<(), String> {
        let n = self.u16(what)? as usize;
        self.take(n, what).map(|_| ())
    }
    fn str32(&mut self, what: &str) -> Result<(), String> {
        let n = self.count(1, what)?;
        self.take(n, what).map(|_| ())
    }
    /// A status block (present only when the record's mask says so).
    fn statuses(&mut self, stored: bool) -> Result<(), String> {
        if stored {
            let n = self.count(STATUS_BYTES, "a status array")?;
            self.take(n * STATUS_BYTES, "a status array")?;
        }
        Ok(())
    }
    fn corrupt(&self, what: String) -> String {
        format!("{}: not a DUMPI trace or corrupt: {what}", self.file)
    }
}

/// One rank's `.bin` file, decoded: its records and its datatype sizes.
pub(in crate::network) struct RankTrace {
    pub(in crate::network) records: Vec<Record>,
    pub(in crate::network) sizes: Vec<u32>,
}

/// Turns a 16-bit-seconds stamp into ns past the bias, unwrapping the
/// seconds (they wrap every 65536 s) against the previous stamp.
#[derive(Default)]
pub(in crate::network) struct Clock {
    bias: u64,
    epoch: u64,
    last_s: u16,
}

impl Clock {
    fn ns(&mut self, s: u16, ns: u32) -> u64 {
        if s < self.last_s && self.last_s - s > 1 << 15 {
            self.epoch += 1;
        }
        self.last_s = s;
        ((self.bias + self.epoch * 65536 + s as u64) * 1_000_000_000) + ns as u64
    }
}

/// Decodes rank file `file` (bytes `b`).
pub(in crate::network) fn decode(b: &[u8], file: &str, time: DumpiTime) -> Result<RankTrace, String> {
    let r = Reader::at(b, 0, file);
    if b.len() < 8 + 40 || u64::from_be_bytes(b[..8].try_into().unwrap()) != MAGIC {
        return Err(r.corrupt("no DUMPI lead-in (\\xff\\xaa\\xddDUMPI) or too short".into()));
    }
    // The index: the magic again at end − 64, 56, 48 or 40, then the offsets
    // (size table, function addresses, perf labels: only in longer ones).
    let end = b.len();
    let index = [64usize, 56, 48, 40]
        .into_iter()
        .find(|&k| end >= 8 + k && u64::from_be_bytes(b[end - k..end - k + 8].try_into().unwrap()) == MAGIC)
        .ok_or_else(|| r.corrupt("no index record at its end (truncated?)".into()))?;
    let mut ix = Reader::at(b, end - index + 8, file);
    let extra = (index - 40) / 8;
    let mut offs = [0u64; 3];
    for o in offs.iter_mut().take(extra) {
        *o = ix.u64("the index")?;
    }
    let sizes_at = if extra >= 3 { offs[0] } else { 0 };
    let (header_at, body_at, footer_at) = (ix.u64("the index")?, ix.u64("the index")?, ix.u64("the index")?);
    let within = |o: u64, what: &str| {
        if o as usize >= end - index {
            Err(r.corrupt(format!("the index puts the {what} at byte {o}, past the end of the data")))
        } else {
            Ok(o as usize)
        }
    };
    let (header_at, body_at) = (within(header_at, "header")?, within(body_at, "call stream")?);
    if body_at == 0 || header_at == 0 {
        return Err(r.corrupt("the index has no header or no call stream".into()));
    }
    // The header: version and start time, host and user names, mesh arrays.
    let mut h = Reader::at(&b[..end - index], header_at, file);
    let version = (h.u8("the header")?, h.u8("the header")?, h.u8("the header")?);
    h.u64("the header")?;
    h.str16("the header's host name")?;
    h.str16("the header's user name")?;
    h.ints("the header's mesh coordinates")?;
    h.ints("the header's mesh size")?;
    // The datatype sizes.
    let mut sizes = BUILTIN_SIZES.to_vec();
    if sizes_at > 0 {
        let mut s = Reader::at(&b[..end - index], within(sizes_at, "datatype sizes")?, file);
        let n = s.count(4, "the datatype sizes")?;
        for i in 0..n {
            let size = s.i32("the datatype sizes")?;
            if i >= sizes.len() {
                sizes.push(0);
            }
            if size > 0 {
                sizes[i] = size as u32;
            }
        }
    }
    // The footer: per-label call counts, checked against the stream.
    let mut counts = None;
    if footer_at > 0 {
        let mut f = Reader::at(&b[..end - index], within(footer_at, "footer")?, file);
        if f.u64("the footer")? != FOOTER_MAGIC {
            return Err(r.corrupt(format!("the footer at byte {footer_at} lacks its magic")));
        }
        if version.0 == 13 {
            counts =
                Some((0..FOOTER_COUNTS).map(|_| f.u32("the footer's call counts")).collect::<Result<Vec<_>, _>>()?);
        }
    }
    // The call stream, up to the header.
    let mut s = Reader::at(&b[..header_at], body_at, file);
    let cpu_bias = s.u32("the call stream's clock biases")? as u64;
    let wall_bias = s.u32("the call stream's clock biases")? as u64;
    let mut clock = match time {
        DumpiTime::Wall => Clock { bias: wall_bias, ..Clock::default() },
        DumpiTime::Cpu => Clock { bias: cpu_bias, ..Clock::default() },
    };
    let mut records = vec![];
    let mut seen = vec![0u32; FOOTER_COUNTS];
    loop {
        let label = s.u16("a call record")?;
        if label == END_OF_STREAM {
            break;
        }
        let n = records.len() + 1;
        let mask = s.u8("a call record")?;
        if mask & 0x40 != 0 {
            s.u16("a record's thread")?;
        }
        let mut times = [None, None];
        for (bit, clk) in [(0x04, DumpiTime::Cpu), (0x08, DumpiTime::Wall)] {
            if mask & bit != 0 {
                let (a, an, z, zn) = (s.u16("a time")?, s.u32("a time")?, s.u16("a time")?, s.u32("a time")?);
                if clk == time {
                    times = [Some(clock.ns(a, an)), Some(clock.ns(z, zn))];
                }
            }
        }
        if mask & 0x80 != 0 {
            let k = s.u8("a record's counters")? as usize;
            s.take(16 * k, "a record's counters")?;
        }
        let st = mask & 0x03 != 0;
        let call = args(&mut s, label, st).map_err(|e| e.unwrap_or_else(|| format!(
            "{file}: call {n} is {}, which this reader cannot read (its record layout is not implemented), so the trace cannot be replayed",
            name(label)
        )))?;
        if let Some(c) = seen.get_mut(label as usize) {
            *c += 1;
        }
        records.push(Record { label, entry: times[0], exit: times[1], call });
    }
    if let Some(counts) = counts {
        if let Some(l) = (0..FOOTER_COUNTS - 1).find(|&l| counts[l] != seen[l]) {
            return Err(r.corrupt(format!(
                "its footer counts {} {} calls, its call stream has {}",
                counts[l],
                name(l as u16),
                seen[l]
            )));
        }
    }
    Ok(RankTrace { records, sizes })
}

/// Reads past the arguments of a local call, `form` naming them in order:
/// `i` i32, `s` u16 (handles), `b` u8 (ops), `S` a string (u32 length),
/// `A` an i32 array, `T` a datatype array (u32 count, u16 each), `P` a
/// status block.
pub(in crate::network) fn skip(s: &mut Reader<'_>, form: &str, st: bool) -> Result<Call, String> {
    let a = "a call's arguments";
    for c in form.chars() {
        match c {
            'i' => s.i32(a).map(drop)?,
            's' => s.u16(a).map(drop)?,
            'b' => s.u8(a).map(drop)?,
            'S' => s.str32(a)?,
            'A' => s.ints(a).map(drop)?,
            'T' => {
                let n = s.count(2, a)?;
                s.take(2 * n, a)?;
            }
            _ => s.statuses(st)?,
        }
    }
    Ok(Call::Local)
}

/// A record's arguments (`Err(None)`: a label whose layout is not known here).
pub(in crate::network) fn args(s: &mut Reader<'_>, label: u16, st: bool) -> Result<Call, Option<String>> {
    let a = "a call's arguments";
    let c = match label {
        0 | 3 | 4 | 5 => {
            Call::Send { count: s.i32(a)?, dt: s.u16(a)?, dest: s.i32(a)?, tag: s.i32(a)?, comm: s.u16(a)? }
        }
        8..=11 => Call::Isend {
            count: s.i32(a)?,
            dt: s.u16(a)?,
            dest: s.i32(a)?,
            tag: s.i32(a)?,
            comm: s.u16(a)?,
            req: s.i32(a)?,
        },
        1 => {
            let (_, _, src, tag, comm) = (s.i32(a)?, s.u16(a)?, s.i32(a)?, s.i32(a)?, s.u16(a)?);
            s.statuses(st)?;
            Call::Recv { src, tag, comm }
        }
        12 => {
            let (_, _, src, tag, comm, req) = (s.i32(a)?, s.u16(a)?, s.i32(a)?, s.i32(a)?, s.u16(a)?, s.i32(a)?);
            Call::Irecv { src, tag, comm, req }
        }
        2 => {
            s.statuses(st)?;
            s.u16(a)?;
            s.i32(a)?;
            Call::Local
        }
        13 => {
            let req = s.i32(a)?;
            s.statuses(st)?;
            Call::Wait { req, flag: 1 }
        }
        14 => {
            let (req, flag) = (s.i32(a)?, s.i32(a)?);
            s.statuses(st)?;
            Call::Wait { req, flag }
        }
        15 => Call::RequestFree { req: s.i32(a)? },
        16 | 17 => {
            s.i32(a)?;
            let reqs = s.ints(a)?;
            let index = s.i32(a)?;
            let flag = if label == 17 { s.i32(a)? } else { 1 };
            s.statuses(st)?;
            Call::Any { reqs, index, flag }
        }
        18 | 19 => {
            s.i32(a)?;
            let reqs = s.ints(a)?;
            let flag = if label == 19 { s.i32(a)? } else { 1 };
            s.statuses(st)?;
            Call::All { reqs, flag }
        }
        20 | 21 => {
            s.i32(a)?;
            let reqs = s.ints(a)?;
            s.i32(a)?;
            let indices = s.ints(a)?;
            s.statuses(st)?;
            Call::Some { reqs, indices }
        }
        22 | 23 => {
            let (src, tag, comm) = (s.i32(a)?, s.i32(a)?, s.u16(a)?);
            let flag = if label == 22 { s.i32(a)? } else { 1 };
            s.statuses(st)?;
            Call::Probe { src, tag, comm, flag }
        }
        33 => {
            let (count, dt, dest, stag) = (s.i32(a)?, s.u16(a)?, s.i32(a)?, s.i32(a)?);
            let (_, _, src, rtag, comm) = (s.i32(a)?, s.u16(a)?, s.i32(a)?, s.i32(a)?, s.u16(a)?);
            s.statuses(st)?;
            Call::Sendrecv { count, dt, dest, stag, src, rtag, comm }
        }
        52 => Call::Barrier { comm: s.u16(a)? },
        53 => Call::Bcast { count: s.i32(a)?, dt: s.u16(a)?, root: s.i32(a)?, comm: s.u16(a)? },
        60 => {
            let (count, dt, _, _, comm) = (s.i32(a)?, s.u16(a)?, s.i32(a)?, s.u16(a)?, s.u16(a)?);
            Call::Alltoall { count, dt, comm }
        }
        62 => {
            let (count, dt, _, root, comm) = (s.i32(a)?, s.u16(a)?, s.u8(a)?, s.i32(a)?, s.u16(a)?);
            Call::Reduce { count, dt, root, comm }
        }
        65 => {
            let (count, dt, _, comm) = (s.i32(a)?, s.u16(a)?, s.u8(a)?, s.u16(a)?);
            Call::Allreduce { count, dt, comm }
        }
        24 => {
            s.i32(a)?;
            Call::Cancel
        }
        25 => {
            s.statuses(st)?;
            s.i32(a)?;
            Call::Local
        }
        26..=30 => Call::Persistent {
            send: label != 30,
            count: s.i32(a)?,
            dt: s.u16(a)?,
            peer: s.i32(a)?,
            tag: s.i32(a)?,
            comm: s.u16(a)?,
            req: s.i32(a)?,
        },
        31 => Call::Start { reqs: vec![s.i32(a)?] },
        32 => {
            s.i32(a)?;
            Call::Start { reqs: s.ints(a)? }
        }
        34 => {
            let (count, dt, dest, stag) = (s.i32(a)?, s.u16(a)?, s.i32(a)?, s.i32(a)?);
            let (src, rtag, comm) = (s.i32(a)?, s.i32(a)?, s.u16(a)?);
            s.statuses(st)?;
            Call::Sendrecv { count, dt, dest, stag, src, rtag, comm }
        }
        // Datatype constructors and queries, Address, Pack, Unpack, Op
        // and Group queries: local.
        35 => skip(s, "iss", st)?,
        36 | 37 => skip(s, "iiiss", st)?,
        38 | 39 => skip(s, "iAAss", st)?,
        40 => skip(s, "iAATs", st)?,
        41 => skip(s, "i", st)?,
        42..=45 | 68 | 69 => skip(s, "si", st)?,
        46 | 47 => skip(s, "s", st)?,
        48 => skip(s, "Psi", st)?,
        49 => skip(s, "isiiis", st)?,
        50 => skip(s, "iiiiss", st)?,
        51 => skip(s, "issi", st)?,
        63 => skip(s, "ib", st)?,
        64 => skip(s, "b", st)?,
        54 => {
            let (me, count, dt, root, comm) = (s.i32(a)?, s.i32(a)?, s.u16(a)?, s.i32(a)?, s.u16(a)?);
            if me == root {
                skip(s, "is", st)?;
            }
            Call::Gather { count, dt, root, comm }
        }
        55 => {
            let (me, _, count, dt, root, comm) = (s.i32(a)?, s.i32(a)?, s.i32(a)?, s.u16(a)?, s.i32(a)?, s.u16(a)?);
            if me == root {
                skip(s, "AA", st)?;
            }
            s.u16(a)?;
            Call::Gather { count, dt, root, comm }
        }
        56 => {
            let (me, _, _, root, comm) = (s.i32(a)?, s.i32(a)?, s.u16(a)?, s.i32(a)?, s.u16(a)?);
            let (counts, dt) = if me == root { (vec![s.i32(a)?], s.u16(a)?) } else { (vec![], 0) };
            Call::Scatter { counts, dt, root, comm }
        }
        57 => {
            let (me, _, dt) = (s.i32(a)?, s.i32(a)?, s.u16(a)?);
            let (_, _, root, comm) = (s.i32(a)?, s.u16(a)?, s.i32(a)?, s.u16(a)?);
            let mut counts = vec![];
            if me == root {
                counts = s.ints(a)?;
                s.ints(a)?;
            }
            Call::Scatter { counts, dt, root, comm }
        }
        58 => {
            let (count, dt, _, _, comm) = (s.i32(a)?, s.u16(a)?, s.i32(a)?, s.u16(a)?, s.u16(a)?);
            Call::Allgather { counts: vec![count], dt, comm }
        }
        59 => {
            let (_, _, _, counts) = (s.i32(a)?, s.i32(a)?, s.u16(a)?, s.ints(a)?);
            let (_, dt, comm) = (s.ints(a)?, s.u16(a)?, s.u16(a)?);
            Call::Allgather { counts, dt, comm }
        }
        61 => {
            let (_, counts, _, dt) = (s.i32(a)?, s.ints(a)?, s.ints(a)?, s.u16(a)?);
            let (_, _, _, comm) = (s.ints(a)?, s.ints(a)?, s.u16(a)?, s.u16(a)?);
            Call::Alltoallv { counts, dt, comm }
        }
        66 => {
            let (_, counts, dt, _, comm) = (s.i32(a)?, s.ints(a)?, s.u16(a)?, s.u8(a)?, s.u16(a)?);
            Call::Alltoallv { counts, dt, comm }
        }
        67 => {
            let (count, dt, _, comm) = (s.i32(a)?, s.u16(a)?, s.u8(a)?, s.u16(a)?);
            Call::Scan { count, dt, comm }
        }
        83 => skip(s, "ssb", st)?,
        84 => Call::CommAlias { old: s.u16(a)?, new: s.u16(a)?, cart: None },
        86 => {
            s.u16(a)?;
            s.i32(a)?;
            s.i32(a)?;
            Call::CommOther { new: s.u16(a)? }
        }
        114 => skip(s, "Si", st)?,
        115 => skip(s, "ii", st)?,
        123 => Call::Local,
        126 => skip(s, "i", st)?,
        87 => Call::CommFree { comm: s.u16(a)? },
        88 | 104 => skip(s, "si", st)?,
        96 => skip(s, "sii", st)?,
        99 => {
            let (old, _, dims, _, reorder, new) = (s.u16(a)?, s.i32(a)?, s.ints(a)?, s.ints(a)?, s.i32(a)?, s.u16(a)?);
            let ranks = dims.iter().map(|&d| d as i64).product();
            Call::CommAlias { old, new, cart: Some((ranks, reorder)) }
        }
        100 => skip(s, "iiAA", st)?,
        105 => skip(s, "isiAAA", st)?,
        106 => skip(s, "isAi", st)?,
        107 => skip(s, "isiiA", st)?,
        110 => skip(s, "siiii", st)?,
        81 | 82 => {
            s.u16(a)?;
            s.i32(a)?;
            Call::Local
        }
        122 => Call::Local,
        124 => {
            let n = s.count(4, a)?;
            for _ in 0..n {
                s.str32(a)?;
            }
            Call::Init
        }
        125 => Call::Finalize,
        171 => {
            let n = s.count(4, a)?;
            for _ in 0..n {
                s.str32(a)?;
            }
            s.u8(a)?;
            s.u8(a)?;
            Call::Init
        }
        172 => skip(s, "i", st)?,
        173 => skip(s, "b", st)?,
        178 | 197 => skip(s, "ss", st)?,
        195 => skip(s, "is", st)?,
        _ => return Err(None),
    };
    Ok(c)
}
