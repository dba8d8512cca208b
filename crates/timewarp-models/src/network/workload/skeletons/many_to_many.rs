//! SWM's many-to-many skeleton (`many_to_many_swm_user_code.cpp`, CODES's
//! `many_to_many`, `many_to_many1`): each iteration every source rank
//! (`src_rank_id_interval`) computes, isends `msg_req_bytes` (tag 0) to
//! every destination (`dst_rank_id_interval`), starting at destination
//! `min + source mod count` and wrapping, and waits for its sends; every
//! destination irecvs one message from each source in rank order and
//! waits. With `fixed_pairs` the `i`-th source sends to the `i`-th
//! destination only, and ranks without a partner stop (a source after its
//! first compute delay). Other ranks do nothing. The skeleton reads
//! `use_any_src`, `blocking_comm` and `randomize_communication_order` but
//! never uses them.

use super::super::{Builder, Kind, Workload};

/// Many-to-many's parameters (the skeleton JSON's `jobs.size` and `jobs.cfg`).
#[derive(Clone, Debug, PartialEq)]
pub struct ManyToMany {
    /// Ranks (`jobs.size`).
    pub ranks: u32,
    /// `iteration_cnt`.
    pub iterations: u32,
    /// `src_rank_id_interval`: the first and last source (inclusive).
    pub sources: (u32, u32),
    /// `dst_rank_id_interval`: the first and last destination (inclusive).
    pub dests: (u32, u32),
    /// `msg_req_bytes`.
    pub bytes: u32,
    /// `compute_delay`, cycles before each iteration's sends.
    pub compute_cycles: f64,
    /// `cpu_freq` in Hz (0: CODES's 2 GHz).
    pub cpu_hz: f64,
    /// `fixed_pairs`: source `min + i` sends to destination `min + i` only.
    pub fixed_pairs: bool,
    /// `start_delay_max` with `scattered_start`: each source first computes
    /// a delay drawn below it (cycles; 0: none).
    pub start_delay_max: u32,
    /// The start delays' seed.
    pub seed: u64,
}

impl ManyToMany {
    fn ns(&self, cycles: f64) -> f64 {
        let hz = if self.cpu_hz > 0.0 { self.cpu_hz } else { 2e9 };
        cycles / hz * 1e9
    }

    /// Source `s`'s destinations in one iteration, in the order it sends
    /// (empty: it has no partner and stops).
    pub fn targets(&self, s: u32) -> Vec<u32> {
        let (lo, hi) = self.dests;
        let count = hi - lo + 1;
        if self.fixed_pairs {
            let t = s - self.sources.0 + lo;
            return if t > hi { vec![] } else { vec![t] };
        }
        (0..count).map(|i| lo + (s % count + i) % count).collect()
    }

    /// Destination `d`'s sources in one iteration, in the order it receives.
    pub fn senders(&self, d: u32) -> Vec<u32> {
        let (lo, hi) = self.sources;
        if self.fixed_pairs {
            let s = d - self.dests.0 + lo;
            return if s > hi { vec![] } else { vec![s] };
        }
        (lo..=hi).collect()
    }

    /// The rank programs; refuses what the skeleton asserts against, and
    /// overlapping intervals (a rank in both only sends, so the messages to
    /// it would never be received).
    pub fn workload(&self) -> Result<Workload, String> {
        let ((slo, shi), (dlo, dhi)) = (self.sources, self.dests);
        if slo > shi || dlo > dhi || shi >= self.ranks || dhi >= self.ranks {
            return Err(format!(
                "many_to_many: src_rank_id_interval [{slo}, {shi}] and dst_rank_id_interval [{dlo}, {dhi}] must be \
                 [FIRST, LAST] ranks of the job's 0..{} (SWM asserts it)",
                self.ranks
            ));
        }
        if slo <= dhi && dlo <= shi {
            return Err(format!(
                "many_to_many: src_rank_id_interval [{slo}, {shi}] and dst_rank_id_interval [{dlo}, {dhi}] overlap: a \
                 rank in both only sends (as in SWM), so messages to it are never received; make them disjoint"
            ));
        }
        let mut b = Builder::new(self.ranks);
        let mut state = self.seed;
        for s in slo..=shi {
            if self.start_delay_max > 0 {
                let z = super::next(&mut state);
                b.compute(s, self.ns((z % self.start_delay_max as u64) as f64));
            }
            let targets = self.targets(s);
            for _ in 0..self.iterations {
                b.compute(s, self.ns(self.compute_cycles));
                if targets.is_empty() {
                    break;
                }
                for &t in &targets {
                    b.send(s, t, self.bytes, 0, false, (0, ""));
                }
                b.push(s, Kind::WaitAll, 0, "");
            }
        }
        for d in dlo..=dhi {
            let from = self.senders(d);
            if from.is_empty() {
                continue;
            }
            for _ in 0..self.iterations {
                for &src in &from {
                    b.push(d, Kind::Recv { src, tag: 0, blocking: false }, 0, "");
                }
                b.push(d, Kind::WaitAll, 0, "");
            }
        }
        let pairs = if self.fixed_pairs { ", fixed pairs" } else { "" };
        Ok(b.finish(format!("many_to_many on {} ranks ({slo}..={shi} to {dlo}..={dhi}{pairs})", self.ranks)))
    }
}
