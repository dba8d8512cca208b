//! The time series of `--sample-every T` ([`Network::sample_every`]): per
//! router and per interval `[kT, (k+1)T)` of virtual time, what its events
//! did in it ([`Row`]), held in the router's state so that rollback undoes
//! it like any other write and every mode commits the same rows; and the
//! series the results gather from them ([`Sample`]).
//!
//! A row is opened by the first event of its interval at the router (the
//! intervals between get empty rows). The buffers' occupancy at the end of
//! an interval is the state before the first event at or after its end, or
//! the final state for the intervals the run ends in: so it is read only
//! when an interval closes, not at every event.
//!
//! [`Network::sample_every`]: super::Network::sample_every

use serde::{Deserialize, Serialize};

use super::histogram::Histogram;

/// Most intervals a run may sample: a router holds a row per interval.
pub const MAX_SAMPLES: usize = 100_000;

/// Busiest links listed per interval ([`Sample::links`]).
pub const BUSIEST: usize = 3;

/// One router's time series: a row per interval from 0 to its latest
/// event's (none without `--sample-every`); with several jobs, each job's
/// deliveries here over the whole run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Samples {
    pub(crate) rows: Vec<Row>,
    pub(crate) jobs: Vec<JobCell>,
}

/// What one router did in one interval.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Row {
    /// Packets created at its NICs.
    pub(crate) injected: u32,
    /// Packets delivered to its NICs, their bytes and latencies (creation
    /// to last byte): sum, extremes, distribution.
    pub(crate) delivered: u32,
    pub(crate) bytes: u64,
    pub(crate) lat_sum: f64,
    pub(crate) lat_min: f64,
    pub(crate) lat_max: f64,
    pub(crate) hist: Histogram,
    /// Per network port: time (ns) the link was busy within the interval
    /// (a packet's time past the interval's end is moved on to the next
    /// rows when they open), cut at the run's end.
    pub(crate) busy: Vec<f64>,
    /// Per network port: [`occupancy`](super::Network::occupancy) at the
    /// interval's end (empty until the interval closes).
    pub(crate) occ: Vec<u16>,
    /// Per job (several jobs only): bytes, packets and latency sum of the
    /// packets of the job delivered here.
    pub(crate) jobs: Vec<JobCell>,
}

/// A job's deliveries at one router in one interval.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct JobCell {
    pub(crate) bytes: u64,
    pub(crate) packets: u32,
    pub(crate) lat_sum: f64,
}

impl Row {
    pub(crate) fn new(ports: usize, jobs: usize) -> Row {
        Row { busy: vec![0.0; ports], jobs: vec![JobCell::default(); jobs], ..Row::default() }
    }
}

/// One interval of the run's time series (`model_results.samples`).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
#[allow(missing_docs)]
pub struct Sample {
    /// The interval `[start_ns, end_ns)` (the last one ends at the run's end).
    pub start_ns: f64,
    pub end_ns: f64,
    /// Packets created, and packets and bytes delivered, in the interval.
    pub injected_packets: u64,
    pub delivered_packets: u64,
    pub delivered_bytes: u64,
    /// Delivered bytes per node per ns over the injection bandwidth.
    pub accepted_throughput: f64,
    /// Latency of the packets delivered in the interval (ns); `None`
    /// (`null`) when none was.
    pub latency_mean: Option<f64>,
    pub latency_p99: Option<f64>,
    /// Packets created and not yet delivered at the interval's end.
    pub in_flight_packets: u64,
    /// Most packets queued for one network link at the interval's end.
    pub max_link_occupancy: u32,
    /// The busiest network links of the interval, busiest first.
    pub links: Vec<SampleLink>,
    /// Per job (several jobs only), by job number.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<JobSample>,
}

/// A busy link of a [`Sample`].
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
#[allow(missing_docs)]
pub struct SampleLink {
    /// Sending router, its output port, receiving router.
    pub node: u32,
    pub port: u32,
    pub neighbour: u32,
    /// Time it was busy within the interval, over the interval's length.
    pub utilisation: f64,
    /// Packets queued for it at the interval's end (waiting heads,
    /// downstream slots without a credit, output-buffer packets).
    pub occupancy: u32,
}

/// One job's figures in a [`Sample`].
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
#[allow(missing_docs)]
pub struct JobSample {
    pub delivered_packets: u64,
    pub delivered_bytes: u64,
    /// Delivered bytes per node of the job per ns over the injection bandwidth.
    pub accepted_throughput: f64,
    pub latency_mean: Option<f64>,
}

/// Sums over routers of one interval, as `finalize` gathers them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Gathered {
    pub(crate) injected: u64,
    pub(crate) delivered: u64,
    pub(crate) bytes: u64,
    pub(crate) lat_sum: f64,
    pub(crate) lat_min: f64,
    pub(crate) lat_max: f64,
    pub(crate) hist: Histogram,
    pub(crate) max_occ: u32,
    /// The busiest links so far: (busy ns, link), busiest first; a tie goes
    /// to the link gathered first (lower router, then port).
    pub(crate) links: Vec<(f64, SampleLink)>,
    pub(crate) jobs: Vec<JobCell>,
}

impl Gathered {
    /// Adds a router's row.
    pub(crate) fn add(&mut self, row: &Row) {
        self.injected += row.injected as u64;
        if row.delivered > 0 {
            let first = self.delivered == 0;
            self.lat_min = if first { row.lat_min } else { self.lat_min.min(row.lat_min) };
            self.lat_max = self.lat_max.max(row.lat_max);
        }
        self.delivered += row.delivered as u64;
        self.bytes += row.bytes;
        self.lat_sum += row.lat_sum;
        self.hist.merge(&row.hist);
        if self.jobs.len() < row.jobs.len() {
            self.jobs.resize(row.jobs.len(), JobCell::default());
        }
        for (a, b) in self.jobs.iter_mut().zip(&row.jobs) {
            a.bytes += b.bytes;
            a.packets += b.packets;
            a.lat_sum += b.lat_sum;
        }
    }

    /// Offers a link for the busiest list.
    pub(crate) fn link(&mut self, busy: f64, l: SampleLink) {
        self.max_occ = self.max_occ.max(l.occupancy);
        if busy <= 0.0 || self.links.len() == BUSIEST && self.links[BUSIEST - 1].0 >= busy {
            return;
        }
        let at = self.links.iter().position(|(b, _)| *b < busy).unwrap_or(self.links.len());
        self.links.insert(at, (busy, l));
        self.links.truncate(BUSIEST);
    }
}
