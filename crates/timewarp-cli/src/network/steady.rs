//! The one-line note after a network run that ended before its figures
//! mean what they say: open traffic whose mean latency had not settled
//! (BookSim's rule over the run's sample periods, `curve::rule`), or that
//! the network carried less than offered in the run's second half (past
//! saturation: it falls behind however long the run), or a finite
//! workload with packets still in flight at `--end`. Each note names the
//! option that fixes it.

use timewarp_models::network::Results;

use super::curve::rule::{self, Period, Verdict};
use crate::readable::{count, sig};

/// The note for results `r` of a run measured from `warmup` ns (empty: none).
pub(crate) fn note(r: &Results, warmup: f64) -> String {
    if r.batches.is_empty() {
        // A finite workload: its packets should all have arrived.
        if r.in_flight_packets == 0 {
            return String::new();
        }
        // A job of synthetic traffic sends until the end: once every job
        // of ranks has finished, what is in flight is its own (a later
        // --end would not let it arrive; issue 61).
        let synthetic = r.jobs.iter().any(|j| j.kind == "synthetic");
        if synthetic && r.jobs.iter().all(|j| j.kind != "ranks" || j.finish_ns.is_some()) {
            return String::new();
        }
        return format!(
            "note: {} of {} packets still in flight at the end: the workload did not finish by --end; give a later \
             --end (or leave it out) to let them arrive\n",
            count(r.in_flight_packets),
            count(r.injected_packets)
        );
    }
    let periods: Vec<Period> = r
        .batches
        .iter()
        .map(|b| Period { packets: b.packets, latency: b.latency_mean, accepted: b.accepted_throughput })
        .collect();
    let end = warmup + r.window_ns;
    let longer = format!("--end {} --warmup {}", sig_plain(10.0 * end), sig_plain(end));
    let late = rule::late_accepted(&periods);
    match rule::judge(&periods, rule::THRESHOLD) {
        v @ Verdict::Unsettled { .. } => format!(
            "note: not in a steady state by --end {}: {} ({}% is settled), with {} packets in flight; run longer \
             ({longer}) or let `timewarp curve` find the length\n",
            sig(end),
            v.why(periods.len()).unwrap_or_default(),
            rule::THRESHOLD * 100.0,
            count(r.in_flight_packets)
        ),
        Verdict::Steady { .. } if late < (1.0 - rule::THRESHOLD) * r.measured_offered_load => {
            format!(
                "note: the network carried {} of the {} offered in the run's second half: past saturation, its \
                 latency grows with the run's length; lower --load (`timewarp curve` finds the saturation \
                 throughput)\n",
                sig(late),
                sig(r.measured_offered_load)
            )
        }
        Verdict::Steady { .. } => String::new(),
    }
}

/// A time for an option value: whole ns, no separators.
fn sig_plain(v: f64) -> String {
    format!("{}", v.round())
}

#[cfg(test)]
mod tests {
    use super::*;
    use timewarp_models::network::Batch;

    fn run(accepted: &[f64], offered: f64) -> Results {
        let batches = accepted
            .iter()
            .map(|&a| Batch { packets: 1000, latency_mean: Some(5000.0), accepted_throughput: a })
            .collect();
        let whole = accepted.iter().sum::<f64>() / accepted.len() as f64;
        let mut r = Results::default();
        (r.batches, r.accepted_throughput, r.measured_offered_load) = (batches, whole, offered);
        r
    }

    #[test]
    fn a_finished_job_beside_endless_synthetic_traffic_gets_no_advice() {
        let job = |kind, finish_ns| timewarp_models::network::JobResult {
            kind,
            finish_ns,
            job: 0,
            name: String::new(),
            nodes: 8,
            comm_ns_mean: None,
            comm_ns_max: None,
            delivered_packets: 1,
            delivered_bytes: 1,
            latency_mean: None,
            alone: None,
            slowdown: None,
            comm_slowdown: None,
            latency_slowdown: None,
        };
        let mut r = Results::default();
        (r.in_flight_packets, r.injected_packets) = (3, 25_868);
        r.jobs = vec![job("ranks", Some(9448.0)), job("synthetic", None)];
        assert_eq!(note(&r, 0.0), "", "the packets in flight are the synthetic job's");
        r.jobs[0].finish_ns = None;
        assert!(note(&r, 0.0).contains("did not finish by --end"), "a job of ranks still running");
        r.jobs.clear();
        assert!(note(&r, 0.0).contains("3 of 25,868 packets still in flight"), "one finite workload");
    }

    #[test]
    fn packets_in_flight_at_the_end_are_not_saturation() {
        // Theta at 5 % load, end 20 µs: the first periods fill the pipe,
        // the whole window carries 0.040 of 0.050, every late period ~0.049.
        let low = run(&[0.0022, 0.0162, 0.0426, 0.0463, 0.0466, 0.0485, 0.0496, 0.0494, 0.0481, 0.0491], 0.0501);
        assert!(low.accepted_throughput < 0.95 * low.measured_offered_load, "the whole window looks short");
        assert_eq!(note(&low, 0.0), "", "not past saturation");
        // Past saturation every period carries less than offered.
        let sat = run(&[0.30; 10], 0.5);
        let n = note(&sat, 0.0);
        assert!(
            n.contains("past saturation") && n.contains("0.3000 of the 0.5000 offered in the run's second half"),
            "{n}"
        );
    }
}
