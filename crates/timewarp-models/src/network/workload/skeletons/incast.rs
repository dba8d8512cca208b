//! SWM's incast skeleton (`all_to_one_swm_user_code.cpp`, CODES's
//! `incast`, `incast1`, `incast2`): every rank of `src_rank_id_interval`
//! but the destination sends `msg_req_bytes` to `dst_rank_id` each
//! iteration (after the compute delay), and waits for its send; the
//! destination posts a receive from each source per iteration, then
//! waits for them all. Other ranks do nothing.

use super::super::{Builder, Kind, Workload, ANY_SOURCE, COLLECTIVE_TAG};

/// Incast's parameters (the skeleton JSON's `jobs.size` and `jobs.cfg`).
#[derive(Clone, Debug, PartialEq)]
pub struct Incast {
    /// Ranks (`jobs.size`).
    pub ranks: u32,
    /// `iteration_cnt`.
    pub iterations: u32,
    /// `dst_rank_id`.
    pub dst: u32,
    /// `src_rank_id_interval`: the first and last source (inclusive).
    pub sources: (u32, u32),
    /// `msg_req_bytes`.
    pub bytes: u32,
    /// `compute_delay`, cycles before each send.
    pub compute_cycles: f64,
    /// `cpu_freq` in Hz (0: CODES's 2 GHz).
    pub cpu_hz: f64,
    /// `use_any_src`: the destination receives from any source.
    pub any_source: bool,
    /// `blocking_comm`: blocking sends and receives.
    pub blocking: bool,
    /// `start_delay_max` with `scattered_start`: each source first computes
    /// a delay drawn below it (cycles; 0: none).
    pub start_delay_max: u32,
    /// The start delays' seed.
    pub seed: u64,
}

impl Incast {
    fn ns(&self, cycles: f64) -> f64 {
        let hz = if self.cpu_hz > 0.0 { self.cpu_hz } else { 2e9 };
        cycles / hz * 1e9
    }

    /// The tag of source `src`'s message of iteration `iter`, as the
    /// skeleton computes it: `sizeof(int) · ((src + 1) + size · iter)`.
    pub fn tag(&self, src: u32, iter: u32) -> Option<u32> {
        tag(self.ranks, src, iter)
    }

    /// The sources: the interval's ranks but the destination.
    pub fn senders(&self) -> impl Iterator<Item = u32> + '_ {
        (self.sources.0..=self.sources.1).filter(move |&s| s != self.dst)
    }

    /// The rank programs; refuses what the skeleton asserts against, a
    /// destination inside the interval (it would wait for itself) and tags
    /// past an `int`'s range.
    pub fn workload(&self) -> Result<Workload, String> {
        let (lo, hi) = self.sources;
        if self.dst >= self.ranks || lo > hi || hi >= self.ranks {
            return Err(format!(
                "incast: dst_rank_id {} and src_rank_id_interval [{lo}, {hi}] must be ranks of the job's 0..{}",
                self.dst, self.ranks
            ));
        }
        if (lo..=hi).contains(&self.dst) {
            return Err(format!(
                "incast: dst_rank_id {} is inside src_rank_id_interval [{lo}, {hi}]: it would wait for a message \
                 from itself (as in SWM); move it out",
                self.dst
            ));
        }
        if self.iterations > 0 && self.tag(hi, self.iterations - 1).is_none() {
            return Err("incast: the tags (4 x (source + 1 + size x iteration)) pass 2^31; lower iteration_cnt".into());
        }
        let mut b = Builder::new(self.ranks);
        self.push(&mut b, self.ranks);
        Ok(b.finish(format!("incast on {} ranks ({lo}..={hi} to {})", self.ranks, self.dst)))
    }

    /// The ranks' messages into `b` (its ranks the job's), the tags over
    /// `size` ranks (the periodic aggressor's `incast_size`); the tags and
    /// ranks checked by the caller.
    pub(super) fn push(&self, b: &mut Builder, size: u32) {
        let (lo, hi) = self.sources;
        let mut state = self.seed;
        for s in self.senders() {
            if self.start_delay_max > 0 {
                let z = super::next(&mut state);
                b.compute(s, self.ns((z % self.start_delay_max as u64) as f64));
            }
            for iter in 0..self.iterations {
                b.compute(s, self.ns(self.compute_cycles));
                let tag = tag(size, s, iter).expect("tags checked by the caller");
                b.send(s, self.dst, self.bytes, tag, self.blocking, (0, ""));
                if !self.blocking {
                    b.push(s, Kind::WaitAll, 0, "");
                }
            }
        }
        for iter in 0..self.iterations {
            for s in lo..=hi {
                let src = if self.any_source { ANY_SOURCE } else { s };
                let tag = tag(size, s, iter).expect("tags checked by the caller");
                b.push(self.dst, Kind::Recv { src, tag, blocking: self.blocking }, 0, "");
            }
            if !self.blocking {
                b.push(self.dst, Kind::WaitAll, 0, "");
            }
        }
    }
}

/// The tag of source `src`'s message of iteration `iter` among `size`
/// ranks: `sizeof(int) · ((src + 1) + size · iter)`, if below the
/// collectives' tags.
pub(super) fn tag(size: u32, src: u32, iter: u32) -> Option<u32> {
    let t = 4 * ((src as u64 + 1) + size as u64 * iter as u64);
    u32::try_from(t).ok().filter(|&t| t < COLLECTIVE_TAG)
}
