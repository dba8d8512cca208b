//! The partitioning schemes of the multicore report (section 4.4): random,
//! block, static, object-only, activity, object-activity, flat or
//! latency-sensitive (processes first, then threads inside each).

use serde::Serialize;

use crate::error::Error;
use crate::key::LpId;

use super::graph::Graph;
use super::metis;

/// A partitioning scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scheme {
    /// A random permutation in equal blocks (what `--mapping random` does with the same seed).
    Random,
    /// Contiguous blocks of LP ids (what `--mapping block` does).
    Block,
    /// METIS on the communication graph with unit vertex and edge weights:
    /// the structure alone (edges the profiled run used at least once).
    Static,
    /// Greedy bin packing of measured handler time, largest LP to the
    /// least-loaded part; no graph.
    ObjectOnly,
    /// METIS with measured messages as edge weights, unit vertex weights.
    Activity,
    /// METIS with measured messages as edge weights and measured handler
    /// time as vertex weights.
    ObjectActivity,
}

impl std::str::FromStr for Scheme {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s {
            "random" => Scheme::Random,
            "block" => Scheme::Block,
            "static" => Scheme::Static,
            "object-only" => Scheme::ObjectOnly,
            "activity" => Scheme::Activity,
            "object-activity" => Scheme::ObjectActivity,
            _ => {
                return Err(format!(
                    "unknown scheme {s:?}: random, block, static, object-only, activity or object-activity"
                ))
            }
        })
    }
}

impl Scheme {
    /// Every scheme, in the report's order.
    pub const ALL: [Scheme; 6] =
        [Scheme::Random, Scheme::Block, Scheme::Static, Scheme::ObjectOnly, Scheme::Activity, Scheme::ObjectActivity];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Random => "random",
            Scheme::Block => "block",
            Scheme::Static => "static",
            Scheme::ObjectOnly => "object-only",
            Scheme::Activity => "activity",
            Scheme::ObjectActivity => "object-activity",
        }
    }
}

/// How to partition.
#[derive(Clone, Debug)]
pub struct Request {
    /// The scheme.
    pub scheme: Scheme,
    /// Processes (1 for a flat partition into `threads` parts).
    pub processes: usize,
    /// Parts (PEs) per process.
    pub threads: usize,
    /// Latency-sensitive: partition across processes first, then across
    /// threads inside each (report section 3.2.2); otherwise one flat
    /// partition into `processes × threads` parts (PE `g` in process `g / threads`).
    pub hierarchical: bool,
    /// Allowed max part weight / mean part weight (METIS's `ufactor`).
    pub imbalance: f64,
    /// Seed of the random scheme.
    pub seed: u64,
}

/// A partition and what it predicts.
#[derive(Clone, Debug, Serialize)]
pub struct Partition {
    /// The PE of every LP.
    #[serde(skip)]
    pub table: Vec<u32>,
    /// Messages between LPs on different PEs.
    pub cut: u64,
    /// Messages between LPs in different processes.
    pub cut_processes: u64,
    /// Predicted `remote_fraction`: cut messages per committed event.
    pub remote_fraction: f64,
    /// Predicted `remote_process_fraction`.
    pub remote_process_fraction: f64,
    /// Largest part / mean part in committed events.
    pub imbalance_events: f64,
    /// Largest part / mean part in handler time.
    pub imbalance_time: f64,
    /// Largest part / mean part in LPs.
    pub imbalance_lps: f64,
}

/// Partitions `g` as `r` asks.
///
/// ```
/// use timewarp::partition::{partition, Profile, Request, Scheme};
/// let mut p = Profile::new(4);
/// for _ in 0..10 { p.record(1, 0, 100); p.record(3, 2, 100); }
/// p.record(2, 1, 100);
/// let r = Request { scheme: Scheme::Activity, processes: 1, threads: 2, hierarchical: false, imbalance: 1.05, seed: 1 };
/// let part = partition(&p.graph(), &r).unwrap();
/// assert_eq!(part.cut, 1); // {0, 1} and {2, 3}
/// ```
pub fn partition(g: &Graph, r: &Request) -> Result<Partition, Error> {
    let parts = r.processes.saturating_mul(r.threads);
    if parts == 0 || parts > u32::MAX as usize {
        return Err(Error::Config(format!("--parts must be from 1 to {}, got {parts}", u32::MAX)));
    }
    if !(r.imbalance.is_finite() && r.imbalance >= 1.0) {
        return Err(Error::Config(format!(
            "--imbalance must be a number >= 1 (max part / mean part), got {}",
            r.imbalance
        )));
    }
    let n = g.len();
    let table: Vec<u32> = match r.scheme {
        Scheme::Random => crate::mapping::random_table(n as u32, parts, r.seed),
        Scheme::Block => {
            let per = n.div_ceil(parts).max(1);
            (0..n).map(|v| (v / per) as u32).collect()
        }
        _ if r.hierarchical && r.processes > 1 && r.threads > 1 => {
            // Across processes first (the expensive links), then threads inside each.
            let all: Vec<LpId> = (0..n as LpId).collect();
            let outer = split(g, &all, r.processes, r)?;
            let mut table = vec![0u32; n];
            for p in 0..r.processes {
                let members: Vec<LpId> = all.iter().copied().filter(|&v| outer[v as usize] == p as u32).collect();
                let inner = split(g, &members, r.threads, r)?;
                for (i, &v) in members.iter().enumerate() {
                    table[v as usize] = (p * r.threads) as u32 + inner[i];
                }
            }
            table
        }
        _ => {
            let all: Vec<LpId> = (0..n as LpId).collect();
            split(g, &all, parts, r)?
        }
    };
    Ok(evaluate(g, table, r.processes, r.threads))
}

