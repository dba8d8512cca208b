//! What a run reports: [`Results`], gathered node by node at the end
//! (`finalize`, in LP-id order).

use serde::Serialize;
use timewarp::{LpId, Model};

use super::histogram::Split;
use super::jobs::JobResult;
use super::node::BATCHES;
use super::samples::{Gathered, JobCell, Sample};
use super::{Histogram, Network, Node, Topology};

/// What a run reports (`model_results`; the names say what each is, the
/// module docs how it is measured).
#[derive(Clone, Debug, Default, Serialize)]
#[allow(missing_docs)]
pub struct Results {
    pub topology: String,
    pub nodes: u32,
    pub injected_packets: u64,
    pub delivered_packets: u64,
    /// Packets in buffers or on links at the end (`injected = delivered + in flight`).
    pub in_flight_packets: u64,
    pub delivered_messages: u64,
    /// Packet latency (ns) over packets created in the window and delivered.
    pub latency_mean: f64,
    pub latency_p50: f64,
    pub latency_p99: f64,
    pub latency_max: f64,
    pub message_latency_mean: f64,
    /// Of `latency_mean`: the part before the packet entered the network
    /// (waiting in its source NIC's queue until it is the head, plus its
    /// injection link and first router delay), and the rest (network
    /// latency: entering to the tail's arrival at the destination).
    pub source_queueing_mean: f64,
    pub network_latency_mean: f64,
    /// Medians and 99th percentiles of the two parts (with
    /// [`Network::split_quantiles`] only; from log-linear histograms, ±2.2 %,
    /// clamped to each part's exact extremes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_queueing_p50: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_queueing_p99: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network_latency_p50: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network_latency_p99: Option<f64>,
    /// The longest network latency of a measured packet (with
    /// [`Network::split_quantiles`] only; exact): CODES's "maximum chunk
    /// latency" counts from the same point, where `latency_max` also counts
    /// source queueing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network_latency_max: Option<f64>,
    /// Router-to-router links a measured packet crossed, on average.
    pub hops_mean: f64,
    /// Routers a measured packet passed through, on average: `hops_mean + 1`
    /// (CODES's "average number of hops traversed", which counts a chunk at
    /// each router it leaves, the source and destination routers included).
    pub routers_traversed_mean: f64,
    /// Standard deviation of the hops of measured packets.
    pub hops_std: f64,
    /// Measured packets (the sample behind the latency and hop figures).
    pub measured_packets: u64,
    /// Configured offered load (NaN, JSON null, for a trace or generated
    /// workload or a probe: undefined), and what the sources actually
    /// offered in the window.
    pub offered_load: f64,
    pub measured_offered_load: f64,
    /// Delivered bytes per node per ns in the window, over the injection bandwidth.
    pub accepted_throughput: f64,
    /// Length of the measured window in ns: from `warmup` to the end time,
    /// or, for a finite workload (a trace or generated one, or
    /// `messages`), to the last delivery: a rate over a run's end time
    /// would count the idle time after the work was done.
    pub window_ns: f64,
    pub events_per_hop: f64,
    /// Most packets one input (output) buffer ever held, and the largest
    /// capacity of any buffer (the class that has it: see
    /// `class_buffer_packets`).
    pub max_input_buffer: u16,
    pub max_output_buffer: u16,
    pub buffer_packets: u32,
    /// Packets per buffer behind each class of link: terminal, then a
    /// dragonfly's local and global links (a fat-tree's levels 1 and 2);
    /// one class networks have the same three.
    pub class_buffer_packets: [u32; 3],
    /// Most credits ever held for one downstream buffer (never above its capacity).
    pub max_credits: u16,
    /// Busiest network link's busy fraction in the window.
    pub max_link_utilisation: f64,
    /// Least busy network link's, over the links that carried a packet:
    /// far below the busiest on a path every flow shares is starvation.
    pub min_link_utilisation: f64,
    /// Accepted throughput of each node that created messages (bytes of its
    /// packets that entered the network in the window, as a fraction of its
    /// injection bandwidth): the least, the most, and Jain's fairness index
    /// over them, `(Σx)² / (n Σx²)` — 1 when all are equal, `1/n` when one
    /// node gets everything.
    pub node_accepted_min: f64,
    pub node_accepted_max: f64,
    pub fairness: f64,
    /// Half-widths of 95 % confidence intervals, by batch means over 10
    /// equal batches of the window (open runs only; NaN, JSON null,
    /// otherwise, and where fewer than 2 batches had a packet): for the
    /// mean packet latency (over batches with a measured packet) and for
    /// accepted throughput. A half-width that is large against the figure
    /// says the run was too short (or the network is not in a steady state:
    /// past saturation latency grows without bound).
    pub latency_mean_ci95: f64,
    pub accepted_throughput_ci95: f64,
    /// Open runs: the same 10 batches of the window (sample periods, by
    /// delivery time) one by one, for a steady-state test: has the mean
    /// latency settled? (`timewarp curve`, BookSim's rule.)
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub batches: Vec<Batch>,
    /// Every network link, when [`Network::link_stats`] is on.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<LinkStat>,
    /// With [`Network::link_stats`]: the topology's shape, for a picture of
    /// its links: a torus's or mesh's routers per dimension; a hypercube's
    /// dimension; a dragonfly's `a, p, h, g`; a fat-tree's switches per
    /// level, leaves first (switches are numbered level by level).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shape: Vec<u32>,
    /// With [`Network::lp_io`]: CODES's LP-IO figures per terminal and per
    /// router port (lp_io.rs; the CLI writes them as CODES's files).
    #[serde(skip)]
    pub lp_io: Option<super::lp_io::LpIoTables>,
    /// Trace workloads: when the last rank finished (0 if one did not).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app_time_ns: Option<f64>,
    /// Trace workloads: every rank's figures, by rank.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ranks: Vec<RankResult>,
    /// Trace workloads: notes on how the trace was read (DUMPI: the calls
    /// not modelled), for the end of the run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Trace workloads under a rendezvous protocol: its eager limit (a
    /// message of fewer bytes went eager) and the control messages the
    /// ranks sent (request- and clear-to-send, two per rendezvous message).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eager_limit: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rendezvous_messages: Option<u64>,
    /// `--nic-buffer`: the terminal buffer at each router, in bytes and
    /// in whole packets (absent: unbounded NICs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nic_buffer_bytes: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nic_buffer_packets: Option<u32>,
    /// With jobs (`--job`): each job's figures, by job.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<JobResult>,
    /// With `--sample-every T`: the time series, one sample per interval
    /// `[kT, (k+1)T)` up to the last event's (samples.rs).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub samples: Vec<Sample>,
    #[serde(skip)]
    acc: Sums,
    /// The time series' sums by interval, and the most occupied link from
    /// each interval on of the routers whose series ends there (series.rs).
    #[serde(skip)]
    pub(crate) series: Vec<Gathered>,
    #[serde(skip)]
    pub(crate) series_tail: Vec<u32>,
    /// Several jobs: each job's deliveries summed over routers.
    #[serde(skip)]
    pub(crate) job_cells: Vec<JobCell>,
}

