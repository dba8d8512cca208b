//! Several jobs of ranks on one network: their programs joined into one
//! [`Workload`], each job's ranks numbered after the previous jobs'. A job's
//! ranks send only to ranks of the same job (its destinations and sources
//! are shifted by the job's first rank; a wildcard source stays one), so a
//! node's rank receives only its own job's messages and jobs share nothing
//! but the network.

use super::{Kind, Workload, ANY_SOURCE};

impl Workload {
    /// The jobs `parts`, in order, as one unplaced workload: job `j`'s rank
    /// `r` is rank `first[j] + r`, with `first[j]` the ranks of the jobs before it.
    pub fn combine(parts: &[Workload]) -> Workload {
        let mut out = Workload::default();
        let mut first = 0u32;
        for (j, w) in parts.iter().enumerate() {
            let shift = |r: u32| if r == ANY_SOURCE { r } else { r + first };
            for ops in &w.ops {
                out.ops.push(
                    ops.iter()
                        .map(|op| {
                            let kind = match op.kind {
                                Kind::Recv { src, tag, blocking } => Kind::Recv { src: shift(src), tag, blocking },
                                Kind::Probe { src, tag } => Kind::Probe { src: shift(src), tag },
                                k => k,
                            };
                            super::Op { kind, ..*op }
                        })
                        .collect(),
                );
            }
            for sends in &w.sends {
                out.sends.push(sends.iter().map(|s| super::SendInfo { dst: s.dst + first, ..*s }).collect());
            }
            if out.unit.is_empty() {
                out.unit = w.unit;
            }
            out.notes.extend(w.notes.iter().map(|n| format!("job {j}: {n}")));
            first += w.ranks();
        }
        out.name = parts.iter().map(|w| w.name.as_str()).collect::<Vec<_>>().join(" + ");
        out
    }
}
