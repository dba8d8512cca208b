//! `--sample-every`: the routers' time series (samples.rs) opened at run
//! time, and gathered into [`Results::samples`] at the end.

use timewarp::{Ctx, LpId, Model};

use super::samples::{Gathered, JobCell, JobSample, Row, Sample, SampleLink, Samples, MAX_SAMPLES};
use super::{JobResult, Network, Node, Results};

impl Network {
    /// A router's series at the start: interval 0 open.
    pub(crate) fn new_series(&self) -> Samples {
        let (ports, jobs) = (self.ports(), self.job_count());
        let rows = if self.sample_every.is_some() { vec![Row::new(ports, jobs)] } else { Vec::new() };
        Samples { rows, jobs: vec![JobCell::default(); jobs] }
    }

    /// Jobs whose figures the routers keep apart (0: one workload, or one job).
    pub(crate) fn job_count(&self) -> usize {
        self.jobs.as_ref().map_or(0, |j| if j.list.len() > 1 { j.list.len() } else { 0 })
    }

    /// The first event of a later interval at this router: closes the
    /// open row (and opens the ones up to the event's). Out of line: it
    /// runs once per interval, not per event.
    #[inline(never)]
    pub(crate) fn sample_tick(&self, n: &mut Node, ctx: &mut Ctx<'_, Self>) {
        let t = self.sample_every.expect("a sampling run");
        // At least the next row: the caller saw `now` at or past the open row's end.
        let open = n.samples.as_deref().map_or(0, |s| s.rows.len());
        let k = ((ctx.now() / t) as usize).max(open);
        if k >= MAX_SAMPLES {
            return ctx.fail(format!(
                "--sample-every {t} gives more than {MAX_SAMPLES} intervals by {} ns: give a larger --sample-every",
                ctx.now()
            ));
        }
        let occ = self.occupancies(n, ctx.lp()).into_iter().map(|q| q.min(u16::MAX as u32) as u16).collect();
        let end = ctx.end_time();
        let free: Vec<f64> = n.links[..self.ports()].iter().map(|l| l.free.min(end)).collect();
        n.sample_grow(k, t, occ, &free);
    }

    /// Each network port's occupancy now (0 for a port without a link).
    fn occupancies(&self, n: &Node, lp: LpId) -> Vec<u32> {
        (0..self.ports())
            .map(|o| if self.topology.neighbour(lp, o).is_some() { self.occupancy(n, lp, o) } else { 0 })
            .collect()
    }

    /// Adds router `lp`'s rows to the series (`finalize`, in LP-id order);
    /// at the last router, works the samples out.
    pub(crate) fn finalize_series(&self, lp: LpId, n: &Node, end: f64, r: &mut Results) {
        let s = n.samples.as_deref().expect("a time series");
        if r.job_cells.len() < s.jobs.len() {
            r.job_cells.resize(s.jobs.len(), JobCell::default());
        }
        for (a, b) in r.job_cells.iter_mut().zip(&s.jobs) {
            a.bytes += b.bytes;
            a.packets += b.packets;
            a.lat_sum += b.lat_sum;
        }
        let rows = &s.rows;
        if rows.is_empty() {
            return;
        }
        if r.series.len() < rows.len() {
            r.series.resize(rows.len(), Gathered::default());
            r.series_tail.resize(rows.len(), 0);
        }
        // The open row, and every interval after it, ends in the final state.
        let last = self.occupancies(n, lp);
        // The open row holds the whole of a packet still on its link at the
        // end (rows move the part past their end on only when the next row
        // opens): that part goes to the intervals it falls in, so no
        // interval counts more busy time than its length.
        let t = self.sample_every.expect("a sampling run");
        let open_end = rows.len() as f64 * t;
        let spill: Vec<f64> = n.links[..self.ports()].iter().map(|l| (l.free.min(end) - open_end).max(0.0)).collect();
        for (k, row) in rows.iter().enumerate() {
            let g = &mut r.series[k];
            g.add(row);
            for (o, &fin) in last.iter().enumerate() {
                let Some(to) = self.topology.neighbour(lp, o) else { continue };
                let occupancy = row.occ.get(o).map_or(fin, |&q| q as u32);
                let link = SampleLink { node: lp, port: o as u32, neighbour: to, utilisation: 0.0, occupancy };
                let busy = if k + 1 == rows.len() { row.busy[o] - spill[o] } else { row.busy[o] };
                g.link(busy, link);
            }
        }
        for (o, &fin) in last.iter().enumerate() {
            let Some(to) = self.topology.neighbour(lp, o) else { continue };
            let until = open_end + spill[o];
            let mut k = rows.len();
            while (k as f64) * t < until {
                let busy = ((k + 1) as f64 * t).min(until) - k as f64 * t;
                if r.series.len() <= k {
                    r.series.resize(k + 1, Gathered::default());
                    r.series_tail.resize(k + 1, 0);
                }
                let link = SampleLink { node: lp, port: o as u32, neighbour: to, utilisation: 0.0, occupancy: fin };
                r.series[k].link(busy, link);
                k += 1;
            }
        }
        let tail = &mut r.series_tail[rows.len() - 1];
        *tail = (*tail).max(last.iter().copied().max().unwrap_or(0));
        if lp as u64 + 1 == self.num_lps() as u64 {
            r.samples = self.samples_of(&r.series, &r.series_tail, end);
        }
    }