/// One rank's figures in [`Results::ranks`].
#[derive(Clone, Debug, Serialize, PartialEq)]
#[allow(missing_docs)]
pub struct RankResult {
    /// The rank and its node.
    pub rank: u32,
    pub node: u32,
    /// When it finished its last operation (absent: it did not).
    pub finish_ns: Option<f64>,
    /// Time blocked in recv, wait, waitall and collectives.
    pub comm_ns: f64,
    /// What an unfinished rank waits for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiting: Option<String>,
}

/// One sample period of [`Results::batches`].
#[derive(Clone, Debug, Serialize, PartialEq)]
#[allow(missing_docs)]
pub struct Batch {
    /// Measured packets delivered in the period, their mean latency (ns;
    /// None: none was delivered), and the period's accepted throughput.
    pub packets: u64,
    pub latency_mean: Option<f64>,
    pub accepted_throughput: f64,
}

/// One link's figures.
#[derive(Clone, Debug, Serialize)]
#[allow(missing_docs)]
pub struct LinkStat {
    /// Sending node, its output port, receiving node.
    pub node: u32,
    pub port: u32,
    pub neighbour: u32,
    /// Packets sent over the whole run.
    pub packets: u64,
    /// Fraction of the measured window the link was busy.
    pub busy: f64,
    /// Its class ([`Network::link_class_name`]): `local` or `global` on a
    /// dragonfly or Slim Fly, `leaf-level1` or `level1-level2` on a
    /// fat-tree, `network` on a torus, mesh or hypercube.
    pub class: &'static str,
}

