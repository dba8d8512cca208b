//! Trace-driven workloads: each rank's program of MPI-like operations, read
//! from trace files or generated (ring all-reduce, 3-D halo exchange,
//! all-to-all), with collectives expanded into point-to-point messages at
//! load time, and the placement of ranks on nodes. Immutable once built:
//! the model shares it (`Arc`) and the ranks' run-time state lives in the
//! nodes (state.rs; their execution is the model's, `ranks.rs`). The format and semantics are in
//! docs/network-workloads.md.
//!
//! What the nodes send, in this folder: synthetic traffic's destination
//! patterns (traffic.rs, [`Traffic`]), the rank programs (here), a rank's
//! run-time state (state.rs) and SST DUMPI traces read into rank programs
//! (dumpi/), and CODES's application skeletons (skeletons/). Nothing here knows the nodes or the model's options: they
//! build on it.

mod dumpi;
mod jobs;
pub mod skeletons;
mod state;
#[cfg(test)]
mod tests;
mod traffic;

use std::path::Path;
use timewarp::text::printable;

pub use dumpi::{DumpiOptions, DumpiTime};
pub(crate) use state::{
    Counters, Phase, Posted, Rank, Req, Times, DETACHED, EARLY, EXPECT, NO_REQ, POSTED, RDV, REQS, SENDING, UNEXPECTED,
};
pub use traffic::Traffic;

/// Most messages a rank may send under a rendezvous protocol
/// (`--eager-limit`): the top two bits of a packet's message number carry
/// its kind there (request- or clear-to-send, data).
pub const MAX_RANK_SENDS: u32 = 1 << 30;

/// Tags at or above this are reserved for the messages of collectives.
pub const COLLECTIVE_TAG: u32 = 1 << 31;

/// A receive's or probe's source matching any rank (`MPI_ANY_SOURCE`).
pub const ANY_SOURCE: u32 = u32::MAX;

/// A receive's or probe's tag matching any point-to-point tag (`MPI_ANY_TAG`;
/// never a collective's).
pub const ANY_TAG: u32 = u32::MAX;

/// Whether a receive (or probe) of `src` and `tag`, either of them possibly
/// [`ANY_SOURCE`] / [`ANY_TAG`], takes a message of `from` with `msg_tag`.
#[inline]
pub fn matches(src: u32, tag: u32, from: u32, msg_tag: u32) -> bool {
    (src == from || src == ANY_SOURCE) && (tag == msg_tag || (tag == ANY_TAG && msg_tag < COLLECTIVE_TAG))
}

/// One operation of a rank's program.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// Advance the rank's clock by this many ns.
    Compute(f64),
    /// The rank's `k`-th message (an index into [`Workload::sends`]);
    /// `blocking: false` is an `isend`, which adds a request.
    #[allow(missing_docs)]
    Send { k: u32, blocking: bool },
    /// Receive from rank `src` with `tag`; `blocking: false` is an `irecv`.
    #[allow(missing_docs)]
    Recv { src: u32, tag: u32, blocking: bool },
    /// Wait for the oldest outstanding request.
    Wait,
    /// Wait for every outstanding request.
    WaitAll,
    /// Wait for request `.0` (the rank's requests are numbered from 0 in
    /// program order: every receive and every non-blocking send takes one).
    WaitReq(u32),
    /// Block until a message of `src` with `tag` (either may be a wildcard)
    /// has arrived, without taking it (`MPI_Probe`).
    #[allow(missing_docs)]
    Probe { src: u32, tag: u32 },
}

/// An operation and where it came from (for error messages).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Op {
    /// What it does.
    pub kind: Kind,
    /// 1-based line of its trace file, or call of its DUMPI trace (0: generated).
    pub line: u32,
    /// Part of a collective: `allreduce`, `barrier`, or of DUMPI traces
    /// `bcast`, `reduce`, `alltoall`, `alltoallv`, `reduce_scatter`,
    /// `allgather`, `gather`, `scatter`, `scan`; or DUMPI's `sendrecv`,
    /// whose two halves are one call (else empty). Under rendezvous the
    /// blocking sends of these do not hold the rank (rendezvous.rs).
    pub collective: &'static str,
}