    /// The samples of the gathered intervals.
    fn samples_of(&self, series: &[Gathered], tail: &[u32], end: f64) -> Vec<Sample> {
        let t = self.sample_every.expect("a sampling run");
        let bw = self.class_bandwidth(0);
        let nodes = self.topology.nodes() as f64;
        let ratio = |x: f64, y: f64| if y > 0.0 { x / y } else { 0.0 };
        let (mut in_flight, mut occ_after) = (0i64, 0u32);
        let mut out = Vec::with_capacity(series.len());
        for (k, g) in series.iter().enumerate() {
            let (start, stop) = (k as f64 * t, ((k + 1) as f64 * t).min(end));
            let len = stop - start;
            in_flight += g.injected as i64 - g.delivered as i64;
            occ_after = occ_after.max(tail[k]);
            let some = g.delivered > 0;
            out.push(Sample {
                start_ns: start,
                end_ns: stop,
                injected_packets: g.injected,
                delivered_packets: g.delivered,
                delivered_bytes: g.bytes,
                accepted_throughput: ratio(g.bytes as f64, nodes * len * bw),
                latency_mean: some.then(|| g.lat_sum / g.delivered as f64),
                latency_p99: some.then(|| g.hist.quantile(0.99, g.lat_min, g.lat_max)),
                in_flight_packets: in_flight.max(0) as u64,
                max_link_occupancy: g.max_occ.max(occ_after),
                links: g
                    .links
                    .iter()
                    .map(|(busy, l)| SampleLink { utilisation: ratio(*busy, len), ..l.clone() })
                    .collect(),
                jobs: g
                    .jobs
                    .iter()
                    .enumerate()
                    .map(|(j, c)| JobSample {
                        delivered_packets: c.packets as u64,
                        delivered_bytes: c.bytes,
                        accepted_throughput: ratio(c.bytes as f64, self.job_nodes(j) as f64 * len * bw),
                        latency_mean: (c.packets > 0).then(|| c.lat_sum / c.packets as f64),
                    })
                    .collect(),
            });
        }
        out
    }

    /// The job of the packets node `src` sends (several jobs only).
    #[inline]
    pub(crate) fn job_of(&self, src: u32) -> Option<usize> {
        self.jobs.as_ref().and_then(|j| j.job_of(src))
    }

    /// Nodes of job `j`.
    fn job_nodes(&self, j: usize) -> u32 {
        self.jobs.as_ref().map_or(0, |x| x.list[j].nodes.len() as u32)
    }
}