/// Sums over nodes behind the derived figures of [`Results`].
#[derive(Clone, Debug, Default)]
struct Sums {
    hist: Histogram,
    split: Option<Split>,
    lat_sum: f64,
    queue_sum: f64,
    lat_min: f64,
    msg_lat_sum: f64,
    events: u64,
    hops: u64,
    hop_sum: u64,
    hop_sq: u64,
    delivered_bytes: u64,
    injected_bytes: u64,
    /// The latest delivery of all nodes, and the busiest link's busy time (ns).
    last_delivery: f64,
    max_busy: f64,
    /// The least busy time of a link that carried a packet (None: none yet).
    min_busy: Option<f64>,
    /// Over the nodes that created messages: how many, and the sum, sum of
    /// squares, least and most of their accepted bytes.
    senders: u64,
    sent: f64,
    sent_sq: f64,
    sent_min: Option<u64>,
    sent_max: u64,
    batch_bytes: [u64; BATCHES],
    batch_n: [u64; BATCHES],
    batch_lat: [f64; BATCHES],
}

impl Network {
    /// Adds node `lp`'s figures to `r` and works out the derived ones
    /// again ([`Model::finalize`], once per node in LP-id order: they are
    /// exact once the last node is in).
    pub(super) fn finalize_node(&self, lp: LpId, n: &Node, end: f64, r: &mut Results) {
        let c = &n.counts;
        let nodes = self.topology.nodes();
        r.topology = match &self.topology {
            // The `--topology` a user gave (issue 61: Dragonfly+ said "dragonfly").
            Topology::Dragonfly(d) if d.leaves().is_some() => "dragonfly-plus".into(),
            t => t.name().to_string(),
        };
        r.nodes = nodes;
        // The buffers in use: the classes' (issue 61: a CODES import with 8- and
        // 16-packet buffers listed the unused default, 4).
        r.buffer_packets = self.max_buffer();
        r.class_buffer_packets = [0, 1, 2].map(|c| self.class_buffer(c));
        r.nic_buffer_bytes = self.nic_buffer;
        r.nic_buffer_packets = self.nic_slots().map(u32::from);
        // Undefined for a trace or generated workload, or a probe: NaN,
        // which the JSON writes as null and the summary as n/a.
        r.offered_load = if self.probe.is_some() || self.workload.is_some() { f64::NAN } else { self.load };
        r.injected_packets += c.injected;
        r.delivered_packets += c.delivered;
        let queued: u64 = n.inject.iter().map(|q| q.queue.len() as u64).sum();
        r.in_flight_packets += n.input.total() + queued + n.output.total() + c.on_links;
        r.delivered_messages += c.msg_n;
        r.measured_packets += c.lat_n;
        r.latency_max = r.latency_max.max(c.lat_max);
        r.max_input_buffer = r.max_input_buffer.max(c.max_input);
        r.max_output_buffer = r.max_output_buffer.max(c.max_output);
        r.max_credits = r.max_credits.max(c.max_credits);
        if self.link_stats && r.shape.is_empty() {
            r.shape = match &self.topology {
                Topology::Torus(d) | Topology::Mesh(d) => d.clone(),
                Topology::Hypercube(n) => vec![*n],
                Topology::Dragonfly(d) => vec![d.a, d.p, d.h, d.g],
                // Routers per group (2q groups).
                Topology::SlimFly(s) => vec![s.q],
                Topology::FatTree(f) => {
                    // A tapered pod has a leaf's up links' aggregation switches.
                    let mid = if f.levels == 2 { vec![] } else { vec![f.leaves / f.k * f.leaf_up()] };
                    let top = f.switches() - f.leaves - mid.iter().sum::<u32>();
                    [vec![f.leaves], mid, vec![top]].concat()
                }
            };
        }
        // Busy times in ns until the window is known (at the last node).
        for o in 0..self.ports() {
            let busy = n.links[o].busy;
            r.acc.max_busy = r.acc.max_busy.max(busy);
            if n.links[o].packets > 0 && self.topology.neighbour(lp, o).is_some() {
                r.acc.min_busy = Some(r.acc.min_busy.map_or(busy, |m| m.min(busy)));
            }
            if let (true, Some(to)) = (self.link_stats, self.topology.neighbour(lp, o)) {
                let (port, packets, class) = (o as u32, n.links[o].packets, self.link_class_name(lp, o));
                r.links.push(LinkStat { node: lp, port, neighbour: to, packets, busy, class });
            }
        }
        if self.workload.is_some() {
            self.finalize_ranks(lp, n, r);
        }
        for (t, q) in n.inject.iter().enumerate() {
            // A node that offered traffic: created messages (synthetic), or
            // has packets in or through its NIC (a rank's sends).
            let offered = q.next_msg > 0 || q.sent_bytes_w > 0 || !q.queue.is_empty();
            if !offered || self.topology.node(lp, t as u32).is_none() {
                continue;
            }
            let (a, x) = (&mut r.acc, q.sent_bytes_w);
            a.senders += 1;
            a.sent += x as f64;
            a.sent_sq += x as f64 * x as f64;
            a.sent_min = Some(a.sent_min.map_or(x, |m| m.min(x)));
            a.sent_max = a.sent_max.max(x);
        }
        let a = &mut r.acc;
        a.hist.merge(&c.hist.all);
        if let Some(sp) = c.hist.split.as_deref() {
            a.split.get_or_insert_with(Split::default).merge(sp);
        }
        a.lat_sum += c.lat_sum;
        a.queue_sum += c.queue_sum;
        a.msg_lat_sum += c.msg_lat_sum;
        a.events += c.events;
        a.hops += c.hops;
        a.hop_sum += c.hop_sum;
        a.hop_sq += c.hop_sq;
        a.delivered_bytes += c.delivered_bytes_w;
        a.injected_bytes += c.injected_bytes_w;
        a.last_delivery = a.last_delivery.max(c.last_delivery);
        for b in 0..BATCHES {
            a.batch_bytes[b] += c.batch_bytes[b];
            a.batch_n[b] += c.batch_n[b];
            a.batch_lat[b] += c.batch_lat[b];
        }
        if c.lat_n > 0 {
            a.lat_min = if a.lat_min > 0.0 { a.lat_min.min(c.lat_min) } else { c.lat_min };
        }
        // The derived figures, exact once the last node is in.
        let m = r.measured_packets as f64;
        let ratio = |x: f64, y: f64| if y > 0.0 { x / y } else { 0.0 };
        r.latency_mean = ratio(a.lat_sum, m);
        r.source_queueing_mean = ratio(a.queue_sum, m);
        r.network_latency_mean = r.latency_mean - r.source_queueing_mean;
        r.latency_p50 = a.hist.quantile(0.5, a.lat_min, r.latency_max);
        r.latency_p99 = a.hist.quantile(0.99, a.lat_min, r.latency_max);
        if let Some(sp) = &a.split {
            r.source_queueing_p50 = Some(sp.quantile(0, 0.5));
            r.source_queueing_p99 = Some(sp.quantile(0, 0.99));
            r.network_latency_p50 = Some(sp.quantile(1, 0.5));
            r.network_latency_p99 = Some(sp.quantile(1, 0.99));
            r.network_latency_max = (sp.parts[1].total() > 0).then_some(sp.max[1]);
        }
        r.message_latency_mean = ratio(a.msg_lat_sum, r.delivered_messages as f64);
        r.hops_mean = ratio(a.hop_sum as f64, m);
        r.routers_traversed_mean = if m > 0.0 { r.hops_mean + 1.0 } else { 0.0 };
        r.hops_std =
            if m > 1.0 { ((a.hop_sq as f64 - m * r.hops_mean * r.hops_mean) / (m - 1.0)).max(0.0).sqrt() } else { 0.0 };
        let finite = self.workload.is_some() || self.messages.is_some();
        let until = if finite { a.last_delivery.min(end) } else { end };
        let window = (until - self.warmup).max(0.0);
        r.window_ns = window;
        r.max_link_utilisation = ratio(a.max_busy, window);
        r.min_link_utilisation = ratio(a.min_busy.unwrap_or(0.0), window);
        let per_node = window * self.class_bandwidth(0);
        r.node_accepted_min = ratio(a.sent_min.unwrap_or(0) as f64, per_node);
        r.node_accepted_max = ratio(a.sent_max as f64, per_node);
        r.fairness = ratio(a.sent * a.sent, a.senders as f64 * a.sent_sq);
        // The batch means need every node's batches: once, at the last node.
        if !self.open() {
            (r.accepted_throughput_ci95, r.latency_mean_ci95) = (f64::NAN, f64::NAN);
        }
        if self.open() && lp as u64 + 1 == self.num_lps() as u64 {
            let per_batch = nodes as f64 * window / BATCHES as f64 * self.class_bandwidth(0);
            let thr: Vec<f64> = a.batch_bytes.iter().map(|&x| ratio(x as f64, per_batch)).collect();
            let lat: Vec<f64> =
                (0..BATCHES).filter(|&b| a.batch_n[b] > 0).map(|b| a.batch_lat[b] / a.batch_n[b] as f64).collect();
            r.accepted_throughput_ci95 = ci95(&thr);
            r.latency_mean_ci95 = ci95(&lat);
            r.batches = (0..BATCHES)
                .map(|b| Batch {
                    packets: a.batch_n[b],
                    latency_mean: (a.batch_n[b] > 0).then(|| a.batch_lat[b] / a.batch_n[b] as f64),
                    accepted_throughput: thr[b],
                })
                .collect();
        }
        // finalize runs in LP-id order: the last node fixes the window.
        if lp as u64 + 1 == self.num_lps() as u64 {
            for l in &mut r.links {
                l.busy = ratio(l.busy, window);
            }
        }
        let capacity = nodes as f64 * window * self.class_bandwidth(0);
        r.accepted_throughput = ratio(a.delivered_bytes as f64, capacity);
        r.measured_offered_load = ratio(a.injected_bytes as f64, capacity);
        r.events_per_hop = ratio(a.events as f64, a.hops as f64);
    }
}

