//! The network's time series (`--sample-every`, `--samples-csv`): the CSV
//! file, its columns, and the line in the run's summary.

use std::io::Write;
use std::path::Path;
use timewarp_models::network::{Results, Sample, BUSIEST, MAX_SAMPLES};

/// The columns before the busiest links' and the jobs' (documented in
/// docs/network-workloads.md, "Time series"; the order is stable).
pub(crate) const COLUMNS: [&str; 11] = [
    "interval",
    "start_ns",
    "end_ns",
    "injected_packets",
    "delivered_packets",
    "delivered_bytes",
    "accepted_throughput",
    "latency_mean_ns",
    "latency_p99_ns",
    "in_flight_packets",
    "max_link_occupancy",
];

/// Refuses an open run (synthetic traffic to --end) that would sample
/// more than [`MAX_SAMPLES`] intervals (a finite workload is stopped by the
/// model when it gets there).
pub(crate) fn bounded(every: Option<f64>, end: f64) -> Result<(), String> {
    match every {
        Some(t) if end / t > MAX_SAMPLES as f64 => Err(format!(
            "--sample-every {t} cuts --end {end} into {:.0} intervals, more than the {MAX_SAMPLES} a run keeps; \
             give --sample-every {} or more",
            (end / t).ceil(),
            (end / MAX_SAMPLES as f64).ceil()
        )),
        _ => Ok(()),
    }
}

/// The header: [`COLUMNS`], then per busiest link `link{i}_node`, `_port`,
/// `_neighbour`, `_utilisation`, `_occupancy`, then per job `job{j}_...`.
pub(crate) fn header(jobs: usize) -> Vec<String> {
    let mut h: Vec<String> = COLUMNS.iter().map(|c| c.to_string()).collect();
    for i in 1..=BUSIEST {
        for f in ["node", "port", "neighbour", "utilisation", "occupancy"] {
            h.push(format!("link{i}_{f}"));
        }
    }
    for j in 0..jobs {
        for f in ["delivered_packets", "delivered_bytes", "accepted_throughput", "latency_mean_ns"] {
            h.push(format!("job{j}_{f}"));
        }
    }
    h
}

/// A row of the CSV (an undefined figure is an empty cell).
fn row(k: usize, s: &Sample, jobs: usize) -> Vec<String> {
    let opt = |v: Option<f64>| v.map_or(String::new(), |x| x.to_string());
    let mut r = vec![
        k.to_string(),
        s.start_ns.to_string(),
        s.end_ns.to_string(),
        s.injected_packets.to_string(),
        s.delivered_packets.to_string(),
        s.delivered_bytes.to_string(),
        s.accepted_throughput.to_string(),
        opt(s.latency_mean),
        opt(s.latency_p99),
        s.in_flight_packets.to_string(),
        s.max_link_occupancy.to_string(),
    ];
    for i in 0..BUSIEST {
        match s.links.get(i) {
            Some(l) => r.extend([
                l.node.to_string(),
                l.port.to_string(),
                l.neighbour.to_string(),
                l.utilisation.to_string(),
                l.occupancy.to_string(),
            ]),
            None => r.extend(std::iter::repeat(String::new()).take(5)),
        }
    }
    for j in 0..jobs {
        match s.jobs.get(j) {
            Some(x) => r.extend([
                x.delivered_packets.to_string(),
                x.delivered_bytes.to_string(),
                x.accepted_throughput.to_string(),
                opt(x.latency_mean),
            ]),
            None => r.extend(std::iter::repeat(String::new()).take(4)),
        }
    }
    r
}

/// Writes the time series as CSV.
pub(crate) fn write_csv(path: &Path, r: &Results) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("cannot write the time series to {}: {e}", path.display());
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).map_err(fail)?);
    let jobs = r.samples.iter().map(|s| s.jobs.len()).max().unwrap_or(0);
    writeln!(f, "{}", header(jobs).join(",")).map_err(fail)?;
    for (k, s) in r.samples.iter().enumerate() {
        writeln!(f, "{}", row(k, s, jobs).join(",")).map_err(fail)?;
    }
    f.flush().map_err(fail)
}

/// The summary's line on the time series (none without one).
pub(crate) fn summary(r: &Results, csv: Option<&Path>) -> String {
    let Some(first) = r.samples.first() else { return String::new() };
    let peak = r.samples.iter().map(|s| s.accepted_throughput).fold(0.0, f64::max);
    let worst = r.samples.iter().filter_map(|s| s.latency_p99).fold(0.0, f64::max);
    let to = match csv {
        Some(p) => format!("in {}", p.display()),
        None => "in --stats-json's model_results.samples (--samples-csv FILE for a CSV)".into(),
    };
    // One way to print numbers: 4 significant digits, times in their unit (issue 62).
    format!(
        "time series: {} intervals of {} {to}; peak accepted throughput {}, worst p99 latency {}\n",
        r.samples.len(),
        crate::readable::time_ns(first.end_ns - first.start_ns),
        crate::readable::sig(peak),
        crate::readable::time_ns(worst),
    )
}