/// Splits the LPs `members` of `g` into `parts` with `r.scheme`; the part
/// of `members[i]` is entry `i` (or entry `v` when `members` is every LP).
fn split(g: &Graph, members: &[LpId], parts: usize, r: &Request) -> Result<Vec<u32>, Error> {
    let time = |v: LpId| if g.nanos.iter().all(|&t| t == 0) { g.events[v as usize] } else { g.nanos[v as usize] };
    let result = match r.scheme {
        Scheme::ObjectOnly => {
            let w: Vec<u64> = members.iter().map(|&v| time(v)).collect();
            greedy_bins(&w, parts)
        }
        Scheme::Static | Scheme::Activity | Scheme::ObjectActivity => {
            let sub = metis::Subgraph::induced(
                g,
                members,
                |v| match r.scheme {
                    Scheme::ObjectActivity => time(v),
                    _ => 1,
                },
                r.scheme != Scheme::Static,
            );
            sub.partition(parts, r.imbalance)?
        }
        Scheme::Random | Scheme::Block => unreachable!("placed without a graph"),
    };
    Ok(result)
}

/// Longest-processing-time-first bin packing: the heaviest item goes to the
/// lightest bin (ties to the bin with fewer items, then the lowest: LPs that
/// never ran still spread out). At most 4/3 of the optimal largest bin
/// (Graham 1969).
///
/// ```
/// # use timewarp::partition::greedy_bins;
/// assert_eq!(greedy_bins(&[5, 1, 4, 2], 2), vec![0, 0, 1, 1]); // 5+1 and 4+2
/// assert_eq!(greedy_bins(&[0, 0, 0, 0], 2), vec![0, 1, 0, 1]); // nothing measured: spread
/// ```
pub fn greedy_bins(weights: &[u64], bins: usize) -> Vec<u32> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by_key(|&i| (Reverse(weights[i]), i));
    let mut heap: BinaryHeap<Reverse<(u64, usize, u32)>> = (0..bins as u32).map(|b| Reverse((0, 0, b))).collect();
    let mut out = vec![0u32; weights.len()];
    for i in order {
        let Reverse((load, items, b)) = heap.pop().expect("at least one bin");
        out[i] = b;
        heap.push(Reverse((load + weights[i], items + 1, b)));
    }
    out
}

/// Cut, predicted remote fractions and imbalances of `table` on `g`.
pub(crate) fn evaluate(g: &Graph, table: Vec<u32>, processes: usize, threads: usize) -> Partition {
    let parts = processes * threads;
    let (mut cut, mut cut_processes) = (0u64, 0u64);
    for v in 0..g.len() {
        for (u, w) in g.edges(v) {
            // Every edge twice: count it from its lower end.
            if (u as usize) > v && table[u as usize] != table[v] {
                cut += w;
                if table[u as usize] as usize / threads != table[v] as usize / threads {
                    cut_processes += w;
                }
            }
        }
    }
    let ratio = |w: &dyn Fn(usize) -> u64| {
        let mut load = vec![0u64; parts];
        for (v, &p) in table.iter().enumerate() {
            load[p as usize] += w(v);
        }
        let total: u64 = load.iter().sum();
        if total == 0 {
            1.0
        } else {
            *load.iter().max().unwrap_or(&0) as f64 * parts as f64 / total as f64
        }
    };
    let events = g.total_events().max(1) as f64;
    Partition {
        imbalance_events: ratio(&|v| g.events[v]),
        imbalance_time: ratio(&|v| g.nanos[v]),
        imbalance_lps: ratio(&|_| 1),
        remote_fraction: cut as f64 / events,
        remote_process_fraction: cut_processes as f64 / events,
        cut,
        cut_processes,
        table,
    }
}