impl Network {
    /// Each job's results, once every router is in (the last one's `finalize`).
    pub(crate) fn finalize_jobs(&self, r: &mut Results) {
        let Some(jobs) = self.jobs.as_deref() else { return };
        let one = jobs.list.len() == 1;
        let mean = |xs: &[f64]| (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64);
        let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) if b > 0.0 => Some(a / b),
            _ => None,
        };
        r.jobs = jobs
            .list
            .iter()
            .enumerate()
            .map(|(j, job)| {
                let mut x = JobResult {
                    job: j as u32,
                    name: job.name.clone(),
                    kind: if job.ranks.is_some() { "ranks" } else { "synthetic" },
                    nodes: job.nodes.len() as u32,
                    ..JobResult::default()
                };
                if let Some((first, count)) = job.ranks {
                    let mine: Vec<_> = r.ranks.iter().filter(|k| (first..first + count).contains(&k.rank)).collect();
                    let done: Vec<f64> = mine.iter().filter_map(|k| k.finish_ns).collect();
                    x.finish_ns = (done.len() == count as usize).then(|| done.iter().copied().fold(0.0, f64::max));
                    let comm: Vec<f64> = mine.iter().map(|k| k.comm_ns).collect();
                    x.comm_ns_mean = mean(&comm);
                    x.comm_ns_max = comm.iter().copied().reduce(f64::max);
                }
                if one {
                    // One job's packets are the run's.
                    x.delivered_packets = r.delivered_packets;
                    let capacity = r.nodes as f64 * r.window_ns * self.class_bandwidth(0);
                    x.delivered_bytes = (r.accepted_throughput * capacity).round() as u64;
                    x.latency_mean = (r.measured_packets > 0).then_some(r.latency_mean);
                } else if let Some(c) = r.job_cells.get(j) {
                    x.delivered_packets = c.packets as u64;
                    x.delivered_bytes = c.bytes;
                    x.latency_mean = (c.packets > 0).then(|| c.lat_sum / c.packets as f64);
                }
                if let Some(a) = job.alone {
                    x.alone = Some(a);
                    x.slowdown = ratio(x.finish_ns, a.finish_ns);
                    x.comm_slowdown = ratio(x.comm_ns_mean, a.comm_ns_mean);
                    x.latency_slowdown = ratio(x.latency_mean, a.latency_mean);
                }
                x
            })
            .collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::node::{Nic, Queues};
    use timewarp::digest::hash_value;

    fn node(samples: Option<Box<Samples>>) -> Node {
        let mut n = Node::bare(Queues::new(6, 2), 3);
        (n.counts.events, n.inject, n.samples) = (7, vec![Nic::default(); 2], samples);
        n
    }

    #[test]
    fn a_series_is_journalled_undone_and_encoded_only_when_there_is_one() {
        let start = Samples { rows: vec![Row::new(2, 1)], jobs: vec![JobCell::default()] };
        let mut n = node(Some(Box::new(start.clone())));
        n.log.on = true;
        n.sample_injected();
        n.sample_grow(3, 100.0, vec![4, 1], &[0.0, 0.0]);
        n.sample_delivered(120.0, 64, Some(0), true);
        n.sample_busy(1, 16.0);
        let rows = &n.samples.as_deref().unwrap().rows;
        assert_eq!(rows.len(), 4);
        assert_eq!(
            (rows[0].injected, &rows[0].occ, &rows[2].occ, rows[3].occ.is_empty()),
            (1, &vec![4, 1], &vec![4, 1], true)
        );
        assert_eq!((rows[3].delivered, rows[3].bytes, rows[3].busy[1], rows[3].jobs[0].packets), (1, 64, 16.0, 1));
        assert_eq!(n.samples.as_deref().unwrap().jobs[0].bytes, 64, "the job's run totals");
        // Encoded whole, and decoded to the same node.
        let bytes = postcard::to_allocvec(&n).unwrap();
        assert_eq!(postcard::from_bytes::<Node>(&bytes).unwrap(), n);
        let undo = n.log.entries.as_slice().to_vec();
        for u in undo.iter().rev() {
            n.restore(&u.0);
        }
        assert_eq!(n, node(Some(Box::new(start))));
        // Without a series the node encodes as it always did.
        let plain = node(None);
        let fields =
            (&plain.input, &plain.links, &plain.counts, &plain.inject, &plain.output, &plain.partial, &plain.ranks);
        assert_eq!(hash_value(&plain), hash_value(&fields));
        assert_ne!(hash_value(&n), hash_value(&plain));
    }
}