/// A message a rank sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SendInfo {
    /// Destination rank.
    pub dst: u32,
    /// Payload bytes (0 travels as 1 byte: a packet has at least one).
    pub bytes: u32,
    /// Match tag.
    pub tag: u32,
    /// How many earlier messages this rank sends to `dst` (the receiver
    /// releases a source's messages in this order: non-overtaking).
    pub ord: u32,
}

/// Every rank's program and its placement.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Workload {
    /// What it is (trace directory or generator), for reports.
    pub name: String,
    /// Per rank, its operations in order.
    pub ops: Vec<Vec<Op>>,
    /// Per rank, the messages it sends, in order (its `k`-th is message `k`).
    pub sends: Vec<Vec<SendInfo>>,
    /// Per rank, its node (set by [`Workload::place`]).
    pub node_of: Vec<u32>,
    /// Per node, its rank or [`NO_RANK`].
    pub rank_of: Vec<u32>,
    /// What [`Op::line`] counts in messages: "" (lines of text traces) or "call".
    pub unit: &'static str,
    /// Notes for the end of the run (DUMPI: the calls not modelled).
    pub notes: Vec<String>,
}

/// [`Workload::rank_of`] of a node without a rank.
pub const NO_RANK: u32 = u32::MAX;

/// How ranks are placed on nodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mapping {
    /// Rank `r` on node `r`.
    Linear,
    /// A permutation of the nodes drawn from this seed; rank `r` on its `r`-th.
    Random(u64),
    /// Rank `r` on the `r`-th node listed.
    List(Vec<u32>),
}

/// Builds the programs rank by rank; sends get their ordinals as they come.
pub(super) struct Builder {
    pub(super) ops: Vec<Vec<Op>>,
    sends: Vec<Vec<SendInfo>>,
    /// Per rank, (destination, messages so far) pairs.
    pairs: Vec<Vec<(u32, u32)>>,
    /// Collectives expanded so far per rank (their tags).
    collectives: Vec<u32>,
}

impl Builder {
    pub(super) fn new(ranks: u32) -> Self {
        let n = ranks as usize;
        Builder { ops: vec![vec![]; n], sends: vec![vec![]; n], pairs: vec![vec![]; n], collectives: vec![0; n] }
    }

    pub(super) fn push(&mut self, r: u32, kind: Kind, line: u32, collective: &'static str) {
        self.ops[r as usize].push(Op { kind, line, collective });
    }

    /// A generated compute phase of rank `r` (none when `ns` is 0).
    pub(super) fn compute(&mut self, r: u32, ns: f64) {
        if ns > 0.0 {
            self.push(r, Kind::Compute(ns), 0, "");
        }
    }

