//! The measured behaviour of a run as a graph: per LP committed events and
//! handler time (vertex weights), per LP pair committed messages (edge
//! weights); written and read in METIS's graph format with a JSON header.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::key::LpId;
use crate::text::printable;

/// What produced a profile: a partition made from it fits only runs of the
/// same model and LP count (the mapping file repeats it).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProfileHeader {
    /// Model name.
    pub model: String,
    /// Number of LPs.
    pub lps: u32,
    /// The model's options as the front end wrote them (informative).
    pub params: String,
    /// Seed of the profiled run.
    pub seed: u64,
    /// Its end time.
    pub end: f64,
    /// Events it committed.
    pub committed_events: u64,
}

/// Counts gathered while a run commits (see [`crate::profile`]).
///
/// ```
/// use timewarp::partition::Profile;
/// let mut p = Profile::new(3);
/// p.record(1, 0, 500); // LP 1 committed an event LP 0 sent; its handler took 500 ns
/// p.record(1, 1, 100); // a self-send is no edge
/// let g = p.graph();
/// assert_eq!(g.events, vec![0, 2, 0]);
/// assert_eq!(g.edge_weight(0, 1), Some(1));
/// ```
#[derive(Clone, Debug, Default)]
pub struct Profile {
    /// Header written with the graph.
    pub header: ProfileHeader,
    events: Vec<u64>,
    nanos: Vec<u64>,
    /// Committed messages per ordered (sender, receiver) pair, sender ≠ receiver.
    messages: FxHashMap<(LpId, LpId), u64>,
}

impl Profile {
    /// An empty profile of `lps` LPs.
    pub fn new(lps: u32) -> Self {
        Profile {
            header: ProfileHeader { lps, ..Default::default() },
            events: vec![0; lps as usize],
            nanos: vec![0; lps as usize],
            messages: FxHashMap::default(),
        }
    }

    /// Counts a committed event of `dst` sent by `src` whose handler took `nanos`.
    #[inline]
    pub fn record(&mut self, dst: LpId, src: LpId, nanos: u64) {
        self.events[dst as usize] += 1;
        self.nanos[dst as usize] += nanos;
        if src != dst {
            *self.messages.entry((src, dst)).or_insert(0) += 1;
        }
    }

    /// The undirected graph: an edge's weight is the messages both ways.
    pub fn graph(&self) -> Graph {
        let n = self.events.len();
        let mut adj: Vec<Vec<(LpId, u64)>> = vec![Vec::new(); n];
        for (&(a, b), &w) in &self.messages {
            adj[a as usize].push((b, w));
            adj[b as usize].push((a, w));
        }
        Graph::from_lists(self.header.clone(), self.events.clone(), self.nanos.clone(), adj)
    }
}

/// An undirected weighted graph in compressed rows (LP ids are vertices).
#[derive(Clone, Debug, PartialEq)]
pub struct Graph {
    /// What produced it.
    pub header: ProfileHeader,
    /// Committed events per LP (first vertex weight).
    pub events: Vec<u64>,
    /// Handler nanoseconds per LP (second vertex weight).
    pub nanos: Vec<u64>,
    /// Row starts: the neighbours of `v` are `adj[xadj[v]..xadj[v + 1]]`.
    pub xadj: Vec<usize>,
    /// Neighbours, ascending per row.
    pub adj: Vec<LpId>,
    /// Messages on each edge (both directions), index for index with `adj`.
    pub weight: Vec<u64>,
}

/// The first line of a profile: this tag, then the header as JSON.
const TAG: &str = "% timewarp-profile ";

impl Graph {
    /// Builds the rows from per-vertex lists, merging repeated neighbours.
    pub(crate) fn from_lists(
        header: ProfileHeader,
        events: Vec<u64>,
        nanos: Vec<u64>,
        mut lists: Vec<Vec<(LpId, u64)>>,
    ) -> Self {
        let mut xadj = Vec::with_capacity(lists.len() + 1);
        let (mut adj, mut weight) = (Vec::new(), Vec::new());
        xadj.push(0);
        for l in &mut lists {
            l.sort_unstable_by_key(|x| x.0);
            for &(v, w) in l.iter() {
                if adj.len() > *xadj.last().unwrap_or(&0) && adj.last() == Some(&v) {
                    *weight.last_mut().expect("an edge") += w;
                } else {
                    adj.push(v);
                    weight.push(w);
                }
            }
            xadj.push(adj.len());
        }
        Graph { header, events, nanos, xadj, adj, weight }
    }

