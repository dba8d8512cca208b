//! Partitioning on measured behaviour (the multicore report, sections
//! 3.2.2 and 4.4): profile a run ([`crate::profile`]), turn the profile into
//! a weighted graph ([`Graph`], METIS format on disk), partition it with one
//! of the report's [`Scheme`]s ([`partition`]), and run with the result as
//! a mapping table ([`mapping_text`], read back by `--mapping FILE`).
//!
//! ```
//! use timewarp::partition::{mapping_text, partition, Profile, Request, Scheme};
//! let mut p = Profile::new(4);
//! p.header.model = "ring".into();
//! p.record(1, 0, 10);
//! let g = p.graph();
//! let r = Request { scheme: Scheme::Block, processes: 1, threads: 2, hierarchical: false, imbalance: 1.05, seed: 1 };
//! let part = partition(&g, &r).unwrap();
//! let text = mapping_text(&g, &r, &part);
//! assert_eq!(timewarp::Mapping::parse_table(&text).unwrap(), timewarp::Mapping::Table(vec![0, 0, 1, 1].into()));
//! let origin = timewarp::partition::mapping_origin(&text).unwrap();
//! assert_eq!((origin.model.as_str(), origin.lps), ("ring", 4));
//! ```

mod graph;
mod metis;
mod schemes;
#[cfg(test)]
mod tests;

pub use graph::{Graph, Profile, ProfileHeader};
pub use schemes::{greedy_bins, partition, Partition, Request, Scheme};

use serde::{Deserialize, Serialize};

/// The first line of a mapping file written by [`mapping_text`]: this tag, then JSON.
const MAPPING_TAG: &str = "# timewarp-mapping ";

/// What a mapping file says it was made for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MappingOrigin {
    /// Model of the profile.
    pub model: String,
    /// LPs of the profile.
    pub lps: u32,
    /// The model's options in the profiled run.
    pub params: String,
    /// Scheme name.
    pub scheme: String,
    /// Processes × threads the mapping was made for.
    pub processes: usize,
    /// Threads (PEs) per process.
    pub threads: usize,
}

/// A mapping file for `--mapping FILE`: a header comment naming the model,
/// then one PE per LP.
pub fn mapping_text(g: &Graph, r: &Request, p: &Partition) -> String {
    use std::fmt::Write;
    let origin = MappingOrigin {
        model: g.header.model.clone(),
        lps: g.header.lps,
        params: g.header.params.clone(),
        scheme: r.scheme.name().to_string(),
        processes: r.processes,
        threads: r.threads,
    };
    let mut s = String::with_capacity(p.table.len() * 3 + 256);
    let _ = writeln!(s, "{MAPPING_TAG}{}", serde_json::to_string(&origin).expect("serialises"));
    let _ = writeln!(
        s,
        "# predicted: remote fraction {:.4}, remote-process fraction {:.4}, imbalance (events) {:.3}",
        p.remote_fraction, p.remote_process_fraction, p.imbalance_events
    );
    for pe in &p.table {
        let _ = writeln!(s, "{pe}");
    }
    s
}

/// The origin a mapping file states in its first line, if it has one.
pub fn mapping_origin(text: &str) -> Option<MappingOrigin> {
    serde_json::from_str(text.lines().next()?.strip_prefix(MAPPING_TAG)?).ok()
}
