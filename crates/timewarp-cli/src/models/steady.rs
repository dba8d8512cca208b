//! The one-line note after a network run that ended before its figures
//! mean what they say: open traffic whose mean latency had not settled
//! (BookSim's rule over the run's sample periods, `curve::rule`), or that
//! the network carried less than offered (past saturation), or a finite
//! workload with packets still in flight at `--end`. Each note names the
//! option that fixes it.

use timewarp_models::network::Results;

use crate::curve::rule::{self, Period, Verdict};
use crate::readable::{count, sig};

/// The note for results `r` of a run measured from `warmup` ns (empty: none).
pub(crate) fn note(r: &Results, warmup: f64) -> String {
    if r.batches.is_empty() {
        // A finite workload: its packets should all have arrived.
        if r.in_flight_packets == 0 {
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
    match rule::judge(&periods, rule::THRESHOLD) {
        v @ Verdict::Unsettled { .. } => format!(
            "note: not in a steady state by --end {}: {} ({}% is settled), with {} packets in flight; run longer \
             ({longer}) or let `timewarp curve` find the length\n",
            sig(end),
            v.why(periods.len()).unwrap_or_default(),
            rule::THRESHOLD * 100.0,
            count(r.in_flight_packets)
        ),
        Verdict::Steady { .. } if r.accepted_throughput < (1.0 - rule::THRESHOLD) * r.measured_offered_load => {
            format!(
                "note: the network carried {} of the {} offered: past saturation, its latency grows with the run's \
                 length; lower --load (`timewarp curve` finds the saturation throughput)\n",
                sig(r.accepted_throughput),
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