    /// Number of vertices (LPs).
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// True for a graph of no vertices.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// Neighbours of `v` with their edge weights.
    pub fn edges(&self, v: usize) -> impl Iterator<Item = (LpId, u64)> + '_ {
        let r = self.xadj[v]..self.xadj[v + 1];
        self.adj[r.clone()].iter().copied().zip(self.weight[r].iter().copied())
    }

    /// The weight of edge `a`–`b`, if there is one.
    pub fn edge_weight(&self, a: LpId, b: LpId) -> Option<u64> {
        self.edges(a as usize).find(|e| e.0 == b).map(|e| e.1)
    }

    /// Total committed events.
    pub fn total_events(&self) -> u64 {
        self.events.iter().sum()
    }

    /// Writes the METIS graph format (`fmt` 011, two vertex weights: events
    /// and handler nanoseconds; edge weights: messages both ways), preceded
    /// by the header as a `%` comment.
    pub fn to_metis(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let header = serde_json::to_string(&self.header).expect("a header serialises");
        let _ = writeln!(s, "{TAG}{header}");
        let _ = writeln!(
            s,
            "% METIS graph: vertex = LP (1-based); vertex weights: committed events, handler nanoseconds; \
             edge weight: committed messages both ways"
        );
        let _ = writeln!(s, "{} {} 011 2", self.len(), self.adj.len() / 2);
        for v in 0..self.len() {
            let _ = write!(s, "{} {}", self.events[v], self.nanos[v]);
            for (u, w) in self.edges(v) {
                let _ = write!(s, " {} {w}", u + 1);
            }
            s.push('\n');
        }
        s
    }

    /// Reads what [`to_metis`](Self::to_metis) wrote. `what` names the file in errors.
    pub fn from_metis(text: &str, what: &str) -> Result<Self, Error> {
        let bad = |m: String| Error::Config(format!("{what}: {m}"));
        let mut lines = text.lines().enumerate();
        let header: ProfileHeader = match text.lines().next().and_then(|l| l.strip_prefix(TAG)) {
            Some(json) => serde_json::from_str(json).map_err(|e| bad(format!("line 1: bad profile header ({e})")))?,
            None => {
                return Err(bad(format!(
                    "not a timewarp profile (its first line must start with `{}`; write one with `timewarp run ... --profile-out FILE`)",
                    TAG.trim()
                )))
            }
        };
        let mut next = || lines.find(|(_, l)| !l.trim_start().starts_with('%'));
        let (i, first) = next().ok_or_else(|| bad("no METIS header line (n m fmt ncon)".into()))?;
        let f: Vec<&str> = first.split_whitespace().collect();
        let (n, m): (usize, usize) =
            match (f.first().and_then(|x| x.parse().ok()), f.get(1).and_then(|x| x.parse().ok())) {
                (Some(n), Some(m)) if f.get(2) == Some(&"011") && f.get(3) == Some(&"2") => (n, m),
                _ => {
                    let got = printable(first);
                    return Err(bad(format!("line {}: expected `n m 011 2`, got '{got}'", i + 1)));
                }
            };
        if n != header.lps as usize {
            return Err(bad(format!("the header says {} LPs, the graph has {n} vertices", header.lps)));
        }
        let (mut events, mut nanos) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let mut lists = Vec::with_capacity(n);
        for v in 0..n {
            let (i, line) = next().ok_or_else(|| bad(format!("{n} vertices announced, {v} found")))?;
            let nums: Vec<u64> = line
                .split_whitespace()
                .map(|x| {
                    x.parse::<u64>().map_err(|_| bad(format!("line {}: '{}' is not a number", i + 1, printable(x))))
                })
                .collect::<Result<_, _>>()?;
            if nums.len() < 2 || nums.len() % 2 != 0 {
                return Err(bad(format!("line {}: expected 2 vertex weights and (neighbour, weight) pairs", i + 1)));
            }
            events.push(nums[0]);
            nanos.push(nums[1]);
            let mut l = Vec::with_capacity(nums.len() / 2 - 1);
            for p in nums[2..].chunks(2) {
                if p[0] == 0 || p[0] as usize > n || p[0] as usize == v + 1 {
                    return Err(bad(format!("line {}: neighbour {} is not another vertex 1..={n}", i + 1, p[0])));
                }
                l.push((p[0] as LpId - 1, p[1]));
            }
            lists.push(l);
        }
        let g = Graph::from_lists(header, events, nanos, lists);
        if g.adj.len() != 2 * m {
            return Err(bad(format!("{m} edges announced, {} found", g.adj.len() / 2)));
        }
        for v in 0..n {
            for (u, w) in g.edges(v) {
                if g.edge_weight(u, v as LpId) != Some(w) {
                    return Err(bad(format!("edge {}–{} is not symmetric", v + 1, u + 1)));
                }
            }
        }
        Ok(g)
    }
}