/// Half-width of the 95 % confidence interval of the mean of `xs`, taken
/// as independent batch means (Student's t with `len - 1` degrees of
/// freedom); NaN (undefined) with fewer than 2.
fn ci95(xs: &[f64]) -> f64 {
    // t quantiles 0.975 for 1..=9 degrees of freedom.
    const T: [f64; 9] = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262];
    let n = xs.len();
    if n < 2 {
        return f64::NAN;
    }
    let mean = xs.iter().sum::<f64>() / n as f64;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
    T[(n - 2).min(T.len() - 1)] * (var / n as f64).sqrt()
}

#[cfg(test)]
mod tests {
    #[test]
    fn confidence_half_widths_follow_student() {
        // Two batches 1 and 3: mean 2, s = sqrt(2), half-width t(1) * s / sqrt(2) = 12.706.
        assert!((super::ci95(&[1.0, 3.0]) - 12.706).abs() < 1e-12);
        assert_eq!(super::ci95(&[5.0; 10]), 0.0);
        assert!(super::ci95(&[5.0]).is_nan(), "one sample: undefined");
    }

    #[test]
    fn the_sample_periods_add_up_to_the_window_and_only_open_runs_have_them() {
        use super::super::{tests::go, Network, Topology};
        let m = Network { topology: Topology::Torus(vec![4, 4]), load: 0.3, warmup: 1_000.0, ..Network::default() };
        let r = go(&m, 11_000.0).results;
        assert_eq!(r.batches.len(), 10);
        // Packets delivered before the end, and bytes: the periods are the window cut in ten.
        let packets: u64 = r.batches.iter().map(|b| b.packets).sum();
        assert!(packets <= r.measured_packets && packets > 0);
        let acc: f64 = r.batches.iter().map(|b| b.accepted_throughput).sum::<f64>() / 10.0;
        assert!((acc - r.accepted_throughput).abs() < 1e-9, "{acc} {}", r.accepted_throughput);
        let lat: f64 = r.batches.iter().map(|b| b.latency_mean.unwrap() * b.packets as f64).sum::<f64>();
        assert!((lat / packets as f64 - r.latency_mean).abs() < 0.05 * r.latency_mean);
        let finite = Network { topology: Topology::Torus(vec![4, 4]), messages: Some(5), ..Network::default() };
        assert!(go(&finite, 1e9).results.batches.is_empty());
    }
}
