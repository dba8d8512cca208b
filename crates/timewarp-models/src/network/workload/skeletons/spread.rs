//! SWM's spread skeleton (`one_to_many_swm_user_code.cpp`, CODES's
//! `spread`): each iteration the source (`src_rank_id`) sends
//! `msg_req_bytes` to every rank of `dst_rank_id_interval` in rank order,
//! computing `compute_delay` after each send, then (non-blocking) waits
//! for its sends; every destination receives one message from the source
//! per iteration (non-blocking: an irecv and a wait). Other ranks do
//! nothing. The skeleton reads `use_any_src` and
//! `randomize_communication_order` but never uses them.

use super::super::{Builder, Kind, Workload, COLLECTIVE_TAG};

/// Spread's parameters (the skeleton JSON's `jobs.size` and `jobs.cfg`).
#[derive(Clone, Debug, PartialEq)]
pub struct Spread {
    /// Ranks (`jobs.size`).
    pub ranks: u32,
    /// `iteration_cnt`.
    pub iterations: u32,
    /// `src_rank_id`.
    pub src: u32,
    /// `dst_rank_id_interval`: the first and last destination (inclusive).
    pub dests: (u32, u32),
    /// `msg_req_bytes`.
    pub bytes: u32,
    /// `compute_delay`, cycles after each send.
    pub compute_cycles: f64,
    /// `cpu_freq` in Hz (0: CODES's 2 GHz).
    pub cpu_hz: f64,
    /// `blocking_comm`: blocking sends and receives.
    pub blocking: bool,
    /// `start_delay_max` with `scattered_start`: the source first computes
    /// a delay drawn below it (cycles; 0: none).
    pub start_delay_max: u32,
    /// The start delay's seed.
    pub seed: u64,
}

impl Spread {
    fn ns(&self, cycles: f64) -> f64 {
        let hz = if self.cpu_hz > 0.0 { self.cpu_hz } else { 2e9 };
        cycles / hz * 1e9
    }

    /// The tag of destination `dst`'s message of iteration `iter`, as the
    /// skeleton computes it: `sizeof(int) · ((dst + 1) + size · iter)`.
    pub fn tag(&self, dst: u32, iter: u32) -> Option<u32> {
        let t = 4 * ((dst as u64 + 1) + self.ranks as u64 * iter as u64);
        u32::try_from(t).ok().filter(|&t| t < COLLECTIVE_TAG)
    }

    /// The rank programs; refuses what the skeleton asserts against, a
    /// destination past the job's ranks, the source among the destinations
    /// (it would send to itself and never receive) and tags past an
    /// `int`'s range.
    pub fn workload(&self) -> Result<Workload, String> {
        let (lo, hi) = self.dests;
        if self.src >= self.ranks || lo > hi || hi >= self.ranks {
            return Err(format!(
                "spread: src_rank_id {} and dst_rank_id_interval [{lo}, {hi}] must be ranks of the job's 0..{}",
                self.src, self.ranks
            ));
        }
        if (lo..=hi).contains(&self.src) {
            return Err(format!(
                "spread: src_rank_id {} is inside dst_rank_id_interval [{lo}, {hi}]: it would send to itself and never \
                 receive (as in SWM); move it out",
                self.src
            ));
        }
        if self.iterations > 0 && self.tag(hi, self.iterations - 1).is_none() {
            return Err(
                "spread: the tags (4 x (destination + 1 + size x iteration)) pass 2^31; lower iteration_cnt".into()
            );
        }
        let mut b = Builder::new(self.ranks);
        let s = self.src;
        if self.start_delay_max > 0 {
            let mut state = self.seed;
            let z = super::next(&mut state);
            b.compute(s, self.ns((z % self.start_delay_max as u64) as f64));
        }
        for iter in 0..self.iterations {
            for d in lo..=hi {
                let tag = self.tag(d, iter).expect("checked above");
                b.send(s, d, self.bytes, tag, self.blocking, (0, ""));
                b.compute(s, self.ns(self.compute_cycles));
            }
            if !self.blocking {
                b.push(s, Kind::WaitAll, 0, "");
            }
        }
        for d in lo..=hi {
            for iter in 0..self.iterations {
                let tag = self.tag(d, iter).expect("checked above");
                b.push(d, Kind::Recv { src: s, tag, blocking: self.blocking }, 0, "");
                if !self.blocking {
                    b.push(d, Kind::WaitAll, 0, "");
                }
            }
        }
        Ok(b.finish(format!("spread on {} ranks ({s} to {lo}..={hi})", self.ranks)))
    }
}
