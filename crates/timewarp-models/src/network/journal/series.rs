//! The time series' writes (`--sample-every` runs only), each saving what
//! it overwrites.

use super::super::node::{Node, Saved};
use super::super::samples::{Row, Samples};

impl Node {
    /// The time series (`--sample-every` runs only).
    #[inline]
    pub(super) fn series(&mut self) -> &mut Samples {
        self.samples.as_deref_mut().expect("a time series")
    }

    /// The time series' open row: the current event's interval.
    #[inline]
    pub(super) fn open_row(&mut self) -> &mut Row {
        self.series().rows.last_mut().expect("an open row")
    }

    /// Opens the rows up to interval `k` (beyond the open one, of
    /// intervals `t` ns long), closing the open one and any between with
    /// the buffers' occupancy `occ` (the state before this event,
    /// unchanged since the last one). `free[o]`: when network port `o`'s
    /// last packet ends (cut at the run's end): the part of it past an
    /// interval's end moves to the next one, so a busy fraction is the
    /// link's time busy within the interval.
    pub(crate) fn sample_grow(&mut self, k: usize, t: f64, occ: Vec<u16>, free: &[f64]) {
        let from = self.series().rows.len();
        let mut carry = vec![0.0; free.len()];
        for (o, &f) in free.iter().enumerate() {
            let over = f - from as f64 * t;
            if over > 0.0 {
                let b = &mut self.open_row().busy[o];
                let old = *b;
                *b -= over;
                self.log.save(|| Saved::SampleBusy { o: o as u16, old });
                carry[o] = over;
            }
        }
        let rows = &mut self.samples.as_deref_mut().expect("a time series").rows;
        let (ports, jobs) = (rows[0].busy.len(), rows[0].jobs.len());
        rows[from - 1].occ.clone_from(&occ);
        while rows.len() <= k {
            let j = rows.len();
            let mut row = Row::new(ports, jobs);
            for (o, &f) in free.iter().enumerate() {
                let next = if j < k { (f - (j + 1) as f64 * t).max(0.0) } else { 0.0 };
                row.busy[o] = carry[o] - next;
                carry[o] = next;
            }
            if j < k {
                row.occ.clone_from(&occ);
            }
            rows.push(row);
        }
        self.log.save(|| Saved::SampleGrow { from: from as u32 });
    }

    /// Counts a packet created in the open row.
    #[inline]
    pub(crate) fn sample_injected(&mut self) {
        self.log.save(|| Saved::SampleInjected);
        self.open_row().injected += 1;
    }

    /// Counts a delivered packet of `bytes` and latency `lat` of job `job`
    /// (when there are several) in its job's totals and, `sampling`, in the
    /// open row.
    #[inline(never)]
    pub(crate) fn sample_delivered(&mut self, lat: f64, bytes: u16, job: Option<usize>, sampling: bool) {
        if let Some(j) = job {
            let c = &mut self.series().jobs[j];
            let sum = c.lat_sum;
            c.bytes += bytes as u64;
            c.packets += 1;
            c.lat_sum += lat;
            self.log.save(|| Saved::JobTotal { job: j as u16, bytes, sum });
        }
        if !sampling {
            return;
        }
        let r = self.open_row();
        let (sum, min, max) = (r.lat_sum, r.lat_min, r.lat_max);
        let (first, len) = r.hist.span();
        r.delivered += 1;
        r.bytes += bytes as u64;
        r.lat_sum += lat;
        r.lat_min = if r.delivered == 1 { lat } else { min.min(lat) };
        r.lat_max = max.max(lat);
        r.hist.add(lat);
        let old = job.map(|j| {
            let c = &mut r.jobs[j];
            let sum = c.lat_sum;
            c.bytes += bytes as u64;
            c.packets += 1;
            c.lat_sum += lat;
            sum
        });
        self.log.save(|| Saved::SampleDelivered { lat, bytes, sum, first, len });
        self.log.save(|| Saved::SampleExtremes { min, max });
        if let (Some(j), Some(sum)) = (job, old) {
            self.log.save(|| Saved::SampleJob { job: j as u16, bytes, sum });
        }
    }

    /// Adds `ns` to network port `o`'s busy time in the open row.
    #[inline]
    pub(crate) fn sample_busy(&mut self, o: usize, ns: f64) {
        let b = &mut self.open_row().busy[o];
        let old = *b;
        *b += ns;
        self.log.save(|| Saved::SampleBusy { o: o as u16, old });
    }
}