    /// Rank `r` sends; `at`: the line and collective it comes from.
    pub(super) fn send(&mut self, r: u32, dst: u32, bytes: u32, tag: u32, blocking: bool, at: (u32, &'static str)) {
        let pairs = &mut self.pairs[r as usize];
        let ord = match pairs.iter_mut().find(|p| p.0 == dst) {
            Some(p) => {
                p.1 += 1;
                p.1 - 1
            }
            None => {
                pairs.push((dst, 1));
                0
            }
        };
        let k = self.sends[r as usize].len() as u32;
        self.sends[r as usize].push(SendInfo { dst, bytes, tag, ord });
        self.push(r, Kind::Send { k, blocking }, at.0, at.1);
    }

    /// A tag of its own for rank `r`'s next collective (every rank numbers
    /// its collectives alike, so both ends of a message agree).
    pub(super) fn collective_tag(&mut self, r: u32) -> u32 {
        let c = &mut self.collectives[r as usize];
        *c += 1;
        COLLECTIVE_TAG | (*c & (COLLECTIVE_TAG - 1))
    }

    /// Rank `r`'s part of an all-reduce of `bytes` over `p` ranks:
    /// recursive doubling when `p` is a power of two, else the ring.
    pub(super) fn allreduce(&mut self, r: u32, p: u32, bytes: u32, line: u32) {
        if p.is_power_of_two() {
            let tag = self.collective_tag(r);
            let mut d = 1;
            while d < p {
                self.send(r, r ^ d, bytes, tag, true, (line, "allreduce"));
                self.push(r, Kind::Recv { src: r ^ d, tag, blocking: true }, line, "allreduce");
                d <<= 1;
            }
        } else {
            self.ring_allreduce(r, p, bytes, line);
        }
    }

    /// The ring all-reduce: reduce-scatter then all-gather, `2 (p − 1)`
    /// steps, each a message of `ceil(bytes / p)` to the right neighbour
    /// and one from the left.
    fn ring_allreduce(&mut self, r: u32, p: u32, bytes: u32, line: u32) {
        let tag = self.collective_tag(r);
        if p < 2 {
            return;
        }
        let chunk = bytes.div_ceil(p);
        for _ in 0..2 * (p - 1) {
            self.send(r, (r + 1) % p, chunk, tag, true, (line, "allreduce"));
            self.push(r, Kind::Recv { src: (r + p - 1) % p, tag, blocking: true }, line, "allreduce");
        }
    }

    /// A dissemination barrier: `ceil(log2 p)` rounds; in round `i` a
    /// 0-byte message to `r + 2^i` and one from `r − 2^i` (mod `p`).
    pub(super) fn barrier(&mut self, r: u32, p: u32, line: u32) {
        let tag = self.collective_tag(r);
        let mut d = 1;
        while d < p {
            self.send(r, (r + d) % p, 0, tag, true, (line, "barrier"));
            self.push(r, Kind::Recv { src: (r + p - d) % p, tag, blocking: true }, line, "barrier");
            d <<= 1;
        }
    }

    pub(super) fn finish(self, name: String) -> Workload {
        Workload { name, ops: self.ops, sends: self.sends, ..Workload::default() }
    }

    /// A binomial-tree broadcast of `bytes` from `root`: with `v = r − root`
    /// (mod `p`), a rank receives from `v` less its lowest set bit (the root
    /// from no one), then sends to `v + 2^k` for every `2^k` below that bit
    /// (the root: below `p`), largest first.
    pub(super) fn bcast(&mut self, r: u32, p: u32, root: u32, bytes: u32, line: u32) {
        let tag = self.collective_tag(r);
        let v = (r + p - root) % p;
        let low = if v == 0 { p.next_power_of_two() } else { v & v.wrapping_neg() };
        if v != 0 {
            self.push(r, Kind::Recv { src: (v - low + root) % p, tag, blocking: true }, line, "bcast");
        }
        let mut mask = low >> 1;
        while mask > 0 {
            if v + mask < p {
                self.send(r, (v + mask + root) % p, bytes, tag, true, (line, "bcast"));
            }
            mask >>= 1;
        }
    }

    /// A binomial-tree reduction of `bytes` to `root`, the broadcast's tree
    /// upside down: with `v = r − root` (mod `p`), for `2^k` = 1, 2, 4, ...:
    /// a rank with bit `k` set sends its vector to `v − 2^k` and is done;
    /// otherwise it receives from `v + 2^k` if that is a rank.
    pub(super) fn reduce(&mut self, r: u32, p: u32, root: u32, bytes: u32, line: u32) {
        let tag = self.collective_tag(r);
        let v = (r + p - root) % p;
        let mut mask = 1;
        while mask < p {
            if v & mask != 0 {
                self.send(r, (v - mask + root) % p, bytes, tag, true, (line, "reduce"));
                break;
            }
            if v + mask < p {
                self.push(r, Kind::Recv { src: (v + mask + root) % p, tag, blocking: true }, line, "reduce");
            }
            mask <<= 1;
        }
    }

    /// A pairwise all-to-all of `bytes` per destination: `p − 1` steps; in
    /// step `i` a send to `r + i` and a receive from `r − i` (mod `p`).
    pub(super) fn alltoall(&mut self, r: u32, p: u32, bytes: u32, line: u32) {
        let tag = self.collective_tag(r);
        for i in 1..p {
            self.send(r, (r + i) % p, bytes, tag, true, (line, "alltoall"));
            self.push(r, Kind::Recv { src: (r + p - i) % p, tag, blocking: true }, line, "alltoall");
        }
    }
}

/// The trace file of rank `r` in `dir`.
pub fn trace_file(dir: &Path, r: u32) -> std::path::PathBuf {
    dir.join(format!("rank.{r}.txt"))
}

impl Workload {
    /// The files [`read`](Self::read) would read from `dir`, as far as they
    /// are there: every `rank.*.txt`, in rank order. A checkpoint
    /// fingerprints them, so a trace file changed, emptied, removed or
    /// added before a resume is caught before it is read.
    pub fn trace_files(dir: &Path) -> Vec<std::path::PathBuf> {
        let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
        let mut found: Vec<(Option<u32>, String)> = entries
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let r = name.strip_prefix("rank.")?.strip_suffix(".txt")?.parse().ok();
                Some((r, name))
            })
            .collect();
        found.sort();
        found.into_iter().map(|(_, name)| dir.join(name)).collect()
    }

    /// Reads `DIR/rank.0.txt`, `DIR/rank.1.txt`, ... (as many as there are,
    /// numbered without gaps); errors name the file, the line and the fault.
    pub fn read(dir: &Path) -> Result<Workload, String> {
        let entries = std::fs::read_dir(dir).map_err(|e| format!("--trace-dir {}: {e}", dir.display()))?;
        let mut found = vec![];
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(r) = name.strip_prefix("rank.").and_then(|s| s.strip_suffix(".txt")) {
                match r.parse::<u32>() {
                    Ok(r) => found.push(r),
                    Err(_) => return Err(format!("{}: 'rank.R.txt' needs a whole rank number R", e.path().display())),
                }
            }
        }
        found.sort_unstable();
        if found.is_empty() {
            return Err(format!("--trace-dir {} holds no trace files (rank.0.txt, rank.1.txt, ...)", dir.display()));
        }
        for (i, &r) in found.iter().enumerate() {
            if r != i as u32 {
                return Err(format!(
                    "{} is missing: the trace files must be numbered 0..{} without gaps",
                    trace_file(dir, i as u32).display(),
                    found.len()
                ));
            }
        }
        let texts = found
            .iter()
            .map(|&r| {
                let f = trace_file(dir, r);
                std::fs::read_to_string(&f).map_err(|e| format!("{}: {e}", f.display()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Self::parse(&texts, |r| trace_file(dir, r).display().to_string(), dir.display().to_string())
    }

    /// Parses one text per rank; `file(r)` names rank `r`'s in errors.
    pub fn parse(texts: &[String], file: impl Fn(u32) -> String, name: String) -> Result<Workload, String> {
        let p = texts.len() as u32;
        let mut b = Builder::new(p);
        for (r, text) in texts.iter().enumerate() {
            let r = r as u32;
            // Requests outstanding, to refuse a wait that has none.
            let mut outstanding = 0u64;
            for (i, raw) in text.lines().enumerate() {
                let line = i as u32 + 1;
                let err = |what: String| format!("{}:{line}: {what}", file(r));
                let words: Vec<&str> = raw.split('#').next().unwrap_or("").split_whitespace().collect();
                let Some(&op) = words.first() else { continue };
                let args = &words[1..];
                let want = |n: usize, form: &str| {
                    if args.len() == n {
                        Ok(())
                    } else {
                        Err(err(format!("'{op}' takes {n} argument(s): {form}, got \"{}\"", printable(raw.trim()))))
                    }
                };
                let whole = |s: &str, what: &str| -> Result<u32, String> {
                    s.parse::<u32>().map_err(|_| err(format!("{what} must be a whole number, got '{}'", printable(s))))
                };
                let peer = |s: &str, what: &str| -> Result<u32, String> {
                    let q = whole(s, what)?;
                    if q >= p {
                        return Err(err(format!("{what} {q} is not a rank (the traces have ranks 0..{p})")));
                    }
                    if q == r {
                        return Err(err(format!("{what} {q} is this rank itself (messages to self are not modelled)")));
                    }
                    Ok(q)
                };
                let tag = |s: &str| -> Result<u32, String> {
                    let t = whole(s, "the tag")?;
                    if t >= COLLECTIVE_TAG {
                        return Err(err(format!("tag {t} is reserved for collectives (tags must be below 2^31)")));
                    }
                    Ok(t)
                };
                match op {
                    "compute" => {
                        want(1, "compute <ns>")?;
                        let ns: f64 = args[0]
                            .parse()
                            .map_err(|_| err(format!("'{}' is not a number of ns", printable(args[0]))))?;
                        if !(ns >= 0.0 && ns.is_finite()) {
                            return Err(err(format!(
                                "compute needs a finite time >= 0 ns, got {}",
                                printable(args[0])
                            )));
                        }
                        b.push(r, Kind::Compute(ns), line, "");
                    }
                    "send" | "isend" => {
                        want(3, &format!("{op} <dst> <bytes> <tag>"))?;
                        let (dst, bytes, t) = (peer(args[0], "destination")?, whole(args[1], "bytes")?, tag(args[2])?);
                        let blocking = op == "send";
                        outstanding += !blocking as u64;
                        b.send(r, dst, bytes, t, blocking, (line, ""));
                    }
                    "recv" | "irecv" => {
                        want(2, &format!("{op} <src> <tag>"))?;
                        let (src, t) = (peer(args[0], "source")?, tag(args[1])?);
                        let blocking = op == "recv";
                        outstanding += !blocking as u64;
                        b.push(r, Kind::Recv { src, tag: t, blocking }, line, "");
                    }
                    "wait" | "waitall" => {
                        want(0, op)?;
                        if outstanding == 0 {
                            return Err(err(format!("'{op}' with no outstanding isend or irecv")));
                        }
                        if op == "wait" {
                            outstanding -= 1;
                            b.push(r, Kind::Wait, line, "");
                        } else {
                            outstanding = 0;
                            b.push(r, Kind::WaitAll, line, "");
                        }
                    }
                    "allreduce" => {
                        want(1, "allreduce <bytes>")?;
                        let bytes = whole(args[0], "bytes")?;
                        b.allreduce(r, p, bytes, line);
                    }
                    "barrier" => {
                        want(0, "barrier")?;
                        b.barrier(r, p, line);
                    }
                    _ => {
                        let op = printable(op);
                        return Err(err(format!(
                            "unknown operation '{op}' (compute, send, recv, isend, irecv, wait, waitall, allreduce, barrier)"
                        )));
                    }
                }
            }
        }
        Ok(b.finish(name))
    }

    /// `iterations` × (compute `compute_ns`, ring all-reduce of `bytes`) on `p` ranks.
    pub fn ring_allreduce(p: u32, bytes: u32, iterations: u32, compute_ns: f64) -> Workload {
        let mut b = Builder::new(p);
        for r in 0..p {
            for _ in 0..iterations {
                b.compute(r, compute_ns);
                b.ring_allreduce(r, p, bytes, 0);
            }
        }
        b.finish(format!("allreduce (ring) on {p} ranks"))
    }

    /// `iterations` × (compute, then every rank sends `bytes` to every
    /// other: irecv from all, isend to `r + 1, r + 2, ...`, waitall).
    pub fn all_to_all(p: u32, bytes: u32, iterations: u32, compute_ns: f64) -> Workload {
        let mut b = Builder::new(p);
        for r in 0..p {
            for _ in 0..iterations {
                b.compute(r, compute_ns);
                for i in 1..p {
                    b.push(r, Kind::Recv { src: (r + p - i) % p, tag: 0, blocking: false }, 0, "");
                }
                for i in 1..p {
                    b.send(r, (r + i) % p, bytes, 0, false, (0, ""));
                }
                if p > 1 {
                    b.push(r, Kind::WaitAll, 0, "");
                }
            }
        }
        b.finish(format!("all-to-all on {p} ranks"))
    }

    /// A periodic 3-D stencil: the ranks on the grid of [`grid3`]`(p)`,
    /// `iterations` × (compute, irecv from and isend `bytes` to each of the
    /// 6 neighbours, waitall). Dimensions of extent 1 exchange nothing; the
    /// message sent in direction `d` (0..6: −x, +x, −y, +y, −z, +z) has tag `d`.
    pub fn halo3d(p: u32, bytes: u32, iterations: u32, compute_ns: f64) -> Workload {
        let g = grid3(p);
        let mut b = Builder::new(p);
        let at = |c: [u32; 3]| c[0] + g[0] * (c[1] + g[1] * c[2]);
        for r in 0..p {
            let c = [r % g[0], r / g[0] % g[1], r / (g[0] * g[1])];
            // (neighbour in direction d, d) for the dimensions that have neighbours.
            let mut dirs = vec![];
            for dim in 0..3 {
                if g[dim] < 2 {
                    continue;
                }
                for (up, d) in [(false, 2 * dim), (true, 2 * dim + 1)] {
                    let mut n = c;
                    n[dim] = if up { (c[dim] + 1) % g[dim] } else { (c[dim] + g[dim] - 1) % g[dim] };
                    dirs.push((at(n), d as u32));
                }
            }
            for _ in 0..iterations {
                b.compute(r, compute_ns);
                // From the neighbour in direction d comes what it sent the opposite way.
                for &(n, d) in &dirs {
                    b.push(r, Kind::Recv { src: n, tag: d ^ 1, blocking: false }, 0, "");
                }
                for &(n, d) in &dirs {
                    b.send(r, n, bytes, d, false, (0, ""));
                }
                if !dirs.is_empty() {
                    b.push(r, Kind::WaitAll, 0, "");
                }
            }
        }
        b.finish(format!("halo3d on {p} ranks ({}x{}x{})", g[0], g[1], g[2]))
    }

    /// Refuses a workload not placed on `nodes` nodes, or with a message
    /// of more packets than the model allows (2^20 of `packet_bytes`).
    pub fn check(&self, nodes: u32, packet_bytes: u32) -> Result<(), String> {
        if self.rank_of.len() != nodes as usize || self.node_of.len() != self.ops.len() {
            return Err(format!("the workload is not placed on this network's {nodes} nodes (Workload::place)"));
        }
        for (r, sends) in self.sends.iter().enumerate() {
            if let Some(s) = sends.iter().find(|s| s.bytes.div_ceil(packet_bytes) > 1 << 20) {
                return Err(format!(
                    "rank {r} sends a message of {} bytes: more than 2^20 packets of --packet-bytes {packet_bytes}",
                    s.bytes
                ));
            }
        }
        Ok(())
    }

    /// Ranks.
    pub fn ranks(&self) -> u32 {
        self.ops.len() as u32
    }

    /// Places the ranks on `nodes` nodes; refuses more ranks than nodes and
    /// a list naming a node twice or outside the network.
    pub fn place(&mut self, nodes: u32, mapping: &Mapping) -> Result<(), String> {
        let p = self.ranks();
        if p > nodes {
            return Err(format!("the workload has {p} ranks but the network only {nodes} nodes (one rank per node)"));
        }
        self.node_of = match mapping {
            Mapping::Linear => (0..p).collect(),
            Mapping::Random(seed) => {
                // Fisher–Yates over all nodes with a local SplitMix64 stream.
                let mut s = *seed;
                let mut next = move || {
                    s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
                    let mut z = s;
                    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                    z ^ (z >> 31)
                };
                let mut v: Vec<u32> = (0..nodes).collect();
                for i in (1..nodes as usize).rev() {
                    v.swap(i, (next() % (i as u64 + 1)) as usize);
                }
                v.truncate(p as usize);
                v
            }
            Mapping::List(list) => {
                if list.len() < p as usize {
                    return Err(format!("--rank-mapping lists {} nodes for {p} ranks (one node per rank)", list.len()));
                }
                list[..p as usize].to_vec()
            }
        };
        self.rank_of = vec![NO_RANK; nodes as usize];
        for (r, &n) in self.node_of.iter().enumerate() {
            if n >= nodes {
                return Err(format!("--rank-mapping puts rank {r} on node {n}, outside the network's 0..{nodes}"));
            }
            if self.rank_of[n as usize] != NO_RANK {
                return Err(format!(
                    "--rank-mapping puts ranks {} and {r} on node {n} (one rank per node)",
                    self.rank_of[n as usize]
                ));
            }
            self.rank_of[n as usize] = r as u32;
        }
        Ok(())
    }
}

/// `p` as a 3-D grid `[x, y, z]` with `x·y·z = p`, as near a cube as can be
/// (`x ≥ y ≥ z`, like `MPI_Dims_create`).
pub fn grid3(p: u32) -> [u32; 3] {
    let mut best = [p.max(1), 1, 1];
    let score = |g: [u32; 3]| g[0] - g[2];
    for z in 1..=p {
        if z * z * z > p {
            break;
        }
        if p % z != 0 {
            continue;
        }
        let q = p / z;
        for y in z..=q {
            if y * y > q {
                break;
            }
            if q % y == 0 {
                let g = [q / y, y, z];
                if score(g) < score(best) {
                    best = g;
                }
            }
        }
    }
    best
}

/// A `--rank-mapping` file: node numbers in rank order, separated by white
/// space or lines (`#` comments).
pub fn read_mapping(path: &Path) -> Result<Vec<u32>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("--rank-mapping {}: {e}", path.display()))?;
    let mut out = vec![];
    for (i, raw) in text.lines().enumerate() {
        for w in raw.split('#').next().unwrap_or("").split_whitespace() {
            out.push(w.parse().map_err(|_| {
                format!("{}:{}: expected a node number, got '{}'", path.display(), i + 1, printable(w))
            })?);
        }
    }
    Ok(out)
}
