//! The one-line note after a network run that ended before its figures
//! mean what they say: open traffic whose mean latency had not settled
//! (BookSim's rule over the run's sample periods, `curve::rule`), or that
//! the network carried less than offered in the run's second half (past
//! saturation: it falls behind however long the run), or a finite
//! workload with packets still in flight at `--end` (beside synthetic
//! traffic past saturation, which a later `--end` alone does not cure).
//! Each note names the option that fixes it.

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
        // A job of ranks beside synthetic traffic the network cannot carry:
        // the backlog never drains, and the job's packets wait behind it at
        // every router (issue 62: Theta at 0.2 load, the halo's last ranks
        // still waiting at 3 ms, 75.8 µs alone). Past saturation when less
        // arrived than was offered and more is in flight than three times
        // what Little's law gives for the delivered packets' rate and
        // latency: a backlog growing with the run, not a short run's
        // start-up (the pipe still filling: at most about twice, until the
        // run is shorter than 1.5 latencies).
        let little = r.delivered_packets as f64 / r.window_ns.max(1.0) * r.latency_mean;
        let saturated = r.accepted_throughput < (1.0 - rule::THRESHOLD) * r.measured_offered_load
            && r.in_flight_packets as f64 > 3.0 * little;
        if synthetic && saturated {
            let waiting: Vec<String> = r
                .jobs
                .iter()
                .filter(|j| j.kind == "ranks" && j.finish_ns.is_none())
                .map(|j| format!("job {}", j.job))
                .collect();
            return format!(
                "note: {} had not finished by --end while the network carried {} of the {} offered: past \
                 saturation, the synthetic job's backlog grows however long the run, and the unfinished job's \
                 packets wait behind it at every router (under round-robin arbitration, the default, an old packet \
                 has no priority; --arbitration age serves the oldest first); lower the synthetic job's load, or give \
                 a later --end\n",
                waiting.join(", "),
                sig(r.accepted_throughput),
                sig(r.measured_offered_load)
            );
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
        // The same beside synthetic traffic past saturation (Theta, halo3d
        // beside synthetic load 0.2, end 300 µs: 0.0734 carried of 0.1255,
        // 453,223 of 1,091,444 packets in flight, delivered ones 54.4 µs).
        (r.accepted_throughput, r.measured_offered_load) = (0.0734, 0.1255);
        (r.in_flight_packets, r.injected_packets, r.delivered_packets) = (453_223, 1_091_444, 638_221);
        (r.window_ns, r.latency_mean) = (300e3, 54.4e3);
        let n = note(&r, 0.0);
        assert!(n.contains("job 0 had not finished") && n.contains("past saturation"), "{n}");
        assert!(n.contains("0.07340 of the 0.1255 offered") && n.contains("--arbitration age"), "{n}");
        // A short run's start-up at low load: ended two latencies in, half
        // of what was injected still in flight (Little's law's twice).
        (r.accepted_throughput, r.measured_offered_load) = (0.025, 0.05);
        (r.in_flight_packets, r.injected_packets, r.delivered_packets) = (1000, 2000, 1000);
        (r.window_ns, r.latency_mean) = (2000.0, 1000.0);
        assert!(note(&r, 0.0).contains("did not finish by --end"), "not saturation");
        r.jobs.clear();
        (r.in_flight_packets, r.injected_packets) = (3, 25_868);
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
